import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdCore
import HummingbirdWebSocket
import Logging
import NIOCore
import Synchronization
import TesseraRender
import TesseraResultsCore
import TesseraSQLite

/// The limits the server puts on each WebSocket client.
package struct ServeLimits: Sendable, Hashable {
    /// The largest message (and frame) a client may send, in bytes: a
    /// larger one closes the connection with status 1009.
    package var maximumMessageBytes: Int
    /// The messages a client may send per second, on average; the ones
    /// over get an `error` (code `rateLimited`) and are dropped.
    package var messagesPerSecond: Double
    /// The messages a client may send at once before ``messagesPerSecond``
    /// applies.
    package var messageBurst: Double
    /// The clients the server holds at once: each costs its view and its
    /// layout (about 310 KiB on the demo's 10,000 photos). An upgrade past
    /// it is answered 503; one that races past it is closed (1013).
    package var maximumClients: Int

    /// The default ``maximumClients``.
    package static let defaultMaximumClients = 10_000
    /// The values ``maximumClients`` may take.
    package static let maximumClientsRange = 1...1_000_000

    /// Creates limits; the defaults are 64 KiB, 200 messages a second,
    /// bursts of 200 and 10,000 clients.
    package init(maximumMessageBytes: Int = 64 * 1024, messagesPerSecond: Double = 200, messageBurst: Double = 200, maximumClients: Int = ServeLimits.defaultMaximumClients) {
        self.maximumMessageBytes = maximumMessageBytes
        self.messagesPerSecond = messagesPerSecond
        self.messageBurst = messageBurst
        self.maximumClients = maximumClients
    }
}

/// A failure to run the server: it could not listen where asked.
package struct ServeServerError: Error, CustomStringConvertible, Sendable, Hashable {
    /// The message, one line, naming the address.
    package var description: String

    /// Creates an error.
    package init(_ description: String) {
        self.description = description
    }
}

