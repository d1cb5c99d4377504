#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif
import TesseraDiff
import TesseraLayout

extension CollectionView {
    /// An item visible now, with its selection and highlight.
    public struct ItemState: Hashable, Sendable {
        /// Where the item is.
        public var indexPath: IndexPath
        /// Whether it is selected.
        public var isSelected: Bool
        /// Whether it is highlighted.
        public var isHighlighted: Bool

        /// Creates an item state.
        public init(indexPath: IndexPath, isSelected: Bool, isHighlighted: Bool) {
            self.indexPath = indexPath
            self.isSelected = isSelected
            self.isHighlighted = isHighlighted
        }
    }

    // MARK: Settings

    /// Whether items can be selected. `true` by default. Setting it to
    /// `false` deselects every item, ends the highlight and cancels the
    /// touch in progress, without telling the ``delegate``.
    public var allowsSelection: Bool {
        get { selection.allowsSelection }
        set {
            selection.allowsSelection = newValue
            if !newValue {
                selection.removeAllSelected()
                selection.cancelTouch()
            }
        }
    }

    /// Whether several items can be selected at once. `false` by default:
    /// selecting an item then deselects the one selected before. Turning it
    /// off keeps the items selected until the next selection.
    public var allowsMultipleSelection: Bool {
        get { selection.allowsMultipleSelection }
        set { selection.allowsMultipleSelection = newValue }
    }

    // MARK: Reading

    /// The index paths of the selected items, sorted.
    ///
    /// - Complexity: O(*s*) for *s* selected items.
    public var indexPathsForSelectedItems: [IndexPath] {
        selection.selected.map(\.indexPath)
    }

    /// The index paths of the highlighted items, sorted: the touched item
    /// between ``beginTouch(at:)`` and ``endTouch(selecting:)`` when the
    /// ``delegate`` let it be highlighted, none otherwise.
    public var indexPathsForHighlightedItems: [IndexPath] {
        selection.highlighted.map { [$0.indexPath] } ?? []
    }

    /// Whether the item at an index path is selected (`false` for an index
    /// path that names no item).
    ///
    /// - Complexity: O(log *s*) for *s* selected items.
    public func isItemSelected(at indexPath: IndexPath) -> Bool {
        _ItemPosition(indexPath).map(selection.isSelected) ?? false
    }

    /// Every item visible now, in the layout's query order, with its
    /// selection and highlight: what a renderer needs to draw the state
    /// after ``selectItem(at:)``, ``deselectItem(at:)`` or a touch, which
    /// make no plan.
    ///
    /// - Complexity: the layout's rect query, plus O(*v* log *s*) for *v*
    ///   visible elements and *s* selected items.
    public var visibleItemStates: [ItemState] {
        visibleElements.compactMap { attributes in
            guard attributes.category == .cell, let position = _ItemPosition(attributes.indexPath) else { return nil }
            return ItemState(
                indexPath: attributes.indexPath,
                isSelected: selection.isSelected(position),
                isHighlighted: selection.highlighted == position
            )
        }
    }

    // MARK: Selecting in code

    /// Selects an item, without telling the ``delegate`` (as UIKit's
    /// `selectItem(at:animated:scrollPosition:)`). Under single selection
    /// the item selected before is deselected, silently too. Selecting a
    /// selected item changes nothing. The next plan shows the item with
    /// ``AnimationPlan/Element/isSelected``; ``visibleItemStates`` shows it
    /// now.
    ///
    /// - Throws: ``SelectionError/selectionNotAllowed(indexPath:)`` when
    ///   ``allowsSelection`` is `false`,
    ///   ``SelectionError/indexPathOutOfRange(indexPath:numberOfSections:numberOfItems:)``
    ///   when the index path names no item,
    ///   ``SelectionError/updateInProgress(operation:)`` when called from
    ///   inside a batch update, a reload or a sizing pass; the selection is
    ///   unchanged.
    /// - Complexity: O(*s*) for *s* selected items.
    public func selectItem(at indexPath: IndexPath) throws(SelectionError) {
        guard updateDepth == 0 else { throw .updateInProgress(operation: "selectItem(at:)") }
        let position = try checkedPosition(indexPath)
        guard selection.allowsSelection else { throw .selectionNotAllowed(indexPath: indexPath) }
        if !selection.allowsMultipleSelection, selection.selected != [position] {
            selection.removeAllSelected()
        }
        selection.insert(position)
    }

    /// Deselects an item, without telling the ``delegate`` (as UIKit's
    /// `deselectItem(at:animated:)`). Deselecting an item that is not
    /// selected changes nothing.
    ///
    /// - Throws: ``SelectionError/indexPathOutOfRange(indexPath:numberOfSections:numberOfItems:)``
    ///   when the index path names no item,
    ///   ``SelectionError/updateInProgress(operation:)`` when called from
    ///   inside a batch update, a reload or a sizing pass; the selection is
    ///   unchanged.
    /// - Complexity: O(*s*) for *s* selected items.
    public func deselectItem(at indexPath: IndexPath) throws(SelectionError) {
        guard updateDepth == 0 else { throw .updateInProgress(operation: "deselectItem(at:)") }
        selection.remove(try checkedPosition(indexPath))
    }

