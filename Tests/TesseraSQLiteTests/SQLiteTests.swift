import Foundation
import Testing
import TesseraResultsTestSupport
import TesseraSQLite
import TesseraTestTraits

@Suite("SQLite: values, statements and errors", .cpuBound)
struct SQLiteBasicsTests {
    @Test("Every storage class round-trips through bind and read")
    func roundTrip() throws {
        let connection = try Connection(path: ":memory:")
        let values: [DatabaseValue] = [.null, .integer(-42), .real(1.5), .text("héllo 'quoted'"), .blob([0, 1, 255])]
        let read = try connection.write { db -> [DatabaseValue] in
            try db.execute("CREATE TABLE t (v)")
            for value in values { try db.execute("INSERT INTO t (v) VALUES (?)", [value]) }
            return try db.rows("SELECT v FROM t ORDER BY rowid").map { $0[0] }
        }
        #expect(read == values)
        #expect(DatabaseValue.text("it's").description == "'it''s'" && DatabaseValue.blob([10, 11]).description == "x'0a0b'")
    }

    @Test("Lists of text or blob values that split the same bytes differently hash differently")
    func valueBoundariesAreHashed() {
        // The bytes `Hasher` is fed for the class of a text (3) or a blob
        // (4), placed inside a neighbouring value.
        let textClass = String(decoding: [3, 0, 0, 0, 0, 0, 0, 0] as [UInt8], as: UTF8.self)
        let blobClass: [UInt8] = [4, 0, 0, 0, 0, 0, 0, 0]
        let pairs: [([DatabaseValue], [DatabaseValue])] = [
            ([.text("p"), .text("q" + textClass + "r")], [.text("p" + textClass + "q"), .text("r")]),
            ([.blob([1]), .blob([2] + blobClass + [3])], [.blob([1] + blobClass + [2]), .blob([3])]),
        ]
        for (a, b) in pairs {
            #expect(a != b && a.hashValue != b.hashValue, "\(a) and \(b)")
        }
    }

    @Test("Named parameters bind, typed reads convert, statements reset and run again")
    func statements() throws {
        let connection = try Connection(path: ":memory:")
        try connection.write { db in
            try db.execute("CREATE TABLE photo (id INTEGER PRIMARY KEY, title TEXT, score REAL)")
            let insert = try db.prepare("INSERT INTO photo (title, score) VALUES (:title, :score)")
            for (title, score) in [("Beach", 4.5), ("Dunes", 3.0)] {
                try insert.bind(.text(title), to: ":title")
                try insert.bind(.real(score), to: ":score")
                try insert.step()
                insert.reset()
            }
            #expect(db.lastInsertRowID == 2 && db.changes == 1)
            let select = try db.prepare("SELECT id, title, score FROM photo ORDER BY id")
            #expect(select.columnCount == 3 && select.columnName(1) == "title")
            #expect(select.resultTables == ["photo"])
            #expect(try select.step())
            #expect(select.int64(at: 0) == 1 && select.text(at: 1) == "Beach" && select.double(at: 2) == 4.5)
        }
    }

    @Test("Bad SQL, an unknown column and an unknown parameter are errors naming the SQL")
    func errors() throws {
        let connection = try Connection(path: ":memory:")
        try connection.withDatabase { db in try db.execute("CREATE TABLE photo (id INTEGER PRIMARY KEY, title TEXT)") }
        #expect {
            try connection.withDatabase { db in _ = try db.prepare("SELEC 1") }
        } throws: { error in
            let error = error as? SQLiteError
            return error?.code == 1 && error?.sql == "SELEC 1" && error?.message.contains("syntax error") == true
        }
        #expect {
            try connection.withDatabase { db in _ = try db.prepare("SELECT nope FROM photo") }
        } throws: { error in
            (error as? SQLiteError)?.message == "no such column: nope"
        }
        #expect {
            try connection.withDatabase { db in try db.prepare("SELECT :a").bind(.null, to: ":b") }
        } throws: { error in
            (error as? SQLiteError)?.message == "no parameter named :b"
        }
        let error = SQLiteError(code: 1, message: "no such table: x", sql: "SELECT * FROM x")
        #expect(error.description == "SQLite error 1: no such table: x (in \"SELECT * FROM x\")")
    }

    @Test("A missing file, a read-only file and a file that is not a database are errors naming the path")
    func openErrors() throws {
        let directory = try temporaryDirectory()
        let missing = directory.appendingPathComponent("missing.sqlite").path
        #expect { try Connection(path: missing, mode: .readWrite) } throws: { error in
            (error as? SQLiteError)?.message.contains("cannot open \(missing)") == true
        }
        let file = directory.appendingPathComponent("photos.sqlite").path
        try Connection(path: file).write { db in try db.execute("CREATE TABLE t (v)") }
        let readOnly = try Connection(path: file, mode: .readOnly)
        #expect { try readOnly.write { db in try db.execute("INSERT INTO t VALUES (1)") } } throws: { error in
            (error as? SQLiteError)?.code == 8
        }
        let garbage = directory.appendingPathComponent("garbage.sqlite").path
        try Data(repeating: 0x41, count: 4096).write(to: URL(fileURLWithPath: garbage))
        #expect { try Connection(path: garbage) } throws: { error in
            (error as? SQLiteError)?.code == 26
        }
    }

    @Test("A busy timeout past what SQLite takes, infinite, NaN or negative opens the database (the longest wait, or none) instead of trapping", arguments: [1e300, .infinity, .nan, -5, 3e6])
    func busyTimeoutBeyondSQLitesRange(seconds: Double) throws {
        let connection = try Connection(path: ":memory:", busyTimeout: seconds)
        #expect(try connection.read { db in try db.rows("SELECT 1") } == [[.integer(1)]])
    }

    @Test("A database another connection holds the write lock on is busy after the timeout")
    func locked() throws {
        let file = try temporaryDirectory().appendingPathComponent("locked.sqlite").path
        let holder = try Connection(path: file)
        let waiter = try Connection(path: file, busyTimeout: 0)
        try holder.withDatabase { db in
            try db.execute("CREATE TABLE t (v)")
            try db.execute("BEGIN IMMEDIATE")
            defer { try? db.execute("ROLLBACK") }
            #expect { try waiter.write { db in try db.execute("INSERT INTO t VALUES (1)") } } throws: { error in
                (error as? SQLiteError)?.code == 5
            }
        }
    }
}

