import Foundation
import Testing
@testable import TesseraLiveHub
@testable import TesseraLiveProtocol
@testable import TesseraServe
import TesseraLayout
import TesseraRender
import TesseraResults
import TesseraSQLite
import TesseraTestSupport

/// The hub reads a table with a key column as the table itself, so that
/// each commit patches the list row by row; a table keyed by row id is read
/// through the hub's own SELECT and fetched again. Both give every client
/// the list as committed.
@Suite("Hub table request")
struct HubTableRequestTests {
    @Test("a keyed table is patched row by row on the hub's own edits, and seeded edits leave every client at the fresh list", arguments: [UInt64(3), 58])
    func keyedTableIsPatched(seed: UInt64) async throws {
        var random = SplitMix64(seed: seed)
        let library = try HubLibrary(photos: 240, albums: 3)
        let hub = try ServeHub(configuration: library.configuration())
        // The first client edits.
        let clients = try await connectOnePerLayout(to: hub, seed: seed)
        let editor = clients[0]
        for step in 0..<24 {
            let sections = try library.freshList()
            let ids = sections.flatMap(\.ids)
            let id = ids[Int(random.next() % UInt64(ids.count))]
            let kind = random.next() % 5
            switch kind {
            case 0:
                await hub.receive(#"{"type":"rename","request":\#(step),"id":"\#(id)","title":"Step \#(step)"}"#, from: editor.id)
            case 1:
                await hub.receive(#"{"type":"delete","request":\#(step),"ids":["\#(id)"]}"#, from: editor.id)
            case 2:
                let album = sections[Int(random.next() % UInt64(sections.count))].id
                await hub.receive(#"{"type":"add","request":\#(step),"section":"\#(album)","title":"New \#(step)"}"#, from: editor.id)
            case 3:
                let count = sections.first { $0.ids.contains(id) }?.ids.count ?? 1
                await hub.receive(#"{"type":"move","request":\#(step),"id":"\#(id)","to":\#(Int(random.next() % UInt64(count)))}"#, from: editor.id)
            default:
                // Another connection's commit: seen by polling, fetched again.
                try library.writer.withDatabase { db in
                    try db.execute("UPDATE photo SET title = ? WHERE id = ?", [.text("Other \(step)"), .integer(Int64(id)!)])
                }
                await hub.poll()
            }
            // The hub's own renames, deletes and adds are patched row by row.
            if kind <= 2 {
                #expect(await hub.lastUpdateMethod == .incremental, "seed \(seed), step \(step), edit \(kind)")
            }
            try await drainAndCheckElements(clients, step: step)
        }
        try expectEveryClientAtFreshList(clients, editor: editor, library: library)
        // Titles too: what the clients show is what the table holds.
        let titles = try library.writer.withDatabase { db in
            try Dictionary(uniqueKeysWithValues: db.rows("SELECT id, title FROM photo").map { (String($0[0].int64 ?? -1), $0[1].string ?? "") })
        }
        for client in clients {
            for element in client.elements where element["kind"] == .string("item") {
                guard case let .string(key)? = element["key"] else { continue }
                #expect(element["title"] == .string(titles[String(key.dropFirst(2))] ?? "?"), "\(client.label): \(key)")
            }
        }
        await hub.stop()
    }

    @Test("a table keyed by row id is read through the hub's SELECT and fetched again, and its renames reach the client")
    func rowIDTableIsFetchedAgain() async throws {
        let (path, writer) = try makeScratchDatabase("tessera-hub-rowid") { db in
            try db.execute("CREATE TABLE note (title TEXT NOT NULL, position INTEGER NOT NULL)")
            for i in 0..<30 { try db.execute("INSERT INTO note (title, position) VALUES (?, ?)", [.text("Note \(i)"), .integer(Int64(i))]) }
        }
        defer { removeDatabaseFiles(at: path) }
        let configuration = ServeConfiguration(databasePath: path, table: "note", sectionColumn: nil, sortColumn: "position", titleColumn: "title", orderColumn: nil)
        let hub = try ServeHub(configuration: configuration)
        #expect(hub.schema.tableColumns == nil)
        let (id, outbox) = await hub.connect(canEdit: false)
        await hub.receive(#"{"type":"hello","layout":"list","viewport":[0,0,400,600],"ids":true}"#, from: id)
        let snapshot = try JSON.parse(await outbox.next()!)
        let titles = HubReplica.array(snapshot["elements"]).compactMap { $0["title"] }
        #expect(titles.first == .string("Note 0"))
        try writer.withDatabase { db in try db.execute("UPDATE note SET title = 'Renamed' WHERE position = 0") }
        await hub.poll()
        let plan = try JSON.parse(await outbox.next()!)
        #expect(plan["type"] == .string("plan") && plan["seq"] == .int(1))
        #expect(HubReplica.array(plan["settled"]).first?["title"] == .string("Renamed"), "\(plan.compactText.prefix(300))")
        #expect(await hub.lastUpdateMethod == .refetch)
        await hub.stop()
    }

    @Test("a title changed only from one spelling of é to the other (as another connection commits it) reaches the client, in a keyed table (patched) and in one keyed by row id (fetched again and diffed), and records differing only so are unequal", arguments: [true, false])
    func titleRespeltIsPushed(keyed: Bool) async throws {
        let precomposed = "Caf\u{E9}", decomposed = "Cafe\u{301}"
        #expect(ServeRecord(id: "1", key: .integer(1), section: "", title: precomposed) != ServeRecord(id: "1", key: .integer(1), section: "", title: decomposed))
        let (path, writer) = try makeScratchDatabase("tessera-hub-respelt") { db in
            try db.execute(keyed ? "CREATE TABLE note (id INTEGER PRIMARY KEY, title TEXT NOT NULL)" : "CREATE TABLE note (id INTEGER NOT NULL, title TEXT NOT NULL)")
            try db.execute("INSERT INTO note (id, title) VALUES (1, ?), (2, 'Other')", [.text(precomposed)])
        }
        defer { removeDatabaseFiles(at: path) }
        let configuration = ServeConfiguration(databasePath: path, table: "note", sectionColumn: nil, sortColumn: "id", titleColumn: "title", orderColumn: nil)
        let hub = try ServeHub(configuration: configuration)
        let (id, outbox) = await hub.connect(canEdit: false)
        await hub.receive(#"{"type":"hello","layout":"list","viewport":[0,0,400,600],"ids":true}"#, from: id)
        let snapshot = try JSON.parse(await outbox.next()!)
        /// The title the client shows for the row with `rowID`, as bytes.
        func shownTitle(_ elements: JSON?, of rowID: String = "1") -> [UInt8]? {
            for element in HubReplica.array(elements) {
                guard case let .string(key)? = element["key"], key.dropFirst(2) == rowID,
                      case let .string(title)? = element["title"] else { continue }
                return Array(title.utf8)
            }
            return nil
        }
        #expect(shownTitle(snapshot["elements"]) == Array(precomposed.utf8))
        var other = "Other"
        for (round, title) in [decomposed, precomposed].enumerated() {
            // The respelling is committed and polled on its own, then row 2
            // is renamed: the first plan must bring the respelling alone. A
            // respelling taken for no change sends no plan, and the first
            // plan is row 2's (which fails below instead of waiting for a
            // plan for ever).
            try writer.withDatabase { db in try db.execute("UPDATE note SET title = ? WHERE id = 1", [.text(title)]) }
            await hub.poll()
            try writer.withDatabase { db in try db.execute("UPDATE note SET title = ? WHERE id = 2", [.text("Other \(round)")]) }
            await hub.poll()
            let plan = try JSON.parse(await outbox.next()!)
            #expect(plan["type"] == .string("plan"), "round \(round): \(plan.compactText.prefix(300))")
            #expect(shownTitle(plan["settled"]) == Array(title.utf8), "round \(round): the client shows \(shownTitle(plan["settled"]) ?? []), the table holds \(Array(title.utf8))")
            let respeltAlone = shownTitle(plan["settled"], of: "2") == Array(other.utf8)
            #expect(respeltAlone, "round \(round): the respelling sent no plan of its own")
            guard respeltAlone else { break }
            other = "Other \(round)"
            let next = try JSON.parse(await outbox.next()!)
            #expect(shownTitle(next["settled"], of: "2") == Array(other.utf8), "round \(round): \(next.compactText.prefix(300))")
        }
        await hub.stop()
    }

    @Test("a row read without the columns its request needs is an error, not an empty record")
    func rowWithoutColumnsThrows() {
        let row = Row(columnNames: ["id", "title"], values: [.integer(1), .text("A")])
        #expect(throws: ServeRecordError.self) { try ServeRecord(row: row) }
        let record = ServeRecord.$tableColumns.withValue(ServeRecord.TableColumns(key: "id", section: nil, title: "title")) {
            try? ServeRecord(row: row)
        }
        #expect(record == ServeRecord(id: "1", key: .integer(1), section: "", title: "A"))
    }
}