    // MARK: Touches

    /// Begins a touch on an item: asks the ``delegate``'s
    /// `collectionView(_:shouldHighlightItemAt:)` and, when it agrees,
    /// highlights the item and calls `collectionView(_:didHighlightItemAt:)`.
    ///
    /// A touch the delegate refuses to highlight, or whose delegate runs a
    /// batch update or ``reloadData()`` while asked, still has to end with
    /// ``endTouch(selecting:)``, which then does nothing (UIKit skips the
    /// whole selection when an item may not be highlighted).
    ///
    /// - Returns: Whether the item is highlighted.
    /// - Throws: ``SelectionError/touchInProgress(touchedIndexPath:)`` when
    ///   a touch has not ended, ``SelectionError/selectionNotAllowed(indexPath:)``
    ///   when ``allowsSelection`` is `false`,
    ///   ``SelectionError/indexPathOutOfRange(indexPath:numberOfSections:numberOfItems:)``
    ///   when the index path names no item,
    ///   ``SelectionError/updateInProgress(operation:)`` when called from
    ///   inside a batch update, a reload or a sizing pass; nothing changes
    ///   and the delegate is not asked.
    @discardableResult
    public func beginTouch(at indexPath: IndexPath) throws(SelectionError) -> Bool {
        guard updateDepth == 0 else { throw .updateInProgress(operation: "beginTouch(at:)") }
        if let touch = selection.touch { throw .touchInProgress(touchedIndexPath: touch.item?.indexPath) }
        let position = try checkedPosition(indexPath)
        guard selection.allowsSelection else { throw .selectionNotAllowed(indexPath: indexPath) }
        let generationBefore = generation
        // A delegate that changed the data while asked answered for the
        // state before: the touch goes on without an item, as when refused.
        guard delegate?.collectionView(self, shouldHighlightItemAt: indexPath) ?? true, generation == generationBefore, selection.touch == nil else {
            if selection.touch == nil { selection.touch = _SelectionState.Touch(item: nil) }
            return false
        }
        selection.touch = _SelectionState.Touch(item: position)
        selection.highlighted = position
        delegate?.collectionView(self, didHighlightItemAt: indexPath)
        return true
    }

    /// Ends the touch begun with ``beginTouch(at:)``.
    ///
    /// With `selecting` (the touch lifted on the item), in UIKit's order:
    /// for an item not selected, or any item under single selection,
    /// `collectionView(_:shouldSelectItemAt:)`, then, when it agrees,
    /// `collectionView(_:didDeselectItemAt:)` for the item a single
    /// selection gives up and `collectionView(_:didSelectItemAt:)`; for a
    /// selected item when ``allowsMultipleSelection`` is on,
    /// `collectionView(_:shouldDeselectItemAt:)` and then
    /// `collectionView(_:didDeselectItemAt:)`. Last, the highlight ends
    /// with `collectionView(_:didUnhighlightItemAt:)`. Without `selecting`
    /// (the touch was cancelled or left the item) only the highlight ends.
    /// When the delegate runs a batch update from one of these calls, the
    /// item is selected (or deselected) where the batch moved it, or not at
    /// all when the batch deleted it, and the highlight ends at its index
    /// path after it.
    ///
    /// A touch whose item was not highlighted, was deleted by a batch
    /// update, or was cancelled by ``reloadData()`` or by turning
    /// ``allowsSelection`` off ends without a call.
    ///
    /// - Parameter selecting: Whether the touch lifted on the item.
    /// - Returns: Whether the selection changed.
    /// - Throws: ``SelectionError/noTouchInProgress`` when no touch began,
    ///   ``SelectionError/updateInProgress(operation:)`` when called from
    ///   inside a batch update, a reload or a sizing pass; nothing changes.
    /// - Complexity: O(*s*) for *s* selected items.
    @discardableResult
    public func endTouch(selecting: Bool = true) throws(SelectionError) -> Bool {
        guard updateDepth == 0 else { throw .updateInProgress(operation: "endTouch(selecting:)") }
        guard let touch = selection.touch else { throw .noTouchInProgress }
        selection.touch = nil
        guard let touched = touch.item else { return false }
        let indexPath = touched.indexPath
        let generationBefore = generation
        /// The touched item now: where its highlight is when the delegate,
        /// asked, ran a batch update (`nil` when it deleted the item).
        func stillTouched() -> _ItemPosition? { generation == generationBefore ? touched : selection.highlighted }
        var changed = false
        if selecting && selection.allowsSelection {
            if selection.allowsMultipleSelection && selection.isSelected(touched) {
                if delegate?.collectionView(self, shouldDeselectItemAt: indexPath) ?? true, let position = stillTouched() {
                    selection.remove(position)
                    changed = true
                    delegate?.collectionView(self, didDeselectItemAt: position.indexPath)
                }
            } else if delegate?.collectionView(self, shouldSelectItemAt: indexPath) ?? true, let position = stillTouched() {
                var givenUp: [_ItemPosition] = []
                if !selection.allowsMultipleSelection {
                    givenUp = selection.selected.filter { $0 != position }
                    for other in givenUp { selection.remove(other) }
                }
                changed = selection.insert(position) || !givenUp.isEmpty
                for other in givenUp { delegate?.collectionView(self, didDeselectItemAt: other.indexPath) }
                delegate?.collectionView(self, didSelectItemAt: position.indexPath)
            }
        }
        // The touch's highlight, wherever a batch update the delegate ran
        // moved it (unless a touch the delegate began highlights now).
        if let highlighted = selection.highlighted, selection.touch?.item != highlighted {
            selection.highlighted = nil
            delegate?.collectionView(self, didUnhighlightItemAt: highlighted.indexPath)
        }
        return changed
    }

