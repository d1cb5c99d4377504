extension CollectionViewLayout {
    /// Whether the layout mirrors its frames now: it flips
    /// (``flipsHorizontallyInOppositeLayoutDirection``) and its environment
    /// runs in the other direction than ``developmentLayoutDirection``.
    /// `false` with no environment.
    ///
    /// Mirrored frames are reflected across the width of the content
    /// (``collectionViewContentSize``): `x' = width − maxX`, with the same
    /// `y` and size, so the content's leading edge is on the right.
    public var isFlippedHorizontally: Bool {
        guard let environment = collectionView, flipsHorizontallyInOppositeLayoutDirection else { return false }
        return environment.effectiveLayoutDirection != developmentLayoutDirection
    }

    /// A frame in the layout's own coordinates (those of its development
    /// direction) as the layout returns it: mirrored across the content's
    /// width when ``isFlippedHorizontally``, as is otherwise. The same
    /// function takes a returned frame (or a query's rect) back to the
    /// layout's own coordinates.
    public func flippedHorizontally(_ rect: Rect) -> Rect {
        isFlippedHorizontally ? rect.mirroredHorizontally(inWidth: collectionViewContentSize.width) : rect
    }

    /// Attributes in the layout's own coordinates as the layout returns
    /// them: when ``isFlippedHorizontally``, the frame mirrored across the
    /// content's width and the transform mirrored
    /// (``Transform/mirroredHorizontally``); as they are otherwise.
    ///
    /// A layout of your own that flips calls it on everything it returns,
    /// and calls ``flippedHorizontally(_:)-(Rect)`` on the rect of a rect
    /// query before it searches.
    public func flippedHorizontally(_ attributes: LayoutAttributes) -> LayoutAttributes {
        guard isFlippedHorizontally else { return attributes }
        return Self.mirrored(attributes, inWidth: collectionViewContentSize.width)
    }

    /// A content offset in the layout's own coordinates as the collection
    /// view uses it, or back: when ``isFlippedHorizontally``, the origin of
    /// the visible rectangle mirrored across the content's width
    /// (`x' = width − (x + boundsWidth)`), so that an offset showing the
    /// start of the content shows its start on the right; as it is
    /// otherwise. For the `targetContentOffset` hooks of a layout that
    /// snaps in its own coordinates.
    public func flippedContentOffset(_ offset: Point) -> Point {
        guard isFlippedHorizontally, let environment = collectionView else { return offset }
        return Point(x: collectionViewContentSize.width - (offset.x + environment.bounds.size.width), y: offset.y)
    }

    /// The environment's content inset in the layout's own coordinates:
    /// left and right swapped when ``isFlippedHorizontally``.
    package var contentInsetInDevelopmentDirection: EdgeInsets {
        guard let environment = collectionView else { return .zero }
        let insets = environment.contentInset
        guard isFlippedHorizontally else { return insets }
        return EdgeInsets(top: insets.top, left: insets.right, bottom: insets.bottom, right: insets.left)
    }

    /// The environment's bounds in the layout's own coordinates: mirrored
    /// across the content's width when ``isFlippedHorizontally``.
    package var boundsInDevelopmentDirection: Rect {
        flippedHorizontally(collectionView?.bounds ?? .zero)
    }

    /// ``updateTransitionStyle`` with its transforms mirrored when the
    /// layout is flipped, so that an element that slides in from the right
    /// in its development direction slides in from the left.
    package var transitionStyleInDirection: UpdateTransitionStyle {
        guard isFlippedHorizontally else { return updateTransitionStyle }
        var style = updateTransitionStyle
        style.appearingTransform = style.appearingTransform.mirroredHorizontally
        style.disappearingTransform = style.disappearingTransform.mirroredHorizontally
        return style
    }

    /// Attributes mirrored across `width`: frame and transform.
    package static func mirrored(_ attributes: LayoutAttributes, inWidth width: Double) -> LayoutAttributes {
        var result = attributes
        result.frame = attributes.frame.mirroredHorizontally(inWidth: width)
        if !attributes.transform.isIdentity { result.transform = attributes.transform.mirroredHorizontally }
        return result
    }
}
