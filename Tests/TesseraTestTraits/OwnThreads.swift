import Dispatch
import Foundation
import Testing

/// Runs each test of a suite on threads of its own, never on Swift
/// concurrency's cooperative pool, a few tests at a time.
///
/// Swift Testing runs every test function, synchronous ones included, on
/// the cooperative pool, which has one thread per core (two on a 2-core
/// machine). A test that blocks its thread (a child process it waits for,
/// a socket read synchronously, a browser driven over a pipe, a semaphore,
/// a sleep) holds one of those threads for as long as it waits; two such
/// tests at once leave nothing for the tests and servers that run on the
/// pool (an in-process server's hub, Hummingbird's handlers, actors), which
/// then wait, and their clients time out. Give the suite this trait:
///
/// ```swift
/// @Suite("The watch command", .ownThreads)
/// struct WatchTests { … }
/// ```
///
/// Each test then runs on a thread of dispatch's overcommitting pool (made
/// when every such thread is busy, so a blocked test never holds up
/// another's work), as do its child tasks (`async let`, task groups) and
/// the default actors it calls; an unstructured `Task { }` it starts runs
/// on the cooperative pool as usual. At most ``width`` such tests run at
/// once (two per core), the others waiting for a place without holding a
/// thread, so that blocking tests do not all start together on a busy
/// machine.
///
/// A test inside a suite that already has this trait or ``CPUBoundTrait``
/// takes one place, not two: the outer trait's (the suite's, or the first
/// listed).
public struct OwnThreadsTrait: SuiteTrait, TestTrait, TestScoping {
    /// How many tests with the trait run at once.
    public static let width = 2 * max(1, ProcessInfo.processInfo.activeProcessorCount)

    /// The places of running tests.
    private static let places = TestPlaces(width: width)

    /// The trait's name in the places log.
    private static let name = "ownThreads"

    /// Applies to each test of a suite, not to the suite as a whole (which
    /// would hold one place for the whole suite's run).
    public var isRecursive: Bool { true }

    public func scopeProvider(for test: Test, testCase: Test.Case?) -> Self? {
        testCase == nil ? nil : self
    }

    public func provideScope(for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void) async throws {
        try await runOffThePool(test, places: Self.places, named: Self.name, function)
    }
}

extension Trait where Self == OwnThreadsTrait {
    /// Runs each test on threads of its own, never on the cooperative pool:
    /// for tests that block their thread (see ``OwnThreadsTrait``).
    public static var ownThreads: Self { OwnThreadsTrait() }
}

/// Runs each test of a suite on a thread of its own, never on Swift
/// concurrency's cooperative pool, at most one per core at once: for
/// synchronous tests that compute for a long time (seeded oracles, rounds
/// of random edits, large layouts).
///
/// Swift Testing starts every test at once and runs each on the pool,
/// whose jobs run in the order they were queued. A synchronous test is one
/// job from its start to its end: the tests queued at the start hold the
/// pool's threads (one per core) one after the other, and a job queued
/// later (an in-process server's handler, a hub's poll, an async test's
/// next step) waits until all but the last few of them have ended, for
/// minutes on a slow machine, where the clients of that server give up. With this trait the suite's
/// tests wait for a place without holding a thread, and run on threads of
/// dispatch's overcommitting pool, so the cooperative pool is left to the
/// jobs that run a moment and return:
///
/// ```swift
/// @Suite("Incremental layout oracle", .cpuBound)
/// struct IncrementalLayoutOracleTests { … }
/// ```
///
/// At most ``width`` such tests run at once (one per core): they compute,
/// and more at once would only share the cores. A synchronous test that
/// blocks its thread (a lock another connection holds, a child process)
/// takes ``OwnThreadsTrait`` instead; one on the main actor runs on the
/// main thread and needs neither. A test inside a suite with this trait or
/// ``OwnThreadsTrait`` takes one place, not two: the outer trait's.
public struct CPUBoundTrait: SuiteTrait, TestTrait, TestScoping {
    /// How many tests with the trait run at once.
    public static let width = max(1, ProcessInfo.processInfo.activeProcessorCount)

    /// The places of running tests.
    private static let places = TestPlaces(width: width)

    /// The trait's name in the places log.
    private static let name = "cpuBound"

    /// Applies to each test of a suite, not to the suite as a whole.
    public var isRecursive: Bool { true }

    public func scopeProvider(for test: Test, testCase: Test.Case?) -> Self? {
        testCase == nil ? nil : self
    }

