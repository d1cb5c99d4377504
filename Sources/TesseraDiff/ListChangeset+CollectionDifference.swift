extension ListChangeset {
    /// The changeset as a `CollectionDifference` that turns `old` into `new`
    /// with `old.applying(_:)`.
    ///
    /// Deletes are removals and inserts are insertions. A moved element is a
    /// removal and an insertion associated with each other, and so is an
    /// updated one (the difference must carry its new content).
    ///
    /// - Parameters:
    ///   - old: The list this changeset was computed from.
    ///   - new: The list it was computed to.
    /// - Returns: `nil` when an offset is outside its list.
    /// - Complexity: O(*k* log *k*) for *k* operations.
    public func collectionDifference<C: RandomAccessCollection>(
        from old: C,
        to new: C
    ) -> CollectionDifference<C.Element>? where C.Index == Int {
        var removals: [Int: Int?] = [:]
        var insertions: [Int: Int?] = [:]
        for offset in deletes { removals[offset] = .some(nil) }
        for offset in inserts { insertions[offset] = .some(nil) }
        for pair in moves + updates {
            removals[pair.from] = pair.to
            insertions[pair.to] = pair.from
        }
        var changes: [CollectionDifference<C.Element>.Change] = []
        for (offset, partner) in removals.sorted(by: { $0.key < $1.key }) {
            guard old.indices.contains(offset) else { return nil }
            changes.append(.remove(offset: offset, element: old[offset], associatedWith: partner))
        }
        for (offset, partner) in insertions.sorted(by: { $0.key < $1.key }) {
            guard new.indices.contains(offset) else { return nil }
            changes.append(.insert(offset: offset, element: new[offset], associatedWith: partner))
        }
        return CollectionDifference(changes)
    }

    /// Reads a `CollectionDifference` as a changeset: unassociated removals
    /// are deletes, unassociated insertions are inserts, and associated pairs
    /// (as `inferringMoves()` makes) are moves.
    ///
    /// A `CollectionDifference` does not tell content updates apart, and its
    /// moves need not be minimal, so ``updates`` is empty and ``moves`` is
    /// what the difference says.
    ///
    /// - Complexity: O(*k* log *k*) for *k* changes.
    public init<Element>(_ difference: CollectionDifference<Element>) {
        self.init()
        for change in difference {
            switch change {
            case let .remove(offset, _, partner):
                if partner == nil { deletes.append(offset) }
            case let .insert(offset, _, partner):
                if let partner { moves.append(Move(from: partner, to: offset)) } else { inserts.append(offset) }
            }
        }
        deletes.sort()
        inserts.sort()
        moves.sort { $0.from < $1.from }
    }
}
