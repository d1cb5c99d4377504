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

/// A fetch that fails after the controller took it from its delivery, and a
/// fetch that began before the store lost its slot and ended after: the
/// controller reports the failure and keeps it reported, then catches up
/// once the cause is gone, even when no commit follows.
@Suite("PostgreSQL: a fetch that fails or straddles a lost slot is reported, then caught up with", .tags(.postgres), .ownThreads)
struct PostgresRefetchFailureTests {
    @Test("SELECT revoked from the store's role: the fetch a commit asks for fails, lastError keeps the failure; granted again with no commit after, the checks bring the controller to a fresh query")
    func refetchFailsAfterItWasTaken() throws {
        let url = try OracleServer.freshDatabase("refetchfail")
        try PostgresOracleTests.setUp(url, seed: 5)
        let admin = try OracleServer.session(url, applicationName: "oracle-admin")
        defer { admin.close() }
        // Roles belong to the whole server: one named after the database.
        let database = String(URLComponents(string: url)?.path.dropFirst() ?? "")
        let role = "reader_\(database)"
        try admin.execute(
            "CREATE ROLE \(role) LOGIN REPLICATION", "GRANT SELECT ON ALL TABLES IN SCHEMA public TO \(role)",
            request: "a role that follows"
        )
        // Last, once the store is closed (best effort: its sessions end a
        // moment after).
        defer { _ = try? admin.execute("DROP OWNED BY \(role)", "DROP ROLE \(role)", request: "drop the role") }
        let store = try PostgresStore(url: OracleServer.url(url, user: role, password: nil))
        defer { store.close() }
        let controller = try FetchedResultsController<OraclePhoto>(store: store, request: PostgresFaultTests.request)
        let log = OracleFetchedLog()
        controller.delegate = log
        try controller.performFetch()
        var thrown: [ResultsError] = []

        /// Checks until the controller equals a fresh query and has no
        /// error, for at most `rounds` rounds of a check and 10 ms; the
        /// limit only stops a hung test (generous for a sanitizer build on
        /// a busy machine; bounded in rounds, not by a clock).
        func settle(rounds: Int = 12_000) throws -> Bool {
            let expected = try PostgresOracleTests.fresh(admin, PostgresFaultTests.orderBy)
            return waitInRounds(rounds, sleepingEvery: .milliseconds(10)) {
                do throws(ResultsError) { _ = try controller.checkForExternalChanges() } catch { thrown.append(error) }
                return controller.snapshot.allItems == expected && controller.lastError == nil
            }
        }

        try admin.execute("INSERT INTO photo VALUES (900000, 1, 1, 'before', now(), 0.5, true)", request: "insert")
        #expect(try settle(), "the controller did not follow before the revoke (errors: \(log.errors + thrown))")

        // The round cannot read the rows either: the controller is asked
        // to fetch, and its fetch fails.
        try admin.execute("REVOKE SELECT ON photo FROM \(role)", request: "revoke")
        try admin.execute("INSERT INTO photo VALUES (900001, 2, 1, 'unseen', now(), 0.5, true)", request: "insert")
        waitInRounds(12_000, sleepingEvery: .milliseconds(10)) {
            guard log.errors.isEmpty && thrown.isEmpty else { return true }
            do throws(ResultsError) { _ = try controller.checkForExternalChanges() } catch { thrown.append(error) }
            return false
        }
        #expect(!(log.errors + thrown).isEmpty, "12,000 rounds of a check and 10 ms after the revoke and a commit, the controller heard of no failure")
        #expect(controller.lastError != nil, "the fetch failed (\(log.errors + thrown)), yet lastError is nil: a controller without a delegate shows a stale result as sound")
        do { _ = try controller.checkForExternalChanges() } catch { thrown.append(error) }
        #expect(controller.lastError != nil, "one more check, no grant yet: lastError went back to nil, the result is still stale")

        // Granted again, and no commit after: the fetch that failed is due.
        try admin.execute("GRANT SELECT ON photo TO \(role)", request: "grant")
        #expect(try settle(), "no commit after the grant: the controller stayed where the failed fetch left it (lastError: \(controller.lastError.map { "\($0)" } ?? "nil"), errors: \(log.errors + thrown))")
        try admin.execute("INSERT INTO photo VALUES (900002, 3, 1, 'after', now(), 0.5, true)", request: "insert")
        #expect(try settle(), "the controller stopped following after the grant (errors: \(log.errors + thrown))")
    }

