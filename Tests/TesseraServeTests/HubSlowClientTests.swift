import Foundation
import Testing
@testable import TesseraLiveHub
@testable import TesseraLiveProtocol
@testable import TesseraServe
import TesseraLayout
import TesseraRender
import TesseraResultsCore
import TesseraSQLite
import TesseraTestSupport

/// Slow clients, the editor's own plans, and following other processes.
@Suite("Hub slow clients and following")
struct HubSlowClientTests {
    @Test("a client that does not read gets one merged plan that replays to a fresh query; the others get every change")
    func slowClientGetsOneMergedPlan() async throws {
        let seed = testSeed(default: 0x51_0C1E)
        print("HubSlowClientTests seed \(seed)")
        var random = SplitMix64(seed: seed)
        let library = try HubLibrary(photos: 40)
        let capacity = 4
        let hub = try ServeHub(configuration: library.configuration(capacity: capacity))
        var clients: [HubTestClient] = []
        for (index, layout) in [ServeLayoutKind.flow, .column].enumerated() {
            let (id, outbox) = await hub.connect(canEdit: false)
            let client = HubTestClient(id: id, outbox: outbox, label: "seed \(seed), client \(index)", layout: layout, viewport: Rect(x: 0, y: 0, width: 900, height: 700))
            await hub.receive("{\"type\":\"hello\",\"layout\":\"\(layout.rawValue)\",\"viewport\":[0,0,900,700],\"ids\":true}", from: id)
            clients.append(client)
        }
        let (slow, fast) = (clients[0], clients[1])
        try await fast.drain()
        let commits = 20
        for _ in 0..<commits {
            try HubOracleTests.externalCommit(library, using: &random)
            await hub.poll()
            try await fast.drain()
        }
        let last = await hub.seq
        #expect(last > capacity, "seed \(seed): too few changes to fill the outbox")
        #expect(fast.seq == last && fast.plans == last, "seed \(seed): the fast client got \(fast.plans) plans for \(last) changes")
        #expect(slow.outbox.count == capacity)
        // The slow client reads: the snapshot, the plans that fit, then one
        // merged plan once its outbox drained.
        for _ in 0..<capacity { try slow.take(await slow.outbox.next()!) }
        #expect(slow.seq == capacity - 1)
        let merged = try JSON.parse(await slow.outbox.next()!)
        #expect(merged["type"] == .string("plan"))
        #expect(merged["fromSeq"] == .int(capacity - 1) && merged["seq"] == .int(last), "seed \(seed): \(merged["fromSeq"]?.compactText ?? "") → \(merged["seq"]?.compactText ?? "")")
        try slow.take(merged.compactText)
        #expect(slow.replica.sections == (try library.freshList()), "seed \(seed)")
        #expect(slow.checkElements().isEmpty, "seed \(seed): \(slow.checkElements().prefix(3))")
        #expect(fast.replica.sections == (try library.freshList()))
        await hub.stop()
        #expect(await slow.outbox.next() == nil)
    }

