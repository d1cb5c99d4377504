import Synchronization

/// Where a controller's committed changes go: the isolation the controller
/// lives in (its *home*: the actor of the code that called
/// `performFetch()`, or none). One per controller, for its whole life.
///
/// A change source hands each transaction over at its commit:
/// - when the commit runs in the home isolation, the controller takes it
///   at once, before the write returns. The store proves it one of two
///   ways: the write was made by code isolated to the home actor (the
///   compiler's `#isolation`, which the connection's calls record), or the
///   home is the main actor and the commit runs on the main dispatch queue
///   (the main actor's executor; see ``_MainQueue``), which covers a
///   nonisolated helper called from main-actor code. The same holds when
///   the home is no actor at all;
/// - otherwise it waits here, merged with any that wait already, and the
///   home actor is asked to run a job that takes it: the controller is
///   never touched from another isolation. The job runs when the home
///   actor is next free (for code running on it: at its next suspension),
///   whether or not Swift's cooperative pool is (see
///   ``DeliveryExecutor``); `deliverWaitingChanges()` takes what waits at
///   once.
///
/// Sendable: its state is behind a mutex, and the controller is reached
/// only through ``_HomeBound``. The home actor is held weakly: an actor
/// that owns its controller is released when nothing else holds it.
package final class CommitDelivery: Sendable {
    private struct State: ~Copyable {
        /// Whether the home is an actor (`home` is then that actor while it
        /// lives).
        var hasHome = false
        weak var home: (any Actor)?
        /// Whether the home is the main actor and its jobs run on the main
        /// dispatch queue (checked on the home, when it is set).
        var homeRunsOnMainQueue = false
        /// Moves at every change of home: a job scheduled for an earlier
        /// home does nothing.
        var generation = 0
        var changes: CommittedChanges?
        var jobScheduled = false
    }

    private let state = PThreadMutex(State())
    private let receiver: _HomeBound
    private let limit = Atomic<Int>(.max)

    /// A delivery to `receiver`, which has no home until ``setHome(_:)``.
    package init(to receiver: any CommitReceiver) {
        self.receiver = _HomeBound(receiver)
    }

    /// The most rows one transaction may touch and still be followed row
    /// by row: past it, a change source stops noting rows and hands over
    /// ``CommittedChanges/refetch`` (the controller sets it from the size
    /// of its result).
    package var touchedLimit: Int {
        get { limit.load(ordering: .relaxed) }
        set { limit.store(newValue, ordering: .relaxed) }
    }

    /// Makes the caller's isolation the controller's home, when it is an
    /// actor. No actor (`nil`) never moves a home: code that reaches a
    /// controller with an actor home from no actor runs on that actor (the
    /// controller is not `Sendable`, so nothing else can reach it).
    ///
    /// A move waits for a job of the old home under way, and stops later
    /// ones; changes still waiting go to the new home.
    package func setHome(_ isolation: isolated (any Actor)?) {
        guard let isolation, !isHome(isolation) else { return }
        // Running on the main actor now, on the main queue: then every job
        // of the main actor does (a main executor of another kind is never
        // taken for it).
        let runsOnMainQueue = isolation === MainActor.shared && _MainQueue.isCurrent
        let schedule = receiver.withJobsStopped { () -> (generation: Int, home: any Actor)? in
            state.withLock { state in
                guard !(state.hasHome && state.home === isolation) else { return nil }
                state.hasHome = true
                state.home = isolation
                state.homeRunsOnMainQueue = runsOnMainQueue
                state.generation += 1
                guard state.changes != nil else {
                    state.jobScheduled = false
                    return nil
                }
                state.jobScheduled = true
                return (state.generation, isolation)
            }
        }
        if let schedule { scheduleJob(on: schedule.home, generation: schedule.generation) }
    }

    /// Whether `isolation` is the home actor.
    private func isHome(_ isolation: any Actor) -> Bool {
        state.withLock { $0.hasHome && $0.home === isolation }
    }

    /// Whether a commit made by code running in `isolations` (the
    /// isolations of the calls on the committing thread's stack, innermost
    /// last) can be taken at once: the thread runs the home actor (one of
    /// `isolations` is the home, or the home is the main actor and the
    /// thread runs the main queue), or the home is no actor.
    ///
    /// - Complexity: O(*d*) for *d* nested calls.
    package func canDeliverNow(runningIn isolations: [(any Actor)?]) -> Bool {
        state.withLock { state in
            guard state.hasHome else { return true }
            guard let home = state.home else { return false }
            if isolations.contains(where: { $0 === home }) { return true }
            return state.homeRunsOnMainQueue && _MainQueue.isCurrent
        }
    }

    /// Hands a commit's changes to the controller at once, with what waited
    /// before them. Only for a commit for which ``canDeliverNow(runningIn:)``
    /// holds, called by the change source on the committing thread.
    package func deliverNow(_ changes: CommittedChanges, from reader: any StoreReader) {
        var all = changes
        if var waiting = takeWaiting() {
            waiting.merge(changes)
            all = waiting
        }
        guard !all.isEmpty, let receiver = receiver.value else { return }
        receiver.receive(all, from: reader)
    }

    /// Keeps a commit's changes until the home actor takes them, and asks
    /// it to (once, however many wait).
    package func deliverLater(_ changes: CommittedChanges) {
        guard !changes.isEmpty else { return }
        let schedule = state.withLock { state -> (generation: Int, home: any Actor)? in
            if state.changes == nil {
                state.changes = changes
            } else {
                state.changes?.merge(changes)
            }
            // What waits stays bounded: past the rows a patch would take,
            // the controller fetches again anyway.
            if let waiting = state.changes, waiting.touched.count > touchedLimit { state.changes = .refetch }
            guard !state.jobScheduled, let home = state.home else { return nil }
            state.jobScheduled = true
            return (state.generation, home)
        }
        if let schedule { scheduleJob(on: schedule.home, generation: schedule.generation) }
    }

    /// Asks `home` to take what waits, through a job that starts on
    /// ``DeliveryExecutor``: neither the hop nor the take waits for the
    /// cooperative pool.
    private func scheduleJob(on home: any Actor, generation: Int) {
        let receiver = self.receiver
        Task(executorPreference: DeliveryExecutor.shared) { [weak self] in
            await receiver.takeWaitingChanges(on: home) { [weak self] in
                self?.state.withLock { $0.generation } == generation
            }
        }
    }

    /// The changes waiting, merged, which are then no longer waiting; `nil`
    /// when none wait. The controller calls it inside a read of the store,
    /// so that no commit comes between taking them and reading the rows
    /// they touched.
    package func takeWaiting() -> CommittedChanges? {
        state.withLock { state in
            state.jobScheduled = false
            defer { state.changes = nil }
            return state.changes
        }
    }

    /// Whether changes wait.
    package var hasWaiting: Bool {
        state.withLock { $0.changes != nil }
    }

    /// Keeps what waits as "re-fetch", to be taken with the next commit:
    /// the home could not take it (the store could not be read). No job is
    /// scheduled until then.
    package func deferAsRefetch() {
        state.withLock { state in
            if state.changes != nil { state.changes = .refetch }
            state.jobScheduled = false
        }
    }

    /// Drops the changes waiting: a fetch read everything they did.
    package func dropWaiting() {
        _ = takeWaiting()
    }
}

