import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOWebSocket
import TesseraRender
import TesseraResultsCore
import TesseraSQLite

/// The time on the monotonic clock, in nanoseconds.
func loadNow() -> UInt64 { NIODeadline.now().uptimeNanoseconds }

/// One plan a client received: the oldest change it brings (`fromSeq + 1`;
/// `seq` itself unless the plan is merged) and when it arrived.
struct LoadReceipt: Sendable {
    /// The oldest change the plan brings.
    var firstChange: Int
    /// When the plan's frame was read, in monotonic nanoseconds.
    var time: UInt64
}

/// What one reading client counted, on its event loop.
struct LoadClientStats: Sendable {
    /// The state the client has: the last message's `seq`.
    var seq: Int?
    /// Whether the client has the elements of its scrolled viewport (it is
    /// ready for the measurement).
    var ready = false
    /// The content's size from the snapshot.
    var contentHeight: Double = 0
    /// Plans received.
    var plans = 0
    /// The bytes of the plans received.
    var planBytes = 0
    /// Plans that merged more than one change (the client fell behind).
    var merged = 0
    /// Changes skipped: a plan whose `fromSeq` was past the client's state.
    var lost = 0
    /// Plans for changes the client already had.
    var duplicated = 0
    /// Plans starting before the client's state but bringing it further
    /// (overlapping).
    var outOfOrder = 0
    /// `error` messages.
    var errors = 0
    /// Plans received since the receipts were last taken.
    var receipts: [LoadReceipt] = []
    /// Why the connection ended, when it did.
    var failure: String?
    /// Whether the connection ended.
    var closed = false
    /// When the client sent its `hello`, in monotonic nanoseconds.
    var helloSent: UInt64?
    /// When its `snapshot` arrived, in monotonic nanoseconds.
    var snapshotArrived: UInt64?
}

/// A reading client's record, shared by its handler (on the channel's
/// event loop) and the run (which reads it between phases).
package final class LoadClientRecord: Sendable {
    /// The client's index.
    let index: Int
    /// The layout the client asks for.
    let layout: String
    /// The viewport's width and height.
    let size: (width: Double, height: Double)
    /// Where the viewport scrolls to, as a fraction of the scrollable
    /// height.
    let scrollFraction: Double
    /// What the handler counted.
    let stats = PThreadMutex(LoadClientStats())
    /// Completed once the client is ready (its scrolled viewport's elements
    /// arrived) or failed.
    let ready: EventLoopPromise<Void>
    /// The channel, once connected.
    let channel = PThreadMutex<Channel?>(nil)

    init(index: Int, layout: String, size: (width: Double, height: Double), scrollFraction: Double, ready: EventLoopPromise<Void>) {
        self.index = index
        self.layout = layout
        self.size = size
        self.scrollFraction = scrollFraction
        self.ready = ready
    }

    /// The `hello` the client sends: the top of the list, in its layout.
    var hello: String {
        #"{"type":"hello","layout":"\#(layout)","viewport":[0,0,\#(Int(size.width)),\#(Int(size.height))],"ids":false,"resume":null}"#
    }

    /// The largest origin a viewport may have (the protocol's limit):
    /// in a taller list, clients scroll within its first 10,000,000
    /// points.
    package static let maximumOrigin = 10_000_000

    /// Where a viewport `height` high scrolls to, `fraction` of the way
    /// down content `contentHeight` high, within the protocol's limit
    /// (``maximumOrigin``).
    package static func scrolledOrigin(contentHeight: Double, height: Double, fraction: Double) -> Int {
        min(maximumOrigin, Int((max(0, contentHeight - height) * fraction).rounded(.down)))
    }

    /// The `viewport` the client sends once it knows the content's height.
    func viewport(contentHeight: Double) -> String {
        let y = Self.scrolledOrigin(contentHeight: contentHeight, height: size.height, fraction: scrollFraction)
        return #"{"type":"viewport","viewport":[0,\#(y),\#(Int(size.width)),\#(Int(size.height))]}"#
    }

    /// Fails the client if it is not ready yet (its time to get ready ran
    /// out).
    func timeOut(_ reason: String) {
        guard !stats.withLock({ $0.ready }) else { return }
        fail(reason)
    }

    /// Ends the connection with an error message.
    func fail(_ reason: String) {
        stats.withLock { stats in
            if stats.failure == nil { stats.failure = reason }
            stats.closed = true
        }
        ready.fail(LoadError("client \(index): \(reason)"))
    }
}

