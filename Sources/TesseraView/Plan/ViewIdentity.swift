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
    private var free: [String: [Int]] = [:]
    private var made: [String: Int] = [:]

    /// A free view of a kind, or a new one.
    mutating func dequeue(_ reuseIdentifier: String) -> ViewIdentity {
        if var instances = free[reuseIdentifier], !instances.isEmpty {
            let instance = instances.removeFirst()
            free[reuseIdentifier] = instances
            return ViewIdentity(reuseIdentifier: reuseIdentifier, instance: instance)
        }
        let instance = made[reuseIdentifier, default: 0]
        made[reuseIdentifier] = instance + 1
        return ViewIdentity(reuseIdentifier: reuseIdentifier, instance: instance)
    }

    /// Returns a view for reuse.
    mutating func recycle(_ view: ViewIdentity) {
        var instances = free[view.reuseIdentifier, default: []]
        let index = instances.firstIndex { $0 > view.instance } ?? instances.count
        instances.insert(view.instance, at: index)
        free[view.reuseIdentifier] = instances
    }
}
