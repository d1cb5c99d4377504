#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
public import TesseraDiff
public import TesseraLayout

/// The time of the last change a collection view made at a time, and the
/// animated plan it made last, with its start.
struct _AnimationClock {
    var lastTime: Double?
    var playing: PlayingPlan?
}

/// A change about to be composed with the plan playing when it is made.
struct _Composition {
    /// The plan playing.
    var playing: PlayingPlan
    /// How far its elements have gone (its timing's fraction at the time).
    var fraction: Double
    /// Its progress at the time.
    var progress: Double
    /// The views of its leaving elements, taken out of the reuse pool so
    /// that the change does not hand them to other elements.
    var reserved: Set<ViewIdentity>
}

extension CollectionView {
    // MARK: The clock

    /// The time of the last change made at a time (the `at:` variants), or
    /// `nil` when there was none. Times must not go backwards.
    public var lastChangeTime: Double? { clock.lastTime }

    /// The last animated plan made at a time and the time it started, or
    /// `nil` when the last change was not animated or was made without a
    /// time (those treat any plan as finished).
    ///
    /// A renderer plays it from its start; when a change is made at time
    /// *t*, it replaces the plan it plays by the new plan, at *t*: the new
    /// plan starts where the old one was at *t*.
    public var playingPlan: PlayingPlan? { clock.playing }

    /// Whether ``playingPlan`` plays at `time`: a change made then starts
    /// from where its elements are at that time.
    public func isAnimating(at time: Double) -> Bool {
        clock.playing?.isPlaying(at: time) ?? false
    }

    // MARK: Changes at a time

    /// Performs a batch update at `time` and returns its animation plan,
    /// begun from the current state of the plan playing at `time`, if any.
    ///
    /// The plan is the one
    /// ``performBatchUpdates(_:animated:)-([UpdateItem],_)`` makes, then
    /// composed with ``playingPlan`` when it plays at `time`: every element
    /// of the playing plan still shown starts from its attributes at `time`
    /// there; elements leaving there (deleted, or only visible before) keep
    /// going to where they were going, with their views; the content offset
    /// starts where the playing plan has it at `time`. See
    /// <doc:UpdatesDuringAnimations>. The ``delegate`` hears of deleted
    /// selected items once the plan is recorded as ``playingPlan``, so a
    /// change it makes then begins from this plan.
    ///
    /// - Parameters:
    ///   - items: The update items.
    ///   - animated: Whether the plan has a duration.
    ///   - time: When the change is made, in seconds on the caller's clock
    ///     (any origin); not earlier than the last change made at a time.
    /// - Throws: ``AnimationClockError`` for a time that is not finite or
    ///   goes backwards; ``BatchValidationError`` for a bad batch. Either way
    ///   the view is as it was.
    /// - Complexity: what
    ///   ``performBatchUpdates(_:animated:)-([UpdateItem],_)`` costs, plus,
    ///   when a plan plays, O(*k* log *k* + *s* + *e* + *r* *f*) for *k*
    ///   update items, *s* sections, *e* elements of both plans and *r*
    ///   leaving views among *f* free views of their kind.
    @discardableResult
    public func performBatchUpdates(_ items: [UpdateItem], animated: Bool = true, at time: Double) throws -> AnimationPlan {
        try performBatchUpdates(items, animated: animated, time: time, itemIDsBefore: nil)
    }

    /// Performs a changeset at `time` (see
    /// ``performBatchUpdates(_:animated:)-(Changeset,_)`` for what the plan holds and
    /// ``performBatchUpdates(_:animated:at:)-([UpdateItem],_,_)`` for how it begins
    /// from the plan playing).
    ///
    /// - Throws: ``AnimationClockError`` or ``BatchValidationError``; the
    ///   view is then as it was.
    /// - Complexity: as ``performBatchUpdates(_:animated:at:)-([UpdateItem],_,_)``.
    @discardableResult
    public func performBatchUpdates(_ changeset: Changeset, animated: Bool = true, at time: Double) throws -> AnimationPlan {
        try performBatchUpdates(changeset, animated: animated, time: time)
    }

