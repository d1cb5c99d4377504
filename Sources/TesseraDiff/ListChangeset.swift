/// The difference between two flat lists of identifiable elements.
///
/// Index spaces follow UIKit's batch rules: `deletes` are offsets in the old
/// list, `inserts` offsets in the new list, `moves` go from an old offset to a
/// new one, and `updates` pair the old and new offsets of an element whose id
/// stayed while its content changed. An element that moved and changed is in
/// both `moves` and `updates`. Every array is sorted ascending by its first
/// index, so the same inputs always give the same value.
public struct ListChangeset: Hashable, Codable, Sendable {
    /// Old offsets of elements that are gone.
    public var deletes: [Int]
    /// New offsets of elements that are new.
    public var inserts: [Int]
    /// Elements whose position relative to the others changed, old → new.
    ///
    /// Minimal: exactly the elements outside one longest increasing
    /// subsequence of old offsets taken in new order.
    public var moves: [Move<Int>]
    /// Elements with the same id and different content, old → new.
    public var updates: [Move<Int>]

    /// Creates a changeset from its parts.
    public init(deletes: [Int] = [], inserts: [Int] = [], moves: [Move<Int>] = [], updates: [Move<Int>] = []) {
        self.deletes = deletes
        self.inserts = inserts
        self.moves = moves
        self.updates = updates
    }

    /// Whether the two lists were the same.
    public var isEmpty: Bool {
        deletes.isEmpty && inserts.isEmpty && moves.isEmpty && updates.isEmpty
    }

    /// The number of operations of all kinds.
    public var changeCount: Int {
        deletes.count + inserts.count + moves.count + updates.count
    }
}
