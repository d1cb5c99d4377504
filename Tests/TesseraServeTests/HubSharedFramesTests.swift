import Foundation
import Testing
import TesseraTestTraits
@testable import TesseraLiveHub
@testable import TesseraLiveProtocol
@testable import TesseraServe
import TesseraLayout
import TesseraRender
import TesseraSQLite
import TesseraTestSupport
import TesseraView

/// The frames of a change's updated items, found once per layout and width
/// and shared by every client that has them: each client still gets an
/// `unchanged` plan exactly when none of the items it shows changed, as a
/// fresh layout of its own list says.
@Suite("Hub shared frames")
struct HubSharedFramesTests {
    @Test("clients sharing layouts and widths at different offsets each get unchanged plans exactly when a fresh layout says so", arguments: [UInt64(5), 41, 777])
    func unchangedAgreesWithAFreshLayout(seed: UInt64) async throws {
        var random = SplitMix64(seed: seed)
        let library = try HubLibrary(photos: 360, albums: 3)
        let hub = try ServeHub(configuration: library.configuration())
        let widths: [Double] = [390, 768]
        var clients: [HubTestClient] = []
        for index in 0..<18 {
            // Three layouts and two widths: several clients per pair.
            let layout = ServeLayoutKind.allCases[Int(random.next() % 3)]
            let width = widths[Int(random.next() % 2)]
            let y = Double(random.next() % 9_000)
            let viewport = Rect(x: 0, y: y, width: width, height: 500)
            let (id, outbox) = await hub.connect(canEdit: false)
            let client = HubTestClient(id: id, outbox: outbox, label: "client \(index) (seed \(seed))", layout: layout, viewport: viewport)
            await hub.receive(#"{"type":"hello","layout":"\#(layout.rawValue)","viewport":[0,\#(Int(y)),\#(Int(width)),500],"ids":true}"#, from: id)
            try await client.drain()
            clients.append(client)
        }
        var unchangedSeen = 0
        var changedSeen = 0
        for step in 0..<25 {
            // One to three renames in one transaction.
            let fresh = try library.freshList()
            let all = fresh.flatMap(\.ids)
            let renamed = (0..<(1 + Int(random.next() % 3))).map { _ in all[Int(random.next() % UInt64(all.count))] }
            try library.writer.write { db in
                for id in renamed {
                    try db.execute("UPDATE photo SET title = ? WHERE id = ?", [.text("Step \(step) \(id)"), .integer(Int64(id)!)])
                }
            }
            await hub.poll()
            for client in clients {
                let expected = Self.freshShowsAny(of: Set(renamed), in: client)
                guard let text = await client.outbox.next() else {
                    Issue.record("\(client.label): no plan at step \(step)")
                    return
                }
                let plan = try JSON.parse(text)
                let unchanged = plan["unchanged"] == .bool(true)
                #expect(unchanged == !expected, "\(client.label), step \(step): renamed \(renamed), unchanged \(unchanged), a fresh layout shows one: \(expected)")
                if unchanged { unchangedSeen += 1 } else { changedSeen += 1 }
                try client.take(text)
                #expect(client.checkElements().isEmpty, "\(client.label), step \(step): \(client.checkElements().prefix(3))")
            }
            // A few clients scroll, so that offsets change between steps.
            for client in clients where random.next() % 4 == 0 {
                let y = Int(random.next() % 9_000)
                await hub.receive(#"{"type":"viewport","viewport":[0,\#(y),\#(Int(client.elementsViewport.size.width)),500]}"#, from: client.id)
                try await client.drain()
            }
        }
        // Both kinds of plan happened, or the test proves little.
        #expect(unchangedSeen > 0 && changedSeen > 0, "seed \(seed): \(unchangedSeen) unchanged, \(changedSeen) changed")
        let fresh = try library.freshList()
        for client in clients { #expect(client.replica.sections == fresh, "\(client.label)") }
        await hub.stop()
    }

    /// Whether a fresh layout of the client's list, in its last viewport
    /// with a point of margin, shows any of `ids`.
    static func freshShowsAny(of ids: Set<String>, in client: HubTestClient) -> Bool {
        let counts = CountsSource(counts: client.replica.sections.map(\.ids.count))
        let viewport = client.elementsViewport
        let view = CollectionView(layout: client.layout.makeLayout(width: viewport.size.width, headers: true), size: viewport.size)
        view.anchorsScrollPosition = false
        view.dataSource = counts
        view.reloadData()
        view.setBounds(viewport, animated: false)
        let shown = Rect(x: viewport.origin.x - 1, y: viewport.origin.y - 1, width: viewport.size.width + 2, height: viewport.size.height + 2)
        for (section, list) in client.replica.sections.enumerated() {
            for (item, id) in list.ids.enumerated() where ids.contains(id) {
                if let frame = view.collectionViewLayout.layoutAttributesForItem(at: IndexPath(item: item, section: section))?.frame,
                   frame.intersects(shown) {
                    return true
                }
            }
        }
        return false
    }
}

/// The messages written straight to a client's channel: whole frames of
/// every length form, in order, over a real WebSocket.
@Suite("Server direct frames", .ownThreads)
struct ServerDirectFrameTests {
    @Test("a snapshot over 64 KiB, a mid-sized elements message and a plan and done arrive whole and in order")
    func framesOfEveryLength() async throws {
        try await ServerTestSupport.withServer(photos: 3_000) { _, port in
            try await ServerTestSupport.blocking {
                let client = try RawClient(port: port)
                let response = try client.upgrade(host: "127.0.0.1:\(port)")
                guard response.status == 101 else { throw ServerTestError("status \(response.status)") }
                // A tall list viewport: well over 64 KiB of elements (the
                // frame's 8-byte length).
                try client.sendText(#"{"type":"hello","layout":"list","viewport":[0,0,800,80000],"ids":true}"#)
                guard case let .text(snapshotText) = try client.readMessage() else { throw ServerTestError("no text snapshot") }
                #expect(snapshotText.utf8.count > 65_535)
                let snapshot = try JSON.parse(snapshotText)
                #expect(snapshot["type"] == .string("snapshot") && snapshot["seq"] == .int(0))
                let ids = HubReplica.array(snapshot["ids"]).flatMap { HubReplica.strings($0) }
                #expect(ids.count == 3_000)
                // A short viewport: a message between 126 and 65,535 bytes
                // (the 2-byte length).
                try client.sendText(#"{"type":"viewport","viewport":[0,0,800,300]}"#)
                guard case let .text(elementsText) = try client.readMessage() else { throw ServerTestError("no text elements") }
                #expect((126...65_535).contains(elementsText.utf8.count))
                let elements = try JSON.parse(elementsText)
                #expect(elements["type"] == .string("elements"))
                let shown = HubReplica.array(elements["elements"])
                #expect(!shown.isEmpty)
                // A rename of an item on screen: its plan, then done.
                guard case let .string(key)? = shown.first(where: { $0["kind"] == .string("item") })?["key"] else { throw ServerTestError("no item shown") }
                let id = String(key.dropFirst(2))
                try client.sendText(#"{"type":"rename","request":1,"id":"\#(id)","title":"Direct"}"#)
                let plan = try client.readMessage(ofType: "plan")
                #expect(plan["fromSeq"] == .int(0) && plan["seq"] == .int(1))
                #expect(HubReplica.array(plan["elements"]).contains { $0["title"] == .string("Direct") })
                let done = try client.readMessage(ofType: "done", skipping: 1)
                #expect(done["request"] == .int(1) && done["seq"] == .int(1))
            }
        }
    }
}

/// A client whose socket stops taking frames falls behind on a real
/// connection too: the hub counts what waits for its socket, sends it
/// nothing more, and once it reads again sends one merged plan to the
/// current state.
@Suite("Server slow client on a real socket", .ownThreads)
struct ServerSlowSocketTests {
    @Test("a client that does not read while large plans are made catches up with a merged plan, every seq in order, at the list as committed")
    func slowSocketCatchesUp() async throws {
        // Four plans may wait for the socket before the client is behind.
        var configuration = try ServerTestSupport.library(photos: 2_000)
        configuration.outboxCapacity = 4
        let database = configuration.databasePath
        let server = ServeServer(hub: try ServeHub(configuration: configuration), host: "127.0.0.1", port: 0)
        let running = Task { try await server.run() }
        defer { running.cancel() }
        do {
            let port = try await server.waitUntilListening()
            let client = try RawClient(port: port)
            try await ServerTestSupport.blocking {
                let response = try client.upgrade(host: "127.0.0.1:\(port)")
                guard response.status == 101 else { throw ServerTestError("status \(response.status)") }
                // A tall viewport: each plan carries about two thousand
                // elements, so the socket's buffers fill within a few dozen.
                try client.sendText(#"{"type":"hello","layout":"list","viewport":[0,0,800,80000],"ids":true}"#)
                let snapshot = try client.readMessage(ofType: "snapshot")
                #expect(snapshot["seq"] == .int(0))
            }
            // Renames of items the client shows, one commit each, by another
            // connection, while the client reads nothing.
            let writer = try Connection(path: database)
            let shownIDs = try writer.withDatabase { db in
                try db.rows("SELECT id FROM photo ORDER BY album, position, id LIMIT 40").map { row -> Int64 in
                    if case let .integer(id) = row[0] { return id }
                    return -1
                }
            }
            // Until the hub has made enough changes to fill the socket's
            // buffers (each plan is a few hundred kilobytes): on a busy
            // machine the hub takes several commits as one change, so a
            // fixed number of commits may make too few plans.
            var step = 0
            while await server.hub.seq < 100, step < 2_000 {
                let id = shownIDs[step % shownIDs.count]
                try writer.withDatabase { db in try db.execute("UPDATE photo SET title = ? WHERE id = ?", [.text("Slow \(step)"), .integer(id)]) }
                step += 1
                try await Task.sleep(for: .milliseconds(15))
            }
            // Every commit is in: one more poll takes whatever the hub has
            // not taken yet, so the target is the list as committed (a
            // pause here would be too short on a busy machine).
            await server.hub.poll()
            let target = await server.hub.seq
            let titles = try writer.withDatabase { db in
                try Dictionary(uniqueKeysWithValues: db.rows("SELECT id, title FROM photo").map { row -> (String, String) in
                    let id = if case let .integer(value) = row[0] { String(value) } else { "" }
                    let title = if case let .text(value) = row[1] { value } else { "" }
                    return (id, title)
                })
            }
            let (merged, last) = try await ServerTestSupport.blocking { () throws -> (Int, JSON) in
                var seq = 0
                var merged = 0
                var last = JSON.null
                while seq < target {
                    let plan = try client.readMessage(ofType: "plan", skipping: 1)
                    guard plan["fromSeq"] == .int(seq), case let .number(text)? = plan["seq"], let next = Int(text), next > seq else {
                        throw ServerTestError("plan \(plan["fromSeq"]?.compactText ?? "?")→\(plan["seq"]?.compactText ?? "?") while at \(seq)")
                    }
                    if next - seq > 1 { merged += 1 }
                    seq = next
                    last = plan
                }
                return (merged, last)
            }
            #expect(target >= 100, "the hub reported \(target) changes for \(step) commits")
            #expect(merged >= 1, "no merged plan: the socket never filled")
            // What the client shows at the end is the list as committed.
            let settled = HubReplica.array(last["settled"]).filter { $0["kind"] == .string("item") }
            #expect(settled.count > 1_000)
            for element in settled {
                guard case let .string(key)? = element["key"] else { continue }
                #expect(element["title"] == .string(titles[String(key.dropFirst(2))] ?? ""), "\(key)")
            }
        }
    }
}