    /// Performs a ``BatchUpdate`` at `time`: each pass at the same time, so
    /// each pass begins from the one before at its start, and the first
    /// from the plan playing. A batch with no passes changes nothing but
    /// the time of the last change.
    ///
    /// - Throws: ``AnimationClockError`` (nothing is performed) or
    ///   ``BatchValidationError`` (a pass that fails leaves the view as the
    ///   pass before left it).
    /// - Complexity: as ``performBatchUpdates(_:animated:at:)-([UpdateItem],_,_)`` for
    ///   each pass.
    @discardableResult
    public func performBatchUpdates(_ batch: BatchUpdate, animated: Bool = true, at time: Double) throws -> [AnimationPlan] {
        try checkTime(time)
        return try reportingSelectionAfterwards {
            var plans: [AnimationPlan] = []
            for items in batch.batches {
                plans.append(try performBatchUpdates(items, animated: animated, time: time, itemIDsBefore: nil))
            }
            clock.lastTime = time
            return plans
        }
    }

    /// Changes the visible rectangle at `time` (see
    /// ``setBounds(_:animated:)``), beginning from the plan playing then,
    /// as ``performBatchUpdates(_:animated:at:)-([UpdateItem],_,_)`` does.
    ///
    /// - Throws: ``AnimationClockError``; the view is then as it was.
    /// - Complexity: what ``setBounds(_:animated:)`` costs, plus O(*e* +
    ///   *r* *f*) when a plan plays.
    @discardableResult
    public func setBounds(_ newBounds: Rect, animated: Bool = true, at time: Double) throws(AnimationClockError) -> AnimationPlan {
        let composition = try beginChange(at: time)
        let plan = setBounds(newBounds, animated: animated)
        return finishChange(plan, at: time, composing: composition) { { $0 } }
    }

    /// Replaces the layout at `time` (see
    /// ``setCollectionViewLayout(_:animated:)``), beginning from the plan
    /// playing then, as ``performBatchUpdates(_:animated:at:)-([UpdateItem],_,_)`` does.
    ///
    /// - Throws: ``AnimationClockError``; the view is then as it was.
    /// - Complexity: what ``setCollectionViewLayout(_:animated:)`` costs,
    ///   plus O(*e* + *r* *f*) when a plan plays.
    @discardableResult
    public func setCollectionViewLayout(_ newLayout: CollectionViewLayout, animated: Bool = true, at time: Double) throws(AnimationClockError) -> AnimationPlan {
        let composition = try beginChange(at: time)
        let plan = setCollectionViewLayout(newLayout, animated: animated)
        return finishChange(plan, at: time, composing: composition) { { $0 } }
    }

    /// A changeset performed at a time, or as today when `time` is `nil`.
    package func performBatchUpdates(_ changeset: Changeset, animated: Bool, time: Double?) throws -> AnimationPlan {
        try reportingSelectionAfterwards {
            let (items, changedInPlace) = Self.updateItems(for: changeset)
            var plan = try forgettingFittedSizes(ofItemsChangedBy: changeset) {
                try performBatchUpdates(items, animated: animated, time: time, itemIDsBefore: nil)
            }
            Self.markContentChanged(&plan, changedInPlace)
            if time != nil { updatePlayingPlan(plan) }
            return plan
        }
    }

    /// Replaces the plan playing by the same plan with more said about its
    /// elements (content changes, ids), after the change that made it.
    package func updatePlayingPlan(_ plan: AnimationPlan) {
        if clock.playing != nil { clock.playing?.plan = plan }
    }

