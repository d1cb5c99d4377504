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

/// Review of the shared layout groups and the lazy list: clients that fall
/// behind, move between groups, or catch up on a lazy list.
@Suite("Review shared layout")
struct ReviewSharedLayoutTests {
    /// Connects a client (ids asked for) and reads its snapshot.
    static func connect(_ hub: ServeHub, layout: ServeLayoutKind, viewport: Rect, label: String) async throws -> HubTestClient {
        try await HubLayoutGroupTests.connect(hub, layout: layout, viewport: viewport, label: label)
    }

    @Test("a client behind on a lazy list catches up after another connection deleted a row no one was shown (no crash, merged plan at the hub's seq)")
    func lazyBehindClientCatchesUpOverADelete() async throws {
        let library = try HubLibrary(photos: 3_000, albums: 6)
        try library.writer.installChangeLog(on: "photo", columns: ["album", "position"])
        let capacity = 2
        let hub = try ServeHub(configuration: library.configuration(capacity: capacity))
        #expect(hub.isLazy)
        await hub.waitUntilLoaded()
        // A client without ids: only its viewport's records are read.
        let (id, outbox) = await hub.connect(canEdit: false)
        await hub.receive(#"{"type":"hello","layout":"list","viewport":[0,0,600,900]}"#, from: id)
        let snapshot = try JSON.parse(await outbox.next()!)
        #expect(snapshot["type"] == .string("snapshot"))
        // Renames of shown rows fill its outbox.
        let shown = HubReplica.array(snapshot["elements"]).compactMap { element -> String? in
            guard element["kind"] == .string("item"), case let .string(key)? = element["key"] else { return nil }
            return String(key.dropFirst(2))
        }
        for step in 0..<capacity {
            try library.writer.write { db in try db.execute("UPDATE photo SET title = ? WHERE id = ?", [.text("Renamed \(step)"), .text(shown[step])]) }
            await hub.poll()
        }
        // Behind, it misses the deletion of the last rows of the table, far
        // below any viewport.
        try library.writer.write { db in try db.execute("DELETE FROM photo WHERE id > 2990") }
        await hub.poll()
        let last = await hub.seq
        #expect(outbox.count == capacity)
        var messages: [JSON] = []
        for _ in 0..<capacity { messages.append(try JSON.parse(await outbox.next()!)) }
        // The drain brings the merged plan.
        let merged = try JSON.parse(await outbox.next()!)
        #expect(merged["type"] == .string("plan") && merged["seq"] == .int(last), "\(merged.compactText.prefix(300))")
        // Its sections' counts are the table's.
        let counts = HubReplica.array(merged["sections"]).map { HubTestClient.int($0["count"]) }
        #expect(counts == (try library.freshList()).map(\.ids.count), "\(merged.compactText.prefix(300))")
        await hub.stop()
    }

    @Test("a client behind that moves to another layout and width gets the merged plan and elements of its new viewport; its old group goes")
    func behindClientMovesToAnotherGroup() async throws {
        let seed = testSeed(default: 0x5E_71A)
        print("ReviewSharedLayoutTests seed \(seed)")
        var random = SplitMix64(seed: seed)
        let library = try HubLibrary(photos: 80)
        let capacity = 3
        let hub = try ServeHub(configuration: library.configuration(capacity: capacity))
        let slow = try await Self.connect(hub, layout: .flow, viewport: Rect(x: 0, y: 0, width: 900, height: 700), label: "slow")
        let fast = try await Self.connect(hub, layout: .list, viewport: Rect(x: 0, y: 0, width: 640, height: 500), label: "fast")
        #expect(await hub.groupSizes == [1, 1])
        for _ in 0..<(capacity + 3) {
            try HubOracleTests.externalCommit(library, using: &random)
            await hub.poll()
            try await fast.drain()
        }
        // Behind, it becomes a list of the fast client's size: it joins its group.
        await hub.receive(#"{"type":"viewport","layout":"list","viewport":[0,120,640,500]}"#, from: slow.id)
        #expect(await hub.groupSizes == [2], "seed \(seed)")
        // More changes while it is behind.
        for _ in 0..<2 {
            try HubOracleTests.externalCommit(library, using: &random)
            await hub.poll()
            try await fast.drain()
        }
        let last = await hub.seq
        for _ in 0..<capacity { try slow.take(await slow.outbox.next()!) }
        slow.layout = .list
        slow.viewport = Rect(x: 0, y: 120, width: 640, height: 500)
        let merged = try JSON.parse(await slow.outbox.next()!)
        #expect(merged["type"] == .string("plan") && merged["seq"] == .int(last), "seed \(seed): \(merged.compactText.prefix(200))")
        try slow.take(merged.compactText)
        let elements = try JSON.parse(await slow.outbox.next()!)
        #expect(elements["type"] == .string("elements") && elements["seq"] == .int(last), "seed \(seed)")
        try slow.take(elements.compactText)
        #expect(slow.checkElements().isEmpty, "seed \(seed): \(slow.checkElements().prefix(3))")
        // Then both follow the next changes in the shared group exactly.
        for step in 0..<6 {
            try HubOracleTests.externalCommit(library, using: &random)
            await hub.poll()
            try await drainAndCheckElements([slow, fast], step: step)
        }
        let fresh = try library.freshList()
        #expect(slow.replica.sections == fresh && fast.replica.sections == fresh, "seed \(seed)")
        await hub.stop()
    }

    @Test("a group whose every client is behind still takes each change: after they catch up, the next plans are exact")
    func groupOfBehindClientsStaysCurrent() async throws {
        let seed = testSeed(default: 0xA11_BE)
        print("ReviewSharedLayoutTests seed \(seed)")
        var random = SplitMix64(seed: seed)
        let library = try HubLibrary(photos: 80)
        let capacity = 2
        let hub = try ServeHub(configuration: library.configuration(capacity: capacity))
        let clients = [
            try await Self.connect(hub, layout: .column, viewport: Rect(x: 0, y: 0, width: 700, height: 600), label: "a"),
            try await Self.connect(hub, layout: .column, viewport: Rect(x: 0, y: 300, width: 700, height: 400), label: "b"),
        ]
        for _ in 0..<(capacity + 4) {
            try HubOracleTests.externalCommit(library, using: &random)
            await hub.poll()
        }
        for client in clients {
            for _ in 0..<(capacity + 1) { try client.take(await client.outbox.next()!) }
            #expect(client.seq == (await hub.seq), "seed \(seed), \(client.label)")
            #expect(client.checkElements().isEmpty, "seed \(seed), \(client.label): \(client.checkElements().prefix(3))")
        }
        for step in 0..<6 {
            try HubOracleTests.externalCommit(library, using: &random)
            await hub.poll()
            try await drainAndCheckElements(clients, step: step)
        }
        let fresh = try library.freshList()
        for client in clients { #expect(client.replica.sections == fresh, "seed \(seed), \(client.label)") }
        await hub.stop()
    }
    @Test("a list client that changes only its viewport's height moves to the group of that height (the list's content is at least as tall), and its plans stay exact")
    func listHeightChangeMovesGroup() async throws {
        let seed = testSeed(default: 0x4E1_647)
        print("ReviewSharedLayoutTests seed \(seed)")
        var random = SplitMix64(seed: seed)
        // Few rows: the list is shorter than the tall viewport.
        let library = try HubLibrary(photos: 6, albums: 2)
        let hub = try ServeHub(configuration: library.configuration())
        let short = try await Self.connect(hub, layout: .list, viewport: Rect(x: 0, y: 0, width: 500, height: 300), label: "short")
        let tall = try await Self.connect(hub, layout: .list, viewport: Rect(x: 0, y: 0, width: 500, height: 1_200), label: "tall")
        #expect(await hub.groupSizes == [1, 1])
        await hub.receive(#"{"type":"viewport","viewport":[0,0,500,1200]}"#, from: short.id)
        short.viewport = Rect(x: 0, y: 0, width: 500, height: 1_200)
        try await short.drain()
        #expect(await hub.groupSizes == [2])
        #expect(short.checkElements().isEmpty, "\(short.checkElements().prefix(3))")
        for step in 0..<8 {
            try HubOracleTests.externalCommit(library, using: &random)
            await hub.poll()
            try await drainAndCheckElements([short, tall], step: step)
        }
        let fresh = try library.freshList()
        #expect(short.replica.sections == fresh && tall.replica.sections == fresh, "seed \(seed)")
        await hub.stop()
    }
}
