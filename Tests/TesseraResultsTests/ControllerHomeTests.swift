import Foundation
import Synchronization
import Testing
import TesseraTestTraits
import TesseraDiff
import TesseraResults
import TesseraSQLite
import TesseraTestSupport

// Single-store (SQLite), for the same reason as IsolationTests.

// Controllers that live in the isolation that fetched them (their home):
// a home held weakly, a fetch from elsewhere that fails, a delegate that
// fetches again inside the home's job, a nonisolated helper's re-fetch, and
// a randomized oracle over commits from several isolations.

/// The `item(id, grp, rank)` database the isolation tests share.
enum ItemDatabase {
    static let request = FetchRequest(table: "item", sortKeys: [SortKey("grp"), SortKey("rank")], sectionKey: "grp")

    static func make(rows: Int = 50) throws -> Connection {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("tessera-items-\(UUID().uuidString).sqlite").path
        let connection = try Connection(path: file)
        try connection.write { db in
            try db.execute("CREATE TABLE item (id INTEGER PRIMARY KEY, grp INTEGER NOT NULL, rank INTEGER NOT NULL)")
            try db.execute("WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n WHERE x < \(rows)) INSERT INTO item SELECT x, x % 7, x * 13 % 101 FROM n")
        }
        return connection
    }

    static func fresh(_ connection: Connection) throws -> Snapshot<ResultSection, IsolatedItem> {
        let controller = try FetchedResultsController<IsolatedItem>(connection: connection, request: request)
        try controller.performFetch()
        return controller.snapshot
    }

    /// Waits until `done` holds, for `rounds` rounds of at least 5 ms
    /// (60,000 by default, five minutes at the least: under a sanitizer,
    /// with every core busy, a home actor may wait long for a thread);
    /// bounded in rounds, never by a clock (``waitInRounds(isolation:_:every:until:)``).
    static func eventually(isolation: isolated (any Actor)? = #isolation, rounds: Int = 60_000, _ done: () async throws -> Bool) async throws -> Bool {
        try await waitInRounds(rounds, every: .milliseconds(5), until: done)
    }
}

/// Fetches from no actor (a nonisolated synchronous function: `#isolation`
/// is nil here), whatever isolation calls it.
func fetchFromNoActor(_ controller: FetchedResultsController<IsolatedItem>) -> ResultsError? {
    do { try controller.performFetch(); return nil } catch { return error }
}

// MARK: An actor that owns its controller is never released

/// The documentation's pattern (TheStoreSeam.md, `PhotoLibrary`): an actor
/// that owns a controller and fetches it in an actor method.
actor OwningHome {
    let controller: FetchedResultsController<IsolatedItem>
    init(connection: Connection) throws {
        controller = try FetchedResultsController<IsolatedItem>(connection: connection, request: ItemDatabase.request)
    }
    func start() throws { try controller.performFetch() }
}

actor OwningSetHome {
    let controller: FetchedSetController<IsolatedItem>
    init(connection: Connection) {
        controller = FetchedSetController<IsolatedItem>(connection: connection, request: SetRequest(table: "item"))
    }
    func start() throws { try controller.performFetch() }
}

// MARK: A delegate that fetches again from a report the home actor's job delivers

/// Fetches again (from its nonisolated callback: no actor) on its first report.
final class RefetchingDelegate: FetchedResultsControllerDelegate {
    typealias Record = IsolatedItem
    let fetched = Atomic<Bool>(false)
    func controller(_ controller: FetchedResultsController<IsolatedItem>, didChangeContentWith report: ChangeReport<IsolatedItem>) {
        guard !fetched.load(ordering: .relaxed) else { return }
        _ = try? controller.performFetch()
        fetched.store(true, ordering: .relaxed)
    }
}

