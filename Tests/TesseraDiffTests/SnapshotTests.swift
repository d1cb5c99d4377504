#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Testing
import TesseraTestTraits
import TesseraDiff
import TesseraTestSupport

private func ip(_ section: Int, _ item: Int) -> IndexPath {
    IndexPath(item: item, section: section)
}

private func items(_ ids: [Int]) -> [TestItem] {
    ids.map { TestItem(id: $0) }
}

/// The plain model a snapshot must agree with.
private typealias Model = [(section: TestSection, items: [TestItem])]

/// Expects every reading API of `snapshot` to agree with `model`.
private func expectMatches(_ snapshot: TestSnapshot, _ model: Model, _ context: String, sourceLocation: SourceLocation = #_sourceLocation) {
    let flat = model.flatMap(\.items)
    #expect(snapshot.numberOfSections == model.count, "\(context)", sourceLocation: sourceLocation)
    #expect(snapshot.sections == model.map(\.section), "\(context)", sourceLocation: sourceLocation)
    #expect(snapshot.allItems == flat, "\(context)", sourceLocation: sourceLocation)
    #expect(snapshot.numberOfItems == flat.count, "\(context)", sourceLocation: sourceLocation)
    #expect(snapshot.itemCounts == model.map(\.items.count), "\(context)", sourceLocation: sourceLocation)
    guard snapshot.numberOfSections == model.count, snapshot.numberOfItems == flat.count else { return }

    var offset = 0
    var firstPathOfID: [Int: IndexPath] = [:]
    for (s, entry) in model.enumerated() {
        #expect(snapshot[section: s] == entry.section, "section \(s); \(context)", sourceLocation: sourceLocation)
        #expect(snapshot.numberOfItems(inSection: s) == entry.items.count, "section \(s); \(context)", sourceLocation: sourceLocation)
        #expect(Array(snapshot.items(inSection: s)) == entry.items, "section \(s); \(context)", sourceLocation: sourceLocation)
        guard snapshot.numberOfItems(inSection: s) == entry.items.count else { return }
        for (i, item) in entry.items.enumerated() {
            let path = ip(s, i)
            #expect(snapshot[path] == item, "\(path); \(context)", sourceLocation: sourceLocation)
            #expect(snapshot.flatOffset(of: path) == offset, "\(path); \(context)", sourceLocation: sourceLocation)
            #expect(snapshot.indexPath(forFlatOffset: offset) == path, "offset \(offset); \(context)", sourceLocation: sourceLocation)
            if firstPathOfID[item.id] == nil { firstPathOfID[item.id] = path }
            offset += 1
        }
    }
    for (id, path) in firstPathOfID {
        #expect(snapshot.indexPath(ofItemWithID: id) == path, "item id \(id); \(context)", sourceLocation: sourceLocation)
    }
    #expect(snapshot.indexPath(ofItemWithID: -1) == nil, "\(context)", sourceLocation: sourceLocation)
    for entry in model {
        let first = model.firstIndex { $0.section.id == entry.section.id }
        #expect(snapshot.index(ofSectionWithID: entry.section.id) == first, "section id \(entry.section.id); \(context)", sourceLocation: sourceLocation)
    }
    #expect(snapshot.index(ofSectionWithID: -1) == nil, "\(context)", sourceLocation: sourceLocation)

    let rebuilt = TestSnapshot(model.map { ($0.section, $0.items) })
    #expect(snapshot == rebuilt, "\(context)", sourceLocation: sourceLocation)
    #expect(snapshot.hashValue == rebuilt.hashValue, "\(context)", sourceLocation: sourceLocation)
    let lines = model.map { "\($0.section.id): [\($0.items.map { "\($0.id)" }.joined(separator: ", "))]" }
    #expect(snapshot.description == "Snapshot(\(lines.joined(separator: "; ")))", "\(context)", sourceLocation: sourceLocation)
}

