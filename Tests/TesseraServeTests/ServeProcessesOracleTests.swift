import Foundation
import Testing
import TesseraTestTraits
import TesseraLiveProtocol
import TesseraPostgres
import TesseraPostgresTestSupport
import TesseraRender
import TesseraTestSupport

/// Three `tessera serve postgres://…` processes over one table, as a
/// deployment behind a load balancer runs them: three writers commit
/// interleaved transactions (some rolled back, rows moved across
/// sections, columns added and dropped) while WebSocket clients of every
/// process edit through it, and now and then one leaves its process and
/// connects to another. At each pause and at the end, every client's
/// replayed list equals a fresh query; a delete's `done` comes after the
/// plan that removes its ids (unless its server logged that it could not
/// follow the commit in time, the documented fallback); and no plan shows
/// the title a rolled-back transaction wrote.
@Suite("The live list scaled out: three serve processes over one PostgreSQL table", .tags(.postgres, .process, .oracle), .ownThreads)
struct ServeProcessesOracleTests {
    @Test("every client of every process replays to a fresh query, at each pause and at the end", arguments: 0..<2)
    func replicasMatchAcrossProcesses(round: Int) async throws {
        let seed = testSeed(default: 0x5E4E_0003 + UInt64(round))
        print("ServeProcessesOracleTests seed \(seed)")
        var random = SplitMix64(seed: seed)
        let library = try await PostgresHubLibrary.make(photos: Int.random(in: 40...150, using: &random))
        var started: [ServeProcess] = []
        defer { for server in started { server.kill() } }
        for _ in 0..<3 { started.append(try ServePostgresFaultTests.serve(library.url)) }
        let servers = started
        var found: [Int] = []
        for server in servers { found.append(try await ServePostgresFaultTests.port(server)) }
        let ports = found
        let url = library.url
        let run = try await ServerTestSupport.blocking { () throws -> Run in
            let writers = try (0..<3).map { index in try PostgresStore(url: url, applicationName: "tessera test writer \(index)") }
            defer { for writer in writers { writer.close() } }
            return try Self.run(seed: seed, ports: ports, writers: writers, freshList: library.freshList)
        }
        print("ServeProcessesOracleTests seed \(seed): \(run.committed) transactions committed, \(run.rolledBack) rolled back, "
              + "\(run.edits) edits (\(run.dones) done), \(run.schemaChanges) schema changes, \(run.reconnects) reconnects to another process "
              + "(\(run.resumed) resumed from the state they named, \(run.resumedAtRest) of them at rest)")
        for mismatch in run.mismatches { Issue.record("seed \(seed): \(mismatch)") }
        for early in run.earlyDones where !servers[early.process].stderr.contains("not followed in time") {
            Issue.record("seed \(seed): \(early.text) (and process \(early.process) logged no edit it could not follow in time: \(servers[early.process].stderr))")
        }
        #expect(run.pauses > 0 && run.mismatches.isEmpty)
        #expect(run.committed > 0 && run.rolledBack > 0, "seed \(seed): the writers committed \(run.committed) and rolled back \(run.rolledBack)")
        #expect(run.dones > 0, "seed \(seed): no edit committed")
        #expect(run.resumedAtRest > 0, "seed \(seed): no client moved to another process at rest")
        for (index, server) in servers.enumerated() {
            #expect(server.process.isRunning, "seed \(seed): process \(index) ended: \(server.stderr)")
        }
    }

    /// What one run did, and what it found.
    struct Run: Sendable {
        var pauses = 0
        var committed = 0
        var rolledBack = 0
        var edits = 0
        var dones = 0
        var schemaChanges = 0
        var reconnects = 0
        /// Reconnects answered by a plan from the state the client named.
        var resumed = 0
        /// Of those, the ones made with every process at rest (each must
        /// resume).
        var resumedAtRest = 0
        var mismatches: [String] = []
        /// Deletes whose `done` came before the plan that removes their
        /// ids, by process.
        var earlyDones: [(process: Int, text: String)] = []
    }

    /// One client: its process, its connection, and the requests it has
    /// sent that are not answered yet.
    final class Client {
        var process: Int
        var connection: ServeTestReplica
        var waiting: Set<Int> = []
        /// The ids of each delete it sent: once its `done` comes, the plan
        /// that removed them has come (ids are never used again).
        var deleting: [Int: [String]] = [:]
        /// A `done` that came before its delete's plan.
        var earlyDones: [(process: Int, text: String)] = []
        let label: String

        init(process: Int, port: Int, label: String) throws {
            self.process = process
            self.label = label
            connection = try ServeTestReplica(port: port)
        }

        /// Reads until every request it sent has its `done` or `error`.
        func readAnswers() throws {
            while !waiting.isEmpty {
                let message = try connection.next()
                guard message["type"] == .string("done") || message["type"] == .string("error") else { continue }
                let request = HubTestClient.int(message["request"])
                waiting.remove(request)
                if message["type"] == .string("done"), let ids = deleting.removeValue(forKey: request),
                   let shown = ids.first(where: { id in connection.replica.sections.contains { $0.ids.contains(id) } }) {
                    earlyDones.append((process, "\(label): done for request \(request), a delete of \(ids), before the plan without \(shown)"))
                }
            }
        }
    }

