public import TesseraLayout

extension CollectionView {
    /// Changes the visible rectangle (scrolls or resizes) and returns the
    /// animation plan.
    ///
    /// In order: `shouldInvalidateLayout(forBoundsChange:)`; when it is true,
    /// `invalidationContext(forBoundsChange:)` and `invalidateLayout(with:)`,
    /// the new bounds, `prepare()`, `prepare(forAnimatedBoundsChange:)`, the
    /// sizing of items that come into view (see <doc:SelfSizing>), the plan,
    /// and `finalizeAnimatedBoundsChange()`. Scrolling a layout with
    /// pinned headers gives a plan in which only the headers change. The
    /// selection and the highlight stay as they are.
    ///
    /// - Complexity: the layout's `prepare()` when it invalidates, plus
    ///   O(log *n* + *v*) for *v* visible elements.
    @discardableResult
    public func setBounds(_ newBounds: Rect, animated: Bool = true) -> AnimationPlan {
        let layout = collectionViewLayout
        let boundsBefore = bounds
        let contentSizeBefore = contentSize
        let before = layout.layoutAttributesForElements(in: boundsBefore)
        let invalidates = layout.shouldInvalidateLayout(forBoundsChange: newBounds)
        if invalidates {
            layout.invalidateLayout(with: layout.invalidationContext(forBoundsChange: newBounds))
        }
        bounds = newBounds
        if invalidates {
            layout.prepare()
            layout.prepare(forAnimatedBoundsChange: boundsBefore)
        }
        sizingError = sizeVisibleItems()
        let after = layout.layoutAttributesForElements(in: bounds)
        let plan = samePathPlan(
            before: before, after: after, fromLayout: layout, toLayout: layout,
            contentSizeBefore: contentSizeBefore, offsetBefore: boundsBefore.origin, animated: animated
        )
        if invalidates { layout.finalizeAnimatedBoundsChange() }
        return plan
    }

    /// Replaces the layout and returns the animation plan of the transition.
    ///
    /// In order: the new layout is prepared; `prepareForTransition(to:)` on
    /// the old layout and `prepareForTransition(from:)` on the new one; the
    /// content offset through the new layout's
    /// `targetContentOffset(forProposedContentOffset:)` (the proposal keeps
    /// its distance from the leading edge: the right one for a layout that
    /// is flipped); the sizing of the visible items (see <doc:SelfSizing>);
    /// the plan; and
    /// `finalizeLayoutTransition()` on both. The selection and the
    /// highlight stay as they are.
    ///
    /// - Complexity: the new layout's `prepare()`, plus O(log *n* + *v*) for
    ///   *v* visible elements.
    @discardableResult
    public func setCollectionViewLayout(_ newLayout: CollectionViewLayout, animated: Bool = true) -> AnimationPlan {
        let oldLayout = collectionViewLayout
        let boundsBefore = bounds
        let contentSizeBefore = contentSize
        let before = oldLayout.layoutAttributesForElements(in: boundsBefore)
        let edgeBefore = leadingEdge(of: boundsBefore.origin)
        newLayout.collectionView = self
        newLayout.invalidateLayout()
        newLayout.prepare()
        oldLayout.prepareForTransition(to: newLayout)
        newLayout.prepareForTransition(from: oldLayout)
        collectionViewLayout = newLayout
        bounds.origin = clamped(newLayout.targetContentOffset(forProposedContentOffset: clamped(offset(atLeadingEdge: edgeBefore))))
        sizingError = sizeVisibleItems()
        let after = newLayout.layoutAttributesForElements(in: bounds)
        let plan = samePathPlan(
            before: before, after: after, fromLayout: oldLayout, toLayout: newLayout,
            contentSizeBefore: contentSizeBefore, offsetBefore: boundsBefore.origin, animated: animated
        )
        oldLayout.finalizeLayoutTransition()
        newLayout.finalizeLayoutTransition()
        oldLayout.collectionView = nil
        return plan
    }

