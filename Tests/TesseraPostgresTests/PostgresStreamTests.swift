import Foundation
import Testing
import TesseraResults
import TesseraSQLite
import TesseraPostgresTestSupport
import TesseraTestTraits
@testable import TesseraPostgres

/// The store's slot is streamed: a replication connection the server
/// pushes each commit to. What an operator or the server's limits do to it.
@Suite("PostgreSQL: the streamed slot", .tags(.postgres), .ownThreads)
struct PostgresStreamTests {
    /// The server process that holds the database's `tessera_` slot, and
    /// its backend type (`walsender` for a streamed slot); `nil` while
    /// there is none.
    static func slotHolder(_ url: String) throws -> (pid: Int64, backend: String)? {
        let row = try OracleServer.run(url, """
            SELECT s.active_pid::int8, a.backend_type FROM pg_replication_slots s JOIN pg_stat_activity a ON a.pid = s.active_pid
            WHERE s.database = current_database() AND s.slot_name LIKE 'tessera\\_%'
            """).first
        guard let row, let pid = row[0].int64, let backend = row[1].string else { return nil }
        return (pid, backend)
    }

    @Test("the slot is held by a replication connection (a walsender), and a commit reaches the controller with no poll")
    func streamed() throws {
        let fixture = try PostgresFaultTests.Fixture(url: OracleServer.freshDatabase("streamed"))
        let holder = try Self.slotHolder(fixture.url)
        #expect(holder?.backend == "walsender", "the slot's holder is \(holder.map { "\($0)" } ?? "none") (sessions: \(fixture.activity()))")
        try fixture.insert(800_000)
        #expect(try fixture.settle(), "the commit never reached the controller (sessions: \(fixture.activity()))")
        fixture.checkReports("streamed")
        // No session of the store polls: a polled slot's session has the
        // poll for the log's position as its last query nearly always.
        let polls = try OracleServer.run(
            fixture.url, "SELECT count(*)::int8 FROM pg_stat_activity WHERE datname = current_database() AND query = 'SELECT pg_current_wal_insert_lsn()::text'"
        ).first?.first?.int64
        #expect(polls == 0, "a session of the store polls the log's position")
    }