    /// Runs the oracle (blocking: on a thread of its own).
    static func run(seed: UInt64, ports: [Int], writers: [PostgresStore], freshList: () throws -> [HubReplica.Section]) throws -> Run {
        var random = SplitMix64(seed: seed &+ 1)
        var result = Run()
        var clients: [Client] = []
        for (process, port) in ports.enumerated() {
            for index in 0..<Int.random(in: 2...3, using: &random) {
                clients.append(try Client(process: process, port: port, label: "client \(index) of process \(process)"))
            }
        }
        var request = 0
        var columns = 0
        var markers = 0
        for pause in 0..<Int.random(in: 4...6, using: &random) {
            let bursts = (0..<3).map { _ in HubScaleOutTests.randomTransactions(using: &random) }
            var schemaChange: String?
            // The first pause always changes the table.
            if pause == 0 || Int.random(in: 0..<3, using: &random) == 0 {
                columns += 1
                result.schemaChanges += 1
                schemaChange = columns % 2 == 1 ? "ALTER TABLE photo ADD COLUMN extra integer DEFAULT 7" : "ALTER TABLE photo DROP COLUMN extra"
            }
            // The writers run on a thread of their own while the clients
            // edit (not on dispatch's global queue, whose threads Swift
            // concurrency's jobs need).
            let written = PThreadMutex<HubScaleOutTests.WritersOutcome?>(nil)
            let writing = DispatchGroup()
            writing.enter()
            Thread.detachNewThread { [schemaChange] in
                let outcome = HubScaleOutTests.write(bursts, schemaChange: schemaChange, on: writers)
                written.withLock { $0 = outcome }
                writing.leave()
            }
            // The writers finish before their stores close, whatever fails.
            defer { writing.wait() }
            for _ in 0..<Int.random(in: 6...16, using: &random) {
                let client = clients.randomElement(using: &random)!
                switch Int.random(in: 0..<8, using: &random) {
                case 0 where client.waiting.isEmpty:
                    // Leaves its process and connects to another (no sticky
                    // sessions), naming the state it shows: a plan from it
                    // when that process kept it, else a snapshot.
                    let process = (client.process + Int.random(in: 1...2, using: &random)) % ports.count
                    client.connection = try ServeTestReplica(port: ports[process], resuming: client.connection)
                    client.process = process
                    result.reconnects += 1
                    if client.connection.resumed { result.resumed += 1 }
                case 1:
                    try client.readAnswers()
                default:
                    request += 1
                    result.edits += 1
                    let edit = HubOracleTests.randomEdit(in: client.connection.replica, request: Int64(request), using: &random)
                    try client.connection.client.sendText(edit)
                    client.waiting.insert(request)
                    if let message = try? JSON.parse(edit), message["type"] == .string("delete") {
                        client.deleting[request] = HubReplica.strings(message["ids"])
                    }
                }
            }
            writing.wait()
            let outcome = written.withLock { $0 } ?? HubScaleOutTests.WritersOutcome(failures: ["the writers did not finish"])
            result.committed += outcome.committed
            result.rolledBack += outcome.rolledBack
            result.mismatches += outcome.failures.map { "pause \(pause): a writer failed: \($0)" }
            for client in clients { try client.readAnswers() }
            // A marker committed after everything else: a client that
            // shows it has taken every commit before it.
            markers += 1
            let marker = try writers[0].write(request: "commit a marker") { transaction in
                try transaction.rows("INSERT INTO photo (album, title, position) VALUES ('Alps', 'marker \(markers)', -1) RETURNING id")
            }.value.first?.first.map(ServeSchema.text(of:)) ?? ""
            for client in clients { try client.connection.readUntil(shows: marker) }
            let fresh = try freshList()
            for client in clients where client.connection.replica.sections != fresh {
                result.mismatches.append("pause \(pause), \(client.label) (now of process \(client.process)): \(client.connection.replica) != fresh \(HubReplica(sections: fresh))")
            }
            for client in clients {
                let unexpected = client.connection.errors.filter { error in
                    guard case let .string(code)? = error["code"] else { return true }
                    // A lock the edit waited for past its lock_timeout, held
                    // by a writer: refused, and nothing written.
                    if code == "database", case let .string(text)? = error["message"], text.contains("lock timeout") { return false }
                    return !["notFound", "outOfRange"].contains(code)
                }
                result.mismatches += unexpected.map { "pause \(pause), \(client.label): \($0.compactText)" }
                result.dones += client.connection.dones.count
                result.earlyDones += client.earlyDones
                client.earlyDones = []
                client.connection.dones = []
                client.connection.errors = []
            }
            // At rest, every process shows what the database holds: a client
            // that moves names a state its new process has.
            let mover = clients.randomElement(using: &random)!
            let process = (mover.process + Int.random(in: 1...2, using: &random)) % ports.count
            // That process may have no client left: it has taken the
            // marker once a client of its own shows it.
            try ServeTestReplica(port: ports[process]).readUntil(shows: marker)
            mover.connection = try ServeTestReplica(port: ports[process], resuming: mover.connection)
            mover.process = process
            result.reconnects += 1
            if mover.connection.resumed {
                result.resumed += 1
                result.resumedAtRest += 1
            } else {
                result.mismatches.append("pause \(pause), \(mover.label): moved to process \(process) at rest and got a snapshot")
            }
            if mover.connection.replica.sections != fresh {
                result.mismatches.append("pause \(pause), \(mover.label) resumed on process \(process): \(mover.connection.replica) != fresh \(HubReplica(sections: fresh))")
            }
            result.pauses += 1
        }
        return result
    }
}
