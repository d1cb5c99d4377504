import Foundation
import Testing
import TesseraTestTraits
import TesseraDiff
import TesseraLayout
import TesseraTestSupport
import TesseraView

/// A data source of section ids and item ids, changed by hand between
/// batches: the id arrays are the oracle's state.
private final class IDArraysDataSource: CollectionViewDataSource {
    var sections: [[Int]]

    init(_ sections: [[Int]]) {
        self.sections = sections
    }

    func numberOfSections(in collectionView: CollectionView) -> Int { sections.count }
    func collectionView(_ collectionView: CollectionView, numberOfItemsInSection section: Int) -> Int { sections[section].count }
    func collectionView(_ collectionView: CollectionView, itemIdentifierAt indexPath: IndexPath) -> String? {
        "\(sections[indexPath[0]][indexPath[1]])"
    }
}

@Suite("Selection follows items through every change", .tags(.oracle), .cpuBound)
struct SelectionOracleTests {
    /// Checks the view, the plan and the delegate after a change, against
    /// the ids selected before: those still present, at their index paths
    /// now.
    private static func check(
        view: CollectionView,
        plan: AnimationPlan,
        delegate: RecordingSelectionDelegate,
        selectedBefore: Set<Int>,
        highlightedBefore: Int?,
        pathsBefore: [Int: IndexPath],
        pathsAfter: [Int: IndexPath],
        comment: Comment
    ) -> (selected: Set<Int>, highlighted: Int?) {
        let selectedAfter = selectedBefore.filter { pathsAfter[$0] != nil }
        let expected = selectedAfter.map { pathsAfter[$0]! }.sorted()
        #expect(view.indexPathsForSelectedItems == expected, comment)
        let highlightedAfter = highlightedBefore.flatMap { pathsAfter[$0] != nil ? $0 : nil }
        #expect(view.indexPathsForHighlightedItems == highlightedAfter.map { [pathsAfter[$0]!] } ?? [], comment)
        // The delegate hears every selected item deleted, at its old index
        // path, in order, then the highlighted item deleted.
        var heard: [RecordingSelectionDelegate.Call] = selectedBefore.subtracting(selectedAfter).map { pathsBefore[$0]! }.sorted().map { .didDeselect($0) }
        if let id = highlightedBefore, highlightedAfter == nil { heard.append(.didUnhighlight(pathsBefore[id]!)) }
        #expect(delegate.calls == heard, comment)
        delegate.calls = []
        // Every cell of the plan: the state after when it has an index path
        // after, before when it disappears.
        var idsBefore: [IndexPath: Int] = [:]
        for (id, path) in pathsBefore { idsBefore[path] = id }
        for element in plan.elements where element.category == .cell {
            // A raw batch gives no ids to cells that leave: the old arrays do.
            let id = element.itemID.flatMap { Int($0) } ?? element.indexPathBefore.flatMap { idsBefore[$0] }
            #expect(id != nil, comment)
            guard let id else { continue }
            if let after = element.indexPathAfter {
                #expect(pathsAfter[id] == after, comment)
                #expect(element.isSelected == selectedAfter.contains(id), "\(comment) cell \(id)")
                #expect(element.isHighlighted == (highlightedAfter == id), "\(comment) cell \(id)")
            } else {
                #expect(element.isSelected == selectedBefore.contains(id), "\(comment) leaving cell \(id)")
                #expect(element.isHighlighted == (highlightedBefore == id), "\(comment) leaving cell \(id)")
            }
        }
        return (selectedAfter, highlightedAfter)
    }

