// Benchmarks of TesseraPostgres on the 1,000,000-row `photo` fixture
// (PostgresBenchmarkSupport/BenchServer.swift), sorted by album, rank, id and
// sectioned by album:
//
// - commit to report, one row: a writer session updates one random row's
//   rank (same album) in a transaction of its own; the clock runs from the
//   start of the UPDATE to the report arriving at a consumer of
//   `controller.reports` on the controller's home actor; with the store's
//   slot streamed (the default), and read in polls (over TLS);
// - the peer: the same commit, then the whole sorted SELECT over
//   postgres-nio into structs, a sectioned snapshot and TesseraDiff's
//   `diff(from:to:)` with the previous one, what a live-query server that
//   re-runs its query on each commit does (notified at once: no polling
//   delay is counted);
// - the initial fetch: a new store and `performFetch()`, next to the same
//   SELECT over postgres-nio into plain structs (the floor).
//
// The tool runs each benchmark in a process of its own; each process makes
// a database of its own (about 5 s for the fixture), on the server
// TESSERA_POSTGRES_URL names or on a private cluster it starts, and drops it
// (and stops the cluster) when its benchmark ends. The database commits with
// synchronous_commit on (see BenchServer.makeDatabase).

import Benchmark
import BenchmarkSupport
import Foundation
import PostgresBenchmarkSupport
import TesseraDiff
import TesseraPostgres
import TesseraResults


/// The database of this process, with the fixture.
nonisolated(unsafe) var databaseURL: String?

func makeFixture() async throws {
    let url = try await BenchServer.shared.makeDatabase("photo")
    try await PhotoFixture.load(url)
    databaseURL = url
}

func dropFixture() async throws {
    if let url = databaseURL { try await BenchServer.shared.dropDatabase(url) }
    databaseURL = nil
    BenchServer.shared.stop()
}

func fixtureURL() throws -> String {
    guard let databaseURL else { throw BenchError("no fixture database") }
    return databaseURL
}

/// A report's arrival at the consumer.
struct Arrival: Sendable {
    var time: UInt64
    var changeCount: Int
    var method: FetchedResultsController<Photo>.UpdateMethod?
}

/// Arrivals handed from the consumer to the benchmark, in order.
final class Mailbox: @unchecked Sendable {
    private let lock = NSLock()
    private var waiting: [Arrival] = []
    private var waiter: CheckedContinuation<Arrival, Never>?

    func put(_ arrival: Arrival) {
        let resume: CheckedContinuation<Arrival, Never>? = lock.withLock {
            if let waiter {
                self.waiter = nil
                return waiter
            }
            waiting.append(arrival)
            return nil
        }
        resume?.resume(returning: arrival)
    }

    /// The next arrival; stops the process when none comes in 10 s (a
    /// commit that is never reported is a failure, not a slow sample).
    func take(_ label: String) async -> Arrival {
        let taken = ManagedAtomicFlag()
        DispatchQueue.global().asyncAfter(deadline: .now() + 10) {
            if !taken.isSet { fatalError("no report within 10 s of \(label)") }
        }
        let arrival = await withCheckedContinuation { (continuation: CheckedContinuation<Arrival, Never>) in
            let ready: Arrival? = lock.withLock {
                if !waiting.isEmpty { return waiting.removeFirst() }
                waiter = continuation
                return nil
            }
            if let ready { continuation.resume(returning: ready) }
        }
        taken.set()
        return arrival
    }
}

final class ManagedAtomicFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var value = false
    var isSet: Bool { lock.withLock { value } }
    func set() { lock.withLock { value = true } }
}

