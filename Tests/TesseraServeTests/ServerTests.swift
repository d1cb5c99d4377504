import Foundation
import Testing
import TesseraTestTraits
import TesseraRender
import TesseraSQLite
@testable import TesseraLiveHub
@testable import TesseraLiveProtocol
@testable import TesseraServe

/// The live list's HTTP server: the page, the upgrade, and the safety
/// checks, against a server running in the test process on a free port.
@Suite("Server", .ownThreads)
struct ServerTests {
    @Test("GET / serves the page as HTML, with no external URL")
    func servesPage() async throws {
        try await ServerTestSupport.withServer { _, port in
            let response = try await ServerTestSupport.get("/", port: port)
            #expect(response.status == 200)
            #expect(response.headers["content-type"] == "text/html; charset=utf-8")
            #expect(response.body == LivePage.html)
            #expect(response.body.contains("<html"))
            // Self-contained: nothing loaded from elsewhere (an XML
            // namespace such as SVG's is a name, not a load).
            #expect(Self.externalReferences(in: response.body).isEmpty, "\(Self.externalReferences(in: response.body))")
            #expect(Self.externalReferences(in: #"<script src="https://cdn.example/x.js"></script><link href='//fonts.example/a.css'>"#).count == 2)
            #expect(Self.externalReferences(in: #"<div style="background: url(http://x.example/a.png)"></div>@import "https://x.example/b.css";"#).count == 2)
            #expect(Self.externalReferences(in: #"<svg xmlns="http://www.w3.org/2000/svg"></svg><img src="data:image/png;base64,AAAA">"#).isEmpty)
        }
    }

    /// The places a page loads something from another host: `src=`,
    /// `href=`, `action=`, `url(…)`, `@import` and `fetch(…)` with an
    /// absolute or scheme-relative URL.
    static func externalReferences(in page: String) -> [String] {
        let pattern = #"(?i)(\b(src|href|action)\s*=\s*["']?|url\(\s*["']?|@import\s+(url\(\s*)?["']?|fetch\(\s*["'`])(https?:|wss?:)?//[^\s"')]*"#
        guard let expression = try? NSRegularExpression(pattern: pattern) else { return ["bad pattern"] }
        let range = NSRange(page.startIndex..., in: page)
        return expression.matches(in: page, range: range).compactMap { Range($0.range, in: page).map { String(page[$0]) } }
    }