    /// Update items performed at a time, or as today when `time` is `nil`.
    func performBatchUpdates(
        _ items: [UpdateItem],
        animated: Bool,
        time: Double?,
        itemIDsBefore: ((IndexPath) -> String?)?
    ) throws -> AnimationPlan {
        guard let time else { return try performBatchUpdates(items, animated: animated, itemIDsBefore: itemIDsBefore) }
        return try reportingSelectionAfterwards { () throws -> AnimationPlan in
            try performTimedBatchUpdates(items, animated: animated, time: time, itemIDsBefore: itemIDsBefore)
        }
    }

    /// Update items performed at a time, composed with the plan playing.
    private func performTimedBatchUpdates(
        _ items: [UpdateItem],
        animated: Bool,
        time: Double,
        itemIDsBefore: ((IndexPath) -> String?)?
    ) throws -> AnimationPlan {
        try checkTime(time)
        // The batch begins from the data source's order before a movement
        // in progress, and so does the plan playing.
        abandonInteractiveMovement()
        let composition = try beginChange(at: time)
        let countsBefore = itemCounts
        let plan: AnimationPlan
        do {
            plan = try performBatchUpdates(items, animated: animated, itemIDsBefore: itemIDsBefore)
        } catch {
            cancelChange(composition)
            throw error
        }
        let countsAfter = itemCounts
        return finishChange(plan, at: time, composing: composition) {
            // The batch passed validation with these counts, so the mapping exists.
            guard let mapping = try? BatchIndexMapping(items, itemCountsBefore: countsBefore, itemCountsAfter: countsAfter) else { return nil }
            return { Self.key(after: $0, mapping) }
        }
    }

    // MARK: Composition

    /// Refuses a time that is not finite or goes backwards.
    package func checkTime(_ time: Double) throws(AnimationClockError) {
        guard time.isFinite else { throw .nonFiniteTime(time) }
        if let last = clock.lastTime, time < last { throw .timeWentBackwards(time: time, lastTime: last) }
    }

    /// Checks a time and, when a plan plays then, takes the views of its
    /// leaving elements out of the reuse pool.
    func beginChange(at time: Double) throws(AnimationClockError) -> _Composition? {
        try checkTime(time)
        guard let playing = clock.playing, playing.isPlaying(at: time) else { return nil }
        let plan = playing.plan
        let progress = playing.progress(at: time)
        let leaving = Set(plan.recycledViews)
        var reserved = Set<ViewIdentity>()
        for element in plan.elements where leaving.contains(element.view) {
            if pool.reserve(element.view) { reserved.insert(element.view) }
        }
        return _Composition(
            playing: playing,
            fraction: plan.timing.fraction(at: progress, duration: plan.duration),
            progress: progress,
            reserved: reserved
        )
    }

    /// Returns the reserved views of a change that failed.
    func cancelChange(_ composition: _Composition?) {
        guard let composition else { return }
        for view in composition.reserved.sorted() { pool.recycle(view) }
    }

    /// Records a change made at `time` and, when a plan played then,
    /// composes the change's plan with it.
    ///
    /// - Parameter keyMapping: Gives the function that maps an element key
    ///   before the change to its key after (`nil`: gone); asked only when
    ///   a plan plays.
    func finishChange(
        _ plan: AnimationPlan,
        at time: Double,
        composing composition: _Composition?,
        keyMapping: () -> ((_ElementKey) -> _ElementKey?)?
    ) -> AnimationPlan {
        var plan = plan
        if let composition {
            compose(&plan, with: composition, keyAfter: keyMapping() ?? { _ in nil })
        }
        clock.lastTime = time
        clock.playing = plan.duration > 0 ? PlayingPlan(plan: plan, startTime: time) : nil
        return plan
    }

