import Foundation
import Testing
@testable import TesseraLiveHub
@testable import TesseraLiveProtocol
@testable import TesseraServe
import TesseraLayout
import TesseraRender
import TesseraSQLite

/// Every kind of malformed or refused message gets its error code (and
/// echoes its request), and leaves the database as it was.
@Suite("Hub bad input")
struct HubBadInputTests {
    /// Sends `text` and returns the error the client got.
    static func error(_ hub: ServeHub, _ client: HubTestClient, _ text: String) async throws -> JSON? {
        await hub.receive(text, from: client.id)
        let before = client.errors.count
        try await client.drain()
        return client.errors.count > before ? client.errors.last : nil
    }

    static func expect(_ hub: ServeHub, _ client: HubTestClient, _ text: String, code: String, request: Int? = nil,
                       sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let error = try await error(hub, client, text)
        #expect(error?["code"] == .string(code), "\(text.prefix(120)): got \(error?.compactText ?? "no error")", sourceLocation: sourceLocation)
        if let request {
            #expect(error?["request"] == .int(request), "\(text.prefix(120)): the error does not echo request \(request)", sourceLocation: sourceLocation)
        }
        if case let .string(message)? = error?["message"] {
            #expect(!message.isEmpty && !message.contains("\n"), sourceLocation: sourceLocation)
        }
    }