actor RefetchingHome {
    let controller: FetchedResultsController<IsolatedItem>
    let delegate = RefetchingDelegate()
    init(connection: Connection) throws {
        controller = try FetchedResultsController<IsolatedItem>(connection: connection, request: ItemDatabase.request)
        controller.delegate = delegate
    }
    func start() throws { try controller.performFetch() }
    var fetched: Bool { delegate.fetched.load(ordering: .relaxed) }
}

@Suite("Isolation: homes held weakly, moved safely, kept by calls from no actor, and an oracle over commits from everywhere", .tags(.oracle))
struct ControllerHomeTests {
    @Test("An actor that owns its controller is released once nothing else holds it")
    func actorHomeIsReleased() async throws {
        let connection = try ItemDatabase.make()
        weak var unfetched: OwningHome?
        weak var fetched: OwningHome?
        weak var fetchedSet: OwningSetHome?
        do {
            let a = try OwningHome(connection: connection)
            unfetched = a
            let b = try OwningHome(connection: connection)
            try await b.start()
            fetched = b
            let c = OwningSetHome(connection: connection)
            try await c.start()
            fetchedSet = c
        }
        #expect(unfetched == nil, "baseline: an actor whose controller never fetched is released")
        #expect(fetched == nil, "actor → controller → CommitDelivery.home → actor: a cycle")
        #expect(fetchedSet == nil, "same for a set controller")
    }

    @Test("A fetch from another isolation that fails leaves the controller following commits from elsewhere")
    @MainActor
    func failedFetchElsewhereKeepsDelivery() async throws {
        let connection = try ItemDatabase.make()
        let controller = try FetchedResultsController<IsolatedItem>(connection: connection, request: ItemDatabase.request)
        try controller.performFetch()   // home: the main actor
        // A fetch from no actor, in a cancelled task: it throws, and the
        // controller "keeps the result it had" (and, one expects, its home).
        let failure = await Task { @MainActor in
            withUnsafeCurrentTask { $0?.cancel() }
            return fetchFromNoActor(controller)
        }.value
        #expect(failure == .cancelled)
        // Even fetching again at home does not help.
        try controller.performFetch()
        try await Task.detached {
            try connection.write { db in try db.execute("UPDATE item SET rank = 1000 WHERE id = 1") }
        }.value
        let expected = try ItemDatabase.fresh(connection)
        #expect(try await ItemDatabase.eventually { controller.snapshot == expected }, "a commit from a detached task never reaches the controller")
    }

    @Test("A delegate that fetches again (from no actor) inside a report the home actor's job delivers does not crash")
    func refetchFromDelegateInsideJob() async {
        await #expect(processExitsWith: .success) {
            let connection = try ItemDatabase.make()
            let home = try RefetchingHome(connection: connection)
            try await home.start()
            try await Task.detached {
                try connection.write { db in try db.execute("UPDATE item SET rank = 1000 WHERE id = 1") }
            }.value
            guard try await ItemDatabase.eventually({ await home.fetched }) else { exit(3) }
        }
    }
}


// MARK: Randomized cross-isolation oracle (a check: passes when delivery is right)

/// `IsolatedItem`, but a row whose rank is 666 fails to decode.
struct PickyItem: FetchableRecord, Hashable {
    var id: Int64
    var group: Int64
    var rank: Int64
    struct Refused: Error {}

    init(row: Row) throws {
        id = row["id"].int64 ?? -1
        group = row["grp"].int64 ?? -1
        rank = row["rank"].int64 ?? -1
        if rank == 666 { throw Refused() }
    }
}

/// Logs reports; writes from inside a report while it owes writes.
final class PickyListLog: FetchedResultsControllerDelegate {
    typealias Record = PickyItem
    var reports: [ChangeReport<PickyItem>] = []
    var failures = 0
    var owedWrites: [String] = []
    func controller(_ controller: FetchedResultsController<PickyItem>, didChangeContentWith report: ChangeReport<PickyItem>) {
        reports.append(report)
        if !owedWrites.isEmpty {
            let sql = owedWrites.removeFirst()
            try? controller.connection.write { db in try db.execute(sql) }
        }
    }
    func controller(_ controller: FetchedResultsController<PickyItem>, didFailWith error: ResultsError) { failures += 1 }
}

