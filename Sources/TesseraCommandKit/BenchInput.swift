/// Two snapshots to measure, from wherever they came.
package struct BenchInput: Sendable {
    /// What the snapshots are, for the output (`old.json → new.json`).
    package var label: String
    /// The snapshot before the change.
    package var old: SnapshotDocument.DocumentSnapshot
    /// The snapshot after the change.
    package var new: SnapshotDocument.DocumentSnapshot

    /// Creates an input.
    package init(label: String, old: SnapshotDocument.DocumentSnapshot, new: SnapshotDocument.DocumentSnapshot) {
        self.label = label
        self.old = old
        self.new = new
    }

    /// Reads two snapshot files (the format `tessera diff` reads).
    ///
    /// - Throws: ``CommandError`` naming the file and the place in it.
    package static func files(old oldPath: String, new newPath: String) throws(CommandError) -> BenchInput {
        BenchInput(label: "\(oldPath) → \(newPath)", old: try SnapshotDocument.load(path: oldPath), new: try SnapshotDocument.load(path: newPath))
    }

    /// Whether both snapshots are one section, the same (same id and
    /// content): then the items are diffed as a flat list.
    package var isFlat: Bool {
        old.numberOfSections == 1 && new.numberOfSections == 1 && old.sections[0] == new.sections[0]
    }

    /// Checks that the input can be scaled `copies` times: the scaled
    /// snapshots are at most ``BenchRun/maximumCount`` items, and no id of
    /// a copy is already an id of the files.
    ///
    /// - Throws: ``CommandError`` naming `option` and the id.
    /// - Complexity: O(*copies* · *n*).
    package func checkCopies(_ copies: Int, option: String) throws(CommandError) {
        guard copies > 1 else { return }
        let largest = max(old.numberOfItems, new.numberOfItems)
        guard largest <= BenchRun.maximumCount / copies else {
            throw CommandError("\(option): \(copies) copies of \(largest) items is above the most, \(BenchRun.maximumCount)", exitCode: CommandError.usageExitCode)
        }
        var ids = Set<String>(minimumCapacity: old.numberOfItems + new.numberOfItems)
        for item in old.allItems { ids.insert(item.id) }
        for item in new.allItems { ids.insert(item.id) }
        for id in ids.sorted() {
            for copy in 1..<copies where ids.contains("\(id)#\(copy)") {
                throw CommandError("\(option): the id \"\(id)#\(copy)\" of copy \(copy) of \"\(id)\" is already an id in \(label)", exitCode: CommandError.usageExitCode)
            }
        }
    }

    /// The input scaled `copies` times: every section keeps its id, its
    /// content and its place, and its items are repeated `copies` times in
    /// a row, the ids of copy *c* (from 1) ending in `#c` (copy 0 keeps the
    /// file's ids). The change between the snapshots is then the files'
    /// change made `copies` times over, once in each copy.
    ///
    /// - Throws: ``CommandError`` as ``checkCopies(_:option:)`` does.
    /// - Complexity: O(*copies* · *n*).
    package func tiled(_ copies: Int, option: String) throws(CommandError) -> BenchInput {
        guard copies > 1 else { return self }
        try checkCopies(copies, option: option)
        func tile(_ snapshot: SnapshotDocument.DocumentSnapshot) -> SnapshotDocument.DocumentSnapshot {
            var result = SnapshotDocument.DocumentSnapshot()
            for (index, section) in snapshot.sections.enumerated() {
                let items = snapshot.items(inSection: index)
                var tiled = [DocumentItem]()
                tiled.reserveCapacity(items.count * copies)
                tiled.append(contentsOf: items)
                for copy in 1..<copies {
                    for item in items { tiled.append(DocumentItem(id: "\(item.id)#\(copy)", content: item.content)) }
                }
                result.appendSection(section, items: tiled)
            }
            return result
        }
        return BenchInput(label: label, old: tile(old), new: tile(new))
    }
}
