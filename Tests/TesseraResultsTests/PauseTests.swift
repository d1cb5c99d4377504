import Foundation
import Testing
import TesseraResultsCore
import TesseraTestTraits

/// ``Pause``: a pause whose wake-up needs no thread of the cooperative
/// pool, which lasts at least its duration, goes on in its caller's
/// isolation, and ends at once when its task is cancelled.
@Suite("Pause: a sleep whose wake-up needs no thread of the cooperative pool", .ownThreads)
struct PauseTests {
    /// What a paused task did, read from any thread.
    final class Outcome: Sendable {
        private struct State {
            var started = false
            var result: Result<Duration, any Error>?
        }

        private let state = PThreadMutex(State())

        func start() { state.withLock { $0.started = true } }
        func set(_ result: Result<Duration, any Error>) { state.withLock { $0.result = result } }
        var started: Bool { state.withLock { $0.started } }
        var value: Result<Duration, any Error>? { state.withLock { $0.result } }

        /// Whether the pause ended with `CancellationError`.
        var wasCancelled: Bool {
            if case let .failure(error)? = value { return error is CancellationError }
            return false
        }
    }

    /// Starts a task on the own-threads executor that pauses for
    /// `duration` (with `Pause`, or with `Task.sleep` as a control) and
    /// records how long its pause took, or its error.
    static func pausing(for duration: Duration, withTaskSleep: Bool = false, cancelled: Bool = false) -> (Task<Void, Never>, Outcome) {
        let outcome = Outcome()
        let task = Task(executorPreference: OwnThreadsExecutor.shared) {
            if cancelled { withUnsafeCurrentTask { $0?.cancel() } }
            outcome.start()
            let start = ContinuousClock.now
            do {
                if withTaskSleep { try await Task.sleep(for: duration) } else { try await Pause.sleep(for: duration) }
                outcome.set(.success(ContinuousClock.now - start))
            } catch {
                outcome.set(.failure(error))
            }
        }
        return (task, outcome)
    }

    @Test("with every thread of the cooperative pool busy, a task on an executor of its own wakes from its pause, after at least the pause (Task.sleep's does not)")
    func wakesWhileThePoolIsBusy() throws {
        let blocker = PoolBlocker()
        defer { blocker.release() }
        let blocking = blocker.waitUntilBlocking(rounds: 2_000)
        let (_, control) = Self.pausing(for: .milliseconds(30), withTaskSleep: true)
        let (_, outcome) = Self.pausing(for: .milliseconds(30))
        // A limit against a hang only, counted in rounds.
        let woke = waitInRounds(4_000, sleepingEvery: .milliseconds(5)) { outcome.value != nil }
        let controlWoke = control.value != nil
        blocker.release()
        #expect(woke, "with every thread of the pool busy (\(blocking ? "all blockers running" : "some blockers still waiting for a thread")), the pause did not end")
        // With every blocker running, the control shows the pool was busy:
        // Task.sleep's wake-up waits for it.
        if blocking { #expect(!controlWoke, "Task.sleep woke while every thread of the pool was busy: the test proves nothing") }
        if case let .success(took)? = outcome.value {
            #expect(took >= .milliseconds(30), "the pause took \(took)")
        } else {
            Issue.record("the pause ended with \(String(describing: outcome.value))")
        }
        #expect(waitInRounds(12_000, sleepingEvery: .milliseconds(5)) { control.value != nil }, "the control never woke")
    }

    /// An actor whose jobs run on a thread of its own.
    actor OnItsOwnThread {
        let executor: ThreadExecutor
        nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

        init(executor: ThreadExecutor) { self.executor = executor }

        /// Pauses, then says whether it went on on its own executor.
        func pauseAndCheck() async throws -> Bool {
            try await Pause.sleep(for: .milliseconds(10))
            return executor.isCurrent
        }
    }

    @Test("with every thread of the cooperative pool busy, an actor with an executor of its own goes on, on that executor, after its pause")
    func actorGoesOnWhileThePoolIsBusy() throws {
        let executor = ThreadExecutor()
        defer { executor.stop() }
        let actor = OnItsOwnThread(executor: executor)
        let blocker = PoolBlocker()
        defer { blocker.release() }
        let blocking = blocker.waitUntilBlocking(rounds: 2_000)
        let outcome = PThreadMutex<Result<Bool, any Error>?>(nil)
        Task(executorPreference: OwnThreadsExecutor.shared) {
            do {
                let onItsExecutor = try await actor.pauseAndCheck()
                outcome.withLock { $0 = .success(onItsExecutor) }
            } catch {
                outcome.withLock { $0 = .failure(error) }
            }
        }
        let woke = waitInRounds(4_000, sleepingEvery: .milliseconds(5)) { outcome.withLock { $0 != nil } }
        blocker.release()
        #expect(woke, "with every thread of the pool busy (\(blocking ? "all blockers running" : "some blockers still waiting for a thread")), the actor's pause did not end")
        if woke { #expect(try outcome.withLock { try $0?.get() } == true, "the actor went on off its executor") }
    }

    @Test("a task cancelled while it pauses, or before, ends its pause at once with CancellationError", arguments: [false, true])
    func cancellationEndsThePause(beforeThePause: Bool) throws {
        let (task, outcome) = Self.pausing(for: .seconds(3_600), cancelled: beforeThePause)
        if !beforeThePause {
            #expect(waitInRounds(12_000, sleepingEvery: .milliseconds(5)) { outcome.started })
            task.cancel()
        }
        // A limit against a hang only: the pause lasts an hour.
        #expect(waitInRounds(12_000, sleepingEvery: .milliseconds(5)) { outcome.value != nil }, "the cancelled pause did not end")
        #expect(outcome.wasCancelled, "\(String(describing: outcome.value))")
    }

    @Test("a pause of zero or less ends at once", arguments: [Duration.zero, .seconds(-5), .nanoseconds(-1)])
    func pausesOfZeroOrLess(duration: Duration) throws {
        let (_, outcome) = Self.pausing(for: duration)
        #expect(waitInRounds(12_000, sleepingEvery: .milliseconds(5)) { outcome.value != nil }, "a pause of \(duration) did not end")
        if case let .failure(error)? = outcome.value { Issue.record("a pause of \(duration) threw \(error)") }
    }

    @Test("a pause of Int64.max seconds lasts until its task is cancelled, then ends with CancellationError")
    func endlessPause() throws {
        let (task, outcome) = Self.pausing(for: .seconds(Int64.max))
        #expect(waitInRounds(12_000, sleepingEvery: .milliseconds(5)) { outcome.started })
        _ = waitInRounds(4, sleepingEvery: .milliseconds(5)) { false }
        #expect(outcome.value == nil, "a pause of Int64.max seconds ended: \(String(describing: outcome.value))")
        task.cancel()
        #expect(waitInRounds(12_000, sleepingEvery: .milliseconds(5)) { outcome.value != nil }, "the cancelled endless pause did not end")
        #expect(outcome.wasCancelled, "\(String(describing: outcome.value))")
    }
}