/// What the writer counted: when each rename was sent and which change
/// it made.
struct LoadWriterStats: Sendable {
    /// The item ids of the list, from the writer's snapshot.
    var ids: [String] = []
    /// When each request was sent, by request number.
    var sent: [UInt64] = []
    /// The change each request made (`done`'s `seq`), by request number;
    /// -1 until known.
    var doneSeq: [Int] = []
    /// The send time of each change made by a request, by `seq`.
    var sendTimeBySeq: [Int: UInt64] = [:]
    /// `done` messages received.
    var done = 0
    /// `error` messages received.
    var errors = 0
    /// The last error's text.
    var lastError: String?
    /// The highest `seq` seen.
    var lastSeq: Int?
    /// Why the connection ended, when it did.
    var failure: String?
}

/// The writer's record: one client with edit rights that sends renames.
final class LoadWriterRecord: Sendable {
    /// What the writer counted.
    let stats = PThreadMutex(LoadWriterStats())
    /// Completed once the snapshot (with every item id) arrived.
    let ready: EventLoopPromise<Void>
    /// The channel, once connected.
    let channel = PThreadMutex<Channel?>(nil)
    /// Whether the writer knows the item ids already (a table of the
    /// run's own), and does not ask the server for them.
    let knowsIDs: Bool

    /// Creates the record; with `ids`, the writer renames those and asks
    /// the server for none.
    init(ready: EventLoopPromise<Void>, ids: [String]?) {
        self.ready = ready
        knowsIDs = ids != nil
        if let ids { stats.withLock { $0.ids = ids } }
    }

    /// The `hello` the writer sends: a list viewport, with every item id
    /// unless it knows them.
    var hello: String {
        #"{"type":"hello","layout":"list","viewport":[0,0,390,844],"ids":\#(!knowsIDs),"resume":null}"#
    }
}

/// Reads a reading client's messages: checks each plan's sequence and
/// records when it arrived.
final class LoadClientHandler: ChannelInboundHandler {
    typealias InboundIn = WebSocketFrame
    typealias OutboundOut = WebSocketFrame

    let record: LoadClientRecord
    /// The first part of a text message sent in fragments.
    var pending: ByteBuffer?

    init(record: LoadClientRecord) { self.record = record }

    func handlerAdded(context: ChannelHandlerContext) {
        guard context.channel.isActive else { return }
        record.stats.withLock { $0.helloSent = loadNow() }
        send(record.hello, context: context)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = unwrapInboundIn(data)
        switch frame.opcode {
        case .text:
            if frame.fin { received(frame.data, context: context) } else { pending = frame.data }
        case .continuation:
            guard var message = pending else { return }
            var part = frame.data
            message.writeBuffer(&part)
            if frame.fin {
                pending = nil
                received(message, context: context)
            } else {
                pending = message
            }
        case .ping:
            context.writeAndFlush(wrapOutboundOut(WebSocketFrame(fin: true, opcode: .pong, maskKey: .random(), data: frame.data)), promise: nil)
        case .connectionClose:
            record.fail("the server closed the connection")
            context.close(promise: nil)
        default:
            break
        }
    }

    /// Handles one whole text message.
    func received(_ message: ByteBuffer, context: ChannelHandlerContext) {
        let time = loadNow()
        let head = message.withUnsafeReadableBytes { LoadMessageHead.scan($0) }
        var reply: String?
        var isReady = false
        var refused: String?
        record.stats.withLock { stats in
            switch head.kind {
            case .plan:
                guard let seq = head.seq, let fromSeq = head.fromSeq else {
                    stats.errors += 1
                    return
                }
                stats.plans += 1
                stats.planBytes += message.readableBytes
                guard let have = stats.seq else {
                    stats.outOfOrder += 1
                    return
                }
                if seq <= have {
                    stats.duplicated += 1
                    return
                }
                if fromSeq > have {
                    stats.lost += fromSeq - have
                } else if fromSeq < have {
                    stats.outOfOrder += 1
                }
                if seq - fromSeq > 1 { stats.merged += 1 }
                stats.receipts.append(LoadReceipt(firstChange: max(fromSeq, have) + 1, time: time))
                stats.seq = seq
            case .snapshot:
                stats.seq = head.seq
                stats.snapshotArrived = time
                stats.contentHeight = message.withUnsafeReadableBytes { Self.contentHeight(in: $0) } ?? 0
                reply = record.viewport(contentHeight: stats.contentHeight)
            case .elements:
                if !stats.ready {
                    stats.ready = true
                    isReady = true
                }
            case .error:
                stats.errors += 1
                // An error before the client is ready (its hello or
                // viewport refused) would leave it waiting for ever.
                if !stats.ready { refused = String(buffer: message) }
            case .done, .other:
                break
            }
        }
        if let refused {
            record.fail("the server answered \(refused)")
            context.close(promise: nil)
            return
        }
        if let reply { send(reply, context: context) }
        if isReady { record.ready.succeed() }
    }

