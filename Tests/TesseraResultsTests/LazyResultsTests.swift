import Foundation
import Synchronization
import Testing
import TesseraDiff
import TesseraResults
import TesseraResultsTestSupport
import TesseraSQLite
import TesseraTestSupport
import TesseraTestTraits

// Runs on SQLite's stores (ResultsStoreFixture.sqlite): a lazy result
// (FetchRequest.fetchBatchSize) against one that reads every record, under
// random transactions and scripts, and what a lazy fetch reads.

/// One suite's count of decoded rows: each suite has its own, so that
/// suites running at the same time do not disturb each other's.
final class DecodeCount: Sendable {
    let atomic = Atomic<Int>(0)
}

/// A suite that counts its rows' decodes.
protocol DecodeCounting {
    static var count: DecodeCount { get }
}

/// A row of `item` that counts how many times rows are decoded, on its
/// suite's count.
struct CountingRow<Suite: DecodeCounting>: FetchableRecord {
    var id: DatabaseValue
    var values: [DatabaseValue]

    /// The rows decoded so far.
    static var decodes: Int { Suite.count.atomic.load(ordering: .relaxed) }

    init(row: Row) throws {
        id = row[0]
        values = row.values
        Suite.count.atomic.add(1, ordering: .relaxed)
    }
}

/// The lazy results suite's count.
enum LazyResultsDecodes: DecodeCounting {
    static let count = DecodeCount()
}

extension TestDatabase {
    /// A controller of `item` by rank, lazy in batches of `batch`, and an
    /// eager one of the same request: both fetched.
    func lazyAndEagerByRank(batch: Int) throws -> (lazy: FetchedResultsController<AnyRow>, eager: FetchedResultsController<AnyRow>) {
        var request = FetchRequest(table: "item", sortKeys: [SortKey("rank")])
        request.fetchBatchSize = batch
        let lazy = try fetchedResultsController(request, of: AnyRow.self)
        try lazy.performFetch()
        request.fetchBatchSize = 0
        let eager = try fetchedResultsController(request, of: AnyRow.self)
        try eager.performFetch()
        return (lazy, eager)
    }
}

/// A row of `item` that counts how many times rows are decoded.
typealias CountedRow = CountingRow<LazyResultsDecodes>

// Not yet on PostgreSQL (ResultsStoreFixture.sqlite): the requests sort
// under NOCASE and RTRIM and the values are SQLite's mixed types; its
// PostgreSQL case needs store.portable requests and typed values.
@Suite("Lazy results: fetchBatchSize")
struct LazyResultsTests {
    /// The requests of the patching oracle, and one a patch cannot serve
    /// (a SELECT of its own), so that lazy re-fetches are covered too.
    static let requests: [(String, FetchRequest)] = IncrementalResultsTests.requests + [
        ("a query of its own", FetchRequest(query: "SELECT id, grp, rank, name, flag FROM item WHERE flag = 1", sortKeys: [SortKey("rank"), SortKey("name")])),
    ]

    /// A request made lazy.
    static func lazy(_ request: FetchRequest, batch: Int) -> FetchRequest {
        var request = request
        request.fetchBatchSize = batch
        return request
    }

    /// The changeset without its item updates.
    static func structure(_ changeset: Changeset) -> Changeset {
        var changeset = changeset
        changeset.itemUpdates = []
        return changeset
    }

    /// A lazy controller and an eager twin on one request, with their reports.
    final class Twin {
        let name: String
        let eager: FetchedResultsController<AnyRow>
        let lazy: FetchedResultsController<AnyRow>
        let eagerLog = ReportLog<AnyRow>()
        let lazyLog = ReportLog<AnyRow>()

        init(name: String, database: TestDatabase, request: FetchRequest, batch: Int) throws {
            self.name = name
            eager = try database.fetchedResultsController(request)
            lazy = try database.fetchedResultsController(LazyResultsTests.lazy(request, batch: batch))
            eager.delegate = eagerLog
            lazy.delegate = lazyLog
            try eager.performFetch()
            try lazy.performFetch()
        }
    }

