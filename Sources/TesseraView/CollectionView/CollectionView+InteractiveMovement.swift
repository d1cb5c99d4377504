#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif
import TesseraDiff
public import TesseraLayout

/// An interactive movement in progress: the item's index path in the data
/// source, the index path it takes in the order the view presents, and
/// where it is shown.
struct _InteractiveMovement {
    /// The item's index path in the data source (which does not change
    /// until the movement ends).
    let original: IndexPath
    /// The item counts of the data source.
    let originalCounts: [Int]
    /// The item's index path in the order the view presents.
    private(set) var target: IndexPath
    /// The counts of the order the view presents.
    private(set) var presentedCounts: [Int]
    /// The position the item follows.
    var position: Point
    /// The attributes the item was last shown with.
    var attributes: LayoutAttributes
    /// Whether the data source is being told to move the item: the order
    /// the view presents is the data source's own from then on.
    var isEnding = false

    init(original: IndexPath, counts: [Int], position: Point, attributes: LayoutAttributes) {
        self.original = original
        originalCounts = counts
        target = original
        presentedCounts = counts
        self.position = position
        self.attributes = attributes
    }

    /// Presents the item at `newTarget`.
    ///
    /// - Complexity: O(1).
    mutating func setTarget(_ newTarget: IndexPath) {
        presentedCounts[target[0]] -= 1
        presentedCounts[newTarget[0]] += 1
        target = newTarget
    }

    /// The data source's index path of the item the view presents at
    /// `path`: the order with the item taken out at ``original`` and put
    /// back at ``target``.
    func dataSourceIndexPath(forPresented path: IndexPath) -> IndexPath {
        guard path.count == 2 else { return path }
        if path == target { return original }
        var item = path[1]
        if path[0] == target[0] && item > target[1] { item -= 1 }
        if path[0] == original[0] && item >= original[1] { item += 1 }
        return IndexPath(item: item, section: path[0])
    }

    /// The index path the view presents the data source's item at `path`
    /// at.
    func presentedIndexPath(forDataSource path: IndexPath) -> IndexPath {
        guard path.count == 2 else { return path }
        if path == original { return target }
        var item = path[1]
        if path[0] == original[0] && item > original[1] { item -= 1 }
        if path[0] == target[0] && item >= target[1] { item += 1 }
        return IndexPath(item: item, section: path[0])
    }
}

/// What the batch-update core shows for the moving item during one step
/// of an interactive movement.
struct _InteractiveMovementStep {
    /// The attributes the item was shown with before the step (their index
    /// path is the item's before it).
    var before: LayoutAttributes
    /// The item's index path after the step.
    var target: IndexPath
    /// The position it follows after the step, or `nil` when it comes to
    /// rest at its frame (the movement ends or is cancelled).
    var position: Point?
    /// The attributes the layout gave it after the step.
    var after: LayoutAttributes?
}

extension CollectionView {
    // MARK: State

    /// The index path, in the order the view presents, of the item being
    /// moved interactively, or `nil` when no movement is in progress.
    public var indexPathForInteractivelyMovingItem: IndexPath? { interactiveMovement?.target }

    /// The index path, in the data source, of the item being moved
    /// interactively (where the movement began), or `nil` when no movement
    /// is in progress.
    public var originalIndexPathForInteractivelyMovingItem: IndexPath? { interactiveMovement?.original }

    /// The attributes the item being moved interactively is shown with now,
    /// or `nil` when no movement is in progress. The layout's own queries
    /// (and ``visibleElements``) give the place it would take instead.
    public var layoutAttributesForInteractivelyMovingItem: LayoutAttributes? { interactiveMovement?.attributes }

    /// The index path in the data source of the item the view presents at
    /// `indexPath`. The same index path unless an interactive movement is in
    /// progress: then the view presents the data source's order with the
    /// moving item taken out at its original index path and put back at its
    /// target. A layout delegate that answers by item (sizes, say) reads its
    /// item through this.
    ///
    /// - Complexity: O(1).
    public func dataSourceIndexPath(forPresentedIndexPath indexPath: IndexPath) -> IndexPath {
        interactiveMovement?.dataSourceIndexPath(forPresented: indexPath) ?? indexPath
    }