    /// A whole touch on an item, lifted on it: ``beginTouch(at:)`` then
    /// ``endTouch(selecting:)``, with the delegate calls of both in order.
    ///
    /// - Returns: Whether the selection changed.
    /// - Throws: what ``beginTouch(at:)`` throws; nothing changes.
    /// - Complexity: O(*s*) for *s* selected items.
    @discardableResult
    public func tapItem(at indexPath: IndexPath) throws(SelectionError) -> Bool {
        try beginTouch(at: indexPath)
        return try endTouch(selecting: true)
    }

    // MARK: Internals

    /// Runs `body` (a batch update) with a way to find again, by identity,
    /// the items the batch deletes and inserts: `newIndexPath` gives the
    /// index path after the batch of the item at an index path before it,
    /// or `nil` when it is gone. Such items keep their selection and
    /// highlight, and the delegate hears nothing about them.
    package func carryingSelection<T>(by newIndexPath: @escaping (IndexPath) -> IndexPath?, _ body: () throws -> T) rethrows -> T {
        selection.carry = { position in newIndexPath(position.indexPath).flatMap(_ItemPosition.init) }
        defer { selection.carry = nil }
        return try body()
    }

    /// The position of an index path that names an item now.
    func checkedPosition(_ indexPath: IndexPath) throws(SelectionError) -> _ItemPosition {
        guard let position = _ItemPosition(indexPath), position.section >= 0, position.section < itemCounts.count else {
            throw .indexPathOutOfRange(indexPath: indexPath, numberOfSections: itemCounts.count, numberOfItems: nil)
        }
        guard position.item >= 0, position.item < itemCounts[position.section] else {
            throw .indexPathOutOfRange(indexPath: indexPath, numberOfSections: itemCounts.count, numberOfItems: itemCounts[position.section])
        }
        return position
    }

    /// Sets every cell's ``AnimationPlan/Element/isSelected`` and
    /// ``AnimationPlan/Element/isHighlighted``: from the state now for an
    /// element with an index path after, from `before` for one that
    /// disappears.
    ///
    /// - Complexity: O(*e* log *s*) for *e* elements and *s* selected items.
    func markSelection(_ elements: inout [AnimationPlan.Element], before: _SelectionState) {
        guard !selection.selected.isEmpty || selection.highlighted != nil || !before.selected.isEmpty || before.highlighted != nil else { return }
        for index in elements.indices where elements[index].category == .cell {
            let state: _SelectionState
            let path: IndexPath
            if let after = elements[index].indexPathAfter {
                state = selection
                path = after
            } else if let old = elements[index].indexPathBefore {
                state = before
                path = old
            } else {
                continue
            }
            guard let position = _ItemPosition(path) else { continue }
            elements[index].isSelected = state.isSelected(position)
            elements[index].isHighlighted = state.highlighted == position
        }
    }

    /// Runs `body` (a change made at a time, with what follows it: the
    /// playing plan recorded and completed) and only then tells the
    /// delegate about the selected and highlighted items its batches
    /// deleted, so that a change the delegate makes then begins from the
    /// plan `body` left playing. Within another such call, `body` just runs.
    package func reportingSelectionAfterwards<T, E: Error>(_ body: () throws(E) -> T) throws(E) -> T {
        guard postponedSelectionReports == nil else { return try body() }
        postponedSelectionReports = []
        defer {
            let reports = postponedSelectionReports ?? []
            postponedSelectionReports = nil
            for report in reports { reportDeletedSelection(deselected: report.deselected, unhighlighted: report.unhighlighted) }
        }
        return try body()
    }

    /// Tells the delegate about the items a batch update deleted from the
    /// selection and the highlight, by their index paths before the update.
    func reportDeletedSelection(deselected: [_ItemPosition], unhighlighted: [_ItemPosition]) {
        guard let delegate else { return }
        for position in deselected { delegate.collectionView(self, didDeselectItemAt: position.indexPath) }
        for position in unhighlighted { delegate.collectionView(self, didUnhighlightItemAt: position.indexPath) }
    }
}