    /// A plan where every element keeps its index path: each element visible
    /// before or after goes from its attributes in `fromLayout` (as it was
    /// seen before, when it was visible, or as `earlier` has it) to those in
    /// `toLayout`. During an interactive movement the moving item goes from
    /// where it was shown to where `toLayout` shows it at the same position.
    func samePathPlan(
        before: [LayoutAttributes],
        after: [LayoutAttributes],
        fromLayout: CollectionViewLayout,
        toLayout: CollectionViewLayout,
        contentSizeBefore: Size,
        offsetBefore: Point,
        animated: Bool,
        flips: _FlipWidths? = nil,
        earlier: [LayoutAttributes] = []
    ) -> AnimationPlan {
        let flips = flips ?? _FlipWidths(
            before: fromLayout.isFlippedHorizontally ? contentSizeBefore.width : nil,
            after: toLayout.isFlippedHorizontally ? contentSize.width : nil
        )
        var before = before
        var after = after
        substituteInteractivelyMovingItem(before: &before, after: &after, in: toLayout)
        var beforeByKey: [_ElementKey: LayoutAttributes] = [:]
        for attributes in earlier { beforeByKey[_ElementKey(attributes)] = attributes }
        for attributes in before { beforeByKey[_ElementKey(attributes)] = attributes }
        var afterKeys = Set<_ElementKey>()
        var elements: [AnimationPlan.Element] = []
        let placeholder = ViewIdentity(reuseIdentifier: "", instance: -1)
        func attributes(of key: _ElementKey, in layout: CollectionViewLayout) -> LayoutAttributes? {
            switch key.category {
            case .cell: return layout.layoutAttributesForItem(at: key.indexPath)
            case let .supplementaryView(kind): return layout.layoutAttributesForSupplementaryView(ofKind: kind, at: key.indexPath)
            case let .decorationView(kind): return layout.layoutAttributesForDecorationView(ofKind: kind, at: key.indexPath)
            }
        }
        for end in after {
            let key = _ElementKey(end)
            afterKeys.insert(key)
            let seen = beforeByKey[key]
            let start = seen ?? attributes(of: key, in: fromLayout) ?? { var s = end; s.alpha = 0; return s }()
            // An element not visible before starts where the layout now
            // answers for it: in the coordinates of the state after when
            // the layout is the same.
            let disposition = seen == nil && fromLayout === toLayout ? .settled(from: start, to: end) : flips.settled(from: start, to: end)
            elements.append(AnimationPlan.Element(
                category: key.category, indexPathBefore: key.indexPath, indexPathAfter: key.indexPath,
                itemID: key.category == .cell ? dataSource?.collectionView(self, itemIdentifierAt: dataSourceIndexPath(forPresentedIndexPath: key.indexPath)) : nil,
                from: start, to: end, disposition: disposition, view: placeholder
            ))
        }
        for start in before where !afterKeys.contains(_ElementKey(start)) {
            let key = _ElementKey(start)
            let end = attributes(of: key, in: toLayout) ?? { var e = start; e.alpha = 0; return e }()
            elements.append(AnimationPlan.Element(
                category: key.category, indexPathBefore: key.indexPath, indexPathAfter: key.indexPath,
                itemID: key.category == .cell ? dataSource?.collectionView(self, itemIdentifierAt: dataSourceIndexPath(forPresentedIndexPath: key.indexPath)) : nil,
                from: start, to: end, disposition: flips.settled(from: start, to: end), view: placeholder
            ))
        }
        markSelection(&elements, before: selection)
        let views = assignViews(to: &elements, visibleAfter: after.count)
        return AnimationPlan(
            elements: elements,
            contentSizeBefore: contentSizeBefore,
            contentSizeAfter: contentSize,
            contentOffsetBefore: offsetBefore,
            contentOffsetAfter: bounds.origin,
            duration: animated ? animationDuration : 0,
            timing: animationTiming,
            dequeuedViews: views.dequeued,
            recycledViews: views.recycled
        )
    }
}
