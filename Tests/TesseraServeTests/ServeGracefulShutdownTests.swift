import Foundation
import TesseraRender
import Hummingbird
import TesseraSQLite
import TesseraTestTraits
import Testing
@testable import TesseraLiveHub
@testable import TesseraLiveProtocol
@testable import TesseraServe

/// A server stops through ServiceLifecycle's graceful shutdown: every
/// client's WebSocket ends with a close frame, not a dropped connection,
/// and the run returns.
@Suite("Serve graceful shutdown", .ownThreads)
struct ServeGracefulShutdownTests {
    @Test("shutDownGracefully closes each connected client with 1000 and ends run()")
    func inProcess() async throws {
        let hub = try ServeHub(configuration: try ServerTestSupport.library(photos: 100))
        let server = ServeServer(hub: hub, host: "127.0.0.1", port: 0)
        let run = Task { try await server.run() }
        let port = try await server.waitUntilListening()
        let clients = try await ServerTestSupport.blocking {
            try (0..<3).map { _ in
                let client = try RawClient(port: port)
                _ = try client.upgrade(host: "127.0.0.1:\(port)")
                try client.sendText(#"{"type":"hello","layout":"list","viewport":[0,0,400,600]}"#)
                _ = try client.readMessage(ofType: "snapshot")
                return client
            }
        }
        #expect(server.connectedClients == 3)
        await server.shutDownGracefully()
        let closes = try await ServerTestSupport.blocking { clients.map { $0.skipToClose() } }
        #expect(closes == Array(repeating: .close(code: 1000), count: 3))
        try await run.value
        #expect(await hub.clientCount == 0)
        #expect(server.boundPort == nil)
    }

    @Test("tessera serve on SIGTERM closes a connected client with 1000 and exits 0")
    func command() async throws {
        let configuration = try ServerTestSupport.library(photos: 100)
        let serve = try ServeProcess([
            "serve", configuration.databasePath, "--table", "photo", "--sort", "position", "--title", "title", "--section", "album", "--port", "0",
        ])
        defer { serve.kill() }
        _ = try await serve.waitForLines(2)
        let port = try #require(serve.port())
        let client = try await ServerTestSupport.blocking {
            let client = try RawClient(port: port)
            _ = try client.upgrade(host: "127.0.0.1:\(port)")
            try client.sendText(#"{"type":"hello","layout":"flow","viewport":[0,0,400,600]}"#)
            _ = try client.readMessage(ofType: "snapshot")
            return client
        }
        Glibc.kill(serve.process.processIdentifier, SIGTERM)
        let close = try await ServerTestSupport.blocking { client.skipToClose() }
        #expect(close == .close(code: 1000))
        let (status, _, stderr) = try await serve.waitForExit()
        #expect(status == 0)
        #expect(stderr == "tessera: stopped serving\n")
    }

    @Test("a list runs once: run() while it runs or after it stopped throws; a client that connects after it stopped is told so and closed with 1001")
    func runsOnce() async throws {
        let library = try HubLibrary(photos: 20)
        let list = try LiveList(
            database: library.path, table: "photo",
            columns: LiveList.Columns(section: "album", sort: "position", title: "title", order: "position")
        )
        let router = Router(context: LiveListRequestContext.self)
        list.mount(on: router)
        let path = library.path
        try await withMountedApplication(router: router, list: list, runsList: false) { port in
            let running = Task { try await list.run() }
            // Until the first run holds the list, a second may be the one
            // that runs: wait for a client to hear of a commit.
            try await ServerTestSupport.blocking {
                let client = try RawClient(port: port)
                _ = try client.upgrade(host: "127.0.0.1:\(port)")
                try client.sendText(#"{"type":"hello","layout":"list","viewport":[0,0,400,600]}"#)
                _ = try client.readMessage(ofType: "snapshot")
                try Connection(path: path).withDatabase { db in try db.execute("UPDATE photo SET title = 'x' WHERE id = 1") }
                _ = try client.readMessage(ofType: "plan")
            }
            await #expect(throws: LiveListError.self) { try await list.run() }
            running.cancel()
            try await running.value
            await #expect(throws: LiveListError.self) { try await list.run() }
            let (error, close) = try await ServerTestSupport.blocking {
                let client = try RawClient(port: port)
                #expect(try client.upgrade(host: "127.0.0.1:\(port)").status == 101)
                return (try client.readMessage(ofType: "error"), try client.readMessage())
            }
            #expect(error["code"] == .string("stopped"))
            #expect(close == .close(code: 1001))
        }
    }
}