    @Test("/live upgrades, with no Origin and with the server's own")
    func upgrades() async throws {
        try await ServerTestSupport.withServer { _, port in
            for origin in [nil, "http://127.0.0.1:\(port)", "HTTP://127.0.0.1:\(port)", "https://127.0.0.1:\(port)", "ws://127.0.0.1"] {
                let (response, snapshot) = try await ServerTestSupport.blocking {
                    let client = try RawClient(port: port)
                    let response = try client.upgrade(host: "127.0.0.1:\(port)", origin: origin)
                    guard response.status == 101 else { return (response, JSON.null) }
                    try client.sendText(#"{"type":"hello","layout":"list","viewport":[0,0,400,600]}"#)
                    return (response, try client.readMessage(ofType: "snapshot"))
                }
                #expect(response.status == 101, "Origin \(origin ?? "none")")
                #expect(response.headers["upgrade"]?.lowercased() == "websocket")
                #expect(snapshot["editable"] == .bool(true), "a loopback server lets every client edit")
            }
        }
    }

    @Test("a wrong Origin is refused with 403, and the connection is not upgraded")
    func wrongOrigin() async throws {
        try await ServerTestSupport.withServer { server, port in
            for origin in ["http://evil.example", "http://127.0.0.1:\(port + 1)", "https://127.0.0.1:\(port + 1)", "ftp://127.0.0.1:\(port)", "null"] {
                let response = try await ServerTestSupport.blocking {
                    let client = try RawClient(port: port)
                    return try client.upgrade(host: "127.0.0.1:\(port)", origin: origin)
                }
                #expect(response.status == 403, "Origin \(origin)")
                #expect(response.headers["upgrade"] == nil)
            }
            #expect(await server.hub.clientCount == 0)
        }
    }

    @Test("a loopback server answers only to a loopback Host (DNS rebinding)")
    func loopbackHost() async throws {
        try await ServerTestSupport.withServer { _, port in
            let (page, upgrade, localhost) = try await ServerTestSupport.blocking {
                (
                    try RawClient(port: port).get("/", host: "evil.example:\(port)"),
                    try RawClient(port: port).upgrade(host: "evil.example:\(port)", origin: "http://evil.example:\(port)"),
                    try RawClient(port: port).get("/", host: "localhost:\(port)")
                )
            }
            #expect(page.status == 403)
            #expect(upgrade.status == 403)
            #expect(localhost.status == 200)
        }
    }

    @Test("GET /live without an upgrade is 426")
    func liveWithoutUpgrade() async throws {
        try await ServerTestSupport.withServer { _, port in
            let response = try await ServerTestSupport.get("/live", port: port)
            #expect(response.status == 426)
        }
    }

    @Test("a frame over 64 KiB closes the connection with 1009")
    func oversizedFrame() async throws {
        try await ServerTestSupport.withServer { server, port in
            let close = try await ServerTestSupport.blocking {
                let client = try RawClient.upgraded(port: port)
                try client.sendFrame(opcode: 1, payload: Array(repeating: UInt8(ascii: " "), count: 64 * 1024 + 1))
                return try client.readMessage()
            }
            #expect(close == .close(code: 1009))
            // The client is gone from the hub (12,000 rounds of at least
            // 10 ms, generous for a sanitizer build on a busy machine;
            // bounded in rounds, not by a clock).
            var count = await server.hub.clientCount
            try await waitInRounds(12_000, every: .milliseconds(10)) {
                count = await server.hub.clientCount
                return count == 0
            }
            #expect(count == 0, "the closed client was still in the hub after 12,000 rounds of 10 ms")
        }
    }

    @Test("a message over 64 KiB in fragments closes the connection with 1009; 64 KiB exactly does not")
    func oversizedMessage() async throws {
        try await ServerTestSupport.withServer { _, port in
            let (over, atLimit) = try await ServerTestSupport.blocking {
                let client = try RawClient.upgraded(port: port)
                let half = Array(repeating: UInt8(ascii: " "), count: 32 * 1024)
                try client.sendFrame(opcode: 1, payload: half, fin: false)
                try client.sendFrame(opcode: 0, payload: half + [UInt8(ascii: " ")], fin: true)
                let over = try client.readMessage()

                // Exactly at the limit: read as a message (not JSON, so an error).
                let other = try RawClient.upgraded(port: port)
                try other.sendFrame(opcode: 1, payload: Array(repeating: UInt8(ascii: "x"), count: 64 * 1024))
                return (over, try other.readMessage(ofType: "error"))
            }
            #expect(over == .close(code: 1009))
            #expect(atLimit["code"] == .string("malformed"))
        }
    }

    @Test("a binary message gets a malformed error and the connection stays open")
    func binaryMessage() async throws {
        try await ServerTestSupport.withServer { _, port in
            let (error, snapshot) = try await ServerTestSupport.blocking {
                let client = try RawClient.upgraded(port: port)
                try client.sendFrame(opcode: 2, payload: [1, 2, 3])
                let error = try client.readMessage(ofType: "error")
                try client.sendText(#"{"type":"hello","layout":"flow","viewport":[0,0,400,600]}"#)
                return (error, try client.readMessage(ofType: "snapshot"))
            }
            #expect(error["code"] == .string("malformed"))
            #expect(snapshot["type"] == .string("snapshot"))
        }
    }

    @Test("messages over the rate limit get one rateLimited error and are dropped")
    func rateLimit() async throws {
        // Ten messages at once at most, and a refill too slow to matter.
        let limits = ServeLimits(messagesPerSecond: 0.001, messageBurst: 10)
        try await ServerTestSupport.withServer(limits: limits) { _, port in
            let messages = try await ServerTestSupport.blocking {
                let client = try RawClient.upgraded(port: port)
                // 10 admitted (the hub answers each), then 5 dropped
                // with one notice.
                for request in 0..<15 {
                    try client.sendText(#"{"type":"rename","request":\#(request),"id":"1","title":"x"}"#)
                }
                var messages: [JSON] = []
                while messages.count < 11, case let .text(text) = try client.readMessage() { messages.append(try JSON.parse(text)) }
                return messages
            }
            let limited = messages.filter { $0["code"] == .string("rateLimited") }
            #expect(limited.count == 1, "\(messages.map(\.compactText))")
            #expect(limited.first?["request"] == .int(10), "the notice names the first message dropped")
            let answered = messages.filter { $0["code"] != .string("rateLimited") }
            #expect(answered.count == 10, "\(messages.map(\.compactText))")
        }
    }

    @Test("a commit by a separate sqlite3 process reaches a connected client as a plan", .tags(.process))
    func externalCommit() async throws {
        let configuration = try ServerTestSupport.library(photos: 200)
        let hub = try ServeHub(configuration: configuration)
        let server = ServeServer(hub: hub, host: "127.0.0.1", port: 0)
        let task = Task { try await server.run() }
        defer { task.cancel() }
        let port = try await server.waitUntilListening()
        let plan = try await ServerTestSupport.blocking {
            let client = try RawClient.upgraded(port: port)
            try client.sendText(#"{"type":"hello","layout":"list","viewport":[0,0,400,600]}"#)
            let snapshot = try client.readMessage(ofType: "snapshot")
            try ServerTestSupport.sqlite3(configuration.databasePath, "UPDATE photo SET title = 'Renamed by sqlite3' WHERE id = 1")
            let plan = try client.readMessage(ofType: "plan")
            return (snapshot["seq"], plan)
        }
        #expect(plan.1["fromSeq"] == plan.0)
        if case let .number(from)? = plan.1["fromSeq"], case let .number(to)? = plan.1["seq"] {
            #expect(Int(to) == Int(from)! + 1)
        } else {
            Issue.record("the plan has no fromSeq and seq: \(plan.1.compactText)")
        }
        task.cancel()
        try await task.value
    }

    @Test("stopping the server closes its clients and frees the port")
    func stops() async throws {
        let configuration = try ServerTestSupport.library(photos: 50)
        let hub = try ServeHub(configuration: configuration)
        // A port no other test's socket can be handed meanwhile (a port 0
        // listener or a client's local port can, and did).
        let chosen = try ServerTestSupport.portBelowEphemeralRange()
        let server = ServeServer(hub: hub, host: "127.0.0.1", port: chosen)
        let task = Task { try await server.run() }
        let port = try await server.waitUntilListening()
        #expect(port == chosen)
        let client = try await ServerTestSupport.blocking {
            let client = try RawClient.upgraded(port: port)
            try client.sendText(#"{"type":"hello","layout":"list","viewport":[0,0,400,600]}"#)
            _ = try client.readMessage(ofType: "snapshot")
            return client
        }
        task.cancel()
        try await task.value
        #expect(server.boundPort == nil)
        let ended = try await ServerTestSupport.blocking { client.readsToEnd() }
        #expect(ended, "the client's connection ends when the server stops")
        // The port is free again.
        let again = ServeServer(hub: try ServeHub(configuration: configuration), host: "127.0.0.1", port: port)
        let second = Task { try await again.run() }
        #expect(try await again.waitUntilListening() == port)
        second.cancel()
        try await second.value
    }

    @Test("a port in use is an error naming the address")
    func portInUse() async throws {
        try await ServerTestSupport.withServer { server, port in
            let other = ServeServer(hub: try ServeHub(configuration: try ServerTestSupport.library(photos: 20)), host: "127.0.0.1", port: port)
            await #expect(throws: ServeServerError.self) { try await other.run() }
            await #expect(throws: ServeServerError.self) { try await other.waitUntilListening() }
            do throws(ServeServerError) {
                try await other.run()
            } catch {
                #expect(error.description.hasPrefix("cannot listen on 127.0.0.1:\(port): "), "\(error)")
            }
        }
    }
}

extension RawClient {
    /// A client of the server on `port` whose upgrade to a WebSocket, naming
    /// the server 127.0.0.1, is done.
    fileprivate static func upgraded(port: Int) throws -> RawClient {
        let client = try RawClient(port: port)
        _ = try client.upgrade(host: "127.0.0.1:\(port)")
        return client
    }
}