    @Test("2,000 random transactions and scripts: a lazy result equals one that reads every record and a fresh query, and its reports are the same changes", .startsEarly, .cpuBound, arguments: ResultsStoreFixture.sqlite)
    func lazyEqualsEager(store: ResultsStoreFixture) throws {
        let seed = testSeed(default: 0x1A2)
        var generator = SplitMix64(seed: seed)
        let database = try IncrementalResultsTests.makeItems(store)
        let twins = try Self.requests.enumerated().map { index, named in
            try Twin(name: named.0, database: database, request: named.1, batch: [1, 3, 16][index % 3])
        }
        let groups: [DatabaseValue] = ["a", "b", "B", "c", .null, .integer(1), .real(1.5), .integer(2)]
        let names: [DatabaseValue] = ["alpha", "Alpha", "beta", "beta ", "gamma", "", .null, .integer(3)]
        let ranks: [DatabaseValue] = [.integer(1), .integer(2), .real(2.5), .integer(-1), .null, "r", .blob([1])]
        func pick(_ values: [DatabaseValue]) -> DatabaseValue { values[Int.random(in: 0..<values.count, using: &generator)] }

        var compared = 0
        for round in 0..<2_000 {
            let before = twins.map { ($0.eagerLog.reports.count, $0.lazyLog.reports.count) }
            if Int.random(in: 0..<5, using: &generator) == 0 {
                let script = IncrementalResultsTests.randomScript(using: &generator, groups: groups, names: names, ranks: ranks)
                database.withConnection { db in
                    try? db.execute(script)
                    if db.isInTransaction { try? db.execute("ROLLBACK") }
                }
            } else {
                let rollback = Int.random(in: 0..<12, using: &generator) == 0
                try? database.write { (db: any TestConnection) -> Void in
                    for _ in 0..<Int.random(in: 1...4, using: &generator) {
                        let id = Int64.random(in: 1...60, using: &generator)
                        let flag: Int64 = Int64.random(in: 0...3, using: &generator) == 0 ? 0 : 1
                        switch Int.random(in: 0..<100, using: &generator) {
                        case 0..<30:
                            try? db.execute("INSERT INTO item VALUES (?, ?, ?, ?, ?)", [.integer(id), pick(groups), pick(ranks), pick(names), .integer(flag)])
                        case 30..<50:
                            try db.execute("UPDATE item SET grp = ?, rank = ? WHERE id = ?", [pick(groups), pick(ranks), .integer(id)])
                        case 50..<62:
                            // Often the same values: a touched row whose record does not change.
                            try db.execute("UPDATE item SET name = ?, flag = ? WHERE id = ?", [pick(names), .integer(flag), .integer(id)])
                        case 62..<66:
                            try? db.execute("UPDATE item SET id = ? WHERE id = ?", [.integer(Int64.random(in: 1...60, using: &generator)), .integer(id)])
                        case 66..<76:
                            try db.execute("DELETE FROM item WHERE id = ?", [.integer(id)])
                        case 76..<77:
                            try db.execute("DELETE FROM item")
                        case 77..<85:
                            try db.execute("UPDATE item SET rank = rank + 1 WHERE id % 7 = ?", [.integer(id % 7)])
                        default:
                            try db.execute("INSERT OR REPLACE INTO tag VALUES (?, ?)", [.text("tag\(id % 20)"), pick(ranks)])
                        }
                    }
                    if rollback { throw Rollback() }
                }
            }
            for (twin, (eagerBefore, lazyBefore)) in zip(twins, before) {
                let comment = Comment(rawValue: "seed \(seed), round \(round), request \(twin.name)")
                #expect(twin.lazy.lastError == twin.eager.lastError, comment)
                // The records, read through the lazy result, are the eager ones.
                #expect(twin.lazy.snapshot == twin.eager.snapshot, comment)
                #expect(twin.lazy.result.isLazy, comment)
                let eagerReports = Array(twin.eagerLog.reports[eagerBefore...])
                let lazyReports = Array(twin.lazyLog.reports[lazyBefore...])
                // A lazy result cannot tell a touched row whose record did not
                // change from one whose record did: it may report updates the
                // eager one does not, never other changes, never fewer.
                let lazyChanges = lazyReports.filter { Self.structure($0.changeset) != Changeset() || eagerReports.isEmpty == false }
                if eagerReports.count == lazyReports.count {
                    for (e, l) in zip(eagerReports, lazyReports) {
                        compared += 1
                        #expect(Self.structure(l.changeset) == Self.structure(e.changeset), comment)
                        #expect(Set(e.changeset.itemUpdates.map(\.from)).isSubset(of: Set(l.changeset.itemUpdates.map(\.from))), comment)
                        // The lazy changeset replays the eager states.
                        #expect(try e.oldSnapshot.applying(l.changeset, takingValuesFrom: e.newSnapshot) == e.newSnapshot, comment)
                        #expect(l.new.count == e.new.count && l.new.sections == e.new.sections, comment)
                    }
                } else {
                    // A patched lazy result only adds reports of updates alone;
                    // a re-fetched one may also miss the update of a record it
                    // never read (inserted and changed within one script).
                    if twin.lazy.supportsIncrementalUpdates {
                        #expect(eagerReports.count < lazyReports.count, comment)
                    }
                    #expect(lazyChanges.count <= lazyReports.count, comment)
                    let structural = lazyReports.filter { Self.structure($0.changeset) != Changeset() }
                    let eagerStructural = eagerReports.filter { Self.structure($0.changeset) != Changeset() }
                    #expect(structural.map { Self.structure($0.changeset) } == eagerStructural.map { Self.structure($0.changeset) }, comment)
                }
                if twin.eager.lastError == nil, let fresh = try? database.freshSnapshot(twin.eager.request, of: AnyRow.self) {
                    #expect(twin.lazy.snapshot == fresh, comment)
                }
                if twin.lazy.snapshot != twin.eager.snapshot { return }
            }
        }
        #expect(compared > 2_000, "seed \(seed): \(compared) reports compared")
    }