    /// The height in `"contentSize":[w, h]`, if the message has it.
    static func contentHeight(in bytes: UnsafeRawBufferPointer) -> Double? {
        guard let start = LoadMessageHead.valueStart(of: Array(#""contentSize""#.utf8), in: bytes) else { return nil }
        var end = start
        while end < bytes.count, bytes[end] != 0x5D, end - start < 64 { end += 1 }
        guard end < bytes.count else { return nil }
        let text = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[start..<end]), as: UTF8.self)
        let parts = text.dropFirst().split(separator: ",")
        guard parts.count == 2 else { return nil }
        return Double(parts[1].trimmingCharacters(in: .whitespaces))
    }

    func send(_ text: String, context: ChannelHandlerContext) {
        let buffer = context.channel.allocator.buffer(string: text)
        context.writeAndFlush(wrapOutboundOut(WebSocketFrame(fin: true, opcode: .text, maskKey: .random(), data: buffer)), promise: nil)
    }

    func channelInactive(context: ChannelHandlerContext) {
        record.fail("the connection closed")
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: Error) {
        record.fail("\(error)")
        context.close(promise: nil)
    }
}

/// Reads the writer's messages: its snapshot (the item ids), and the
/// `done` of each rename (the change it made).
final class LoadWriterHandler: ChannelInboundHandler {
    typealias InboundIn = WebSocketFrame
    typealias OutboundOut = WebSocketFrame

    let record: LoadWriterRecord
    var pending: ByteBuffer?

    init(record: LoadWriterRecord) { self.record = record }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { LoadWriterHandler.send(record.hello, on: context.channel) }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = unwrapInboundIn(data)
        switch frame.opcode {
        case .text:
            if frame.fin { received(frame.data) } else { pending = frame.data }
        case .continuation:
            guard var message = pending else { return }
            var part = frame.data
            message.writeBuffer(&part)
            if frame.fin {
                pending = nil
                received(message)
            } else {
                pending = message
            }
        case .ping:
            context.writeAndFlush(wrapOutboundOut(WebSocketFrame(fin: true, opcode: .pong, maskKey: .random(), data: frame.data)), promise: nil)
        case .connectionClose:
            fail("the server closed the writer's connection")
            context.close(promise: nil)
        default:
            break
        }
    }

    func received(_ message: ByteBuffer) {
        let head = message.withUnsafeReadableBytes { LoadMessageHead.scan($0) }
        switch head.kind {
        case .snapshot:
            let text = String(buffer: message)
            let knowsIDs = record.knowsIDs
            var ids: [String] = []
            if !knowsIDs, case .object(let fields)? = try? JSON.parse(text), let value = fields.first(where: { $0.key == "ids" })?.value, case .array(let sections) = value {
                for section in sections {
                    guard case .array(let items) = section else { continue }
                    for case .string(let id) in items { ids.append(id) }
                }
            }
            let editable = !text.contains(#""editable":false"#)
            let hasIDs = record.stats.withLock { stats in
                if !knowsIDs { stats.ids = ids }
                stats.lastSeq = head.seq
                return !stats.ids.isEmpty
            }
            if !hasIDs {
                fail("the writer's snapshot lists no item ids (the list is empty, or the server does not send ids)")
            } else if !editable {
                fail("the server does not let the writer edit (its snapshot says editable: false; give the token in --url)")
            } else {
                record.ready.succeed()
            }
        case .done:
            record.stats.withLock { stats in
                stats.done += 1
                guard let request = head.request, let seq = head.seq, request >= 0, request < stats.sent.count else { return }
                stats.doneSeq[request] = seq
                stats.sendTimeBySeq[seq] = stats.sent[request]
                stats.lastSeq = max(stats.lastSeq ?? seq, seq)
            }
        case .plan:
            record.stats.withLock { stats in
                if let seq = head.seq { stats.lastSeq = max(stats.lastSeq ?? seq, seq) }
            }
        case .error:
            let text = String(buffer: message)
            record.stats.withLock { stats in
                stats.errors += 1
                stats.lastError = text
            }
        case .elements, .other:
            break
        }
    }

    func fail(_ reason: String) {
        record.stats.withLock { stats in
            if stats.failure == nil { stats.failure = reason }
        }
        record.ready.fail(LoadError(reason))
    }

    static func send(_ text: String, on channel: Channel) {
        let buffer = channel.allocator.buffer(string: text)
        channel.writeAndFlush(WebSocketFrame(fin: true, opcode: .text, maskKey: .random(), data: buffer), promise: nil)
    }

    func channelInactive(context: ChannelHandlerContext) {
        fail("the writer's connection closed")
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: Error) {
        fail("the writer's connection failed: \(error)")
        context.close(promise: nil)
    }
}