final class PickySetLog: FetchedSetControllerDelegate {
    typealias Record = IsolatedItem
    var reports: [SetChangeReport<IsolatedItem>] = []
    func controller(_ controller: FetchedSetController<IsolatedItem>, didChangeContentWith report: SetChangeReport<IsolatedItem>) { reports.append(report) }
}

actor PickyOracleHome {
    let connection: Connection
    let list: FetchedResultsController<PickyItem>
    let set: FetchedSetController<IsolatedItem>
    let relational: RelationalResultsController<IsolatedItem, IsolatedItem>
    let listLog = PickyListLog()
    let setLog = PickySetLog()
    var relationalReports: [SnapshotReport<IsolatedItem, IsolatedItem>] = []
    var initialList = Snapshot<ResultSection, PickyItem>()
    var initialSet: [Int64: IsolatedItem] = [:]
    var initialRelational = Snapshot<IsolatedItem, IsolatedItem>()
    var relationalTask: Task<Void, Never>?

    init(connection: Connection) throws {
        self.connection = connection
        list = try FetchedResultsController<PickyItem>(connection: connection, request: ItemDatabase.request)
        set = FetchedSetController<IsolatedItem>(connection: connection, request: SetRequest(table: "item", predicate: "grp = 3"))
        relational = RelationalResultsController<IsolatedItem, IsolatedItem>(
            connection: connection,
            parents: ParentRequest(table: "item", predicate: "id <= 5"),
            children: ChildRequest(table: "item", foreignKeyColumn: "grp", sortKeys: [SortKey("rank")])
        )
        list.delegate = listLog
        set.delegate = setLog
    }

    func start(threshold: Double, setLimit: Int?) throws {
        list.incrementalThreshold = threshold
        set.incrementalLimit = setLimit
        try list.performFetch()
        try set.performFetch()
        try relational.performFetch()
        initialList = list.snapshot
        initialSet = Dictionary(uniqueKeysWithValues: set.records.map { ($0.id, $0) })
        initialRelational = relational.snapshot
    }

    func write(_ statements: [String]) throws {
        try connection.write { db in for sql in statements { try db.execute(sql) } }
    }
    func block(milliseconds: UInt32) { usleep(milliseconds * 1000) }
    func refresh() throws { try list.refresh(); try set.refresh(); try relational.refresh() }
    func setRequest(descending: Bool) throws {
        try list.setRequest(FetchRequest(table: "item", sortKeys: [SortKey("grp"), SortKey("rank", ascending: !descending)], sectionKey: "grp"))
    }
    func owe(_ sql: String) { listLog.owedWrites.append(sql) }

    /// Problems: each controller against a fresh query, and the replay of its reports.
    func check() throws -> [String] {
        var problems: [String] = []
        let fresh = try FetchedResultsController<PickyItem>(connection: connection, request: list.request)
        try fresh.performFetch()
        if list.snapshot != fresh.snapshot { problems.append("list != fresh query") }
        if let error = list.lastError { problems.append("list.lastError \(error)") }
        var replayed = initialList
        for (n, report) in listLog.reports.enumerated() {
            if report.oldSnapshot != replayed { problems.append("list report \(n) does not start where the previous ended"); break }
            replayed = try replayed.applying(report.changeset, takingValuesFrom: report.newSnapshot)
        }
        if replayed != list.snapshot { problems.append("list replay != list") }

        let freshSet = FetchedSetController<IsolatedItem>(connection: connection, request: set.request)
        try freshSet.performFetch()
        let setNow = Dictionary(uniqueKeysWithValues: set.records.map { ($0.id, $0) })
        if setNow != Dictionary(uniqueKeysWithValues: freshSet.records.map { ($0.id, $0) }) { problems.append("set != fresh query") }
        var setReplay = initialSet
        for report in setLog.reports {
            if report.oldCount != setReplay.count { problems.append("set report oldCount \(report.oldCount) != \(setReplay.count)") }
            for r in report.deleted { if setReplay.removeValue(forKey: r.id) == nil { problems.append("set deleted \(r.id) it did not have") } }
            for r in report.inserted { if setReplay.updateValue(r, forKey: r.id) != nil { problems.append("set inserted \(r.id) twice") } }
            for r in report.updated { if setReplay.updateValue(r, forKey: r.id) == nil { problems.append("set updated \(r.id) it did not have") } }
        }
        if setReplay != setNow { problems.append("set replay != set") }

        let freshRelational = RelationalResultsController<IsolatedItem, IsolatedItem>(connection: connection, parents: relational.parentRequest, children: relational.childRequest)
        try freshRelational.performFetch()
        if relational.snapshot != freshRelational.snapshot { problems.append("relational != fresh query") }
        return problems
    }
    var reportCount: Int { listLog.reports.count }
}

