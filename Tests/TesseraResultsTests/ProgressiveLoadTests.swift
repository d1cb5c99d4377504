import Foundation
import Testing
import TesseraDiff
import TesseraResults
import TesseraResultsTestSupport
import TesseraSQLite
import TesseraTestSupport
import TesseraTestTraits

// A lazy result that opens before its keys are read (FetchRequest
// .fetchBatchSize on an SQLite file in WAL mode): what it answers while the
// keys load, and that commits made meanwhile are reported exactly. A gate
// holds each load of a test's file before its scan, so that reads and
// commits land while it loads.

/// Holds loads until opened.
final class LoadGate: @unchecked Sendable {
    private let condition = NSCondition()
    private var isOpen = false

    func wait() {
        condition.lock()
        while !isOpen { condition.wait() }
        condition.unlock()
    }

    func open() {
        condition.lock()
        isOpen = true
        condition.broadcast()
        condition.unlock()
    }

    /// Opens the gate from another thread after `delay` seconds.
    func open(after delay: Double) {
        Thread.detachNewThread {
            Thread.sleep(forTimeInterval: delay)
            self.open()
        }
    }
}

@Suite("Lazy results: opening before the keys are read", .ownThreads)
struct ProgressiveLoadTests {
    /// Runs `body` with the loads of the file at `path` held at `gate`.
    static func holdingLoads<T>(of path: String, at gate: LoadGate, _ body: () throws -> T) rethrows -> T {
        KeyLoadTesting.beforeScan.withLock { $0[path] = { gate.wait() } }
        defer {
            gate.open()
            KeyLoadTesting.beforeScan.withLock { $0[path] = nil }
        }
        return try body()
    }

    static func makeFile(_ name: String) throws -> String {
        try temporaryDirectory().appendingPathComponent(name).path
    }

    static let groups: [DatabaseValue] = ["a", "b", "B", "c", .null, .integer(1), .real(2.5), .blob([7])]

    /// The same request read whole, on its own connection.
    static func fresh(_ request: FetchRequest, path: String) throws -> Snapshot<ResultSection, AnyRow> {
        var eager = request
        eager.fetchBatchSize = 0
        let controller = try FetchedResultsController<AnyRow>(connection: Connection(path: path), request: eager)
        try controller.performFetch()
        return controller.snapshot
    }

