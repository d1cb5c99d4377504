import TesseraLiveProtocol
import TesseraResultsCore

/// A connected client's messages waiting to be sent, bounded.
///
/// The hub puts messages in; one reader (the connection's writer task)
/// takes them out with ``next()``. Plans go in only while fewer than
/// ``capacity`` messages wait: when the queue is full the hub marks the
/// client behind instead, and the outbox calls its drain handler once the
/// reader has taken every waiting message, so that the hub sends one merged
/// plan. Replies (`snapshot`, `elements`, `done`, `error`) go in past the
/// capacity, up to ``limit``; a client that lets more pile up is closed.
///
/// An outbox attached to its client's socket by the transport
/// (``attach(_:)``) writes each message through the transport's sink
/// instead of queueing it for ``next()``: the messages that wait are then
/// those written and not yet taken by the socket, and the same capacity,
/// limit and drain handler apply to them. ``next()`` then only waits for
/// the outbox to close.
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
        /// Messages written to the channel and not yet taken by its socket.
        var inFlight = 0
        /// Where messages are written, once attached.
        var sink: (any ServeClientSink)?

        /// The messages queued for ``next()``.
        var queued: Int { messages.count - head }
        /// The messages waiting: queued, or written and not yet sent.
        var count: Int { queued + inFlight }

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
    private let state = PThreadMutex(State())
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
            if state.queued > 0 {
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
                    if state.queued > 0 { return .some(state.take()) }
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

    /// Puts a message in: a waiting reader gets it at once, an attached
    /// sink gets it to write. Past ``limit`` the outbox closes instead.
    ///
    /// - Returns: Whether the message went in.
    @discardableResult
    package func push(_ text: String) -> Bool {
        push(ServeFrame(text), batch: nil)
    }

    /// Puts a message in; an attached sink writes `frame` (shared by every
    /// client it goes to, so that the transport encodes it once), through
    /// `batch` when one is given (the batch writes when it is flushed).
    ///
    /// - Returns: Whether the message went in.
    @discardableResult
    package func push(_ frame: ServeFrame, batch: ServeWriteBatch?) -> Bool {
        enum Action { case none, resume(CheckedContinuation<String?, Never>), write(any ServeClientSink), closed(CheckedContinuation<String?, Never>?) }
        let action: Action = state.withLock { state in
            if state.isClosed { return .none }
            // An attached outbox's reader only waits for the close.
            if state.sink == nil, let waiter = state.waiter {
                state.waiter = nil
                return .resume(waiter)
            }
            guard state.count < limit else {
                state.isClosed = true
                state.messages.removeAll()
                state.head = 0
                let waiter = state.waiter
                state.waiter = nil
                return .closed(waiter)
            }
            if let sink = state.sink {
                state.inFlight += 1
                return .write(sink)
            }
            state.messages.append(frame.text)
            return .none
        }
        switch action {
        case .resume(let waiter):
            waiter.resume(returning: frame.text)
            return true
        case .write(let sink):
            if let batch {
                batch.add(frame, on: sink, for: self)
            } else {
                sink.execute { Self.write(frame, on: sink, for: self) }
            }
            return true
        case .closed(let waiter):
            waiter?.resume(returning: nil)
            return false
        case .none:
            return !isClosed
        }
    }

    /// Writes the messages from now on through `sink`, the transport's side
    /// of the client's socket, instead of queueing them for ``next()``; any
    /// queued ones go first.
    package func attach(_ sink: any ServeClientSink) {
        state.withLock { state in
            state.sink = sink
            let queued = Array(state.messages[state.head...])
            state.messages.removeAll()
            state.head = 0
            state.inFlight += queued.count
            guard !queued.isEmpty else { return }
            // Handed to the sink's thread before the lock is let go: a
            // message pushed once it is, goes after them.
            sink.execute {
                for text in queued { Self.write(ServeFrame(text), on: sink, for: self) }
            }
        }
    }

    /// Writes one message; call it on the sink's thread. The outbox counts
    /// the message as waiting until the socket took it (or the write
    /// failed).
    package static func write(_ frame: ServeFrame, on sink: any ServeClientSink, for outbox: ClientOutbox) {
        sink.write(frame) { outbox.didSend() }
    }

    /// One written message left: runs the drain handler when none waits
    /// any more and the hub asked for it.
    private func didSend() {
        let drained: Bool = state.withLock { state in
            state.inFlight -= 1
            guard state.count == 0, state.notifiesWhenDrained else { return false }
            state.notifiesWhenDrained = false
            return true
        }
        if drained { onDrained() }
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