    /// The index path the view presents the data source's item at
    /// `indexPath` at: the inverse of ``dataSourceIndexPath(forPresentedIndexPath:)``.
    ///
    /// - Complexity: O(1).
    public func presentedIndexPath(forDataSourceIndexPath indexPath: IndexPath) -> IndexPath {
        interactiveMovement?.presentedIndexPath(forDataSource: indexPath) ?? indexPath
    }

    // MARK: Moving

    /// Begins moving the item at `indexPath` interactively, as UIKit's
    /// `beginInteractiveMovementForItem(at:)` does. The item is lifted where
    /// it is (the layout's moving-item attributes at its centre, which the
    /// first step starts it from; see
    /// ``layoutAttributesForInteractivelyMovingItem``). Nothing moves yet: follow
    /// the user's position with ``updateInteractiveMovementTargetPosition(_:)``,
    /// then ``endInteractiveMovement()`` or ``cancelInteractiveMovement()``.
    ///
    /// - Throws: ``InteractiveMovementError/updateInProgress(operation:)``
    ///   when called from inside a batch update, a reload or a sizing pass
    ///   (by the data source or a delegate the view was asking),
    ///   ``InteractiveMovementError/movementInProgress(_:)``,
    ///   ``InteractiveMovementError/indexPathOutOfRange(_:itemCounts:)``,
    ///   ``InteractiveMovementError/noDataSource``, or
    ///   ``InteractiveMovementError/itemCannotMove(_:)`` when the data
    ///   source's `collectionView(_:canMoveItemAt:)` says no, or runs a batch
    ///   update or ``reloadData()`` while asked (its answer was about the
    ///   state before); nothing else changes.
    /// - Complexity: O(*s*) for *s* sections.
    public func beginInteractiveMovementForItem(at indexPath: IndexPath) throws(InteractiveMovementError) {
        guard updateDepth == 0 else { throw .updateInProgress(operation: "beginInteractiveMovementForItem(at:)") }
        if let movement = interactiveMovement { throw .movementInProgress(movement.original) }
        guard indexPath.count == 2, indexPath[0] >= 0, indexPath[0] < itemCounts.count, indexPath[1] >= 0, indexPath[1] < itemCounts[indexPath[0]] else {
            throw .indexPathOutOfRange(indexPath, itemCounts: itemCounts)
        }
        guard let dataSource else { throw .noDataSource }
        let generationBefore = generation
        guard dataSource.collectionView(self, canMoveItemAt: indexPath),
              // A data source that changed the view while asked answered for an item no longer there.
              generation == generationBefore, interactiveMovement == nil
        else { throw .itemCannotMove(indexPath) }
        let layout = collectionViewLayout
        let resting = layout.layoutAttributesForItem(at: indexPath) ?? .cell(at: indexPath, frame: .zero)
        // Lifted where it is: the first step starts it there.
        let lifted = layout.layoutAttributesForInteractivelyMovingItem(at: indexPath, withTargetPosition: resting.center) ?? resting
        interactiveMovement = _InteractiveMovement(original: indexPath, counts: itemCounts, position: resting.center, attributes: lifted)
    }

