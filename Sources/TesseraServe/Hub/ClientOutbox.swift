import Synchronization

/// A connected client's messages waiting to be sent, bounded.
///
/// The hub puts messages in; one reader (the connection's writer task)
/// takes them out with ``next()``. Plans go in only while fewer than
/// ``capacity`` messages wait: when the queue is full the hub marks the
/// client behind instead, and the outbox calls its drain handler once the
/// reader has taken every waiting message, so that the hub sends one merged
/// plan. Replies (`snapshot`, `elements`, `done`, `error`) go in past the
/// capacity, up to ``limit``; a client that lets more pile up is closed.
package final class ClientOutbox: Sendable {
    /// The messages that may wait before the client is behind.
    package let capacity: Int
    /// The messages that may wait at all; past it the outbox closes.
    package let limit: Int

    private struct State {
        var messages: [String] = []
        var head = 0
        var waiter: CheckedContinuation<String?, Never>?
        var isClosed = false
        /// Whether the drain handler runs when the queue empties.
        var notifiesWhenDrained = false

        var count: Int { messages.count - head }

        mutating func take() -> String {
            let text = messages[head]
            head += 1
            if head == messages.count {
                messages.removeAll(keepingCapacity: true)
                head = 0
            }
            return text
        }
    }

    // Guards the queue, the waiting reader and the flags.
    private let state = Mutex(State())
    private let onDrained: @Sendable () -> Void

    /// Creates an empty outbox.
    ///
    /// - Parameters:
    ///   - capacity: The messages that may wait before the client is
    ///     behind (at least 1).
    ///   - onDrained: Called (on the reader's task) when the reader has
    ///     taken every message after ``hasRoomOrMarkBehind()`` found the
    ///     queue full.
    package init(capacity: Int, onDrained: @escaping @Sendable () -> Void) {
        self.capacity = max(1, capacity)
        self.limit = 2 * max(1, capacity) + 16
        self.onDrained = onDrained
    }

    /// The next message to send, or nil once the client is closed. One reader
    /// (the connection's writer task). Cancelling the reader closes the
    /// outbox.
    package func next() async -> String? {
        let (ready, drained): (String??, Bool) = state.withLock { state in
            if state.count > 0 {
                let text = state.take()
                let drained = state.count == 0 && state.notifiesWhenDrained
                if drained { state.notifiesWhenDrained = false }
                return (.some(text), drained)
            }
            return (state.isClosed ? .some(nil) : nil, false)
        }
        if drained { onDrained() }
        if let ready { return ready }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<String?, Never>) in
                let resumeWith: String?? = state.withLock { state in
                    if state.count > 0 { return .some(state.take()) }
                    if state.isClosed { return .some(nil) }
                    state.waiter = continuation
                    return nil
                }
                if let resumeWith { continuation.resume(returning: resumeWith) }
            }
        } onCancel: {
            close()
        }
    }

    /// Whether a plan may go in now; when the queue is full it marks the
    /// client behind (the drain handler runs once it empties) and returns
    /// false. A closed outbox has no room.
    package func hasRoomOrMarkBehind() -> Bool {
        state.withLock { state in
            if state.isClosed { return false }
            if state.count < capacity { return true }
            state.notifiesWhenDrained = true
            return false
        }
    }

    /// Puts a message in: a waiting reader gets it at once. Past ``limit``
    /// the outbox closes instead.
    ///
    /// - Returns: Whether the message went in.
    @discardableResult
    package func push(_ text: String) -> Bool {
        let (waiter, closedNow): (CheckedContinuation<String?, Never>?, Bool) = state.withLock { state in
            if state.isClosed { return (nil, false) }
            if let waiter = state.waiter {
                state.waiter = nil
                return (waiter, false)
            }
            guard state.count < limit else {
                state.isClosed = true
                state.messages.removeAll()
                state.head = 0
                return (nil, true)
            }
            state.messages.append(text)
            return (nil, false)
        }
        if let waiter {
            waiter.resume(returning: text)
            return true
        }
        return !closedNow && !isClosed
    }

    /// Closes the outbox: the reader gets the messages still waiting, then
    /// nil.
    package func close() {
        let waiter = state.withLock { state -> CheckedContinuation<String?, Never>? in
            state.isClosed = true
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(returning: nil)
    }

    /// Whether the outbox is closed.
    package var isClosed: Bool { state.withLock { $0.isClosed } }

    /// The number of messages waiting.
    package var count: Int { state.withLock { $0.count } }
}
