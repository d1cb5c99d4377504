import Foundation
import Testing
import TesseraDiff
import TesseraResults
import TesseraResultsTestSupport
import TesseraSQLite
import TesseraTestSupport
import TesseraTestTraits

// A lazy request opens before its keys are read: what a lazy result that
// opens on a snapshot answers
// while (and after) its keys load, against the same request read whole on
// the same connection. Loads are held at a gate for each test's own file
// (ProgressiveLoadTests.holdingLoads). Where the counts could disagree with
// the sorted rows, the lazy open is a whole fetch: these tests check the
// outcome (what the result shows), whichever way it opened.

@Suite("Lazy results opening before the keys are read: ties, refused requests, connection settings, cancellation, readers on other threads", .ownThreads, .serialized, .startsEarly)
struct ProgressiveLoadEdgeTests {
    static func makeFile(_ name: String) throws -> String {
        try temporaryDirectory().appendingPathComponent(name).path
    }

    /// The request read whole (fetchBatchSize 0) on `connection`, so that
    /// the connection's own settings apply, as they do to the lazy one.
    static func whole(_ request: FetchRequest, on connection: Connection) throws -> Snapshot<ResultSection, AnyRow> {
        var eager = request
        eager.fetchBatchSize = 0
        let controller = try FetchedResultsController<AnyRow>(connection: connection, request: eager)
        try controller.performFetch()
        return controller.snapshot
    }

    /// Every record's key by position, `nil` where the read throws (no trap).
    static func keys(of result: FetchedResult<AnyRow>) -> [[DatabaseValue?]] {
        (0..<result.numberOfSections).map { section in
            (0..<result.numberOfRecords(inSection: section)).map { item in
                try? result.record(at: IndexPath(item: item, section: section)).id
            }
        }
    }

    /// Where two results first differ, in a line, or `nil` when equal.
    static func difference(_ a: Snapshot<ResultSection, AnyRow>, _ b: Snapshot<ResultSection, AnyRow>) -> String? {
        guard a != b else { return nil }
        guard a.sections == b.sections else { return "sections \(a.sections.map(\.value)) vs \(b.sections.map(\.value))" }
        guard a.itemCounts == b.itemCounts else { return "counts \(a.itemCounts) vs \(b.itemCounts)" }
        let pairs = zip(a.allItems, b.allItems).enumerated().filter { $0.element.0 != $0.element.1 }
        return "\(pairs.count) records differ: " + pairs.prefix(4).map { "at flat \($0.offset): \($0.element.0.values) vs \($0.element.1.values)" }.joined(separator: "; ")
    }

    static func keys(of snapshot: Snapshot<ResultSection, AnyRow>) -> [[DatabaseValue?]] {
        (0..<snapshot.numberOfSections).map { section in snapshot.items(inSection: section).map { $0.id } }
    }

    /// Waits (polling, no finishLoading) until the controller's load ends,
    /// for 60,000 rounds of at least 2 ms (two minutes at the least; a limit
    /// against a hang only, bounded in rounds, not by a clock).
    static func waitForLoadToEnd(_ controller: FetchedResultsController<AnyRow>) {
        waitInRounds(60_000, sleepingEvery: .milliseconds(2)) { !controller.isLoading }
    }

    /// A table `item (id, grp, rank)` with `groups[i]` as row i's group and
    /// i as its rank, in a WAL file; `grpType` is grp's declared type.
    static func items(_ groups: [DatabaseValue], grpType: String = "", name: String) throws -> (Connection, String) {
        let path = try makeFile(name)
        let connection = try Connection(path: path)
        try connection.write { db in
            try db.execute("CREATE TABLE item (id INTEGER PRIMARY KEY, grp \(grpType), rank INTEGER)")
            for (id, group) in groups.enumerated() {
                try db.execute("INSERT INTO item VALUES (?, ?, ?)", [.integer(Int64(id)), group, .integer(Int64(id))])
            }
        }
        return (connection, path)
    }

