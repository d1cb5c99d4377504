/// A rectangle: an origin and a size, in points.
///
/// Rectangles are half-open for intersection: two rectangles that only share
/// an edge do not intersect, so a viewport query never returns an element
/// that merely touches it.
public struct Rect: Hashable, Codable, Sendable {
    /// The top-left corner.
    public var origin: Point
    /// The extent.
    public var size: Size

    /// Creates a rectangle from an origin and a size.
    @inlinable
    public init(origin: Point, size: Size) {
        self.origin = origin
        self.size = size
    }

    /// Creates a rectangle from its coordinates.
    @inlinable
    public init(x: Double, y: Double, width: Double, height: Double) {
        self.init(origin: Point(x: x, y: y), size: Size(width: width, height: height))
    }

    /// The rectangle at the origin with no size.
    public static let zero = Rect(x: 0, y: 0, width: 0, height: 0)

    /// The smallest x.
    @inlinable public var minX: Double { Swift.min(origin.x, origin.x + size.width) }
    /// The x in the middle.
    @inlinable public var midX: Double { origin.x + size.width / 2 }
    /// The largest x.
    @inlinable public var maxX: Double { Swift.max(origin.x, origin.x + size.width) }
    /// The smallest y.
    @inlinable public var minY: Double { Swift.min(origin.y, origin.y + size.height) }
    /// The y in the middle.
    @inlinable public var midY: Double { origin.y + size.height / 2 }
    /// The largest y.
    @inlinable public var maxY: Double { Swift.max(origin.y, origin.y + size.height) }
    /// The width.
    @inlinable public var width: Double { abs(size.width) }
    /// The height.
    @inlinable public var height: Double { abs(size.height) }
    /// The center point.
    @inlinable public var center: Point { Point(x: midX, y: midY) }

    /// Whether the rectangle has no area.
    @inlinable public var isEmpty: Bool { size.width == 0 || size.height == 0 }

    /// Whether every coordinate is finite.
    @inlinable
    public var isFinite: Bool {
        origin.x.isFinite && origin.y.isFinite && size.width.isFinite && size.height.isFinite
    }

    /// Whether the two rectangles share interior points. Rectangles that only
    /// touch at an edge or a corner, and empty rectangles, do not intersect.
    @inlinable
    public func intersects(_ other: Rect) -> Bool {
        !isEmpty && !other.isEmpty
            && minX < other.maxX && other.minX < maxX && minY < other.maxY && other.minY < maxY
    }

    /// Whether a point lies inside (the top and left edges included, the
    /// bottom and right edges excluded).
    @inlinable
    public func contains(_ point: Point) -> Bool {
        point.x >= minX && point.x < maxX && point.y >= minY && point.y < maxY
    }

    /// The smallest rectangle containing both. A rectangle with no area still
    /// counts by its origin.
    @inlinable
    public func union(_ other: Rect) -> Rect {
        let x0 = Swift.min(minX, other.minX)
        let y0 = Swift.min(minY, other.minY)
        let x1 = Swift.max(maxX, other.maxX)
        let y1 = Swift.max(maxY, other.maxY)
        return Rect(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
    }

    /// The overlap of two rectangles, or `nil` when they do not intersect.
    @inlinable
    public func intersection(_ other: Rect) -> Rect? {
        guard intersects(other) else { return nil }
        let x0 = Swift.max(minX, other.minX)
        let y0 = Swift.max(minY, other.minY)
        return Rect(x: x0, y: y0, width: Swift.min(maxX, other.maxX) - x0, height: Swift.min(maxY, other.maxY) - y0)
    }

    /// The rectangle shrunk by `dx` on the left and right and `dy` on the top
    /// and bottom (grown when negative).
    @inlinable
    public func insetBy(dx: Double, dy: Double) -> Rect {
        Rect(x: minX + dx, y: minY + dy, width: width - 2 * dx, height: height - 2 * dy)
    }

    /// The rectangle shrunk by insets.
    @inlinable
    public func inset(by insets: EdgeInsets) -> Rect {
        Rect(
            x: minX + insets.left, y: minY + insets.top,
            width: width - insets.left - insets.right, height: height - insets.top - insets.bottom
        )
    }

    /// The rectangle moved by `dx`, `dy`.
    @inlinable
    public func offsetBy(dx: Double, dy: Double) -> Rect {
        Rect(x: origin.x + dx, y: origin.y + dy, width: size.width, height: size.height)
    }

    /// The smallest rectangle with whole-number coordinates that contains
    /// this one.
    @inlinable
    public var integral: Rect { pixelAligned(scale: 1) }

    /// Snapped to the pixel grid of a screen scale: the origin floored and
    /// the far edges ceiled to multiples of `1 / scale`, so the rectangle
    /// still covers what it covered.
    ///
    /// - Precondition: `scale` is positive and finite.
    @inlinable
    public func pixelAligned(scale: Double) -> Rect {
        precondition(scale > 0 && scale.isFinite, "screen scale \(scale) is not positive and finite")
        let x0 = (minX * scale).rounded(.down) / scale
        let y0 = (minY * scale).rounded(.down) / scale
        let x1 = (maxX * scale).rounded(.up) / scale
        let y1 = (maxY * scale).rounded(.up) / scale
        return Rect(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
    }
}

extension Rect: CustomStringConvertible {
    /// `(x, y, width×height)`.
    public var description: String {
        "(\(origin.x.tesseraShort), \(origin.y.tesseraShort), \(size.width.tesseraShort)×\(size.height.tesseraShort))"
    }
}