    @Test("Through random snapshots applied by a diffable data source, the selection and the highlight are the ids still present, the plans say so, and the delegate hears the deletions")
    func diffableDataSourceSelectionFollowsIDs() throws {
        var deletionsHeard = 0
        var movesKept = 0
        try forEachSeededRound("SelectionOracleTests.diffableDataSourceSelectionFollowsIDs", seed: 0x5E1E_C7ED, rounds: 25) { round, seed, generator in
            var chain = RandomSnapshotChain(seed: generator.next())
            let view = makeSelectionTestView()
            let delegate = RecordingSelectionDelegate()
            view.delegate = delegate
            view.allowsMultipleSelection = round % 5 != 0
            let source = DiffableDataSource<TestSection, TestItem>(collectionView: view)
            var snapshot = chain.start()
            try source.apply(snapshot, animated: false)
            var selected = Set<Int>()
            var highlighted: Int?
            for step in 0..<30 {
                let comment = Comment(rawValue: "seed \(seed) round \(round) step \(step)")
                // Change the selection a little, by id or by index path.
                let items = snapshot.allItems
                for _ in 0..<Int.random(in: 0...4, using: &generator) where !items.isEmpty {
                    let item = items.randomElement(using: &generator)!
                    if Bool.random(using: &generator) {
                        try source.selectItem(withID: item.id)
                        if !view.allowsMultipleSelection { selected = [] }
                        selected.insert(item.id)
                    } else {
                        try source.deselectItem(withID: item.id)
                        selected.remove(item.id)
                    }
                }
                #expect(Set(source.selectedItemIDs) == selected, comment)
                // Sometimes a touch is in progress while the snapshot changes.
                if highlighted == nil, !items.isEmpty, Int.random(in: 0..<3, using: &generator) == 0 {
                    let item = items.randomElement(using: &generator)!
                    try view.beginTouch(at: snapshot.indexPath(ofItemWithID: item.id)!)
                    highlighted = item.id
                    delegate.calls = []
                }
                if Bool.random(using: &generator) {
                    let range = max(0, view.contentSize.height - view.bounds.size.height)
                    view.setBounds(Rect(origin: Point(x: 0, y: Double.random(in: 0...range, using: &generator).rounded()), size: view.bounds.size))
                }
                let next = chain.next(after: snapshot)
                let pathsBefore = indexPathsByID(snapshot)
                let pathsAfter = indexPathsByID(next)
                let plan = try source.apply(next)
                deletionsHeard += delegate.calls.count
                movesKept += selected.filter { pathsAfter[$0] != nil && pathsAfter[$0] != pathsBefore[$0] }.count
                (selected, highlighted) = Self.check(
                    view: view, plan: plan, delegate: delegate, selectedBefore: selected, highlightedBefore: highlighted,
                    pathsBefore: pathsBefore, pathsAfter: pathsAfter, comment: comment
                )
                #expect(Set(source.selectedItemIDs) == selected, comment)
                snapshot = next
                // End the touch now and then: lifted on the item, it
                // toggles it (or selects it alone under single selection).
                if view.indexPathsForHighlightedItems.isEmpty || Bool.random(using: &generator) {
                    let lifting = Bool.random(using: &generator)
                    if (try? view.endTouch(selecting: lifting)) != nil, let id = highlighted, lifting {
                        if view.allowsMultipleSelection && selected.contains(id) {
                            selected.remove(id)
                        } else {
                            if !view.allowsMultipleSelection { selected = [] }
                            selected.insert(id)
                        }
                    }
                    highlighted = nil
                    delegate.calls = []
                    #expect(Set(source.selectedItemIDs) == selected, comment)
                }
            }
        }
        print("SelectionOracleTests: \(deletionsHeard) deletions heard, \(movesKept) selected items moved")
        #expect(deletionsHeard > 0)
        #expect(movesKept > 0)
    }