extension ControllerHomeTests {
    /// A random transaction of 1...4 statements over ids 1...80.
    static func randomTransaction(_ g: inout SplitMix64, step: Int) -> [String] {
        (0..<Int.random(in: 1...4, using: &g)).map { k in
            let id = Int64.random(in: 1...80, using: &g)
            let grp = Int.random(in: 0..<9, using: &g)
            let rank = Int.random(in: 0..<101, using: &g)
            switch Int.random(in: 0..<9, using: &g) {
            case 0: return "UPDATE item SET rank = \(rank) WHERE id = \(id)"
            case 1: return "UPDATE item SET grp = \(grp) WHERE id = \(id)"
            case 2: return "INSERT OR REPLACE INTO item VALUES (\(id), \(grp), \(rank))"
            case 3: return "DELETE FROM item WHERE id = \(id)"
            case 4: return "UPDATE OR REPLACE item SET id = \(Int64.random(in: 1...80, using: &g)) WHERE id = \(id)"
            case 5: return "DELETE FROM item WHERE id = \(id); INSERT INTO item VALUES (\(id), \(grp), \(rank))"
            case 6: return "INSERT OR IGNORE INTO item VALUES (\(id + 1000), \(grp), \(rank)); DELETE FROM item WHERE id = \(id + 1000)"
            case 7: return "UPDATE item SET rank = (rank + \(k + step)) % 101 WHERE grp = \(grp)"
            default: return "UPDATE item SET grp = (grp + 1) % 9, rank = \(rank) WHERE id IN (\(id), \(id / 2 + 1))"
            }
        }
    }

