#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif
import TesseraDiff
import TesseraLayout

extension CollectionView {
    /// Asks the data source again for the fitted sizes of items whose
    /// content changed size, lays them out at those sizes, and returns the
    /// animation plan from the frames before to the fitted ones.
    ///
    /// For each item, in order: its attributes from the layout; the data
    /// source's `collectionView(_:preferredLayoutAttributesFitting:)`
    /// (`nil` leaves it as it is); then, for the items whose size the layout
    /// wants (`shouldInvalidateLayout(forPreferredLayoutAttributes:withOriginalAttributes:)`),
    /// one context merged from their `invalidationContext(forPreferredLayoutAttributes:withOriginalAttributes:)`,
    /// `invalidateLayout(with:)`, `prepare()`, and the content offset moved
    /// by the context's ``InvalidationContext/contentOffsetAdjustment``
    /// when ``anchorsScrollPosition`` is on (so an item above the visible
    /// area that changes height does not move the visible items). Items
    /// the change brings into view are sized as ``reloadData()`` sizes them.
    ///
    /// Every index path and every size is checked before anything changes:
    /// a bad one throws and leaves the view and its layout as they were.
    ///
    /// ```swift
    /// // The text of item 12 grew: its cell is taller now.
    /// let plan = try view.invalidateItemSizes(at: [IndexPath(item: 12, section: 0)])
    /// ```
    ///
    /// - Parameters:
    ///   - indexPaths: The items whose fitted size may have changed.
    ///   - animated: Whether the plan has a duration.
    /// - Returns: The plan of every element visible before or after; an
    ///   element the change brings into view starts where it was (when it
    ///   was within the sum of the size changes of the visible area).
    /// - Throws: ``SelfSizingError/itemNotFound(_:)`` or
    ///   ``SelfSizingError/invalidSize(indexPath:size:)``.
    /// - Complexity: O(*k*) data source calls for *k* index paths, the
    ///   layout's `prepare()` for the context (O(*k* log *m* + *s*) for a
    ///   self-sizing ``ListLayout`` of *s* sections and *m* items in a
    ///   section; the sections named, laid out again, for Tessera's other
    ///   layouts), plus O(log *n* + *v*) for *v* visible elements.
    @discardableResult
    public func invalidateItemSizes(at indexPaths: [IndexPath], animated: Bool = true) throws(SelfSizingError) -> AnimationPlan {
        let layout = collectionViewLayout
        var requests: [(preferred: LayoutAttributes, original: LayoutAttributes)] = []
        for path in indexPaths {
            guard path.count == 2, path[0] >= 0, path[0] < itemCounts.count, path[1] >= 0, path[1] < itemCounts[path[0]],
                  let original = layout.layoutAttributesForItem(at: path)
            else { throw .itemNotFound(path) }
            guard let preferred = try preferredAttributes(for: original) else { continue }
            requests.append((preferred, original))
        }
        let boundsBefore = bounds
        let contentSizeBefore = contentSize
        let before = layout.layoutAttributesForElements(in: boundsBefore)
        // Where the elements the change can bring into view were: within
        // the sum of the size changes around the visible area.
        var margin = 0.0
        for request in requests {
            margin += abs(request.preferred.size.width - request.original.size.width) + abs(request.preferred.size.height - request.original.size.height)
        }
        let earlier = margin > 0 ? layout.layoutAttributesForElements(in: boundsBefore.insetBy(dx: -margin, dy: -margin)) : []
        var context: InvalidationContext?
        for request in requests where layout.shouldInvalidateLayout(forPreferredLayoutAttributes: request.preferred, withOriginalAttributes: request.original) {
            let made = layout.invalidationContext(forPreferredLayoutAttributes: request.preferred, withOriginalAttributes: request.original)
            if let context { context.merge(made) } else { context = made }
        }
        if let context { apply(context) }
        sizingError = sizeVisibleItems()
        let after = layout.layoutAttributesForElements(in: bounds)
        return samePathPlan(
            before: before, after: after, fromLayout: layout, toLayout: layout,
            contentSizeBefore: contentSizeBefore, offsetBefore: boundsBefore.origin, animated: animated, earlier: earlier
        )
    }

