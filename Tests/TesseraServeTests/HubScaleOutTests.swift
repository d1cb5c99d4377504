import Foundation
import Testing
import TesseraTestTraits
@testable import TesseraLiveHub
@testable import TesseraLiveProtocol
import TesseraLivePostgres
import TesseraPostgres
import TesseraPostgresTestSupport
import TesseraTestSupport

/// Several hubs serving one PostgreSQL table, each on a store (and a
/// replication slot) of its own, as several `tessera serve` processes do:
/// three writers commit interleaved transactions (some rolled back, rows
/// moved across sections, columns added and dropped) while clients of
/// every hub edit through their own hub. At each pause and at the end,
/// every client's replayed list equals a fresh query.
@Suite("The live list scaled out: three hubs over one PostgreSQL table", .tags(.postgres, .oracle))
struct HubScaleOutTests {
    @Test("every client of every hub replays to a fresh query, at each pause and at the end", arguments: 0..<2)
    func replicasMatchAcrossHubs(round: Int) async throws {
        let seed = testSeed(default: 0x5CA1_E000 + UInt64(round))
        print("HubScaleOutTests seed \(seed)")
        var random = SplitMix64(seed: seed)
        let library = try await PostgresHubLibrary.make(photos: Int.random(in: 40...150, using: &random))
        var hubs: [ServeHub] = []
        var clients: [HubTestClient] = []
        for hubIndex in 0..<3 {
            let hub = try await library.makeHub(library.configuration(capacity: Int.random(in: 3...12, using: &random), order: true))
            hubs.append(hub)
            for index in 0..<Int.random(in: 2...4, using: &random) {
                let (id, outbox) = await hub.connect(canEdit: index != 1)
                let client = HubTestClient(
                    id: id, outbox: outbox, label: "seed \(seed), hub \(hubIndex), client \(index)",
                    layout: ServeLayoutKind.allCases.randomElement(using: &random)!, viewport: HubOracleTests.randomViewport(using: &random)
                )
                client.hub = hubIndex
                await hub.receive(HubOracleTests.hello(client), from: id)
                try await client.drain()
                clients.append(client)
            }
        }
        let url = library.url
        let writers = try await ServerTestSupport.blocking {
            try (0..<3).map { index in try PostgresStore(url: url, applicationName: "tessera test writer \(index)") }
        }
        defer { for writer in writers { writer.close() } }
        var request: Int64 = 0
        var columns = 0
        var rolledBack = 0
        var committed = 0
        for pause in 0..<Int.random(in: 4...7, using: &random) {
            // The writers' transactions run at once on threads of their
            // own, while clients edit through their hubs.
            let bursts = (0..<3).map { _ in Self.randomTransactions(using: &random) }
            var schemaChange: String?
            if Int.random(in: 0..<3, using: &random) == 0 {
                columns += 1
                schemaChange = columns % 2 == 1 ? "ALTER TABLE photo ADD COLUMN extra integer DEFAULT 7" : "ALTER TABLE photo DROP COLUMN extra"
            }
            let writing = Task { [schemaChange] in try await ServerTestSupport.blocking { Self.write(bursts, schemaChange: schemaChange, on: writers) } }
            for _ in 0..<Int.random(in: 3...12, using: &random) {
                let client = clients.randomElement(using: &random)!
                request += 1
                await hubs[client.hub].receive(HubOracleTests.randomEdit(client, request: request, using: &random), from: client.id)
                for hub in hubs where Bool.random(using: &random) { await hub.poll() }
                for client in clients where Int.random(in: 0..<3, using: &random) == 0 { try await client.drain() }
            }
            let outcome = try await writing.value
            rolledBack += outcome.rolledBack
            committed += outcome.committed
            #expect(outcome.failures.isEmpty, "seed \(seed), pause \(pause): \(outcome.failures)")
            try await Self.expectEveryClientAtFreshList(clients, hubs: hubs, library: library, label: "seed \(seed), pause \(pause)")
        }
        print("HubScaleOutTests seed \(seed): \(committed) transactions committed, \(rolledBack) rolled back, \(request) edits, \(columns) schema changes")
        #expect(committed > 0 && rolledBack > 0, "seed \(seed): the writers committed \(committed) and rolled back \(rolledBack)")
        #expect(clients.contains { !$0.dones.isEmpty }, "seed \(seed): no edit committed")
        for hub in hubs { await hub.stop() }
    }

