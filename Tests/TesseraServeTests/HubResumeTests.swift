import Foundation
import Testing
import TesseraTestTraits
@testable import TesseraLiveHub
@testable import TesseraLiveProtocol
import TesseraLayout
import TesseraRender
import TesseraSQLite
import TesseraTestSupport

/// Two hubs over one database stand for two serve processes: a client
/// that leaves one and says `hello` to the other naming the state it shows
/// gets one plan from that state, and its replayed list equals a fresh
/// query; one naming a state the hub does not keep gets a snapshot.
@Suite("Resuming on another hub", .tags(.oracle))
struct HubResumeTests {
    /// A `hello` with the client's layout and viewport, naming its `seq`
    /// and `state` when `resume` (and it has a state).
    static func hello(_ client: HubTestClient, resume: Bool) -> String {
        let resumeText = resume ? client.state.map { "{\"seq\":\(client.seq),\"state\":\"\($0)\"}" } ?? "null" : "null"
        return "{\"type\":\"hello\",\"layout\":\"\(client.layout.rawValue)\",\"viewport\":\(HubOracleTests.rect(client.viewport)),\"ids\":true,\"resume\":\(resumeText)}"
    }

    /// The titles of every row, by id.
    static func titles(_ library: HubLibrary) throws -> [String: String] {
        let rows = try library.writer.withDatabase { db in try db.rows("SELECT id, title FROM photo") }
        var titles: [String: String] = [:]
        for row in rows { titles[ServeSchema.text(of: row[0])] = ServeSchema.text(of: row[1]) }
        return titles
    }

    /// Connects a client to `hub`, carrying over what it shows.
    static func reconnect(_ client: HubTestClient, to hub: ServeHub, resume: Bool) async throws -> HubTestClient {
        let (id, outbox) = await hub.connect(canEdit: true)
        let next = HubTestClient(id: id, outbox: outbox, label: client.label, layout: client.layout, viewport: client.viewport)
        next.replica = client.replica
        next.seq = client.seq
        next.state = client.state
        next.resumedPlans = client.resumedPlans
        await hub.receive(hello(client, resume: resume), from: id)
        try await next.drain()
        return next
    }

