import Foundation
import Testing
import TesseraResults
import TesseraSQLite
import TesseraPostgresTestSupport
import TesseraTestTraits
@testable import TesseraPostgres
#if canImport(Glibc)
import Glibc
#endif

/// A store that loses its slot while the server cannot make a new one: a
/// logical slot is made only once every transaction that held a
/// transaction ID when its making began has ended, in every database of
/// the server. Each test owns a cluster: the transaction it holds open
/// would hold up every other test's slot on a shared one.
@Suite("PostgreSQL: a slot the server holds up is reported, never a silently stale result", .tags(.postgres), .ownThreads)
struct PostgresSlotWaitTests {
    /// The PostgreSQL error of a controller's error.
    static func storeError(_ error: ResultsError) -> PostgresStoreError? {
        if case let .store(inner) = error { return inner.underlying as? PostgresStoreError }
        return nil
    }

    @Test("pg_terminate_backend while another database holds a transaction ID open: the controller reports cannotFollow until the transaction ends, then equals a fresh query")
    func heldUpSlot() throws {
        let cluster = try OracleCluster(label: "slotwait")
        defer { cluster.stop() }
        let url = try cluster.freshDatabase("followed")
        let fixture = try PostgresFaultTests.Fixture(url: url)
        let blocker = try OracleServer.session(try cluster.freshDatabase("blocker"), applicationName: "blocker")
        defer { blocker.close() }
        try blocker.execute("BEGIN", "SELECT txid_current()", request: "hold a transaction ID open")

        try fixture.insert(700_000)
        let killed = try fixture.writer.query(
            "SELECT count(pg_terminate_backend(pid))::int8 FROM pg_stat_activity WHERE application_name LIKE 'tessera%' AND datname = current_database()",
            request: "end the store's sessions"
        ).rows.first?.first?.int64 ?? 0
        #expect(killed >= 1, "no session of the store to end")
        try fixture.insert(700_001, album: 2)
        try fixture.writer.query("UPDATE photo SET album = 3 WHERE id = 1", request: "move")

        // The checks fail with cannotFollow (a fetch now would start a
        // result that nothing follows, which the next commit would leave
        // stale without a word), and once the server's time to make the
        // slot has run out, the error says why.
        var reported: [PostgresStoreError] = []
        var timedOut = false
        // The server's time to make a slot is 5 s on the first try; the
        // limit only stops a hung test (generous for a sanitizer build on
        // a busy machine; bounded in rounds, not by a clock).
        waitInRounds(6_000, sleepingEvery: .milliseconds(20)) {
            do throws(ResultsError) {
                _ = try fixture.controller.checkForExternalChanges()
            } catch {
                let inner = Self.storeError(error)
                #expect(inner?.kind == .cannotFollow, "a check failed with \(error)")
                if let inner {
                    reported.append(inner)
                    timedOut = inner.message.contains("could not be made again")
                }
            }
            return timedOut
        }
        #expect(!reported.isEmpty, "no check failed while the store had no slot (sessions: \(fixture.activity()))")
        #expect(timedOut, "within 6,000 rounds of a check and 20 ms, the store never said it could not make its slot again: \(reported.last.map { "\($0)" } ?? "no error") (sessions: \(fixture.activity()))")
        // The try that timed out was cancelled on the server too: once the
        // next try's replication connection exists, it is the only one.
        func senders() throws -> Set<Int64> {
            Set(try OracleServer.run(url, "SELECT pid::int8 FROM pg_stat_activity WHERE backend_type = 'walsender'").compactMap { $0.first?.int64 })
        }
        let atTimeout = try senders()
        var now = atTimeout
        waitInRounds(6_000, sleepingEvery: .milliseconds(20)) {
            now = (try? senders()) ?? atTimeout
            return !now.subtracting(atTimeout).isEmpty
        }
        #expect(now.count <= 1, "replication connections \(now) once the next try began (\(atTimeout) when the last one timed out): a try given up still waits on the server (sessions: \(fixture.activity()))")

        // The transaction ends: the store makes its slot, and the
        // controller catches up.
        try blocker.execute("ROLLBACK", request: "let go")
        #expect(try fixture.settle(), "the controller did not catch up once the transaction ended (errors: \(fixture.log.errors + fixture.thrown); sessions: \(fixture.activity()))")
        #expect(try !OracleServer.replicationSlots(url).isEmpty, "no slot once the transaction ended")
        #expect(fixture.controller.lastError == nil, "the controller still reports \(fixture.controller.lastError.map { "\($0)" } ?? "")")
        fixture.checkReports("held-up slot")
        try fixture.insert(700_002, album: 4)
        #expect(try fixture.settle(), "the controller stopped following after the slot was made again")
    }

    @MainActor
    @Test("a controller with an actor hears of the held-up slot through its delegate and lastError, with no call of its own, and lastError clears once the slot is made")
    func heldUpSlotReportedToTheDelegate() async throws {
        let cluster = try OracleCluster(label: "slotwaitactor")
        defer { cluster.stop() }
        let url = try cluster.freshDatabase("followed")
        try PostgresOracleTests.setUp(url, seed: 11)
        let writer = try OracleServer.session(url)
        defer { writer.close() }
        let store = try PostgresStore(url: url)
        defer { store.close() }
        let controller = try FetchedResultsController<OraclePhoto>(store: store, request: PostgresFaultTests.request)
        let log = OracleFetchedLog()
        controller.delegate = log
        try controller.performFetch()
        let blocker = try OracleServer.session(try cluster.freshDatabase("blocker"), applicationName: "blocker")
        defer { blocker.close() }
        try blocker.execute("BEGIN", "SELECT txid_current()", request: "hold a transaction ID open")

        try writer.query(
            "SELECT count(pg_terminate_backend(pid))::int8 FROM pg_stat_activity WHERE application_name LIKE 'tessera%' AND datname = current_database()",
            request: "end the store's sessions"
        )
        try writer.query("INSERT INTO photo VALUES (800000, 2, 1, 'inserted', now(), 0.5, true)", request: "insert")

        func heard() -> Bool {
            log.errors.contains { Self.storeError($0)?.message.contains("could not be made again") == true }
        }
        // 6,000 rounds of at least 20 ms, bounded in rounds, not by a
        // clock.
        try await waitInRounds(6_000, every: .milliseconds(20)) { heard() }
        #expect(heard(), "within 6,000 rounds of 20 ms, the delegate never heard that the slot could not be made again: it heard \(log.errors)")
        #expect(controller.lastError.flatMap(Self.storeError)?.kind == .cannotFollow, "lastError is \(controller.lastError.map { "\($0)" } ?? "nil")")

        try blocker.execute("ROLLBACK", request: "let go")
        let expected = try PostgresOracleTests.fresh(writer, PostgresFaultTests.orderBy)
        try await waitInRounds(6_000, every: .milliseconds(20)) { controller.lastError == nil && controller.snapshot.allItems == expected }
        #expect(controller.lastError == nil, "6,000 rounds of 20 ms after the transaction ended, lastError is still \(controller.lastError.map { "\($0)" } ?? "nil")")
        #expect(controller.snapshot.allItems == expected, "the controller differs from a fresh query once the slot was made again")
    }

    @Test("the slot's making is bounded: 5 s, then twice as long at each try, up to 80 s")
    func slotTimeouts() {
        let seconds = (1...7).map { PostgresChangeFeed.slotTimeout(attempt: $0).components.seconds }
        #expect(seconds == [5, 10, 20, 40, 80, 80, 80])
    }
}
