import Dispatch

/// The task executor of the jobs that hand waiting commits to a
/// controller's home actor: each job runs on a thread of dispatch's
/// overcommitting pool (a serial queue of its own, which dispatch serves
/// with a new thread when its others are busy), never on Swift
/// concurrency's cooperative pool.
///
/// A delivery must not wait for the cooperative pool: an app whose pool is
/// busy (CPU-bound work, or code that blocks its threads) would otherwise
/// see a main-actor or custom-executor home hear nothing for as long as the
/// pool stays busy, though the home itself is free. The job hops from here
/// to the home's executor; a default actor runs the job here too (a task's
/// executor preference is where default actors run), so the store read it
/// makes holds no cooperative thread either.
final class DeliveryExecutor: TaskExecutor {
    /// The one instance: it has no state of its own.
    static let shared = DeliveryExecutor()

    private init() {}

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        DispatchQueue(label: "tessera.delivery").async {
            OwnedThread.marking { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
        }
    }
}
