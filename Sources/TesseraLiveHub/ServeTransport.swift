import TesseraResultsCore
import TesseraLiveProtocol

/// A message on its way to clients: its text, and the transport's encoding
/// of it (a WebSocket text frame), made by the first client's write and
/// shared by every client the message goes to.
package final class ServeFrame: Sendable {
    /// The message's JSON text.
    package let text: String
    // The transport's encoding, once made.
    private let encoding = PThreadMutex<(any Sendable)?>(nil)

    /// A message to send.
    package init(_ text: String) {
        self.text = text
    }

    /// The message encoded by `encode`: made on the first call, the same
    /// value on every later one (a transport has one encoding).
    package func encoded<Encoded: Sendable>(_ encode: (String) -> Encoded) -> Encoded {
        encoding.withLock { encoding in
            if let encoded = encoding as? Encoded { return encoded }
            let encoded = encode(text)
            encoding = encoded
            return encoded
        }
    }
}

/// The transport's side of one client: where the client's outbox writes
/// once attached (``ClientOutbox/attach(_:)``). The hub calls nothing else
/// of a transport.
package protocol ServeClientSink: Sendable {
    /// Identifies the thread the client's writes run on: the writes of one
    /// change to every client of one thread go in one call of ``execute(_:)``
    /// (``ServeWriteBatch``).
    var executorID: ObjectIdentifier { get }

    /// Runs `body` on that thread, later, in the order the calls were
    /// made; it must not run `body` before returning (the outbox calls it
    /// while holding its lock).
    func execute(_ body: @escaping @Sendable () -> Void)

    /// Writes one message to the client; called on that thread, in the
    /// order the messages are to arrive. `sent` runs once the client's
    /// socket took the message, or the write failed.
    func write(_ frame: ServeFrame, sent: @escaping @Sendable () -> Void)
}
