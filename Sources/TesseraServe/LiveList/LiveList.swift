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

/// A table served as a live list: every browser that opens its page shows
/// the table, sectioned and sorted, and animates each commit (its own
/// clients' edits and any other connection's or process's) by the plan
/// Tessera computes for that browser's viewport.
///
/// Mount it on a Hummingbird router and run it as one of the
/// application's services:
///
/// ```swift
/// import Hummingbird
/// import HummingbirdWebSocket
/// import TesseraServe
///
/// let photos = try LiveList(
///     database: "photos.sqlite", table: "photo",
///     columns: LiveList.Columns(section: "album", sort: "position", title: "title", order: "position"),
///     edits: [.rename, .move],
///     access: LiveList.Access(loopbackHostsOnly: true)
/// )
/// let router = Router(context: LiveListRequestContext.self)
/// photos.mount(on: router, at: "/photos")
/// var app = Application(
///     router: router,
///     server: .http1WebSocketUpgrade(webSocketRouter: router),
///     configuration: .init(address: .hostname("127.0.0.1", port: 8080))
/// )
/// app.addServices(photos)
/// try await app.runService()
/// ```
///
/// `GET /photos` then serves the page, and `/photos/live` is the
/// WebSocket it connects to (its messages are in the Protocol article). A
/// table with a change log (`tessera log install`, or
/// `Connection.installChangeLog(on:columns:keeping:)`) has other
/// processes' commits patched row by row, and opens lazily (sections and
/// counts first, keys in the background, records when shown); without
/// one, such a commit makes the list fetch the table again, and the list
/// reads every row before it serves.
///
/// What it refuses: a WebSocket upgrade whose `Origin` is not the page's
/// own server, one past ``Limits/maximumClients`` (an `error` of code
/// `full`, then a close with 1013), a message
/// over ``Limits/maximumMessageBytes`` (the connection closes with 1009),
/// messages over the rate (an `error`, dropped); with
/// ``Access/loopbackHostsOnly``, any request whose `Host` is not a loopback
/// name (403 for a plain request; a refused upgrade is answered as the
/// application's server answers a declined upgrade); and edits the ``Edits`` do not allow or that come without
/// ``Access/editToken`` (an `error`, nothing written).
public final class LiveList: Sendable {
    /// The hub the clients connect to.
    package let hub: ServeHub
    /// The checks made on every request.
    package let access: ServeAccess
    /// The limits on each client.
    package let limits: Limits
    /// The clients connected now.
    private let clientCount = Atomic<Int>(0)
    /// The clients' connections not closed yet: a client's counts until
    /// its channel has closed (after its close handshake), or, without a
    /// channel, until its task ends.
    private let openConnections = Atomic<Int>(0)
    /// Where the list is in its life: 0 before ``run()``, 1 while it runs,
    /// 2 once it has stopped.
    private let phase = Atomic<Int>(0)

    /// Who may open the list and who may edit it.
    public struct Access: Sendable, Hashable {
        /// The token edits need: a client whose WebSocket address has
        /// `?token=` with it may edit (as far as ``Edits`` allow), the
        /// others may only read. `nil`: every client may edit. It may not
        /// be empty.
        public var editToken: String?
        /// Whether to answer only requests whose `Host` names a loopback
        /// address (`localhost`, `127.0.0.1`, `::1`): set it for a server
        /// bound to a loopback address, so that a web page whose name
        /// resolves to 127.0.0.1 (DNS rebinding) cannot reach the list.
        public var loopbackHostsOnly: Bool

        /// Creates an access policy; by default every client may edit and
        /// any `Host` is answered.
        public init(editToken: String? = nil, loopbackHostsOnly: Bool = false) {
            self.editToken = editToken
            self.loopbackHostsOnly = loopbackHostsOnly
        }
    }

    /// The limits a live list puts on each WebSocket client.
    public struct Limits: Sendable, Hashable {
        /// The largest message a client may send, in bytes: a larger one
        /// closes the connection with status 1009. A frame is also limited
        /// by the server's `WebSocketServerConfiguration.maxFrameSize`
        /// (16 KiB unless set), and a browser sends each message in one
        /// frame: give the server at least this much
        /// (`.http1WebSocketUpgrade(webSocketRouter: router, configuration: .init(ws: .init(maxFrameSize: 64 * 1024)))`).
        public var maximumMessageBytes: Int
        /// The messages a client may send per second, on average; the ones
        /// over get an `error` (code `rateLimited`) and are dropped.
        public var messagesPerSecond: Double
        /// The messages a client may send at once before
        /// ``messagesPerSecond`` applies.
        public var messageBurst: Double
        /// The clients held at once: each costs its viewport, its state and
        /// its queue of messages, and each group of clients with the same
        /// layout and width one layout of the list. An upgrade past it
        /// is answered 503; one that races past it is closed (1013).
        public var maximumClients: Int