    // MARK: Sections the grouped count and the page read tell apart differently

    /// Two sections whose values the column's own comparison takes as
    /// equal: 'A' and 'a' in a NOCASE column, 1 and 1.0 in an untyped one.
    static let equalComparingSections: [(name: String, groups: [DatabaseValue], grpType: String)] = [
        ("nocase-column.sqlite", ["A", "A", "a", "a"], "TEXT COLLATE NOCASE"),
        ("one-and-one-point-oh.sqlite", [.integer(1), .integer(1), .real(1), .real(1)], ""),
    ]

    @Test("Two sections the column compares as equal ('A' and 'a' under a NOCASE column, 1 and 1.0 in an untyped one): each shows its own rows (sections that sort as equal open as a whole fetch)", arguments: equalComparingSections)
    func equalComparingSectionsShowTheirOwnRows(_ table: (name: String, groups: [DatabaseValue], grpType: String)) throws {
        let (connection, _) = try Self.items(table.groups, grpType: table.grpType, name: table.name)
        var request = FetchRequest(table: "item", sortKeys: [SortKey("grp"), SortKey("rank")], sectionKey: "grp")
        let expected = try Self.whole(request, on: connection)
        #expect(Self.keys(of: expected) == [[.integer(0), .integer(1)], [.integer(2), .integer(3)]])
        #expect(expected.sections.map(\.value) == [table.groups[0], table.groups[2]])
        // A page smaller than a section (with a larger one, the first
        // page's extra rows happen to land on the right positions).
        request.fetchBatchSize = 1
        // Was, while loading: [[0, 1], [0, 1]]: rows 0 and 1 twice, rows 2
        // and 3 never.
        try Self.expectOpensAsWhole(request, on: connection, expected: expected)
    }

    @Test("Sections that tie under the sort's collation ('a' rows then 'A' rows, sorted NOCASE): they come in the whole fetch's order, and no report follows")
    func tiedSectionsOpenInTheCountsOrder() throws {
        let (connection, _) = try Self.items(["a", "a", "A", "A"], name: "tied-sections.sqlite")
        var request = FetchRequest(table: "item", sortKeys: [SortKey("grp", collation: .nocase), SortKey("rank")], sectionKey: "grp")
        // A whole fetch serves it: the sections are together.
        let expected = try Self.whole(request, on: connection)
        #expect(expected.sections.map(\.value) == ["a", "A"])
        request.fetchBatchSize = 8
        let log = ReportLog<AnyRow>()
        // Was, while loading: ["A", "a"] (GROUP BY's BINARY order, kept by
        // the tie).
        try Self.expectOpensAsWhole(request, on: connection, expected: expected, delegate: log)
        // Was one report: a reload of every section once the load failed.
        #expect(log.reports.isEmpty)
    }

    // MARK: A load that fails

    /// A `.query` source whose join repeats key 5: a whole fetch refuses it.
    static func repeatedKeys(name: String) throws -> (Connection, FetchRequest) {
        let connection = try Connection(path: try makeFile(name))
        try connection.write { db in
            try db.execute("CREATE TABLE item (id INTEGER PRIMARY KEY, rank INTEGER)")
            try db.execute("CREATE TABLE tag (item_id INTEGER, name TEXT)")
            for id in 0..<20 { try db.execute("INSERT INTO item VALUES (?, ?)", [.integer(Int64(id)), .integer(Int64(id))]) }
            try db.execute("INSERT INTO tag VALUES (5, 'x'), (5, 'y')")
        }
        let request = FetchRequest(
            query: "SELECT item.id, item.rank, tag.name FROM item LEFT JOIN tag ON tag.item_id = item.id", sortKeys: [SortKey("rank")]
        )
        return (connection, request)
    }

