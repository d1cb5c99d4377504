extension Changeset {
    /// The changeset's structural operations — section and item deletes,
    /// inserts and moves — as one batch of update items, without the content
    /// updates. Valid under ``BatchValidator/Rules/tessera`` (a section may
    /// move while items change inside it); for UIKit use ``BatchUpdate``.
    ///
    /// - Complexity: O(*k*) for *k* operations.
    public var structuralUpdateItems: [UpdateItem] {
        var items: [UpdateItem] = []
        items.reserveCapacity(sectionDeletes.count + sectionInserts.count + sectionMoves.count + itemDeletes.count + itemInserts.count + itemMoves.count)
        items += sectionDeletes.map { .deleteSection($0) }
        items += sectionInserts.map { .insertSection($0) }
        items += sectionMoves.map { .moveSection($0.from, to: $0.to) }
        items += itemDeletes.map { .deleteItem(at: $0) }
        items += itemInserts.map { .insertItem(at: $0) }
        items += itemMoves.map { .moveItem(from: $0.from, to: $0.to) }
        return items
    }

    /// The sections with item deletes, inserts or moves inside: by index
    /// before the change (deletes and move sources) and after it (inserts
    /// and move targets).
    package var sectionsWithItemChanges: (old: Set<Int>, new: Set<Int>) {
        var old = Set<Int>()
        var new = Set<Int>()
        for path in itemDeletes { old.insert(path[0]) }
        for path in itemInserts { new.insert(path[0]) }
        for move in itemMoves {
            old.insert(move.from[0])
            new.insert(move.to[0])
        }
        return (old, new)
    }
}
