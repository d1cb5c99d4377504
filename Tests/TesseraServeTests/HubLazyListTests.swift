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

/// A table with a change log is served lazily (sections and counts first,
/// every key in the background, a record when a client shows it); one
/// without is read whole, as before.
@Suite("Hub lazy list")
struct HubLazyListTests {
    /// The title of every row, by id as text.
    static func titles(_ library: HubLibrary) throws -> [String: String] {
        try library.writer.withDatabase { db in
            try Dictionary(uniqueKeysWithValues: db.rows("SELECT id, title FROM photo").map { row -> (String, String) in
                (String(row[0].int64 ?? -1), row[1].string ?? "")
            })
        }
    }

    /// Every item a client shows has the title the table holds.
    static func expectTitles(_ client: HubTestClient, _ titles: [String: String], _ label: String) {
        for element in client.elements where element["kind"] == .string("item") {
            guard case let .string(key)? = element["key"] else { continue }
            let id = String(key.dropFirst(2))
            #expect(element["title"] == .string(titles[id] ?? "<no row>"), "\(label), \(client.label): \(key)")
        }
    }

    @Test("with a change log the list is lazy, and what every client shows (ids, frames, titles) is the table's after other connections' and the hub's own commits")
    func lazyListStaysExact() async throws {
        let seed = testSeed(default: 0x1A_2E)
        print("HubLazyListTests seed \(seed)")
        var random = SplitMix64(seed: seed)
        let library = try HubLibrary(photos: 3_000, albums: 6)
        try library.writer.installChangeLog(on: "photo", columns: ["album", "position"])
        let hub = try ServeHub(configuration: library.configuration())
        #expect(hub.isLazy)
        await hub.waitUntilLoaded()
        let clients = try await connectOnePerLayout(to: hub, seed: seed)
        let editor = clients[0]
        for step in 0..<24 {
            // A row each client shows, or any row.
            let shown = clients[step % clients.count].elements.compactMap { element -> String? in
                guard element["kind"] == .string("item"), case let .string(key)? = element["key"] else { return nil }
                return String(key.dropFirst(2))
            }
            let all = try library.freshList().flatMap(\.ids)
            let pool = shown.isEmpty || random.next() % 3 == 0 ? all : shown
            let id = pool[Int(random.next() % UInt64(pool.count))]
            let album = HubLibrary.albums[Int(random.next() % 6)]
            switch random.next() % 5 {
            case 0:
                await hub.receive(#"{"type":"rename","request":\#(step),"id":"\#(id)","title":"Hub \#(step)"}"#, from: editor.id)
            case 1, 2:
                try library.writer.write { db in try db.execute("UPDATE photo SET title = ? WHERE id = ?", [.text("Other \(step)"), .text(id)]) }
                await hub.poll()
            case 3:
                try library.writer.write { db in
                    try db.execute("UPDATE photo SET album = ?, position = ? WHERE id = ?", [.text(album), .integer(Int64(random.next() % 500)), .text(id)])
                }
                await hub.poll()
            default:
                try library.writer.write { db in try db.execute("DELETE FROM photo WHERE id = ?", [.text(id)]) }
                await hub.poll()
            }
            try await drainAndCheckElements(clients, step: step)
            let titles = try Self.titles(library)
            for client in clients { Self.expectTitles(client, titles, "seed \(seed), step \(step)") }
        }
        try expectEveryClientAtFreshList(clients, editor: editor, library: library)
        await hub.stop()
    }

    @Test("without a change log (or with one that does not hold the sort column) the list is read whole")
    func eagerWithoutLog() async throws {
        let library = try HubLibrary(photos: 40)
        #expect(!(try ServeHub(configuration: library.configuration())).isLazy)
        try library.writer.installChangeLog(on: "photo", columns: ["album"])
        #expect(!(try ServeHub(configuration: library.configuration())).isLazy)
        try library.writer.removeChangeLog(from: "photo")
        try library.writer.installChangeLog(on: "photo", columns: ["album", "position"])
        #expect(try ServeHub(configuration: library.configuration()).isLazy)
    }
}