    @Test("A request a whole fetch refuses (a repeated key): the lazy fetch refuses it too, at once (keys the store does not keep unique are read whole)")
    func repeatedKeysAreRefusedAtOnce() throws {
        let (connection, whole) = try Self.repeatedKeys(name: "repeated-keys.sqlite")
        var request = whole
        #expect(throws: ResultsError.duplicateKey("5")) { _ = try Self.whole(request, on: connection) }
        request.fetchBatchSize = 4
        let controller = try FetchedResultsController<AnyRow>(connection: connection, request: request)
        // Was: the open succeeded, the load failed later with no one told,
        // and every record read threw (object(at:) trapped).
        #expect(throws: ResultsError.duplicateKey("5")) { try controller.performFetch() }
        #expect(!controller.isLoading)
        #expect(controller.result.count == 0)
    }

    // MARK: The snapshot's connection

    /// Descriptors this process has open on `path` (and its -wal, -shm).
    static func openDescriptors(on path: String) -> Int {
        let fds = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        return fds.filter { fd in
            (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(fd)"))?.hasPrefix(path) ?? false
        }.count
    }

    @Test("A loaded result lets its snapshot's connection go: ten loaded controllers hold the file open no more than one does")
    func loadedResultKeepsSnapshotConnectionOpen() throws {
        let (connection, path) = try Self.items((0..<100).map { .text("g\($0 % 5)") }, name: "descriptors.sqlite")
        var request = FetchRequest(table: "item", sortKeys: [SortKey("grp"), SortKey("rank")], sectionKey: "grp")
        request.fetchBatchSize = 8
        let before = Self.openDescriptors(on: path)
        var controllers: [FetchedResultsController<AnyRow>] = []
        var afterOne = 0
        for _ in 0..<10 {
            let controller = try FetchedResultsController<AnyRow>(connection: connection, request: request)
            try controller.performFetch()
            try controller.finishLoading()
            #expect(!controller.isLoading)
            controllers.append(controller)
            if controllers.count == 1 { afterOne = Self.openDescriptors(on: path) }
        }
        let after = Self.openDescriptors(on: path)
        // Was: two more a loaded controller (its snapshot's file and
        // write-ahead log). SQLite keeps one descriptor of a closed
        // connection open, for reuse, while another connection of the
        // process (the store's) holds a lock on the file.
        #expect(after == afterOne, "\(after - afterOne) more descriptors on the file for \(controllers.count) loaded controllers than for one")
        #expect(after - before <= 1, "\(after - before) more descriptors on the file than before any load")
    }

    // MARK: What the store's connection has and the snapshot's does not

    @Test("PRAGMA case_sensitive_like on the store's connection: the result has the rows its LIKE matches there (a LIKE opens as a whole fetch)")
    func caseSensitiveLikeIsNotTheSnapshots() throws {
        let (connection, _) = try Self.items(["apple", "Apple", "avocado", "banana"], name: "like.sqlite")
        try connection.write { db in try db.execute("PRAGMA case_sensitive_like = ON") }
        var request = FetchRequest(table: "item", predicate: "grp LIKE 'a%'", sortKeys: [SortKey("rank")])
        let expected = try Self.whole(request, on: connection)
        #expect(Self.keys(of: expected) == [[.integer(0), .integer(2)]])
        request.fetchBatchSize = 8
        let controller = try FetchedResultsController<AnyRow>(connection: connection, request: request)
        try ProgressiveLoadTests.holdingLoads(of: connection.path, at: LoadGate()) {
            try controller.performFetch()
            #expect(controller.result.count == expected.numberOfItems)
        }
        try controller.finishLoading()
        #expect(controller.result.count == expected.numberOfItems)
        // Was: row 1 ('Apple') in the loaded keys, unreadable by key.
        #expect(Self.keys(of: controller.result) == Self.keys(of: expected))
    }

    @Test("A TEMP table that shadows the main one on the store's connection: the result has the TEMP table's rows (a connection with TEMP tables opens as a whole fetch)")
    func tempTableShadowingIsNotTheSnapshots() throws {
        let (connection, _) = try Self.items(["a", "b", "c"], name: "temp-shadow.sqlite")
        try connection.write { db in
            try db.execute("CREATE TEMP TABLE item (id INTEGER PRIMARY KEY, grp, rank INTEGER)")
            try db.execute("INSERT INTO temp.item VALUES (10, 'x', 0)")
        }
        var request = FetchRequest(table: "item", sortKeys: [SortKey("rank")])
        let expected = try Self.whole(request, on: connection)
        #expect(Self.keys(of: expected) == [[.integer(10)]])
        request.fetchBatchSize = 8
        let controller = try FetchedResultsController<AnyRow>(connection: connection, request: request)
        try ProgressiveLoadTests.holdingLoads(of: connection.path, at: LoadGate()) {
            try controller.performFetch()
            #expect(controller.result.count == expected.numberOfItems)
            #expect(Self.keys(of: controller.result) == Self.keys(of: expected))
        }
        try controller.finishLoading()
        #expect(Self.keys(of: controller.result) == Self.keys(of: expected))
    }

    // MARK: Cancellation

    @Test("performFetch is cancellable while the snapshot counts the sections, as a whole fetch is")
    func cancellationDuringTheCountIsIgnored() async throws {
        let path = try Self.makeFile("slow-count.sqlite")
        let connection = try Connection(path: path)
        try connection.write { db in
            try db.execute("CREATE TABLE item (id INTEGER PRIMARY KEY, grp, rank INTEGER)")
            try db.execute("INSERT INTO item SELECT value, value % 7, value FROM (WITH RECURSIVE n(value) AS (SELECT 0 UNION ALL SELECT value + 1 FROM n WHERE value < 7999) SELECT value FROM n)")
        }
        // A predicate that costs O(n) a row: the count takes a while.
        var request = FetchRequest(
            table: "item", predicate: "(SELECT count(*) FROM item AS o WHERE o.rank <= item.rank) >= 0",
            sortKeys: [SortKey("grp"), SortKey("rank")], sectionKey: "grp"
        )
        func fetchCancelledAfter(_ delay: Duration) async -> Result<Duration, ResultsError> {
            let clock = ContinuousClock()
            let start = clock.now
            let request = request
            let task = Task.detached { () -> Result<Void, ResultsError> in
                do throws(ResultsError) {
                    let controller = try FetchedResultsController<AnyRow>(connection: connection, request: request)
                    try controller.performFetch()
                } catch { return .failure(error) }
                return .success(())
            }
            // Cancelled from a thread of its own: the fetch holds one of
            // the few threads Swift concurrency has, and other tests may
            // hold the rest, so a sleeping task could wake after the fetch.
            Thread.detachNewThread {
                Thread.sleep(forTimeInterval: Double(delay.components.attoseconds) / 1e18 + Double(delay.components.seconds))
                task.cancel()
            }
            return await task.value.map { clock.now - start }
        }
        // Read whole, the fetch stops.
        let whole = await fetchCancelledAfter(.milliseconds(50))
        #expect(throws: ResultsError.cancelled) { try whole.get() }
        request.fetchBatchSize = 8
        let lazy = await fetchCancelledAfter(.milliseconds(50))
        #expect(throws: ResultsError.cancelled) { try lazy.get() }
    }

    /// Opens `request` lazily while its load is held, checks that its
    /// sections and keys are the whole fetch's already, then lets it load
    /// and checks the whole result.
    static func expectOpensAsWhole(
        _ request: FetchRequest, on connection: Connection, expected: Snapshot<ResultSection, AnyRow>, delegate: ReportLog<AnyRow>? = nil
    ) throws {
        let controller = try FetchedResultsController<AnyRow>(connection: connection, request: request)
        controller.delegate = delegate
        try ProgressiveLoadTests.holdingLoads(of: connection.path, at: LoadGate()) {
            try controller.performFetch()
            #expect(controller.sections == expected.sections)
            #expect(keys(of: controller.result) == keys(of: expected))
        }
        try controller.finishLoading()
        #expect(controller.snapshot == expected)
    }

    // MARK: The shared record cache

    /// Ten rows, an index on the sort (pages are read by position while
    /// the load is held: without one, reads would wait for the held load),
    /// and a controller of the rows by rank in batches of 2, not fetched.
    static func indexedLazyItems(name: String) throws -> (connection: Connection, path: String, controller: FetchedResultsController<AnyRow>) {
        let (connection, path) = try items((0..<10).map { .text("g\($0)") }, name: name)
        try connection.write { db in try db.execute("CREATE INDEX item_rank ON item (rank)") }
        var request = FetchRequest(table: "item", sortKeys: [SortKey("rank")])
        request.fetchBatchSize = 2
        return (connection, path, try FetchedResultsController<AnyRow>(connection: connection, request: request))
    }

    @Test("An older result's page read while its load is held does not reach the cache the newer result reads: after a second performFetch, a changed row reads as it is")
    func oldSnapshotPageOverwritesNewerCachedRecord() throws {
        let (connection, path, controller) = try Self.indexedLazyItems(name: "stale-cache.sqlite")
        let request = controller.request
        let row8 = IndexPath(item: 8, section: 0)
        try ProgressiveLoadTests.holdingLoads(of: connection.path, at: LoadGate()) {
            try controller.performFetch()
            // A result the list keeps (a data source's copy, a report's old).
            let older = controller.result
            let other = try Connection(path: path)
            try other.write { db in try db.execute("UPDATE item SET grp = 'changed' WHERE id = 8") }
            // Fetched again (the view came back): a new snapshot, the same
            // record cache (same request).
            try controller.performFetch()
            #expect(controller.isLoading)
            #expect(controller.object(at: row8).values[1] == "changed")
            // The list reads the older result's row 8: from its snapshot,
            // kept in the shared cache.
            #expect(try older.record(at: row8).values[1] == "g8")
        }
        try controller.finishLoading()
        // Was: "g8" (the older snapshot's), though the store and the
        // result read moments ago say "changed".
        #expect(controller.object(at: row8).values[1] == "changed")
        #expect(controller.snapshot == (try Self.whole(request, on: connection)))
    }

    @Test("The same with no second fetch: another connection's commit, checkForExternalChanges while the load is held, and another thread reading the older result's row: the new result reads the row as it is")
    func externalCheckRacesOldSnapshotPage() throws {
        let (connection, path, controller) = try Self.indexedLazyItems(name: "stale-cache-check.sqlite")
        let request = controller.request
        let row8 = IndexPath(item: 8, section: 0)
        let gate = LoadGate()
        let readOld = LoadGate()
        try ProgressiveLoadTests.holdingLoads(of: connection.path, at: gate) {
            try controller.performFetch()
            let older = controller.result
            let other = try Connection(path: path)
            try other.write { db in try db.execute("UPDATE item SET grp = 'changed' WHERE id = 8") }
            // While the check below waits for the held load (after its
            // fetch and its comparison of the kept records), another thread
            // reads the older result's row 8, then opens the gate.
            Thread.detachNewThread {
                Thread.sleep(forTimeInterval: 0.3)
                _ = try? older.record(at: row8)
                gate.open()
                readOld.open()
            }
            #expect(try controller.checkForExternalChanges())
            readOld.wait()
        }
        #expect(controller.object(at: row8).values[1] == "changed")
        #expect(controller.snapshot == (try Self.whole(request, on: connection)))
    }

    // MARK: Concurrency

    /// A value threads share under an NSLock (which ThreadSanitizer sees).
    final class Shared<Value>: @unchecked Sendable {
        private let lock = NSLock()
        private var value: Value
        init(_ value: Value) { self.value = value }
        func withLock<T>(_ body: (inout Value) -> T) -> T {
            lock.lock()
            defer { lock.unlock() }
            return body(&value)
        }
    }

    @Test("Reads from four threads while the keys load and commits on the store's connection wait for it: no trap, no deadlock, no race; the reports replay to a fresh query")
    func readersAndCommitsWhileLoading() throws {
        let seed = testSeed(default: 0x5EED_0FF5)
        print("ProgressiveLoadEdgeTests.readersAndCommitsWhileLoading seed \(seed) (TESSERA_SEED to replay)")
        var generator = SplitMix64(seed: seed)
        let groups: [DatabaseValue] = ["a", "b", "c", .null, .integer(1), .real(2.5)]
        let (connection, _) = try Self.items((0..<3_000).map { _ in groups[Int.random(in: 0..<groups.count, using: &generator)] }, name: "readers.sqlite")
        // Pages are read by position while the load is held (an index on
        // the sort): without one, reads would wait for the held load.
        try connection.write { db in try db.execute("CREATE INDEX item_grp_rank ON item (grp, rank)") }
        var request = FetchRequest(table: "item", sortKeys: [SortKey("grp"), SortKey("rank", ascending: false)], sectionKey: "grp")
        let before = try Self.whole(request, on: connection)
        request.fetchBatchSize = 16
        let controller = try FetchedResultsController<AnyRow>(connection: connection, request: request)
        let log = ReportLog<AnyRow>()
        controller.delegate = log
        let gate = LoadGate()
        let results = Shared<[FetchedResult<AnyRow>]>([])
        let stop = Shared(false)
        let committing = Shared(false)
        let failures = Shared<[String]>([])
        let readersDone = DispatchGroup()
        try ProgressiveLoadTests.holdingLoads(of: connection.path, at: gate) {
            try controller.performFetch()
            #expect(controller.isLoading)
            results.withLock { $0.append(controller.result) }
            for reader in 0..<4 {
                readersDone.enter()
                Thread.detachNewThread {
                    var random = SplitMix64(seed: seed &+ UInt64(reader))
                    while !stop.withLock({ $0 }) {
                        let (result, isFirst) = results.withLock { ($0[Int.random(in: 0..<$0.count, using: &random)], !committing.withLock { $0 }) }
                        guard result.count > 0 else { continue }
                        let flat = Int.random(in: 0..<result.count, using: &random)
                        var section = 0
                        var item = flat
                        while item >= result.numberOfRecords(inSection: section) { item -= result.numberOfRecords(inSection: section); section += 1 }
                        do throws(ResultsError) {
                            let record = try result.record(at: IndexPath(item: item, section: section))
                            // Before any commit, the first result reads as
                            // before (after one, a state reads a changed
                            // record as it is now: documented).
                            if isFirst, record != before[IndexPath(item: item, section: section)] {
                                failures.withLock { $0.append("first result [\(section), \(item)]: \(record.id)") }
                            }
                        } catch .recordUnavailable {
                            // An older result's row deleted since (documented).
                        } catch {
                            failures.withLock { $0.append("\(error)") }
                        }
                    }
                    readersDone.leave()
                }
            }
            Thread.sleep(forTimeInterval: 0.05)
            gate.open(after: 0.05)
            var replayed = before
            var replayedReports = 0
            committing.withLock { $0 = true }
            for commit in 0..<6 {
                try connection.write { db in
                    for _ in 0..<3 {
                        let id = Int64.random(in: 0..<3_100, using: &generator)
                        switch Int.random(in: 0..<3, using: &generator) {
                        case 0: try db.execute("INSERT OR REPLACE INTO item VALUES (?, ?, ?)", [.integer(id), groups[Int.random(in: 0..<groups.count, using: &generator)], .integer(id)])
                        case 1: try db.execute("UPDATE item SET grp = ? WHERE id = ?", [groups[Int.random(in: 0..<groups.count, using: &generator)], .integer(id)])
                        default: try db.execute("DELETE FROM item WHERE id = ?", [.integer(id)])
                        }
                    }
                }
                results.withLock { $0.append(controller.result) }
                // The reports so far replay the previous fresh result to
                // this one.
                let now = try Self.whole(request, on: connection)
                for report in log.reports[replayedReports...] { replayed = try replayed.applying(report.changeset, takingValuesFrom: now) }
                replayedReports = log.reports.count
                #expect(Self.difference(replayed, now) == nil, "commit \(commit), seed \(seed)")
            }
        }
        Thread.sleep(forTimeInterval: 0.1)
        stop.withLock { $0 = true }
        // A limit against a hang (the deadlock this test looks for),
        // generous for a sanitizer build on a busy machine.
        #expect(readersDone.wait(timeout: .now() + 120) == .success, "readers deadlocked (not done within 120 s)")
        #expect(failures.withLock { $0 }.isEmpty, "seed \(seed): \(failures.withLock { $0 }.prefix(5))")
        #expect(Self.difference(controller.snapshot, try Self.whole(request, on: connection)) == nil, "seed \(seed)")
        #expect(log.errors.isEmpty)
    }

    /// A list whose controller lives on an actor of its own.
    actor Home {
        let controller: FetchedResultsController<AnyRow>
        let log = ReportLog<AnyRow>()

        init(connection: Connection, request: FetchRequest) throws {
            controller = try FetchedResultsController(connection: connection, request: request)
        }

        func open() throws -> (loading: Bool, count: Int) {
            controller.delegate = log
            try controller.performFetch()
            return (controller.isLoading, controller.result.count)
        }

        func waitUntilLoaded() async throws { try await controller.waitUntilLoaded() }

        func state() -> (snapshot: Snapshot<ResultSection, AnyRow>, changesets: [Changeset], errors: Int) {
            (controller.snapshot, log.reports.map(\.changeset), log.errors.count)
        }
    }

    @Test("An actor-homed controller: commits from other tasks while it loads are reported exactly, waitUntilLoaded returns")
    func actorHomeCommitsWhileLoading() async throws {
        let (connection, _) = try Self.items((0..<2_000).map { .text("g\($0 % 7)") }, name: "actor-home.sqlite")
        var request = FetchRequest(table: "item", sortKeys: [SortKey("grp"), SortKey("rank")], sectionKey: "grp")
        let before = try Self.whole(request, on: connection)
        request.fetchBatchSize = 32
        let home = try Home(connection: connection, request: request)
        let gate = LoadGate()
        KeyLoadTesting.beforeScan.withLock { $0[connection.path] = { gate.wait() } }
        defer {
            gate.open()
            KeyLoadTesting.beforeScan.withLock { $0[connection.path] = nil }
        }
        let opened = try await home.open()
        #expect(opened.loading)
        #expect(opened.count == 2_000)
        // Commits from elsewhere while it loads. The home takes the first
        // and waits for the load holding the store's connection, so the
        // later writes wait too: the gate opens by itself.
        gate.open(after: 0.1)
        var replayed = before
        for (commit, id) in [3, 500, 1_999].enumerated() {
            try await Task.detached { try connection.write { db in try db.execute("UPDATE item SET grp = 'moved' WHERE id = ?", [.integer(Int64(id))]) } }.value
            // Wait for its report, then replay it to a fresh result.
            try await waitInRounds(24_000, every: .milliseconds(5)) { await home.state().changesets.count > commit }
            let changesets = await home.state().changesets
            #expect(changesets.count == commit + 1, "commit \(commit): \(changesets.count) changesets after waiting up to 24,000 rounds of 5 ms for its report")
            let now = try Self.whole(request, on: connection)
            for changeset in changesets[commit...] { replayed = try replayed.applying(changeset, takingValuesFrom: now) }
            #expect(Self.difference(replayed, now) == nil, "commit \(commit)")
        }
        try await home.waitUntilLoaded()
        let state = await home.state()
        #expect(Self.difference(state.snapshot, try Self.whole(request, on: connection)) == nil)
        #expect(state.errors == 0)
    }

    @Test("setRequest and a second performFetch while the load is held, with commits between: reports replay exactly")
    func setRequestAndRefetchWhileLoading() throws {
        let (connection, path) = try Self.items((0..<300).map { .text("g\($0 % 4)") }, name: "set-request.sqlite")
        // Pages are read by position while the load is held (an index on
        // the sort): without one, reads would wait for the held load.
        try connection.write { db in try db.execute("CREATE INDEX item_grp_rank ON item (grp, rank)") }
        var request = FetchRequest(table: "item", sortKeys: [SortKey("grp"), SortKey("rank")], sectionKey: "grp")
        request.fetchBatchSize = 8
        var other = request
        other.predicate = "rank % 2 = 0"
        let controller = try FetchedResultsController<AnyRow>(connection: connection, request: request)
        let log = ReportLog<AnyRow>()
        controller.delegate = log
        let gate = LoadGate()
        var replayed = try Self.whole(request, on: connection)
        try ProgressiveLoadTests.holdingLoads(of: connection.path, at: gate) {
            try controller.performFetch()
            _ = controller.object(at: IndexPath(item: 5, section: 1))
            let writer = try Connection(path: path)
            try writer.write { db in try db.execute("UPDATE item SET grp = 'g0' WHERE id = 5") }
            // setRequest re-fetches and diffs against the loading result.
            gate.open(after: 0.05)
            try controller.setRequest(other)
            var now = try Self.whole(other, on: connection)
            for report in log.reports { replayed = try replayed.applying(report.changeset, takingValuesFrom: now) }
            #expect(Self.difference(replayed, now) == nil)
            #expect(Self.difference(controller.snapshot, now) == nil)
            let seen = log.reports.count
            try connection.write { db in try db.execute("DELETE FROM item WHERE id = 6") }
            now = try Self.whole(other, on: connection)
            for report in log.reports[seen...] { replayed = try replayed.applying(report.changeset, takingValuesFrom: now) }
            #expect(Self.difference(replayed, now) == nil)
            #expect(Self.difference(controller.snapshot, now) == nil)
        }
    }

    // MARK: Cost of a read by position

    @Test("A record deep in a section SQLite must sort to page (no index on the sort) waits for the keys instead of paging: it is read only once the load may end, and right")
    func deepPageWithoutIndexWaitsForTheKeys() throws {
        let path = try Self.makeFile("deep-offset.sqlite")
        let connection = try Connection(path: path)
        let rows = 20_000
        try connection.write { db in
            // rank: a permutation, no index: SQLite would sort for every page.
            try db.execute("CREATE TABLE item (id INTEGER PRIMARY KEY, grp, rank INTEGER)")
            try db.execute("INSERT INTO item SELECT value, 'g', (value * 7919) % \(rows) FROM (WITH RECURSIVE n(value) AS (SELECT 0 UNION ALL SELECT value + 1 FROM n WHERE value < \(rows - 1)) SELECT value FROM n)")
        }
        var request = FetchRequest(table: "item", sortKeys: [SortKey("rank")])
        let expected = try Self.whole(request, on: connection)
        request.fetchBatchSize = 64
        let controller = try FetchedResultsController<AnyRow>(connection: connection, request: request)
        let gate = LoadGate()
        let read = Shared<AnyRow?>(nil)
        let done = LoadGate()
        let result = try ProgressiveLoadTests.holdingLoads(of: connection.path, at: gate) { () throws -> FetchedResult<AnyRow> in
            try controller.performFetch()
            #expect(controller.isLoading)
            let result = controller.result
            Thread.detachNewThread {
                let record = try? result.record(at: IndexPath(item: rows - 1, section: 0))
                read.withLock { $0 = record }
                done.open()
            }
            // Was: a page read that sorted every row while the load waited.
            Thread.sleep(forTimeInterval: 0.1)
            #expect(read.withLock { $0 } == nil, "read while the load was held")
            gate.open()
            done.wait()
            return result
        }
        #expect(read.withLock { $0 } == expected[IndexPath(item: rows - 1, section: 0)])
        #expect(try result.record(at: IndexPath(item: 0, section: 0)) == expected[IndexPath(item: 0, section: 0)])
    }
}
