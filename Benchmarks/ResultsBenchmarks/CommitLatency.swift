// Latency from a commit to its delivered report, on the 1,000,000-row
// fixture sectioned by album and sorted by date: Tessera patching the result
// row by row, Tessera re-fetching and diffing, and the peer pipeline (GRDB's
// ValueObservation re-fetching the rows, then swift-collections'
// OrderedSet.difference on their ids). Four changes: (a) one row updated so
// that it moves, (b) one row inserted, (c) one row deleted, (d) one
// transaction updating 1,000 rows.
//
// The clock starts when the commit has completed: an observer registered
// before the pipeline notes the time in its did-commit callback (Tessera's
// and GRDB's observers are called in registration order), and stops when
// the pipeline has its report (Tessera: the delegate's did-change; the peer:
// the difference computed in the observation's onChange).

import Benchmark
import Foundation
import GRDB
import OrderedCollections
import Synchronization
import TesseraResults
import TesseraSQLite

/// A copy of the fixture that benchmarks may write to.
func writableFixture(_ name: String) -> String {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("tessera-results-1m-\(name).sqlite").path
    for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
    do {
        let source = try Connection(path: fixturePath)
        try source.withDatabase { db throws(SQLiteError) in try db.execute("VACUUM INTO '\(path)'") }
    } catch {
        fatalError("could not copy the fixture to \(path): \(error)")
    }
    return path
}

/// The changes measured, as SQL run in one transaction; `n` makes each
/// iteration's change different.
enum Change: String, CaseIterable {
    case move = "(a) 1 row moves"
    case insert = "(b) 1 row inserted"
    case delete = "(c) 1 row deleted"
    case thousand = "(d) 1,000 rows updated"

    /// Each `n` touches rows no other `n` touches: moves and the
    /// 1,000-row updates take ids up to 800,000, deletes ids above 900,000,
    /// inserts new ids.
    func statements(_ n: Int) -> [String] {
        let id = 1 + (n &* 7919) % 799_000
        switch self {
        case .move: return ["UPDATE photo SET date = \((n &* 104_729) % 1_048_576) WHERE id = \(id)"]
        case .insert: return ["INSERT INTO photo VALUES (\(2_000_000 + n), 'New \(n)', 'Album \(n % 1024)', \((n &* 104_729) % 1_048_576), 0)"]
        case .delete: return ["DELETE FROM photo WHERE id = \(900_001 + n)"]
        case .thousand: return ["UPDATE photo SET date = (date + 1 + \(n)) % 1048576 WHERE id BETWEEN \(id) AND \(id + 999)"]
        }
    }
}

/// Commit and report times, in nanoseconds of the monotonic clock.
final class Stopwatch: @unchecked Sendable {
    private let lock = NSLock()
    private var committed: UInt64 = 0
    private var reported: UInt64 = 0
    let done = DispatchSemaphore(value: 0)

    func commit() { lock.withLock { committed = DispatchTime.now().uptimeNanoseconds } }
    func report() {
        lock.withLock { reported = DispatchTime.now().uptimeNanoseconds }
        done.signal()
    }
    /// Microseconds from the commit to the report.
    var microseconds: Int { lock.withLock { Int((reported &- committed) / 1_000) } }
}

/// Notes the commit time before the controller hears of it.
final class TesseraCommitProbe: TesseraSQLite.TransactionObserver {
    let stopwatch: Stopwatch
    let observedTables: Set<String> = ["photo"]
    init(_ stopwatch: Stopwatch) { self.stopwatch = stopwatch }
    func database(_ database: TesseraSQLite.Database, willChange change: TesseraSQLite.Database.PreUpdate) {}
    func databaseDidCommit(_ database: TesseraSQLite.Database) { stopwatch.commit() }
    func databaseDidRollback(_ database: TesseraSQLite.Database) {}
}

final class TesseraReportProbe: FetchedResultsControllerDelegate {
    let stopwatch: Stopwatch
    var reports = 0
    init(_ stopwatch: Stopwatch) { self.stopwatch = stopwatch }
    func controller(_ controller: FetchedResultsController<Photo>, didChangeContentWith report: ChangeReport<Photo>) {
        reports += 1
        stopwatch.report()
    }
}