        /// The default ``maximumClients``.
        public static let defaultMaximumClients = 10_000
        /// The values ``maximumClients`` may take.
        public static let maximumClientsRange = 1...1_000_000

        /// Creates limits; the defaults are 64 KiB, 200 messages a second,
        /// bursts of 200 and 10,000 clients.
        public init(maximumMessageBytes: Int = 64 * 1024, messagesPerSecond: Double = 200, messageBurst: Double = 200, maximumClients: Int = Limits.defaultMaximumClients) {
            self.maximumMessageBytes = maximumMessageBytes
            self.messagesPerSecond = messagesPerSecond
            self.messageBurst = messageBurst
            self.maximumClients = maximumClients
        }
    }

    /// Opens the table of an SQLite file as a live list: the table and its
    /// columns are checked, and the list is fetched. Nothing is sent until
    /// the list runs (``run()``) and a client connects.
    ///
    /// - Parameters:
    ///   - database: The SQLite file; it must exist.
    ///   - table: The table (not a view): its rows are the list's items.
    ///     It needs a single-column primary key or row ids.
    ///   - columns: The columns it is sectioned, sorted, shown and
    ///     reordered by.
    ///   - edits: The edits clients may make.
    ///   - access: Who may open the list and who may edit it.
    ///   - limits: The limits on each client.
    ///   - logger: Where the list logs: following the table and stopping
    ///     (`info`), a failed read of the table's changes (`error`, once
    ///     until reads succeed again), a client closed for not reading
    ///     (`warning`), a refused edit (`info`), clients connecting and
    ///     leaving (`debug`), each with its details as metadata.
    /// - Throws: ``LiveListError`` naming the file, the table (and the
    ///   tables the file has) or the column (and the table's columns); a
    ///   limit out of its range; an empty edit token.
    /// - Complexity: O(*n* log *n*) to fetch *n* rows.
    public convenience init(
        database: String, table: String, columns: Columns, edits: Edits = .all, access: Access = Access(), limits: Limits = Limits(),
        logger: Logger = Logger(label: "tessera.live-list")
    ) throws(LiveListError) {
        try Self.check(limits, access)
        let configuration = ServeConfiguration(
            databasePath: database, table: table, sectionColumn: columns.section, sortColumn: columns.sort,
            sortDescending: columns.sortDescending, titleColumn: columns.title, orderColumn: columns.order, allowedEdits: edits.hubEdits,
            logger: logger
        )
        let hub: ServeHub
        do {
            hub = try ServeHub(configuration: configuration)
        } catch {
            throw LiveListError(error.description)
        }
        self.init(hub: hub, access: ServeAccess(loopbackHostsOnly: access.loopbackHostsOnly, token: access.editToken), limits: limits)
    }

    /// Serves `hub` under `access` and `limits`.
    package init(hub: ServeHub, access: ServeAccess, limits: Limits) {
        self.hub = hub
        self.access = access
        self.limits = limits
    }

    /// The clients connected now.
    public var connectedClients: Int { clientCount.load(ordering: .relaxed) }

    // MARK: Running