@Suite("SQLite: transactions and savepoints")
struct SQLiteTransactionTests {
    struct Stop: Error {}

    @Test("A write that throws rolls back; one that returns commits")
    func writeRollsBack() throws {
        let connection = try Connection(path: ":memory:")
        try connection.withDatabase { db in try db.execute("CREATE TABLE t (v)") }
        #expect(throws: Stop.self) {
            try connection.write { db in
                try db.execute("INSERT INTO t VALUES (1)")
                throw Stop()
            }
        }
        try connection.write { db in try db.execute("INSERT INTO t VALUES (2)") }
        #expect(try connection.read { db in try db.rows("SELECT v FROM t") } == [[.integer(2)]])
    }

    @Test("A savepoint that throws rolls back only its own work, and savepoints nest")
    func savepoints() throws {
        let connection = try Connection(path: ":memory:")
        let values = try connection.write { db -> [[DatabaseValue]] in
            try db.execute("CREATE TABLE t (v)")
            try db.execute("INSERT INTO t VALUES (1)")
            try? db.savepoint { db in
                try db.execute("INSERT INTO t VALUES (2)")
                try db.savepoint { db in try db.execute("INSERT INTO t VALUES (3)") }
                throw Stop()
            }
            try db.savepoint { db in try db.execute("INSERT INTO t VALUES (4)") }
            return try db.rows("SELECT v FROM t ORDER BY v")
        }
        #expect(values == [[.integer(1)], [.integer(4)]])
    }

    @Test("Concurrent writers through one connection are serialized")
    func concurrentWrites() async throws {
        let connection = try Connection(path: ":memory:")
        try connection.withDatabase { db in try db.execute("CREATE TABLE t (v)") }
        await withTaskGroup(of: Void.self) { group in
            for task in 0..<8 {
                group.addTask {
                    for item in 0..<25 {
                        try? connection.write { db in try db.execute("INSERT INTO t VALUES (?)", [.integer(Int64(task * 100 + item))]) }
                    }
                }
            }
        }
        #expect(try connection.read { db in try db.rows("SELECT count(*) FROM t") } == [[.integer(200)]])
    }
}

@Suite("SQLite: hooks", .cpuBound)
struct SQLiteHookTests {
    @Test("The update hook reports inserts, updates and deletes with their row ids")
    func updateHook() throws {
        let connection = try Connection(path: ":memory:")
        var seen: [String] = []
        try connection.withDatabase { db in
            try db.execute("CREATE TABLE photo (id INTEGER PRIMARY KEY, title TEXT)")
            db.updateHook = { change, table, rowID in seen.append("\(change) \(table) \(rowID)") }
            try db.execute("INSERT INTO photo (id, title) VALUES (7, 'a')")
            try db.execute("UPDATE photo SET title = 'b' WHERE id = 7")
            try db.execute("DELETE FROM photo WHERE id = 7")
            db.updateHook = nil
            try db.execute("INSERT INTO photo (id, title) VALUES (8, 'c')")
        }
        #expect(seen == ["insert photo 7", "update photo 7", "delete photo 7"])
    }

