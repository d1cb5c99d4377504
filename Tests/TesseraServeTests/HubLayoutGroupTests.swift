import Foundation
import Testing
@testable import TesseraLiveHub
@testable import TesseraLiveProtocol
@testable import TesseraServe
import TesseraLayout
import TesseraRender
import TesseraSQLite
import TesseraTestSupport

/// Clients that lay the list out the same way share one layout
/// (``ServeLayoutGroup``): what is per client is its viewport, its state and
/// its outbox.
@Suite("Hub layout groups")
struct HubLayoutGroupTests {
    /// Connects a client and reads its snapshot.
    static func connect(_ hub: ServeHub, layout: ServeLayoutKind, viewport: Rect, label: String) async throws -> HubTestClient {
        let (id, outbox) = await hub.connect(canEdit: false)
        let client = HubTestClient(id: id, outbox: outbox, label: label, layout: layout, viewport: viewport)
        let v = viewport
        await hub.receive("{\"type\":\"hello\",\"layout\":\"\(layout.rawValue)\",\"viewport\":[\(v.origin.x),\(v.origin.y),\(v.size.width),\(v.size.height)],\"ids\":true}", from: id)
        try await client.drain()
        return client
    }

    @Test("one group per layout kind and width (and height for the list); a group goes with its last client; a new width moves a client")
    func groupsFollowTheClients() async throws {
        let library = try HubLibrary(photos: 60)
        let hub = try ServeHub(configuration: library.configuration())
        var clients: [HubTestClient] = []
        // Three grid clients 900 wide at other heights and places: one group.
        for (index, (y, height)) in [(0.0, 700.0), (400, 300), (1200, 1000)].enumerated() {
            clients.append(try await Self.connect(hub, layout: .flow, viewport: Rect(x: 0, y: y, width: 900, height: height), label: "grid \(index)"))
        }
        // Two lists 900 wide at two heights: two groups (a list's content is
        // at least as tall as its viewport).
        clients.append(try await Self.connect(hub, layout: .list, viewport: Rect(x: 0, y: 0, width: 900, height: 700), label: "list 0"))
        clients.append(try await Self.connect(hub, layout: .list, viewport: Rect(x: 0, y: 100, width: 900, height: 300), label: "list 1"))
        // Columns at another width: one more.
        clients.append(try await Self.connect(hub, layout: .column, viewport: Rect(x: 0, y: 0, width: 500, height: 700), label: "columns"))
        #expect(await hub.groupSizes == [1, 1, 1, 3])

        // A viewport of another width moves the client to a group of its own.
        await hub.receive(#"{"type":"viewport","viewport":[0,0,640,700]}"#, from: clients[0].id)
        clients[0].viewport = Rect(x: 0, y: 0, width: 640, height: 700)
        try await clients[0].drain()
        #expect(clients[0].checkElements().isEmpty, "\(clients[0].checkElements().prefix(3))")
        #expect(await hub.groupSizes == [1, 1, 1, 1, 2])

        // Every client follows other processes' commits exactly, each in its
        // own viewport.
        let seed = testSeed(default: 0x6A0_0B)
        print("HubLayoutGroupTests seed \(seed)")
        var random = SplitMix64(seed: seed)
        for step in 0..<12 {
            try HubOracleTests.externalCommit(library, using: &random)
            await hub.poll()
            try await drainAndCheckElements(clients, step: step)
        }
        let fresh = try library.freshList()
        for client in clients { #expect(client.replica.sections == fresh, "seed \(seed), \(client.label)") }

        // Groups go with their last client.
        await hub.disconnect(clients[3].id)
        #expect(await hub.groupSizes == [1, 1, 1, 2])
        for client in clients { await hub.disconnect(client.id) }
        #expect(await hub.groupSizes.isEmpty)
        await hub.stop()
    }

    @Test("clients with the same viewport get the same plan text, written once; another viewport of the group gets its own")
    func sameViewportSharesThePlan() async throws {
        let library = try HubLibrary(photos: 60)
        let hub = try ServeHub(configuration: library.configuration())
        let viewport = Rect(x: 0, y: 0, width: 900, height: 700)
        let twins = [
            try await Self.connect(hub, layout: .flow, viewport: viewport, label: "twin 0"),
            try await Self.connect(hub, layout: .flow, viewport: viewport, label: "twin 1"),
        ]
        let other = try await Self.connect(hub, layout: .flow, viewport: Rect(x: 0, y: 150, width: 900, height: 500), label: "other")
        // Adding a photo at the top of the first album moves every grid cell
        // after it: each client's plan has elements.
        try library.writer.withDatabase { db in
            try db.execute("INSERT INTO photo (id, album, title, position) VALUES (999, ?, 'First', -1)", [.text(HubLibrary.albums[0])])
        }
        await hub.poll()
        let texts = [await twins[0].outbox.next()!, await twins[1].outbox.next()!, await other.outbox.next()!]
        #expect(texts[0] == texts[1])
        #expect(texts[0] != texts[2])
        for (client, text) in zip(twins + [other], texts) {
            let plan = try JSON.parse(text)
            #expect(plan["type"] == .string("plan") && plan["unchanged"] == nil, "\(client.label): \(text.prefix(200))")
            try client.take(text)
            #expect(client.checkElements().isEmpty, "\(client.label): \(client.checkElements().prefix(3))")
            #expect(client.replica.sections == (try library.freshList()), "\(client.label)")
        }
        await hub.stop()
    }

    @Test("a client that is behind and moves its viewport gets the merged plan for the new viewport, then the elements at the plan's seq")
    func viewportWhileBehind() async throws {
        let seed = testSeed(default: 0xBE_41D)
        print("HubLayoutGroupTests seed \(seed)")
        var random = SplitMix64(seed: seed)
        let library = try HubLibrary(photos: 60)
        let capacity = 3
        let hub = try ServeHub(configuration: library.configuration(capacity: capacity))
        let slow = try await Self.connect(hub, layout: .flow, viewport: Rect(x: 0, y: 0, width: 900, height: 700), label: "slow")
        let fast = try await Self.connect(hub, layout: .flow, viewport: Rect(x: 0, y: 0, width: 900, height: 700), label: "fast")
        for _ in 0..<(capacity + 4) {
            try HubOracleTests.externalCommit(library, using: &random)
            await hub.poll()
            try await fast.drain()
        }
        let last = await hub.seq
        #expect(slow.outbox.count == capacity, "seed \(seed)")
        // Behind, it scrolls: the reply waits for the merged plan.
        await hub.receive(#"{"type":"viewport","viewport":[0,300,900,700]}"#, from: slow.id)
        for _ in 0..<capacity { try slow.take(await slow.outbox.next()!) }
        slow.viewport = Rect(x: 0, y: 300, width: 900, height: 700)
        let merged = try JSON.parse(await slow.outbox.next()!)
        #expect(merged["type"] == .string("plan") && merged["seq"] == .int(last), "seed \(seed): \(merged.compactText.prefix(200))")
        #expect(HubTestClient.point(merged["contentOffsetBefore"]) == Point(x: 0, y: 300), "seed \(seed)")
        try slow.take(merged.compactText)
        let elements = try JSON.parse(await slow.outbox.next()!)
        #expect(elements["type"] == .string("elements") && elements["seq"] == .int(last), "seed \(seed): \(elements.compactText.prefix(200))")
        try slow.take(elements.compactText)
        #expect(slow.checkElements().isEmpty, "seed \(seed): \(slow.checkElements().prefix(3))")
        #expect(slow.replica.sections == (try library.freshList()), "seed \(seed)")
        await hub.stop()
    }
}