    /// A store whose reads run `hook` (once armed) after the snapshot is
    /// taken and before the controller reads or follows anything.
    final class HookedStore: ResultsStore, @unchecked Sendable {
        let base: PostgresStore
        private let armed = PThreadMutex<(@Sendable () -> Void)?>(nil)

        init(_ base: PostgresStore) { self.base = base }

        func arm(_ hook: @escaping @Sendable () -> Void) { armed.withLock { $0 = hook } }

        func withReader<T>(isolation: isolated (any Actor)?, _ body: (any StoreReader) throws(ResultsError) -> T) throws(ResultsError) -> T {
            try base.withReader(isolation: isolation) { reader throws(ResultsError) -> T in
                let hook = armed.withLock { hook in
                    defer { hook = nil }
                    return hook
                }
                hook?()
                return try body(reader)
            }
        }

        func withRecordReader<T>(_ body: (any StoreReader, _ committed: Bool) throws(ResultsError) -> T) throws(ResultsError) -> T {
            try base.withRecordReader(body)
        }
    }

    @MainActor
    @Test("a fetch admitted before the slot was lost and followed after, while the slot cannot be made: the controller on an actor reports it, and equals a fresh query with lastError nil once the slot is made")
    func fetchStraddlesALostSlot() async throws {
        let cluster = try OracleCluster(label: "straddle")
        defer { cluster.stop() }
        let url = try cluster.freshDatabase("followed")
        try PostgresOracleTests.setUp(url, seed: 13)
        let writer = try OracleServer.session(url)
        defer { writer.close() }
        let postgres = try PostgresStore(url: url)
        defer { postgres.close() }
        let store = HookedStore(postgres)
        let controller = try FetchedResultsController<OraclePhoto>(store: store, request: PostgresFaultTests.request)
        let log = OracleFetchedLog()
        controller.delegate = log
        try controller.performFetch()
        // The slot cannot be made again while this transaction is open.
        let blocker = try OracleServer.session(try cluster.freshDatabase("blocker"), applicationName: "blocker")
        defer { blocker.close() }
        try blocker.execute("BEGIN", "SELECT txid_current()", request: "hold a transaction ID open")

        // Inside the next fetch, after its snapshot: the slot's session
        // ends, and the store takes the slot as lost (it refuses readers).
        let lostSeen = PThreadMutex(false)
        store.arm { [url] in
            guard let killer = try? OracleServer.session(url, applicationName: "oracle-admin") else { return }
            defer { killer.close() }
            _ = try? killer.query(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'tessera (following)' AND datname = current_database()",
                request: "end the slot's session"
            )
            if waitInRounds(60_000, sleepingEvery: .milliseconds(2), until: { (try? postgres.feed().admitReader()) == nil }) {
                lostSeen.withLock { $0 = true }
            }
        }
        try controller.refresh()
        #expect(lostSeen.withLock { $0 }, "the store did not take its slot as lost within 60,000 rounds of 2 ms of its slot's session ending")

        // The fetch's source started from a history the new slot does not
        // continue: it asks for a fetch, which fails while there is no slot.
        try await waitInRounds(6_000, every: .milliseconds(20)) { !log.errors.isEmpty }
        #expect(!log.errors.isEmpty, "no failure reported within 6,000 rounds of 20 ms while the store had no slot")

        try writer.query("INSERT INTO photo VALUES (910000, 2, 1, 'inserted', now(), 0.5, true)", request: "insert")
        try blocker.execute("ROLLBACK", request: "let go")
        let expected = try PostgresOracleTests.fresh(writer, PostgresFaultTests.orderBy)
        try await waitInRounds(6_000, every: .milliseconds(20)) { controller.lastError == nil && controller.snapshot.allItems == expected }
        #expect(controller.lastError == nil, "6,000 rounds of 20 ms after the slot could be made again, lastError is still \(controller.lastError.map { "\($0)" } ?? "nil")")
        let same = controller.snapshot.allItems == expected
        #expect(same, "the slot was made again, and the controller differs from a fresh query (\(controller.snapshot.numberOfItems) rows against \(expected.count)): nothing asked it to fetch")
        #expect(try !OracleServer.replicationSlots(url).isEmpty, "no slot once the transaction ended")
    }
}
