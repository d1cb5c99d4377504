import Foundation
import Testing
import TesseraTestTraits
import TesseraDiff
import TesseraResults
import TesseraResultsTestSupport
import TesseraSQLite

// What a schema change invalidates is read again on the paths the first
// checks of it left out: a kept statement that SQLite prepares again on a
// step that gives no row (a key deleted by the commit), read after for a
// key that has one; nothing is left open meanwhile.

@Suite("Schema changes under kept statements: every record read after equals a fresh fetch", .ownThreads)
struct SchemaChangeUnderKeptStatementTests {
    /// A WAL file with `item(id, grp, rank, title, extra0)` and `count`
    /// rows, a connection on it, and its path.
    private static func makeItems(count: Int) throws -> (Connection, String, URL) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tessera-kept-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let path = directory.appendingPathComponent("items.sqlite").path
        let connection = try Connection(path: path)
        try connection.write { db in
            try db.execute("CREATE TABLE item (id INTEGER PRIMARY KEY, grp TEXT, rank REAL, title TEXT, extra0 TEXT DEFAULT 'e0')")
            for id in 1...count {
                try db.execute("INSERT INTO item (id, grp, rank, title) VALUES (?, ?, ?, ?)", [.integer(Int64(id)), .text("g\(id % 3)"), .real(Double(id)), .text("t\(id)")])
            }
        }
        return (connection, path, directory)
    }

    /// The columns of `item` as a fresh statement reads them.
    private static func columns(_ connection: Connection) throws -> [String] {
        try connection.read { db in try db.rows("SELECT name FROM pragma_table_info('item')").map { $0[0].string ?? "" } }
    }

    /// Drops the last extra column and adds another: the table keeps its
    /// number of columns, one of them under another name.
    /// Swaps the extra column from `other` (a schema change the controller
    /// finds by its check), then commits on the controller's connection a
    /// delete of 40 rows and an update of one more: many keys with no row
    /// left, one with a row, so the kept query by key is prepared again at
    /// the first key read, whichever it is.
    private static func changeSchemaThenPatch(
        _ round: Int, _ controller: FetchedResultsController<ReshapedRow>, connection: Connection, other: Connection
    ) throws {
        try swapExtraColumn(round, on: other)
        #expect(try controller.checkForExternalChanges())
        let base = Int64(10 + round * 50)
        try connection.write { db in
            try db.execute("DELETE FROM item WHERE id BETWEEN ? AND ?", [.integer(base), .integer(base + 39)])
            try db.execute("UPDATE item SET rank = rank + 0.5 WHERE id = ?", [.integer(base + 45)])
        }
    }

    private static func swapExtraColumn(_ round: Int, on connection: Connection) throws {
        try connection.write { db in
            try db.execute("ALTER TABLE item DROP COLUMN extra\(round)")
            try db.execute("ALTER TABLE item ADD COLUMN extra\(round + 1) TEXT DEFAULT 'e\(round + 1)'")
        }
    }

    @Test("A patch after DROP COLUMN then ADD COLUMN (as many columns, another name) reads the new names even when a deleted key's step prepared the statement again")
    func patchAfterColumnSwapReadsNewNames() throws {
        let (connection, path, directory) = try Self.makeItems(count: 200)
        defer { try? FileManager.default.removeItem(at: directory) }
        let other = try Connection(path: path)
        let request = FetchRequest(table: "item", sortKeys: [SortKey("grp"), SortKey("rank")], sectionKey: "grp")
        let controller = try FetchedResultsController<ReshapedRow>(connection: connection, request: request)
        controller.incrementalThreshold = .infinity
        try controller.performFetch()
        // A patch: the query by key is prepared and kept.
        try connection.write { db in try db.execute("UPDATE item SET rank = -1 WHERE id = 1") }
        #expect(controller.lastUpdateMethod == .incremental)
        for round in 0..<3 {
            try Self.changeSchemaThenPatch(round, controller, connection: connection, other: other)
            #expect(controller.lastUpdateMethod == .incremental)
            #expect(leftOpen(on: connection) == nil)
            let names = try Self.columns(connection)
            for record in controller.snapshot.allItems where record.columns != names {
                Issue.record("round \(round): record \(record.id) was read with \(record.columns), the table has \(names)")
            }
            let fresh = try FetchedResultsController<ReshapedRow>(connection: Connection(path: path), request: request)
            try fresh.performFetch()
            let differing = zip(controller.snapshot.allItems, fresh.snapshot.allItems).filter { $0 != $1 }.map(\.0.id)
            #expect(controller.snapshot.sections == fresh.snapshot.sections && controller.snapshot.itemCounts == fresh.snapshot.itemCounts, "round \(round)")
            #expect(controller.snapshot.numberOfItems == fresh.snapshot.numberOfItems && differing.isEmpty, "round \(round): records that differ from a fresh fetch: \(differing)")
        }
    }

    @Test("A set's read of changed rows after DROP COLUMN then ADD COLUMN reads the new names even when a deleted key's step prepared the statement again")
    func setAfterColumnSwapReadsNewNames() throws {
        let (connection, path, directory) = try Self.makeItems(count: 200)
        defer { try? FileManager.default.removeItem(at: directory) }
        let other = try Connection(path: path)
        let set = FetchedSetController<ReshapedRow>(connection: connection, request: SetRequest(table: "item"))
        try set.performFetch()
        try connection.write { db in try db.execute("UPDATE item SET title = 'x' WHERE id = 1") }
        for round in 0..<3 {
            try Self.swapExtraColumn(round, on: other)
            try set.refresh()
            let base = Int64(10 + round * 50)
            try connection.write { db in
                try db.execute("DELETE FROM item WHERE id BETWEEN ? AND ?", [.integer(base), .integer(base + 39)])
                try db.execute("UPDATE item SET title = 'changed' WHERE id = ?", [.integer(base + 45)])
            }
            #expect(set.lastError == nil)
            #expect(leftOpen(on: connection) == nil)
            let names = try Self.columns(connection)
            for record in set.records where record.columns != names {
                Issue.record("round \(round): record \(record.id) was read with \(record.columns), the table has \(names)")
            }
            let fresh = FetchedSetController<ReshapedRow>(connection: try Connection(path: path), request: set.request)
            try fresh.performFetch()
            let differing = Set(set.records).symmetricDifference(fresh.records).map(\.id).sorted()
            #expect(differing.isEmpty, "round \(round): records that differ from a fresh fetch: \(differing)")
        }
    }

    @Test("A lazy result (fetchBatchSize) after DROP COLUMN then ADD COLUMN: the records it kept and those a patch brings in have the new names")
    func lazyResultAfterColumnSwap() throws {
        let (connection, path, directory) = try Self.makeItems(count: 300)
        defer { try? FileManager.default.removeItem(at: directory) }
        let other = try Connection(path: path)
        var request = FetchRequest(table: "item", sortKeys: [SortKey("grp"), SortKey("rank")], sectionKey: "grp")
        request.fetchBatchSize = 16
        let controller = try FetchedResultsController<ReshapedRow>(connection: connection, request: request)
        controller.incrementalThreshold = .infinity
        try controller.performFetch()
        try controller.finishLoading()
        #expect(leftOpen(on: connection) == nil)
        _ = controller.snapshot
        try connection.write { db in try db.execute("UPDATE item SET rank = -1 WHERE id = 1") }
        for round in 0..<3 {
            try Self.changeSchemaThenPatch(round, controller, connection: connection, other: other)
            #expect(controller.lastError == nil)
            #expect(leftOpen(on: connection) == nil)
            let names = try Self.columns(connection)
            for record in controller.snapshot.allItems where record.columns != names {
                Issue.record("round \(round): record \(record.id) was read with \(record.columns), the table has \(names)")
            }
            let fresh = try FetchedResultsController<ReshapedRow>(connection: Connection(path: path), request: FetchRequest(table: "item", sortKeys: request.sortKeys, sectionKey: "grp"))
            try fresh.performFetch()
            #expect(controller.snapshot.allItems == fresh.snapshot.allItems, "round \(round)")
        }
    }

    @Test("A request over a view the commit makes again with other columns: records read after have the view's new columns, on the writer's connection and another's")
    func viewMadeAgainWithOtherColumns() throws {
        let (connection, path, directory) = try Self.makeItems(count: 50)
        defer { try? FileManager.default.removeItem(at: directory) }
        let other = try Connection(path: path)
        try connection.write { db in try db.execute("CREATE VIEW shown AS SELECT id, grp, rank, title FROM item") }
        let request = FetchRequest(table: "shown", sortKeys: [SortKey("rank")])
        let controller = try FetchedResultsController<ReshapedRow>(connection: connection, request: request)
        try controller.performFetch()
        let set = FetchedSetController<ReshapedRow>(connection: connection, request: SetRequest(table: "shown"))
        try set.performFetch()
        let shapes = ["id, grp, rank, title AS heading", "id, title, rank, grp", "id, grp AS family, rank, title"]
        for (round, shape) in shapes.enumerated() {
            let writer = round == 1 ? other : connection
            try writer.write { db in
                try db.execute("DROP VIEW shown")
                try db.execute("CREATE VIEW shown AS SELECT \(shape) FROM item")
            }
            if writer === other {
                _ = try controller.checkForExternalChanges()
                try set.refresh()
            }
            try connection.write { db in try db.execute("UPDATE item SET rank = rank + 100 WHERE id = ?", [.integer(Int64(round + 1))]) }
            #expect(leftOpen(on: connection) == nil)
            let fresh = try FetchedResultsController<ReshapedRow>(connection: Connection(path: path), request: request)
            try fresh.performFetch()
            #expect(controller.lastError == nil)
            #expect(controller.snapshot.allItems == fresh.snapshot.allItems, "round \(round): \(shape)")
            let differing = Set(set.records).symmetricDifference(fresh.snapshot.allItems).map(\.id).sorted()
            #expect(differing.isEmpty, "round \(round): the set's records that differ from a fresh fetch: \(differing)")
        }
    }
}