    @Test("an operator ends the stream's server process (how a slot in use is dropped) between commits, 3 times: the store makes a new slot, and the controller catches up with a fresh query each time")
    func operatorDropsTheSlot() throws {
        let fixture = try PostgresFaultTests.Fixture(url: OracleServer.freshDatabase("slotdropped"))
        for round in 0..<3 {
            var first: (pid: Int64, backend: String)?
            waitInRounds(6_000, sleepingEvery: .milliseconds(20)) {
                first = try? Self.slotHolder(fixture.url)
                return first != nil
            }
            guard let first else {
                Issue.record("round \(round): no slot (sessions: \(fixture.activity()))")
                return
            }
            _ = try OracleServer.run(
                fixture.url,
                "SELECT pg_terminate_backend(\(first.pid))",
                // The slot is temporary: it goes with its connection.
                "DO $$ BEGIN IF EXISTS (SELECT 1 FROM pg_replication_slots WHERE active_pid IS NULL AND slot_name LIKE 'tessera\\_%' AND database = current_database()) THEN PERFORM pg_drop_replication_slot(slot_name) FROM pg_replication_slots WHERE active_pid IS NULL AND slot_name LIKE 'tessera\\_%' AND database = current_database(); END IF; END $$"
            )
            try fixture.insert(810_000 + Int64(round), album: Int64(round % 3 + 1))
            try fixture.writer.query("UPDATE photo SET album = album % 4 + 1 WHERE id = \(round + 1)", request: "move")
            #expect(
                try fixture.settle(),
                "round \(round): the controller did not catch up after its slot was dropped (errors: \(fixture.log.errors + fixture.thrown); sessions: \(fixture.activity()))"
            )
            var next: (pid: Int64, backend: String)?
            waitInRounds(6_000, sleepingEvery: .milliseconds(20)) {
                next = try? Self.slotHolder(fixture.url)
                return next != nil
            }
            #expect(next != nil && next?.pid != first.pid, "round \(round): no new slot (sessions: \(fixture.activity()))")
        }
        #expect(fixture.controller.lastError == nil, "the controller still reports \(fixture.controller.lastError.map { "\($0)" } ?? "")")
        fixture.checkReports("slot dropped by an operator")
    }

    /// The kind and message of a fetch's failure.
    static func fetchFailure(_ url: String) throws -> PostgresStoreError? {
        let store = try PostgresStore(url: url)
        defer { store.close() }
        let controller = try FetchedResultsController<OraclePhoto>(store: store, request: PostgresFaultTests.request)
        do {
            try controller.performFetch()
            return nil
        } catch {
            return PostgresSlotWaitTests.storeError(error)
        }
    }

    @Test("max_wal_senders and max_replication_slots exhausted: a second store's fetch fails with cannotFollow naming the setting, and succeeds once the first store closes")
    func serverLimits() throws {
        let cluster = try OracleCluster(label: "limits")
        defer { cluster.stop() }
        for (setting, other) in [("max_wal_senders", "max_replication_slots"), ("max_replication_slots", "max_wal_senders")] {
            _ = try OracleServer.run(cluster.url, "ALTER SYSTEM SET \(setting) = 1", "ALTER SYSTEM SET \(other) = 4")
            try cluster.restart()
            let url = try cluster.freshDatabase("limits")
            try PostgresOracleTests.setUp(url, seed: 3)
            let first = try PostgresStore(url: url)
            let following = try FetchedResultsController<OraclePhoto>(store: first, request: PostgresFaultTests.request)
            try following.performFetch()
            let failure = try Self.fetchFailure(url)
            #expect(failure?.kind == .cannotFollow, "\(setting) = 1, in use: the second store's fetch gave \(failure.map { "\($0)" } ?? "no error")")
            #expect(failure?.message.contains(setting) == true, "the error does not name \(setting): \(failure.map { "\($0)" } ?? "no error")")
            first.close()
            // The first store's slot goes with its connection, a moment
            // after the close (bounded in rounds, not by a clock).
            var last: PostgresStoreError?
            let freed = waitInRounds(3_000, sleepingEvery: .milliseconds(20)) {
                last = try? Self.fetchFailure(url)
                return last == nil
            }
            #expect(freed, "\(setting): the second store still fails once the first closed: \(last.map { "\($0)" } ?? "")")
        }
    }

    @Test("SCRAM-SHA-256: the exchange of RFC 7677's example, and a stream opened as a role that must give its password")
    func scram() throws {
        // RFC 7677, section 3 (user "user", password "pencil").
        var exchange = PostgresSCRAM(password: "pencil", nonce: "rOprNGfwEbeRWgbNEkqO", user: "user")
        #expect(exchange.clientFirst == "n,,n=user,r=rOprNGfwEbeRWgbNEkqO")
        let final = exchange.clientFinal(serverFirst: "r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096")
        #expect(final == "c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=")
        #expect(exchange.verify(serverFinal: "v=6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4="))
        #expect(!exchange.verify(serverFinal: "v=7rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4="), "a wrong server signature was taken")
        var foreign = PostgresSCRAM(password: "pencil", nonce: "abc")
        #expect(foreign.clientFinal(serverFirst: "r=xyz,s=AAAA,i=4096") == nil, "a server nonce that does not extend ours was taken")

        // On the server: tessera_password must give its password
        // (scram-sha-256), and may replicate for this test.
        let url = try OracleServer.freshDatabase("scram")
        try PostgresOracleTests.setUp(url, seed: 5)
        _ = try OracleServer.run(url, "ALTER ROLE tessera_password REPLICATION", "GRANT SELECT ON ALL TABLES IN SCHEMA public TO tessera_password")
        let endpoint = try PostgresEndpoint(url: OracleServer.url(url, user: "tessera_password", password: "secret"))
        let stream = try PostgresReplicationStream.open(
            endpoint, slot: "tessera_scram_test", applicationName: "tessera scram test", timeout: .seconds(120), signal: PostgresFeedSignal()
        )
        #expect(stream.ended == nil)
        stream.close()
        var wrong = endpoint
        wrong.password = "wrong"
        #expect {
            _ = try PostgresReplicationStream.open(
                wrong, slot: "tessera_scram_wrong", applicationName: "tessera scram test", timeout: .seconds(120), signal: PostgresFeedSignal()
            )
        } throws: { error in
            (error as? PostgresStoreError)?.kind == .authentication
        }
    }

    @Test("log positions read and print as the server writes them")
    func logPositions() {
        #expect(PostgresLogPosition("16/B374D848")?.value == 0x16_B374_D848)
        #expect(PostgresLogPosition("0/0")?.value == 0)
        #expect(PostgresLogPosition(0x16_B374_D848).description == "16/B374D848")
        #expect(PostgresLogPosition("16B374D848") == nil)
        #expect(PostgresLogPosition("1/2/3") == nil)
        #expect(PostgresLogPosition("G/0") == nil)
        #expect(PostgresLogPosition("0/1") ?? PostgresLogPosition(0) < PostgresLogPosition("1/0") ?? PostgresLogPosition(0))
    }
}
