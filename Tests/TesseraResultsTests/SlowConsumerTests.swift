import Foundation
import Testing
import TesseraDiff
import TesseraResults
import TesseraResultsTestSupport
import TesseraSQLite
import TesseraTestSupport
import TesseraTestTraits

// Runs on every store (ResultsStoreFixture.all): the set controller's
// sequence. The mutable controller's reads no store.

/// Every controller's report sequence under a consumer that does not keep
/// up: the newest reports merge, and replaying what arrives gives the
/// controller's state.
@Suite("Report sequences under load", .tags(.postgres), .ownThreads)
struct SlowConsumerTests {
    @Test("Mutable controller: 60 random edits, a buffer of 3; the reports that arrive replay to the content, in-place updates included")
    func mutable() async throws {
        let seed = testSeed(default: 0x5C0)
        var generator = SplitMix64(seed: seed)
        let controller = MutableResultsController<String, ClassCard>(sectionKey: \.deck, itemOrder: { $0.rank < $1.rank })
        let log = MutableLog<String, ClassCard>()
        controller.delegate = log
        let start = controller.snapshot
        let reports = controller.reports(bufferLimit: 3)
        // Report 1 makes cards 1 to 10; report 2 adds card 11; the rest
        // (cards 2 to 20 come and go and move) merge into report 3, which
        // ends with card 1 changed in place.
        var cards: [Int: ClassCard] = [:]
        try controller.performEditing { () throws(ResultsError) in
            for id in 1...10 {
                let card = ClassCard(id: id, deck: ["a", "b", "c"][id % 3], rank: id % 7)
                try controller.insert(card)
                cards[id] = card
            }
        }
        cards[11] = ClassCard(id: 11, deck: "a", rank: 3)
        try controller.insert(cards[11]!)
        for _ in 0..<60 {
            let id = Int.random(in: 2...20, using: &generator)
            if let card = cards[id] {
                if Bool.random(using: &generator) {
                    _ = controller.delete(id: id)
                    cards[id] = nil
                } else {
                    card.rank = Int.random(in: 0...9, using: &generator)
                    _ = controller.didUpdate(card)
                }
            } else {
                let card = ClassCard(id: id, deck: ["a", "b", "c"][id % 3], rank: Int.random(in: 0...9, using: &generator))
                try controller.insert(card)
                cards[id] = card
            }
        }
        // The snapshots before and after hold the same object, so only the
        // controller knows it changed.
        let touchedInPlace = cards[1]
        _ = controller.didUpdate(cards[1]!)
        let final = controller.snapshot
        let expected = min(log.reports.count, 3)
        var iterator = reports.makeAsyncIterator()
        var replayed = start
        var received: [SnapshotReport<KeyedSection<String>, ClassCard>] = []
        while received.count < expected, let report = await iterator.next() {
            #expect(report.oldSnapshot == replayed, "seed \(seed)")
            replayed = try replayed.applying(report.changeset, takingValuesFrom: report.newSnapshot)
            received.append(report)
        }
        #expect(received.count == 3, "seed \(seed)")
        #expect(replayed == final, "seed \(seed)")
        // The merged report still carries the in-place update of card 1.
        let last = try #require(received.last)
        let card = try #require(touchedInPlace)
        let from = try #require(last.oldSnapshot.indexPath(ofItemWithID: card.id))
        let to = try #require(final.indexPath(ofItemWithID: card.id))
        #expect(last.changeset.itemUpdates.contains(Move(from: from, to: to)), "seed \(seed)")
    }

    @Test("Set controller: 40 commits, a buffer of 2; the reports that arrive replay to the set", arguments: ResultsStoreFixture.all)
    func set(store: ResultsStoreFixture) async throws {
        let seed = testSeed(default: 0x5E1)
        var generator = SplitMix64(seed: seed)
        let database = try store.makeDatabase()
        try database.write { db in try db.execute("CREATE TABLE message (id INTEGER PRIMARY KEY, folder TEXT, unread INTEGER, subject TEXT)") }
        let controller = database.fetchedSetController(SetRequest(table: "message", predicate: "unread = 1"), of: Message.self)
        try controller.performFetch()
        let log = SetLog<Message>()
        controller.delegate = log
        let reports = controller.reports(bufferLimit: 2)
        for _ in 0..<40 {
            try database.write { db in
                for _ in 0..<Int.random(in: 1...3, using: &generator) {
                    let id = Int64.random(in: 1...12, using: &generator)
                    switch Int.random(in: 0..<4, using: &generator) {
                    case 0: try db.execute("DELETE FROM message WHERE id = ?", [.integer(id)])
                    case 1: try db.execute("UPDATE message SET unread = 1 - unread WHERE id = ?", [.integer(id)])
                    default:
                        try db.execute("INSERT OR REPLACE INTO message VALUES (?, 'inbox', ?, ?)", [.integer(id), .integer(Int64.random(in: 0...1, using: &generator)), .text("s\(Int.random(in: 0...2, using: &generator))")])
                    }
                }
            }
        }
        let expected = min(log.reports.count, 2)
        var iterator = reports.makeAsyncIterator()
        var replayed: [Int64: Message] = [:]
        var received = 0
        while received < expected, let report = await iterator.next() {
            #expect(report.oldCount == replayed.count, "seed \(seed)")
            for record in report.deleted { #expect(replayed.removeValue(forKey: record.id) != nil, "seed \(seed): deleted \(record.id) was not there") }
            for record in report.updated { #expect(replayed.updateValue(record, forKey: record.id) != nil, "seed \(seed): updated \(record.id) was not there") }
            for record in report.inserted { #expect(replayed.updateValue(record, forKey: record.id) == nil, "seed \(seed): inserted \(record.id) was there") }
            #expect(report.newCount == replayed.count, "seed \(seed)")
            received += 1
        }
        #expect(received == 2, "seed \(seed)")
        #expect(Set(replayed.values) == Set(controller.records), "seed \(seed)")
    }
}
