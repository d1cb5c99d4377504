import Foundation
import Synchronization
import Testing
import TesseraDiff
import TesseraResults
import TesseraSQLite
import TesseraTestSupport
import TesseraTestTraits

// Single-store (SQLite): where reports are delivered depends on how a
// store's commits arrive, and these tests make them arrive from other
// threads through one SQLite connection shared across isolations.

/// A row of `item(id, grp, rank)`.
struct IsolatedItem: FetchableRecord, Hashable {
    var id: Int64
    var group: Int64
    var rank: Int64

    init(row: Row) throws {
        id = row["id"].int64 ?? -1
        group = row["grp"].int64 ?? -1
        rank = row["rank"].int64 ?? -1
    }
}

/// Records where each delegate callback ran, and the reports.
final class WhereLog: FetchedResultsControllerDelegate {
    typealias Record = IsolatedItem
    let isHome: () -> Bool
    var reports: [ChangeReport<IsolatedItem>] = []
    var callbacksAway = 0
    var callbacks = 0

    init(isHome: @escaping () -> Bool) { self.isHome = isHome }

    private func note() {
        callbacks += 1
        if !isHome() { callbacksAway += 1 }
    }

    func controllerWillChangeContent(_ controller: FetchedResultsController<IsolatedItem>) { note() }
    func controller(_ controller: FetchedResultsController<IsolatedItem>, didChangeRecordAt oldIndexPath: IndexPath?, for type: ResultsChangeType, newIndexPath: IndexPath?) { note() }
    func controller(_ controller: FetchedResultsController<IsolatedItem>, didChangeContentWith report: ChangeReport<IsolatedItem>) {
        note()
        reports.append(report)
    }
}

/// A list model on an actor of its own, whose jobs run on one thread.
actor ThreadBoundList {
    let executor: ThreadExecutor
    let controller: FetchedResultsController<IsolatedItem>
    let log: WhereLog
    var initial = Snapshot<ResultSection, IsolatedItem>()

    nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

    init(connection: Connection, request: FetchRequest, executor: ThreadExecutor) throws {
        self.executor = executor
        controller = try FetchedResultsController<IsolatedItem>(connection: connection, request: request)
        log = WhereLog(isHome: { executor.isCurrent })
        controller.delegate = log
    }

    /// Fetches: in an actor method, not in the (nonisolated) initializer,
    /// so that the actor is the controller's home.
    func start() throws {
        try controller.performFetch()
        initial = controller.snapshot
        #expect(executor.isCurrent)
    }

    var snapshot: Snapshot<ResultSection, IsolatedItem> { controller.snapshot }
    var reportCount: Int { log.reports.count }
    var callbacksAway: Int { log.callbacksAway }
    var callbacks: Int { log.callbacks }

    /// Replays every report from the first result: the last report's result.
    func replayed() throws -> Snapshot<ResultSection, IsolatedItem> {
        var replayed = initial
        for report in log.reports {
            #expect(report.oldSnapshot == replayed, "each report starts where the previous one ended")
            replayed = try replayed.applying(report.changeset, takingValuesFrom: report.newSnapshot)
        }
        return replayed
    }

    /// Whether ``block(until:)`` holds the actor's thread now.
    nonisolated let isBlocked = Atomic<Bool>(false)

    /// Keeps the actor busy (its thread blocked) until `gate` is signalled.
    func block(until gate: DispatchSemaphore) {
        isBlocked.store(true, ordering: .sequentiallyConsistent)
        gate.wait()
        isBlocked.store(false, ordering: .sequentiallyConsistent)
    }
}

@Suite("Isolation: a controller reports only in the isolation that fetched it")
struct IsolationTests {
    static let request = ItemDatabase.request

    static func makeDatabase() throws -> Connection { try ItemDatabase.make(rows: 200) }

    /// A fresh query's result.
    static func fresh(_ connection: Connection) throws -> Snapshot<ResultSection, IsolatedItem> { try ItemDatabase.fresh(connection) }

    /// Random single-row writes: moves within and across groups, inserts,
    /// deletes.
    static func write(_ connection: Connection, count: Int, seed: UInt64) throws {
        var generator = SplitMix64(seed: seed)
        for n in 0..<count {
            let id = Int64.random(in: 1...260, using: &generator)
            let sql: String
            switch Int.random(in: 0..<4, using: &generator) {
            case 0: sql = "UPDATE item SET rank = \(Int.random(in: 0..<101, using: &generator)) WHERE id = \(id)"
            case 1: sql = "UPDATE item SET grp = \(Int.random(in: 0..<9, using: &generator)) WHERE id = \(id)"
            case 2: sql = "INSERT OR REPLACE INTO item VALUES (\(id), \(Int.random(in: 0..<9, using: &generator)), \(n))"
            default: sql = "DELETE FROM item WHERE id = \(id)"
            }
            try connection.write { db in try db.execute(sql) }
        }
    }

    /// Waits until `done` holds (up to 5 minutes: under a sanitizer, with
    /// every core busy, the home actor may wait long for a thread).
    static func eventually(isolation: isolated (any Actor)? = #isolation, _ done: () async throws -> Bool) async throws -> Bool {
        try await ItemDatabase.eventually(done)
    }

    @Test("On the main actor: a commit made there is reported before the write returns")
    @MainActor
    func sameIsolationIsSynchronous() throws {
        let connection = try Self.makeDatabase()
        let controller = try FetchedResultsController<IsolatedItem>(connection: connection, request: Self.request)
        let log = WhereLog(isHome: { true })
        controller.delegate = log
        try controller.performFetch()
        try connection.write { db in try db.execute("UPDATE item SET rank = 1000 WHERE id = 1") }
        #expect(log.reports.count == 1, "reported before write returned")
        #expect(controller.snapshot == (try Self.fresh(connection)))
    }

