import Foundation
import Testing
import TesseraDiff
import TesseraResults
import TesseraSQLite
import TesseraPostgresTestSupport
import TesseraTestSupport
import TesseraTestTraits
@testable import TesseraPostgres
#if canImport(Glibc)
import Glibc
#endif

/// Faults a PostgreSQL store meets: its sessions killed, the server
/// restarted or gone, the table dropped or changed, bad requests, a refused
/// password; and what it leaves on the server once closed. Each test works
/// in a database of its own.
@Suite("PostgreSQL faults: the controller reports them and recovers", .tags(.postgres), .ownThreads)
struct PostgresFaultTests {
    static let request = PostgresOracleTests.sectioned
    static let orderBy = PostgresOracleTests.orderBy

    /// The PostgreSQL error inside a controller's or a store's error.
    static func storeError(_ error: any Error) -> PostgresStoreError? {
        if let error = error as? PostgresStoreError { return error }
        if case let .store(inner)? = error as? ResultsError { return inner.underlying as? PostgresStoreError }
        return nil
    }

    /// A database with `photo` and `album` filled, a writer session on it,
    /// and a followed controller over a store of its own.
    final class Fixture {
        let url: String
        let writer: PostgresSession
        let store: PostgresStore
        let controller: FetchedResultsController<OraclePhoto>
        let log = OracleFetchedLog()
        let initial: Snapshot<ResultSection, OraclePhoto>
        /// What `checkForExternalChanges` threw.
        var thrown: [ResultsError] = []

        init(url: String) throws {
            self.url = url
            try PostgresOracleTests.setUp(url, seed: 7)
            writer = try OracleServer.session(url)
            store = try PostgresStore(url: url)
            controller = try FetchedResultsController<OraclePhoto>(store: store, request: PostgresFaultTests.request)
            controller.delegate = log
            try controller.performFetch()
            initial = controller.snapshot
        }

        deinit {
            writer.close()
            store.close()
        }

        func fresh() throws -> [OraclePhoto] {
            try PostgresOracleTests.fresh(writer, PostgresFaultTests.orderBy)
        }

        /// Checks for commits until the controller equals a fresh query,
        /// for at most `rounds` rounds of a check and 10 ms (12,000 by
        /// default, two minutes at the least); whether it did. The limit
        /// only stops a test that would hang: it is generous for a
        /// sanitizer build on a busy machine, costs nothing when the
        /// controller follows, and is bounded in rounds, not by a clock.
        func settle(rounds: Int = 12_000) throws -> Bool {
            let expected = try fresh()
            return waitInRounds(rounds, sleepingEvery: .milliseconds(10)) {
                do throws(ResultsError) { _ = try controller.checkForExternalChanges() } catch { thrown.append(error) }
                return controller.snapshot.allItems == expected
            }
        }

        /// What the server's sessions of this database are doing (their
        /// names, states and wait events), for a failure message: a store
        /// that does not catch up is waiting somewhere.
        func activity() -> String {
            (try? TestServer.psql(url, """
                SELECT string_agg(coalesce(application_name, '') || ' ' || coalesce(state, '') || ' ' || coalesce(wait_event_type, '') || ':' || coalesce(wait_event, '') || ' ' || left(query, 80), ' | ')
                FROM pg_stat_activity WHERE datname = current_database()
                """)) ?? "(pg_stat_activity could not be read)"
        }

        /// Every report replays, from the first result to the last.
        func checkReports(_ label: String) {
            PostgresOracleTests.checkChain(
                label, seed: 0, from: initial, reports: log.reports.map { ($0.changeset, $0.oldSnapshot, $0.newSnapshot) },
                to: controller.snapshot, rolledBack: \.isRolledBack
            )
        }

        func insert(_ id: Int64, album: Int64 = 1) throws {
            try writer.query(
                "INSERT INTO photo VALUES ($1, $2, 1, 'inserted', now(), 0.5, true)", [.integer(id), .integer(album)], request: "insert"
            )
        }
    }

    @Test("pg_terminate_backend on the store's sessions while a writer commits: the controller catches up with a fresh query")
    func terminatedSessions() throws {
        let fixture = try Fixture(url: OracleServer.freshDatabase("terminate"))
        for round in 0..<3 {
            try fixture.insert(Int64(100_000 + round * 2))
            let killed = try fixture.writer.query(
                "SELECT count(pg_terminate_backend(pid))::int8 FROM pg_stat_activity WHERE application_name LIKE 'tessera%' AND datname = current_database()",
                request: "end the store's sessions"
            ).rows.first?.first?.int64 ?? 0
            #expect(killed >= 1, "round \(round): no session of the store to end")
            try fixture.insert(Int64(100_000 + round * 2 + 1), album: 2)
            try fixture.writer.query("UPDATE photo SET album = 3 WHERE id = $1", [.integer(Int64(round + 1))], request: "move")
            #expect(try fixture.settle(), "round \(round): the controller did not catch up with a fresh query after its sessions ended (errors: \(fixture.log.errors + fixture.thrown); sessions: \(fixture.activity()))")
        }
        fixture.checkReports("terminated sessions")
        // Following goes on: a new slot exists.
        try waitInRounds(6_000, sleepingEvery: .milliseconds(20)) { try !OracleServer.replicationSlots(fixture.url).isEmpty }
        #expect(try !OracleServer.replicationSlots(fixture.url).isEmpty, "no replication slot 6,000 rounds of 20 ms after the sessions were ended (sessions: \(fixture.activity()))")
        // And it still follows.
        try fixture.insert(200_000)
        #expect(try fixture.settle(), "the controller stopped following after its sessions were ended")
    }

