#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A serial executor with a thread of its own: an actor whose
/// `unownedExecutor` is one runs every job there, in the order it came,
/// and never on Swift concurrency's cooperative pool. It is a task
/// executor too: a task that prefers it (`Task(executorPreference:)`)
/// runs its code outside the actor there as well.
///
/// For an actor whose work blocks (a round trip to a database server, a
/// read from disk) or is long (plans for thousands of clients): on the
/// pool it would hold one of a few threads (one per core) that every
/// other task of the process needs meanwhile. The thread is marked as
/// Tessera's own (``OwnedThread``, as every thread ``_startThread(_:)``
/// starts is). It starts with the first job (an executor that never gets
/// one has none) and ends once ``stop()`` has been called and no job
/// waits; a job that comes later starts it again. One thread at most
/// runs the jobs at any time.
package final class DedicatedThreadExecutor: SerialExecutor, TaskExecutor, @unchecked Sendable {
    private struct State {
        /// Jobs not run yet.
        var jobs = FIFOQueue<UnownedJob>()
        var stopped = false
        /// Whether the thread runs (or waits for jobs).
        var running = false
    }

    private let state = PThreadCondition(State())
    /// What the thread is for, for messages.
    package let name: String

    /// An executor whose thread starts with its first job.
    package init(name: String) {
        self.name = name
    }

    /// Ends the thread once every job enqueued has run. A job enqueued
    /// later starts it again.
    package func stop() {
        state.update { $0.stopped = true }
    }

    package func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let starts = state.update { state -> Bool in
            state.jobs.append(job)
            defer { state.running = true }
            return !state.running
        }
        guard starts else { return }
        guard _tryStartThread({ [self] in run() }) else {
            // Jobs that cannot run would hang their tasks without a word.
            fatalError("Tessera cannot start the thread of \(name): the system refused a new thread")
        }
    }

    package func asUnownedSerialExecutor() -> UnownedSerialExecutor {
        UnownedSerialExecutor(ordinary: self)
    }

    package func asUnownedTaskExecutor() -> UnownedTaskExecutor {
        UnownedTaskExecutor(ordinary: self)
    }

    /// Runs `job`, isolated to this executor and with it as the task
    /// executor (one `enqueue` serves both roles).
    private func runJob(_ job: UnownedJob) {
        job.runSynchronously(isolatedTo: asUnownedSerialExecutor(), taskExecutor: asUnownedTaskExecutor())
    }

    /// Runs jobs until stopped with none waiting.
    private func run() {
        while let job = next() {
            runJob(job)
        }
    }

    /// The next job, waiting for one; `nil` once stopped with none left
    /// (the thread then ends, and the next job starts another).
    private func next() -> UnownedJob? {
        state.wait(until: { !$0.jobs.isEmpty || $0.stopped }) { state in
            if let job = state.jobs.popFirst() { return job }
            state.running = false
            return nil
        }
    }
}

/// Whether the current thread is one Tessera runs blocking work on (a
/// ``DedicatedThreadExecutor``'s, a ``BlockingWorkers``' worker, a change
/// feed's, a background load's: threads it started; and a dispatch thread
/// while it runs a delivery job there), rather than the caller's own or
/// one of Swift concurrency's cooperative pool.
package enum OwnedThread {
    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key, nil)
        return key
    }()

    /// Whether the current thread is marked.
    package static var isCurrent: Bool {
        pthread_getspecific(key) != nil
    }

    /// Marks the current thread as Tessera's own, until it ends.
    package static func mark() {
        pthread_setspecific(key, UnsafeRawPointer(bitPattern: 1))
    }

    /// Runs `body` with the current thread marked, and restores its mark.
    package static func marking<T, Failure: Error>(_ body: () throws(Failure) -> T) throws(Failure) -> T {
        let old = pthread_getspecific(key)
        pthread_setspecific(key, UnsafeRawPointer(bitPattern: 1))
        defer { pthread_setspecific(key, old) }
        return try body()
    }
}
