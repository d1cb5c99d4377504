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

/// Random commits (the hub's own edits and another connection's
/// transactions, some rolled back) while clients with random layouts and
/// viewports follow: every client's replica, replayed from the plans'
/// changesets, equals a fresh query, and its last element set equals a
/// fresh layout of the replica.
@Suite("Hub oracle", .tags(.oracle))
struct HubOracleTests {
    @Test("every client's replayed list equals a fresh query, and its elements a fresh layout", arguments: 0..<4)
    func replicasMatchFreshQueries(round: Int) async throws {
        let seed = testSeed(default: 0x5E4E_0000 + UInt64(round))
        print("HubOracleTests seed \(seed)")
        var random = SplitMix64(seed: seed)
        let library = try HubLibrary(photos: Int.random(in: 20...120, using: &random))
        try await Self.run(seed: seed, random: &random, library)
    }

    /// The oracle's run over `library`'s database: random clients, edits,
    /// other connections' commits and rollbacks, then every client compared
    /// with a fresh query.
    static func run(seed: UInt64, random: inout SplitMix64, _ library: some HubOracleDatabase) async throws {
        let capacity = Int.random(in: 3...12, using: &random)
        let hub = try await library.makeHub(library.configuration(capacity: capacity, order: true))
        var clients: [HubTestClient] = []
        for index in 0..<Int.random(in: 3...8, using: &random) {
            let (id, outbox) = await hub.connect(canEdit: index != 1)
            let client = HubTestClient(
                id: id, outbox: outbox, label: "seed \(seed), client \(index)",
                layout: ServeLayoutKind.allCases.randomElement(using: &random)!, viewport: Self.randomViewport(using: &random)
            )
            client.readsInTen = [1, 5, 10].randomElement(using: &random)!
            await hub.receive(Self.hello(client), from: id)
            try await client.drain()
            clients.append(client)
        }
        var rolledBack = Set<String>()
        var nextRolledBack: Int64 = 1_000_000
        var request: Int64 = 0
        for step in 0..<Int.random(in: 60...140, using: &random) {
            let label = "seed \(seed), step \(step)"
            switch Int.random(in: 0..<10, using: &random) {
            case 0...2:
                // An edit by a client, from what it shows.
                let client = clients.randomElement(using: &random)!
                request += 1
                await hub.receive(Self.randomEdit(client, request: request, using: &random), from: client.id)
            case 3...4:
                try Self.externalCommit(library, using: &random)
                await library.settle(hub, fully: Bool.random(using: &random))
            case 5:
                // Rolled back: its rows must never reach a client.
                let id = nextRolledBack
                nextRolledBack += 1
                rolledBack.insert(String(id))
                try library.rollBack([
                    ("INSERT INTO photo (id, album, title, position) VALUES (?, 'Alps', 'never', -1)", [.integer(id)]),
                    ("UPDATE photo SET title = 'never' WHERE id IN (SELECT id FROM photo LIMIT 3)", []),
                ])
                await library.settle(hub, fully: false)
            case 6:
                let client = clients.randomElement(using: &random)!
                client.viewport = Self.randomViewport(using: &random)
                var text = "{\"type\":\"viewport\",\"viewport\":\(Self.rect(client.viewport))"
                if Bool.random(using: &random) {
                    client.layout = ServeLayoutKind.allCases.randomElement(using: &random)!
                    text += ",\"layout\":\"\(client.layout.rawValue)\""
                }
                await hub.receive(text + "}", from: client.id)
            default:
                await hub.poll()
            }
            for client in clients {
                client.forbiddenIDs = rolledBack
                // Clients read at their own pace: slow ones fall behind.
                if Int.random(in: 0..<10, using: &random) < client.readsInTen {
                    do { try await client.drain() } catch { Issue.record("\(label): \(error)") ; return }
                }
            }
        }
        // Quiescence: every commit taken, every outbox drained, every
        // client caught up.
        await library.settle(hub, fully: true)
        let last = await hub.seq
        // A limit against a hang only, counted in rounds of this loop, not
        // in time: while long synchronous tests hold the cooperative pool,
        // neither the hub nor this loop runs, and a clock would run out
        // with nothing to blame (120,000 rounds of at least 1 ms).
        for _ in 0..<120_000 {
            for client in clients { try await client.drain() }
            if clients.allSatisfy({ $0.seq == last && $0.outbox.count == 0 }) { break }
            try await Task.sleep(for: .milliseconds(1))
        }
        let fresh = try library.freshList()
        for client in clients {
            #expect(client.seq == last, "\(client.label): at seq \(client.seq), the hub at \(last)")
            #expect(client.replica.sections == fresh, "\(client.label): replica \(client.replica) != fresh \(HubReplica(sections: fresh))")
            let problems = client.checkElements()
            #expect(problems.isEmpty, "\(client.label): \(problems.prefix(5))")
            let unexpected = client.errors.filter { error in
                guard case let .string(code)? = error["code"] else { return true }
                return !["notFound", "outOfRange", "forbidden"].contains(code)
            }
            #expect(unexpected.isEmpty, "\(client.label): \(unexpected.map(\.compactText))")
        }
        #expect(clients.contains { $0.plans > 0 }, "seed \(seed): no plan was sent")
        #expect(clients.contains { !$0.dones.isEmpty }, "seed \(seed): no edit committed")
        await hub.stop()
    }

