#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A value guarded by a pthread mutex, with the shape of the standard
/// library's `Mutex`.
///
/// The package's shared state uses this rather than `Mutex`: ThreadSanitizer
/// intercepts `pthread_mutex_lock` and so sees the order a lock imposes, but
/// it does not see the futex `Mutex` waits on, and reports accesses made
/// under a `Mutex` on two threads as a race.
package final class PThreadMutex<State: ~Copyable>: @unchecked Sendable {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private var state: State

    package init(_ state: consuming State) {
        self.state = state
        mutex = .allocate(capacity: 1)
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    /// Runs `body` with the lock held and the state to read or change.
    /// The lock is not recursive: `body` must not take it again.
    package func withLock<Result, Failure: Error>(
        _ body: (inout State) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&state)
    }
}
