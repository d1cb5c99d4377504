#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif
import TesseraResults
public import TesseraView

/// What a ``ResultsDataSource`` keeps while it ends a drag: the move the
/// view shows and the result does not show yet, and the reports that came
/// while the view was still ending it.
struct _ReorderingState {
    /// The move of the drag, from the item's index path in the data
    /// source's `result` to the place it was dropped at, until a report
    /// that follows it is applied (the data source answers its view with
    /// the move applied meanwhile).
    var pendingMove: (from: IndexPath, to: IndexPath)?
    /// Whether the data source is inside its `collectionView(_:moveItemAt:to:)`,
    /// which the view calls while it ends the movement.
    var isMovingItem = false
    /// The reports applied while ``isMovingItem``, in order, each as the
    /// call that applies it.
    var deferred: [() throws -> AnimationPlan] = []
    /// Whether the next user-driven report takes a move the view shows
    /// because this data source's drag made it.
    var viewShowsMove = false
    /// What the reordering handler of the last drag threw, if anything.
    var handlerError: (any Error)?

    /// How many items the pending move adds to (1) or takes from (-1) a
    /// section.
    func countChange(inSection section: Int) -> Int {
        guard let move = pendingMove else { return 0 }
        return (move.to[0] == section ? 1 : 0) - (move.from[0] == section ? 1 : 0)
    }

    /// The index path in the result of the item shown at `path`: the
    /// result's order with the pending move applied.
    ///
    /// - Complexity: O(1).
    func resultIndexPath(forShown path: IndexPath) -> IndexPath {
        guard let (from, to) = pendingMove, path.count == 2 else { return path }
        if path == to { return from }
        var item = path[1]
        if path[0] == to[0] && item > to[1] { item -= 1 }
        if path[0] == from[0] && item >= from[1] { item += 1 }
        return IndexPath(item: item, section: path[0])
    }
}

extension ResultsDataSource {
    /// Writes the order the user made by dragging an item: called with the
    /// item's index path in ``result`` (`source`), the place it was dropped
    /// at (`destination`, as UIKit's `collectionView(_:moveItemAt:to:)`
    /// gives it) and the item's id (`nil` when the item cannot be read).
    ///
    /// Declare the move to the controller around the write, so that the
    /// report of the commit does not move the item again:
    ///
    /// ```swift
    /// source.reorderingHandler = { from, to, _ in
    ///     try controller.performUserDrivenChange(.move(from: from, to: to)) {
    ///         try connection.write { db in try storeOrder(db, from: from, to: to) }
    ///     }
    /// }
    /// ```
    ///
    /// What it throws is kept in ``reorderingError``; a report the
    /// controller made for the failed write (the move back) still takes the
    /// view back.
    public typealias ReorderingHandler = (_ source: IndexPath, _ destination: IndexPath, _ itemID: Item.ID?) throws -> Void

    /// What the ``reorderingHandler`` threw for the last drag, or `nil`.
    public var reorderingError: (any Error)? { reordering.handlerError }

    /// Whether reports applied while the view ended a drag wait for
    /// ``applyDeferredReports()`` (or the next ``apply(_:animated:)``).
    public var hasDeferredReports: Bool { !reordering.deferred.isEmpty || reordering.pendingMove != nil }

    /// Ends the collection view's interactive movement, then applies the
    /// reports that came while the ``reorderingHandler`` wrote the new
    /// order: the way to end a drag of a view this data source feeds.
    ///
    /// The view calls `collectionView(_:moveItemAt:to:)`, which runs the
    /// handler. A controller reports the handler's commit at once, from
    /// inside it, while the view is still ending the movement: a batch
    /// then would break the movement's last step. So a report applied
    /// meanwhile waits (``apply(_:animated:)`` returns an empty plan for
    /// it), the data source answers its view with the drag's move applied,
    /// and the reports are applied here once the item has settled, in the
    /// order they came. When the handler threw and no report took the
    /// drag's move (it threw before declaring it), the item is moved back
    /// where ``result`` has it, in a plan of its own; when it returned
    /// without a report, see ``applyDeferredReports()``.
    ///
    /// - Returns: The plan in which the item settles, then the plans of
    ///   the reports applied and of a move back, in order.
    /// - Throws: ``InteractiveMovementError`` from the view (the data
    ///   source is then as ``applyDeferredReports()`` leaves it); the
    ///   errors of ``apply(_:animated:)`` for a report that waited.
    /// - Complexity: what the view's `endInteractiveMovement()` costs,
    ///   plus each report's ``apply(_:animated:)``.
    @discardableResult
    public func endInteractiveMovement() throws -> [AnimationPlan] {
        let settling: AnimationPlan
        do {
            settling = try collectionView.endInteractiveMovement()
        } catch {
            _ = try? applyDeferredReports()
            throw error
        }
        return [settling] + (try applyDeferredReports())
    }

