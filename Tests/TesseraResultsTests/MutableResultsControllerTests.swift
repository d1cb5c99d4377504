import Foundation
import Testing
import TesseraDiff
import TesseraResults
import TesseraTestSupport
import TesseraTestTraits

// No store: the mutable controller keeps its elements in memory.

/// A card in a deck: sectioned by deck, sorted by rank, then title
/// descending; ties keep insertion order.
struct Card: Identifiable, Equatable, Sendable {
    var id: Int
    var deck: String
    var rank: Int
    var title: String = ""
}

/// A card as a class, changed in place.
final class ClassCard: Identifiable, Equatable, @unchecked Sendable {
    let id: Int
    var deck: String
    var rank: Int

    init(id: Int, deck: String, rank: Int) {
        self.id = id
        self.deck = deck
        self.rank = rank
    }

    static func == (lhs: ClassCard, rhs: ClassCard) -> Bool {
        lhs.id == rhs.id && lhs.deck == rhs.deck && lhs.rank == rhs.rank
    }
}

/// Records every report and callback of a mutable controller.
final class MutableLog<Section: Hashable & Sendable, Element: Identifiable & Equatable & Sendable>: MutableResultsControllerDelegate {
    var reports: [SnapshotReport<KeyedSection<Section>, Element>] = []
    var events: [String] = []

    func controllerWillChangeContent(_ controller: MutableResultsController<Section, Element>) { events.append("will") }
    func controller(_ controller: MutableResultsController<Section, Element>, didChangeSectionAt oldIndex: Int?, for type: ResultsChangeType, newIndex: Int?) {
        events.append("section \(type) \(oldIndex.map(String.init) ?? "-") \(newIndex.map(String.init) ?? "-")")
    }
    func controller(_ controller: MutableResultsController<Section, Element>, didChangeElementAt oldIndexPath: IndexPath?, for type: ResultsChangeType, newIndexPath: IndexPath?) {
        events.append("\(type) \(oldIndexPath.map { "\(Array($0))" } ?? "-") \(newIndexPath.map { "\(Array($0))" } ?? "-")")
    }
    func controller(_ controller: MutableResultsController<Section, Element>, didChangeContentWith report: SnapshotReport<KeyedSection<Section>, Element>) {
        events.append("did")
        reports.append(report)
    }
}

@Suite("MutableResultsController")
struct MutableResultsControllerTests {
    static func makeController(removesEmptySections: Bool = true) -> (MutableResultsController<String, Card>, MutableLog<String, Card>) {
        let controller = MutableResultsController<String, Card>(
            sectionKey: \.deck,
            sortKeys: [.ascending(\.rank), .descending(\.title)],
            removesEmptySections: removesEmptySections
        )
        let log = MutableLog<String, Card>()
        controller.delegate = log
        return (controller, log)
    }

    static func layout(_ controller: MutableResultsController<String, Card>) -> [String: [Int]] {
        var result: [String: [Int]] = [:]
        for s in 0..<controller.numberOfSections {
            result[controller.sections[s]] = controller.snapshot.items(inSection: s).map(\.id)
        }
        return result
    }

    @Test("Inserts are sectioned by key and sorted by the sort keys; ties keep insertion order")
    func insertSortsAndSections() throws {
        let (controller, log) = Self.makeController()
        try controller.insert(Card(id: 1, deck: "b", rank: 2))
        try controller.insert(Card(id: 2, deck: "a", rank: 5))
        try controller.insert(Card(id: 3, deck: "b", rank: 1))
        try controller.insert(Card(id: 4, deck: "b", rank: 2))
        try controller.insert(Card(id: 5, deck: "b", rank: 2, title: "z"))
        #expect(controller.sections == ["a", "b"])
        #expect(Self.layout(controller) == ["a": [2], "b": [3, 5, 1, 4]])
        #expect(log.reports.count == 5)
        #expect(log.reports.last?.changeset == Changeset(itemInserts: [IndexPath(item: 1, section: 1)]))
        #expect(controller.object(at: IndexPath(item: 0, section: 1)).id == 3)
        #expect(controller.indexPath(for: Card(id: 4, deck: "b", rank: 2)) == IndexPath(item: 3, section: 1))
        #expect(controller.count == 5 && controller.contains(id: 4) && !controller.contains(id: 9))
    }