    @Test("The pre-update hook gives values before and after, for WITHOUT ROWID tables and INSERT OR REPLACE too")
    func preUpdateHook() throws {
        let connection = try Connection(path: ":memory:")
        var seen: [Database.PreUpdate] = []
        try connection.withDatabase { db in
            try db.execute("CREATE TABLE tag (name TEXT PRIMARY KEY, uses INTEGER) WITHOUT ROWID")
            try db.execute("CREATE TABLE photo (id INTEGER PRIMARY KEY, title TEXT)")
            db.preUpdateHook = { seen.append($0) }
            try db.execute("INSERT INTO tag VALUES ('sea', 1)")
            try db.execute("UPDATE tag SET uses = 2 WHERE name = 'sea'")
            try db.execute("INSERT INTO photo VALUES (1, 'a')")
            try db.execute("INSERT OR REPLACE INTO photo VALUES (1, 'b')")
        }
        #expect(seen.map(\.table) == ["tag", "tag", "photo", "photo", "photo"])
        #expect(seen[1].change == .update && seen[1].oldValues == ["sea", 1] && seen[1].newValues == ["sea", 2])
        // INSERT OR REPLACE: the old row's delete, then the insert.
        #expect(seen[3].change == .delete && seen[3].oldValues == [1, "a"] && seen[3].oldRowID == 1)
        #expect(seen[4].change == .insert && seen[4].newValues == [1, "b"] && seen[4].newRowID == 1)
    }

    @Test("With a transaction observer, DELETE without WHERE reports every row, and DROP TABLE still drops")
    func observerSeesTruncateAndDrop() throws {
        final class Counter: TransactionObserver {
            var observedTables: Set<String> = ["photo"]
            var deletes = 0
            var commits = 0
            func database(_ database: Database, willChange change: Database.PreUpdate) {
                if change.change == .delete { deletes += 1 }
            }
            func databaseDidCommit(_ database: Database) { commits += 1 }
            func databaseDidRollback(_ database: Database) {}
        }
        let connection = try Connection(path: ":memory:")
        let counter = Counter()
        try connection.withDatabase { db in
            try db.execute("CREATE TABLE photo (id INTEGER PRIMARY KEY, title TEXT)")
            db.add(transactionObserver: counter)
            for id in 1...50 { try db.execute("INSERT INTO photo VALUES (?, 't')", [.integer(Int64(id))]) }
            try db.execute("DELETE FROM photo")
            #expect(counter.deletes == 50)
            try db.execute("DROP TABLE photo")
            #expect(try db.rows("SELECT count(*) FROM sqlite_schema WHERE name = 'photo'") == [[0]])
        }
        #expect(counter.commits == 52)
    }

    @Test("Commit and rollback hooks fire once per transaction")
    func commitAndRollback() throws {
        let connection = try Connection(path: ":memory:")
        var events: [String] = []
        try connection.withDatabase { db in
            try db.execute("CREATE TABLE t (v)")
            db.commitHook = { events.append("commit") }
            db.rollbackHook = { events.append("rollback") }
        }
        try connection.write { db in try db.execute("INSERT INTO t VALUES (1)") }
        try? connection.write { db in
            try db.execute("INSERT INTO t VALUES (2)")
            throw SQLiteTransactionTests.Stop()
        }
        #expect(events == ["commit", "rollback"])
    }

    @Test("The authorizer sees the tables a statement reads, and can deny")
    func authorizer() throws {
        let connection = try Connection(path: ":memory:")
        try connection.withDatabase { db in
            try db.execute("CREATE TABLE photo (id INTEGER PRIMARY KEY, album TEXT)")
            try db.execute("CREATE TABLE secret (v)")
            var read = Set<String>()
            db.authorizer = { request in
                if request.action == 20, let table = request.first { read.insert(table) }   // SQLITE_READ
                return request.first != "secret"
            }
            _ = try db.prepare("SELECT id FROM photo WHERE album = 'x'")
            #expect(read == ["photo"])
        }
        #expect { try connection.withDatabase { db in _ = try db.prepare("SELECT v FROM secret") } } throws: { error in
            (error as? SQLiteError)?.code == 23   // SQLITE_AUTH
        }
    }

    @Test("data_version changes when another connection commits, not for our own")
    func dataVersion() throws {
        let file = try temporaryDirectory().appendingPathComponent("version.sqlite").path
        let ours = try Connection(path: file)
        let theirs = try Connection(path: file)
        try ours.write { db in try db.execute("CREATE TABLE t (v)") }
        let before = try ours.withDatabase { db in try db.dataVersion() }
        try ours.write { db in try db.execute("INSERT INTO t VALUES (1)") }
        #expect(try ours.withDatabase { db in try db.dataVersion() } == before)
        try theirs.write { db in try db.execute("INSERT INTO t VALUES (2)") }
        #expect(try ours.withDatabase { db in try db.dataVersion() } != before)
    }
}
