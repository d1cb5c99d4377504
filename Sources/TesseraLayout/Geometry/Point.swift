/// A location in a two-dimensional coordinate system, in points; y grows
/// downward.
public struct Point: Hashable, Codable, Sendable {
    /// The horizontal coordinate.
    public var x: Double
    /// The vertical coordinate.
    public var y: Double

    /// Creates a point.
    @inlinable
    public init(x: Double, y: Double) {
        self.x = x
        self.y = y
    }

    /// The origin, (0, 0).
    public static let zero = Point(x: 0, y: 0)
}

extension Point: CustomStringConvertible {
    /// `(x, y)`.
    public var description: String { "(\(x.tesseraShort), \(y.tesseraShort))" }
}

extension Double {
    /// A number without a trailing `.0` when it is whole, for descriptions.
    package var tesseraShort: String {
        self == rounded() && abs(self) < 1e15 ? String(Int(self)) : String(self)
    }
}
