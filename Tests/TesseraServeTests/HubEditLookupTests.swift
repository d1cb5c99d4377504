import Foundation
import Testing
@testable import TesseraLiveHub
@testable import TesseraLiveProtocol
@testable import TesseraServe
import TesseraLayout
import TesseraRender
import TesseraResults
import TesseraSQLite

/// Edits find their item by its key in the table (O(log *n*)), not by
/// reading the list: an id is the key as text, so it stands for the text,
/// integer or real key it spells, and only for a key that spells it
/// exactly.
@Suite("Hub edits find items by key")
struct HubEditLookupTests {
    /// A table whose key column has no type, so it keeps integers, reals
    /// and text as given, two of them spelled "8".
    static let keys: [DatabaseValue] = [
        .integer(7), .text("seven"), .real(2.5), .text("8"), .integer(8), .real(1e20), .text("Ünïcode key"), .integer(-3), .real(4),
    ]

    private func makeHub() async throws -> (hub: ServeHub, path: String, writer: Connection, editor: HubTestClient) {
        let (path, writer) = try makeScratchDatabase("tessera-hub-keys") { db in
            try db.execute("CREATE TABLE item (k PRIMARY KEY, title TEXT NOT NULL, position INTEGER NOT NULL)")
            for (index, key) in Self.keys.enumerated() {
                try db.execute("INSERT INTO item (k, title, position) VALUES (?, ?, ?)", [key, .text("Item \(index)"), .integer(Int64(index))])
            }
        }
        let configuration = ServeConfiguration(databasePath: path, table: "item", sectionColumn: nil, sortColumn: "position", titleColumn: "title", orderColumn: "position")
        let hub = try ServeHub(configuration: configuration)
        let (id, outbox) = await hub.connect(canEdit: true)
        let editor = HubTestClient(id: id, outbox: outbox, label: "editor", layout: .list, viewport: Rect(x: 0, y: 0, width: 400, height: 600))
        await hub.receive(#"{"type":"hello","layout":"list","viewport":[0,0,400,600],"ids":true}"#, from: id)
        try await editor.drain()
        return (hub, path, writer, editor)
    }

    private func titles(_ writer: Connection) throws -> [String] {
        try writer.withDatabase { db in try db.rows("SELECT title FROM item ORDER BY position").map { $0[0].string ?? "?" } }
    }

    @Test("a rename finds the row whose key spells the id, whatever the key's type; an id two keys spell is the first in the list")
    func renameByEveryKeyType() async throws {
        let (hub, path, writer, editor) = try await makeHub()
        defer { removeDatabaseFiles(at: path) }
        // The list's ids, in its order, as the client was sent them.
        let ids = editor.replica.sections.flatMap(\.ids)
        #expect(ids == ["7", "seven", "2.5", "8", "8", "1e+20", "Ünïcode key", "-3", "4"])
        var expected = try titles(writer)
        for (request, id) in Set(ids).sorted().enumerated() {
            await hub.receive(#"{"type":"rename","request":\#(request),"id":\#(JSON.string(id).compactText),"title":"Renamed \#(id)"}"#, from: editor.id)
            try await editor.drain()
            // The first row with that id in the list's order.
            expected[ids.firstIndex(of: id)!] = "Renamed \(id)"
            #expect(try titles(writer) == expected, "rename of \(id)")
        }
        #expect(editor.errors.isEmpty, "\(editor.errors.map(\.compactText))")
        #expect(editor.dones.count == Set(ids).count)
        await hub.stop()
    }

    @Test("an id no key spells exactly is refused with nothing written, for rename, move and delete",
          arguments: ["9", "2.50", "07", "8.0", "1e20", "SEVEN", "", " 7", "seven "])
    func idsNoKeySpells(id: String) async throws {
        let (hub, path, writer, editor) = try await makeHub()
        defer { removeDatabaseFiles(at: path) }
        let before = try writer.withDatabase { db in try db.rows("SELECT k, title, position FROM item ORDER BY k") }
        let quoted = JSON.string(id).compactText
        await hub.receive(#"{"type":"rename","request":1,"id":\#(quoted),"title":"Nope"}"#, from: editor.id)
        await hub.receive(#"{"type":"move","request":2,"id":\#(quoted),"to":0}"#, from: editor.id)
        await hub.receive(#"{"type":"delete","request":3,"ids":["7",\#(quoted),"seven"]}"#, from: editor.id)
        try await editor.drain()
        let after = try writer.withDatabase { db in try db.rows("SELECT k, title, position FROM item ORDER BY k") }
        #expect(after == before)
        #expect(editor.dones.isEmpty)
        #expect(editor.errors.count == 3, "\(editor.errors.map(\.compactText))")
        #expect(editor.errors.allSatisfy { $0["code"] == .string("notFound") }, "\(editor.errors.map(\.compactText))")
        // The delete names the one missing id, not the two found.
        #expect(HubReplica.strings(editor.errors.last?["ids"]) == [id], "\(editor.errors.last?.compactText ?? "")")
        await hub.stop()
    }

    @Test("move and delete find their rows by key: a real, a text and an integer key move to the top, then two are deleted in one transaction")
    func moveAndDeleteByKey() async throws {
        let (hub, path, writer, editor) = try await makeHub()
        defer { removeDatabaseFiles(at: path) }
        for (request, id) in ["2.5", "Ünïcode key", "-3"].enumerated() {
            await hub.receive(#"{"type":"move","request":\#(request),"id":\#(JSON.string(id).compactText),"to":0}"#, from: editor.id)
        }
        try await editor.drain()
        #expect(editor.errors.isEmpty, "\(editor.errors.map(\.compactText))")
        let order = try writer.withDatabase { db in try db.rows("SELECT k FROM item ORDER BY position, k").map { ServeSchema.text(of: $0[0]) } }
        #expect(order == ["-3", "Ünïcode key", "2.5", "7", "seven", "8", "8", "1e+20", "4"])
        #expect(editor.replica.sections.flatMap(\.ids) == order)
        await hub.receive(#"{"type":"delete","request":9,"ids":["1e+20","seven","1e+20"]}"#, from: editor.id)
        try await editor.drain()
        #expect(editor.errors.isEmpty, "\(editor.errors.map(\.compactText))")
        let left = try writer.withDatabase { db in try db.rows("SELECT k FROM item ORDER BY position, k").map { ServeSchema.text(of: $0[0]) } }
        #expect(left == ["-3", "Ünïcode key", "2.5", "7", "8", "8", "4"])
        #expect(editor.replica.sections.flatMap(\.ids) == left)
        await hub.stop()
    }

    @Test("a list that allows no edit says so in its snapshot (editable false, no edits) and refuses each edit readOnly, writing nothing")
    func noEditsAllowed() async throws {
        let library = try HubLibrary(photos: 12, albums: 2)
        var configuration = library.configuration()
        configuration.allowedEdits = []
        let hub = try ServeHub(configuration: configuration)
        let (id, outbox) = await hub.connect(canEdit: true)
        await hub.receive(#"{"type":"hello","layout":"list","viewport":[0,0,400,600],"ids":true}"#, from: id)
        let snapshot = try JSON.parse(try #require(await outbox.next()))
        #expect(snapshot["editable"] == .bool(false) && HubReplica.strings(snapshot["edits"]).isEmpty)
        let first = HubReplica.strings(HubReplica.array(snapshot["ids"]).first).first ?? "?"
        let before = try library.dump()
        for edit in [
            #"{"type":"rename","request":1,"id":"\#(first)","title":"x"}"#, #"{"type":"move","request":2,"id":"\#(first)","to":1}"#,
            #"{"type":"delete","request":3,"ids":["\#(first)"]}"#, #"{"type":"add","request":4,"section":"Alps","title":"x"}"#,
        ] {
            await hub.receive(edit, from: id)
            let reply = try JSON.parse(try #require(await outbox.next()))
            #expect(reply["type"] == .string("error") && reply["code"] == .string("readOnly"), "\(edit): \(reply.compactText)")
        }
        #expect(try library.dump() == before)
        await hub.stop()
    }
}