    /// Moves the item being moved interactively to follow `position` (in
    /// content coordinates), and returns the plan of the step.
    ///
    /// The layout proposes the item's new index path
    /// (``CollectionViewLayout/targetIndexPath(forInteractivelyMovingItem:withPosition:)``),
    /// the delegate may change it
    /// (``CollectionViewDelegate/collectionView(_:targetIndexPathForMoveOfItemFromOriginalIndexPath:atCurrentIndexPath:toProposedIndexPath:)``);
    /// a proposal that names no place the item can take keeps the one it
    /// has. The view then presents the item at that index path: the step
    /// runs as a batch update that moves the item from its previous target
    /// to its new one (none when it stays), through the layout's update
    /// cycle, with the layout first invalidated with
    /// ``CollectionViewLayout/invalidationContext(forInteractivelyMovingItems:withTargetPosition:previousIndexPaths:previousPosition:)``.
    /// The data source is not asked to change: the counts the view reads are
    /// the presented ones. The content offset does not move.
    ///
    /// In the plan, the other items go to where they are with the moving
    /// item at its target, and the moving item goes from where it was shown
    /// to the attributes of
    /// ``CollectionViewLayout/layoutAttributesForInteractivelyMovingItem(at:withTargetPosition:)``
    /// (it is in the plan, and keeps its view, even when its place is out
    /// of sight).
    ///
    /// - Throws: ``InteractiveMovementError/updateInProgress(operation:)``,
    ///   ``InteractiveMovementError/noMovementInProgress(operation:)``
    ///   or ``InteractiveMovementError/positionNotFinite(_:)``; nothing
    ///   changes. Also ``InteractiveMovementError/noMovementInProgress(operation:)``
    ///   when the delegate, asked for the target, runs a batch update or
    ///   ``reloadData()``: that change ended the movement, as it does at any
    ///   other time.
    /// - Complexity: what a batch update that moves one item costs (for
    ///   Tessera's layouts, laying out the one or two sections it touches
    ///   again), plus the layout's target query.
    @discardableResult
    public func updateInteractiveMovementTargetPosition(_ position: Point) throws(InteractiveMovementError) -> AnimationPlan {
        guard updateDepth == 0 else { throw .updateInProgress(operation: "updateInteractiveMovementTargetPosition(_:)") }
        guard let movement = interactiveMovement, !movement.isEnding else { throw .noMovementInProgress(operation: "updateInteractiveMovementTargetPosition(_:)") }
        guard position.x.isFinite, position.y.isFinite else { throw .positionNotFinite(position) }
        let layout = collectionViewLayout
        let previous = movement.target
        var target = previous
        let proposed = layout.targetIndexPath(forInteractivelyMovingItem: previous, withPosition: position)
        if canTake(proposed, from: previous, counts: movement.presentedCounts) { target = proposed }
        if let delegate {
            let chosen = delegate.collectionView(self, targetIndexPathForMoveOfItemFromOriginalIndexPath: movement.original, atCurrentIndexPath: previous, toProposedIndexPath: target)
            if canTake(chosen, from: previous, counts: movement.presentedCounts) { target = chosen }
            // A batch update or reloadData the delegate ran ended the movement.
            guard let current = interactiveMovement, current.original == movement.original, current.target == previous else {
                throw .noMovementInProgress(operation: "updateInteractiveMovementTargetPosition(_:)")
            }
        }
        var next = movement
        next.setTarget(target)
        next.position = position
        let context = layout.invalidationContext(
            forInteractivelyMovingItems: [target], withTargetPosition: position,
            previousIndexPaths: [previous], previousPosition: movement.position
        )
        interactiveMovement = next
        do {
            let step = _InteractiveMovementStep(before: movement.attributes, target: target, position: position)
            let (plan, shown) = try runInteractiveMovementStep(step, from: previous, context: context)
            interactiveMovement?.attributes = shown ?? layout.layoutAttributesForItem(at: target) ?? movement.attributes
            return plan
        } catch {
            interactiveMovement = movement
            throw error
        }
    }