/// Commits from no actor: `connection.write` is told of no isolation.
private func commitFromHelper(_ connection: Connection, _ sql: String) throws {
    try connection.write { db in try db.execute(sql) }
}

/// Logs the callbacks in order; at the first record callback of a report,
/// commits what it owes through a nonisolated helper.
private final class CallbackOrderLog: FetchedResultsControllerDelegate {
    typealias Record = IsolatedItem
    let connection: Connection
    var events: [String] = []
    var owed: [String] = []

    init(_ connection: Connection) { self.connection = connection }

    func controllerWillChangeContent(_ controller: FetchedResultsController<IsolatedItem>) { events.append("will") }
    func controller(_ controller: FetchedResultsController<IsolatedItem>, didChangeRecordAt oldIndexPath: IndexPath?, for type: ResultsChangeType, newIndexPath: IndexPath?) {
        events.append("record")
        if !owed.isEmpty { try? commitFromHelper(connection, owed.removeFirst()) }
    }
    func controller(_ controller: FetchedResultsController<IsolatedItem>, didChangeContentWith report: ChangeReport<IsolatedItem>) { events.append("did") }

    /// Whether each report's callbacks ran whole before the next began.
    var isInOrder: Bool {
        var open = false
        for event in events {
            switch event {
            case "will": if open { return false }; open = true
            case "did": if !open { return false }; open = false
            default: if !open { return false }
            }
        }
        return !open
    }
}

