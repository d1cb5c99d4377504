import Foundation

/// A serial executor that runs every job on one thread of its own, never on
/// the cooperative pool: a test can tell whether code ran there
/// (``isCurrent``), and hold its jobs (``hold(_:)``), as on an actor busy
/// with other work, without blocking any thread of the pool.
public final class ThreadExecutor: SerialExecutor, @unchecked Sendable {
    // `jobs`, `held` and `stopped` are guarded by `condition`; `thread` is
    // written once, by the thread itself, before `ready` is signalled, and
    // only read after.
    private let condition = NSCondition()
    private var jobs: [UnownedJob] = []
    private var held = false
    private var stopped = false
    private var thread: pthread_t?
    private let ready = DispatchSemaphore(value: 0)

    public init() {
        Thread.detachNewThread { [self] in
            thread = pthread_self()
            ready.signal()
            while true {
                condition.lock()
                while (jobs.isEmpty || held) && !stopped { condition.wait() }
                if stopped && (jobs.isEmpty || held) {
                    condition.unlock()
                    return
                }
                let job = jobs.removeFirst()
                condition.unlock()
                job.runSynchronously(on: asUnownedSerialExecutor())
            }
        }
        ready.wait()
    }

    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        condition.lock()
        jobs.append(job)
        condition.signal()
        condition.unlock()
    }

    /// Whether the calling thread is the executor's.
    public var isCurrent: Bool { thread.map { pthread_equal($0, pthread_self()) != 0 } ?? false }

    /// Holds the jobs (`true`) or lets them run again.
    public func hold(_ holding: Bool) {
        condition.lock()
        held = holding
        condition.signal()
        condition.unlock()
    }

    /// Ends the thread once the jobs already enqueued have run (at once
    /// while they are held).
    public func stop() {
        condition.lock()
        stopped = true
        condition.signal()
        condition.unlock()
    }
}
