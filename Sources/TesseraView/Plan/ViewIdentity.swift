/// Which view object shows an element: a reuse identifier and an instance
/// number, stable across plans, so a renderer can keep real views and reuse
/// them as UIKit's collection view does.
public struct ViewIdentity: Hashable, Codable, Sendable, Comparable, CustomStringConvertible {
    /// The kind of view (a cell class, a header class).
    public var reuseIdentifier: String
    /// Which view of that kind, numbered from 0.
    public var instance: Int

    /// Creates a view identity.
    public init(reuseIdentifier: String, instance: Int) {
        self.reuseIdentifier = reuseIdentifier
        self.instance = instance
    }

    /// Ordered by reuse identifier, then instance.
    public static func < (lhs: ViewIdentity, rhs: ViewIdentity) -> Bool {
        (lhs.reuseIdentifier, lhs.instance) < (rhs.reuseIdentifier, rhs.instance)
    }

    /// `Cell#3`.
    public var description: String { "\(reuseIdentifier)#\(instance)" }
}

/// The views a collection view has made, which of them show elements, and
/// which wait for reuse. Free views are reused lowest instance first, so
/// plans are deterministic.
struct _ViewPool {
    /// Free instances per kind, in descending order, so the lowest is last.
    private var free: [String: [Int]] = [:]
    private var made: [String: Int] = [:]

    /// A free view of a kind, or a new one.
    ///
    /// - Complexity: O(1) amortized.
    mutating func dequeue(_ reuseIdentifier: String) -> ViewIdentity {
        if let instance = free[reuseIdentifier]?.popLast() {
            return ViewIdentity(reuseIdentifier: reuseIdentifier, instance: instance)
        }
        let instance = made[reuseIdentifier, default: 0]
        made[reuseIdentifier] = instance + 1
        return ViewIdentity(reuseIdentifier: reuseIdentifier, instance: instance)
    }

    /// Returns a view for reuse.
    ///
    /// - Complexity: O(*f*) for *f* free views of its kind (the insertion;
    ///   the list is changed in place).
    mutating func recycle(_ view: ViewIdentity) {
        free[view.reuseIdentifier, default: []].insertDescending(view.instance)
    }

    /// Takes a free view out of the pool, so it is not handed out; `false`
    /// when it is not free.
    ///
    /// - Complexity: O(*f*) for *f* free views of its kind.
    mutating func reserve(_ view: ViewIdentity) -> Bool {
        guard let index = free[view.reuseIdentifier]?.firstIndex(of: view.instance) else { return false }
        free[view.reuseIdentifier]?.remove(at: index)
        return true
    }
}

extension Array where Element == Int {
    /// Inserts `value` into a list kept in descending order.
    fileprivate mutating func insertDescending(_ value: Int) {
        var low = 0
        var high = count
        while low < high {
            let mid = (low + high) / 2
            if self[mid] > value { low = mid + 1 } else { high = mid }
        }
        insert(value, at: low)
    }
}