/// The controller, at home on this actor, and a consumer of its reports
/// running on it.
actor Follower {
    let store: PostgresStore
    let mailbox = Mailbox()
    private var controller: FetchedResultsController<Photo>?
    private var consumer: Task<Void, Never>?

    init(url: String) throws {
        store = try PostgresStore(url: url, applicationName: "tessera-bench-follower")
    }

    func start() throws {
        let controller = try FetchedResultsController<Photo>(store: store, request: photoRequest)
        try controller.performFetch()
        guard controller.supportsIncrementalUpdates, controller.result.count == PhotoFixture.rowCount else {
            throw BenchError("the controller cannot patch, or read \(controller.result.count) rows")
        }
        self.controller = controller
        let reports = controller.reports
        consumer = Task {
            for await report in reports { self.arrived(report) }
        }
    }

    private func arrived(_ report: ChangeReport<Photo>) {
        mailbox.put(Arrival(time: monotonicNanoseconds(), changeCount: report.changeset.changeCount, method: controller?.lastUpdateMethod))
    }

    func stop() {
        consumer?.cancel()
        controller = nil
        store.close()
    }
}

/// Picks the rows the commits touch: a random row and a new rank, each
/// iteration different.
struct CommitPicker {
    var random = SplitMix64(seed: 0x7E55_E4A0)
    mutating func next() -> (id: Int64, rank: Int64) {
        (Int64(random.next() % UInt64(PhotoFixture.rowCount)) + 1, Int64(random.next() % 2_000_000_000) + 2_000_000)
    }
}

/// The Tessera side of the commit benchmark, made once per process.
final class TesseraCommitRun: @unchecked Sendable {
    let follower: Follower
    let writer: BenchConnection
    var picker = CommitPicker()
    var n = 0

    /// - Parameter polled: Whether the store reads its slot in polls
    ///   (`sslmode=prefer` asks for TLS, which the stream does not speak;
    ///   the loopback server has none, so the store connects in plain
    ///   text) rather than streamed.
    init(url: String, polled: Bool = false) async throws {
        var followed = url
        if polled, var components = URLComponents(string: url) {
            components.queryItems = (components.queryItems ?? []) + [URLQueryItem(name: "sslmode", value: "prefer")]
            followed = components.string ?? url
        }
        follower = try Follower(url: followed)
        try await follower.start()
        writer = try await BenchConnection.connect(url)
    }

    /// Commits one update and returns the microseconds from its start to
    /// its report.
    func measure() async throws -> Int {
        n += 1
        let (id, rank) = picker.next()
        let start = monotonicNanoseconds()
        try await writer.execute("UPDATE photo SET rank = \(rank) WHERE id = \(id)")
        let arrival = await follower.mailbox.take("commit \(n)")
        guard arrival.method == .incremental, arrival.changeCount >= 1 else {
            throw BenchError("commit \(n): a report of \(arrival.changeCount) changes made by \(String(describing: arrival.method))")
        }
        return Int((arrival.time &- start) / 1_000)
    }
}

struct Album: Identifiable, Equatable {
    var id: Int32
}

/// The sorted rows as a snapshot sectioned by album.
func snapshot(_ photos: [PlainPhoto]) -> Snapshot<Album, PlainPhoto> {
    var snapshot = Snapshot<Album, PlainPhoto>()
    var start = 0
    while start < photos.count {
        var end = start + 1
        while end < photos.count, photos[end].album == photos[start].album { end += 1 }
        snapshot.appendSection(Album(id: photos[start].album), items: photos[start ..< end])
        start = end
    }
    return snapshot
}

/// The peer: on each commit, the whole SELECT and a diff with the last
/// result.
final class PeerCommitRun: @unchecked Sendable {
    let reader: BenchConnection
    let writer: BenchConnection
    var previous: Snapshot<Album, PlainPhoto>
    var picker = CommitPicker()
    var n = 0

    init(url: String) async throws {
        reader = try await BenchConnection.connect(url)
        writer = try await BenchConnection.connect(url)
        previous = snapshot(try await reader.fetchPhotos())
    }

    func measure() async throws -> Int {
        n += 1
        let (id, rank) = picker.next()
        let start = monotonicNanoseconds()
        try await writer.execute("UPDATE photo SET rank = \(rank) WHERE id = \(id)")
        let next = snapshot(try await reader.fetchPhotos())
        let changes = try diff(from: previous, to: next)
        let end = monotonicNanoseconds()
        previous = next
        guard changes.changeCount >= 1, next.numberOfItems == PhotoFixture.rowCount else {
            throw BenchError("peer commit \(n): \(changes.changeCount) changes, \(next.numberOfItems) rows")
        }
        return Int((end &- start) / 1_000)
    }
}