    @Test("a client that moves to another hub resumes from the state it names, and replays to a fresh query", arguments: 0..<4)
    func resumesAcrossHubs(round: Int) async throws {
        let seed = testSeed(default: 0x5E5E_0000 + UInt64(round))
        print("HubResumeTests seed \(seed)")
        var random = SplitMix64(seed: seed)
        let library = try HubLibrary(photos: Int.random(in: 20...100, using: &random))
        let hubs = [try ServeHub(configuration: library.configuration()), try ServeHub(configuration: library.configuration())]
        var clients: [(hub: Int, client: HubTestClient)] = []
        for index in 0..<4 {
            let hub = index % hubs.count
            let (id, outbox) = await hubs[hub].connect(canEdit: true)
            let client = HubTestClient(
                id: id, outbox: outbox, label: "seed \(seed), client \(index)",
                layout: ServeLayoutKind.allCases.randomElement(using: &random)!, viewport: HubOracleTests.randomViewport(using: &random)
            )
            await hubs[hub].receive(Self.hello(client, resume: false), from: id)
            try await client.drain()
            #expect(client.state?.count == 32, "seed \(seed): the snapshot names its state")
            clients.append((hub, client))
        }
        var request: Int64 = 0
        var quietResumes = 0
        var otherResumes = 0
        var snapshots = 0
        func settleAll() async throws {
            for hub in hubs { await hub.poll() }
            for (_, client) in clients { try await client.drain() }
        }
        for step in 0..<Int.random(in: 60...120, using: &random) {
            let label = "seed \(seed), step \(step)"
            switch Int.random(in: 0..<10, using: &random) {
            case 0...2:
                // Another connection commits; each hub may or may not have
                // taken it when a client moves.
                try HubOracleTests.externalCommit(library, using: &random)
                for hub in hubs where Bool.random(using: &random) { await hub.poll() }
                for (_, client) in clients { try await client.drain() }
            case 3...4:
                let (hub, client) = clients.randomElement(using: &random)!
                request += 1
                await hubs[hub].receive(HubOracleTests.randomEdit(client, request: request, using: &random), from: client.id)
                for (_, client) in clients { try await client.drain() }
            case 5...7:
                let index = Int.random(in: 0..<clients.count, using: &random)
                let (from, client) = clients[index]
                let quiet = Bool.random(using: &random)
                if quiet { try await settleAll() }
                let to = Int.random(in: 0..<hubs.count, using: &random)
                await hubs[from].disconnect(client.id)
                let before = client.resumedPlans
                let moved = try await Self.reconnect(client, to: hubs[to], resume: true)
                clients[index] = (to, moved)
                let resumed = moved.resumedPlans > before
                if resumed {
                    if quiet { quietResumes += 1 } else { otherResumes += 1 }
                } else {
                    snapshots += 1
                }
                // Both hubs at the database's state: the client's state is
                // the one the other hub shows.
                #expect(!quiet || resumed, "\(label): a client that moved between hubs at rest got a snapshot")
                if quiet {
                    #expect(moved.replica.sections == (try library.freshList()), "\(label): \(moved.replica)")
                    // The plan's settled elements carry today's titles.
                    let titles = try Self.titles(library)
                    for element in moved.elements where element["kind"] == .string("item") {
                        guard case let .string(key)? = element["key"], case let .string(title)? = element["title"] else { continue }
                        #expect(titles[String(key.dropFirst(2))] == title, "\(label): \(element.compactText)")
                    }
                }
            default:
                try await settleAll()
                let fresh = try library.freshList()
                for (_, client) in clients {
                    #expect(client.replica.sections == fresh, "\(label), \(client.label): \(client.replica) != fresh \(HubReplica(sections: fresh))")
                    #expect(client.errors.allSatisfy { $0["code"] != .string("malformed") }, "\(label): \(client.errors)")
                }
            }
        }
        try await settleAll()
        let fresh = try library.freshList()
        for (_, client) in clients { #expect(client.replica.sections == fresh, "seed \(seed), \(client.label): \(client.replica)") }
        print("HubResumeTests seed \(seed): \(quietResumes) resumed at rest, \(otherResumes) resumed while a hub lagged, \(snapshots) snapshots")
        #expect(quietResumes > 0, "seed \(seed): no client moved at rest")
        let resumed = await hubs[0].metrics.resumedPlans + hubs[1].metrics.resumedPlans
        #expect(resumed == quietResumes + otherResumes)
    }

    @Test("a rename the client missed leaves the list's state as it was: the resumed plan shows the new title")
    func missedRename() async throws {
        let library = try HubLibrary(photos: 12)
        let first = try ServeHub(configuration: library.configuration())
        let second = try ServeHub(configuration: library.configuration())
        let (id, outbox) = await first.connect(canEdit: true)
        let client = HubTestClient(id: id, outbox: outbox, label: "client", layout: .list, viewport: Rect(x: 0, y: 0, width: 400, height: 2_000))
        await first.receive(Self.hello(client, resume: false), from: id)
        try await client.drain()
        let shown = try #require(client.elements.first { $0["kind"] == .string("item") })
        guard case let .string(key)? = shown["key"] else { throw HubReplica.ReplayFailure(description: "no key in \(shown)") }
        // Another connection renames an item the client shows; the first
        // hub has not taken it when the client leaves, the second has.
        try library.commit([("UPDATE photo SET title = 'Renamed meanwhile' WHERE id = ?", [.integer(Int64(key.dropFirst(2))!)])])
        await first.disconnect(id)
        await second.poll()
        let moved = try await Self.reconnect(client, to: second, resume: true)
        #expect(moved.resumedPlans == 1 && moved.state == client.state, "the same ids in the same order: the same state")
        let title = moved.elements.first { $0["key"] == .string(key) }?["title"]
        #expect(title == .string("Renamed meanwhile"), "\(moved.elements.map(\.compactText))")
        #expect(moved.replica.sections == (try library.freshList()))
    }

    @Test("sections a client is shown under one name (NULL and '') stay apart in the state")
    func sectionsOfOneName() async throws {
        let (path, writer) = try makeScratchDatabase("tessera-resume-names") { db in
            try db.execute("CREATE TABLE item (id INTEGER PRIMARY KEY, grp, title TEXT NOT NULL, position INTEGER NOT NULL)")
            try db.execute("INSERT INTO item VALUES (1, NULL, 'a', 1), (2, NULL, 'b', 2), (3, '', 'c', 3), (4, '', 'd', 4)")
        }
        defer { removeDatabaseFiles(at: path) }
        let configuration = ServeConfiguration(databasePath: path, table: "item", sectionColumn: "grp", sortColumn: "position", titleColumn: "title")
        let before = try ServeHub(configuration: configuration)
        await before.becomeHome()
        let state = await before.currentState()
        // The two sections swap their items: named alike, shown otherwise.
        try writer.write { db in try db.execute("UPDATE item SET grp = CASE WHEN grp IS NULL THEN '' ELSE NULL END") }
        let after = try ServeHub(configuration: configuration)
        await after.becomeHome()
        let swapped = await after.currentState()
        #expect(state != nil && swapped != nil)
        #expect(state != swapped)
    }

    @Test("the hub keeps its last states up to the limit, and few of a list fetched again at every commit; a large list resumes only from its current state")
    func keptStates() async throws {
        let library = try HubLibrary(photos: 30)
        var configuration = library.configuration()
        configuration.resumableStates = 2
        let hub = try ServeHub(configuration: configuration)
        let (id, outbox) = await hub.connect(canEdit: true)
        let client = HubTestClient(id: id, outbox: outbox, label: "client", layout: .list, viewport: Rect(x: 0, y: 0, width: 400, height: 800))
        await hub.receive(Self.hello(client, resume: false), from: id)
        try await client.drain()
        var states = [client.state]
        for number in 0..<3 {
            try library.commit([("INSERT INTO photo (album, title, position) VALUES ('Alps', ?, -1)", [.text("New \(number)")])])
            await hub.poll()
            try await client.drain()
            states.append(client.state)
        }
        #expect(await hub.keptStates == 2)
        func answer(_ hub: ServeHub, seq: Int, state: String?) async throws -> JSON? {
            let (id, outbox) = await hub.connect(canEdit: true)
            await hub.receive("{\"type\":\"hello\",\"layout\":\"list\",\"viewport\":[0,0,400,800],\"ids\":true,\"resume\":{\"seq\":\(seq),\"state\":\"\(state ?? "")\"}}", from: id)
            let text = await outbox.next()
            await hub.disconnect(id)
            return try text.map(JSON.parse)
        }
        // The first two states are gone; the third is kept.
        #expect(try await answer(hub, seq: 0, state: states[0])?["type"] == .string("snapshot"))
        #expect(try await answer(hub, seq: 1, state: states[1])?["type"] == .string("snapshot"))
        #expect(try await answer(hub, seq: 2, state: states[2])?["resumed"] == .bool(true))
        // Past `resumableRows`, an older state gets a snapshot; the current
        // one resumes.
        configuration.resumableStates = 256
        configuration.resumableRows = 10
        let large = try ServeHub(configuration: configuration)
        let (largeID, largeOutbox) = await large.connect(canEdit: true)
        let reader = HubTestClient(id: largeID, outbox: largeOutbox, label: "reader", layout: .list, viewport: Rect(x: 0, y: 0, width: 400, height: 800))
        await large.receive(Self.hello(reader, resume: false), from: largeID)
        try await reader.drain()
        let older = reader.state
        try library.commit([("DELETE FROM photo WHERE title = 'New 0'", [])])
        await large.poll()
        try await reader.drain()
        #expect(try await answer(large, seq: 0, state: older)?["type"] == .string("snapshot"))
        #expect(try await answer(large, seq: 1, state: reader.state)?["resumed"] == .bool(true))
        // A list fetched again at every commit (no change log): each state
        // holds every row (and the snapshot it was diffed as), and the hub
        // keeps no more than four times the list's rows of them.
        let big = try HubLibrary(photos: 2_000)
        let refetching = try ServeHub(configuration: big.configuration())
        let (bigID, bigOutbox) = await refetching.connect(canEdit: true)
        let watcher = HubTestClient(id: bigID, outbox: bigOutbox, label: "watcher", layout: .list, viewport: Rect(x: 0, y: 0, width: 400, height: 800))
        await refetching.receive(Self.hello(watcher, resume: false), from: bigID)
        try await watcher.drain()
        for number in 0..<8 {
            try big.commit([("UPDATE photo SET title = ? WHERE id = ?", [.text("Changed \(number)"), .integer(Int64(number + 1))])])
            await refetching.poll()
            try await watcher.drain()
        }
        #expect(await refetching.lastUpdateMethod == .refetch)
        #expect(await refetching.keptStates == 2, "the current state and the one fetched before it")
    }

    @Test("an unknown state gets a snapshot, a malformed one an error; with no states kept every hello gets a snapshot")
    func unknownAndMalformedStates() async throws {
        let library = try HubLibrary(photos: 12)
        var configuration = library.configuration()
        let hub = try ServeHub(configuration: configuration)
        configuration.resumableStates = 0
        let forgetful = try ServeHub(configuration: configuration)
        func hello(_ hub: ServeHub, _ resume: String) async throws -> [JSON] {
            let (id, outbox) = await hub.connect(canEdit: true)
            await hub.receive("{\"type\":\"hello\",\"layout\":\"list\",\"viewport\":[0,0,400,800],\"ids\":true,\"resume\":\(resume)}", from: id)
            var messages: [JSON] = []
            while outbox.count > 0, let text = await outbox.next() { messages.append(try JSON.parse(text)) }
            await hub.disconnect(id)
            return messages
        }
        let first = try await hello(hub, "null")
        guard case let .string(state)? = first.first?["state"] else {
            Issue.record("no state in \(first)")
            return
        }
        // The same state: a resumed plan, from the seq the client names.
        let resumed = try await hello(hub, "{\"seq\":41,\"state\":\"\(state)\"}")
        #expect(resumed.first?["type"] == .string("plan") && resumed.first?["resumed"] == .bool(true))
        #expect(resumed.first?["fromSeq"] == .int(41) && resumed.first?["state"] == .string(state) && resumed.first?["editable"] == .bool(true))
        let settled = HubReplica.array(resumed.first?["settled"])
        #expect(settled.count > 0, "a resumed plan carries what the viewport shows")
        // A state never shown, a resume with a seq alone: snapshots.
        for resume in ["{\"seq\":0,\"state\":\"\(String(repeating: "0", count: 32))\"}", "{\"seq\":3}", "{}"] {
            let reply = try await hello(hub, resume)
            #expect(reply.first?["type"] == .string("snapshot"), "\(resume)")
        }
        for resume in ["{\"seq\":1,\"state\":\"xyz\"}", "{\"seq\":1,\"state\":7}", "{\"state\":\"\(state)\"}", "{\"seq\":-1,\"state\":\"\(state)\"}", "{\"seq\":1.5,\"state\":\"\(state)\"}"] {
            let reply = try await hello(hub, resume)
            #expect(reply.first?["type"] == .string("error") && reply.first?["code"] == .string("malformed"), "\(resume): \(reply)")
        }
        let forgotten = try await hello(forgetful, "{\"seq\":0,\"state\":\"\(state)\"}")
        #expect(forgotten.first?["type"] == .string("snapshot"))
    }
}
