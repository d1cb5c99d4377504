#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A value guarded by a pthread mutex, with a condition that threads wait
/// on until the value is what they need.
///
/// For threads that Tessera starts itself (a dedicated executor's, a
/// change feed's, a background load's waiter), never for Swift
/// concurrency's cooperative pool, which a waiting thread would hold.
/// ThreadSanitizer follows pthread mutexes and conditions (see
/// ``PThreadMutex``). On Linux the condition's clock is the monotonic
/// one, so a timed wait is not moved by a change of the wall clock (on
/// Darwin it is the wall clock's).
package final class PThreadCondition<State: Sendable>: @unchecked Sendable {
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    private var state: State

    package init(_ state: State) {
        self.state = state
        pthread_mutex_init(mutex, nil)
        var attributes = pthread_condattr_t()
        pthread_condattr_init(&attributes)
        #if !canImport(Darwin)
        pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC)
        #endif
        pthread_cond_init(condition, &attributes)
        pthread_condattr_destroy(&attributes)
    }

    deinit {
        pthread_cond_destroy(condition)
        pthread_mutex_destroy(mutex)
        condition.deallocate()
        mutex.deallocate()
    }

    /// Runs `body` with the lock held, wakes no one. The lock is not
    /// recursive: `body` must not take it again.
    package func withLock<Result>(_ body: (inout State) -> Result) -> Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return body(&state)
    }

    /// Runs `body` with the lock held, then wakes every waiter (each
    /// checks again whether the state is what it waits for).
    package func update<Result>(_ body: (inout State) -> Result) -> Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        let result = body(&state)
        pthread_cond_broadcast(condition)
        return result
    }

    /// Waits until `ready` holds, then runs `body` with the lock still
    /// held.
    package func wait<Result>(until ready: (State) -> Bool, then body: (inout State) -> Result) -> Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        while !ready(state) { pthread_cond_wait(condition, mutex) }
        return body(&state)
    }

    /// Waits until `ready` holds or `timeout` has passed, then runs `body`
    /// with the lock still held; `body` is told whether `ready` held.
    package func wait<Result>(until ready: (State) -> Bool, timeout: Duration, then body: (inout State, _ ready: Bool) -> Result) -> Result {
        var deadline = Self.deadline(after: timeout)
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        var isReady = ready(state)
        while !isReady {
            let timedOut = pthread_cond_timedwait(condition, mutex, &deadline) == ETIMEDOUT
            isReady = ready(state)
            if timedOut { break }
        }
        return body(&state, isReady)
    }

    /// The monotonic clock's time `timeout` from now (negative: now).
    private static func deadline(after timeout: Duration) -> timespec {
        var now = timespec()
        #if canImport(Darwin)
        clock_gettime(CLOCK_REALTIME, &now)
        #else
        clock_gettime(CLOCK_MONOTONIC, &now)
        #endif
        let (seconds, attoseconds) = timeout.components
        guard seconds >= 0, attoseconds >= 0 else { return now }
        // A wait longer than the clock can say ends at the clock's last
        // second: a wait without end, in effect (`time_t` may be 32 bits).
        let latest = Int64(Int.max) - Int64(now.tv_sec) - 2
        let wholeSeconds = min(seconds, latest)
        let nanoseconds = Int64(now.tv_nsec) + attoseconds / 1_000_000_000
        return timespec(tv_sec: now.tv_sec + Int(wholeSeconds) + Int(nanoseconds / 1_000_000_000),
                        tv_nsec: Int(nanoseconds % 1_000_000_000))
    }
}

/// A first-in first-out queue: appending and taking the first are O(1),
/// amortized, and the storage stays within twice what waits (taken
/// elements are dropped in bulk once they are most of it).
package struct FIFOQueue<Element> {
    private var elements: [Element?] = []
    private var head = 0

    package init() {}

    /// Whether nothing waits.
    package var isEmpty: Bool { head == elements.count }

    /// How many elements wait.
    package var count: Int { elements.count - head }

    /// Adds `element` at the end.
    ///
    /// - Complexity: O(1), amortized.
    package mutating func append(_ element: Element) {
        elements.append(element)
    }

    /// Takes the first element; `nil` when none waits.
    ///
    /// - Complexity: O(1), amortized.
    package mutating func popFirst() -> Element? {
        guard head < elements.count else {
            elements.removeAll(keepingCapacity: true)
            head = 0
            return nil
        }
        let element = elements[head]
        elements[head] = nil
        head += 1
        if head == elements.count {
            elements.removeAll(keepingCapacity: true)
            head = 0
        } else if head >= 64, head * 2 >= elements.count {
            // Under steady work the queue is never empty: drop the taken
            // front once it is most of the storage, so it stays bounded.
            elements.removeFirst(head)
            head = 0
        }
        return element
    }
}

extension FIFOQueue: Sendable where Element: Sendable {}
