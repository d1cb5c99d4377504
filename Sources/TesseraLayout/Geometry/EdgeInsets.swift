/// Distances inward from the four edges of a rectangle, in points.
public struct EdgeInsets: Hashable, Codable, Sendable {
    /// The inset from the top edge.
    public var top: Double
    /// The inset from the left edge.
    public var left: Double
    /// The inset from the bottom edge.
    public var bottom: Double
    /// The inset from the right edge.
    public var right: Double

    /// Creates insets.
    @inlinable
    public init(top: Double = 0, left: Double = 0, bottom: Double = 0, right: Double = 0) {
        self.top = top
        self.left = left
        self.bottom = bottom
        self.right = right
    }

    /// The same inset on every edge.
    @inlinable
    public init(all value: Double) {
        self.init(top: value, left: value, bottom: value, right: value)
    }

    /// No inset.
    public static let zero = EdgeInsets()

    /// Whether every inset is a length a layout can use: finite, not
    /// negative and at most ``LayoutValue/maximumLength``
    /// (``LayoutValue/isValidLength(_:)``).
    @inlinable
    public var isValid: Bool {
        LayoutValue.isValidLength(top) && LayoutValue.isValidLength(left)
            && LayoutValue.isValidLength(bottom) && LayoutValue.isValidLength(right)
    }
}
