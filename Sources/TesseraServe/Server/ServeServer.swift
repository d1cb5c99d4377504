import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdCore
import HummingbirdWebSocket
import Logging
import NIOCore
import ServiceLifecycle
import Synchronization
import TesseraLiveHub
import TesseraLiveProtocol
import TesseraRender
import TesseraResultsCore
import TesseraSQLite

/// The limits the server puts on each WebSocket client.
package typealias ServeLimits = LiveList.Limits

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
    /// The live list the server mounts at `/`.
    package let live: LiveList
    /// The address the server binds to.
    package let host: String
    /// The port asked for; 0 for any free port (see ``boundPort``).
    package let requestedPort: Int
    /// The token edits need: the one given, or a new one
    /// (``ServeAccess/makeToken()``) when none is given and ``host`` is not
    /// a loopback address; `nil` on loopback when none is given.
    package let token: String?

    /// Where the server is in its life: the port once it listens, or the
    /// error that ended it.
    private let state = PThreadMutex<State>(State())

    /// Where a server is in its life.
    private struct State {
        /// The port, once it listens.
        var port: Int?
        /// The listening socket's channel, once it listens.
        var listener: (any Channel)?
        /// The error that ended it.
        var failure: ServeServerError?
        /// Whether ``run()`` returned.
        var ended = false
        /// The service group of ``run()``, while it runs.
        var group: ServiceGroup?
        /// Whether ``shutDownGracefully()`` was called.
        var stopRequested = false
    }

    /// The hub the clients connect to.
    package var hub: ServeHub { live.hub }
    /// The limits on each client.
    package var limits: ServeLimits { live.limits }
    /// The checks made on every request.
    package var access: ServeAccess { live.access }
    /// The clients connected now.
    package var connectedClients: Int { live.connectedClients }

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
        self.host = host
        requestedPort = port
        let token = token ?? (ServeAccess.isLoopback(host: host) ? nil : ServeAccess.makeToken())
        self.token = token
        live = LiveList(hub: hub, access: ServeAccess(host: host, token: token), limits: limits)
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

    /// Runs the application (its HTTP server, and the live list as one of
    /// its services, which follows the database) in a service group until
    /// ``shutDownGracefully()`` or until the task running it is cancelled;
    /// then every client's connection is closed (with a close frame on a
    /// graceful shutdown) and it returns.
    ///
    /// - Throws: ``ServeServerError`` naming the address when it cannot
    ///   listen there.
    package func run() async throws(ServeServerError) {
        let group = ServiceGroup(configuration: ServiceGroupConfiguration(services: [makeApplication()], logger: Self.quietLogger))
        let stoppedEarly = state.withLock { state in
            state.group = group
            return state.stopRequested
        }
        if stoppedEarly { await group.triggerGracefulShutdown() }
        do {
            try await group.run()
        } catch {
            await closeListener()
            let failure = ServeServerError("cannot listen on \(host):\(requestedPort): \(Self.reason(error))")
            state.withLock {
                $0.failure = failure
                $0.ended = true
            }
            throw failure
        }
        await closeListener()
        state.withLock { $0.ended = true }
    }

    /// Waits until the listening socket is closed (closing it if the
    /// application left it open), so that the port is free once ``run()``
    /// returns: the application's shutdown only starts the close.
    private func closeListener() async {
        guard let listener = state.withLock({ $0.listener }) else { return }
        try? await listener.close()
        try? await listener.closeFuture.get()
        state.withLock { $0.listener = nil }
    }

    /// How long a WebSocket closed by the server waits for the client's
    /// close before its connection is dropped: what a graceful shutdown
    /// waits for at most once every close is sent.
    package static let closeTimeout: Duration = .seconds(5)

    /// Asks the running server to stop: it stops accepting connections,
    /// closes each client's WebSocket with a close frame, stops following
    /// the database, and ``run()`` returns. Before ``run()``, it makes the
    /// next run stop as soon as it starts.
    package func shutDownGracefully() async {
        let group = state.withLock { state in
            state.stopRequested = true
            return state.group
        }
        await group?.triggerGracefulShutdown()
    }

    /// A logger for Hummingbird and the service group that logs nothing.
    private static var quietLogger: Logger {
        var logger = Logger(label: "tessera serve", factory: { _ in SwiftLogNoOpLogHandler() })
        logger.logLevel = .critical
        return logger
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
        let descriptor = socket(address.ai_family, address.ai_socktype | Int32(SOCK_CLOEXEC.rawValue), address.ai_protocol)
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

    /// The command's application: a router with the live list at `/`,
    /// behind ``UpgradeGate`` (so that a refused upgrade is answered 403 or
    /// 503 by the router, saying why, not with a bare 400).
    private func makeApplication() -> some ApplicationProtocol {
        // The list is one of the application's services: it follows the
        // database while the server runs, and closes its clients first on
        // a graceful shutdown.
        let router = Router(context: LiveListRequestContext.self)
        live.mount(on: router)
        live.mountMetrics(on: router)
        let logger = Self.quietLogger
        let webSocket = WebSocketServerConfiguration(
            maxFrameSize: limits.maximumMessageBytes,
            autoPing: .enabled(timePeriod: .seconds(30)),
            closeTimeout: Self.closeTimeout,
            validateUTF8: true
        )
        let responder = router.buildResponder()
        var application = Application(
            router: router,
            server: HTTPServerBuilder { [self, access] httpResponder in
                GatedUpgradeChannel(
                    inner: HTTP1WebSocketUpgradeChannel(responder: httpResponder, webSocketResponder: responder, configuration: .init(ws: webSocket)),
                    access: access,
                    isFull: { [self] in connectedClients >= limits.maximumClients }
                )
            },
            configuration: ApplicationConfiguration(address: .hostname(host, port: requestedPort), serverName: nil, reuseAddress: true),
            onServerRunning: { [self] channel in
                let port = channel.localAddress?.port
                state.withLock {
                    $0.port = port
                    $0.listener = channel
                }
            },
            logger: logger
        )
        application.addServices(live)
        return application
    }
}