    /// Begins `plan` (made from the resting state after the playing plan)
    /// from where the playing plan is at the composition's time.
    ///
    /// An element of the new plan whose index path before is an old
    /// element's index path after is that element: it starts from the old
    /// element's attributes at the time and keeps its view. Old elements
    /// that were leaving and match nothing are added, from their current
    /// attributes to their old end.
    func compose(_ plan: inout AnimationPlan, with composition: _Composition, keyAfter: (_ElementKey) -> _ElementKey?) {
        let old = composition.playing.plan
        let fraction = composition.fraction
        func current(_ element: AnimationPlan.Element) -> LayoutAttributes {
            element.from.interpolated(to: element.to, progress: fraction)
        }
        var oldIndexByKey: [_ElementKey: Int] = [:]
        for (index, element) in old.elements.enumerated() {
            guard let path = element.indexPathAfter else { continue }
            let key = _ElementKey(category: element.category, indexPath: path)
            if oldIndexByKey[key] == nil { oldIndexByKey[key] = index }
        }
        var matched = Set<Int>()
        var unusedReserved = composition.reserved
        var released = Set<ViewIdentity>()
        var dequeued = Set(plan.dequeuedViews)
        for index in plan.elements.indices {
            let element = plan.elements[index]
            guard let path = element.indexPathBefore,
                  let oldIndex = oldIndexByKey[_ElementKey(category: element.category, indexPath: path)],
                  matched.insert(oldIndex).inserted else { continue }
            let previous = old.elements[oldIndex]
            let start = current(previous)
            plan.elements[index].from = start
            if element.disposition == .unchanged || element.disposition == .shift {
                plan.elements[index].disposition = .settled(from: start, to: element.to)
            }
            // An element that was leaving keeps its view; the one the change
            // took from the pool for it goes back.
            if previous.view != element.view, unusedReserved.contains(previous.view), dequeued.contains(element.view) {
                unusedReserved.remove(previous.view)
                dequeued.remove(element.view)
                released.insert(element.view)
                plan.elements[index].view = previous.view
                if let after = element.indexPathAfter {
                    let key = _ElementKey(category: element.category, indexPath: after)
                    if attachedViews[key] == element.view { attachedViews[key] = previous.view }
                }
            }
        }
        for (oldIndex, previous) in old.elements.enumerated() where !matched.contains(oldIndex) && unusedReserved.contains(previous.view) {
            unusedReserved.remove(previous.view)
            let start = current(previous)
            let after = previous.indexPathAfter.flatMap { keyAfter(_ElementKey(category: previous.category, indexPath: $0)) }
            var element = previous
            element.indexPathBefore = previous.indexPathAfter
            element.indexPathAfter = after?.indexPath
            element.from = start
            if after == nil {
                element.disposition = .delete
            } else if previous.disposition == .unchanged || previous.disposition == .shift {
                element.disposition = .settled(from: start, to: previous.to)
            }
            plan.elements.append(element)
        }
        // Views: what is shown after stays out of the pool; every other view
        // the plan uses goes back to it, as the change's own leaving views did.
        let shown = Set(attachedViews.values)
        var recycled = Set(plan.recycledViews)
        for view in released {
            if recycled.remove(view) == nil { pool.recycle(view) }
        }
        for view in composition.reserved.sorted() where !shown.contains(view) {
            pool.recycle(view)
            if !unusedReserved.contains(view) { recycled.insert(view) }
        }
        plan.dequeuedViews.removeAll { released.contains($0) }
        plan.recycledViews = recycled.sorted()
        plan.contentOffsetBefore = old.contentOffset(at: composition.progress)
    }

    /// An element key after a batch, from its key before (`nil`: gone).
    static func key(after key: _ElementKey, _ mapping: BatchIndexMapping) -> _ElementKey? {
        switch key.category {
        case .cell:
            return mapping.indexPathAfter(key.indexPath).map { _ElementKey(category: .cell, indexPath: $0) }
        case .supplementaryView:
            guard let section = mapping.sectionAfter(key.indexPath[0]) else { return nil }
            var path = key.indexPath
            path[0] = section
            return _ElementKey(category: key.category, indexPath: path)
        case .decorationView:
            return key
        }
    }
}
