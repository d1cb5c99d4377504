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

/// A store whose change capture fails round after round with an error that
/// does not end its session (here a permission revoked): the controllers
/// hear of it, instead of staying silently where they were, and catch up
/// once it is gone. The test owns a cluster: it changes a function's
/// privileges for every role.
@Suite("PostgreSQL: a change capture that keeps failing is reported, never a silently stale result", .tags(.postgres), .ownThreads)
struct PostgresPersistentFailureTests {
    @Test("EXECUTE on pg_current_wal_insert_lsn revoked from a store's role: the controller reports an error; granted again, it equals a fresh query")
    func revokedFunction() throws {
        let cluster = try OracleCluster(label: "revoke")
        defer { cluster.stop() }
        let url = try cluster.freshDatabase("revoked")
        try PostgresOracleTests.setUp(url, seed: 7)
        let admin = try OracleServer.session(url, applicationName: "oracle-admin")
        defer { admin.close() }
        try admin.execute(
            "CREATE ROLE follower LOGIN REPLICATION", "GRANT SELECT ON ALL TABLES IN SCHEMA public TO follower",
            request: "a role that follows"
        )
        let store = try PostgresStore(url: OracleServer.url(url, user: "follower", password: nil))
        defer { store.close() }
        let controller = try FetchedResultsController<OraclePhoto>(store: store, request: PostgresFaultTests.request)
        let log = OracleFetchedLog()
        controller.delegate = log
        try controller.performFetch()
        var thrown: [ResultsError] = []

        /// Checks until the controller equals a fresh query, for 12,000
        /// rounds of a check and 10 ms at most (a limit against a hang only,
        /// generous for a sanitizer build on a busy machine; bounded in
        /// rounds, not by a clock).
        func settle() throws -> Bool {
            let expected = try PostgresOracleTests.fresh(admin, PostgresFaultTests.orderBy)
            return waitInRounds(12_000, sleepingEvery: .milliseconds(10)) {
                do throws(ResultsError) { _ = try controller.checkForExternalChanges() } catch { thrown.append(error) }
                return controller.snapshot.allItems == expected
            }
        }

        try admin.execute("INSERT INTO photo VALUES (800000, 1, 1, 'before', now(), 0.5, true)", request: "insert")
        #expect(try settle(), "the controller did not follow before the revoke")

        // Every poll for commits fails now, on a session that stays open.
        try admin.execute("REVOKE EXECUTE ON FUNCTION pg_current_wal_insert_lsn() FROM PUBLIC", request: "revoke")
        try admin.execute("INSERT INTO photo VALUES (800001, 2, 1, 'unseen', now(), 0.5, true)", request: "insert")
        waitInRounds(6_000, sleepingEvery: .milliseconds(20)) {
            guard log.errors.isEmpty && thrown.isEmpty else { return true }
            do throws(ResultsError) { _ = try controller.checkForExternalChanges() } catch { thrown.append(error) }
            return false
        }
        let failures = log.errors + thrown
        #expect(!failures.isEmpty, "6,000 rounds of failing checks and 20 ms and the controller heard of none: it shows a result nothing follows")
        #expect(failures.contains { "\($0)".contains("pg_current_wal_insert_lsn") || "\($0)".contains("permission") }, "\(failures)")

        // Granted again: the next commit brings it to a fresh query.
        try admin.execute("GRANT EXECUTE ON FUNCTION pg_current_wal_insert_lsn() TO PUBLIC", request: "grant")
        try admin.execute("INSERT INTO photo VALUES (800002, 3, 1, 'after', now(), 0.5, true)", request: "insert")
        #expect(try settle(), "the controller did not catch up once the privilege was back (errors: \(log.errors + thrown))")
    }
}