    @Test("malformed, out-of-range and refused messages get their error and write nothing")
    func badMessagesChangeNothing() async throws {
        let library = try HubLibrary(photos: 12, albums: 3)
        let hub = try ServeHub(configuration: library.configuration())
        // A row deleted by another connection, for edits of deleted rows.
        try library.writer.withDatabase { db in try db.execute("DELETE FROM photo WHERE id = 1") }
        await hub.poll()
        let dump = try library.dump()
        let seq = await hub.seq
        let (id, outbox) = await hub.connect(canEdit: true)
        let client = HubTestClient(id: id, outbox: outbox, label: "bad input", layout: .list, viewport: Rect(x: 0, y: 0, width: 400, height: 600))

        // Before hello.
        try await Self.expect(hub, client, #"{"type":"viewport","viewport":[0,0,100,100]}"#, code: "notReady")
        try await Self.expect(hub, client, #"{"type":"move","request":1,"id":"2","to":0}"#, code: "notReady", request: 1)
        // Not an object with a type.
        for text in ["not json", "", "{\"type\":", "[1,2]", "42", "\"hello\"", "{}", "{\"type\":5}", "{\"type\":null}", "{\"Type\":\"hello\"}"] {
            try await Self.expect(hub, client, text, code: "malformed")
        }
        try await Self.expect(hub, client, #"{"type":"dance"}"#, code: "unknownType")
        try await Self.expect(hub, client, #"{"type":"HELLO","viewport":[0,0,1,1]}"#, code: "unknownType")
        // hello's fields.
        for text in [
            #"{"type":"hello","layout":"list"}"#,
            #"{"type":"hello","layout":"grid","viewport":[0,0,100,100]}"#,
            #"{"type":"hello","layout":7,"viewport":[0,0,100,100]}"#,
            #"{"type":"hello","viewport":"big"}"#,
            #"{"type":"hello","viewport":[0,0,100]}"#,
            #"{"type":"hello","viewport":[0,0,"100",100]}"#,
            #"{"type":"hello","viewport":[0,0,NaN,100]}"#,
            #"{"type":"hello","viewport":[0,0,Infinity,100]}"#,
            #"{"type":"hello","viewport":[0,0,100,100],"ids":"yes"}"#,
            #"{"type":"hello","viewport":[0,0,100,100],"resume":3}"#,
        ] {
            try await Self.expect(hub, client, text, code: "malformed")
        }
        for text in [
            #"{"type":"hello","viewport":[0,0,1e400,100]}"#,
            #"{"type":"hello","viewport":[-1,0,100,100]}"#,
            #"{"type":"hello","viewport":[0,20000000,100,100]}"#,
            #"{"type":"hello","viewport":[0,0,0,100]}"#,
            #"{"type":"hello","viewport":[0,0,100,100001]}"#,
            #"{"type":"hello","viewport":[0,0,-5,100]}"#,
        ] {
            try await Self.expect(hub, client, text, code: "outOfRange")
        }
        // A good hello (unknown keys ignored), then a second one.
        await hub.receive(#"{"type":"hello","layout":"list","viewport":[0,0,400,600],"ids":true,"colour":"red"}"#, from: id)
        try await client.drain()
        #expect(client.seq == seq)
        try await Self.expect(hub, client, #"{"type":"hello","layout":"list","viewport":[0,0,400,600]}"#, code: "malformed")
        try await Self.expect(hub, client, #"{"type":"viewport","viewport":[0,0,400,1e6]}"#, code: "outOfRange")
        try await Self.expect(hub, client, #"{"type":"viewport","viewport":[0,0,400,600],"layout":"grid"}"#, code: "malformed")
        // Edits: fields.
        let longID = String(repeating: "7", count: 257)
        for (text, request) in [
            (#"{"type":"move","id":"2","to":0}"#, nil),
            (#"{"type":"move","request":"x","id":"2","to":0}"#, nil),
            (#"{"type":"move","request":1.5,"id":"2","to":0}"#, nil),
            (#"{"type":"move","request":1e300,"id":"2","to":0}"#, nil),
            (#"{"type":"move","request":2,"to":0}"#, 2),
            (#"{"type":"move","request":3,"id":2,"to":0}"#, 3),
            (#"{"type":"move","request":4,"id":"2","to":1.5}"#, 4),
            (#"{"type":"move","request":5,"id":"2","to":"1"}"#, 5),
            (#"{"type":"move","request":6,"id":"2"}"#, 6),
            ("{\"type\":\"move\",\"request\":7,\"id\":\"\(longID)\",\"to\":0}", 7),
            (#"{"type":"rename","request":8,"id":"2","title":5}"#, 8),
            (#"{"type":"rename","request":9,"id":"2","title":"bell\u0007"}"#, 9),
            (#"{"type":"rename","request":10,"id":"2","title":"line\nbreak"}"#, 10),
            (#"{"type":"delete","request":11,"ids":"2"}"#, 11),
            (#"{"type":"delete","request":12,"ids":[2]}"#, 12),
            (#"{"type":"delete","request":13,"ids":[]}"#, 13),
            (#"{"type":"add","request":14,"title":"x"}"#, 14),
            (#"{"type":"add","request":15,"section":"Alps"}"#, 15),
        ] {
            try await Self.expect(hub, client, text, code: "malformed", request: request)
        }
        try await Self.expect(hub, client, #"{"type":"move","request":20,"id":"2","to":-1}"#, code: "outOfRange", request: 20)
        try await Self.expect(hub, client, #"{"type":"move","request":21,"id":"2","to":4}"#, code: "outOfRange", request: 21)
        try await Self.expect(hub, client, #"{"type":"move","request":22,"id":"2","to":100000000000}"#, code: "outOfRange", request: 22)
        let manyIDs = (0..<1_001).map { "\"\($0)\"" }.joined(separator: ",")
        try await Self.expect(hub, client, "{\"type\":\"delete\",\"request\":23,\"ids\":[\(manyIDs)]}", code: "outOfRange", request: 23)
        let longTitle = String(repeating: "é", count: 201)
        try await Self.expect(hub, client, "{\"type\":\"rename\",\"request\":24,\"id\":\"2\",\"title\":\"\(longTitle)\"}", code: "tooLong", request: 24)
        try await Self.expect(hub, client, "{\"type\":\"add\",\"request\":25,\"section\":\"Alps\",\"title\":\"\(longTitle)\"}", code: "tooLong", request: 25)
        // Rows and sections that do not exist (id 1 was deleted).
        try await Self.expect(hub, client, #"{"type":"move","request":30,"id":"1","to":0}"#, code: "notFound", request: 30)
        try await Self.expect(hub, client, #"{"type":"rename","request":31,"id":"1","title":"x"}"#, code: "notFound", request: 31)
        try await Self.expect(hub, client, #"{"type":"delete","request":32,"ids":["1"]}"#, code: "notFound", request: 32)
        try await Self.expect(hub, client, #"{"type":"delete","request":33,"ids":["2","1"]}"#, code: "notFound", request: 33)
        try await Self.expect(hub, client, #"{"type":"rename","request":34,"id":"abc","title":"x"}"#, code: "notFound", request: 34)
        try await Self.expect(hub, client, #"{"type":"add","request":35,"section":"Atlantis","title":"x"}"#, code: "notFound", request: 35)
        // A write SQLite refuses (a CHECK constraint): rolled back.
        try await Self.expect(hub, client, #"{"type":"rename","request":36,"id":"2","title":"forbidden"}"#, code: "database", request: 36)
        // Without permission.
        let (viewerID, viewerOutbox) = await hub.connect(canEdit: false)
        let viewer = HubTestClient(id: viewerID, outbox: viewerOutbox, label: "viewer", layout: .flow, viewport: Rect(x: 0, y: 0, width: 400, height: 600))
        await hub.receive(#"{"type":"hello","layout":"flow","viewport":[0,0,400,600]}"#, from: viewerID)
        try await viewer.drain()
        for (text, request) in [
            (#"{"type":"move","request":40,"id":"2","to":0}"#, 40),
            (#"{"type":"rename","request":41,"id":"2","title":"x"}"#, 41),
            (#"{"type":"delete","request":42,"ids":["2"]}"#, 42),
            (#"{"type":"add","request":43,"section":"Alps","title":"x"}"#, 43),
        ] {
            try await Self.expect(hub, viewer, text, code: "forbidden", request: request)
        }
        // Binary frames come in as text that is not JSON.
        try await Self.expect(hub, viewer, "\u{0}\u{1}binary", code: "malformed")
        #expect(try library.dump() == dump, "a refused message wrote to the database")
        #expect(await hub.seq == seq)
        #expect(client.dones.isEmpty && viewer.dones.isEmpty)
        // A message that is fine still works afterwards.
        await hub.receive(#"{"type":"viewport","viewport":[0,0,400,600],"extra":[1,2]}"#, from: id)
        try await client.drain()
        #expect(client.errors.last?["request"] == .int(36))
        #expect(client.checkElements().isEmpty)
        await hub.stop()
    }

    @Test("a move on a list without an order column is readOnly and writes nothing")
    func moveWithoutOrderColumnIsReadOnly() async throws {
        let library = try HubLibrary(photos: 6, albums: 2)
        let hub = try ServeHub(configuration: library.configuration(order: false))
        let dump = try library.dump()
        let (id, outbox) = await hub.connect(canEdit: true)
        let client = HubTestClient(id: id, outbox: outbox, label: "readOnly", layout: .list, viewport: Rect(x: 0, y: 0, width: 400, height: 600))
        await hub.receive(#"{"type":"hello","layout":"list","viewport":[0,0,400,600],"ids":true}"#, from: id)
        try await Self.expect(hub, client, #"{"type":"move","request":1,"id":"2","to":0}"#, code: "readOnly", request: 1)
        #expect(try library.dump() == dump)
        // Renames need no order column.
        await hub.receive(#"{"type":"rename","request":2,"id":"2","title":"Kept"}"#, from: id)
        try await client.drain()
        #expect(client.dones.last?["request"] == .int(2))
        await hub.stop()
    }

    @Test("a configuration that does not match the table is a ServeError naming what")
    func badConfigurationsAreRefused() throws {
        let library = try HubLibrary(photos: 3)
        func refusal(_ change: (inout ServeConfiguration) -> Void) -> String? {
            var configuration = library.configuration()
            change(&configuration)
            do {
                _ = try ServeHub(configuration: configuration)
                return nil
            } catch {
                return error.description
            }
        }
        #expect(refusal { $0.databasePath += ".missing" }?.contains("no such database file") == true)
        #expect(refusal { $0.table = "photos" }?.contains("no such table: photos") == true)
        #expect(refusal { $0.sectionColumn = "albm" }?.contains("section column: no such column: albm") == true)
        #expect(refusal { $0.sortColumn = "when" }?.contains("sort column: no such column: when") == true)
        #expect(refusal { $0.titleColumn = "name" }?.contains("title column: no such column: name") == true)
        #expect(refusal { $0.orderColumn = "rank" }?.contains("order column: no such column: rank") == true)
        #expect(refusal { $0.outboxCapacity = 0 } != nil)
        #expect(refusal { $0.pollInterval = .zero } != nil)
        #expect(refusal { $0.table = "PHOTO"; $0.titleColumn = "Title" } == nil)
    }
}
