import Testing
import TesseraResults
@testable import TesseraLiveHub
@testable import TesseraLiveProtocol
@testable import TesseraServe
import TesseraSQLite
import TesseraTestSupport

/// With a change log on the table, the hub patches other processes'
/// commits as it patches its own edits, and every client still ends at the
/// list as committed.
@Suite("Hub over a table with a change log")
struct HubChangeLogTests {
    @Test("another connection's renames, moves between sections, inserts and deletes reach every client patched, not fetched again; the hub's own edits in between advance its position", arguments: [UInt64(11), 12])
    func externalCommitsArePatched(seed: UInt64) async throws {
        print("HubChangeLogTests.externalCommitsArePatched seed \(seed)")
        let library = try HubLibrary(photos: 200, albums: 4)
        var random = SplitMix64(seed: seed)
        try library.writer.installChangeLog(on: "photo", columns: ["album", "position"])
        let hub = try ServeHub(configuration: library.configuration())
        let clients = try await connectOnePerLayout(to: hub, seed: seed)
        let editor = clients[0]
        for step in 0..<30 {
            let ids = try library.freshList().flatMap(\.ids)
            let id = Int64(ids[Int(random.next() % UInt64(ids.count))])!
            let album = HubLibrary.albums[Int(random.next() % 4)]
            switch random.next() % 6 {
            case 0:
                await hub.receive(#"{"type":"rename","request":\#(step),"id":"\#(id)","title":"Hub \#(step)"}"#, from: editor.id)
            case 1:
                try library.writer.write { db in try db.execute("UPDATE photo SET title = ? WHERE id = ?", [.text("Other \(step)"), .integer(id)]) }
                await hub.poll()
            case 2:
                try library.writer.write { db in try db.execute("UPDATE photo SET album = ?, position = ? WHERE id = ?", [.text(album), .integer(Int64(random.next() % 60)), .integer(id)]) }
                await hub.poll()
            case 3:
                try library.writer.write { db in try db.execute("INSERT INTO photo (album, title, position) VALUES (?, ?, ?)", [.text(album), .text("Added \(step)"), .integer(Int64(random.next() % 60))]) }
                await hub.poll()
            default:
                try library.writer.write { db in try db.execute("DELETE FROM photo WHERE id = ?", [.integer(id)]) }
                await hub.poll()
            }
            #expect(await hub.lastUpdateMethod == .incremental, "seed \(seed), step \(step)")
            try await drainAndCheckElements(clients, step: step)
        }
        try expectEveryClientAtFreshList(clients, editor: editor, library: library)
        await hub.stop()
    }
}
