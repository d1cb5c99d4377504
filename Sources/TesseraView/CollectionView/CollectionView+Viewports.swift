#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
package import TesseraDiff
package import TesseraLayout

// One layout, many viewports: a view whose layout several remote clients
// share (the live list's clients of one layout kind and size), each with a
// viewport of its own. The layout lays the list out once per change; what
// is per client is a rect query before and after it, and the plan of the
// elements those queries find.
extension CollectionView {
    /// The attributes of the elements in `viewport`, as a view of this
    /// layout whose bounds were `viewport` would see them (headers and
    /// footers pinned to it).
    ///
    /// `viewport` must be one the layout lays out as it lays out the view's
    /// own bounds (the same width for Tessera's vertical layouts; the same
    /// height too for a ``ListLayout`` that does not hug its contents,
    /// whose content is at least as tall as the visible area): only where
    /// it shows is taken from it.
    ///
    /// - Complexity: O(log *n* + *v*) for *v* elements in the viewport.
    package func layoutAttributesForElements(inViewport viewport: Rect) -> [LayoutAttributes] {
        let own = bounds
        bounds = viewport
        defer { bounds = own }
        return collectionViewLayout.layoutAttributesForElements(in: viewport)
    }

    /// Performs a changeset once and returns one plan per viewport, each
    /// the plan ``performBatchUpdates(_:animated:)-(Changeset,_)`` would
    /// return for a view of this layout whose bounds were that viewport (its
    /// elements, dispositions, initial and final attributes, content sizes
    /// and offsets, with the view's ``anchorsScrollPosition`` and
    /// ``clampsContentOffset``), at the cost of one layout update for all.
    ///
    /// The viewports follow the rule of ``layoutAttributesForElements(inViewport:)``.
    /// The view's own bounds keep their origin. The plans name no views
    /// (every element's ``AnimationPlan/Element/view`` is a placeholder and
    /// no view is dequeued or recycled: the clients draw their own), and an
    /// interactive movement in progress is cancelled first. Items that size
    /// themselves are sized for every viewport before any plan is read.
    ///
    /// - Throws: ``BatchValidationError``, leaving the view as it was.
    /// - Complexity: the layout's update (as for one viewport), plus
    ///   O(*v* log *k*) per viewport for its *v* visible elements.
    package func performBatchUpdates(_ changeset: Changeset, animated: Bool, viewports: [Rect]) throws(BatchValidationError) -> [AnimationPlan] {
        let (items, changedInPlace) = Self.updateItems(for: changeset)
        var plans = try forgettingFittedSizes(ofItemsChangedBy: changeset) { () throws(BatchValidationError) in
            try performBatchUpdates(items, animated: animated, viewports: viewports)
        }
        for index in plans.indices { Self.markContentChanged(&plans[index], changedInPlace) }
        return plans
    }

    /// The core of ``performBatchUpdates(_:animated:viewports:)``: the
    /// single-viewport core's steps, with the queries, the offsets and the
    /// disappearing elements taken once per viewport around one update of
    /// the layout.
    func performBatchUpdates(_ items: [UpdateItem], animated: Bool, viewports: [Rect]) throws(BatchValidationError) -> [AnimationPlan] {
        updateDepth += 1
        var updating = true
        defer { if updating { updateDepth -= 1 } }
        abandonInteractiveMovement()
        let layout = collectionViewLayout
        let own = bounds
        let countsBefore = itemCounts
        let countsAfter = try readCounts()
        let mapping = try BatchIndexMapping(items, itemCountsBefore: countsBefore, itemCountsAfter: countsAfter)
        let contentSizeBefore = contentSize

        // Before the update, per viewport: what it shows, its anchor and
        // leading edge.
        struct Before {
            var elements: [LayoutAttributes]
            var anchor: (newPath: IndexPath, oldFrame: Rect)?
            var edge: _LeadingEdge
            var capture = CollectionViewLayout._DisappearingCapture()
        }
        var befores: [Before] = viewports.map { viewport in
            bounds = viewport
            let elements = layout.layoutAttributesForElements(in: viewport)
            let anchor = anchorsScrollPosition ? scrollAnchor(in: elements, bounds: viewport, mapping: mapping) : nil
            return Before(elements: elements, anchor: anchor, edge: leadingEdge(of: viewport.origin))
        }

        // The layout keeps what it needs of the old state, with each
        // viewport's disappearing elements, then lays out the new one.
        bounds = viewports.first ?? own
        layout._beginBatchUpdate(items, mapping: mapping)
        for index in befores.indices {
            if index > 0 {
                bounds = viewports[index]
                layout._recaptureDisappearingElements()
            }
            befores[index].capture = layout._disappearingCapture
        }
        bounds = own
        layOutAfterBatch(items, mapping: mapping, countsAfter: countsAfter)

        // Where each viewport ends up, then its items sized.
        let flipped = layout.isFlippedHorizontally
        var boundsAfter: [Rect] = []
        var sizingError: SelfSizingError?
        for (index, viewport) in viewports.enumerated() {
            bounds = viewport
            bounds.origin = offsetAfterBatch(from: viewport.origin, anchor: befores[index].anchor, edge: befores[index].edge)
            if let error = sizeVisibleItems(), sizingError == nil { sizingError = error }
            boundsAfter.append(bounds)
        }
        self.sizingError = sizingError

        let flips = _FlipWidths(before: flipped ? contentSizeBefore.width : nil, after: flipped ? contentSize.width : nil)
        let selectionBefore = selection
        let leaving = selection.remap(through: mapping, itemCountsAfter: countsAfter)
        let placeholder = ViewIdentity(reuseIdentifier: "", instance: -1)
        var plans: [AnimationPlan] = []
        plans.reserveCapacity(viewports.count)
        for index in viewports.indices {
            bounds = boundsAfter[index]
            layout._disappearingCapture = befores[index].capture
            let after = layout.layoutAttributesForElements(in: bounds)
            var elements = planElements(before: befores[index].elements, after: after, mapping: mapping, items: items, idsBefore: [:], flips: flips)
            markSelection(&elements, before: selectionBefore)
            for element in elements.indices { elements[element].view = placeholder }
            plans.append(AnimationPlan(
                elements: elements,
                contentSizeBefore: contentSizeBefore,
                contentSizeAfter: contentSize,
                contentOffsetBefore: viewports[index].origin,
                contentOffsetAfter: bounds.origin,
                duration: animated ? animationDuration : 0,
                timing: animationTiming,
                dequeuedViews: [],
                recycledViews: []
            ))
        }
        bounds = own
        layout.finalizeCollectionViewUpdates()
        // The view shows a new state, and no view of its own.
        generation += 1
        clock.playing = nil
        attachedViews = [:]
        updateDepth -= 1
        updating = false
        if postponedSelectionReports != nil {
            postponedSelectionReports?.append((leaving.deselected, leaving.unhighlighted))
        } else {
            reportDeletedSelection(deselected: leaving.deselected, unhighlighted: leaving.unhighlighted)
        }
        return plans
    }
}