    /// The sizing pass: asks the data source for the fitted size of every
    /// visible item the layout needs one for
    /// (`needsPreferredLayoutAttributes(forItemAt:)`), applies the contexts
    /// of those the layout takes in one invalidation and one `prepare()`,
    /// moves the content offset by the adjustment, and starts again while
    /// the visible area shows items it has not asked about.
    ///
    /// Each item is asked about at most once per call, so the passes end:
    /// at most one more than the items asked about, each costing one rect
    /// query and one `prepare()`. Returns the first bad size met (that item
    /// keeps its size and is asked about again by the next call).
    func sizeVisibleItems() -> SelfSizingError? {
        guard dataSource != nil else { return nil }
        let layout = collectionViewLayout
        // Tessera's layouts say at once when no item sizes itself.
        if let layout = layout as? FrameStorageLayout, !layout.isSelfSizing { return nil }
        updateDepth += 1
        defer { updateDepth -= 1 }
        var asked = Set<IndexPath>()
        var firstError: SelfSizingError?
        while true {
            var context: InvalidationContext?
            for original in layout.layoutAttributesForElements(in: bounds) where original.category == .cell {
                let path = original.indexPath
                guard !asked.contains(path), layout.needsPreferredLayoutAttributes(forItemAt: path) else { continue }
                asked.insert(path)
                let preferred: LayoutAttributes?
                do {
                    preferred = try preferredAttributes(for: original)
                } catch {
                    if firstError == nil { firstError = error }
                    continue
                }
                guard let preferred, layout.shouldInvalidateLayout(forPreferredLayoutAttributes: preferred, withOriginalAttributes: original) else { continue }
                let made = layout.invalidationContext(forPreferredLayoutAttributes: preferred, withOriginalAttributes: original)
                if let context { context.merge(made) } else { context = made }
            }
            guard let context else { return firstError }
            apply(context)
        }
    }

    /// The attributes the data source prefers for an item: the layout's,
    /// with the data source's size; `nil` when it gives none. During an
    /// interactive movement the data source is asked with the item's index
    /// path in its own order (as for its reuse identifier and id).
    ///
    /// - Throws: ``SelfSizingError/invalidSize(indexPath:size:)``.
    func preferredAttributes(for original: LayoutAttributes) throws(SelfSizingError) -> LayoutAttributes? {
        var asked = original
        asked.indexPath = dataSourceIndexPath(forPresentedIndexPath: original.indexPath)
        guard let returned = dataSource?.collectionView(self, preferredLayoutAttributesFitting: asked) else { return nil }
        let size = returned.frame.size
        guard size.isValid else { throw .invalidSize(indexPath: original.indexPath, size: size) }
        var preferred = original
        preferred.frame.size = size
        return preferred
    }

    /// Invalidates the layout with a context, prepares it, and moves the
    /// content offset by the context's adjustment (when anchoring is on).
    func apply(_ context: InvalidationContext) {
        let layout = collectionViewLayout
        layout.invalidateLayout(with: context)
        layout.prepare()
        var offset = bounds.origin
        if anchorsScrollPosition {
            offset.x += context.contentOffsetAdjustment.x
            offset.y += context.contentOffsetAdjustment.y
        }
        bounds.origin = clamped(offset)
    }

    /// Forgets the fitted sizes of the items a batch reloads (index paths
    /// before it), and of those ``fittedSizesToForget`` names, so that they
    /// are asked for again.
    func forgetFittedSizes(ofItemsReloadedBy items: [UpdateItem]) {
        guard let layout = collectionViewLayout as? FrameStorageLayout else { return }
        var reloaded = items.compactMap { item -> IndexPath? in
            guard item.updateAction == .reload, let path = item.indexPathBeforeUpdate, path.count == 2 else { return nil }
            return path
        }
        reloaded += fittedSizesToForget
        if !reloaded.isEmpty { layout._discardFittedSizes(forItemsAt: reloaded) }
    }

    /// Runs `body` (the batch of a changeset) so that it forgets the fitted
    /// sizes of the items the changeset moves and changes: their content is
    /// new, as a reloaded item's is, but the batch moves them.
    ///
    /// - Complexity: O(*u* + *m*) for *u* item updates and *m* item moves.
    func forgettingFittedSizes<T, E: Error>(ofItemsChangedBy changeset: Changeset, _ body: () throws(E) -> T) throws(E) -> T {
        let moved = Set(changeset.itemMoves.map(\.from))
        fittedSizesToForget = moved.isEmpty ? [] : changeset.itemUpdates.map(\.from).filter { moved.contains($0) }
        defer { fittedSizesToForget = [] }
        return try body()
    }
}