    @Test("A section order independent of the item order: sections descending, items ascending")
    func sectionOrderIsIndependent() throws {
        let controller = MutableResultsController<String, Card>(sectionKey: \.deck, sectionOrder: { $0 > $1 }, itemOrder: { $0.rank < $1.rank })
        try controller.insert(contentsOf: [Card(id: 1, deck: "a", rank: 3), Card(id: 2, deck: "c", rank: 2), Card(id: 3, deck: "a", rank: 1)])
        #expect(controller.sections == ["c", "a"])
        #expect(controller.snapshot.allItems.map(\.id) == [2, 3, 1])
    }

    @Test("A content change that keeps the position is reported as an item update at both paths")
    func contentChangeInPlaceIsAnUpdate() throws {
        let (controller, log) = Self.makeController()
        try controller.insert(contentsOf: [Card(id: 1, deck: "a", rank: 1, title: "x"), Card(id: 2, deck: "a", rank: 2)])
        log.events.removeAll()
        var card = controller.object(at: IndexPath(item: 0, section: 0))
        card.title = "renamed but still first"
        #expect(controller.didUpdate(card))
        #expect(log.reports.count == 2)
        #expect(log.reports.last?.changeset == Changeset(itemUpdates: [Move(from: IndexPath(item: 0, section: 0), to: IndexPath(item: 0, section: 0))]))
        #expect(log.events == ["will", "update [0, 0] [0, 0]", "did"])
        #expect(controller.object(at: IndexPath(item: 0, section: 0)).title == "renamed but still first")
    }

