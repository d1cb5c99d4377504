/// The direction a layout scrolls in.
public enum ScrollDirection: String, Hashable, Codable, Sendable {
    /// Content grows downward; the fixed (cross) axis is x.
    case vertical
    /// Content grows rightward; the fixed (cross) axis is y.
    case horizontal
}

extension ScrollDirection {
    /// A frame from scroll-axis (S) and fixed-axis (F) coordinates.
    @inlinable
    func rect(s: Double, f: Double, sLength: Double, fLength: Double) -> Rect {
        self == .vertical
            ? Rect(x: f, y: s, width: fLength, height: sLength)
            : Rect(x: s, y: f, width: sLength, height: fLength)
    }

    /// The S-axis start of a rectangle.
    @inlinable func minS(_ rect: Rect) -> Double { self == .vertical ? rect.minY : rect.minX }
    /// The S-axis end of a rectangle.
    @inlinable func maxS(_ rect: Rect) -> Double { self == .vertical ? rect.maxY : rect.maxX }
    /// A size's length on the S axis.
    @inlinable func sLength(_ size: Size) -> Double { self == .vertical ? size.height : size.width }
    /// A size's length on the F axis.
    @inlinable func fLength(_ size: Size) -> Double { self == .vertical ? size.width : size.height }
    /// A point's S coordinate.
    @inlinable func s(_ point: Point) -> Double { self == .vertical ? point.y : point.x }
    /// Insets as (S leading, S trailing, F leading, F trailing).
    @inlinable
    func split(_ insets: EdgeInsets) -> (sLeading: Double, sTrailing: Double, fLeading: Double, fTrailing: Double) {
        self == .vertical
            ? (insets.top, insets.bottom, insets.left, insets.right)
            : (insets.left, insets.right, insets.top, insets.bottom)
    }
}
