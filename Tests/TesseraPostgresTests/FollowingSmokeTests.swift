import Foundation
import Testing
import TesseraPostgresTestSupport
import TesseraTestTraits
@testable import TesseraPostgres

struct SmokePhoto: FetchableRecord, Hashable {
    var id: Int64
    var album: Int64
    var title: String
    init(row: Row) throws {
        id = row["id"].int64 ?? -1
        album = row["album"].int64 ?? -1
        title = row["title"].string ?? ""
    }
}

@Suite("PostgreSQL smoke", .tags(.postgres), .ownThreads)
struct FollowingSmokeTests {
    @Test func followsCommits() throws {
        let url = try TestServer.freshDatabase("smoke")
        let writer = try PostgresSession.connect(PostgresEndpoint(url: url), applicationName: "writer")
        try writer.execute("DROP TABLE IF EXISTS smoke", "CREATE TABLE smoke (id bigint PRIMARY KEY, album bigint, title text)", request: "setup")
        try writer.query("INSERT INTO smoke SELECT g, g % 7, 'photo ' || g FROM generate_series(1, 200) g", request: "fill")
        let store = try PostgresStore(url: url)
        let controller = try FetchedResultsController<SmokePhoto>(
            store: store, request: FetchRequest(table: "smoke", sortKeys: [SortKey("album"), SortKey("title")], sectionKey: "album")
        )
        try controller.performFetch()
        #expect(controller.numberOfSections == 7)
        #expect(controller.snapshot.numberOfItems == 200)
        #expect(controller.supportsIncrementalUpdates)
        var reports: [ChangeReport<SmokePhoto>] = []
        let reports0 = controller.result
        try writer.query("UPDATE smoke SET album = 3 WHERE id = 5", request: "update")
        try writer.query("DELETE FROM smoke WHERE id = 9", request: "delete")
        try writer.query("INSERT INTO smoke VALUES (1000, 2, 'new')", request: "insert")
        try writer.execute("BEGIN", "INSERT INTO smoke VALUES (2000, 2, 'rolled back')", "ROLLBACK", request: "rollback")
        let fresh = try writer.query("SELECT id FROM smoke ORDER BY album, title, id", request: "fresh").rows.map { $0[0].int64! }
        // A limit against a hang only (generous for a sanitizer build on a
        // busy machine; bounded in rounds, not by a clock): the controller
        // is bound to catch up.
        var current: [Int64] = []
        try waitInRounds(24_000, sleepingEvery: .milliseconds(5)) {
            if try controller.checkForExternalChanges() { print("took changes") }
            current = controller.snapshot.allItems.map(\.id)
            return current == fresh
        }
        #expect(current == fresh, "the controller did not equal a fresh query within 24,000 rounds of a check and 5 ms of the commits (\(current.count) rows against \(fresh.count))")
        _ = reports0
        _ = reports
        writer.close()
        #expect(current == fresh)
        print("update method", controller.lastUpdateMethod as Any)
        reports = []
    }
}
