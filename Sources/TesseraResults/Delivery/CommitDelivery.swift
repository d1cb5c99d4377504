import Synchronization

/// A controller's side of the seam: takes committed changes and reports
/// them, always in the controller's isolation.
package protocol CommitReceiver: AnyObject {
    /// Applies committed changes (one transaction's, or several merged)
    /// and reports them. Called in the controller's isolation, inside
    /// a read of the store's state just after them.
    func receive(_ changes: CommittedChanges, from reader: any StoreReader)

    /// Takes the changes that waited for the controller's isolation (see
    /// ``CommitDelivery``) and reports them. Called on that isolation.
    func takeWaitingChanges(isolation: isolated (any Actor)?)
}

/// Where a controller's committed changes go: the isolation the controller
/// lives in (its *home*: the actor of the code that called
/// `performFetch()`, or none).
///
/// A change source hands each transaction over at its commit:
/// - when the commit runs in the home isolation (the store can prove it:
///   the write was made by code isolated to the home actor), or the home is
///   no actor at all, the controller takes it at once, before the write
///   returns;
/// - otherwise it waits here, merged with any that wait already, and the
///   home actor is asked to run a job that takes it: the controller is
///   never touched from another isolation.
///
/// Sendable: its state is behind a mutex, and the controller is reached
/// only through ``_HomeBound``.
package final class CommitDelivery: Sendable {
    private struct Waiting: Sendable {
        var changes: CommittedChanges?
        var jobScheduled = false
    }

    /// The controller's isolation.
    package let home: (any Actor)?
    private let waiting = Mutex(Waiting())
    private let receiver: _HomeBound
    private let limit = Atomic<Int>(.max)

    /// The most rows one transaction may touch and still be followed row
    /// by row: past it, a change source stops noting rows and hands over
    /// ``CommittedChanges/refetch`` (the controller sets it from the size
    /// of its result).
    package var touchedLimit: Int {
        get { limit.load(ordering: .relaxed) }
        set { limit.store(newValue, ordering: .relaxed) }
    }

    /// A delivery to `receiver`, which lives in `home`.
    ///
    /// Made in `home`: the caller runs there (the controller makes it in
    /// `performFetch(isolation:)`, whose isolated parameter it passes).
    package init(to receiver: any CommitReceiver, home: isolated (any Actor)?) {
        self.home = home
        self.receiver = _HomeBound(receiver)
    }

    /// Whether a commit made by code running in `isolations` (the
    /// isolations of the calls on the committing thread's stack, innermost
    /// last) can be taken at once: the thread runs the home actor, or the
    /// home is no actor.
    ///
    /// - Complexity: O(*d*) for *d* nested calls.
    package func canDeliverNow(runningIn isolations: [(any Actor)?]) -> Bool {
        guard let home else { return true }
        return isolations.contains { $0 === home }
    }

    /// Hands a commit's changes to the controller at once, with what waited
    /// before them. Only for a commit for which ``canDeliverNow(runningIn:)``
    /// holds, called by the change source on the committing thread.
    package func deliverNow(_ changes: CommittedChanges, from reader: any StoreReader) {
        var all = takeWaiting() ?? CommittedChanges()
        all.merge(changes)
        guard !all.isEmpty, let receiver = receiver.value else { return }
        receiver.receive(all, from: reader)
    }

    /// Keeps a commit's changes until the home actor takes them, and asks
    /// it to (once, however many wait).
    package func deliverLater(_ changes: CommittedChanges) {
        guard !changes.isEmpty, let home else { return }
        let schedule = waiting.withLock { waiting -> Bool in
            if waiting.changes == nil {
                waiting.changes = changes
            } else {
                waiting.changes?.merge(changes)
            }
            defer { waiting.jobScheduled = true }
            return !waiting.jobScheduled
        }
        guard schedule else { return }
        let receiver = self.receiver
        Task {
            await receiver.takeWaitingChanges(on: home)
        }
    }

    /// The changes waiting, merged, which are then no longer waiting; `nil`
    /// when none wait. The controller calls it inside a read of the store,
    /// so that no commit comes between taking them and reading the rows
    /// they touched.
    package func takeWaiting() -> CommittedChanges? {
        waiting.withLock { waiting in
            waiting.jobScheduled = false
            defer { waiting.changes = nil }
            return waiting.changes
        }
    }

    /// Drops the changes waiting: a fetch read everything they did.
    package func dropWaiting() {
        _ = takeWaiting()
    }

    /// Stops delivering for good: the controller has a new home (it was
    /// fetched again from another isolation). A job already scheduled on
    /// the old home does nothing; one running now is waited for, so that
    /// the controller is never touched from two isolations at once.
    package func retire() {
        receiver.retire()
    }
}

/// A weak reference to a controller, which is not Sendable, that crosses
/// isolations but is read only where the controller lives.
///
/// `@unchecked Sendable`, line by line:
/// - `value` is written once, in `init`, and never again (a weak
///   reference's reads and its zeroing at deinit are atomic in the Swift
///   runtime).
/// - It is read in two places only. ``takeWaitingChanges(on:)`` runs on the
///   home actor (its isolated parameter; ``CommitDelivery`` passes its
///   `home`). ``value`` is read by ``CommitDelivery/deliverNow(_:from:)``,
///   which change sources call only when ``CommitDelivery/canDeliverNow(runningIn:)``
///   proved the committing thread runs the home actor, or the controller
///   lives in no actor (then it is used as the code around it is: see
///   the controllers' discussion of isolation).
///   A job on the home actor reads it holding `retired`'s lock, and not
///   at all once the delivery is retired: ``retire()``, called from the
///   controller's new home, waits for a job under way and stops later ones.
final class _HomeBound: @unchecked Sendable {
    private weak var controller: (any CommitReceiver)?
    /// Whether the delivery was retired; its lock is held while a job
    /// touches the controller.
    private let retired = Mutex(false)

    init(_ controller: any CommitReceiver) {
        self.controller = controller
    }

    /// The controller; only where it lives (see the type's discussion).
    var value: (any CommitReceiver)? { controller }

    /// Lets the controller take its waiting changes, on its home actor.
    func takeWaitingChanges(on home: isolated any Actor) {
        retired.withLock { retired in
            guard !retired else { return }
            controller?.takeWaitingChanges(isolation: home)
        }
    }

    /// Stops the jobs, waiting for one under way.
    func retire() {
        retired.withLock { $0 = true }
    }
}
