import Foundation
import Testing
@testable import TesseraLiveHub
@testable import TesseraLiveProtocol
@testable import TesseraServe
import TesseraLayout
import TesseraRender
import TesseraSQLite

/// Hostile input the protocol's bounds must hold against: titles whose
/// characters are long, deletes that name many ids.
@Suite("The live list against hostile input")
struct ServeHostileInputTests {
    /// A client that said hello, reading a list layout with ids.
    static func client(_ hub: ServeHub, label: String) async throws -> HubTestClient {
        let (id, outbox) = await hub.connect(canEdit: true)
        let client = HubTestClient(id: id, outbox: outbox, label: label, layout: .list, viewport: Rect(x: 0, y: 0, width: 400, height: 600))
        await hub.receive(#"{"type":"hello","layout":"list","viewport":[0,0,400,600],"ids":true}"#, from: id)
        try await client.drain()
        return client
    }

    @Test("a title of few characters but many combining marks is tooLong and writes nothing")
    func titleBytesAreBounded() async throws {
        let library = try HubLibrary(photos: 6, albums: 2)
        let hub = try ServeHub(configuration: library.configuration())
        let client = try await Self.client(hub, label: "zalgo")
        let dump = try library.dump()
        // One character (a grapheme cluster) of 20,001 scalars, 40 KB of
        // UTF-8: under the frame limit, 200 times the title's bound.
        let zalgo = "a" + String(repeating: "\u{301}", count: 20_000)
        #expect(zalgo.count == 1)
        for (kind, text, request) in [
            ("rename", "{\"type\":\"rename\",\"request\":1,\"id\":\"2\",\"title\":\"\(zalgo)\"}", 1),
            ("add", "{\"type\":\"add\",\"request\":2,\"section\":\"Alps\",\"title\":\"\(zalgo)\"}", 2),
        ] {
            // (Not HubBadInputTests.expect: its message shows the title.)
            let error = try await HubBadInputTests.error(hub, client, text)
            #expect(error?["code"] == .string("tooLong"), "\(kind) of a title of \(zalgo.utf8.count) bytes: got \(error.map { String($0.compactText.utf8.prefix(200)) ?? "" } ?? "no error")")
            #expect(error?["request"] == .int(request))
        }
        #expect(try library.dump() == dump, "a title of \(zalgo.utf8.count) bytes was written")
        // A title of 200 characters of 4 bytes each is still fine.
        let wide = String(repeating: "😀", count: 200)
        await hub.receive("{\"type\":\"rename\",\"request\":3,\"id\":\"2\",\"title\":\"\(wide)\"}", from: client.id)
        try await client.drain()
        #expect(client.dones.last?["request"] == .int(3), "errors: \(client.errors.map(\.compactText))")
        await hub.stop()
    }

    @Test("deletes naming 1,000 ids: one missing writes nothing; all present deletes them all; replicas equal a fresh query")
    func largeDeletes() async throws {
        let library = try HubLibrary(photos: 3_000, albums: 4)
        let hub = try ServeHub(configuration: library.configuration())
        let editor = try await Self.client(hub, label: "editor")
        let watcher = try await Self.client(hub, label: "watcher")
        let dump = try library.dump()
        // The last 999 rows (the end of every scan) and one id that does not exist.
        let tail = (2_002...3_000).map { "\"\($0)\"" }
        let missing = "{\"type\":\"delete\",\"request\":1,\"ids\":[\(tail.joined(separator: ",")),\"99999\"]}"
        let started = ContinuousClock.now
        for _ in 0..<5 {
            try await HubBadInputTests.expect(hub, editor, missing, code: "notFound", request: 1)
        }
        print("five refused deletes of 1,000 ids over 3,000 rows took \(ContinuousClock.now - started)")
        #expect(try library.dump() == dump)
        #expect(editor.errors.last?["ids"] == .array([.string("99999")]), "the error names the missing id: \(editor.errors.last.map { String($0.compactText.prefix(300)) } ?? "")")
        // Duplicates count once; all present: deleted together.
        let present = "{\"type\":\"delete\",\"request\":2,\"ids\":[\(tail.joined(separator: ",")),\"3000\"]}"
        await hub.receive(present, from: editor.id)
        try await editor.drain()
        try await watcher.drain()
        #expect(editor.dones.last?["request"] == .int(2), "errors: \(editor.errors.map(\.compactText))")
        let fresh = try library.freshList()
        #expect(fresh.reduce(0) { $0 + $1.ids.count } == 2_001)
        #expect(editor.replica.sections == fresh)
        #expect(watcher.replica.sections == fresh)
        await hub.stop()
    }

    @Test("ids that look like SQL are not found and write nothing; lone surrogates, RTL marks and combining characters are stored as sent")
    func sqlLookingIDsAndUnicodeTitles() async throws {
        let library = try HubLibrary(photos: 6, albums: 2)
        let hub = try ServeHub(configuration: library.configuration())
        let client = try await Self.client(hub, label: "unicode")
        let dump = try library.dump()
        for id in ["2 OR 1=1", "2; DROP TABLE photo", "2'--", "2\" OR \"1\"=\"1", "0x2", " 2", "2.0"] {
            let escaped = JSON.string(id).compactText
            try await HubBadInputTests.expect(hub, client, "{\"type\":\"delete\",\"request\":1,\"ids\":[\(escaped)]}", code: "notFound", request: 1)
            try await HubBadInputTests.expect(hub, client, "{\"type\":\"rename\",\"request\":2,\"id\":\(escaped),\"title\":\"x\"}", code: "notFound", request: 2)
        }
        #expect(try library.dump() == dump)
        // A lone surrogate becomes U+FFFD; the others are kept as they are.
        for (request, (sent, stored)) in [
            (#"\ud800 alone"#, "\u{FFFD} alone"), (#"\udc00\ud800"#, "\u{FFFD}\u{FFFD}"), (#"\ud83d\ude00"#, "😀"),
            ("\u{200F}שלום\u{202E}abc", "\u{200F}שלום\u{202E}abc"), ("e\u{301}\u{302}", "e\u{301}\u{302}"),
        ].enumerated() {
            await hub.receive("{\"type\":\"rename\",\"request\":\(10 + request),\"id\":\"3\",\"title\":\"\(sent)\"}", from: client.id)
            try await client.drain()
            #expect(client.dones.last?["request"] == .int(10 + request), "\(sent): \(client.errors.last?.compactText ?? "")")
            let title = try library.writer.withDatabase { db in try db.rows("SELECT title FROM photo WHERE id = 3") }.first?[0].string
            #expect(title == stored, "\(sent) was stored as \(title.map { Array($0.unicodeScalars) } ?? [])")
        }
        await hub.stop()
    }

    @Test("a table and columns whose names need quoting are served and edited")
    func namesThatNeedQuoting() async throws {
        let (path, _) = try makeScratchDatabase("tessera-quoted-names") { db in
            try db.execute(#"CREATE TABLE "my ""table""" ("the key" TEXT PRIMARY KEY, "sec;tion" TEXT, "ti""tle" INTEGER, "or der" INTEGER) WITHOUT ROWID"#)
            try db.execute(#"INSERT INTO "my ""table""" VALUES ('a', 'x', 1, 0), ('b', 'x', 2, 1), ('c', 'y', 3, 0)"#)
        }
        defer { removeDatabaseFiles(at: path) }
        let configuration = ServeConfiguration(
            databasePath: path, table: #"my "table""#, sectionColumn: "sec;tion", sortColumn: "or der",
            titleColumn: #"ti"tle"#, orderColumn: "or der", outboxCapacity: 100
        )
        let hub = try ServeHub(configuration: configuration)
        let client = try await Self.client(hub, label: "quoted")
        #expect(client.replica.sections == [.init(id: "x", ids: ["a", "b"]), .init(id: "y", ids: ["c"])])
        for text in [
            #"{"type":"move","request":1,"id":"b","to":0}"#,
            #"{"type":"rename","request":2,"id":"a","title":"not a number"}"#,
        ] {
            await hub.receive(text, from: client.id)
            try await client.drain()
            #expect(client.errors.isEmpty, "\(text): \(client.errors.map(\.compactText))")
        }
        #expect(client.dones.count == 2)
        #expect(client.replica.sections.first?.ids == ["b", "a"])
        // A key the database does not make (a TEXT primary key): add cannot
        // give the row one, and the write fails whole.
        try await HubBadInputTests.expect(hub, client, #"{"type":"add","request":3,"section":"y","title":"7"}"#, code: "database", request: 3)
        #expect(client.replica.sections.map(\.ids.count) == [2, 1])
        await hub.stop()
    }
}