    public func provideScope(for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void) async throws {
        try await runOffThePool(test, places: Self.places, named: Self.name, function)
    }
}

extension Trait where Self == CPUBoundTrait {
    /// Runs each test on a thread of its own, one per core at once, never
    /// on the cooperative pool: for synchronous tests that compute for a
    /// long time (see ``CPUBoundTrait``).
    public static var cpuBound: Self { CPUBoundTrait() }
}

/// Whether the current task already runs inside a trait's place.
private enum OffThePool {
    @TaskLocal static var isInside = false
}

/// Takes one of `places`, then runs `function` on ``OwnThreadsExecutor``
/// (and gives the place back); a test already inside a place runs at once.
private func runOffThePool(_ test: Test, places: TestPlaces, named name: String, _ function: @Sendable () async throws -> Void) async throws {
    if OffThePool.isInside { return try await function() }
    let log = PlaceLog.shared
    PoolLagLog.start()
    let asked = ContinuousClock.now
    await places.enter(early: test.traits.contains { $0 is StartsEarlyTrait })
    let entered = ContinuousClock.now
    defer { log?.record(test: test, trait: name, asked: asked, entered: entered) }
    do {
        try await OffThePool.$isInside.withValue(true) {
            try await withTaskExecutorPreference(OwnThreadsExecutor.shared) { try await function() }
        }
    } catch {
        await places.leave()
        throw error
    }
    await places.leave()
}

/// A task executor that runs each job on a thread of dispatch's
/// overcommitting pool (each job on a serial queue of its own, which
/// dispatch serves with a new thread when the others are busy): a job that
/// blocks holds up no other job, and none runs on the cooperative pool.
public final class OwnThreadsExecutor: TaskExecutor {
    /// The one instance: it has no state of its own.
    public static let shared = OwnThreadsExecutor()

    private init() {}

    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        DispatchQueue(label: "tessera.tests.own-thread").async {
            job.runSynchronously(on: self.asUnownedTaskExecutor())
        }
    }
}

/// A counting semaphore awaited without blocking: `width` places, taken in
/// the order asked for, those asked for early (``StartsEarlyTrait``) first.
private actor TestPlaces {
    private let width: Int
    private var taken = 0
    private var waiting: [CheckedContinuation<Void, Never>] = []
    private var waitingEarly: [CheckedContinuation<Void, Never>] = []

    init(width: Int) {
        self.width = width
    }

    /// Takes a place, waiting (suspended) for one to be free; a test that
    /// starts `early` is given one before every test waiting without.
    func enter(early: Bool) async {
        if taken < width {
            taken += 1
            return
        }
        await withCheckedContinuation { continuation in
            if early { waitingEarly.append(continuation) } else { waiting.append(continuation) }
        }
    }

    /// Gives a place back, to the longest waiting early test if any, else
    /// to the longest waiting test.
    func leave() {
        if !waitingEarly.isEmpty {
            waitingEarly.removeFirst().resume()
        } else if !waiting.isEmpty {
            waiting.removeFirst().resume()
        } else {
            taken -= 1
        }
    }
}

/// Marks a test of an ``OwnThreadsTrait`` or ``CPUBoundTrait`` suite that
/// holds its place a long time (a minute or more on a 2-core machine): it
/// is given a free place before the tests waiting without the mark. On a
/// suite, it marks each of the suite's tests.
///
/// Every test asks for a place at the start of a run; given in the order
/// asked, a long oracle can wait minutes and then run alone at the end
/// while the other cores have nothing left to do. Started early, it runs
/// beside the short tests instead. A `.serialized` suite takes the mark
/// too: each of its tests asks only when the one before it has ended, and
/// at the back of the queue each time, a suite of 18 tests waited more
/// than nine minutes in all. (Swift Testing does not pass `.serialized`
/// on to a suite's tests' traits, so the places cannot see it.)
///
/// ```swift
/// @Test("3,000 random transactions …", .startsEarly)
/// func randomTransactions() throws { … }
/// ```
public struct StartsEarlyTrait: TestTrait, SuiteTrait {
    /// On a suite, marks each of its tests.
    public var isRecursive: Bool { true }
}

extension Trait where Self == StartsEarlyTrait {
    /// Gives the test a place before the tests without it (see
    /// ``StartsEarlyTrait``).
    public static var startsEarly: Self { StartsEarlyTrait() }
}

