public import TesseraLayout

extension CollectionView {
    /// Changes the direction the content runs in and returns the animation
    /// plan.
    ///
    /// The layout is invalidated and prepared again (a layout of your own
    /// may read ``effectiveLayoutDirection`` in `prepare()`). When the
    /// layout flips (its
    /// ``CollectionViewLayout/flipsHorizontallyInOppositeLayoutDirection``),
    /// every element moves to its mirrored frame and the content offset
    /// keeps its distance from the leading edge: a view showing the start
    /// of a horizontal list shows its start after the change, now on the
    /// right. Then the visible items of a layout whose items size themselves
    /// and have no fitted size yet are sized (see <doc:SelfSizing>).
    /// Setting the direction the view already has changes nothing and
    /// returns a plan in which nothing moves.
    ///
    /// - Parameters:
    ///   - direction: The new direction.
    ///   - animated: Whether the plan animates (its duration is
    ///     ``animationDuration``) or applies at once.
    /// - Returns: The plan: every element visible before or after, from
    ///   where it was to where it is.
    /// - Complexity: the layout's `prepare()`, plus O(log *n* + *v*) for
    ///   *v* visible elements.
    @discardableResult
    public func setLayoutDirection(_ direction: LayoutDirection, animated: Bool = true) -> AnimationPlan {
        let layout = collectionViewLayout
        let boundsBefore = bounds
        let contentSizeBefore = contentSize
        let before = layout.layoutAttributesForElements(in: boundsBefore)
        let edge = leadingEdge(of: bounds.origin)
        let widthBefore = layout.isFlippedHorizontally ? contentSizeBefore.width : nil
        if direction != effectiveLayoutDirection {
            effectiveLayoutDirection = direction
            layout.invalidateLayout()
            layout.prepare()
            bounds.origin = clamped(offset(atLeadingEdge: edge))
            sizingError = sizeVisibleItems()
        }
        let after = layout.layoutAttributesForElements(in: bounds)
        return samePathPlan(
            before: before, after: after, fromLayout: layout, toLayout: layout,
            contentSizeBefore: contentSizeBefore, offsetBefore: boundsBefore.origin, animated: animated,
            flips: _FlipWidths(before: widthBefore, after: layout.isFlippedHorizontally ? contentSize.width : nil)
        )
    }

    /// The horizontal content offsets the content allows: from the left
    /// inset to where the content's right edge (plus the right inset) meets
    /// the view's. Content narrower than the view rests against the leading
    /// edge: the left one, or the right one when the layout is flipped.
    var horizontalOffsetRange: (min: Double, max: Double) {
        let farRight = contentSize.width + contentInset.right - bounds.size.width
        let left = -contentInset.left
        return collectionViewLayout.isFlippedHorizontally
            ? (Swift.min(left, farRight), farRight)
            : (left, Swift.max(left, farRight))
    }

    /// Where an offset is, measured from the leading edge of the content:
    /// its distance from the smallest offset, or from the largest when the
    /// layout is flipped (whose leading edge is on the right).
    func leadingEdge(of offset: Point) -> _LeadingEdge {
        let (minX, maxX) = horizontalOffsetRange
        let flipped = collectionViewLayout.isFlippedHorizontally
        return _LeadingEdge(offset: offset, flipped: flipped, distance: flipped ? maxX - offset.x : offset.x - minX)
    }

    /// The offset at the same distance from the leading edge of the content
    /// as it is now (see ``leadingEdge(of:)``), so that a change of the
    /// content's width, of the layout or of the direction keeps what the
    /// leading edge shows. An offset measured unflipped comes back as it
    /// was when the layout is still not flipped.
    func offset(atLeadingEdge edge: _LeadingEdge) -> Point {
        let flipped = collectionViewLayout.isFlippedHorizontally
        guard flipped || edge.flipped else { return edge.offset }
        let (minX, maxX) = horizontalOffsetRange
        return Point(x: flipped ? maxX - edge.distance : minX + edge.distance, y: edge.offset.y)
    }
}

/// A content offset measured from the leading edge of the content.
struct _LeadingEdge {
    /// The offset.
    var offset: Point
    /// Whether the layout was flipped (the leading edge on the right).
    var flipped: Bool
    /// The distance of the offset from the leading end of its range.
    var distance: Double
}

/// The widths the states before and after a change mirror across (`nil`
/// for a state whose layout is not flipped), to tell an element that only
/// follows the content's leading edge from one that moves.
///
/// Flipped, a frame's x is measured from the content's left edge, which
/// moves when the content's width changes: an element that stays where it
/// is relative to the leading (right) edge gets another x. Its disposition
/// compares the two frames in the layout's own coordinates (each state's
/// frames mirrored back across its own width), so that a plan right to
/// left says `.unchanged` and `.shift` where the same plan left to right
/// does.
struct _FlipWidths {
    var before: Double?
    var after: Double?

    /// `.unchanged` when the attributes differ at most in their index path
    /// once each is taken back to the layout's own coordinates (within a
    /// rounding of the mirroring), `.shift` otherwise; when neither state
    /// is mirrored or both are across the same width, the plain rule.
    func settled(from start: LayoutAttributes, to end: LayoutAttributes) -> AnimationPlan.Disposition {
        guard before != after else { return .settled(from: start, to: end) }
        var start = start
        var end = end
        if let before { start = CollectionViewLayout.mirrored(start, inWidth: before) }
        if let after { end = CollectionViewLayout.mirrored(end, inWidth: after) }
        let tolerance = Swift.max(abs(before ?? 0), abs(after ?? 0), abs(end.frame.origin.x), 1) * 1e-12
        if abs(start.frame.origin.x - end.frame.origin.x) <= tolerance { start.frame.origin.x = end.frame.origin.x }
        return .settled(from: start, to: end)
    }
}
