import Foundation
import Testing
import TesseraDiff
import TesseraResults
import TesseraResultsTestSupport
import TesseraSQLite
import TesseraTestSupport
import TesseraTestTraits

// Single-store (SQLite): commits made by one connection's scripts (several
// statements in one execute), by statements reset or dropped before they
// are done, and fetches inside that connection's own open transaction or
// savepoint, and SQLite's errors and prepare.

/// A row of `item(id, title)`.
struct DeliveryItem: FetchableRecord, Hashable {
    var id: Int64
    var title: String

    init(row: Row) throws {
        id = row["id"].int64 ?? -1
        title = row["title"].string ?? ""
    }
}

/// The ids of `item`, sorted by title then id, as a fresh query gives them.
private func freshIDs(_ connection: Connection) throws -> [Int64] {
    try connection.read { db in try db.rows("SELECT id FROM item ORDER BY title, id").map { $0[0].int64 ?? -1 } }
}

@Suite("Commit delivery: every commit an execute or a statement makes reaches the observers", .cpuBound)
struct CommitDeliveryTests {
    static let request = FetchRequest(table: "item", sortKeys: [SortKey("title")])

    /// A connection with `item(id INTEGER PRIMARY KEY, title TEXT)` holding
    /// `(1, 'a')`, and a controller over it sorted by title.
    static func makeController() throws -> (Connection, FetchedResultsController<DeliveryItem>, ReportLog<DeliveryItem>) {
        let connection = try Connection(path: ":memory:")
        try connection.write { db in
            try db.execute("CREATE TABLE item (id INTEGER PRIMARY KEY, title TEXT)")
            try db.execute("INSERT INTO item VALUES (1, 'a')")
        }
        let controller = try FetchedResultsController<DeliveryItem>(connection: connection, request: request)
        let log = ReportLog<DeliveryItem>()
        controller.delegate = log
        try controller.performFetch()
        return (connection, controller, log)
    }

    @Test("A commit followed by BEGIN; ROLLBACK in one execute is reported, and later patches keep it")
    func commitThenRollbackInOneScript() throws {
        let (connection, controller, log) = try Self.makeController()
        try connection.withDatabase { db in try db.execute("INSERT INTO item VALUES (2, 'b'); BEGIN; ROLLBACK;") }
        #expect(log.reports.count == 1)
        #expect(log.reports.first?.changeset.itemInserts == [IndexPath(item: 1, section: 0)])
        #expect(controller.snapshot.allItems.map(\.id) == [1, 2])
        try connection.write { db in try db.execute("INSERT INTO item VALUES (3, 'c')") }
        #expect(controller.lastUpdateMethod == .incremental)
        #expect(controller.snapshot.allItems.map(\.id) == (try freshIDs(connection)))
    }

    @Test("Each commit of a script is its own report: three commits, three reports, in order")
    func oneReportPerCommit() throws {
        let (connection, controller, log) = try Self.makeController()
        try connection.withDatabase { db in
            try db.execute("""
                INSERT INTO item VALUES (2, 'b');
                BEGIN; UPDATE item SET title = 'z' WHERE id = 1; COMMIT;
                SAVEPOINT s; DELETE FROM item WHERE id = 2; RELEASE s;
                BEGIN; INSERT INTO item VALUES (9, 'q'); ROLLBACK;
                """)
        }
        #expect(log.reports.count == 3)
        #expect(log.reports.map(\.changeset.itemInserts) == [[IndexPath(item: 1, section: 0)], [], []])
        #expect(log.reports.map(\.changeset.itemDeletes) == [[], [], [IndexPath(item: 0, section: 0)]])
        #expect(log.reports[1].changeset.itemMoves.count == 1)
        #expect(controller.snapshot.allItems.map(\.id) == [1])
        #expect(controller.snapshot.allItems.map(\.id) == (try freshIDs(connection)))
    }

