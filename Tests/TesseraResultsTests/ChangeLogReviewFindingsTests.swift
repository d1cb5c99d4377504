import Foundation
import Testing
import TesseraResults
import TesseraResultsTestSupport
import TesseraSQLite
import TesseraTestSupport

// Single-store (SQLite): writes the change log's triggers must see, or
// else say they cannot, for a controller patched from the log to stay
// equal to a fresh fetch.

/// A scratch file with `schema` run on it, and two connections: the
/// controller's and another (the writer the log follows).
private func makeFile(_ schema: [String]) throws -> (connection: Connection, other: Connection, directory: URL) {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tessera-log-edges-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    let path = directory.appendingPathComponent("items.sqlite").path
    let connection = try Connection(path: path, journalModeWAL: true)
    try connection.write { db in
        for statement in schema { try db.execute(statement) }
    }
    return (connection, try Connection(path: path, journalModeWAL: true), directory)
}

/// Each section's value and its rows, in order, as the controller holds
/// them.
private func rendered(_ controller: FetchedResultsController<ReshapedRow>) -> [String] {
    (0..<controller.numberOfSections).map { section in
        "\(controller.sections[section].value): " + (0..<controller.numberOfObjects(inSection: section)).map { row in
            controller.object(at: IndexPath(item: row, section: section)).description
        }.joined(separator: " ")
    }
}

/// A controller over `request` on `connection`, fetched.
private func fetched(_ request: FetchRequest, on connection: Connection) throws -> FetchedResultsController<ReshapedRow> {
    let controller = try FetchedResultsController<ReshapedRow>(connection: connection, request: request)
    controller.incrementalThreshold = .infinity
    try controller.performFetch()
    return controller
}

/// Commits `sql` on `other`, lets the controller check, and returns what
/// it holds and what a fresh fetch holds.
private func afterCommit(
    _ sql: [String], on other: Connection, controller: FetchedResultsController<ReshapedRow>
) throws -> (held: [String], fresh: [String]) {
    try other.write { db in
        for statement in sql { try db.execute(statement) }
    }
    try controller.checkForExternalChanges()
    return (rendered(controller), rendered(try fetched(controller.request, on: other)))
}

/// Installs the log again on `table` from `other`, and checks that the
/// controller patches again from it: once fetched again (the schema
/// changed), the next commit patches, exactly.
private func reinstallThenPatch(
    _ table: String, columns: [String], next sql: [String], on other: Connection, controller: FetchedResultsController<ReshapedRow>
) throws {
    try other.installChangeLog(on: table, columns: columns)
    try controller.checkForExternalChanges()
    let (held, fresh) = try afterCommit(sql, on: other, controller: controller)
    #expect(held == fresh)
    #expect(controller.lastUpdateMethod == .incremental)
}

@Suite("Change log edge cases: rows a REPLACE removes by the rowid or the key's own collation, and a log whose triggers no longer match the table")
struct ChangeLogEdgeCaseTests {
    @Test("UPDATE OR REPLACE that sets the rowid (the key's alias) onto another row's: the row it removes leaves the result, though the row now under that key is not in it")
    func updateOrReplaceThroughRowid() throws {
        let (connection, other, directory) = try makeFile([
            "CREATE TABLE item (id INTEGER PRIMARY KEY, grp TEXT, rank REAL)",
            "INSERT INTO item VALUES (1, 'a', 1), (2, 'b', 2), (3, 'c', 3)",
        ])
        defer { try? FileManager.default.removeItem(at: directory) }
        try connection.installChangeLog(on: "item", columns: ["grp", "rank"])
        let controller = try fetched(FetchRequest(table: "item", predicate: "grp <> 'a'", sortKeys: [SortKey("rank")]), on: connection)
        let (held, fresh) = try afterCommit(["UPDATE OR REPLACE item SET rowid = 3 WHERE id = 1"], on: other, controller: controller)
        #expect(controller.lastError == nil)
        #expect(held == fresh)
        #expect(controller.lastUpdateMethod == .incremental)
    }

