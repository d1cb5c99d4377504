import Foundation
import Hummingbird
import HummingbirdWebSocket
import Logging
import ServiceLifecycle
import Testing
import TesseraRender
import TesseraResultsCore
import TesseraSQLite
import TesseraLiveHub
import TesseraLiveProtocol
import TesseraServe
import TesseraTestTraits

/// A ``LiveList`` mounted by an application at paths a URL spells with
/// escapes, and shut down gracefully while its clients stay silent.
@Suite("Live list mount paths and graceful shutdown")
struct LiveListMountEdgeTests {
    static let columns = LiveList.Columns(section: "album", sort: "position", title: "title", order: "position")

    /// Runs an application with `lists` (mounted by `mount`) in a service
    /// group, gives its port to `body` (run off the cooperative pool), then
    /// shuts the group down gracefully and returns whether it ended within
    /// 12,000 rounds of 10 ms (cancelling it when it did not).
    static func serving(
        _ lists: [LiveList], maxFrameSize: Int = 1 << 14, mount: (Router<LiveListRequestContext>) -> Void,
        _ body: @escaping @Sendable (Int) throws -> Void
    ) async throws -> Bool {
        let router = Router(context: LiveListRequestContext.self)
        mount(router)
        let (ports, listening) = AsyncStream.makeStream(of: Int.self)
        var application = Application(
            router: router,
            // A client that never answers the close is dropped 100 ms after it.
            server: .http1WebSocketUpgrade(webSocketRouter: router, configuration: .init(ws: .init(maxFrameSize: maxFrameSize, closeTimeout: .milliseconds(100)))),
            configuration: ApplicationConfiguration(address: .hostname("127.0.0.1", port: 0)),
            onServerRunning: { channel in listening.yield(channel.localAddress?.port ?? 0) }
        )
        for list in lists { application.addServices(list) }
        var logger = Logger(label: "LiveListMountEdgeTests")
        logger.logLevel = .critical
        let group = ServiceGroup(configuration: .init(services: [application], gracefulShutdownSignals: [], logger: logger))
        let ended = EndFlag()
        // An unstructured task, never cancelled unless it hangs: see
        // withMountedApplication.
        let running = Task {
            try await group.run()
            ended.value.withLock { $0 = true }
        }
        var next = ports.makeAsyncIterator()
        do {
            let port = try #require(await next.next())
            try await ServerTestSupport.blocking { try body(port) }
        } catch {
            await group.triggerGracefulShutdown()
            _ = try? await running.value
            throw error
        }
        await group.triggerGracefulShutdown()
        let done = try await waitInRounds(12_000, every: .milliseconds(10)) { ended.value.withLock { $0 } }
        if !done { running.cancel() }
        try await running.value
        return done
    }

    /// A client that said hello and read its snapshot.
    static func connectedClient(port: Int, path: String) throws -> RawClient {
        let client = try RawClient(port: port)
        let response = try client.upgrade(path, host: "127.0.0.1:\(port)")
        guard response.status == 101 else { throw ServerTestError("\(path): \(response.status) \(response.body)") }
        try client.sendText(#"{"type":"hello","layout":"list","viewport":[0,0,400,800],"ids":true}"#)
        _ = try client.readMessage(ofType: "snapshot")
        return client
    }

    @Test("a path with a space, a non-ASCII letter or an escape serves its page and socket at the address a browser asks for",
          arguments: [("/my photos", "/my%20photos"), ("/café/board", "/caf%C3%A9/board"), ("/caf%C3%A9", "/caf%C3%A9"), ("//x//", "/x"), ("", "/")])
    func escapedPaths(mountedAt path: String, requested: String) async throws {
        let library = try HubLibrary(photos: 6, albums: 2)
        let list = try LiveList(database: library.path, table: "photo", columns: Self.columns)
        let ended = try await Self.serving([list], mount: { list.mount(on: $0, at: path) }) { port in
            let page = try RawClient(port: port).get(requested, host: "127.0.0.1:\(port)")
            #expect(page.status == 200, "GET \(requested) for a list mounted at \(path): \(page.status) \(page.body)")
            // Where the page connects: its own path (as the browser has it) + /live.
            let socket = (requested == "/" ? "" : requested) + "/live"
            _ = try Self.connectedClient(port: port, path: socket)
        }
        #expect(ended)
    }

    @Test("a 20 KiB delete closes the connection (1009) under the server's default 16 KiB frames, and is answered with the frame size the article says to give",
          arguments: [1 << 14, 64 * 1024])
    func messageOverDefaultFrameSize(maxFrameSize: Int) async throws {
        let library = try HubLibrary(photos: 6, albums: 2)
        let list = try LiveList(database: library.path, table: "photo", columns: Self.columns)
        let ended = try await Self.serving([list], maxFrameSize: maxFrameSize, mount: { list.mount(on: $0, at: "/") }) { port in
            let client = try Self.connectedClient(port: port, path: "/live")
            let ids = (0..<1_000).map { "\"no-such-item-number-\($0)\"" }.joined(separator: ",")
            let message = #"{"type":"delete","request":1,"ids":["# + ids + "]}"
            #expect(message.utf8.count > 20 * 1024 && message.utf8.count < 64 * 1024)
            try client.sendText(message)
            if maxFrameSize < message.utf8.count {
                var reply = try client.readMessage()
                while case .text = reply { reply = try client.readMessage() }
                #expect(reply == .close(code: 1009))
            } else {
                let error = try client.readMessage(ofType: "error")
                #expect(error["code"] == .string("notFound"), "\(error.compactText.prefix(300))")
            }
        }
        #expect(ended)
    }

    @Test("a graceful shutdown ends the application while connected clients of two lists neither read nor answer the close")
    func shutdownWithSilentClients() async throws {
        let library = try HubLibrary(photos: 6, albums: 2)
        let photos = try LiveList(database: library.path, table: "photo", columns: Self.columns)
        let readOnly = try LiveList(database: library.path, table: "photo", columns: Self.columns, edits: .none)
        let clients = PThreadMutex<[RawClient]>([])
        let ended = try await Self.serving([photos, readOnly], mount: { router in
            photos.mount(on: router, at: "/photos")
            readOnly.mount(on: router, at: "/read")
        }) { port in
            for path in ["/photos/live", "/photos/live", "/read/live"] {
                let client = try Self.connectedClient(port: port, path: path)
                clients.withLock { $0.append(client) }
            }
        }
        #expect(ended, "the service group did not end within 12,000 rounds of 10 ms of its graceful shutdown")
        #expect(photos.connectedClients == 0 && readOnly.connectedClients == 0)
        // Each client was sent a close, then its connection ended.
        for client in clients.withLock({ $0 }) {
            let closed = try await ServerTestSupport.blocking { () throws -> Bool in
                while true {
                    if case .close = try client.readMessage() { return client.readsToEnd() }
                }
            }
            #expect(closed)
        }
    }
}

/// Whether a task has ended, read by another.
private final class EndFlag: Sendable {
    let value = PThreadMutex(false)
}