    @Test("A script that fails inside its own BEGIN, rolled back by the caller, still reports the commit before it")
    func failureInsideOwnTransaction() throws {
        let (connection, controller, log) = try Self.makeController()
        try connection.withDatabase { db in
            #expect(throws: SQLiteError.self) {
                try db.execute("INSERT INTO item VALUES (2, 'b'); BEGIN; INSERT INTO item VALUES (3, 'c'); INSERT INTO item VALUES (1, 'dup');")
            }
            #expect(db.isInTransaction)
            try db.execute("ROLLBACK")
        }
        #expect(log.reports.count == 1)
        #expect(controller.snapshot.allItems.map(\.id) == [1, 2])
        #expect(controller.snapshot.allItems.map(\.id) == (try freshIDs(connection)))
    }

    @Test("The error of a failing script names the statement that failed, not the whole script")
    func errorNamesFailingStatement() throws {
        let (connection, _, _) = try Self.makeController()
        let error = try connection.withDatabase { db in
            try #require(throws: SQLiteError.self) {
                try db.execute("INSERT INTO item VALUES (2, 'b'); INSERT INTO item VALUES (1, 'dup'); INSERT INTO item VALUES (4, 'd')")
            }
        }
        #expect(error.sql == "INSERT INTO item VALUES (1, 'dup');")
        #expect(error.code == 19)
        // The statement after the failing one did not run.
        #expect(try freshIDs(connection) == [1, 2])
    }

    @Test("A statement reset or dropped before it is done commits then, and the commit is reported before a later rollback")
    func commitAtResetAndFinalize() throws {
        let (connection, controller, log) = try Self.makeController()
        try connection.withDatabase { db in
            // RETURNING gives a row before the statement is done: it
            // commits when reset.
            let statement = try db.prepare("INSERT INTO item VALUES (2, 'b') RETURNING id")
            #expect(try statement.step())
            statement.reset()
            try db.execute("BEGIN; ROLLBACK")
        }
        #expect(log.reports.count == 1)
        try connection.withDatabase { db in
            do {
                let statement = try db.prepare("INSERT INTO item VALUES (3, 'c') RETURNING id")
                #expect(try statement.step())
            }
            try db.execute("BEGIN; ROLLBACK")
        }
        #expect(log.reports.count == 2)
        #expect(controller.snapshot.allItems.map(\.id) == [1, 2, 3])
        #expect(controller.snapshot.allItems.map(\.id) == (try freshIDs(connection)))
    }

    /// A set controller over `message` and a relational one over `album`
    /// and `photo`, in an SQLite database in memory, fetched once
    /// `rows` (SQL) are in.
    static func makeFamily(inserting rows: String) throws -> (Connection, FetchedSetController<Message>, RelationalResultsController<Album, AlbumPhoto>) {
        let connection = try Connection(path: ":memory:")
        try connection.write { db in
            try db.execute("CREATE TABLE message (id INTEGER PRIMARY KEY, folder TEXT, unread INTEGER, subject TEXT)")
            try db.execute("CREATE TABLE album (id INTEGER PRIMARY KEY, name TEXT, archived INTEGER)")
            try db.execute("CREATE TABLE photo (id INTEGER PRIMARY KEY, album_id INTEGER, date INTEGER, title TEXT, hidden INTEGER)")
            try db.execute(rows)
        }
        let set = FetchedSetController<Message>(connection: connection, request: SetRequest(table: "message"))
        let relational = RelationalResultsController<Album, AlbumPhoto>(
            connection: connection,
            parents: ParentRequest(table: "album", sortKeys: [SortKey("name")]),
            children: ChildRequest(table: "photo", foreignKeyColumn: "album_id", sortKeys: [SortKey("date")])
        )
        try set.performFetch()
        try relational.performFetch()
        return (connection, set, relational)
    }

    @Test("The set and relational controllers see every commit of a script too")
    func familySeesEveryCommit() throws {
        let (connection, set, relational) = try Self.makeFamily(inserting: "INSERT INTO album VALUES (1, 'A', 0)")
        try connection.withDatabase { db in
            try db.execute("""
                INSERT INTO message VALUES (1, 'inbox', 1, 'hi');
                INSERT INTO photo VALUES (1, 1, 5, 'p', 0);
                BEGIN; DELETE FROM message; DELETE FROM photo; ROLLBACK;
                """)
        }
        #expect(set.records.map(\.id) == [1])
        #expect(relational.snapshot.allItems.map(\.id) == [1])
    }

    @Test("A fetch inside a transaction that rolls back is fetched again once the rollback ends: the rows it saw are gone")
    func fetchInsideRolledBackTransaction() throws {
        let (connection, controller, log) = try Self.makeController()
        try? connection.write { db in
            try db.execute("INSERT INTO item VALUES (2, 'b')")
            try controller.refresh()
            #expect(controller.snapshot.allItems.map(\.id) == [1, 2])
            throw Rollback()
        }
        #expect(controller.snapshot.allItems.map(\.id) == [1])
        #expect(log.reports.last?.changeset.itemDeletes == [IndexPath(item: 1, section: 0)])
        // A first fetch inside a transaction, by a new controller.
        let late = try FetchedResultsController<DeliveryItem>(connection: connection, request: Self.request)
        try? connection.write { db in
            try db.execute("DELETE FROM item")
            try late.performFetch()
            #expect(late.snapshot.allItems.isEmpty)
            throw Rollback()
        }
        #expect(late.snapshot.allItems.map(\.id) == [1])
        // Patching still works afterwards.
        try connection.write { db in try db.execute("INSERT INTO item VALUES (3, 'c')") }
        #expect(controller.snapshot.allItems.map(\.id) == [1, 3])
        #expect(late.snapshot.allItems.map(\.id) == [1, 3])
    }

    @Test("A fetch inside a savepoint rolled back to, in a transaction that commits, is fetched again at the commit")
    func fetchInsideRolledBackSavepoint() throws {
        let (connection, controller, _) = try Self.makeController()
        try connection.write { db in
            try db.execute("INSERT INTO item VALUES (4, 'd')")
            try? db.savepoint { db in
                try db.execute("INSERT INTO item VALUES (2, 'b'); UPDATE item SET title = 'z' WHERE id = 1")
                try controller.refresh()
                throw Rollback()
            }
            try db.execute("INSERT INTO item VALUES (5, 'e')")
        }
        #expect(controller.snapshot.allItems.map(\.id) == (try freshIDs(connection)))
        #expect(controller.snapshot.allItems.map(\.id) == [1, 4, 5])
    }

    @Test("The set and relational controllers fetched inside a transaction that rolls back are fetched again too")
    func familyFetchInsideRolledBackTransaction() throws {
        let (connection, set, relational) = try Self.makeFamily(inserting: "INSERT INTO album VALUES (1, 'A', 0); INSERT INTO message VALUES (1, 'inbox', 1, 'hi')")
        try? connection.write { db in
            try db.execute("INSERT INTO message VALUES (2, 'inbox', 1, 'new'); INSERT INTO photo VALUES (1, 1, 5, 'p', 0)")
            try set.refresh()
            try relational.refresh()
            throw Rollback()
        }
        #expect(set.records.map(\.id) == [1])
        #expect(relational.snapshot.allItems.isEmpty)
    }

    @Test("prepare refuses a second statement after the first instead of ignoring it; comments and white space after it are fine")
    func prepareRefusesTrailingStatement() throws {
        let (connection, _, _) = try Self.makeController()
        try connection.withDatabase { db in
            let error = try #require(throws: SQLiteError.self) { try db.prepare("SELECT * FROM item; DROP TABLE item") }
            #expect(error.message.contains("DROP TABLE item"))
            #expect(throws: SQLiteError.self) { try db.rows("SELECT 1; SELECT 2") }
            #expect(throws: SQLiteError.self) { try db.prepare("  -- nothing but a comment\n") }
            #expect(try db.rows("SELECT count(*) FROM item; -- a comment\n  /* and another */ ").first?.first == .integer(1))
        }
        #expect(try freshIDs(connection) == [1])
    }
}