    /// Follows the database until the service group shuts down gracefully
    /// (or the task is cancelled), then closes every client's connection.
    ///
    /// The page and the WebSocket answer before it runs, but a client
    /// hears of other processes' commits only while it does. Once it has
    /// stopped, a client that connects is told so (an `error` of code
    /// `stopped`) and closed with 1001.
    ///
    /// - Throws: ``LiveListError`` when the list runs already or has
    ///   stopped: a list runs once.
    public func run() async throws {
        guard phase.compareExchange(expected: 0, desired: 1, ordering: .relaxed).exchanged else {
            throw LiveListError(phase.load(ordering: .relaxed) == 1
                ? "the live list of \(hub.schema.table) is already running: a list runs once"
                : "the live list of \(hub.schema.table) has stopped: a list runs once; make a new one")
        }
        defer { phase.store(2, ordering: .relaxed) }
        await hub.start()
        do {
            try await gracefulShutdown()
        } catch {
            // Cancelled: stop all the same.
        }
        // Stopped from here on: a client that connects while the others
        // close is told so, rather than given a session the hub's stop
        // would never end.
        phase.store(2, ordering: .relaxed)
        await hub.stop()
        // The hub's stop closed every client's outbox; each client's task
        // sends its close, waits for the answer (``serveClient(inbound:outbound:channel:canEdit:)``)
        // and ends, and its connection closes. In a service group that
        // shuts the list down before the server (a server's shutdown
        // drops the connections still open, with what they had yet to
        // send), wait for them first, at most ``clientsEndLimit``
        // (``ServeServer``'s server goes first, and waits for them
        // itself). Cancelled, it does not wait.
        let deadline = ContinuousClock.now + Self.clientsEndLimit
        while openConnections.load(ordering: .relaxed) > 0, ContinuousClock.now < deadline {
            do { try await Task.sleep(for: .milliseconds(2)) } catch { break }
        }
    }

    /// How long ``run()`` waits, once stopped, for its clients'
    /// connections to close.
    static let clientsEndLimit: Duration = .seconds(10)

    // MARK: Mounting

    /// Adds the list's page and its WebSocket to `router`: `GET path`
    /// serves the page, `GET path/tessera-live.js` its player module (for
    /// a front end of your own: <doc:WritingYourOwnFrontEnd>) and
    /// `path/live` upgrades to the WebSocket.
    ///
    /// The application's server must upgrade WebSockets through the
    /// router (`.http1WebSocketUpgrade(webSocketRouter: router)`). With
    /// ``LiveListRequestContext`` as the router's context, the list writes
    /// each client's frames straight to its channel; with another
    /// WebSocket context it writes them through the WebSocket's writer.
    ///
    /// - Parameter path: Where the page is: `/` (the default) or a path
    ///   such as `/photos`, as text (`/my photos`, `/café`) or as a URL
    ///   spells it (`/caf%C3%A9`): the characters a URL path cannot hold
    ///   are percent-encoded, escapes already there are kept, and empty
    ///   segments are dropped.
    public func mount<Context: RequestContext & WebSocketRequestContext>(on router: Router<Context>, at path: String = "/") {
        let base = Self.routePath(path)
        let access = self.access
        router.get(RouterPath("/" + base)) { request, _ -> Response in
            guard access.allowsHost(request.head.authority) else {
                throw LiveListRefusal(.forbidden, "this server answers only to a loopback host name")
            }
            return Self.page()
        }
        router.get(RouterPath("/" + (base.isEmpty ? "tessera-live.js" : base + "/tessera-live.js"))) { request, _ -> Response in
            guard access.allowsHost(request.head.authority) else {
                throw LiveListRefusal(.forbidden, "this server answers only to a loopback host name")
            }
            return Self.playerModule()
        }
        router.ws(RouterPath("/" + (base.isEmpty ? "live" : base + "/live"))) { [self] request, _ in
            try shouldUpgrade(request)
        } onUpgrade: { [self] inbound, outbound, context in
            let canEdit = access.canEdit(query: context.request.uri.query)
            let channel = (context.requestContext as? LiveListRequestContext)?.channel
            try await serveClient(inbound: inbound, outbound: outbound, channel: channel, canEdit: canEdit)
        }
    }

