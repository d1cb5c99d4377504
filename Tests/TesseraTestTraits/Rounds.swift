import Foundation

// A test that waits for a condition (a controller to settle, a delegate to
// hear something, a server to answer) bounds its wait by a count of rounds
// of its loop, never by a clock. On a busy machine (two cores, other
// processes beside the tests, long synchronous tests holding the
// cooperative pool) a clock runs out while the work it waits for never got
// the CPU, and the test fails with nothing wrong. A round-bounded loop only
// advances when it runs itself, so its bound scales with the CPU the
// process gets. Clock limits are for hang guards only: a guard around a
// child process or a whole piece of work, whose clock starts with the work
// it guards.

/// Checks `done` until it holds, at most `rounds` times more after the
/// first check, pausing `pause` between checks; returns whether it held.
///
/// Bounded by a count of rounds, never by a clock (see CONTRIBUTING.md, on
/// waits): a round lasts at least `pause`, and more when the machine is
/// busy, so `rounds` × `pause` is the least time the wait allows, not the
/// most. Choose the bound from the time the work needs on an idle machine
/// (12,000 rounds of 10 ms for two minutes) and say in a failure message
/// how many rounds ran.
///
/// Sleeps its thread between rounds: call it only from a test on a thread
/// of its own (a synchronous test of an `.ownThreads` suite, or a thread a
/// test made), never from async code on the cooperative pool; there, use
/// the async ``waitInRounds(isolation:_:every:until:)``. Its label says it
/// sleeps, and it is unavailable from async code, so that a synchronous
/// closure in async code never picks it over the async one.
///
/// - Complexity: At most `rounds + 1` calls of `done`.
@available(*, noasync, message: "it sleeps its thread: use the async waitInRounds(_:every:until:)")
@discardableResult
public func waitInRounds(_ rounds: Int, sleepingEvery pause: Duration, until done: () throws -> Bool) rethrows -> Bool {
    if try done() { return true }
    let micros = microseconds(pause)
    for _ in 0..<max(0, rounds) {
        usleep(micros)
        if try done() { return true }
    }
    return false
}

/// Checks `done` until it holds, at most `rounds` times more after the
/// first check, suspending `pause` between checks; returns whether it held.
///
/// Bounded by a count of rounds, never by a clock (see CONTRIBUTING.md, on
/// waits): a round lasts at least `pause`, and more when the cooperative
/// pool is busy (neither the awaited work nor this loop runs then), so
/// `rounds` × `pause` is the least time the wait allows, not the most.
/// Choose the bound from the time the work needs on an idle machine
/// (12,000 rounds of 10 ms for two minutes) and say in a failure message
/// how many rounds ran. Never blocks a thread: it suspends with
/// `Task.sleep(for:)`, and throws `CancellationError` when the task is
/// cancelled.
///
/// - Complexity: At most `rounds + 1` calls of `done`.
@discardableResult
public func waitInRounds(
    isolation: isolated (any Actor)? = #isolation,
    _ rounds: Int,
    every pause: Duration,
    until done: () async throws -> Bool
) async throws -> Bool {
    if try await done() { return true }
    for _ in 0..<max(0, rounds) {
        try await Task.sleep(for: pause)
        if try await done() { return true }
    }
    return false
}

/// `pause` in whole microseconds for `usleep`, at least one.
private func microseconds(_ pause: Duration) -> useconds_t {
    let (seconds, attoseconds) = pause.components
    let micros = seconds * 1_000_000 + attoseconds / 1_000_000_000_000
    return useconds_t(clamping: max(1, micros))
}
