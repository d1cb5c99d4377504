extension Snapshot: Equatable {
    /// Two snapshots are equal when they have equal sections in the same order,
    /// each with equal items in the same order.
    ///
    /// - Complexity: O(*n* + *s*).
    @inlinable
    public static func == (lhs: Snapshot, rhs: Snapshot) -> Bool {
        lhs._sectionStarts == rhs._sectionStarts && lhs._sections == rhs._sections && lhs._items == rhs._items
    }
}

extension Snapshot: Hashable where Section: Hashable, Item: Hashable {
    /// Hashes the sections, their item counts and the items.
    ///
    /// - Complexity: O(*n* + *s*).
    @inlinable
    public func hash(into hasher: inout Hasher) {
        hasher.combine(_sectionStarts)
        hasher.combine(_sections)
        hasher.combine(_items)
    }
}