@Suite("Snapshot: building and reading", .cpuBound)
struct SnapshotBuildingTests {
    @Test("Appending sections with and without items gives them in order")
    func appendSections() {
        var snapshot = TestSnapshot()
        #expect(snapshot.numberOfSections == 0 && snapshot.numberOfItems == 0 && snapshot.itemCounts.isEmpty)
        snapshot.appendSection(TestSection(id: 0), items: items([1, 2]))
        snapshot.appendSection(TestSection(id: 1))
        snapshot.appendSection(TestSection(id: 2), items: items([3]))
        expectMatches(snapshot, [(TestSection(id: 0), items([1, 2])), (TestSection(id: 1), []), (TestSection(id: 2), items([3]))], "appended")
        #expect(snapshot == TestSnapshot([0: [1, 2], 1: [], 2: [3]]))
    }

    @Test("Appending items to the last section extends only that section")
    func appendItemsToLastSection() {
        var snapshot = TestSnapshot([0: [1], 1: [2]])
        snapshot.appendItems(items([3, 4]), toSection: 1)
        #expect(snapshot == TestSnapshot([0: [1], 1: [2, 3, 4]]))
        #expect(snapshot.itemCounts == [1, 3])
    }

    @Test("Appending items to a middle section shifts the sections after it")
    func appendItemsToMiddleSection() {
        var snapshot = TestSnapshot([0: [1], 1: [2], 2: [3, 4]])
        snapshot.appendItems(items([5, 6]), toSection: 1)
        #expect(snapshot == TestSnapshot([0: [1], 1: [2, 5, 6], 2: [3, 4]]))
        #expect(snapshot.itemCounts == [1, 3, 2])
        #expect(snapshot[ip(2, 0)] == TestItem(id: 3))
        #expect(snapshot.flatOffset(of: ip(2, 1)) == 5)
    }

    @Test("Appending no items leaves the snapshot unchanged")
    func appendNoItems() {
        var snapshot = TestSnapshot([0: [1], 1: []])
        snapshot.appendItems([TestItem](), toSection: 0)
        #expect(snapshot == TestSnapshot([0: [1], 1: []]))
    }

    @Test("Inserting a section at the start, the middle and the end places it there with its items")
    func insertSection() {
        var snapshot = TestSnapshot([0: [1], 1: [2, 3]])
        snapshot.insertSection(TestSection(id: 9), items: items([7]), at: 0)
        #expect(snapshot == TestSnapshot([9: [7], 0: [1], 1: [2, 3]]))
        snapshot.insertSection(TestSection(id: 8), items: [], at: 2)
        #expect(snapshot == TestSnapshot([9: [7], 0: [1], 8: [], 1: [2, 3]]))
        snapshot.insertSection(TestSection(id: 6), items: items([4, 5]), at: 4)
        #expect(snapshot == TestSnapshot([9: [7], 0: [1], 8: [], 1: [2, 3], 6: [4, 5]]))
        #expect(snapshot.itemCounts == [1, 1, 0, 2, 2])
    }

    @Test("Removing the first, a middle and the last section returns it and keeps the rest")
    func removeSection() {
        var snapshot = TestSnapshot([0: [1], 1: [2, 3], 2: [], 3: [4, 5, 6], 4: [7]])
        #expect(snapshot.removeSection(at: 0) == TestSection(id: 0))
        #expect(snapshot == TestSnapshot([1: [2, 3], 2: [], 3: [4, 5, 6], 4: [7]]))
        #expect(snapshot.removeSection(at: 2) == TestSection(id: 3))
        #expect(snapshot == TestSnapshot([1: [2, 3], 2: [], 4: [7]]))
        #expect(snapshot.removeSection(at: 2) == TestSection(id: 4))
        #expect(snapshot == TestSnapshot([1: [2, 3], 2: []]))
        #expect(snapshot.removeSection(at: 1) == TestSection(id: 2))
        #expect(snapshot.removeSection(at: 0) == TestSection(id: 1))
        #expect(snapshot == TestSnapshot())
    }