    @Test("pg_terminate_backend at random moments, 20 times (6 under a sanitizer), each between a writer's commits: the controller catches up with a fresh query each time", .startsEarly)
    func sessionsTerminatedAtRandomMoments() throws {
        let seed = testSeed(default: 0x7E2)
        var generator = SplitMix64(seed: seed)
        let fixture = try Fixture(url: OracleServer.freshDatabase("terminaterandom"))
        for round in 0..<oracleRounds(20, minimum: 6) {
            try fixture.insert(Int64(100_000 + round * 2))
            // Anywhere in the store's cycle: polling, a round's reads, a
            // slot being made again.
            usleep(UInt32.random(in: 0..<30_000, using: &generator))
            _ = try fixture.writer.query(
                "SELECT count(pg_terminate_backend(pid))::int8 FROM pg_stat_activity WHERE application_name LIKE 'tessera%' AND datname = current_database()",
                request: "end the store's sessions"
            )
            try fixture.insert(Int64(100_000 + round * 2 + 1), album: 2)
            try fixture.writer.query("UPDATE photo SET album = 3 WHERE id = $1", [.integer(Int64(round + 1))], request: "move")
            let caughtUp = try fixture.settle()
            #expect(caughtUp, "seed \(seed), round \(round): the controller did not catch up with a fresh query after its sessions ended (errors: \(fixture.log.errors + fixture.thrown); sessions: \(fixture.activity()))")
            if !caughtUp { return }
        }
        fixture.checkReports("sessions terminated at random moments")
    }

    @Test("the server restarts: the controller recovers and equals a fresh query")
    func serverRestart() throws {
        let cluster = try OracleCluster(label: "restart")
        defer { cluster.stop() }
        let url = try cluster.freshDatabase("restart")
        var fixture: Fixture? = try Fixture(url: url)
        try cluster.restart()
        // The writer's session ended with the server: a new fixture writer.
        let writer = try OracleServer.session(url)
        defer { writer.close() }
        try writer.query("INSERT INTO photo VALUES (500000, 4, 1, 'after restart', now(), 0.5, true)", request: "insert")
        try writer.query("DELETE FROM photo WHERE id = 3", request: "delete")
        let expected = try PostgresOracleTests.fresh(writer, Self.orderBy)
        let matched = waitInRounds(6_000, sleepingEvery: .milliseconds(20)) {
            guard let current = fixture else { return false }
            do throws(ResultsError) { _ = try current.controller.checkForExternalChanges() } catch { current.thrown.append(error) }
            return current.controller.snapshot.allItems == expected
        }
        let current = try #require(fixture)
        let failures = current.log.errors + current.thrown
        print("PostgresFaultTests.serverRestart: failures seen \(failures.map { "\(Self.storeError($0)?.kind.rawValue ?? "\($0)")" }), last update \(current.controller.lastUpdateMethod.map(\.rawValue) ?? "none")")
        #expect(matched, "the controller did not equal a fresh query within 6,000 rounds of a check and 20 ms of the restart (failures: \(failures))")
        // It told: an error, or a fetch anew (nothing patched over the gap).
        #expect(!failures.isEmpty || current.controller.lastUpdateMethod == .refetch, "the restart went by without an error or a fetch anew")
        current.checkReports("server restart")
        fixture = nil
    }

    @Test("DROP TABLE: the delegate hears of an unknown table")
    func droppedTable() throws {
        let fixture = try Fixture(url: OracleServer.freshDatabase("drop"))
        try fixture.writer.execute("DROP TABLE photo", request: "drop")
        waitInRounds(12_000, sleepingEvery: .milliseconds(10)) {
            guard fixture.log.errors.isEmpty else { return true }
            do throws(ResultsError) { _ = try fixture.controller.checkForExternalChanges() } catch { fixture.thrown.append(error) }
            return false
        }
        let kinds = fixture.log.errors.map { Self.storeError($0)?.kind }
        #expect(kinds.contains(.unknownTable), "no unknown-table error within 12,000 rounds of a check and 10 ms of DROP TABLE: the delegate heard \(fixture.log.errors), thrown \(fixture.thrown)")
    }

