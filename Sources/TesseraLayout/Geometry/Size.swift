/// A width and a height, in points.
public struct Size: Hashable, Codable, Sendable {
    /// The horizontal extent.
    public var width: Double
    /// The vertical extent.
    public var height: Double

    /// Creates a size.
    @inlinable
    public init(width: Double, height: Double) {
        self.width = width
        self.height = height
    }

    /// A size of zero by zero.
    public static let zero = Size(width: 0, height: 0)

    /// Whether both extents are lengths a layout can use: finite, not
    /// negative and at most ``LayoutValue/maximumLength``
    /// (``LayoutValue/isValidLength(_:)``).
    @inlinable
    public var isValid: Bool {
        LayoutValue.isValidLength(width) && LayoutValue.isValidLength(height)
    }
}

extension Size: CustomStringConvertible {
    /// `width×height`.
    public var description: String { "\(width.tesseraShort)×\(height.tesseraShort)" }
}