    /// Ends the interactive movement: tells the data source to move the
    /// item (`collectionView(_:moveItemAt:to:)`, only when its index path
    /// changed, as in UIKit), and returns the plan in which it settles at
    /// its frame.
    ///
    /// Afterwards the data source must give the counts the view presented.
    /// While it is told, the view presents the data source's new order as
    /// its own: a batch update or ``reloadData()`` the data source runs then
    /// (a ``DiffableDataSource`` whose `didReorder` applies a snapshot, say)
    /// ends the movement in that order, and the plan returned is then
    /// ``setBounds(_:animated:)``'s for the same bounds (nothing moves).
    /// The layout is invalidated with
    /// ``CollectionViewLayout/invalidationContextForEndingInteractiveMovementOfItems(toFinalIndexPaths:previousIndexPaths:movementCancelled:)``
    /// first.
    ///
    /// - Throws: ``InteractiveMovementError/updateInProgress(operation:)``,
    ///   ``InteractiveMovementError/noMovementInProgress(operation:)``
    ///   or ``InteractiveMovementError/noDataSource`` (nothing changes);
    ///   ``InteractiveMovementError/dataSourceCountsMismatch(expected:actual:)``
    ///   when the data source disagrees after the move: the view then
    ///   reloads its data (``reloadData()``) and the movement is over.
    /// - Complexity: what a batch update costs with the one or two sections
    ///   the item left and joined laid out again.
    @discardableResult
    public func endInteractiveMovement() throws(InteractiveMovementError) -> AnimationPlan {
        guard updateDepth == 0 else { throw .updateInProgress(operation: "endInteractiveMovement()") }
        guard let movement = interactiveMovement, !movement.isEnding else { throw .noMovementInProgress(operation: "endInteractiveMovement()") }
        guard let dataSource else { throw .noDataSource }
        let layout = collectionViewLayout
        if movement.target != movement.original {
            interactiveMovement?.isEnding = true
            dataSource.collectionView(self, moveItemAt: movement.original, to: movement.target)
            // A batch update or reloadData the data source ran while told
            // ended the movement in the order it has now.
            if interactiveMovement == nil { return setBounds(bounds) }
        }
        interactiveMovement = nil
        let presented = movement.presentedCounts
        let actual = try? readCounts()
        guard actual == presented else {
            reloadData()
            throw .dataSourceCountsMismatch(expected: presented, actual: actual ?? [])
        }
        let context = layout.invalidationContextForEndingInteractiveMovementOfItems(
            toFinalIndexPaths: [movement.target], previousIndexPaths: [movement.original], movementCancelled: false
        )
        let step = _InteractiveMovementStep(before: movement.attributes, target: movement.target, position: nil)
        do {
            return try runInteractiveMovementStep(step, from: movement.target, context: context).plan
        } catch {
            reloadData()
            throw error
        }
    }

    /// Cancels the interactive movement: the data source is not told, and
    /// the returned plan puts every item back in the data source's order,
    /// the moving item at its original frame.
    ///
    /// - Throws: ``InteractiveMovementError/updateInProgress(operation:)``
    ///   or ``InteractiveMovementError/noMovementInProgress(operation:)``;
    ///   nothing changes.
    /// - Complexity: what a batch update that moves one item costs.
    @discardableResult
    public func cancelInteractiveMovement() throws(InteractiveMovementError) -> AnimationPlan {
        guard updateDepth == 0 else { throw .updateInProgress(operation: "cancelInteractiveMovement()") }
        guard let movement = interactiveMovement, !movement.isEnding else { throw .noMovementInProgress(operation: "cancelInteractiveMovement()") }
        let context = collectionViewLayout.invalidationContextForEndingInteractiveMovementOfItems(
            toFinalIndexPaths: [movement.original], previousIndexPaths: [movement.original], movementCancelled: true
        )
        var next = movement
        next.setTarget(movement.original)
        interactiveMovement = next
        do {
            let step = _InteractiveMovementStep(before: movement.attributes, target: movement.original, position: nil)
            let plan = try runInteractiveMovementStep(step, from: movement.target, context: context).plan
            interactiveMovement = nil
            return plan
        } catch {
            interactiveMovement = movement
            throw error
        }
    }

    // MARK: Internals

    /// Whether an item presented at `current` can be presented at `target`:
    /// an item of a section it is in, or an item of another section or one
    /// past its end.
    private func canTake(_ target: IndexPath, from current: IndexPath, counts: [Int]) -> Bool {
        guard target.count == 2, target[0] >= 0, target[0] < counts.count, target[1] >= 0 else { return false }
        return target[0] == current[0] ? target[1] < counts[target[0]] : target[1] <= counts[target[0]]
    }

    /// Runs one step through the batch-update core: the item moves from
    /// `previous` to the step's target (no update when they are the same),
    /// with scroll anchoring off. Returns the plan and the attributes the
    /// item is shown with after it, when the layout gave some.
    private func runInteractiveMovementStep(
        _ step: _InteractiveMovementStep,
        from previous: IndexPath,
        context: InvalidationContext
    ) throws(InteractiveMovementError) -> (plan: AnimationPlan, shown: LayoutAttributes?) {
        let items: [UpdateItem] = previous == step.target ? [] : [.moveItem(from: previous, to: step.target)]
        var before = step.before
        before.indexPath = previous
        var running = step
        running.before = before
        let anchors = anchorsScrollPosition
        anchorsScrollPosition = false
        interactiveMovementStep = running
        defer {
            anchorsScrollPosition = anchors
            interactiveMovementStep = nil
        }
        collectionViewLayout.invalidateLayout(with: context)
        do {
            let plan = try performBatchUpdates(items, animated: true, itemIDsBefore: nil)
            return (plan, interactiveMovementStep?.after)
        } catch {
            throw .batchUpdateFailed(error)
        }
    }