    @Test("A lazy fetch decodes no record; a record asked for brings in its batch; the cache stays bounded; counts and sections need no record", .serialized, arguments: ResultsStoreFixture.sqlite)
    func readsOnlyWhatIsAsked(store: ResultsStoreFixture) throws {
        let database = try IncrementalResultsTests.makeItems(store)
        try database.write { db in
            for id in 1...6_000 {
                try db.execute("INSERT INTO item VALUES (?, ?, ?, ?, 1)", [.integer(Int64(id)), .integer(Int64(id % 12)), .integer(Int64(id)), .text("n\(id)")])
            }
        }
        let request = Self.lazy(FetchRequest(table: "item", sortKeys: [SortKey("grp"), SortKey("rank")], sectionKey: "grp"), batch: 40)
        let controller = try database.fetchedResultsController(request, of: CountedRow.self)
        let start = CountedRow.decodes
        try controller.performFetch()
        #expect(CountedRow.decodes == start, "a lazy fetch decodes no record")
        #expect(controller.numberOfSections == 12)
        #expect((0..<12).map(controller.numberOfObjects(inSection:)) == Array(repeating: 500, count: 12))
        #expect(controller.supportsIncrementalUpdates)
        let middle = controller.object(at: IndexPath(item: 250, section: 6))
        #expect(middle.values[2] == .integer(Int64(250 * 12 + 6)))
        let afterOne = CountedRow.decodes - start
        #expect(afterOne <= 40, "one batch read, not \(afterOne) records")
        // The batch around it is kept: its neighbours cost nothing.
        for item in 246..<270 { _ = controller.object(at: IndexPath(item: item, section: 6)) }
        #expect(CountedRow.decodes - start == afterOne, "neighbours come from the batch")
        // Every record, one by one: the cache keeps a bounded number.
        var previous = IndexPath(item: 0, section: 0)
        for section in 0..<12 {
            for item in 0..<500 {
                let path = IndexPath(item: item, section: section)
                let id = section == 0 ? (item + 1) * 12 : item * 12 + section
                #expect(controller.object(at: path).values[2] == .integer(Int64(id)), "\(path)")
                previous = path
            }
        }
        #expect(previous == IndexPath(item: 499, section: 11))
        // A commit: its arrival is read once, to place it, and reported.
        let log = ReportLog<CountedRow>()
        controller.delegate = log
        try database.write { db in try db.execute("UPDATE item SET rank = -1 WHERE id = 3000") }
        #expect(log.reports.count == 1)
        #expect(log.reports.first?.changeset.itemMoves.map(\.to) == [IndexPath(item: 0, section: 0)])
        #expect(controller.object(at: IndexPath(item: 0, section: 0)).id == .integer(3000))
        #expect(controller.snapshot == (try database.freshSnapshot(Self.lazy(request, batch: 0), of: CountedRow.self)))
    }