    @Test("Inserting an item at the start, middle and end of a middle section puts it there")
    func insertItem() {
        var snapshot = TestSnapshot([0: [1], 1: [2, 3], 2: [4]])
        snapshot.insertItem(TestItem(id: 10), at: ip(1, 0))
        snapshot.insertItem(TestItem(id: 11), at: ip(1, 2))
        snapshot.insertItem(TestItem(id: 12), at: ip(1, 4))
        #expect(snapshot == TestSnapshot([0: [1], 1: [10, 2, 11, 3, 12], 2: [4]]))
        snapshot.insertItem(TestItem(id: 13), at: ip(2, 1))
        #expect(snapshot == TestSnapshot([0: [1], 1: [10, 2, 11, 3, 12], 2: [4, 13]]))
    }

    @Test("Inserting an item into an empty section fills it")
    func insertItemIntoEmptySection() {
        var snapshot = TestSnapshot([0: [], 1: [1]])
        snapshot.insertItem(TestItem(id: 5), at: ip(0, 0))
        #expect(snapshot == TestSnapshot([0: [5], 1: [1]]))
    }

    @Test("Removing an item returns it and closes the gap, down to an empty section")
    func removeItem() {
        var snapshot = TestSnapshot([0: [1, 2], 1: [3], 2: [4, 5]])
        #expect(snapshot.removeItem(at: ip(0, 1)) == TestItem(id: 2))
        #expect(snapshot == TestSnapshot([0: [1], 1: [3], 2: [4, 5]]))
        #expect(snapshot.removeItem(at: ip(1, 0)) == TestItem(id: 3))
        #expect(snapshot == TestSnapshot([0: [1], 1: [], 2: [4, 5]]))
        #expect(snapshot.removeItem(at: ip(2, 1)) == TestItem(id: 5))
        #expect(snapshot == TestSnapshot([0: [1], 1: [], 2: [4]]))
        #expect(snapshot.itemCounts == [1, 0, 1])
    }

    @Test("The item and section subscripts read and write in place")
    func subscripts() {
        var snapshot = TestSnapshot([0: [1, 2], 1: [3]])
        #expect(snapshot[ip(0, 1)] == TestItem(id: 2))
        #expect(snapshot[ip(1, 0)] == TestItem(id: 3))
        #expect(snapshot[section: 1] == TestSection(id: 1))
        snapshot[ip(0, 1)] = TestItem(id: 2, content: 9)
        snapshot[ip(1, 0)].content = 4
        snapshot[section: 0] = TestSection(id: 0, content: 1)
        #expect(snapshot.allItems == [TestItem(id: 1), TestItem(id: 2, content: 9), TestItem(id: 3, content: 4)])
        #expect(snapshot.sections == [TestSection(id: 0, content: 1), TestSection(id: 1)])
        #expect(snapshot.itemCounts == [2, 1])
    }

    @Test("Flat offsets map to index paths across leading, middle and trailing empty sections")
    func flatOffsetsWithEmptySections() {
        let snapshot = TestSnapshot([0: [], 1: [1, 2], 2: [], 3: [], 4: [3], 5: [4, 5], 6: []])
        let expected = [ip(1, 0), ip(1, 1), ip(4, 0), ip(5, 0), ip(5, 1)]
        for (offset, path) in expected.enumerated() {
            #expect(snapshot.indexPath(forFlatOffset: offset) == path, "offset \(offset)")
            #expect(snapshot.flatOffset(of: path) == offset, "\(path)")
            #expect(snapshot[path] == snapshot.allItems[offset])
        }
        #expect(snapshot.itemCounts == [0, 2, 0, 0, 1, 2, 0])
    }