/// With `TESSERA_TEST_PLACES_LOG=FILE`, a line per test case that ran
/// with either trait, appended to FILE: seconds from the first test that
/// asked for a place to when this one asked, seconds it waited, seconds it
/// held its place (up to the place's return, which runs on the cooperative
/// pool), the trait (`ownThreads` or `cpuBound`) and the test's name. What it is for: finding the tests that hold places
/// longest, which set how long the suite takes on a slow machine (the
/// places are busy for most of a run).
private final class PlaceLog: Sendable {
    static let shared: PlaceLog? = ProcessInfo.processInfo.environment["TESSERA_TEST_PLACES_LOG"].flatMap(PlaceLog.init(path:))

    private let descriptor: Int32
    private let opened = ContinuousClock.now

    private init?(path: String) {
        descriptor = open(path, O_WRONLY | O_CREAT | O_APPEND, 0o644)
        if descriptor < 0 { return nil }
    }

    func record(test: Test, trait: String, asked: ContinuousClock.Instant, entered: ContinuousClock.Instant) {
        func seconds(_ duration: Duration) -> String {
            let (whole, fraction) = duration.components
            return "\(whole).\(String(fraction / 10_000_000_000_000_000 + 100).dropFirst())"
        }
        let line = "\(seconds(asked - opened)) \(seconds(entered - asked)) \(seconds(.now - entered)) \(trait) \(test.displayName ?? test.name)\n"
        _ = line.utf8CString.withUnsafeBufferPointer { write(descriptor, $0.baseAddress, $0.count - 1) }
    }
}

/// With `TESSERA_TEST_POOL_LAG_LOG=FILE`, from the first test with a
/// trait on, a thread of its own queues a job on the cooperative pool every
/// 0.2 s, at the priority of that test's task, and waits for it to run.
/// Each 10 s it appends to FILE the seconds since it started, the longest
/// wait of those 10 s and the mean; while one wait goes on past 10 s, a
/// line every 10 s says so (`waiting`), so that a run killed in a stall
/// still shows it. What it is for: seeing how long the pool's queue keeps
/// a job that is not a test (an in-process server's, a hub's) from
/// running, which is what a client's read gives up on.
private final class PoolLagLog: Sendable {
    private static let shared: PoolLagLog? = ProcessInfo.processInfo.environment["TESSERA_TEST_POOL_LAG_LOG"].flatMap(PoolLagLog.init(path:))

    private let descriptor: Int32

    /// Opens FILE and starts measuring at the priority of the calling
    /// task (the first test's: made on its thread, inside its task).
    private init?(path: String) {
        descriptor = open(path, O_WRONLY | O_CREAT | O_APPEND, 0o644)
        if descriptor < 0 { return nil }
        let priority = Task.currentPriority
        Thread.detachNewThread { [self] in measure(priority: priority) }
    }

    /// Starts the measuring thread, once.
    static func start() { _ = shared }

    private func measure(priority: TaskPriority) {
        let opened = ContinuousClock.now
        let ran = DispatchSemaphore(value: 0)
        let lag = LockedDuration()
        var longest = Duration.zero
        var total = Duration.zero
        var count = 0
        var reported = opened
        write("0 priority \(priority.rawValue)")
        while true {
            let queued = ContinuousClock.now
            Task.detached(priority: priority) {
                lag.set(.now - queued)
                ran.signal()
            }
            while ran.wait(timeout: .now() + 10) == .timedOut {
                write("\((ContinuousClock.now - opened).components.seconds) \(Self.seconds(.now - queued)) waiting")
            }
            let waited = lag.get()
            longest = max(longest, waited)
            total += waited
            count += 1
            if .now - reported >= .seconds(10) {
                write("\((ContinuousClock.now - opened).components.seconds) \(Self.seconds(longest)) \(Self.seconds(total / count))")
                (longest, total, count, reported) = (.zero, .zero, 0, .now)
            }
            Thread.sleep(forTimeInterval: 0.2)
        }
    }

    private func write(_ line: String) {
        _ = (line + "\n").utf8CString.withUnsafeBufferPointer { Glibc.write(descriptor, $0.baseAddress, $0.count - 1) }
    }

    private static func seconds(_ duration: Duration) -> String {
        String(Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18)
    }
}

/// A duration handed from the pool's job to the measuring thread.
private final class LockedDuration: @unchecked Sendable {
    private let lock = NSLock()
    private var value = Duration.zero

    func set(_ duration: Duration) {
        lock.lock()
        value = duration
        lock.unlock()
    }

    func get() -> Duration {
        lock.lock()
        defer { lock.unlock() }
        return value
    }
}