    static func randomViewport(using random: inout SplitMix64) -> Rect {
        Rect(
            x: 0, y: Double(Int.random(in: 0...3_000, using: &random)),
            width: Double(Int.random(in: 200...1_400, using: &random)), height: Double(Int.random(in: 100...1_200, using: &random))
        )
    }

    static func rect(_ rect: Rect) -> String {
        "[\(JSON.double(rect.origin.x).compactText),\(JSON.double(rect.origin.y).compactText),\(JSON.double(rect.size.width).compactText),\(JSON.double(rect.size.height).compactText)]"
    }

    static func hello(_ client: HubTestClient) -> String {
        "{\"type\":\"hello\",\"layout\":\"\(client.layout.rawValue)\",\"viewport\":\(rect(client.viewport)),\"ids\":true,\"resume\":null}"
    }

    /// A move, rename, delete or add of what the client shows (which may be
    /// out of date: the hub then answers notFound or outOfRange).
    static func randomEdit(_ client: HubTestClient, request: Int64, using random: inout SplitMix64) -> String {
        randomEdit(in: client.replica, request: request, using: &random)
    }

    /// A random edit of an item of `replica` (or an add, to an empty list).
    static func randomEdit(in replica: HubReplica, request: Int64, using random: inout SplitMix64) -> String {
        let sections = replica.sections.filter { !$0.ids.isEmpty }
        guard let section = sections.randomElement(using: &random) else {
            return "{\"type\":\"add\",\"request\":\(request),\"section\":\"Alps\",\"title\":\"First\"}"
        }
        let id = section.ids.randomElement(using: &random)!
        switch Int.random(in: 0..<4, using: &random) {
        case 0:
            return "{\"type\":\"move\",\"request\":\(request),\"id\":\"\(id)\",\"to\":\(Int.random(in: 0..<section.ids.count, using: &random))}"
        case 1:
            return "{\"type\":\"rename\",\"request\":\(request),\"id\":\"\(id)\",\"title\":\"Renamed \(random.next() % 1000)\"}"
        case 2:
            let ids = (0..<Int.random(in: 1...3, using: &random)).map { _ in "\"\(section.ids.randomElement(using: &random)!)\"" }
            return "{\"type\":\"delete\",\"request\":\(request),\"ids\":[\(ids.joined(separator: ","))]}"
        default:
            return "{\"type\":\"add\",\"request\":\(request),\"section\":\"\(section.id)\",\"title\":\"Added \(random.next() % 1000)\"}"
        }
    }

