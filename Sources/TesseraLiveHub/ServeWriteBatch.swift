import TesseraLiveProtocol

/// The messages one change sends to the clients whose outboxes are
/// attached to the transport, grouped by the thread their writes run on:
/// ``flush()`` hands each thread all of its writes at once (one task per
/// thread, not one per client), in the order they were added.
///
/// A client's messages stay in order: they all go to its sink's one
/// thread, in the order of the batches and of the writes in each.
package final class ServeWriteBatch {
    /// The writes waiting, per event loop.
    private var loops: [ObjectIdentifier: [(ServeFrame, any ServeClientSink, ClientOutbox)]] = [:]

    /// An empty batch.
    package init() {}

    /// Whether no write waits.
    package var isEmpty: Bool { loops.isEmpty }

    /// Adds one message for `outbox`'s sink.
    package func add(_ frame: ServeFrame, on sink: any ServeClientSink, for outbox: ClientOutbox) {
        loops[sink.executorID, default: []].append((frame, sink, outbox))
    }

    /// Hands every waiting write to its thread, and empties the batch.
    ///
    /// - Complexity: O(*w*) for *w* writes, one task per thread.
    package func flush() {
        guard !loops.isEmpty else { return }
        for writes in loops.values {
            writes[0].1.execute {
                for (frame, sink, outbox) in writes {
                    ClientOutbox.write(frame, on: sink, for: outbox)
                }
            }
        }
        loops.removeAll(keepingCapacity: true)
    }
}

@available(*, unavailable)
extension ServeWriteBatch: Sendable {}
