/// The direction in which a user reads a line: UIKit's
/// `UIUserInterfaceLayoutDirection`.
///
/// A collection view's ``LayoutEnvironment/effectiveLayoutDirection`` says
/// which direction its content runs in; a layout whose
/// ``CollectionViewLayout/developmentLayoutDirection`` differs and whose
/// ``CollectionViewLayout/flipsHorizontallyInOppositeLayoutDirection`` is
/// true mirrors every frame it returns across the width of its content.
public enum LayoutDirection: Hashable, Codable, Sendable, CaseIterable {
    /// Lines run from left to right (English, say): the leading edge is the
    /// left one.
    case leftToRight
    /// Lines run from right to left (Arabic, Hebrew): the leading edge is
    /// the right one.
    case rightToLeft
}

extension Rect {
    /// The rectangle mirrored across a vertical axis: the reflection of a
    /// frame in content `width` wide, `x' = width − (x + w)` for the
    /// frame's origin `x` and width `w` (`width − maxX` for a frame of
    /// positive width), with the same `y` and size.
    ///
    /// Mirroring twice in the same width gives the frame back, up to
    /// rounding.
    @inlinable
    public func mirroredHorizontally(inWidth width: Double) -> Rect {
        Rect(origin: Point(x: width - (origin.x + size.width), y: origin.y), size: size)
    }
}

extension Transform {
    /// The transform mirrored across a vertical axis: what the same
    /// transform looks like in a mirror (`S·T·S` for the reflection `S`
    /// that negates x), so that a translation to the right becomes one to
    /// the left and a clockwise rotation an anticlockwise one. Scales are
    /// unchanged.
    @inlinable
    public var mirroredHorizontally: Transform {
        Transform(a: a, b: -b, c: -c, d: d, tx: -tx, ty: ty)
    }
}
