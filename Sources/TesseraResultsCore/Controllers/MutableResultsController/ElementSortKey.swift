/// One key a ``MutableResultsController`` sorts elements by: a comparable
/// key path, ascending or descending, or a comparator of your own.
///
/// ```swift
/// let order: [ElementSortKey<Photo>] = [.descending(\.date), .ascending(\.title)]
/// ```
///
/// Keys are compared in order; the first that tells two elements apart
/// decides. Elements that no key tells apart keep the order they were
/// inserted in.
public struct ElementSortKey<Element> {
    /// Whether the first element sorts before the second by this key.
    public let areInIncreasingOrder: (Element, Element) -> Bool

    /// A key from a comparator, which must be a strict weak ordering.
    public init(_ areInIncreasingOrder: @escaping (Element, Element) -> Bool) {
        self.areInIncreasingOrder = areInIncreasingOrder
    }

    /// Ascending by a comparable property.
    public static func ascending<Value: Comparable>(_ keyPath: KeyPath<Element, Value>) -> ElementSortKey {
        ElementSortKey { $0[keyPath: keyPath] < $1[keyPath: keyPath] }
    }

    /// Descending by a comparable property.
    public static func descending<Value: Comparable>(_ keyPath: KeyPath<Element, Value>) -> ElementSortKey {
        ElementSortKey { $0[keyPath: keyPath] > $1[keyPath: keyPath] }
    }

    /// The order of a list of keys, compared lexicographically.
    ///
    /// - Complexity: each comparison is O(*k*) in the number of keys.
    static func order(_ keys: [ElementSortKey]) -> (Element, Element) -> Bool {
        { lhs, rhs in
            for key in keys {
                if key.areInIncreasingOrder(lhs, rhs) { return true }
                if key.areInIncreasingOrder(rhs, lhs) { return false }
            }
            return false
        }
    }
}
