#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension CollectionViewLayout {
    /// The z-index the base class gives an interactively moving item, so
    /// that it covers every other element: `Int.max`.
    public static let interactivelyMovingItemZIndex = Int.max

    /// The item whose frame contains `position` (the lowest index path when
    /// several do), found with one rect query around it; `nil` when none
    /// does or the position is not finite.
    ///
    /// - Complexity: one rect query over a small square around `position`.
    func _itemContaining(_ position: Point) -> IndexPath? {
        guard position.x.isFinite, position.y.isFinite else { return nil }
        // A square of one point, wider where one point is below the
        // coordinates' resolution, whose corner is the position: every
        // frame that contains the position meets it.
        let width = Swift.max(1, position.x.magnitude.ulp * 4)
        let height = Swift.max(1, position.y.magnitude.ulp * 4)
        let probe = Rect(x: position.x, y: position.y, width: width, height: height)
        var best: IndexPath?
        for attributes in layoutAttributesForElements(in: probe) where attributes.category == .cell && attributes.frame.contains(position) {
            if best.map({ attributes.indexPath < $0 }) ?? true { best = attributes.indexPath }
        }
        return best
    }

    /// The item whose frame is nearest to `position` pulled inside the
    /// content (ties go to the lowest index path), or `nil` when no item
    /// has an area or the position is not finite.
    ///
    /// Rect queries over squares around the position, doubling from a few
    /// points until one meets an item; then one more query as large as the
    /// nearest distance found settles it (anything outside it is further).
    ///
    /// - Complexity: O(log *d*) rect queries for a position *d* points from
    ///   the nearest item, each O(log *n* + *k*) in Tessera's layouts.
    func _nearestItem(to position: Point) -> IndexPath? {
        guard position.x.isFinite, position.y.isFinite else { return nil }
        let content = collectionViewContentSize
        let point = Point(
            x: Swift.min(Swift.max(position.x, 0), Swift.max(content.width, 0)),
            y: Swift.min(Swift.max(position.y, 0), Swift.max(content.height, 0))
        )
        let limit = (content.width * content.width + content.height * content.height).squareRoot() + 1
        guard limit.isFinite else { return nil }
        var radius = 8.0
        while true {
            // Slightly larger than the radius: an item exactly `radius` away
            // may only touch the square, which a rect query leaves out.
            let reach = radius + Swift.max(radius, 1) * 1e-9
            let square = Rect(x: point.x - reach, y: point.y - reach, width: 2 * reach, height: 2 * reach)
            var best: (distance: Double, indexPath: IndexPath)?
            for attributes in layoutAttributesForElements(in: square) where attributes.category == .cell {
                let distance = Self.distance(from: point, to: attributes.frame)
                if let current = best, current.distance < distance || (current.distance == distance && current.indexPath < attributes.indexPath) { continue }
                best = (distance, attributes.indexPath)
            }
            if let best {
                if best.distance <= radius { return best.indexPath }
                radius = best.distance
            } else if radius > limit {
                return nil
            } else {
                radius *= 2
            }
        }
    }

    /// The distance from a point to the nearest point of a rectangle (0
    /// inside it).
    static func distance(from point: Point, to rect: Rect) -> Double {
        let dx = Swift.max(rect.minX - point.x, 0, point.x - rect.maxX)
        let dy = Swift.max(rect.minY - point.y, 0, point.y - rect.maxY)
        return (dx * dx + dy * dy).squareRoot()
    }
}