/// A weak reference to a controller, which is not Sendable, that crosses
/// isolations but is read only where the controller lives.
///
/// `@unchecked Sendable`, line by line:
/// - `controller` is written once, in `init`, and never again (a weak
///   reference's reads and its zeroing at deinit are atomic in the Swift
///   runtime).
/// - It is read in two places only. ``takeWaitingChanges(on:isCurrent:)``
///   runs on the home actor (its isolated parameter; ``CommitDelivery``
///   passes its home) and holds `jobs`' lock, and reads nothing unless the
///   job is for the current home; a change of home
///   (``withJobsStopped(_:)``) takes the same lock. ``value`` is read by
///   ``CommitDelivery/deliverNow(_:from:)``, which change sources call only
///   when ``CommitDelivery/canDeliverNow(runningIn:)`` proved the
///   committing thread runs the home actor (an isolation on its stack, or
///   the main queue for a main-actor home), or the controller lives in no
///   actor (then it is used as the code around it is: see the controllers'
///   discussion of isolation).
final class _HomeBound: @unchecked Sendable {
    private weak var controller: (any CommitReceiver)?
    /// Held while a job touches the controller, and while its home moves.
    private let jobs = PThreadMutex(())

    init(_ controller: any CommitReceiver) {
        self.controller = controller
    }

    /// The controller; only where it lives (see the type's discussion).
    var value: (any CommitReceiver)? { controller }

    /// Lets the controller take its waiting changes, on its home actor,
    /// when the job is for its current home.
    func takeWaitingChanges(on home: isolated any Actor, isCurrent: @Sendable () -> Bool) {
        jobs.withLock { _ in
            guard isCurrent() else { return }
            controller?.takeWaitingChanges(isolation: home)
        }
    }

    /// Runs `body` with no job touching the controller.
    func withJobsStopped<T>(_ body: () -> T) -> T {
        jobs.withLock { _ in body() }
    }
}