    @Test("A content change that changes the sort position is a move plus an update; a changed section key moves across sections")
    func contentChangeThatMoves() throws {
        let (controller, log) = Self.makeController()
        try controller.insert(contentsOf: [Card(id: 1, deck: "a", rank: 1), Card(id: 2, deck: "a", rank: 2), Card(id: 3, deck: "b", rank: 1)])
        controller.didUpdate(Card(id: 1, deck: "a", rank: 3))
        #expect(controller.snapshot.allItems.map(\.id) == [2, 1, 3])
        let moved = try #require(log.reports.last).changeset
        #expect(moved.itemUpdates == [Move(from: IndexPath(item: 0, section: 0), to: IndexPath(item: 1, section: 0))])
        #expect(moved.itemMoves.count == 1)
        controller.didUpdate(Card(id: 2, deck: "b", rank: 0))
        #expect(Self.layout(controller) == ["a": [1], "b": [2, 3]])
        #expect(log.reports.last?.changeset == Changeset(
            itemMoves: [Move(from: IndexPath(item: 0, section: 0), to: IndexPath(item: 0, section: 1))],
            itemUpdates: [Move(from: IndexPath(item: 0, section: 0), to: IndexPath(item: 0, section: 1))]
        ))
    }

    @Test("A class element changed in place and passed to didUpdate is reported as an update, which == cannot see")
    func classElementChangedInPlaceIsAnUpdate() throws {
        let controller = MutableResultsController<String, ClassCard>(sectionKey: \.deck, itemOrder: { $0.rank < $1.rank })
        let log = MutableLog<String, ClassCard>()
        controller.delegate = log
        let first = ClassCard(id: 1, deck: "a", rank: 1)
        let second = ClassCard(id: 2, deck: "a", rank: 2)
        try controller.insert(contentsOf: [first, second])
        first.deck = "a"
        first.rank = 1
        controller.didUpdate(first)
        #expect(log.reports.count == 2)
        #expect(log.reports.last?.changeset == Changeset(itemUpdates: [Move(from: IndexPath(item: 0, section: 0), to: IndexPath(item: 0, section: 0))]))
        second.rank = 0
        controller.didUpdate(second)
        #expect(controller.snapshot.allItems.map(\.id) == [2, 1])
        let changeset = try #require(log.reports.last).changeset
        #expect(changeset.itemUpdates == [Move(from: IndexPath(item: 1, section: 0), to: IndexPath(item: 0, section: 0))])
        #expect(changeset.itemMoves.count == 1)
    }

    @Test("Nested beginEditing/endEditing gives exactly one report, at the outermost end, in Core Data's callback order")
    func nestedEditingReportsOnce() throws {
        let (controller, log) = Self.makeController()
        try controller.insert(contentsOf: [Card(id: 1, deck: "a", rank: 1), Card(id: 2, deck: "b", rank: 1)])
        log.events.removeAll()
        controller.beginEditing()
        try controller.insert(Card(id: 3, deck: "c", rank: 1))
        controller.beginEditing()
        controller.delete(id: 2)
        controller.didUpdate(Card(id: 1, deck: "a", rank: 1, title: "t"))
        controller.endEditing()
        #expect(log.reports.count == 1 && controller.isEditing)
        try controller.insert(Card(id: 4, deck: "a", rank: 0))
        #expect(controller.sections == ["a", "b"], "the snapshot is the last reported state while editing")
        controller.endEditing()
        #expect(log.reports.count == 2 && !controller.isEditing)
        #expect(Self.layout(controller) == ["a": [4, 1], "c": [3]])
        #expect(log.events == ["will", "section delete 1 -", "section insert - 1", "insert - [0, 0]", "update [0, 0] [0, 1]", "did"])
        controller.endEditing()
        #expect(log.reports.count == 2)
    }

    @Test("Edits that change nothing visible give no report")
    func noReportWithoutChange() throws {
        let (controller, log) = Self.makeController()
        try controller.insert(Card(id: 1, deck: "a", rank: 1))
        controller.didUpdate(Card(id: 1, deck: "a", rank: 1))
        #expect(controller.delete(id: 7) == nil)
        #expect(!controller.didUpdate(Card(id: 7, deck: "a", rank: 1)))
        controller.beginEditing()
        try controller.insert(Card(id: 2, deck: "z", rank: 1))
        controller.delete(id: 2)
        controller.endEditing()
        controller.performEditing {}
        #expect(log.reports.count == 1)
    }

    @Test("Inserting an id already there is a duplicate-key error and changes nothing")
    func duplicateInsert() throws {
        let (controller, log) = Self.makeController()
        try controller.insert(Card(id: 1, deck: "a", rank: 1))
        #expect(throws: ResultsError.duplicateKey("1")) { try controller.insert(Card(id: 1, deck: "b", rank: 1)) }
        #expect(throws: ResultsError.duplicateKey("2")) {
            try controller.insert(contentsOf: [Card(id: 2, deck: "b", rank: 1), Card(id: 2, deck: "c", rank: 1)])
        }
        #expect(controller.count == 1 && log.reports.count == 1)
    }

    @Test("Empty sections are removed by default and kept when removal is off, until deleteSection")
    func emptySectionsRemovedOrKept() throws {
        let (removing, removingLog) = Self.makeController()
        try removing.insert(contentsOf: [Card(id: 1, deck: "a", rank: 1), Card(id: 2, deck: "b", rank: 1)])
        removing.delete(id: 1)
        #expect(removing.sections == ["b"])
        #expect(removingLog.reports.last?.changeset == Changeset(sectionDeletes: [0]))

        let (keeping, keepingLog) = Self.makeController(removesEmptySections: false)
        try keeping.insert(contentsOf: [Card(id: 1, deck: "a", rank: 1), Card(id: 2, deck: "b", rank: 1)])
        keeping.delete(id: 1)
        #expect(keeping.sections == ["a", "b"] && keeping.numberOfObjects(inSection: 0) == 0)
        #expect(keepingLog.reports.last?.changeset == Changeset(itemDeletes: [IndexPath(item: 0, section: 0)]))
        keeping.didUpdate(Card(id: 2, deck: "c", rank: 1))
        #expect(keeping.sections == ["a", "b", "c"] && keeping.snapshot.itemCounts == [0, 0, 1])
        #expect(keeping.deleteSection("a").isEmpty)
        #expect(keeping.sections == ["b", "c"])
        #expect(keeping.deleteSection("c").map(\.id) == [2])
        #expect(keeping.sections == ["b"] && keeping.count == 0)
        #expect(keepingLog.reports.last?.changeset == Changeset(sectionDeletes: [1]))
    }

    @Test("insertSection shows an empty section that stays while empty even when empty sections are removed")
    func insertedSectionStays() throws {
        let (controller, log) = Self.makeController()
        controller.insertSection("m")
        #expect(controller.sections == ["m"] && log.reports.last?.changeset == Changeset(sectionInserts: [0]))
        try controller.insert(Card(id: 1, deck: "m", rank: 1))
        controller.delete(id: 1)
        #expect(controller.sections == ["m"])
        controller.insertSection("m")
        #expect(log.reports.count == 3)
        controller.deleteSection("m")
        #expect(controller.sections.isEmpty && log.reports.count == 4)
    }

    @Test("The reports stream receives every report")
    func reportsStream() async throws {
        let (controller, _) = Self.makeController()
        let stream = controller.reports
        try controller.insert(Card(id: 1, deck: "a", rank: 1))
        controller.delete(id: 1)
        var iterator = stream.makeAsyncIterator()
        let first = await iterator.next()
        let second = await iterator.next()
        #expect(first?.changeset == Changeset(sectionInserts: [0]))
        #expect(second?.changeset == Changeset(sectionDeletes: [0]))
        #expect(second?.oldSnapshot == first?.newSnapshot)
    }

    // MARK: Randomized oracle

    /// The controller's content rebuilt from scratch: the elements in
    /// insertion order, stable-sorted; sections from the elements and the
    /// retained keys.
    struct Model {
        var elements: [(card: Card, order: Int)] = []
        var retained: Set<String> = []
        var removesEmptySections: Bool

        func snapshot() -> MutableResultsController<String, Card>.ResultSnapshot {
            let keys = Set(elements.map(\.card.deck)).union(retained).sorted()
            var snapshot = MutableResultsController<String, Card>.ResultSnapshot()
            for key in keys {
                let items = elements.filter { $0.card.deck == key }
                    .sorted { lhs, rhs in
                        if lhs.card.rank != rhs.card.rank { return lhs.card.rank < rhs.card.rank }
                        if lhs.card.title != rhs.card.title { return lhs.card.title > rhs.card.title }
                        return lhs.order < rhs.order
                    }
                    .map(\.card)
                snapshot.appendSection(KeyedSection(key), items: items)
            }
            return snapshot
        }
    }

    @Test("Random edit sequences: every report's new snapshot is a from-scratch build, its changeset is diff(old, new), and it replays", .cpuBound, arguments: [false, true])
    func randomEdits(removesEmptySections: Bool) throws {
        let seed = testSeed(default: 0x5EED_7A11 &+ (removesEmptySections ? 1 : 0))
        var generator = SplitMix64(seed: seed)
        let (controller, log) = Self.makeController(removesEmptySections: removesEmptySections)
        var model = Model(removesEmptySections: removesEmptySections)
        var nextID = 0
        var nextOrder = 0
        var reported = model.snapshot()
        var depth = 0
        let decks = ["a", "b", "c", "d", "e"]
        func randomDeck() -> String { decks[Int.random(in: 0..<decks.count, using: &generator)] }
        func randomCard(id: Int) -> Card {
            Card(id: id, deck: randomDeck(), rank: Int.random(in: 0...3, using: &generator), title: ["", "p", "q"][Int.random(in: 0...2, using: &generator)])
        }

        for step in 0..<3000 {
            let comment = Comment(rawValue: "seed \(seed), step \(step), removesEmptySections \(removesEmptySections)")
            let reportsBefore = log.reports.count
            let choice = Int.random(in: 0..<100, using: &generator)
            switch choice {
            case 0..<30:
                nextID += 1
                let card = randomCard(id: nextID)
                try controller.insert(card)
                model.elements.append((card, nextOrder))
                nextOrder += 1
                if !removesEmptySections { model.retained.insert(card.deck) }
            case 30..<45:
                if let index = model.elements.indices.randomElement(using: &generator) {
                    let removed = controller.delete(id: model.elements[index].card.id)
                    #expect(removed == model.elements[index].card, comment)
                    model.elements.remove(at: index)
                } else {
                    #expect(controller.delete(id: -1) == nil, comment)
                }
            case 45..<70:
                if let index = model.elements.indices.randomElement(using: &generator) {
                    var card = model.elements[index].card
                    switch Int.random(in: 0..<4, using: &generator) {
                    case 0: card.deck = randomDeck()
                    case 1: card.rank = Int.random(in: 0...3, using: &generator)
                    case 2: card.title = ["", "p", "q"][Int.random(in: 0...2, using: &generator)]
                    default: break   // the same content: nothing to report
                    }
                    #expect(controller.didUpdate(card), comment)
                    model.elements[index].card = card
                    if !removesEmptySections { model.retained.insert(card.deck) }
                }
            case 70..<74:
                let deck = randomDeck()
                controller.insertSection(deck)
                model.retained.insert(deck)
            case 74..<77:
                let deck = randomDeck()
                let removed = controller.deleteSection(deck)
                #expect(removed.map(\.id).sorted() == model.elements.filter { $0.card.deck == deck }.map(\.card.id).sorted(), comment)
                model.elements.removeAll { $0.card.deck == deck }
                model.retained.remove(deck)
            case 77..<80:
                nextID += 1
                let batch = (0..<Int.random(in: 0...4, using: &generator)).map { offset in randomCard(id: nextID + offset) }
                nextID += batch.count
                try controller.insert(contentsOf: batch)
                for card in batch {
                    model.elements.append((card, nextOrder))
                    nextOrder += 1
                    if !removesEmptySections { model.retained.insert(card.deck) }
                }
            case 80..<84:
                controller.beginEditing()
                depth += 1
            default:
                controller.endEditing()
                depth = max(0, depth - 1)
            }
            #expect(controller.count == model.elements.count, comment)

            if depth > 0 {
                #expect(log.reports.count == reportsBefore, comment)
                #expect(controller.snapshot == reported, comment)
                continue
            }
            let expected = model.snapshot()
            #expect(controller.snapshot == expected, comment)
            #expect(controller.currentSnapshot == expected, comment)
            if expected == reported {
                #expect(log.reports.count == reportsBefore, "no report when nothing changed; \(comment)")
                continue
            }
            #expect(log.reports.count == reportsBefore + 1, comment)
            guard let report = log.reports.last, log.reports.count == reportsBefore + 1 else { continue }
            #expect(report.oldSnapshot == reported, comment)
            #expect(report.newSnapshot == expected, comment)
            #expect(report.changeset == (try diff(from: reported, to: expected)), comment)
            #expect(try reported.applying(report.changeset, takingValuesFrom: report.newSnapshot) == expected, comment)
            reported = expected
        }
        #expect(log.reports.count > 800, "seed \(seed): too few reports to mean anything")
        // Every report opened and closed the delegate's callbacks once.
        #expect(log.events.filter { $0 == "will" }.count == log.reports.count)
        #expect(log.events.filter { $0 == "did" }.count == log.reports.count)
    }
}
