import NIOCore

/// The frames one change sends to the clients whose outboxes are attached
/// to channels, grouped by event loop: ``flush()`` hands each loop all of
/// its writes at once (one task per loop, not one per client), in the
/// order they were added.
///
/// A client's frames stay in order: they all go to its channel's one loop,
/// in the order of the batches and of the writes in each.
final class ServeWriteBatch {
    /// The writes waiting, per event loop.
    private var loops: [ObjectIdentifier: (loop: any EventLoop, writes: [(ByteBuffer, ServeFrameSink, ClientOutbox)])] = [:]

    /// An empty batch.
    init() {}

    /// Whether no write waits.
    var isEmpty: Bool { loops.isEmpty }

    /// Adds one encoded text frame for `outbox`'s channel.
    func add(_ frame: ByteBuffer, on sink: ServeFrameSink, for outbox: ClientOutbox) {
        let loop = sink.eventLoop
        let key = ObjectIdentifier(loop)
        if loops[key] == nil {
            loops[key] = (loop, [])
        }
        loops[key]!.writes.append((frame, sink, outbox))
    }

    /// Hands every waiting write to its event loop, and empties the batch.
    ///
    /// - Complexity: O(*w*) for *w* writes, one task per event loop.
    func flush() {
        guard !loops.isEmpty else { return }
        for entry in loops.values {
            let writes = entry.writes
            entry.loop.execute {
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
