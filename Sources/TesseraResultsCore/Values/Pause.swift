import Dispatch

/// Suspends a task for a while without needing a thread of Swift
/// concurrency's global executor to wake it.
///
/// `Task.sleep` wakes a task through the global executor's cooperative
/// pool, even a task that runs on an actor's executor or prefers a task
/// executor of its own: while every thread of that pool is busy (CPU-bound
/// work, or work that blocks), the sleeper stays asleep past its time, for
/// as long as the pool stays busy. `Pause.sleep(for:)` arms a timer on a
/// dispatch queue of its own (served by dispatch's overcommitting threads,
/// never by the cooperative pool) and resumes the task from there, in the
/// caller's isolation: the task goes on where it ran, on its actor (the
/// main actor, or one with an executor of its own), on its preferred task
/// executor, or on the pool if that is where it ran.
package enum Pause {
    /// The queue the timers fire on: serial, so it never takes more than
    /// one thread, and each timer only resumes a task.
    fileprivate static let timers = DispatchQueue(label: "tessera.pause.timers")

    /// Suspends the current task for at least `duration`, and goes on in
    /// `isolation` (the caller's, by default) when it ends.
    ///
    /// Throws `CancellationError`, at once, when the task is cancelled
    /// before or during the pause, as `Task.sleep` does; the timer is
    /// cancelled with it, so a long pause cancelled early keeps nothing
    /// alive. A duration of zero or less still suspends until the timer
    /// queue has run once.
    package static func sleep(for duration: Duration, isolation: isolated (any Actor)? = #isolation) async throws {
        try Task.checkCancellation()
        let sleeper = Sleeper()
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                if !sleeper.arm(continuation, after: interval(duration)) {
                    continuation.resume(throwing: CancellationError())
                }
            }
        } onCancel: {
            sleeper.wake(throwing: CancellationError())
        }
    }

    /// `duration` in whole nanoseconds, 0 when negative, clamped at a
    /// century.
    private static func interval(_ duration: Duration) -> DispatchTimeInterval {
        let (seconds, attoseconds) = duration.components
        guard seconds >= 0, attoseconds >= 0 else { return .nanoseconds(0) }
        let century: Int64 = 100 * 365 * 86_400
        if seconds >= century { return .seconds(Int(century)) }
        return .nanoseconds(Int(seconds * 1_000_000_000 + attoseconds / 1_000_000_000))
    }
}

/// One pause's continuation and timer: the continuation is resumed once,
/// by the timer or by the task's cancellation, whichever comes first, and
/// the timer is cancelled then (which lets go of its handler).
private final class Sleeper: Sendable {
    private enum State {
        case waiting
        case armed(CheckedContinuation<Void, any Error>, any DispatchSourceTimer)
        case cancelled
        case ended
    }

    private let state = PThreadMutex(State.waiting)

    /// Keeps the continuation and starts a timer that wakes it after
    /// `interval`; false when the task was cancelled first (the caller
    /// then resumes the continuation).
    func arm(_ continuation: CheckedContinuation<Void, any Error>, after interval: DispatchTimeInterval) -> Bool {
        let timer = DispatchSource.makeTimerSource(queue: Pause.timers)
        timer.setEventHandler { [self] in wake(throwing: nil) }
        timer.schedule(deadline: .now() + interval)
        let armed = state.withLock { state in
            guard case .waiting = state else { return false }
            state = .armed(continuation, timer)
            return true
        }
        // A timer is activated in any case (dispatch refuses to free one
        // that never was); a cancellation may have come in between.
        timer.activate()
        if !armed { timer.cancel() }
        return armed
    }

    /// Resumes the continuation if nothing did yet, with `error` if one is
    /// given, and cancels the timer; a cancellation before the
    /// continuation is armed is kept for ``arm(_:after:)``.
    func wake(throwing error: (any Error)?) {
        let armed = state.withLock { state -> (CheckedContinuation<Void, any Error>, any DispatchSourceTimer)? in
            switch state {
            case let .armed(continuation, timer):
                state = .ended
                return (continuation, timer)
            case .waiting:
                if error != nil { state = .cancelled }
                return nil
            case .cancelled, .ended:
                return nil
            }
        }
        guard let (continuation, timer) = armed else { return }
        timer.cancel()
        if let error { continuation.resume(throwing: error) } else { continuation.resume() }
    }
}