    @Test("the editor's own move and rename are not animated for it; others animate them; done follows the plan")
    func editorSettlesWithoutAnimating() async throws {
        let library = try HubLibrary(photos: 12, albums: 2)
        let hub = try ServeHub(configuration: library.configuration())
        var clients: [HubTestClient] = []
        for index in 0..<2 {
            let (id, outbox) = await hub.connect(canEdit: true)
            let client = HubTestClient(id: id, outbox: outbox, label: "client \(index)", layout: .list, viewport: Rect(x: 0, y: 0, width: 400, height: 900))
            await hub.receive(#"{"type":"hello","layout":"list","viewport":[0,0,400,900],"ids":true}"#, from: id)
            try await client.drain()
            clients.append(client)
        }
        let (editor, other) = (clients[0], clients[1])
        let moved = editor.replica.sections[0].ids[0]
        for (text, animated) in [
            ("{\"type\":\"move\",\"request\":1,\"id\":\"\(moved)\",\"to\":4}", false),
            ("{\"type\":\"rename\",\"request\":2,\"id\":\"\(moved)\",\"title\":\"Dusk\"}", false),
            ("{\"type\":\"add\",\"request\":3,\"section\":\"Berlin\",\"title\":\"New\"}", true),
            ("{\"type\":\"delete\",\"request\":4,\"ids\":[\"\(moved)\"]}", true),
        ] {
            await hub.receive(text, from: editor.id)
            let plan = try JSON.parse(await editor.outbox.next()!)
            #expect(plan["type"] == .string("plan") && plan["animated"] == .bool(animated), "\(text): \(plan.compactText.prefix(200))")
            try editor.take(plan.compactText)
            let done = try JSON.parse(await editor.outbox.next()!)
            #expect(done["type"] == .string("done") && done["seq"] == .int(editor.seq))
            let seen = try JSON.parse(await other.outbox.next()!)
            #expect(seen["animated"] == .bool(true))
            try other.take(seen.compactText)
        }
        let fresh = try library.freshList()
        #expect(editor.replica.sections == fresh && other.replica.sections == fresh)
        #expect(fresh[0].ids.count == 5 && fresh[1].ids.count == 7)
        // The move was persisted in the order column: it reads back at 4
        // before the delete, so check a second move instead.
        let id = fresh[1].ids[0]
        await hub.receive("{\"type\":\"move\",\"request\":5,\"id\":\"\(id)\",\"to\":6}", from: editor.id)
        try await editor.drain()
        #expect(try library.freshList()[1].ids.last == id)
        #expect(editor.replica.sections == (try library.freshList()))
        await hub.stop()
    }

    @Test("an outbox hands messages over in order, closes past its limit, and a cancelled reader closes it")
    func outboxBoundsAndCloses() async throws {
        let drained = DrainCounter()
        let outbox = ClientOutbox(capacity: 2) { drained.increment() }
        #expect(outbox.hasRoomOrMarkBehind())
        outbox.push("a")
        outbox.push("b")
        #expect(!outbox.hasRoomOrMarkBehind())
        #expect(await outbox.next() == "a")
        #expect(drained.value == 0)
        #expect(await outbox.next() == "b")
        #expect(drained.value == 1)
        // Replies go in past the capacity, up to the limit.
        for index in 0..<outbox.limit { #expect(outbox.push("\(index)")) }
        #expect(!outbox.push("one too many"))
        #expect(outbox.isClosed)
        #expect(await outbox.next() == nil)
        // A reader waiting when its task is cancelled gets nil.
        let waiting = ClientOutbox(capacity: 2) {}
        let reader = Task { await waiting.next() }
        reader.cancel()
        #expect(await reader.value == nil)
        #expect(waiting.isClosed)
        // A message pushed to a waiting reader reaches it.
        let live = ClientOutbox(capacity: 2) {}
        let next = Task { await live.next() }
        while live.count == 0 && !live.isClosed {
            live.push("hello")
            await Task.yield()
        }
        #expect(await next.value == "hello")
    }

    @Test("start() follows another connection's commits until stop()")
    func followsOtherConnections() async throws {
        let library = try HubLibrary(photos: 8, albums: 2)
        let hub = try ServeHub(configuration: library.configuration())
        let (id, outbox) = await hub.connect(canEdit: false)
        let client = HubTestClient(id: id, outbox: outbox, label: "follower", layout: .flow, viewport: Rect(x: 0, y: 0, width: 600, height: 600))
        await hub.receive(#"{"type":"hello","layout":"flow","viewport":[0,0,600,600],"ids":true}"#, from: id)
        try client.take(await outbox.next()!)
        await hub.start()
        try library.writer.withDatabase { db in try db.execute("INSERT INTO photo (album, title, position) VALUES ('Alps', 'Late', 99)") }
        // The poll task picks it up; wait for its plan.
        try client.take(await outbox.next()!)
        #expect(client.seq == 1)
        #expect(client.replica.sections == (try library.freshList()))
        #expect(await hub.clientCount == 1)
        await hub.stop()
        #expect(await outbox.next() == nil)
        #expect(await hub.clientCount == 0)
    }
}

/// Counts drain notices.
final class DrainCounter: Sendable {
    private let count = PThreadMutex(0)
    func increment() { count.withLock { $0 += 1 } }
    var value: Int { count.withLock { $0 } }
}