    /// During a step of an interactive movement, puts the moving item into
    /// the elements visible before (`after` false: as it was shown) or
    /// after (as the layout's moving-item attributes say, when it follows a
    /// position), replacing its entry or adding one.
    func substituteInteractivelyMovingItem(in elements: inout [LayoutAttributes], after: Bool) {
        guard let step = interactiveMovementStep else { return }
        let attributes: LayoutAttributes
        if after {
            guard let position = step.position,
                  let moving = collectionViewLayout.layoutAttributesForInteractivelyMovingItem(at: step.target, withTargetPosition: position)
            else { return }
            attributes = moving
            interactiveMovementStep?.after = moving
        } else {
            attributes = step.before
        }
        Self.substitute(attributes, in: &elements)
    }

    /// During an interactive movement, puts the moving item into the
    /// elements of a plan in which every element keeps its index path (a
    /// bounds change or a layout transition): before, as it was shown;
    /// after, as `layout` shows it at the same position.
    func substituteInteractivelyMovingItem(before: inout [LayoutAttributes], after: inout [LayoutAttributes], in layout: CollectionViewLayout) {
        guard let movement = interactiveMovement else { return }
        var shown = movement.attributes
        shown.indexPath = movement.target
        Self.substitute(shown, in: &before)
        guard let moving = layout.layoutAttributesForInteractivelyMovingItem(at: movement.target, withTargetPosition: movement.position) else { return }
        Self.substitute(moving, in: &after)
        interactiveMovement?.attributes = moving
    }

    /// Replaces the entry of the item `attributes` names, or adds one.
    private static func substitute(_ attributes: LayoutAttributes, in elements: inout [LayoutAttributes]) {
        if let index = elements.firstIndex(where: { $0.category == .cell && $0.indexPath == attributes.indexPath }) {
            elements[index] = attributes
        } else {
            elements.append(attributes)
        }
    }

    /// Ends an interactive movement in progress with no plan, putting the
    /// view and its layout back in the data source's order before the
    /// movement (the views shown, the selection, the highlight, the touch
    /// and the elements of the plan playing keep their items); while the data source is told to move the
    /// item, its order is the one the view presents, which stays. The data
    /// source is not asked anything: it may already answer for a later
    /// state.
    ///
    /// - Complexity: what the layout's `prepare()` costs for the one or two
    ///   sections the item left and joined.
    func abandonInteractiveMovement() {
        guard let movement = interactiveMovement else { return }
        interactiveMovement = nil
        guard !movement.isEnding, movement.target != movement.original,
              let mapping = try? BatchIndexMapping(
                  [.moveItem(from: movement.target, to: movement.original)],
                  itemCountsBefore: itemCounts, itemCountsAfter: movement.originalCounts
              )
        else { return }
        itemCounts = movement.originalCounts
        _ = selection.remap(through: mapping, itemCountsAfter: movement.originalCounts)
        let context = InvalidationContext()
        context.invalidateSections(Array(Set([movement.target[0], movement.original[0]])).sorted(), updateIndexMapping: mapping)
        collectionViewLayout.invalidateLayout(with: context)
        collectionViewLayout.prepare()
        var remapped: [_ElementKey: ViewIdentity] = [:]
        for (key, view) in attachedViews {
            guard key.category == .cell, let path = mapping.indexPathAfter(key.indexPath) else {
                remapped[key] = view
                continue
            }
            remapped[_ElementKey(category: .cell, indexPath: path)] = view
        }
        attachedViews = remapped
        // The plan playing names its elements by index path too: a change
        // composed with it finds them there.
        if let plan = clock.playing?.plan {
            for index in plan.elements.indices where plan.elements[index].category == .cell {
                guard let path = plan.elements[index].indexPathAfter else { continue }
                clock.playing?.plan.elements[index].indexPathAfter = mapping.indexPathAfter(path) ?? path
            }
        }
    }
}