    /// A random batch for id arrays, built by hand, and the arrays after.
    ///
    /// The new arrangement is drawn first (sections deleted, moved,
    /// inserted; items deleted, moved within and across sections,
    /// inserted); the batch then names a move for every section and item
    /// whose index changed other than by deletes and inserts around it,
    /// and reloads some that stay in place. An item that stays at its
    /// index in a section that stays at its index needs no operation: the
    /// free places of its section are exactly the ones such items keep.
    private static func randomBatch(
        _ old: [(id: Int, items: [Int])],
        chain: inout RandomSnapshotChain
    ) -> (items: [UpdateItem], new: [(id: Int, items: [Int])]) {
        var new = old
        new.removeAll { _ in chain.chance(12) }
        if !new.isEmpty, chain.chance(40) {
            let moved = new.remove(at: Int.random(in: 0..<new.count, using: &chain.generator))
            new.insert(moved, at: Int.random(in: 0...new.count, using: &chain.generator))
        }
        if chain.chance(30) {
            new.insert((chain.freshID(), (0..<Int.random(in: 0...5, using: &chain.generator)).map { _ in chain.freshID() }), at: Int.random(in: 0...new.count, using: &chain.generator))
        }
        let oldSectionIndex = Dictionary(uniqueKeysWithValues: old.enumerated().map { ($1.id, $0) })
        // Sections that keep their index and are reloaded keep their items.
        var reloadedSections = Set<Int>()
        for (t, section) in new.enumerated() where oldSectionIndex[section.id] == t && chain.chance(10) {
            reloadedSections.insert(section.id)
        }
        let frozen = { (t: Int) in reloadedSections.contains(new[t].id) }
        for t in new.indices where !frozen(t) {
            new[t].items.removeAll { _ in chain.chance(15) }
        }
        // Items move between sections that were there before (and are not
        // reloaded); an inserted section has only its own new items.
        let open = new.indices.filter { !frozen($0) && oldSectionIndex[new[$0].id] != nil }
        if !open.isEmpty {
            for _ in 0..<Int.random(in: 0...6, using: &chain.generator) {
                let from = open.randomElement(using: &chain.generator)!
                guard !new[from].items.isEmpty else { continue }
                let item = new[from].items.remove(at: Int.random(in: 0..<new[from].items.count, using: &chain.generator))
                let to = open.randomElement(using: &chain.generator)!
                new[to].items.insert(item, at: Int.random(in: 0...new[to].items.count, using: &chain.generator))
            }
            for _ in 0..<Int.random(in: 0...4, using: &chain.generator) {
                let to = open.randomElement(using: &chain.generator)!
                new[to].items.insert(chain.freshID(), at: Int.random(in: 0...new[to].items.count, using: &chain.generator))
            }
        }

        var items: [UpdateItem] = []
        let newSectionIndex = Dictionary(uniqueKeysWithValues: new.enumerated().map { ($1.id, $0) })
        for (s, section) in old.enumerated() {
            guard let t = newSectionIndex[section.id] else {
                items.append(.deleteSection(s))
                continue
            }
            if t != s {
                items.append(.moveSection(s, to: t))
            } else if reloadedSections.contains(section.id) {
                items.append(.reloadSection(s))
            }
        }
        for (t, section) in new.enumerated() where oldSectionIndex[section.id] == nil {
            items.append(.insertSection(t))
        }
        var oldPaths: [Int: IndexPath] = [:]
        for (s, section) in old.enumerated() where newSectionIndex[section.id] != nil && !reloadedSections.contains(section.id) {
            for (i, id) in section.items.enumerated() { oldPaths[id] = IndexPath(item: i, section: s) }
        }
        var newPaths: [Int: IndexPath] = [:]
        for (t, section) in new.enumerated() where !reloadedSections.contains(section.id) {
            for (j, id) in section.items.enumerated() { newPaths[id] = IndexPath(item: j, section: t) }
        }
        for (id, from) in oldPaths.sorted(by: { $0.value < $1.value }) {
            guard let to = newPaths[id] else {
                items.append(.deleteItem(at: from))
                continue
            }
            let sectionStays = newSectionIndex[old[from[0]].id] == to[0]
            if !sectionStays || from[1] != to[1] {
                items.append(.moveItem(from: from, to: to))
            } else if chain.chance(10) {
                items.append(.reloadItem(at: from))
            }
        }
        for (id, to) in newPaths.sorted(by: { $0.value < $1.value }) where oldPaths[id] == nil {
            // Items of inserted sections come with their section.
            if oldSectionIndex[new[to[0]].id] != nil { items.append(.insertItem(at: to)) }
        }
        return (items, new)
    }

    @Test("Through random raw batches of inserts, deletes, moves, section moves and reloads, the selection is the ids still present at their new index paths")
    func rawBatchSelectionFollowsIDs() throws {
        var batchesRun = 0
        try forEachSeededRound("SelectionOracleTests.rawBatchSelectionFollowsIDs", seed: 0xBA7C_5E1E, rounds: 25) { round, seed, generator in
            var chain = RandomSnapshotChain(seed: generator.next())
            var sections: [(id: Int, items: [Int])] = (0..<Int.random(in: 1...6, using: &generator)).map { _ in
                (chain.freshID(), (0..<Int.random(in: 0...15, using: &generator)).map { _ in chain.freshID() })
            }
            let source = IDArraysDataSource(sections.map(\.items))
            let view = makeSelectionTestView()
            view.dataSource = source
            view.reloadData()
            let delegate = RecordingSelectionDelegate()
            view.delegate = delegate
            view.allowsMultipleSelection = true
            var selected = Set<Int>()
            func paths() -> [Int: IndexPath] {
                var result: [Int: IndexPath] = [:]
                for (s, section) in sections.enumerated() {
                    for (i, id) in section.items.enumerated() { result[id] = IndexPath(item: i, section: s) }
                }
                return result
            }
            for step in 0..<30 {
                let comment = Comment(rawValue: "seed \(seed) round \(round) step \(step)")
                let pathsBefore = paths()
                for (id, path) in pathsBefore.sorted(by: { $0.key < $1.key }) where chain.chance(30) {
                    if selected.contains(id) {
                        try view.deselectItem(at: path)
                        selected.remove(id)
                    } else {
                        try view.selectItem(at: path)
                        selected.insert(id)
                    }
                }
                let (items, new) = Self.randomBatch(sections, chain: &chain)
                sections = new
                source.sections = new.map(\.items)
                let pathsAfter = paths()
                let plan: AnimationPlan
                do {
                    plan = try view.performBatchUpdates(items)
                } catch {
                    Issue.record("\(comment): \(error) for \(items)")
                    return
                }
                batchesRun += 1
                selected = Self.check(
                    view: view, plan: plan, delegate: delegate, selectedBefore: selected, highlightedBefore: nil,
                    pathsBefore: pathsBefore, pathsAfter: pathsAfter, comment: comment
                ).selected
            }
        }
        #expect(batchesRun == 25 * 30)
    }
}