final class GRDBCommitProbe: GRDB.TransactionObserver {
    let stopwatch: Stopwatch
    init(_ stopwatch: Stopwatch) { self.stopwatch = stopwatch }
    func observes(eventsOfKind eventKind: DatabaseEventKind) -> Bool { true }
    func databaseDidChange(with event: DatabaseEvent) {}
    func databaseDidCommit(_ db: GRDB.Database) { stopwatch.commit() }
    func databaseDidRollback(_ db: GRDB.Database) {}
}


/// A controller of the fixture's photos by album then date, in sections by
/// album, fetched, with a delegate that stops `stopwatch` at each report.
func fetchedPhotos(
    on connection: Connection, stopwatch: Stopwatch, incremental: Bool
) throws -> (FetchedResultsController<Photo>, TesseraReportProbe) {
    let request = FetchRequest(table: "photo", sortKeys: [SortKey("album"), SortKey("date")], sectionKey: "album")
    let controller = try FetchedResultsController<Photo>(connection: connection, request: request)
    controller.isIncremental = incremental
    let delegate = TesseraReportProbe(stopwatch)
    controller.delegate = delegate
    try controller.performFetch()
    precondition(controller.supportsIncrementalUpdates)
    return (controller, delegate)
}

/// A controller on its own copy of the fixture, kept for every sample of
/// every benchmark that uses it (made on first use).
final class TesseraPipeline: @unchecked Sendable {
    let connection: Connection
    let controller: FetchedResultsController<Photo>
    let delegate: TesseraReportProbe
    let probe: TesseraCommitProbe
    let stopwatch = Stopwatch()
    var n = 0

    init(incremental: Bool) throws {
        connection = try Connection(path: writableFixture(incremental ? "patching" : "refetching"))
        probe = TesseraCommitProbe(stopwatch)
        connection.withDatabase { [probe] db in db.add(transactionObserver: probe) }
        (controller, delegate) = try fetchedPhotos(on: connection, stopwatch: stopwatch, incremental: incremental)
    }

    /// Commits one change and returns the microseconds to its report.
    func measure(_ change: Change) throws -> Int {
        n += 1
        let before = delegate.reports
        try connection.write { db in for sql in change.statements(n) { try db.execute(sql) } }
        precondition(delegate.reports == before + 1, "no report for \(change)")
        precondition(controller.lastUpdateMethod == (controller.isIncremental ? .incremental : .refetch))
        return stopwatch.microseconds
    }
}

/// GRDB's ValueObservation on its own copy of the fixture.
final class PeerPipeline: @unchecked Sendable {
    let queue: DatabaseQueue
    let stopwatch = Stopwatch()
    let cancellable: AnyDatabaseCancellable
    var n = 0

    init() throws {
        queue = try DatabaseQueue(path: writableFixture("peer"))
        let stopwatch = stopwatch
        queue.add(transactionObserver: GRDBCommitProbe(stopwatch), extent: .databaseLifetime)
        let previous = Mutex<OrderedSet<Int64>?>(nil)
        let observation = ValueObservation.tracking { db in try GRDBPhoto.fetchAll(db, sql: orderedSQL) }
        cancellable = observation.start(in: queue, scheduling: .async(onQueue: DispatchQueue(label: "peer"))) { error in
            fatalError("observation failed: \(error)")
        } onChange: { photos in
            let ids = OrderedSet(photos.lazy.map(\.id))
            let old = previous.withLock { old in
                defer { old = ids }
                return old
            }
            if let old { blackHole(ids.difference(from: old)) }
            stopwatch.report()
        }
        stopwatch.done.wait()   // the first value
    }

    func measure(_ change: Change) throws -> Int {
        n += 1
        try queue.write { db in for sql in change.statements(n) { try db.execute(sql: sql) } }
        stopwatch.done.wait()
        return stopwatch.microseconds
    }
}

/// A controller that another connection's commits reach (as another
/// process's would: through `PRAGMA data_version`), on its own copy of the
/// fixture, with or without a change log on the table. The clock starts
/// when the other connection's commit has returned and stops at the report
/// of the check that finds it; the polling interval is not counted.
final class ExternalPipeline: @unchecked Sendable {
    let connection: Connection
    let writer: Connection
    let controller: FetchedResultsController<Photo>
    let delegate: TesseraReportProbe
    let stopwatch = Stopwatch()
    let changeLog: Bool
    var n = 0

