import Foundation
import TesseraRender
import TesseraTestTraits
import Testing
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
}
