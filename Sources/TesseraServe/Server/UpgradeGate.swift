import Hummingbird
import HummingbirdCore
import HummingbirdWebSocket
import Logging
import NIOCore
import NIOHTTP1
import TesseraLiveHub
import TesseraLiveProtocol

/// The HTTP and WebSocket channel of ``ServeServer``: HummingbirdWebSocket's
/// own, with ``UpgradeGate`` in front of its upgrade handler, so that a
/// refused upgrade is answered by the router (403 or 503, saying why)
/// rather than with the bare 400 the upgrade handler gives.
struct GatedUpgradeChannel: ServerChildChannel {
    typealias Value = HTTP1WebSocketUpgradeChannel.Value

    /// The channel doing the work.
    let inner: HTTP1WebSocketUpgradeChannel
    /// The checks an upgrade must pass.
    let access: ServeAccess
    /// Whether the server holds all the clients it may.
    let isFull: @Sendable () -> Bool

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        let (access, isFull) = (self.access, self.isFull)
        return inner.setup(channel: channel, logger: logger).flatMapThrowing { value in
            let pipeline = channel.pipeline.syncOperations
            let upgrader = try pipeline.handler(type: NIOTypedHTTPServerUpgradeHandler<HTTP1WebSocketUpgradeChannel.UpgradeResult>.self)
            try pipeline.addHandler(UpgradeGate(access: access, isFull: isFull), position: .before(upgrader))
            return value
        }
    }

    func handle(value: Value, logger: Logger) async {
        await inner.handle(value: value, logger: logger)
    }
}

/// Looks at a connection's first request before the upgrade handler does:
/// an upgrade whose `Host` or `Origin` ``ServeAccess`` refuses, or one
/// that comes while the server is full, loses its `Upgrade` header and goes
/// on as a plain request, which the router refuses with 403 or 503. It then leaves the pipeline (the upgrade handler
/// looks at the first request only).
final class UpgradeGate: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart

    let access: ServeAccess
    let isFull: @Sendable () -> Bool

    init(access: ServeAccess, isFull: @escaping @Sendable () -> Bool) {
        self.access = access
        self.isFull = isFull
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard case var .head(head) = unwrapInboundIn(data) else {
            context.fireChannelRead(data)
            return
        }
        if head.headers.contains(name: "upgrade") {
            let authority = head.headers.first(name: "host")
            let origin = head.headers.first(name: "origin")
            if !access.allowsHost(authority) || !access.allowsOrigin(origin, authority: authority) || isFull() {
                head.headers.remove(name: "upgrade")
                let connection = head.headers[canonicalForm: "connection"].filter { $0.lowercased() != "upgrade" }
                head.headers.remove(name: "connection")
                for value in connection { head.headers.add(name: "connection", value: String(value)) }
            }
        }
        context.fireChannelRead(wrapInboundOut(.head(head)))
        context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
    }
}