    init(changeLog: Bool) throws {
        let path = writableFixture(changeLog ? "external-log" : "external")
        connection = try Connection(path: path)
        writer = try Connection(path: path)
        self.changeLog = changeLog
        if changeLog { try writer.installChangeLog(on: "photo", columns: ["album", "date"]) }
        (controller, delegate) = try fetchedPhotos(on: connection, stopwatch: stopwatch, incremental: true)
    }

    func measure(_ change: Change) throws -> Int {
        n += 1
        let before = delegate.reports
        try writer.write { db in for sql in change.statements(n) { try db.execute(sql) } }
        stopwatch.commit()
        let found = try controller.checkForExternalChanges()
        precondition(found, "the commit was not found")
        precondition(delegate.reports == before + 1, "no report for \(change)")
        precondition(controller.lastUpdateMethod == (changeLog ? .incremental : .refetch))
        return stopwatch.microseconds
    }
}

nonisolated(unsafe) var externalPipelines: [Bool: ExternalPipeline] = [:]

func externalPipeline(changeLog: Bool) throws -> ExternalPipeline {
    if let pipeline = externalPipelines[changeLog] { return pipeline }
    let pipeline = try ExternalPipeline(changeLog: changeLog)
    externalPipelines[changeLog] = pipeline
    return pipeline
}

nonisolated(unsafe) var tesseraPipelines: [Bool: TesseraPipeline] = [:]
nonisolated(unsafe) var peerPipeline: PeerPipeline?

func tesseraPipeline(incremental: Bool) throws -> TesseraPipeline {
    if let pipeline = tesseraPipelines[incremental] { return pipeline }
    let pipeline = try TesseraPipeline(incremental: incremental)
    tesseraPipelines[incremental] = pipeline
    return pipeline
}

func peer() throws -> PeerPipeline {
    if let peerPipeline { return peerPipeline }
    let pipeline = try PeerPipeline()
    peerPipeline = pipeline
    return pipeline
}

let latency = BenchmarkMetric.custom("commit to report (µs)", polarity: .prefersSmaller, useScalingFactor: false)

func registerCommitLatencyBenchmarks() {
    let fast = Benchmark.Configuration(metrics: [latency], warmupIterations: 3, maxDuration: .seconds(5), maxIterations: 200)
    let slow = Benchmark.Configuration(metrics: [latency], warmupIterations: 0, maxDuration: .seconds(30), maxIterations: 5)

    for incremental in [true, false] {
        for change in Change.allCases {
            let name = "Commit latency 1M: Tessera \(incremental ? "patching" : "re-fetch + diff") \(change.rawValue)"
            Benchmark(name, configuration: incremental ? fast : slow) { benchmark in
                let pipeline = try tesseraPipeline(incremental: incremental)
                benchmark.measurement(latency, try pipeline.measure(change))
            }
        }
    }

    for change in Change.allCases {
        Benchmark("Commit latency 1M: GRDB ValueObservation + OrderedSet.difference (the peer) \(change.rawValue)", configuration: slow) { benchmark in
            benchmark.measurement(latency, try peer().measure(change))
        }
    }

    for changeLog in [true, false] {
        for change in Change.allCases {
            let name = "Commit latency 1M, another connection's commit: Tessera \(changeLog ? "with the change log (patching)" : "without it (re-fetch + diff)") \(change.rawValue)"
            Benchmark(name, configuration: changeLog ? fast : slow) { benchmark in
                benchmark.measurement(latency, try externalPipeline(changeLog: changeLog).measure(change))
            }
        }
    }

    let bytes = BenchmarkMetric.custom("kept sort values (bytes per row)", polarity: .prefersSmaller, useScalingFactor: false)
    Benchmark("TesseraResults 1M rows: memory of the kept sort values", configuration: .init(metrics: [bytes], maxIterations: 1)) { benchmark in
        let controller = try tesseraPipeline(incremental: true).controller
        benchmark.measurement(bytes, controller.keptSortValueByteCount / controller.result.count)
    }
}