    @Test("INSERT OR REPLACE with an explicit rowid in a table whose key is not the rowid: the row that held that rowid leaves the result")
    func insertOrReplaceByRowid() throws {
        let (connection, other, directory) = try makeFile([
            "CREATE TABLE item (id INTEGER NOT NULL PRIMARY KEY DESC, grp TEXT, rank REAL)",
            "INSERT INTO item (rowid, id, grp, rank) VALUES (1, 10, 'a', 1), (2, 20, 'b', 2), (3, 30, 'c', 3)",
        ])
        defer { try? FileManager.default.removeItem(at: directory) }
        try connection.installChangeLog(on: "item", columns: ["grp", "rank"])
        let controller = try fetched(FetchRequest(table: "item", sortKeys: [SortKey("rank")]), on: connection)
        let (held, fresh) = try afterCommit(["INSERT OR REPLACE INTO item (rowid, id, grp, rank) VALUES (1, 40, 'd', 4)"], on: other, controller: controller)
        #expect(controller.lastError == nil)
        #expect(held == fresh)
        #expect(controller.lastUpdateMethod == .incremental)
        // And an UPDATE OR REPLACE of the rowid alone.
        let (held2, fresh2) = try afterCommit(["UPDATE OR REPLACE item SET rowid = 3 WHERE id = 20"], on: other, controller: controller)
        #expect(held2 == fresh2)
        #expect(controller.lastUpdateMethod == .incremental)
    }

    @Test("A primary key declared with a collation of its own (PRIMARY KEY (id COLLATE NOCASE)): an INSERT OR REPLACE of 'A' removes 'a', and the result loses it")
    func keyWithCollationOfItsOwn() throws {
        let (connection, other, directory) = try makeFile([
            "CREATE TABLE item (id TEXT NOT NULL, grp TEXT, rank REAL, PRIMARY KEY (id COLLATE NOCASE))",
            "INSERT INTO item VALUES ('a', 'x', 1), ('b', 'x', 2)",
        ])
        defer { try? FileManager.default.removeItem(at: directory) }
        try connection.installChangeLog(on: "item", columns: ["grp", "rank"])
        let controller = try fetched(FetchRequest(table: "item", sortKeys: [SortKey("rank")]), on: connection)
        let (held, fresh) = try afterCommit(["INSERT OR REPLACE INTO item VALUES ('A', 'x', 3)"], on: other, controller: controller)
        #expect(controller.lastError == nil)
        #expect(held == fresh)
        #expect(controller.lastUpdateMethod == .incremental)
    }

    @Test("A unique generated column: an UPDATE OR REPLACE of the column it is made from removes the row that held the same generated value, and the log names it (the update never names the generated column; a controller over such a table fetches again, but the log is every reader's)")
    func uniqueGeneratedColumn() throws {
        let (connection, other, directory) = try makeFile([
            "CREATE TABLE item (id INTEGER PRIMARY KEY, name TEXT, rank REAL, folded TEXT GENERATED ALWAYS AS (lower(name)) VIRTUAL UNIQUE)",
            "INSERT INTO item (id, name, rank) VALUES (1, 'a', 1), (2, 'b', 2), (3, 'c', 3)",
        ])
        defer { try? FileManager.default.removeItem(at: directory) }
        try connection.installChangeLog(on: "item", columns: ["rank"])
        try other.write { db in try db.execute("UPDATE OR REPLACE item SET name = 'A' WHERE id = 3") }
        let logged = try connection.withDatabase { db in
            try db.rows("SELECT kind, \"key.id\", \"old.rank\" FROM tessera_log_item ORDER BY seq").map { $0.map(\.description).joined(separator: " ") }
        }
        let left = try connection.withDatabase { db in try db.rows("SELECT id FROM item ORDER BY id").compactMap { $0[0].int64 } }
        #expect(left == [2, 3])
        #expect(logged == ["3 1 1.0", "1 3 3.0"])
    }