    /// Adds the list's metrics to `router` at `path`, in Prometheus' text
    /// format (see ``metricsText()``). The same `Host` check as the page's
    /// applies; put the route where only your monitoring reaches it, or
    /// behind your own middleware.
    public func mountMetrics<Context: RequestContext>(on router: Router<Context>, at path: String = "/metrics") {
        let access = self.access
        router.get(RouterPath(path)) { [self] request, _ -> Response in
            guard access.allowsHost(request.head.authority) else {
                throw LiveListRefusal(.forbidden, "this server answers only to a loopback host name")
            }
            var headers = HTTPFields()
            headers[.contentType] = "text/plain; version=0.0.4; charset=utf-8"
            headers[.cacheControl] = "no-store"
            return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: await metricsText())))
        }
    }

    /// What the list has done since it was made, in Prometheus' text
    /// exposition format: `tessera_live_clients` and `tessera_live_rows`
    /// (gauges); `connections_total`, `changes_total`,
    /// `plans_sent_total` (by `kind`: `animated` or `unchanged`, a change
    /// the client's viewport does not show), `merged_plans_total` (one plan
    /// for a client that fell behind), `clients_behind_total`,
    /// `clients_dropped_total` (closed for not reading) and `edits_total`
    /// (by `outcome`: `done` or `refused`) (counters, each prefixed
    /// `tessera_live_`); and `tessera_live_change_seconds`, a histogram of
    /// the time from taking a change to its plan queued for every client
    /// that is up to date.
    ///
    /// - Complexity: O(1) in the clients and rows.
    public func metricsText() async -> String {
        await hub.metricsText()
    }

    /// The page's response: the HTML, not cached and not framed.
    static func page() -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "text/html; charset=utf-8"
        headers[.cacheControl] = "no-store"
        headers[HTTPField.Name("X-Content-Type-Options")!] = "nosniff"
        headers[HTTPField.Name("X-Frame-Options")!] = "DENY"
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: LivePage.html)))
    }

    /// Whether a request for the WebSocket is upgraded: its `Host` and
    /// `Origin` pass and the list is not full; a plain `GET` is told to
    /// upgrade.
    private func shouldUpgrade(_ request: Request) throws -> RouterShouldUpgrade {
        guard access.allowsHost(request.head.authority) else {
            throw LiveListRefusal(.forbidden, "this server answers only to a loopback host name")
        }
        guard access.allowsOrigin(request.headers[.origin], authority: request.head.authority) else {
            throw LiveListRefusal(.forbidden, "the Origin is not this server's")
        }
        // An upgrade is let through when the list is full: a refusal here
        // would be the upgrade handler's bare 400, and ``serveClient`` closes
        // it with 1013 and says why. A plain GET hears it as 503.
        guard request.headers[HTTPField.Name("Upgrade")!]?.lowercased() == "websocket" else {
            if connectedClients >= limits.maximumClients {
                throw LiveListRefusal(.serviceUnavailable, Self.fullNotice(limits.maximumClients))
            }
            throw LiveListRefusal(HTTPResponse.Status(code: 426, reasonPhrase: "Upgrade Required"), "\(request.uri.path) is a WebSocket: open it with an upgrade")
        }
        return .upgrade([:])
    }

    /// Why a client past ``Limits/maximumClients`` is refused.
    static func fullNotice(_ maximumClients: Int) -> String {
        "this server holds its most clients (\(maximumClients)): try again later"
    }

    // MARK: One client

    /// Connects a client to the hub for the life of its WebSocket: the hub
    /// writes the client's messages to its outbox (straight to `channel`
    /// when there is one), one task writes the ones that wait there, and
    /// this one hands the client's messages to the hub.
    package func serveClient(inbound: WebSocketInboundStream, outbound: WebSocketOutboundWriter, channel: (any Channel)?, canEdit: Bool) async throws {
        openConnections.add(1, ordering: .relaxed)
        defer {
            if let channel {
                channel.closeFuture.whenComplete { [self] _ in openConnections.subtract(1, ordering: .relaxed) }
            } else {
                openConnections.subtract(1, ordering: .relaxed)
            }
        }
        // Upgrades that raced past the limit together: the ones over it
        // are closed at once, before the hub knows of them.
        if phase.load(ordering: .relaxed) == 2 {
            try await outbound.write(.text(Self.error(code: "stopped", message: "this live list has stopped", about: nil)))
            try await outbound.close(.goingAway, reason: "stopped")
            return
        }
        let count = clientCount.add(1, ordering: .relaxed).newValue
        defer { clientCount.subtract(1, ordering: .relaxed) }
        guard count <= limits.maximumClients else {
            try await outbound.write(.text(Self.error(code: "full", message: Self.fullNotice(limits.maximumClients), about: nil)))
            try await outbound.close(.unknown(1013), reason: "try again later")
            return
        }
        let (id, outbox) = await hub.connect(canEdit: canEdit)
        // Connected as the list stopped, after the hub closed its clients:
        // this one closes too.
        if phase.load(ordering: .relaxed) == 2 { outbox.close() }
        // Before the client's first message: nothing is queued yet. When the
        // channel takes no writer (it closed already), the outbox goes on
        // queueing for the task below.
        if let channel, let sink = try? await ServeFrameSink.install(on: channel) { outbox.attach(sink) }
        let hub = self.hub
        let limits = self.limits
        try await withThrowingTaskGroup(of: ClientTaskEnd.self) { group in
            group.addTask {
                while let text = await outbox.next() {
                    try await outbound.write(.text(text))
                }
                return .writer
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
                        // One notice a second at most, so that a flood is
                        // not answered by another.
                        if lastNotice.map({ now - $0 >= .seconds(1) }) ?? true {
                            lastNotice = now
                            let notice = "more than \(Int(limits.messagesPerSecond)) messages a second: this one and the next ones over the rate are dropped"
                            try await outbound.write(.text(Self.error(code: "rateLimited", message: notice, about: text)))
                        }
                        continue
                    }
                    await hub.receive(text, from: id)
                }
                return .reader
            }
            // Whichever ends first (the client closed, or the hub closed the
            // outbox) ends the other. The outbox's reader may not see a
            // cancellation: the hub closes it before the group waits for its
            // tasks.
            // A graceful shutdown of the application ends the client as
            // the hub's stop does (its outbox closes), so that the server
            // sends the close and drops a client that does not answer it
            // within the WebSocket's close timeout, rather than wait for
            // the client to close.
            let first: ClientTaskEnd?
            do {
                first = try await withGracefulShutdownHandler {
                    try await group.next()
                } onGracefulShutdown: {
                    outbox.close()
                }
            } catch {
                await hub.disconnect(id)
                group.cancelAll()
                throw error
            }
            await hub.disconnect(id)
            // The close handshake, before the task ends, when the list ended
            // the client: the close frame, then the client's answer, which
            // ends the reader. Cancelling the reader at once instead ends
            // the connection as soon as this task returns, and on a
            // graceful shutdown the WebSocket sends its own close from a
            // task of its own: that frame could still be unsent, and the
            // client got no close at all. A client that does not answer
            // within ``closeAnswerLimit`` (or whose close cannot be written,
            // as it reads nothing) is cut off. A client that closed first
            // has had its answer.
            if first == .writer {
                group.addTask {
                    try? await outbound.close(.normalClosure, reason: nil)
                    return .closeSent
                }
                group.addTask {
                    try await Task.sleep(for: Self.closeAnswerLimit)
                    return .timeUp
                }
                while let ended = try? await group.next(), ended == .closeSent {}
            }
            group.cancelAll()
            do {
                while try await group.next() != nil {}
            } catch {
                // The tasks cancelled (a reader or a timer), a write after
                // the close, a client that went away without answering: the
                // connection ends all the same.
            }
        }
    }

    /// How each of a client's tasks ended.
    private enum ClientTaskEnd: Sendable {
        case writer, reader, closeSent, timeUp
    }

    /// How long a client's connection waits, once the list closed it, for
    /// the client to answer the close (as the command's server's
    /// WebSocket close timeout).
    static let closeAnswerLimit: Duration = .seconds(5)

    /// An `error` message the transport itself sends (the hub sends the
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

