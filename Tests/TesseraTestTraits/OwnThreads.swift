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
/// A test inside a suite that already has the trait takes one place, not
/// two.
public struct OwnThreadsTrait: SuiteTrait, TestTrait, TestScoping {
    /// How many tests with the trait run at once.
    public static let width = 2 * max(1, ProcessInfo.processInfo.activeProcessorCount)

    /// The places of running tests.
    private static let places = TestPlaces(width: width)

    /// Whether the current task already runs inside the trait's scope.
    @TaskLocal private static var isInside = false

    /// Applies to each test of a suite, not to the suite as a whole (which
    /// would hold one place for the whole suite's run).
    public var isRecursive: Bool { true }

    public func scopeProvider(for test: Test, testCase: Test.Case?) -> Self? {
        testCase == nil ? nil : self
    }

    public func provideScope(for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void) async throws {
        if Self.isInside { return try await function() }
        let log = PlaceLog.shared
        let asked = ContinuousClock.now
        await Self.places.enter()
        let entered = ContinuousClock.now
        defer { log?.record(test: test, asked: asked, entered: entered) }
        do {
            try await Self.$isInside.withValue(true) {
                try await withTaskExecutorPreference(OwnThreadsExecutor.shared) { try await function() }
            }
        } catch {
            await Self.places.leave()
            throw error
        }
        await Self.places.leave()
    }
}

extension Trait where Self == OwnThreadsTrait {
    /// Runs each test on threads of its own, never on the cooperative pool:
    /// for tests that block their thread (see ``OwnThreadsTrait``).
    public static var ownThreads: Self { OwnThreadsTrait() }
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
/// the order asked for.
private actor TestPlaces {
    private let width: Int
    private var taken = 0
    private var waiting: [CheckedContinuation<Void, Never>] = []

    init(width: Int) {
        self.width = width
    }

    /// Takes a place, waiting (suspended) for one to be free.
    func enter() async {
        if taken < width {
            taken += 1
            return
        }
        await withCheckedContinuation { waiting.append($0) }
    }

    /// Gives a place back, to the longest waiting if any.
    func leave() {
        if waiting.isEmpty {
            taken -= 1
        } else {
            waiting.removeFirst().resume()
        }
    }
}

/// With `TESSERA_TEST_PLACES_LOG=FILE`, a line per test case that ran
/// with the trait, appended to FILE: seconds from the first test that
/// asked for a place to when this one asked, seconds it waited, seconds it
/// held its place (up to the place's return, which runs on the cooperative
/// pool), and its name. What it is for: finding the tests that hold places
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

    func record(test: Test, asked: ContinuousClock.Instant, entered: ContinuousClock.Instant) {
        func seconds(_ duration: Duration) -> String {
            let (whole, fraction) = duration.components
            return "\(whole).\(String(fraction / 10_000_000_000_000_000 + 100).dropFirst())"
        }
        let line = "\(seconds(asked - opened)) \(seconds(entered - asked)) \(seconds(.now - entered)) \(test.displayName ?? test.name)\n"
        _ = line.utf8CString.withUnsafeBufferPointer { write(descriptor, $0.baseAddress, $0.count - 1) }
    }
}