    @Test("Oracle: commits from detached tasks, from home, while home is busy, refreshes, setRequest, delegate writes, decode failures", arguments: [0.1, 1.0])
    func crossIsolationOracle(threshold: Double) async throws {
        let seed = testSeed(default: 0x5EA1)
        var g = SplitMix64(seed: seed)
        let connection = try ItemDatabase.make(rows: 60)
        // Two homes on one connection: each one's commits are another isolation's for the other.
        let homes = [try PickyOracleHome(connection: connection), try PickyOracleHome(connection: connection)]
        for home in homes { try await home.start(threshold: threshold, setLimit: Bool.random(using: &g) ? 2 : nil) }
        for step in 0..<150 {
            let home = homes[Int.random(in: 0..<2, using: &g)]
            let tx = Self.randomTransaction(&g, step: step)
            switch Int.random(in: 0..<10, using: &g) {
            case 0...3:
                try await Task.detached { try connection.write { db in for sql in tx { try db.execute(sql) } } }.value
            case 4, 5:
                try await home.write(tx)
            case 6:
                // Busy home: several detached commits wait and merge.
                let busy = Task { await home.block(milliseconds: 30) }
                try await Task.sleep(for: .milliseconds(5))
                var more: [[String]] = [tx]
                for _ in 0..<Int.random(in: 1...5, using: &g) { more.append(Self.randomTransaction(&g, step: step)) }
                let batches = more
                try await Task.detached { for t in batches { try connection.write { db in for sql in t { try db.execute(sql) } } } }.value
                if Bool.random(using: &g) { try await home.write(Self.randomTransaction(&g, step: step)) }
                await busy.value
            case 7:
                // Waiting commits, then a refresh at home before the job runs.
                let busy = Task { await home.block(milliseconds: 20) }
                try await Task.sleep(for: .milliseconds(5))
                try await Task.detached { try connection.write { db in for sql in tx { try db.execute(sql) } } }.value
                await busy.value
                try await home.refresh()
            case 8:
                try await home.setRequest(descending: Bool.random(using: &g))
                try await Task.detached { try connection.write { db in for sql in tx { try db.execute(sql) } } }.value
            default:
                // A row that fails to decode for a while, and a delegate that writes.
                let id = Int64.random(in: 1...80, using: &g)
                try await Task.detached { try connection.write { db in try db.execute("UPDATE item SET rank = 666 WHERE id = \(id)") } }.value
                await home.owe("UPDATE item SET rank = 7 WHERE rank = 666")
                try await Task.detached { try connection.write { db in try db.execute("UPDATE item SET rank = 8 WHERE rank = 666") } }.value
            }
        }
        try await Task.detached { try connection.write { db in try db.execute("UPDATE item SET rank = 9 WHERE rank = 666") } }.value
        var problems: [String] = []
        _ = try await ItemDatabase.eventually {
            problems = try await homes[0].check() + homes[1].check()
            return problems.isEmpty
        }
        #expect(problems.isEmpty, "seed \(seed): \(problems)")
    }
}


// MARK: A fetch from a nonisolated helper must not move the controller's home to "no actor"

/// Notes whether each report ran on the writer's thread. (Under `swift test`
/// on Linux the main actor does not run on the main thread, so
/// `Thread.isMainThread` cannot tell.)
final class ThreadNotes: Sendable {
    let writerThread = PThreadMutex<pthread_t?>(nil)
    let onWriterThread = Atomic<Int>(0)
    let reports = Atomic<Int>(0)
}

final class ThreadLog: FetchedResultsControllerDelegate {
    typealias Record = IsolatedItem
    let notes: ThreadNotes
    init(_ notes: ThreadNotes) { self.notes = notes }
    func controller(_ controller: FetchedResultsController<IsolatedItem>, didChangeContentWith report: ChangeReport<IsolatedItem>) {
        if let writer = notes.writerThread.withLock({ $0 }), pthread_equal(writer, pthread_self()) != 0 { notes.onWriterThread.add(1, ordering: .relaxed) }
        notes.reports.add(1, ordering: .relaxed)
    }
}

extension ControllerHomeTests {
    @Test("A main-actor controller re-fetched through a nonisolated helper still reports on the main actor")
    @MainActor
    func nonisolatedHelperKeepsHome() async throws {
        let connection = try ItemDatabase.make()
        let controller = try FetchedResultsController<IsolatedItem>(connection: connection, request: ItemDatabase.request)
        let notes = ThreadNotes()
        let log = ThreadLog(notes)
        controller.delegate = log
        try controller.performFetch()                       // home: the main actor
        #expect(fetchFromNoActor(controller) == nil)   // e.g. a `func reload(_:)` helper; runs on main
        try await Task.detached {
            notes.writerThread.withLock { $0 = pthread_self() }
            try connection.write { db in try db.execute("UPDATE item SET rank = 1000 WHERE id = 1") }
        }.value
        #expect(try await ItemDatabase.eventually { notes.reports.load(ordering: .relaxed) > 0 })
        #expect(notes.onWriterThread.load(ordering: .relaxed) == 0, "the controller (a main-actor object) was patched and reported on the writer's thread")
    }
}