    @Test("Random tables, reads and commits while the keys load: counts and records equal a fresh query's, and the reports replay to it")
    func oracle() throws {
        let seed = testSeed(default: 0x10AD)
        print("ProgressiveLoadTests.oracle seed \(seed) (TESSERA_SEED to replay)")
        var generator = SplitMix64(seed: seed)
        func pick(_ values: [DatabaseValue]) -> DatabaseValue { values[Int.random(in: 0..<values.count, using: &generator)] }
        let path = try Self.makeFile("progressive.sqlite")
        var loadsSeen = 0
        for round in 0..<80 {
            let connection = try Connection(path: path)
            let count = Int.random(in: 0...400, using: &generator)
            try connection.write { db in
                try db.execute("DROP TABLE IF EXISTS item")
                // The section column's affinity decides how its counts are
                // grouped (by value alone, or by value, type and bytes).
                let affinity = ["", " TEXT", " INTEGER", " NUMERIC", " REAL"][round % 5]
                try db.execute("CREATE TABLE item (id INTEGER PRIMARY KEY, grp\(affinity), rank, name TEXT)")
                if round.isMultiple(of: 2) { try db.execute("CREATE INDEX item_grp_rank ON item (grp, rank)") }
                for id in 0..<count {
                    try db.execute("INSERT INTO item VALUES (?, ?, ?, ?)", [
                        .integer(Int64(id)), pick(Self.groups), .integer(Int64.random(in: 0...50, using: &generator)), .text("n\(id)"),
                    ])
                }
            }
            var request = round % 3 == 2
                ? FetchRequest(table: "item", predicate: "rank >= ?", arguments: [.integer(5)], sortKeys: [SortKey("rank"), SortKey("name")])
                : FetchRequest(table: "item", sortKeys: [SortKey("grp"), SortKey("rank", ascending: false)], sectionKey: "grp")
            request.fetchBatchSize = Int.random(in: 1...16, using: &generator)
            let before = try Self.fresh(request, path: path)
            let comment = Comment(rawValue: "round \(round), seed \(seed), \(count) rows")

            let gate = LoadGate()
            let controller = try FetchedResultsController<AnyRow>(connection: connection, request: request)
            let log = ReportLog<AnyRow>()
            controller.delegate = log
            try Self.holdingLoads(of: path, at: gate) {
                try controller.performFetch()
                #expect(controller.isLoading, comment)
                if controller.isLoading { loadsSeen += 1 }
                // Sections and counts now, as the fresh query has them.
                #expect(controller.sections == before.sections, comment)
                for section in 0..<before.numberOfSections {
                    #expect(controller.numberOfObjects(inSection: section) == before.numberOfItems(inSection: section), comment)
                }
                // Records by position, a few at random, then all. Without
                // an index on the sort, a read waits for the keys instead:
                // the gate opens by itself.
                let indexed = round.isMultiple(of: 2) && request.sectionKey != nil
                if !indexed { gate.open(after: 0.02) }
                for _ in 0..<(before.numberOfItems == 0 ? 0 : 12) {
                    let section = Int.random(in: 0..<before.numberOfSections, using: &generator)
                    guard before.numberOfItems(inSection: section) > 0 else { continue }
                    let path = IndexPath(item: Int.random(in: 0..<before.numberOfItems(inSection: section), using: &generator), section: section)
                    #expect(controller.object(at: path) == before[path], "\(path), \(comment)")
                }
                func readEveryRecord(expecting expected: Snapshot<ResultSection, AnyRow>) {
                    for section in 0..<expected.numberOfSections {
                        for item in 0..<expected.numberOfItems(inSection: section) {
                            let path = IndexPath(item: item, section: section)
                            #expect(controller.object(at: path) == expected[path], "\(path), \(comment)")
                        }
                    }
                }
                readEveryRecord(expecting: before)
                // Commits while it loads: the first opens the gate a little
                // after it starts waiting for the load. After each, the
                // reports so far replay the previous fresh result to the
                // new one, values included.
                gate.open(after: 0.002)
                var replayed = before
                var replayedReports = 0
                func checkReports(_ step: String) throws {
                    let now = try Self.fresh(request, path: path)
                    for report in log.reports[replayedReports...] {
                        replayed = try replayed.applying(report.changeset, takingValuesFrom: now)
                    }
                    replayedReports = log.reports.count
                    #expect(replayed == now, "after \(step), \(comment)")
                    // Every record read, so that a re-fetch, which reports
                    // as updated only the records a lazy result has read,
                    // reports every change of content.
                    readEveryRecord(expecting: now)
                }
                for commit in 0..<Int.random(in: 0...3, using: &generator) {
                    let rollback = Int.random(in: 0..<6, using: &generator) == 0
                    try? connection.write { db in
                        for _ in 0..<Int.random(in: 1...5, using: &generator) {
                            let id = Int64.random(in: 0...Int64(count + 20), using: &generator)
                            switch Int.random(in: 0..<4, using: &generator) {
                            case 0: try db.execute("INSERT OR REPLACE INTO item VALUES (?, ?, ?, 'new')", [.integer(id), pick(Self.groups), .integer(Int64.random(in: 0...50, using: &generator))])
                            case 1: try db.execute("UPDATE item SET grp = ?, rank = ? WHERE id = ?", [pick(Self.groups), .integer(Int64.random(in: 0...50, using: &generator)), .integer(id)])
                            case 2: try db.execute("UPDATE item SET name = 'renamed' WHERE id = ?", [.integer(id)])
                            default: try db.execute("DELETE FROM item WHERE id = ?", [.integer(id)])
                            }
                        }
                        if rollback { throw Rollback() }
                    }
                    try checkReports("commit \(commit)")
                }
                // Another connection's commit, seen by polling.
                if Int.random(in: 0..<3, using: &generator) == 0 {
                    let other = try Connection(path: path)
                    try other.write { db in try db.execute("UPDATE item SET rank = rank + 1 WHERE id % 3 = 0") }
                    try controller.checkForExternalChanges()
                    try checkReports("another connection's commit")
                }
                try controller.finishLoading()
            }
            #expect(!controller.isLoading, comment)
            #expect(controller.snapshot == (try Self.fresh(request, path: path)), comment)
            #expect(log.errors.isEmpty, comment)
        }
        #expect(loadsSeen == 80)
    }