    @Test("A unique index added after the log was installed: an INSERT OR REPLACE that removes a row by it leaves the result exact (the log's triggers do not know the index, so it cannot say)")
    func uniqueIndexAddedLater() throws {
        let (connection, other, directory) = try makeFile([
            "CREATE TABLE item (id INTEGER PRIMARY KEY, grp TEXT, rank REAL, code TEXT)",
            "INSERT INTO item VALUES (1, 'a', 1, 'c1'), (2, 'b', 2, 'c2'), (3, 'c', 3, 'c3')",
        ])
        defer { try? FileManager.default.removeItem(at: directory) }
        try connection.installChangeLog(on: "item", columns: ["grp", "rank"])
        try other.write { db in try db.execute("CREATE UNIQUE INDEX item_code ON item (code)") }
        let controller = try fetched(FetchRequest(table: "item", sortKeys: [SortKey("rank")]), on: connection)
        let (held, fresh) = try afterCommit(["INSERT OR REPLACE INTO item VALUES (4, 'd', 4, 'c1')"], on: other, controller: controller)
        #expect(controller.lastError == nil)
        #expect(held == fresh)
        #expect(controller.lastUpdateMethod == .refetch)
        try reinstallThenPatch("item", columns: ["grp", "rank"], next: ["INSERT OR REPLACE INTO item VALUES (5, 'e', 0.5, 'c2')"], on: other, controller: controller)
    }

    @Test("A table rebuilt the way SQLite's manual changes a table (create a new one, copy, drop the old, rename): its triggers are gone with the old table, and the log left behind must not pass for a complete one")
    func tableRebuilt() throws {
        let (connection, other, directory) = try makeFile([
            "CREATE TABLE item (id INTEGER PRIMARY KEY, grp TEXT, rank REAL)",
            "INSERT INTO item VALUES (1, 'a', 1), (2, 'b', 2), (3, 'c', 3)",
        ])
        defer { try? FileManager.default.removeItem(at: directory) }
        try connection.installChangeLog(on: "item", columns: ["grp", "rank"])
        try other.write { db in
            try db.execute("CREATE TABLE item_new (id INTEGER PRIMARY KEY, grp TEXT, rank REAL, note TEXT)")
            try db.execute("INSERT INTO item_new (id, grp, rank) SELECT id, grp, rank FROM item")
            try db.execute("DROP TABLE item")
            try db.execute("ALTER TABLE item_new RENAME TO item")
        }
        let controller = try fetched(FetchRequest(table: "item", sortKeys: [SortKey("rank")]), on: connection)
        let (held, fresh) = try afterCommit(["UPDATE item SET rank = 0 WHERE id = 3", "DELETE FROM item WHERE id = 1"], on: other, controller: controller)
        #expect(controller.lastError == nil)
        #expect(held == fresh)
        #expect(controller.lastUpdateMethod == .refetch)
        try reinstallThenPatch("item", columns: ["grp", "rank"], next: ["DELETE FROM item WHERE id = 2"], on: other, controller: controller)
    }

    @Test("A logged column renamed (the triggers follow the rename, the log's column does not) and another added under the old name: a request sorting by the new column must not take the renamed one's old values for its own (a deleted row would not be found)")
    func loggedColumnRenamed() throws {
        let (connection, other, directory) = try makeFile([
            "CREATE TABLE item (id INTEGER PRIMARY KEY, grp TEXT, rank REAL)",
            "INSERT INTO item VALUES (1, 'a', 1), (2, 'b', 2), (3, 'c', 3)",
        ])
        defer { try? FileManager.default.removeItem(at: directory) }
        try connection.installChangeLog(on: "item", columns: ["grp", "rank"])
        try other.write { db in
            try db.execute("ALTER TABLE item RENAME COLUMN rank TO score")
            try db.execute("ALTER TABLE item ADD COLUMN rank REAL DEFAULT 0")
            try db.execute("UPDATE item SET rank = 10 - score")
        }
        let controller = try fetched(FetchRequest(table: "item", sortKeys: [SortKey("rank")]), on: connection)
        let (held, fresh) = try afterCommit(["DELETE FROM item WHERE id = 3"], on: other, controller: controller)
        #expect(controller.lastError == nil)
        #expect(held == fresh)
        #expect(controller.lastUpdateMethod == .refetch)
        try reinstallThenPatch("item", columns: ["grp", "rank", "score"], next: ["DELETE FROM item WHERE id = 2"], on: other, controller: controller)
    }
}
