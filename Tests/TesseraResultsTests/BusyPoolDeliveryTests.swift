import Foundation
import Synchronization
import Testing
import TesseraDiff
import TesseraResults
import TesseraSQLite
import TesseraTestTraits

// Single-store (SQLite): a commit from another thread waits for the
// controller's home actor, and the job that hands it over must not wait
// for Swift's cooperative pool.

/// Keeps every thread of the cooperative pool busy until ``release()``:
/// the state of an app whose pool runs CPU-bound work. The blockers spin
/// rather than wait: dispatch on Linux gives the pool another thread when
/// one of its threads sleeps, never when one runs.
private final class PoolBlocker: Sendable {
    let width = ProcessInfo.processInfo.activeProcessorCount
    private let started = Atomic<Int>(0)
    private let released = Atomic<Bool>(false)

    /// How many blockers there are: one per thread of the pool at the
    /// priority a task started outside any task gets (dispatch keeps other
    /// threads for other priorities).
    var blockers: Int { width }

    init() {
        for _ in 0..<width {
            Task.detached { [self] in
                started.add(1, ordering: .sequentiallyConsistent)
                while !released.load(ordering: .sequentiallyConsistent) {}
            }
        }
    }

    /// Whether every blocker holds its thread, waiting (on this thread,
    /// which is not the pool's) for at most `rounds` rounds of 5 ms.
    ///
    /// Either way, from the blockers' start on no job enqueued on the pool
    /// at their priority runs until ``release()``: those waiting to start
    /// are ahead of it in the queue (other tests hold the threads), and
    /// once started they spin.
    func waitUntilBlocking(rounds: Int) -> Bool {
        for _ in 0..<rounds where started.load(ordering: .sequentiallyConsistent) < blockers { usleep(5_000) }
        return started.load(ordering: .sequentiallyConsistent) == blockers
    }

    /// Lets the busy threads go.
    func release() {
        released.store(true, ordering: .sequentiallyConsistent)
    }
}

/// Counts a controller's reports where any thread can read the count.
private final class CountingLog: FetchedResultsControllerDelegate, Sendable {
    typealias Record = IsolatedItem
    let reports = Atomic<Int>(0)

    func controller(_ controller: FetchedResultsController<IsolatedItem>, didChangeContentWith report: ChangeReport<IsolatedItem>) {
        reports.add(1, ordering: .sequentiallyConsistent)
    }
}

/// A controller and its log, made and used where they live.
private final class Follower {
    let controller: FetchedResultsController<IsolatedItem>
    let log = CountingLog()

    init(_ connection: Connection) throws {
        controller = try FetchedResultsController<IsolatedItem>(connection: connection, request: ItemDatabase.request)
    }

    /// Fetches from the caller's isolation, which becomes the
    /// controller's home.
    func start(isolation: isolated (any Actor)? = #isolation) throws {
        controller.delegate = log
        try controller.performFetch(isolation: isolation)
    }
}

/// Where a controller lives.
private protocol PoolTestHome: Sendable {
    var log: CountingLog { get }
    func snapshot() async -> Snapshot<ResultSection, IsolatedItem>
}

extension PoolTestHome {
    /// The reports so far, read from any thread.
    var reports: Int { log.reports.load(ordering: .sequentiallyConsistent) }
}

/// A controller on the main actor.
@MainActor
private final class MainActorHome: PoolTestHome {
    let follower: Follower
    nonisolated let log: CountingLog

    init(connection: Connection) throws {
        follower = try Follower(connection)
        log = follower.log
        try follower.start()
    }

    func snapshot() -> Snapshot<ResultSection, IsolatedItem> { follower.controller.snapshot }
}

/// A controller on an actor whose jobs run on a thread of its own.
private actor ThreadHome: PoolTestHome {
    let executor: ThreadExecutor
    let follower: Follower
    let log: CountingLog

    nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

    init(connection: Connection, executor: ThreadExecutor) throws {
        self.executor = executor
        follower = try Follower(connection)
        log = follower.log
    }

    func start() throws { try follower.start() }
    func snapshot() -> Snapshot<ResultSection, IsolatedItem> { follower.controller.snapshot }
}

/// A controller on a default actor (whose jobs run wherever the task that
/// calls it prefers, the cooperative pool when it prefers nothing).
private actor DefaultHome: PoolTestHome {
    let follower: Follower
    let log: CountingLog

    init(connection: Connection) throws {
        follower = try Follower(connection)
        log = follower.log
    }

    func start() throws { try follower.start() }
    func snapshot() -> Snapshot<ResultSection, IsolatedItem> { follower.controller.snapshot }
}

@Suite("Delivery while the cooperative pool is busy: a commit from another thread reaches a free home actor", .ownThreads, .serialized, .startsEarly)
struct BusyPoolDeliveryTests {
    enum Home: String, CaseIterable, CustomTestStringConvertible {
        case mainActor, threadExecutor, defaultActor
        var testDescription: String { rawValue }
    }

    /// Runs `body` on a new thread, outside any task, and waits for it.
    static func onAThreadOfItsOwn(_ body: @escaping @Sendable () throws -> Void) throws {
        let done = DispatchSemaphore(value: 0)
        let failure = PThreadMutex<(any Error)?>(nil)
        Thread.detachNewThread {
            do { try body() } catch { failure.withLock { $0 = error } }
            done.signal()
        }
        done.wait()
        if let error = failure.withLock({ $0 }) { throw error }
    }

    // One case at a time: each keeps the whole pool busy.
    @Test("Every thread of the cooperative pool busy: another thread's commit still reaches a controller on the main actor, on an actor with its own executor, and on a default actor; once the pool is free it equals a fresh query", arguments: Home.allCases)
    func deliveredWhileThePoolIsBusy(home kind: Home) async throws {
        let connection = try ItemDatabase.make()
        let executor = ThreadExecutor()
        defer { executor.stop() }
        let home: any PoolTestHome
        switch kind {
        case .mainActor:
            home = try await MainActor.run { try MainActorHome(connection: connection) }
        case .threadExecutor:
            let actor = try ThreadHome(connection: connection, executor: executor)
            try await actor.start()
            home = actor
        case .defaultActor:
            let actor = try DefaultHome(connection: connection)
            try await actor.start()
            home = actor
        }

        let blocker = PoolBlocker()
        defer { blocker.release() }
        // Other tests may hold the pool's threads: the pool is then busy
        // all the same, and the blockers not yet started wait ahead of
        // any job enqueued after them.
        let blocking = blocker.waitUntilBlocking(rounds: 2_000)
        // From a thread of its own, outside any task (as a store's change
        // feed commits): the commit waits for the home.
        try Self.onAThreadOfItsOwn { try connection.write { db in try db.execute("UPDATE item SET rank = 1000 WHERE id = 1") } }
        // A limit against a hang only, counted in rounds: 12,000 of 5 ms.
        var rounds = 0
        while home.reports == 0 && rounds < 12_000 {
            rounds += 1
            usleep(5_000)
        }
        let heard = home.reports
        blocker.release()
        #expect(heard == 1, "with every thread of the pool busy (\(blocking ? "all blockers running" : "some blockers still waiting for a thread")), the \(kind) home heard \(heard) reports of 1 commit in \(rounds) rounds")
        #expect(await home.snapshot() == (try ItemDatabase.fresh(connection)), "the \(kind) home differs from a fresh query")
    }
}
