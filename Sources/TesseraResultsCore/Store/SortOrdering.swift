
/// How a store's `ORDER BY` orders the values of one sort column, its
/// direction and its NULL placement included: what lets the engine place a
/// changed row in a kept result without asking the store.
///
/// SQLite's is ``SQLiteSortOrdering``: NULL first, numbers, text under a
/// collation, blobs, and the whole reversed for a descending key. A store
/// whose NULLs come last in ascending order (PostgreSQL's default) says so
/// here, and the engine follows.
package protocol SortOrdering: Sendable {
    /// Negative when `a` comes before `b` in the result, zero when the
    /// column does not tell them apart, positive when `a` comes after.
    ///
    /// - Complexity: O(*m*) for values of *m* bytes.
    func compare(_ a: DatabaseValue, _ b: DatabaseValue) -> Int

    /// Whether two integers come in ascending order of their value (`false`:
    /// descending). The engine compares integers itself, without a call,
    /// which every store orders by value.
    var integersAscending: Bool { get }

    /// Whether two reals come in ascending order of their value (`false`:
    /// descending), as `<` orders them; `nil` when the store orders them
    /// otherwise (one that keeps NaN, say), so that the engine calls
    /// ``compare(_:_:)`` for them. The default is `nil`.
    var realsAscending: Bool? { get }
}

extension SortOrdering {
    /// `nil`: reals are compared by ``compare(_:_:)``.
    package var realsAscending: Bool? { nil }
}