    /// Applies the reports that waited while the view ended a drag, and
    /// moves the dragged item back when the ``reorderingHandler`` threw and
    /// no report took its move. Call it
    /// after the view's `endInteractiveMovement()` when not ending the drag
    /// with ``endInteractiveMovement()``; the next ``apply(_:animated:)``
    /// otherwise does it first.
    ///
    /// When the handler returned and no report came yet (the reports are
    /// read from a ``ReportSequence``, say), the data source goes on
    /// showing the move until the next report: one that follows the
    /// declared move takes it without animating it; any other first takes
    /// the view back to ``result`` without animation. No item can be moved
    /// meanwhile.
    ///
    /// - Returns: The plans of the reports, then of the move back, if any.
    /// - Throws: The first error of a report's ``apply(_:animated:)``; the
    ///   reports after it are dropped and the view shows ``result`` again
    ///   (``reload(_:)``).
    /// - Complexity: each report's ``apply(_:animated:)``.
    @discardableResult
    public func applyDeferredReports() throws -> [AnimationPlan] {
        guard !reordering.isMovingItem else { return [] }
        var plans: [AnimationPlan] = []
        while !reordering.deferred.isEmpty {
            let next = reordering.deferred.removeFirst()
            do {
                plans.append(try next())
            } catch {
                reordering.deferred = []
                reload(result)
                throw error
            }
        }
        if reordering.pendingMove != nil, reordering.handlerError != nil { plans.append(try moveBack(animated: true)) }
        return plans
    }

    /// `true` when the items can be moved: a ``reorderingHandler`` is set,
    /// the index path names an item of ``result``, and no drag is being
    /// written.
    public func collectionView(_ collectionView: CollectionView, canMoveItemAt indexPath: IndexPath) -> Bool {
        reorderingHandler != nil && !hasDeferredReports && !reordering.isMovingItem && Self.holds(result, indexPath)
    }

    /// Shows the item dropped at `destinationIndexPath` (the data source
    /// answers its view with the move applied until a report takes it),
    /// and runs the ``reorderingHandler``. Reports applied meanwhile wait
    /// for ``applyDeferredReports()``.
    public func collectionView(_ collectionView: CollectionView, moveItemAt sourceIndexPath: IndexPath, to destinationIndexPath: IndexPath) {
        guard let handler = reorderingHandler, !reordering.isMovingItem, reordering.pendingMove == nil,
              Self.holds(result, sourceIndexPath)
        else { return }
        let id = result.item(at: sourceIndexPath)?.id
        reordering.pendingMove = (sourceIndexPath, destinationIndexPath)
        reordering.isMovingItem = true
        reordering.handlerError = nil
        defer { reordering.isMovingItem = false }
        do {
            try handler(sourceIndexPath, destinationIndexPath, id)
        } catch {
            reordering.handlerError = error
        }
    }

    // MARK: Internals

    /// Defers a report applied while the view ends a drag (and returns an
    /// empty plan), or first applies the reports that waited and brings
    /// the view back in step with ``result`` when the report does not take
    /// the pending move. `nil` when the report is to be applied now.
    func deferOrCatchUp<Report: SectionedResultReport>(_ report: Report, animated: Bool, time: Double?) throws -> AnimationPlan? where Report.Result == Result {
        if reordering.isMovingItem {
            reordering.deferred.append { [unowned self] in try self.apply(report, animated: animated, time: time) }
            let size = collectionView.contentSize
            let offset = collectionView.bounds.origin
            return AnimationPlan(
                elements: [], contentSizeBefore: size, contentSizeAfter: size, contentOffsetBefore: offset, contentOffsetAfter: offset,
                duration: 0, timing: .linear, dequeuedViews: [], recycledViews: []
            )
        }
        if !reordering.deferred.isEmpty {
            let waiting = reordering.deferred
            reordering.deferred = []
            for next in waiting { _ = try next() }
        }
        if let (from, to) = reordering.pendingMove {
            if report.resultBeforeUserDrivenChange != nil, report.userDrivenChangeset.itemMoves == [Move(from: from, to: to)] {
                // The report starts from what the view shows: the data
                // source's counts and items follow the move already.
                reordering.pendingMove = nil
                reordering.viewShowsMove = true
            } else {
                _ = try moveBack(animated: false)
            }
        }
        return nil
    }

    /// Takes the view back from the pending move to ``result``.
    private func moveBack(animated: Bool) throws -> AnimationPlan {
        guard let (from, to) = reordering.pendingMove else { return try collectionView.performBatchUpdates([], animated: animated) }
        reordering.pendingMove = nil
        do {
            return try collectionView.performBatchUpdates([.moveItem(from: to, to: from)], animated: animated)
        } catch {
            reload(result)
            throw error
        }
    }
}