    @Test("On the main actor: commits from detached tasks are reported there, and the reports replay to a fresh query")
    @MainActor
    func otherIsolationHopsToTheMainActor() async throws {
        let seed = testSeed(default: 0x150)
        let connection = try Self.makeDatabase()
        let controller = try FetchedResultsController<IsolatedItem>(connection: connection, request: Self.request)
        let log = WhereLog(isHome: { true })
        controller.delegate = log
        try controller.performFetch()
        let initial = controller.snapshot
        try await Task.detached {
            #expect(!Thread.isMainThread)
            try Self.write(connection, count: 60, seed: seed)
        }.value
        let expected = try Self.fresh(connection)
        #expect(try await Self.eventually { controller.snapshot == expected }, "seed \(seed)")
        #expect(log.callbacks > 0, "seed \(seed)")
        var replayed = initial
        for report in log.reports {
            #expect(report.oldSnapshot == replayed, "seed \(seed)")
            replayed = try replayed.applying(report.changeset, takingValuesFrom: report.newSnapshot)
        }
        #expect(replayed == expected, "seed \(seed)")
    }

    @Test("On an actor with a serial executor of its own: writes from elsewhere are reported on its thread and the reports replay to a fresh query")
    func serialExecutorActor() async throws {
        let seed = testSeed(default: 0x151)
        let connection = try Self.makeDatabase()
        let executor = ThreadExecutor()
        defer { executor.stop() }
        let list = try ThreadBoundList(connection: connection, request: Self.request, executor: executor)
        try await list.start()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for writer in 0..<2 {
                group.addTask { try Self.write(connection, count: 50, seed: seed &+ UInt64(writer)) }
            }
            try await group.waitForAll()
        }
        let expected = try Self.fresh(connection)
        #expect(try await Self.eventually { await list.snapshot == expected }, "seed \(seed)")
        let (away, callbacks) = await (list.callbacksAway, list.callbacks)
        #expect(away == 0 && callbacks > 0, "seed \(seed): every callback on the executor's thread")
        let replayed = try await list.replayed()
        #expect(replayed == expected, "seed \(seed)")
    }

    @Test("Commits made while the home actor is busy wait, and are reported together, exactly, when it is free")
    func busyHomeMergesWaitingCommits() async throws {
        let connection = try Self.makeDatabase()
        let executor = ThreadExecutor()
        defer { executor.stop() }
        let list = try ThreadBoundList(connection: connection, request: Self.request, executor: executor)
        try await list.start()
        let gate = DispatchSemaphore(value: 0)
        let busy = Task { await list.block(until: gate) }
        #expect(try await Self.eventually { list.isBlocked.load(ordering: .sequentiallyConsistent) })
        // The actor's thread is blocked: these commits cannot be taken now.
        try Self.write(connection, count: 20, seed: 7)
        gate.signal()
        await busy.value
        let expected = try Self.fresh(connection)
        #expect(try await Self.eventually { await list.snapshot == expected })
        let reportCount = await list.reportCount
        #expect(reportCount == 1, "twenty commits that waited make one report")
        let replayed = try await list.replayed()
        #expect(replayed == expected)
    }

    @Test("The set and relational controllers report on their home actor too")
    @MainActor
    func familyHopsToTheMainActor() async throws {
        let connection = try Self.makeDatabase()
        let set = FetchedSetController<IsolatedItem>(connection: connection, request: SetRequest(table: "item", predicate: "grp = 3"))
        try set.performFetch()
        let relational = RelationalResultsController<IsolatedItem, IsolatedItem>(
            connection: connection,
            parents: ParentRequest(table: "item", predicate: "id <= 5"),
            children: ChildRequest(table: "item", foreignKeyColumn: "grp", sortKeys: [SortKey("rank")])
        )
        try relational.performFetch()
        let setReports = set.reports
        let relationalReports = relational.reports
        try await Task.detached {
            try connection.write { db in try db.execute("UPDATE item SET grp = 3 WHERE id IN (1, 2)") }
        }.value
        var setIterator = setReports.makeAsyncIterator()
        let setReport = await setIterator.next()
        #expect(setReport?.inserted.map(\.id) == [1, 2])
        #expect(set.count == (try connection.read { db in try db.rows("SELECT count(*) FROM item WHERE grp = 3")[0][0].int64 }).map(Int.init))
        var relationalIterator = relationalReports.makeAsyncIterator()
        let relationalReport = await relationalIterator.next()
        #expect(relationalReport?.newSnapshot == relational.snapshot)
        #expect(relational.snapshot.numberOfItems(inSection: 2) == relational.snapshot.items(inSection: 2).count)
    }

    @Test("A controller is not a transaction observer: nothing outside can hand it a commit")
    func noPublicObserverEntryPoints() throws {
        let connection = try Self.makeDatabase()
        let controller = try FetchedResultsController<IsolatedItem>(connection: connection, request: Self.request)
        let set = FetchedSetController<IsolatedItem>(connection: connection, request: SetRequest(table: "item"))
        let relational = RelationalResultsController<IsolatedItem, IsolatedItem>(
            connection: connection, parents: ParentRequest(table: "item"), children: ChildRequest(table: "item", foreignKeyColumn: "grp")
        )
        #expect((controller as Any) as? any TransactionObserver == nil)
        #expect((set as Any) as? any TransactionObserver == nil)
        #expect((relational as Any) as? any TransactionObserver == nil)
    }
}