    @Test("Finding items and sections by id gives the first match, or nil")
    func findByID() {
        var snapshot = TestSnapshot([0: [1, 2], 1: [], 2: [3, 2]])
        snapshot.appendSection(TestSection(id: 1, content: 5))
        #expect(snapshot.indexPath(ofItemWithID: 1) == ip(0, 0))
        #expect(snapshot.indexPath(ofItemWithID: 3) == ip(2, 0))
        #expect(snapshot.indexPath(ofItemWithID: 2) == ip(0, 1))
        #expect(snapshot.indexPath(ofItemWithID: 99) == nil)
        #expect(snapshot.index(ofSectionWithID: 2) == 2)
        #expect(snapshot.index(ofSectionWithID: 1) == 1)
        #expect(snapshot.index(ofSectionWithID: 99) == nil)
    }

    @Test("Snapshots with the same items split differently between sections are not equal")
    func equalityRespectsSectionBoundaries() {
        let a = TestSnapshot([0: [1, 2], 1: [3]])
        let b = TestSnapshot([0: [1], 1: [2, 3]])
        #expect(a.allItems == b.allItems)
        #expect(a != b)
        #expect(TestSnapshot([0: [], 1: [1]]) != TestSnapshot([0: [1], 1: []]))
    }

    @Test("Snapshots differing only in section or item content are not equal")
    func equalityRespectsContent() {
        var a = TestSnapshot([0: [1], 1: [2]])
        let b = a
        a[section: 1].content = 1
        #expect(a != b)
        var c = b
        c[ip(0, 0)].content = 1
        #expect(c != b)
    }

    @Test("Snapshots built in different ways with the same contents are equal and hash the same")
    func equalSnapshotsHashTheSame() {
        var a = TestSnapshot()
        a.appendSection(TestSection(id: 1))
        a.insertSection(TestSection(id: 0), items: items([1]), at: 0)
        a.appendItems(items([2, 3]), toSection: 1)
        a.insertItem(TestItem(id: 4), at: ip(1, 0))
        a.removeItem(at: ip(1, 1))
        let b = TestSnapshot([0: [1], 1: [4, 3]])
        #expect(a == b)
        #expect(a.hashValue == b.hashValue)
        #expect(Set([a, b]).count == 1)
    }

    @Test("The description lists each section id with its item ids")
    func description() {
        #expect(TestSnapshot().description == "Snapshot()")
        #expect(TestSnapshot([0: [1, 2], 1: [], 7: [3]]).description == "Snapshot(0: [1, 2]; 1: []; 7: [3])")
    }

    @Test("A snapshot built from (section, items) pairs equals the one appended section by section")
    func initFromPairs() {
        let pairs: [(TestSection, [TestItem])] = [(TestSection(id: 3), items([1])), (TestSection(id: 4), [])]
        var appended = TestSnapshot()
        for (section, list) in pairs { appended.appendSection(section, items: list) }
        #expect(TestSnapshot(pairs) == appended)
        expectMatches(TestSnapshot(pairs), pairs.map { ($0.0, $0.1) }, "pairs")
    }
}