    @Test("A store that cannot hold a snapshot (in memory, no write-ahead log) fetches the lazy result whole, as before")
    func fallsBack() throws {
        let file = try Self.makeFile("rollback-journal.sqlite")
        for connection in [try Connection(path: ":memory:"), try Connection(path: file, journalModeWAL: false)] {
            try connection.write { db in
                try db.execute("CREATE TABLE item (id INTEGER PRIMARY KEY, grp, rank, name TEXT)")
                for id in 0..<50 { try db.execute("INSERT INTO item VALUES (?, ?, ?, 'n')", [.integer(Int64(id)), .text("g\(id % 4)"), .integer(Int64(id))]) }
            }
            var request = FetchRequest(table: "item", sortKeys: [SortKey("grp"), SortKey("rank")], sectionKey: "grp")
            request.fetchBatchSize = 8
            let gate = LoadGate()
            let controller = try FetchedResultsController<AnyRow>(connection: connection, request: request)
            try Self.holdingLoads(of: connection.path, at: gate) {
                try controller.performFetch()
                #expect(!controller.isLoading, "\(connection.path)")
            }
            #expect(controller.numberOfSections == 4)
            #expect(controller.object(at: IndexPath(item: 3, section: 2)).id == .integer(14))
        }
    }

    @Test("Sections whose rows are not together under the sort (they sort as equal): the lazy fetch refuses them at once, as a whole fetch does")
    func sectionsNotTogether() throws {
        let path = try Self.makeFile("nocase.sqlite")
        let connection = try Connection(path: path)
        try connection.write { db in
            try db.execute("CREATE TABLE item (id INTEGER PRIMARY KEY, grp, rank, name TEXT)")
            for (id, group) in ["a", "A", "a", "b"].enumerated() {
                try db.execute("INSERT INTO item VALUES (?, ?, ?, 'n')", [.integer(Int64(id)), .text(group), .integer(Int64(id))])
            }
        }
        var request = FetchRequest(table: "item", sortKeys: [SortKey("grp", collation: .nocase), SortKey("rank")], sectionKey: "grp")
        #expect(throws: ResultsError.sectionNotContiguous("'a'")) {
            try FetchedResultsController<AnyRow>(connection: connection, request: request).performFetch()
        }
        request.fetchBatchSize = 2
        let controller = try FetchedResultsController<AnyRow>(connection: connection, request: request)
        #expect(throws: ResultsError.sectionNotContiguous("'a'")) { try controller.performFetch() }
        #expect(!controller.isLoading)
    }

    @Test("waitUntilLoaded waits without blocking, and a commit after it patches")
    func waitsAsynchronously() async throws {
        let path = try Self.makeFile("async.sqlite")
        let connection = try Connection(path: path)
        try connection.write { db in
            try db.execute("CREATE TABLE item (id INTEGER PRIMARY KEY, grp, rank, name TEXT)")
            for id in 0..<2_000 { try db.execute("INSERT INTO item VALUES (?, ?, ?, 'n')", [.integer(Int64(id)), .text("g\(id % 10)"), .integer(Int64(id))]) }
        }
        var request = FetchRequest(table: "item", sortKeys: [SortKey("grp"), SortKey("rank")], sectionKey: "grp")
        request.fetchBatchSize = 32
        let controller = try FetchedResultsController<AnyRow>(connection: connection, request: request)
        try controller.performFetch()
        try await controller.waitUntilLoaded()
        #expect(!controller.isLoading)
        #expect(controller.supportsIncrementalUpdates)
        try connection.write { db in try db.execute("DELETE FROM item WHERE id = 5") }
        #expect(controller.lastUpdateMethod == .incremental)
        #expect(controller.snapshot == (try Self.fresh(request, path: path)))
    }
}