/// Stays in a client's pipeline from the start: an error before the
/// WebSocket upgrade (the server answered with an HTTP status, or the
/// connection failed) fails the client's readiness with it.
final class LoadUpgradeWatcher: ChannelInboundHandler, RemovableChannelHandler {
    /// The watcher's name in the pipeline: the upgrade removes it.
    static let name = "tessera-load-upgrade-watcher"

    typealias InboundIn = NIOAny

    let onFailure: @Sendable (String) -> Void

    init(onFailure: @escaping @Sendable (String) -> Void) { self.onFailure = onFailure }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        context.fireChannelRead(data)
    }

    func errorCaught(context: ChannelHandlerContext, error: Error) {
        onFailure("the server did not upgrade the connection to a WebSocket (\(error))")
        context.close(promise: nil)
    }

    func channelInactive(context: ChannelHandlerContext) {
        onFailure("the connection closed before the WebSocket upgrade")
        context.fireChannelInactive()
    }
}

/// Opens WebSocket connections to the target on one event loop group.
struct LoadConnector: Sendable {
    let group: MultiThreadedEventLoopGroup
    let target: LoadTarget

    /// The largest frame a client reads (a snapshot of a large viewport).
    static let maximumFrameSize = 1 << 26

    /// Connects and upgrades; `handler` makes the WebSocket handler (on the
    /// channel's event loop) once the upgrade succeeded. Returns the
    /// channel once the upgrade request is sent.
    func connect(makeHandler: @escaping @Sendable () -> any ChannelHandler, onFailure: @escaping @Sendable (String) -> Void) -> EventLoopFuture<Channel> {
        let target = self.target
        let bootstrap = ClientBootstrap(group: group)
            .channelOption(.socketOption(.tcp_nodelay), value: 1)
            .connectTimeout(.seconds(10))
            .channelInitializer { channel in
                let upgrader = NIOWebSocketClientUpgrader(maxFrameSize: Self.maximumFrameSize, automaticErrorHandling: true) { channel, _ in
                    channel.eventLoop.makeCompletedFuture {
                        let operations = channel.pipeline.syncOperations
                        operations.removeHandler(name: LoadUpgradeWatcher.name, promise: nil)
                        try operations.addHandler(makeHandler())
                    }
                }
                return channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHTTPClientHandlers(withClientUpgrade: (upgraders: [upgrader], completionHandler: { _ in }))
                    try channel.pipeline.syncOperations.addHandler(LoadUpgradeWatcher(onFailure: onFailure), name: LoadUpgradeWatcher.name)
                }
            }
        return bootstrap.connect(host: target.address, port: target.port).flatMap { channel in
            var headers = HTTPHeaders()
            headers.add(name: "Host", value: target.hostHeader)
            headers.add(name: "Content-Length", value: "0")
            let head = HTTPRequestHead(version: .http1_1, method: .GET, uri: target.path, headers: headers)
            channel.write(HTTPClientRequestPart.head(head), promise: nil)
            return channel.writeAndFlush(HTTPClientRequestPart.end(nil)).map { channel }
        }
    }
}