@Suite("Snapshot: random mutations against a model", .tags(.oracle), .cpuBound)
struct SnapshotModelTests {
    @Test("1,000 random mutations keep every reading API in step with a plain array model")
    func randomMutations() {
        let seed = testSeed(default: 0x5A95_0007)
        for run in 0..<3 {
            var generator = SplitMix64(seed: seed &+ UInt64(run))
            var snapshot = TestSnapshot()
            var model: Model = []
            var nextID = 0
            var history: [String] = []

            func freshItems(_ count: Int) -> [TestItem] {
                (0..<count).map { _ in
                    // Now and then reuse an id, so "first match" lookups matter.
                    let all = model.flatMap(\.items)
                    if !all.isEmpty, Int.random(in: 0..<10, using: &generator) == 0 {
                        return TestItem(id: all.randomElement(using: &generator)!.id, content: 7)
                    }
                    nextID += 1
                    return TestItem(id: nextID)
                }
            }
            func freshSection() -> TestSection {
                if !model.isEmpty, Int.random(in: 0..<10, using: &generator) == 0 {
                    return TestSection(id: model.randomElement(using: &generator)!.section.id, content: 7)
                }
                nextID += 1
                return TestSection(id: nextID)
            }

            for step in 0..<1_000 {
                let total = model.reduce(0) { $0 + $1.items.count }
                let shrink = model.count > 10 || total > 80
                let op = Int.random(in: 0..<(shrink ? 12 : 10), using: &generator)
                switch op {
                case 0:
                    let section = freshSection()
                    let list = freshItems(Int.random(in: 0...3, using: &generator))
                    snapshot.appendSection(section, items: list)
                    model.append((section, list))
                    history.append("appendSection(\(section), \(list))")
                case 1:
                    let section = freshSection()
                    snapshot.appendSection(section)
                    model.append((section, []))
                    history.append("appendSection(\(section))")
                case 2 where !model.isEmpty:
                    let s = Int.random(in: 0..<model.count, using: &generator)
                    let list = freshItems(Int.random(in: 0...3, using: &generator))
                    snapshot.appendItems(list, toSection: s)
                    model[s].items += list
                    history.append("appendItems(\(list), toSection: \(s))")
                case 3:
                    let s = Int.random(in: 0...model.count, using: &generator)
                    let section = freshSection()
                    let list = freshItems(Int.random(in: 0...3, using: &generator))
                    snapshot.insertSection(section, items: list, at: s)
                    model.insert((section, list), at: s)
                    history.append("insertSection(\(section), \(list), at: \(s))")
                case 4 where !model.isEmpty, 10 where !model.isEmpty:
                    let s = Int.random(in: 0..<model.count, using: &generator)
                    let removed = snapshot.removeSection(at: s)
                    #expect(removed == model[s].section, "seed \(seed &+ UInt64(run)), step \(step)")
                    model.remove(at: s)
                    history.append("removeSection(at: \(s))")
                case 5 where !model.isEmpty:
                    let s = Int.random(in: 0..<model.count, using: &generator)
                    let i = Int.random(in: 0...model[s].items.count, using: &generator)
                    let item = freshItems(1)[0]
                    snapshot.insertItem(item, at: ip(s, i))
                    model[s].items.insert(item, at: i)
                    history.append("insertItem(\(item), at: \(ip(s, i)))")
                case 6 where total > 0, 11 where total > 0:
                    let candidates = model.indices.filter { !model[$0].items.isEmpty }
                    let s = candidates.randomElement(using: &generator)!
                    let i = Int.random(in: 0..<model[s].items.count, using: &generator)
                    let removed = snapshot.removeItem(at: ip(s, i))
                    #expect(removed == model[s].items[i], "seed \(seed &+ UInt64(run)), step \(step)")
                    model[s].items.remove(at: i)
                    history.append("removeItem(at: \(ip(s, i)))")
                case 7 where total > 0:
                    let candidates = model.indices.filter { !model[$0].items.isEmpty }
                    let s = candidates.randomElement(using: &generator)!
                    let i = Int.random(in: 0..<model[s].items.count, using: &generator)
                    if Int.random(in: 0..<2, using: &generator) == 0 {
                        snapshot[ip(s, i)].content += 1
                        model[s].items[i].content += 1
                    } else {
                        let item = freshItems(1)[0]
                        snapshot[ip(s, i)] = item
                        model[s].items[i] = item
                    }
                    history.append("set item at \(ip(s, i))")
                case 8 where !model.isEmpty:
                    let s = Int.random(in: 0..<model.count, using: &generator)
                    snapshot[section: s].content += 1
                    model[s].section.content += 1
                    history.append("set section \(s)")
                case 9:
                    // A copy is a value: changing it leaves the original alone.
                    var copy = snapshot
                    copy.appendSection(TestSection(id: -2), items: [TestItem(id: -3)])
                    #expect(copy != snapshot, "seed \(seed &+ UInt64(run)), step \(step)")
                    history.append("copy")
                default:
                    history.append("no-op")
                }
                expectMatches(snapshot, model, "seed \(seed &+ UInt64(run)), step \(step), last ops \(history.suffix(5))")
            }
        }
    }
}