    @Test("A record deleted before it was ever read: the lazy result before the delete says so with a typed error", arguments: ResultsStoreFixture.sqlite)
    func unavailableRecord(store: ResultsStoreFixture) throws {
        let database = try IncrementalResultsTests.makeItems(store)
        try database.write { db in
            for id in 1...100 { try db.execute("INSERT INTO item VALUES (?, 'a', ?, 'n', 1)", [.integer(Int64(id)), .integer(Int64(id))]) }
        }
        let controller = try database.fetchedResultsController(Self.lazy(FetchRequest(table: "item", sortKeys: [SortKey("rank")]), batch: 10), of: AnyRow.self)
        try controller.performFetch()
        let before = controller.result
        _ = controller.object(at: IndexPath(item: 0, section: 0))
        try database.write { db in try db.execute("DELETE FROM item WHERE id IN (1, 90)") }
        #expect(controller.result.count == 98)
        // Read before the delete: still kept.
        #expect(try before.record(at: IndexPath(item: 0, section: 0)).id == .integer(1))
        #expect(throws: ResultsError.recordUnavailable(key: "90")) { try before.record(at: IndexPath(item: 89, section: 0)) }
        #expect(ResultsError.recordUnavailable(key: "90").failure == .fetch)
    }

    @Test("A slow consumer of a lazy controller: merged reports replay exactly", arguments: ResultsStoreFixture.sqlite)
    func slowConsumer(store: ResultsStoreFixture) async throws {
        let database = try IncrementalEdgeCaseTests.items(store, 50)
        let (controller, eager) = try database.lazyAndEagerByRank(batch: 8)
        let start = eager.snapshot
        let reports = controller.reports(bufferLimit: 3)
        for step in 0..<30 {
            try database.write { db in
                try db.execute("UPDATE item SET rank = ? WHERE id = ?", [.integer(Int64((step * 37) % 101)), .integer(Int64(step % 50 + 1))])
                if step % 4 == 0 { try db.execute("UPDATE item SET name = 'changed' WHERE id = ?", [.integer(Int64(step + 1))]) }
            }
        }
        let final = eager.snapshot
        var replayed = start
        var iterator = reports.makeAsyncIterator()
        var received = 0
        while received < 3, let report = await iterator.next() {
            received += 1
            replayed = try replayed.applying(report.changeset, takingValuesFrom: report.newSnapshot)
        }
        #expect(received == 3)
        #expect(replayed == final, "the merged lazy reports replay to the result, updates included")
        #expect(controller.snapshot == eager.snapshot)
    }
}