@Suite("A commit a delegate makes inside a report's callbacks is reported after them", .ownThreads)
struct CommitInsideCallbacksTests {
    @Test("On the main actor, a helper's commit inside the record callbacks of a report a commit made comes after that report's callbacks")
    @MainActor
    func commitInsideCommitReport() throws {
        let connection = try ItemDatabase.make()
        let controller = try FetchedResultsController<IsolatedItem>(connection: connection, request: ItemDatabase.request)
        let log = CallbackOrderLog(connection)
        controller.delegate = log
        try controller.performFetch()
        log.owed = ["UPDATE item SET rank = 999 WHERE id = 5"]
        try commitFromHelper(connection, "UPDATE item SET rank = 1000 WHERE id IN (1, 2)")
        let inOrder = log.isInOrder
        let events = log.events
        #expect(inOrder, "\(events)")
        #expect(controller.snapshot == (try ItemDatabase.fresh(connection)))
        #expect(leftOpen(on: connection) == nil)
    }

    @Test("On the main actor, a helper's commit inside the record callbacks of a report checkForExternalChanges or refresh made comes after that report's callbacks", arguments: [false, true])
    @MainActor
    func commitInsideCheckReport(refresh: Bool) throws {
        let connection = try ItemDatabase.make()
        let other = try Connection(path: connection.path)
        let controller = try FetchedResultsController<IsolatedItem>(connection: connection, request: ItemDatabase.request)
        let log = CallbackOrderLog(connection)
        controller.delegate = log
        try controller.performFetch()
        try other.write { db in try db.execute("UPDATE item SET rank = 2000 WHERE id IN (3, 4)") }
        log.owed = ["UPDATE item SET rank = 998 WHERE id = 6"]
        if refresh { try controller.refresh() } else { try controller.checkForExternalChanges() }
        // Known: the nested report runs inside the outer one's record
        // callbacks (will, record, will, record, did, record, …, did).
        let inOrder = log.isInOrder
        let events = log.events
        withKnownIssue("a commit made inside the callbacks of a report that a call (not a commit) made is reported inside them") {
            #expect(inOrder, "\(events)")
        }
        #expect(controller.snapshot == (try ItemDatabase.fresh(connection)))
        #expect(leftOpen(on: connection) == nil)
    }
}