nonisolated(unsafe) var tesseraRun: TesseraCommitRun?
nonisolated(unsafe) var peerRun: PeerCommitRun?

let commitToReport = BenchmarkMetric.custom("write start to report (µs)", polarity: .prefersSmaller, useScalingFactor: false)

let benchmarks: @Sendable () -> Void = {
    let fast = Benchmark.Configuration(metrics: [commitToReport], warmupIterations: 5, maxDuration: .seconds(10), maxIterations: 300)
    let slow = Benchmark.Configuration(metrics: [commitToReport], warmupIterations: 1, maxDuration: .seconds(30), maxIterations: 8)

    Benchmark(
        "PostgreSQL 1M: commit to report, one row (Tessera, controller on an actor)",
        configuration: fast,
        closure: { benchmark in
            guard let tesseraRun else { throw BenchError("no run") }
            benchmark.measurement(commitToReport, try await tesseraRun.measure())
        },
        setup: {
            try await makeFixture()
            tesseraRun = try await TesseraCommitRun(url: try fixtureURL())
        },
        teardown: {
            await tesseraRun?.follower.stop()
            await tesseraRun?.writer.close()
            tesseraRun = nil
            try await dropFixture()
        }
    )

    Benchmark(
        "PostgreSQL 1M: commit to report, one row (Tessera, slot read in polls, every 2 ms)",
        configuration: fast,
        closure: { benchmark in
            guard let tesseraRun else { throw BenchError("no run") }
            benchmark.measurement(commitToReport, try await tesseraRun.measure())
        },
        setup: {
            try await makeFixture()
            tesseraRun = try await TesseraCommitRun(url: try fixtureURL(), polled: true)
        },
        teardown: {
            await tesseraRun?.follower.stop()
            await tesseraRun?.writer.close()
            tesseraRun = nil
            try await dropFixture()
        }
    )

    Benchmark(
        "PostgreSQL 1M: commit to report, one row (re-fetch + TesseraDiff, the peer)",
        configuration: slow,
        closure: { benchmark in
            guard let peerRun else { throw BenchError("no run") }
            benchmark.measurement(commitToReport, try await peerRun.measure())
        },
        setup: {
            try await makeFixture()
            peerRun = try await PeerCommitRun(url: try fixtureURL())
        },
        teardown: {
            await peerRun?.reader.close()
            await peerRun?.writer.close()
            peerRun = nil
            try await dropFixture()
        }
    )

    let fetch = Benchmark.Configuration(
        metrics: [.wallClock, .peakMemoryResident],
        timeUnits: .milliseconds,
        warmupIterations: 1,
        maxDuration: .seconds(30),
        maxIterations: 6
    )

    Benchmark(
        "PostgreSQL 1M: performFetch (Tessera, a new store)",
        configuration: fetch,
        closure: { benchmark in
            let url = try fixtureURL()
            benchmark.startMeasurement()
            let store = try PostgresStore(url: url, applicationName: "tessera-bench-fetch")
            let controller = try FetchedResultsController<Photo>(store: store, request: photoRequest)
            try controller.performFetch()
            benchmark.stopMeasurement()
            guard controller.result.count == PhotoFixture.rowCount, controller.numberOfSections == PhotoFixture.albumCount else {
                throw BenchError("read \(controller.result.count) rows in \(controller.numberOfSections) sections")
            }
            store.close()
            blackHole(controller)
        },
        setup: { try await makeFixture() },
        teardown: { try await dropFixture() }
    )

    Benchmark(
        "PostgreSQL 1M: SELECT into plain structs over postgres-nio (the floor)",
        configuration: fetch,
        closure: { benchmark in
            let url = try fixtureURL()
            benchmark.startMeasurement()
            let connection = try await BenchConnection.connect(url)
            let photos = try await connection.fetchPhotos()
            benchmark.stopMeasurement()
            await connection.close()
            guard photos.count == PhotoFixture.rowCount else { throw BenchError("read \(photos.count) rows") }
            blackHole(photos)
        },
        setup: { try await makeFixture() },
        teardown: { try await dropFixture() }
    )
}