extension LiveList: Service {}

/// A failure to open a live list: the file, server, table or column it
/// names is not there, or the table has no key to identify its rows by.
public struct LiveListError: Error, CustomStringConvertible, Sendable, Hashable {
    /// The message, one line, naming the file, table or column.
    public var description: String

    package init(_ description: String) {
        self.description = description
    }
}

/// A request context for a router a ``LiveList`` is mounted on: a plain
/// WebSocket context that also keeps the connection's channel, so that the
/// list writes each client's frames straight to it (fewer copies and task
/// switches than through the WebSocket's writer).
public struct LiveListRequestContext: RequestContext, WebSocketRequestContext {
    /// The context's storage.
    public var coreContext: CoreRequestContextStorage
    /// Where a WebSocket route leaves its handler.
    public let webSocket: WebSocketHandlerReference<Self>
    /// The connection.
    let channel: any Channel

    /// Creates the context of a request on a connection.
    public init(source: ApplicationRequestContextSource) {
        coreContext = CoreRequestContextStorage(source: source)
        webSocket = WebSocketHandlerReference()
        channel = source.channel
    }
}

/// A refused request, answered with its status and a line of plain text
/// saying why.
struct LiveListRefusal: HTTPResponseError {
    let status: HTTPResponse.Status
    let message: String

    init(_ status: HTTPResponse.Status, _ message: String) {
        self.status = status
        self.message = message
    }

    func response(from request: Request, context: some RequestContext) throws -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "text/plain; charset=utf-8"
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: message + "\n")))
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