    @Test("ALTER COLUMN rank TYPE bigint, then TYPE text: the controller fetches again and equals a fresh query", arguments: ["bigint", "text"])
    func changedColumnType(type: String) throws {
        let fixture = try Fixture(url: OracleServer.freshDatabase("alter_\(type)"))
        try fixture.insert(600_000)
        #expect(try fixture.settle(), "before the change")
        try fixture.writer.execute("ALTER TABLE photo ALTER COLUMN rank TYPE bigint", request: "alter")
        if type == "text" {
            try fixture.writer.execute("ALTER TABLE photo ALTER COLUMN rank TYPE text USING rank::text", request: "alter")
        }
        try fixture.writer.query("UPDATE photo SET album = 5, rank = rank WHERE id = 7", request: "update")
        try fixture.insert(600_001, album: 6)
        #expect(try fixture.settle(), "after the change to \(type): the controller differs from a fresh query (errors: \(fixture.log.errors + fixture.thrown))")
        #expect(fixture.controller.snapshot.allItems.first { $0.id == 7 }?.values[1].string != nil || type != "text", "rank is not read as text")
        fixture.checkReports("column type \(type)")
    }

    @Test("a request with an unknown column, bad SQL or an unknown table: a typed error naming the request")
    func badRequests() throws {
        let url = try OracleServer.freshDatabase("badsql")
        try PostgresOracleTests.setUp(url, seed: 1)
        let store = try PostgresStore(url: url)
        defer { store.close() }
        let cases: [(FetchRequest, PostgresStoreError.Kind, String)] = [
            (FetchRequest(table: "photo", predicate: "nosuchcolumn = ?", arguments: [.integer(1)], sortKeys: [SortKey("id")]), .unknownColumn, "nosuchcolumn"),
            (FetchRequest(table: "photo", predicate: "album ==== 1", sortKeys: [SortKey("id")]), .badSQL, "photo"),
            (FetchRequest(table: "nosuchtable", sortKeys: [SortKey("id")]), .unknownTable, "nosuchtable"),
        ]
        for (request, kind, named) in cases {
            do {
                let controller = try FetchedResultsController<OraclePhoto>(store: store, request: request)
                try controller.performFetch()
                Issue.record("\(request) fetched")
            } catch {
                let inner = Self.storeError(error)
                #expect(inner?.kind == kind, "\(request): \(error)")
                #expect(inner?.request.contains(named) == true || "\(error)".contains(named), "the error does not name \(named): \(error)")
            }
        }
    }

    @Test("a wrong password and a stopped server: PostgresStore(url:) throws .authentication and .connection")
    func connectionFailures() throws {
        let server = try OracleServer.url()
        let wrong = try OracleServer.url(server, user: "tessera_password", password: "wrong")
        do {
            _ = try PostgresStore(url: wrong)
            Issue.record("a wrong password connected")
        } catch {
            #expect(error.kind == .authentication, "\(error)")
        }
        let cluster = try OracleCluster(label: "gone")
        let url = cluster.url
        cluster.stop()
        do {
            _ = try PostgresStore(url: url)
            Issue.record("a stopped server connected")
        } catch {
            #expect(error.kind == .connection, "\(error)")
        }
    }

    /// Waits up to 6,000 rounds of a query and 20 ms (two minutes at the
    /// least: a limit against a hang, for a sanitizer build on a busy
    /// machine; bounded in rounds, not by a clock) for the database's
    /// `tessera_%` slots to go.
    static func slotsGone(_ url: String) throws -> [String] {
        var slots: [String] = []
        try waitInRounds(6_000, sleepingEvery: .milliseconds(20)) {
            slots = try OracleServer.replicationSlots(url)
            return slots.isEmpty
        }
        return slots
    }

    @Test("nothing left behind: no tessera_ slot once a store is closed, or released")
    func nothingLeftBehind() throws {
        let url = try OracleServer.freshDatabase("leftovers")
        try PostgresOracleTests.setUp(url, seed: 2)
        do {
            let store = try PostgresStore(url: url)
            let controller = try FetchedResultsController<OraclePhoto>(store: store, request: Self.request)
            try controller.performFetch()
            #expect(try OracleServer.replicationSlots(url).count == 1, "following makes one slot")
            store.close()
            #expect(try Self.slotsGone(url).isEmpty, "slots left 6,000 rounds of 20 ms after close()")
        }
        do {
            var store: PostgresStore? = try PostgresStore(url: url)
            var controller: FetchedResultsController<OraclePhoto>? = try FetchedResultsController<OraclePhoto>(store: store!, request: Self.request)
            try controller?.performFetch()
            #expect(try OracleServer.replicationSlots(url).count == 1, "following makes one slot")
            controller = nil
            store = nil
            #expect(try Self.slotsGone(url).isEmpty, "slots left 6,000 rounds of 20 ms after the store and its controller were released")
        }
    }
}
