import Foundation
import Testing
@testable import TesseraLiveHub
@testable import TesseraLiveProtocol
@testable import TesseraServe
import TesseraLayout
import TesseraRender
import TesseraSQLite

/// Plans of changes a client does not see: a rename of an item outside its
/// viewport is an `unchanged` plan with no elements, and the client's
/// elements stay right.
@Suite("Hub unchanged plans")
struct HubUnchangedPlanTests {
    @Test("a rename outside a client's viewport is an unchanged plan for it and a reload for a client that shows the item")
    func renameOutsideTheViewport() async throws {
        let library = try HubLibrary(photos: 200, albums: 2)
        let hub = try ServeHub(configuration: library.configuration())
        // One client shows the top of the list, the other its bottom.
        var clients: [HubTestClient] = []
        for (index, y) in [0, 100_000].enumerated() {
            let (id, outbox) = await hub.connect(canEdit: false)
            let client = HubTestClient(id: id, outbox: outbox, label: "client \(index)", layout: .list, viewport: Rect(x: 0, y: 0, width: 400, height: 600))
            await hub.receive("{\"type\":\"hello\",\"layout\":\"list\",\"viewport\":[0,\(y),400,600],\"ids\":true}", from: id)
            try await client.drain()
            clients.append(client)
        }
        let (top, bottom) = (clients[0], clients[1])
        let first = top.replica.sections[0].ids[0]
        try library.writer.withDatabase { db in
            try db.execute("UPDATE photo SET title = 'Renamed' WHERE id = ?", [.integer(Int64(first)!)])
        }
        await hub.poll()
        let shown = try JSON.parse(await top.outbox.next()!)
        let unseen = try JSON.parse(await bottom.outbox.next()!)
        #expect(shown["type"] == .string("plan") && shown["unchanged"] == nil)
        let reloaded = HubReplica.array(shown["elements"]).filter { $0["disposition"] == .string("reloaded") }
        #expect(reloaded.count == 1 && reloaded.first?["title"] == .string("Renamed"), "\(shown.compactText.prefix(300))")
        #expect(unseen["type"] == .string("plan") && unseen["unchanged"] == .bool(true))
        #expect(HubReplica.array(unseen["elements"]).isEmpty && unseen["settled"] == nil)
        #expect(unseen["fromSeq"] == .int(0) && unseen["seq"] == .int(1))
        try top.take(shown.compactText)
        try bottom.take(unseen.compactText)
        let fresh = try library.freshList()
        #expect(top.replica.sections == fresh && bottom.replica.sections == fresh)
        #expect(top.checkElements().isEmpty && bottom.checkElements().isEmpty)
        // The bottom client scrolls to the top: it sees the new title.
        await hub.receive(#"{"type":"viewport","viewport":[0,0,400,600]}"#, from: bottom.id)
        let elements = try JSON.parse(await bottom.outbox.next()!)
        let titles = HubReplica.array(elements["elements"]).compactMap { $0["title"] }
        #expect(titles.contains(.string("Renamed")))
        await hub.stop()
    }
}
