import Foundation
import Testing
@testable import TesseraResultsCore
import TesseraResults
import TesseraResultsTestSupport
import TesseraSQLite
import TesseraTestTraits

// Single-store (SQLite): the record cache of a lazy result is the core's,
// and the read it races with goes through SQLite's connection lock.

@Suite("Lazy record cache: a read that a commit overtakes keeps nothing over the commit's records", .cpuBound)
struct LazyRecordCacheTests {
    @Test("A record read from an older state, whose rows were read before a commit that changed one of them and kept after it, does not replace the commit's record: the current result reads the renamed row")
    func overtakenReadKeepsNothing() throws {
        let connection = try Connection.inMemory(executing: ["CREATE TABLE item (id INTEGER PRIMARY KEY, rank REAL, name TEXT)"]
            + (1...100).map { "INSERT INTO item VALUES (\($0), \($0).0, 't\($0)')" })
        var request = FetchRequest(table: "item", sortKeys: [SortKey("rank")])
        request.fetchBatchSize = 8
        let controller = try FetchedResultsController<ReshapedRow>(connection: connection, request: request)
        try controller.performFetch()
        let older = controller.result
        // The read of row 51's batch, from the older state; once its rows
        // are read (the connection free again), a commit renames row 51
        // and the controller patches, keeping the renamed record.
        let rename: @Sendable () -> Void = {
            _RecordFaultsHooks.$afterReading.withValue(nil) {
                try? connection.write { db in try db.execute("UPDATE item SET name = 'renamed' WHERE id = 51") }
            }
        }
        let read = try _RecordFaultsHooks.$afterReading.withValue(rename) { try older.record(at: IndexPath(item: 50, section: 0)) }
        #expect(read["name"] == .text("t51"), "the older state's read saw the row before the commit")
        #expect(controller.lastUpdateMethod == .incremental)
        let current = try controller.result.record(at: IndexPath(item: 50, section: 0))
        #expect(current["name"] == .text("renamed"))
    }
}
