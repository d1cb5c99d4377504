import Foundation
import Testing
import TesseraDiff
import TesseraResults
import TesseraResultsTestSupport
import TesseraSQLite

// Single-store (SQLite): a commit made by a nonisolated helper (whose
// `#isolation` is nil) called from the controller's home actor.

/// Commits `sql` from no actor: `connection.write` is told of no isolation.
private func commitFromNoActor(_ connection: Connection, _ sql: String) throws {
    try connection.write { db in try db.execute(sql) }
}

/// A controller fetched where the caller runs (its home), its report log,
/// and a nonisolated helper's commit made after the fetch.
private func fetchedThenHelperCommit(
    isolation: isolated (any Actor)? = #isolation
) throws -> (connection: Connection, controller: FetchedResultsController<IsolatedItem>, log: ReportLog<IsolatedItem>) {
    let connection = try ItemDatabase.make()
    let controller = try FetchedResultsController<IsolatedItem>(connection: connection, request: ItemDatabase.request)
    let log = ReportLog<IsolatedItem>()
    controller.delegate = log
    try controller.performFetch(isolation: isolation)
    try commitFromNoActor(connection, "UPDATE item SET rank = 1000 WHERE id = 1")
    return (connection, controller, log)
}

/// An actor (on the global executor) that owns a controller and commits
/// through a nonisolated helper.
private actor HelperCommitter {
    /// What happened, in order: the reports counted after the helper
    /// returned, whether `deliverWaitingChanges()` found commits waiting,
    /// the reports after it, and whether the result then equals a fresh
    /// query.
    func commitThroughHelper() throws -> (afterHelper: Int, waited: Bool, afterDelivery: Int, matches: Bool) {
        let (connection, controller, log) = try fetchedThenHelperCommit()
        let afterHelper = log.reports.count
        let waited = try controller.deliverWaitingChanges()
        let matches = controller.snapshot == (try ItemDatabase.fresh(connection))
        return (afterHelper, waited, log.reports.count, matches)
    }
}

@Suite("Delivery at once on the main actor: a nonisolated helper's commit is reported before the write returns")
struct MainQueueDeliveryTests {
    @Test("On the main actor: a commit made by a nonisolated helper is reported before the helper returns")
    @MainActor
    func nonisolatedHelperOnTheMainActorIsSynchronous() throws {
        let (connection, controller, log) = try fetchedThenHelperCommit()
        #expect(log.reports.count == 1, "reported before the helper returned")
        #expect(controller.snapshot == (try ItemDatabase.fresh(connection)))
        #expect(try controller.deliverWaitingChanges() == false, "nothing waits")
        try commitFromNoActor(connection, "DELETE FROM item WHERE id = 2")
        #expect(log.reports.count == 2)
        #expect(controller.snapshot == (try ItemDatabase.fresh(connection)))
    }

    @Test("On the main actor: the set controller takes a nonisolated helper's commit at once too")
    @MainActor
    func setControllerOnTheMainActorIsSynchronous() throws {
        let connection = try ItemDatabase.make()
        let set = FetchedSetController<IsolatedItem>(connection: connection, request: SetRequest(table: "item", predicate: "grp = 3"))
        try set.performFetch()
        let before = set.count
        try commitFromNoActor(connection, "UPDATE item SET grp = 3 WHERE id IN (1, 2) AND grp <> 3")
        let expected = try connection.read { db in try db.rows("SELECT count(*) FROM item WHERE grp = 3")[0][0].int64 }
        #expect(set.count == expected.map(Int.init), "before: \(before)")
    }

    @Test("On another actor: a nonisolated helper's commit waits, and deliverWaitingChanges() reports it at once")
    func nonisolatedHelperOnAnotherActorWaits() async throws {
        let outcome = try await HelperCommitter().commitThroughHelper()
        #expect(outcome.afterHelper == 0, "Swift cannot tell that the helper ran on the actor: the report waits for its job")
        #expect(outcome.waited)
        #expect(outcome.afterDelivery == 1)
        #expect(outcome.matches)
    }
}