    /// One committed transaction of another connection: inserts (sometimes
    /// into a new album), deletes (sometimes a whole album), renames and
    /// reorders.
    static func externalCommit(_ library: some HubOracleDatabase, using random: inout SplitMix64) throws {
        var statements: [(String, [DatabaseValue])] = []
        for _ in 0..<Int.random(in: 1...4, using: &random) {
            let album = DatabaseValue.text(HubLibrary.albums[Int.random(in: 0..<HubLibrary.albums.count, using: &random)])
            switch Int.random(in: 0..<6, using: &random) {
            case 0, 1:
                statements.append(("INSERT INTO photo (album, title, position) VALUES (?, ?, ?)",
                                   [album, .text("New \(random.next() % 1000)"), .integer(Int64.random(in: -2...40, using: &random))]))
            case 2:
                statements.append(("DELETE FROM photo WHERE id IN (SELECT id FROM photo ORDER BY id LIMIT ? OFFSET ?)",
                                   [.integer(Int64.random(in: 1...3, using: &random)), .integer(Int64.random(in: 0...60, using: &random))]))
            case 3:
                statements.append(("UPDATE photo SET title = ? WHERE id = (SELECT id FROM photo ORDER BY id LIMIT 1 OFFSET ?)",
                                   [.text("Ext \(random.next() % 1000)"), .integer(Int64.random(in: 0...50, using: &random))]))
            case 4:
                statements.append(("UPDATE photo SET position = ? WHERE id = (SELECT id FROM photo ORDER BY id LIMIT 1 OFFSET ?)",
                                   [.integer(Int64.random(in: -5...60, using: &random)), .integer(Int64.random(in: 0...50, using: &random))]))
            default:
                if Int.random(in: 0..<4, using: &random) == 0 {
                    statements.append(("DELETE FROM photo WHERE album = ?", [album]))
                } else {
                    statements.append(("UPDATE photo SET album = ? WHERE id = (SELECT id FROM photo ORDER BY id LIMIT 1 OFFSET ?)",
                                       [album, .integer(Int64.random(in: 0...50, using: &random))]))
                }
            }
        }
        try library.commit(statements)
    }
}

/// What the hub oracle needs of a database: a hub over its photo table,
/// another connection's transactions (SQLite's `?` placeholders), a way
/// to let the hub take every commit, and a fresh query.
protocol HubOracleDatabase: AnyObject {
    /// The hub's configuration.
    func configuration(capacity: Int, order: Bool) -> ServeConfiguration
    /// A hub over the table.
    func makeHub(_ configuration: ServeConfiguration) async throws -> ServeHub
    /// Commits `statements` in one transaction of another connection.
    func commit(_ statements: [(String, [DatabaseValue])]) throws
    /// Runs `statements` in one transaction of another connection, rolled
    /// back.
    func rollBack(_ statements: [(String, [DatabaseValue])]) throws
    /// Lets the hub take other connections' commits: all of them when
    /// `fully` (once its follower has them), else what it has now.
    func settle(_ hub: ServeHub, fully: Bool) async
    /// The list as a fresh query gives it.
    func freshList() throws -> [HubReplica.Section]
}

extension HubLibrary: HubOracleDatabase {
    func makeHub(_ configuration: ServeConfiguration) async throws -> ServeHub {
        try ServeHub(configuration: configuration)
    }

    func commit(_ statements: [(String, [DatabaseValue])]) throws {
        try writer.write { db in
            for (sql, arguments) in statements { try db.execute(sql, arguments) }
        }
    }

    func rollBack(_ statements: [(String, [DatabaseValue])]) throws {
        try writer.withDatabase { db in
            try db.execute("BEGIN IMMEDIATE")
            for (sql, arguments) in statements { try db.execute(sql, arguments) }
            try db.execute("ROLLBACK")
        }
    }

    /// A poll reads SQLite's commits as they are: nothing is on its way.
    func settle(_ hub: ServeHub, fully: Bool) async {
        await hub.poll()
    }
}
