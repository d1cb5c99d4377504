import Foundation
import Testing
@testable import TesseraLiveHub
@testable import TesseraLiveProtocol
@testable import TesseraServe
import TesseraLayout
import TesseraRender
import TesseraSQLite

/// What a live list is opened with beside its table: limits out of their
/// range and an empty edit token are refused with an error naming them,
/// and a table whose column is named `rowid` is keyed by its real row ids.
@Suite("Live list opening checks")
struct LiveListOpeningChecksTests {
    static let columns = LiveList.Columns(section: "album", sort: "position", title: "title", order: "position")

    @Test("a limit out of its range or an empty edit token is a LiveListError naming it",
          arguments: [
              (LiveList.Limits(maximumClients: 0), LiveList.Access(), "maximumClients 0"),
              (LiveList.Limits(maximumClients: 2_000_000), LiveList.Access(), "maximumClients 2000000"),
              (LiveList.Limits(maximumMessageBytes: 0), LiveList.Access(), "maximumMessageBytes 0"),
              (LiveList.Limits(messagesPerSecond: 0), LiveList.Access(), "messagesPerSecond 0.0"),
              (LiveList.Limits(messagesPerSecond: .nan), LiveList.Access(), "messagesPerSecond nan"),
              (LiveList.Limits(messageBurst: 0.5), LiveList.Access(), "messageBurst 0.5"),
              (LiveList.Limits(), LiveList.Access(editToken: ""), "an empty edit token"),
          ])
    func refusedSettings(limits: LiveList.Limits, access: LiveList.Access, named: String) throws {
        let library = try HubLibrary(photos: 4, albums: 2)
        #expect {
            _ = try LiveList(database: library.path, table: "photo", columns: Self.columns, access: access, limits: limits)
        } throws: { error in
            (error as? LiveListError)?.description.hasPrefix(named) == true
        }
    }

    @Test("the default limits and a token open")
    func acceptedSettings() throws {
        let library = try HubLibrary(photos: 4, albums: 2)
        let list = try LiveList(database: library.path, table: "photo", columns: Self.columns, access: LiveList.Access(editToken: "t"))
        #expect(list.connectedClients == 0)
    }

    @Test("a table without a primary key whose column is named rowid is keyed by its row ids: every row listed, a rename edits one row")
    func columnNamedRowID() async throws {
        let (path, writer) = try makeScratchDatabase("tessera-rowid-column") { db in
            try db.execute("CREATE TABLE item (rowid INTEGER, title TEXT NOT NULL, position INTEGER NOT NULL)")
            for index in 0..<3 {
                try db.execute("INSERT INTO item (rowid, title, position) VALUES (7, ?, ?)", [.text("Item \(index)"), .integer(Int64(index))])
            }
        }
        defer { removeDatabaseFiles(at: path) }
        let hub = try ServeHub(configuration: ServeConfiguration(
            databasePath: path, table: "item", sectionColumn: nil, sortColumn: "position", titleColumn: "title", orderColumn: "position"
        ))
        let (id, outbox) = await hub.connect(canEdit: true)
        let editor = HubTestClient(id: id, outbox: outbox, label: "editor", layout: .list, viewport: Rect(x: 0, y: 0, width: 400, height: 600))
        await hub.receive(#"{"type":"hello","layout":"list","viewport":[0,0,400,600],"ids":true}"#, from: id)
        try await editor.drain()
        let rowIDs = try writer.withDatabase { db in try db.rows("SELECT _rowid_ FROM item ORDER BY position").map { ServeSchema.text(of: $0[0]) } }
        #expect(editor.replica.sections.flatMap(\.ids) == rowIDs)
        await hub.receive(#"{"type":"rename","request":1,"id":"\#(rowIDs[1])","title":"Renamed"}"#, from: id)
        try await editor.drain()
        #expect(editor.errors.isEmpty, "\(editor.errors.map(\.compactText))")
        let titles = try writer.withDatabase { db in try db.rows("SELECT title FROM item ORDER BY position").map { $0[0].string ?? "?" } }
        #expect(titles == ["Item 0", "Renamed", "Item 2"])
        await hub.stop()
    }
}