/// The live list's HTTP server: `GET /` serves the page and `GET /live`
/// upgrades to the WebSocket that connects a client to a ``ServeHub``.
///
/// The server answers only what ``ServeAccess`` allows (the `Host` of a
/// loopback server, the `Origin` of an upgrade, the token of an edit),
/// refuses WebSocket messages over ``ServeLimits/maximumMessageBytes``
/// (closing with 1009) and answers messages over the rate limit with an
/// `error`. Run it with ``run()``; it listens until the task running it is
/// cancelled.
package final class ServeServer: Sendable {
    /// The hub the clients connect to.
    package let hub: ServeHub
    /// The address the server binds to.
    package let host: String
    /// The port asked for; 0 for any free port (see ``boundPort``).
    package let requestedPort: Int
    /// The token edits need: the one given, or a new one
    /// (``ServeAccess/makeToken()``) when none is given and ``host`` is not
    /// a loopback address; `nil` on loopback when none is given.
    package let token: String?
    /// The limits on each client.
    package let limits: ServeLimits
    /// The checks made on every request.
    package let access: ServeAccess

    /// Where the server is in its life: the port once it listens, or the
    /// error that ended it.
    private let state = PThreadMutex<(port: Int?, failure: ServeServerError?, ended: Bool)>((nil, nil, false))
    /// The clients connected now.
    private let clientCount = Atomic<Int>(0)

    /// The clients connected now.
    package var connectedClients: Int { clientCount.load(ordering: .relaxed) }

    /// Creates a server for `hub`; nothing listens until ``run()``.
    ///
    /// - Parameters:
    ///   - host: The address to bind to: `127.0.0.1` keeps the list on this
    ///     machine.
    ///   - port: The port; 0 for any free one.
    ///   - token: The token edits need; `nil` for none on a loopback
    ///     address, and a new random one on any other.
    ///   - limits: The limits on each client.
    package init(hub: ServeHub, host: String = "127.0.0.1", port: Int = 8080, token: String? = nil, limits: ServeLimits = ServeLimits()) {
        self.hub = hub
        self.host = host
        requestedPort = port
        let token = token ?? (ServeAccess.isLoopback(host: host) ? nil : ServeAccess.makeToken())
        self.token = token
        self.limits = limits
        access = ServeAccess(host: host, token: token)
    }

    /// The port the server listens on, once it does; `nil` before and
    /// after.
    package var boundPort: Int? {
        state.withLock { $0.ended ? nil : $0.port }
    }

    /// The page's address, `http://host:port/`, once the server listens
    /// (an IPv6 address in brackets); `nil` before.
    package var address: String? {
        guard let port = boundPort else { return nil }
        let name = host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
        return "http://\(name):\(port)/"
    }

    /// Waits until the server listens and returns its port.
    ///
    /// - Throws: ``ServeServerError`` when ``run()`` failed (the address is
    ///   taken, say) or ended first; `CancellationError` when the waiting
    ///   task is cancelled.
    package func waitUntilListening() async throws -> Int {
        while true {
            let (port, failure, ended) = state.withLock { ($0.port, $0.failure, $0.ended) }
            if let failure { throw failure }
            if ended { throw ServeServerError("the server at \(host):\(requestedPort) stopped") }
            if let port { return port }
            try await Task.sleep(for: .milliseconds(5))
        }
    }

    /// Starts the hub following its database, listens, and serves until the
    /// task running it is cancelled; then stops the hub (closing every
    /// client) and returns.
    ///
    /// - Throws: ``ServeServerError`` naming the address when it cannot
    ///   listen there.
    package func run() async throws(ServeServerError) {
        let application = makeApplication()
        await hub.start()
        do {
            try await application.run()
        } catch {
            await hub.stop()
            let failure = ServeServerError("cannot listen on \(host):\(requestedPort): \(Self.reason(error))")
            state.withLock {
                $0.failure = failure
                $0.ended = true
            }
            throw failure
        }
        await hub.stop()
        state.withLock { $0.ended = true }
    }

    /// Checks that a server could listen on `host`:`port` now, by binding
    /// a socket there (with `SO_REUSEADDR`, as ``run()`` binds) and
    /// closing it, so that a command can refuse a taken address before it
    /// changes anything. Port 0 (any free port) and a host name the system
    /// cannot resolve here pass: ``run()`` says what is wrong with them.
    ///
    /// - Throws: ``ServeServerError`` naming the address, in the words
    ///   ``run()`` would use.
    package static func checkAddress(host: String, port: Int) throws(ServeServerError) {
        guard port != 0 else { return }
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV
        var found: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, String(port), &hints, &found) == 0, let first = found else { return }
        defer { freeaddrinfo(first) }
        let address = first.pointee
        let descriptor = socket(address.ai_family, address.ai_socktype, address.ai_protocol)
        guard descriptor >= 0 else { return }
        defer { close(descriptor) }
        var on: Int32 = 1
        _ = setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &on, socklen_t(MemoryLayout<Int32>.size))
        guard bind(descriptor, address.ai_addr, address.ai_addrlen) == 0 else {
            let reason = String(cString: strerror(errno)).lowercased()
            throw ServeServerError("cannot listen on \(host):\(port): \(reason)")
        }
    }

    /// A short reason for a failure to listen: the system's words without
    /// the call that failed.
    static func reason(_ error: any Error) -> String {
        if let error = error as? IOError {
            return String(cString: strerror(error.errnoCode)).lowercased()
        }
        return "\(error)"
    }

    // MARK: The application

    private func makeApplication() -> some ApplicationProtocol {
        let router = Router()
        let access = self.access
        router.get("/") { request, _ -> Response in
            guard access.allowsHost(request.head.authority) else { return Self.refusal(.forbidden, "this server answers only to a loopback host name") }
            var headers = HTTPFields()
            headers[.contentType] = "text/html; charset=utf-8"
            headers[.cacheControl] = "no-store"
            headers[HTTPField.Name("X-Content-Type-Options")!] = "nosniff"
            headers[HTTPField.Name("X-Frame-Options")!] = "DENY"
            return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: LivePage.html)))
        }
        // Reached only when /live was not upgraded: say why.
        let maximumClients = limits.maximumClients
        router.get("/live") { [self] request, _ -> Response in
            guard access.allowsHost(request.head.authority) else { return Self.refusal(.forbidden, "this server answers only to a loopback host name") }
            guard access.allowsOrigin(request.headers[.origin], authority: request.head.authority) else {
                return Self.refusal(.forbidden, "the Origin is not this server's")
            }
            if connectedClients >= maximumClients {
                return Self.refusal(.serviceUnavailable, Self.fullNotice(maximumClients))
            }
            return Self.refusal(HTTPResponse.Status(code: 426, reasonPhrase: "Upgrade Required"), "/live is a WebSocket: open it with an upgrade")
        }
        var logger = Logger(label: "tessera serve", factory: { _ in SwiftLogNoOpLogHandler() })
        logger.logLevel = .critical
        let webSocket = WebSocketServerConfiguration(
            maxFrameSize: limits.maximumMessageBytes,
            autoPing: .enabled(timePeriod: .seconds(30)),
            validateUTF8: true
        )
        return Application(
            router: router,
            server: HTTPServerBuilder { [self, access] responder in
                GatedUpgradeChannel(
                    inner: HTTP1WebSocketUpgradeChannel(responder: responder, configuration: .init(ws: webSocket)) { [self] request, channel, _ in
                        shouldUpgrade(request, channel: channel)
                    },
                    access: access,
                    isFull: { [self] in connectedClients >= limits.maximumClients }
                )
            },
            configuration: ApplicationConfiguration(address: .hostname(host, port: requestedPort), serverName: nil, reuseAddress: true),
            onServerRunning: { [self] channel in
                let port = channel.localAddress?.port
                state.withLock { $0.port = port }
            },
            logger: logger
        )
    }

    /// Why a client past ``ServeLimits/maximumClients`` is refused.
    private static func fullNotice(_ maximumClients: Int) -> String {
        "this server holds its most clients (\(maximumClients)): try again later"
    }

    /// A plain-text refusal.
    private static func refusal(_ status: HTTPResponse.Status, _ message: String) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "text/plain; charset=utf-8"
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: message + "\n")))
    }

    /// Upgrades `GET /live` when its `Host` and `Origin` pass; anything
    /// else goes on to the router, which answers it.
    private func shouldUpgrade(_ request: HTTPRequest, channel: any Channel) -> ShouldUpgradeResult<WebSocketDataHandler<HTTP1WebSocketUpgradeChannel.Context>> {
        let target = request.path ?? ""
        let parts = target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        // The limit is not checked again here: UpgradeGate has answered an
        // upgrade that came while the server was full with 503, and one
        // that raced past it since is closed with 1013 in `serve`. A
        // refusal here would be the upgrade handler's bare 400.
        guard parts.first == "/live", request.method == .get,
              access.allowsHost(request.authority),
              access.allowsOrigin(request.headerFields[.origin], authority: request.authority)
        else { return .dontUpgrade }
        let canEdit = access.canEdit(query: parts.count == 2 ? String(parts[1]) : nil)
        return .upgrade([:]) { [self] inbound, outbound, _ in
            try await serve(inbound: inbound, outbound: outbound, channel: channel, canEdit: canEdit)
        }
    }

    // MARK: One client

    /// Connects a client to the hub for the life of its WebSocket: the hub
    /// writes the client's messages straight to its channel (the outbox is
    /// attached to it), one task waits for the outbox to close, and this
    /// one hands the client's messages to the hub.
    private func serve(inbound: WebSocketInboundStream, outbound: WebSocketOutboundWriter, channel: any Channel, canEdit: Bool) async throws {
        // Upgrades that raced past the limit together: the ones over it
        // are closed at once, before the hub knows of them.
        let count = clientCount.add(1, ordering: .relaxed).newValue
        defer { clientCount.subtract(1, ordering: .relaxed) }
        guard count <= limits.maximumClients else {
            try await outbound.write(.text(Self.error(code: "full", message: Self.fullNotice(limits.maximumClients), about: nil)))
            try await outbound.close(.unknown(1013), reason: "try again later")
            return
        }
        let (id, outbox) = await hub.connect(canEdit: canEdit)
        // Before the client's first message: nothing is queued yet. When the
        // channel takes no writer (it closed already), the outbox goes on
        // queueing for the task below.
        try? await outbox.attach(channel)
        let hub = self.hub
        let limits = self.limits
        try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    while let text = await outbox.next() {
                        try await outbound.write(.text(text))
                    }
                }
                group.addTask {
                    var rate = MessageRate(perSecond: limits.messagesPerSecond, burst: limits.messageBurst)
                    var lastNotice: ContinuousClock.Instant?
                    for try await message in inbound.messages(maxSize: limits.maximumMessageBytes) {
                        let now = ContinuousClock.now
                        let text: String
                        switch message {
                        case .text(let received):
                            text = received
                        case .binary:
                            try await outbound.write(.text(Self.error(code: "malformed", message: "a binary message: messages are JSON objects in text frames", about: nil)))
                            continue
                        }
                        guard rate.admit(at: now) else {
                            // One notice a second at most, so that a flood
                            // is not answered by another.
                            if lastNotice.map({ now - $0 >= .seconds(1) }) ?? true {
                                lastNotice = now
                                let notice = "more than \(Int(limits.messagesPerSecond)) messages a second: this one and the next ones over the rate are dropped"
                                try await outbound.write(.text(Self.error(code: "rateLimited", message: notice, about: text)))
                            }
                            continue
                        }
                        await hub.receive(text, from: id)
                    }
                }
                // Whichever ends first (the client closed, or the hub closed
                // the outbox) ends the other.
                // The outbox's reader may not see a cancellation: the hub
                // closes it before the group waits for its tasks.
                do {
                    try await group.next()
                } catch {
                    await hub.disconnect(id)
                    group.cancelAll()
                    throw error
                }
                await hub.disconnect(id)
                group.cancelAll()
                do {
                    try await group.waitForAll()
                } catch is CancellationError {
                    // The reader stopped because the writer ended: a close
                    // as usual, not a failure.
                }
            }
    }

    /// An `error` message the server itself sends (the hub sends the
    /// others), echoing the `request` of the message it is about when that
    /// message has one.
    static func error(code: String, message: String, about text: String?) -> String {
        var members: [(key: String, value: JSON)] = [("type", .string("error"))]
        if let text, text.utf8.count <= 64 * 1024, let parsed = try? JSON.parse(text), let request = parsed["request"] {
            members.append(("request", request))
        }
        members += [("code", .string(code)), ("message", .string(message))]
        return JSON.object(members).compactText
    }
}

/// A token bucket: `burst` messages at once, refilled at `perSecond`.
struct MessageRate {
    var perSecond: Double
    var burst: Double
    private var tokens: Double
    private var last: ContinuousClock.Instant?

    init(perSecond: Double, burst: Double) {
        self.perSecond = perSecond
        self.burst = burst
        tokens = burst
    }

    /// Whether a message at `now` is within the rate; takes its token
    /// when it is.
    mutating func admit(at now: ContinuousClock.Instant) -> Bool {
        if let last {
            let elapsed = now - last
            let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
            tokens = min(burst, tokens + max(0, seconds) * perSecond)
        }
        last = now
        guard tokens >= 1 else { return false }
        tokens -= 1
        return true
    }
}