    /// Lets every hub take every commit made so far, drains every client
    /// until it is at its hub's state, and compares each with a fresh
    /// query.
    static func expectEveryClientAtFreshList(_ clients: [HubTestClient], hubs: [ServeHub], library: PostgresHubLibrary, label: String) async throws {
        for hub in hubs { await library.settle(hub, fully: true) }
        var seqs: [Int] = []
        for hub in hubs { seqs.append(await hub.seq) }
        // A limit against a hang only, in rounds, not in time.
        for _ in 0..<120_000 {
            for client in clients { try await client.drain() }
            if clients.allSatisfy({ $0.seq == seqs[$0.hub] && $0.outbox.count == 0 }) { break }
            try await Task.sleep(for: .milliseconds(1))
        }
        let fresh = try library.freshList()
        for client in clients {
            #expect(client.seq == seqs[client.hub], "\(label), \(client.label): at seq \(client.seq), its hub at \(seqs[client.hub])")
            #expect(client.replica.sections == fresh, "\(label), \(client.label): replica \(client.replica) != fresh \(HubReplica(sections: fresh))")
            let unexpected = client.errors.filter { error in
                guard case let .string(code)? = error["code"] else { return true }
                return !["notFound", "outOfRange", "forbidden"].contains(code)
            }
            #expect(unexpected.isEmpty, "\(label), \(client.label): \(unexpected.map(\.compactText))")
        }
    }

    /// One writer's transactions: each a few statements, committed or
    /// (one in five) rolled back.
    static func randomTransactions(using random: inout SplitMix64) -> [(statements: [String], rollBack: Bool)] {
        (0..<Int.random(in: 1...4, using: &random)).map { _ in
            let statements = (0..<Int.random(in: 1...3, using: &random)).map { _ -> String in
                let album = HubLibrary.albums[Int.random(in: 0..<6, using: &random)]
                let offset = Int.random(in: 0...80, using: &random)
                switch Int.random(in: 0..<6, using: &random) {
                case 0, 1:
                    return "INSERT INTO photo (album, title, position) VALUES ('\(album)', 'Written \(random.next() % 1000)', \(Int.random(in: -2...40, using: &random)))"
                case 2:
                    return "DELETE FROM photo WHERE id = (SELECT id FROM photo ORDER BY id LIMIT 1 OFFSET \(offset))"
                case 3:
                    return "UPDATE photo SET title = 'Retitled \(random.next() % 1000)' WHERE id = (SELECT id FROM photo ORDER BY id LIMIT 1 OFFSET \(offset))"
                case 4:
                    // Moved across sections.
                    return "UPDATE photo SET album = '\(album)', position = \(Int.random(in: -3...50, using: &random)) WHERE id = (SELECT id FROM photo ORDER BY id LIMIT 1 OFFSET \(offset))"
                default:
                    return "UPDATE photo SET position = position + 1 WHERE album = '\(album)' AND position > \(Int.random(in: 0...20, using: &random))"
                }
            }
            // A rolled-back transaction also retitles a row "never", which
            // no plan's elements may show.
            let rollBack = Int.random(in: 0..<5, using: &random) == 0
            return (rollBack ? statements + ["UPDATE photo SET title = 'never' WHERE id = (SELECT max(id) FROM photo)"] : statements, rollBack)
        }
    }

    /// What the writers did.
    struct WritersOutcome: Sendable {
        var committed = 0
        var rolledBack = 0
        var failures: [String] = []
    }

    /// Runs each writer's transactions on a thread of its own, all at once
    /// (with the schema change, if any, on the first); a transaction the
    /// server aborts (a deadlock between writers, a serialization failure)
    /// counts as rolled back.
    static func write(_ bursts: [[(statements: [String], rollBack: Bool)]], schemaChange: String?, on writers: [PostgresStore]) -> WritersOutcome {
        let outcome = PThreadMutex(WritersOutcome())
        struct RolledBack: Error {}
        @Sendable func write(_ index: Int) {
            if index == 0, let schemaChange {
                do {
                    _ = try writers[index].write(request: "change the table") { try $0.rows(schemaChange) }
                    outcome.withLock { $0.committed += 1 }
                } catch {
                    outcome.withLock { $0.failures.append("\(schemaChange): \(error)") }
                }
            }
            for transaction in bursts[index] {
                do {
                    _ = try writers[index].write(request: "write as writer \(index)") { writer in
                        for sql in transaction.statements { try writer.rows(sql) }
                        if transaction.rollBack { throw RolledBack() }
                    }
                    outcome.withLock { $0.committed += 1 }
                } catch let error as PostgresStoreError where ["40P01", "40001", "55P03"].contains(error.code ?? "") {
                    outcome.withLock { $0.rolledBack += 1 }
                } catch is RolledBack {
                    outcome.withLock { $0.rolledBack += 1 }
                } catch {
                    outcome.withLock { $0.failures.append("\(transaction.statements): \(error)") }
                }
            }
        }
        // Threads of their own, not `concurrentPerform`'s (dispatch's
        // global threads, which Swift concurrency's jobs run on: the hubs
        // wait for them).
        let writing = DispatchGroup()
        for index in bursts.indices {
            writing.enter()
            Thread.detachNewThread {
                defer { writing.leave() }
                write(index)
            }
        }
        writing.wait()
        return outcome.withLock { $0 }
    }
}
