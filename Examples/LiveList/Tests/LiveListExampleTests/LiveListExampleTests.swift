import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Hummingbird
import HummingbirdWSClient
import Logging
import Testing
import TesseraSQLite
@testable import LiveListExample

/// The example application as a user runs it: its own page, the board's
/// page and WebSocket under `/board`, the edits it allows and refuses,
/// and another connection's commit reaching the client.
@Suite("Live list example")
struct LiveListExampleTests {
    /// What a WebSocket client heard, in order: the type of each message.
    actor Transcript {
        var types: [String] = []
        func append(_ type: String) { types.append(type) }
        func count(ofType type: String) -> Int { types.filter { $0 == type }.count }
    }

    /// A message as a dictionary; empty when it is not a JSON object.
    static func object(_ text: String) -> [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any]) ?? [:]
    }

    /// GET `path` on 127.0.0.1:`port`: the status and the body.
    private func get(_ path: String, port: Int) async throws -> (Int, String) {
        let (data, response) = try await URLSession.shared.data(from: URL(string: "http://127.0.0.1:\(port)\(path)")!)
        return ((response as? HTTPURLResponse)?.statusCode ?? 0, String(decoding: data, as: UTF8.self))
    }

    @Test("the app serves its own page and the board; a client sees the board, renames, is refused a delete, and hears another connection's commit")
    func boardEndToEnd() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tessera-live-list-example-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let database = folder.appendingPathComponent("board.sqlite").path
        try Board.create(at: database, count: 30)

        let (ports, portContinuation) = AsyncStream.makeStream(of: Int.self)
        let app = try buildApplication(database: database, port: 0) { port in portContinuation.yield(port) }
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await app.runService(gracefulShutdownSignals: []) }
            var iterator = ports.makeAsyncIterator()
            let port = try #require(await iterator.next())

            let (homeStatus, home) = try await get("/", port: port)
            #expect(homeStatus == 200 && home.contains(#"href="/board""#))
            let (pageStatus, page) = try await get("/board", port: port)
            #expect(pageStatus == 200 && page.contains("<title>Tessera · live list</title>"))
            let (socketStatus, _) = try await get("/board/live", port: port)
            #expect(socketStatus == 426)

            let transcript = Transcript()
            let writer = try Connection(path: database)
            let logger = Logger(label: "live-list-example-tests")
            try await WebSocketClient.connect(url: "ws://127.0.0.1:\(port)/board/live", logger: logger) { inbound, outbound, _ in
                var messages = inbound.messages(maxSize: 1 << 24).makeAsyncIterator()
                func next(_ type: String) async throws -> [String: Any] {
                    while let message = try await messages.next() {
                        guard case let .text(text) = message else { continue }
                        let object = Self.object(text)
                        let received = object["type"] as? String ?? "?"
                        await transcript.append(received)
                        if received == type { return object }
                    }
                    throw CancellationError()
                }
                try await outbound.write(.text(#"{"type":"hello","layout":"list","viewport":[0,0,400,800],"ids":true}"#))
                let snapshot = try await next("snapshot")
                let sections = (snapshot["sections"] as? [[String: Any]])?.compactMap { $0["id"] as? String }
                #expect(sections == Board.statuses)
                let ids = try #require((snapshot["ids"] as? [[String]])?.first)
                #expect(ids.count == 10)

                try await outbound.write(.text(#"{"type":"rename","request":1,"id":"\#(ids[0])","title":"Write the docs"}"#))
                let done = try await next("done")
                #expect(done["request"] as? Int == 1)
                let title = try writer.withDatabase { db in try db.rows("SELECT title FROM task WHERE id = ?", [.integer(Int64(ids[0])!)]) }
                #expect(title.first?.first?.string == "Write the docs")

                try await outbound.write(.text(#"{"type":"delete","request":2,"ids":["\#(ids[1])"]}"#))
                let refusal = try await next("error")
                #expect(refusal["code"] as? String == "readOnly" && refusal["request"] as? Int == 2)

                // Another connection's commit: a task moves to "3 Done".
                let plansBefore = await transcript.count(ofType: "plan")
                try writer.write { db in try db.execute("UPDATE task SET status = '3 Done', position = 100 WHERE id = ?", [.integer(Int64(ids[2])!)]) }
                let plan = try await next("plan")
                #expect(await transcript.count(ofType: "plan") == plansBefore + 1)
                let changeset = plan["changeset"] as? [String: Any]
                #expect(changeset?["itemMoves"] != nil, "\(plan)")
                try await outbound.close(.normalClosure, reason: nil)
            }
            #expect(await transcript.count(ofType: "error") == 1)
            group.cancelAll()
            try await group.waitForAll()
        }
    }
}
