import NIOCore
import TesseraLiveHub
import TesseraLiveProtocol

/// Writes whole WebSocket frames, already encoded, straight to a channel's
/// socket: it sits first in the pipeline (next to the socket), so that what
/// it writes skips the handlers behind it (the frame encoder and the
/// WebSocket's async channel). One frame's bytes, header included, can then
/// be shared by every client it goes to.
///
/// It lives on its channel's event loop: reach it through a
/// ``ServeFrameSink``.
final class ServeFrameWriter: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    /// Its place in the pipeline, while it is in one.
    private var context: ChannelHandlerContext?

    /// A writer not in a pipeline yet.
    init() {}

    /// Keeps its place in the pipeline.
    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
    }

    /// Forgets its place: later writes fail.
    func handlerRemoved(context: ChannelHandlerContext) {
        self.context = nil
    }

    /// Writes and flushes one encoded frame; the promise fails when the
    /// writer has left its pipeline (the channel closed).
    func write(_ frame: ByteBuffer, promise: EventLoopPromise<Void>) {
        guard let context else {
            promise.fail(ChannelError.ioOnClosedChannel)
            return
        }
        context.writeAndFlush(wrapOutboundOut(frame), promise: promise)
    }

    /// An unmasked text frame (as a server sends) holding `payload`: the
    /// header (FIN and the text opcode, then the length in 1, 3 or 9 bytes)
    /// and the payload.
    ///
    /// - Complexity: O(*n*) for an *n*-byte payload.
    static func textFrame(_ payload: String) -> ByteBuffer {
        var payload = payload
        return payload.withUTF8 { bytes in
            var buffer = ByteBufferAllocator().buffer(capacity: bytes.count + 10)
            buffer.writeInteger(UInt8(0x81))
            if bytes.count < 126 {
                buffer.writeInteger(UInt8(bytes.count))
            } else if bytes.count <= Int(UInt16.max) {
                buffer.writeInteger(UInt8(126))
                buffer.writeInteger(UInt16(bytes.count))
            } else {
                buffer.writeInteger(UInt8(127))
                buffer.writeInteger(UInt64(bytes.count))
            }
            buffer.writeBytes(bytes)
            return buffer
        }
    }
}

@available(*, unavailable)
extension ServeFrameWriter: Sendable {}

/// Where an attached ``ClientOutbox`` writes: a ``ServeFrameWriter`` on its
/// channel's event loop. A message is encoded as a text frame once, by its
/// first client's write, and that buffer is written to every client it
/// goes to.
struct ServeFrameSink: ServeClientSink {
    /// The channel's event loop.
    let eventLoop: any EventLoop
    /// The writer, reachable only on `eventLoop`.
    let writer: NIOLoopBound<ServeFrameWriter>

    /// The event loop's identity: one task per loop for a change's writes.
    var executorID: ObjectIdentifier { ObjectIdentifier(eventLoop) }

    /// Runs `body` on the event loop.
    func execute(_ body: @escaping @Sendable () -> Void) {
        eventLoop.execute(body)
    }

    /// Writes the message's text frame; call on the event loop.
    func write(_ frame: ServeFrame, sent: @escaping @Sendable () -> Void) {
        let promise = eventLoop.makePromise(of: Void.self)
        promise.futureResult.whenComplete { _ in sent() }
        writer.value.write(frame.encoded(ServeFrameWriter.textFrame), promise: promise)
    }

    /// Puts a new writer first in `channel`'s pipeline.
    ///
    /// - Throws: When the pipeline refuses it (the channel closed).
    static func install(on channel: any Channel) async throws -> ServeFrameSink {
        let loop = channel.eventLoop
        return try await loop.submit {
            let writer = ServeFrameWriter()
            try channel.pipeline.syncOperations.addHandler(writer, position: .first)
            return ServeFrameSink(eventLoop: loop, writer: NIOLoopBound(writer, eventLoop: loop))
        }.get()
    }
}
