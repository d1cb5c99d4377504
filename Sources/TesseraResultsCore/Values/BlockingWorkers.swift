/// Runs blocking work (a transaction that may wait for a lock, a round
/// trip to a server) on threads of its own, at most `limit` at once, in
/// the order it came.
///
/// Never on Swift concurrency's threads, nor on dispatch's global or
/// concurrent queues: on Linux those are the same threads, and work that
/// waits there holds up every task of the process meanwhile. A worker
/// thread starts when work comes and none is free, and ends when nothing
/// waits.
package final class BlockingWorkers: Sendable {
    private struct State {
        var running = 0
        /// The work not yet taken.
        var waiting = FIFOQueue<@Sendable () -> Void>()
    }

    /// The most threads at once.
    package let limit: Int
    private let state = PThreadMutex(State())

    /// Workers that run at most `limit` pieces of work at once.
    package init(limit: Int) {
        self.limit = max(1, limit)
    }

    /// Runs `work` on a worker thread, once one is free.
    ///
    /// - Complexity: O(1), amortized.
    package func run(_ work: @escaping @Sendable () -> Void) {
        let startsWorker = state.withLock { state -> Bool in
            state.waiting.append(work)
            guard state.running < limit else { return false }
            state.running += 1
            return true
        }
        if startsWorker { _startThread { [self] in drain() } }
    }

    /// Runs waiting work until none is left, then ends.
    private func drain() {
        while let work = state.withLock({ state -> (@Sendable () -> Void)? in
            guard let work = state.waiting.popFirst() else {
                state.running -= 1
                return nil
            }
            return work
        }) {
            work()
        }
    }
}
