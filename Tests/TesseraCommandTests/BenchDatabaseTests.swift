import Foundation
import TesseraCommandKit
import TesseraDemoPhotos
import TesseraRender
import TesseraSQLite
import TesseraTestTraits
import Testing

/// `BenchDatabase`: the snapshots of a table before and after a change
/// script, and the database left as it was.
@Suite("bench diff --database: snapshots before and after a script, rolled back", .ownThreads)
struct BenchDatabaseTests {
    // MARK: Fixtures

    /// The seed of the random tests: `TESSERA_SEED` when set, to replay.
    static func seed(default value: UInt64) -> UInt64 {
        if let text = ProcessInfo.processInfo.environment["TESSERA_SEED"], let seed = UInt64(text) { return seed }
        return value
    }

    /// The shapes of table the tests run over: how the key is declared.
    enum Schema: String, CaseIterable, CustomStringConvertible {
        /// `id INTEGER PRIMARY KEY`: the row id.
        case integerPrimaryKey
        /// A primary key of two columns in a WITHOUT ROWID table.
        case compositeWithoutRowID
        /// No primary key: the row id is the key.
        case noPrimaryKey

        var description: String { rawValue }

        var create: String {
            switch self {
            case .integerPrimaryKey:
                "CREATE TABLE photo (id INTEGER PRIMARY KEY, album TEXT, title TEXT, taken INTEGER NOT NULL)"
            case .compositeWithoutRowID:
                "CREATE TABLE photo (kind TEXT NOT NULL, id INTEGER NOT NULL, album TEXT, title TEXT, taken INTEGER NOT NULL, PRIMARY KEY (kind, id)) WITHOUT ROWID"
            case .noPrimaryKey:
                "CREATE TABLE photo (id INTEGER, album TEXT, title TEXT, taken INTEGER NOT NULL)"
            }
        }

        /// The key as the oracle selects it.
        var keyExpressions: [String] {
            switch self {
            case .integerPrimaryKey: ["id"]
            case .compositeWithoutRowID: ["kind", "id"]
            case .noPrimaryKey: ["rowid"]
            }
        }

        /// An INSERT of a row.
        func insert(id: Int, album: String?, title: String, taken: Int) -> String {
            let album = album.map { "'\($0)'" } ?? "NULL"
            switch self {
            case .compositeWithoutRowID:
                return "INSERT INTO photo (kind, id, album, title, taken) VALUES ('k\(id % 3)', \(id), \(album), '\(title)', \(taken))"
            case .integerPrimaryKey, .noPrimaryKey:
                return "INSERT INTO photo (id, album, title, taken) VALUES (\(id), \(album), '\(title)', \(taken))"
            }
        }
    }

    static let albums: [String?] = ["A", "B", "C", "D", nil]

    /// A database in a new folder with a photo table of `rows` rows, closed
    /// (so that in WAL mode the file holds everything).
    static func makeDatabase(_ schema: Schema, rows: Int, wal: Bool = false, random: inout SplitMix64) throws -> (folder: URL, path: String) {
        let folder = try Tool.temporaryFolder()
        let path = folder.appendingPathComponent("photos.sqlite").path
        let connection = try Connection(path: path, journalModeWAL: wal)
        try connection.write { db in
            try db.execute(schema.create)
            try db.execute("CREATE TABLE note (id INTEGER PRIMARY KEY, text TEXT)")
            try db.execute("INSERT INTO note VALUES (1, 'kept')")
            for id in (0..<rows).map({ $0 + 1 }) {
                let album = albums[Int(random.next() % UInt64(albums.count))]
                try db.execute(schema.insert(id: id, album: album, title: "t\(random.next() % 20)", taken: Int(random.next() % 50)))
            }
        }
        return (folder, path)
    }

    /// A random script of inserts, updates (of the section, the sort key
    /// and other columns, one row or many) and deletes, with comments and
    /// blank lines between statements.
    static func randomScript(_ schema: Schema, rows: Int, statements: Int, random: inout SplitMix64) -> String {
        var nextID = rows + 1
        var lines: [String] = ["-- a random change"]
        func existing() -> Int { Int(random.next() % UInt64(max(nextID - 1, 1))) + 1 }
        for _ in 0..<statements {
            let album = albums[Int(random.next() % UInt64(albums.count))].map { "'\($0)'" } ?? "NULL"
            switch random.next() % 9 {
            case 0, 1:
                lines.append(schema.insert(id: nextID, album: albums[Int(random.next() % UInt64(albums.count))], title: "n\(random.next() % 20)", taken: Int(random.next() % 50)) + ";")
                nextID += 1
            case 2: lines.append("UPDATE photo SET album = \(album) WHERE id = \(existing());")
            case 3: lines.append("UPDATE photo SET taken = \(random.next() % 50) WHERE id = \(existing());")
            case 4: lines.append("UPDATE photo SET title = 'u\(random.next() % 20)' WHERE id = \(existing());")
            case 5: lines.append("DELETE FROM photo WHERE id = \(existing());")
            case 6: lines.append("/* many rows */ UPDATE photo\n  SET taken = taken + 1\n  WHERE album IS \(album);")
            case 7: lines.append("DELETE FROM photo WHERE taken % 13 = \(random.next() % 13);")
            default: lines.append("UPDATE note SET text = 'changed \(random.next() % 100)' WHERE id = 1; -- another table")
            }
            if random.next() % 4 == 0 { lines.append("") }
        }
        return lines.joined(separator: "\n")
    }

    /// Writes a script next to the database.
    static func writeScript(_ text: String, in folder: URL, name: String = "change.sql") throws -> String {
        let path = folder.appendingPathComponent(name).path
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    // MARK: The oracle

    /// SQLite's order of two values (BINARY collation): NULL, numbers,
    /// text by bytes, blobs by bytes.
    static func compare(_ a: DatabaseValue, _ b: DatabaseValue) -> Int {
        func rank(_ value: DatabaseValue) -> Int {
            switch value {
            case .null: 0
            case .integer, .real: 1
            case .text: 2
            case .blob: 3
            }
        }
        if rank(a) != rank(b) { return rank(a) < rank(b) ? -1 : 1 }
        switch (a, b) {
        case let (.text(x), .text(y)):
            let (p, q) = (Array(x.utf8), Array(y.utf8))
            return p == q ? 0 : (p.lexicographicallyPrecedes(q) ? -1 : 1)
        case let (.blob(p), .blob(q)):
            return p == q ? 0 : (p.lexicographicallyPrecedes(q) ? -1 : 1)
        case (.null, .null):
            return 0
        default:
            let (x, y) = (a.double ?? 0, b.double ?? 0)
            return x == y ? 0 : (x < y ? -1 : 1)
        }
    }

    /// The snapshot the table should give, computed in Swift from all its
    /// rows read in no order: sorted by `sort` (column, ascending) and the
    /// key, grouped by `section`.
    static func expectedSnapshot(
        _ connection: Connection, _ schema: Schema, sort: [(String, Bool)], section: String?
    ) throws -> SnapshotDocument.DocumentSnapshot {
        let keyCount = schema.keyExpressions.count
        var names: [String] = []
        let rows = try connection.withDatabase { db throws(SQLiteError) -> [[DatabaseValue]] in
            let statement = try db.prepare("SELECT \(schema.keyExpressions.joined(separator: ", ")), * FROM photo")
            names = (keyCount..<statement.columnCount).map(statement.columnName)
            var rows: [[DatabaseValue]] = []
            while try statement.step() { rows.append(statement.row) }
            return rows
        }
        func index(_ column: String) -> Int { keyCount + names.firstIndex(of: column)! }
        var order = sort.map { (index($0.0), $0.1) }
        if let section, order.first?.0 != index(section) { order.insert((index(section), true), at: 0) }
        let sorted = rows.sorted { a, b in
            for (column, ascending) in order {
                let c = compare(a[column], b[column])
                if c != 0 { return ascending ? c < 0 : c > 0 }
            }
            for k in 0..<keyCount {
                let c = compare(a[k], b[k])
                if c != 0 { return c < 0 }
            }
            return false
        }
        func json(_ value: DatabaseValue) -> JSON {
            switch value {
            case .null: return .null
            case let .integer(integer): return .number(String(integer))
            case let .text(text): return .string(text)
            default:
                Issue.record("unexpected value \(value)")
                return .null
            }
        }
        func text(_ value: DatabaseValue) -> String {
            switch value {
            case .null: "NULL"
            case let .integer(integer): String(integer)
            case let .text(text): text
            default: "?"
            }
        }
        var snapshot = SnapshotDocument.DocumentSnapshot()
        var current: DatabaseValue?
        var items: [DocumentItem] = []
        func close() {
            guard let current else { return }
            snapshot.appendSection(DocumentSection(id: text(current)), items: items)
            items = []
        }
        for row in sorted {
            if let section {
                let value = row[index(section)]
                if current != value {
                    close()
                    current = value
                }
            }
            let id = keyCount == 1 ? text(row[0]) : JSON.array(row[0..<keyCount].map(json)).compactText
            let content = JSON.object(names.enumerated().map { ($1, json(row[keyCount + $0])) })
            items.append(DocumentItem(id: id, content: content))
        }
        if section == nil {
            snapshot.appendSection(DocumentSection(id: "photo"), items: items)
        } else {
            close()
        }
        return snapshot
    }

    /// Whether two snapshots hold the same sections, with the same items.
    static func same(_ a: SnapshotDocument.DocumentSnapshot, _ b: SnapshotDocument.DocumentSnapshot) -> Bool {
        a.sections == b.sections && a.sections.indices.allSatisfy { Array(a.items(inSection: $0)) == Array(b.items(inSection: $0)) }
    }

    /// The sort and section options the oracle test tries.
    static let orders: [(sort: [String], section: String?)] = [
        (["taken desc"], "album"),
        (["title", "taken desc"], nil),
        (["album desc", "title"], "album"),
        ([], "album"),
        ([], nil),
    ]

    @Test("the snapshots equal the table, sorted and grouped in Swift, before the script and after it (applied to a copy of the database), for random scripts", arguments: Schema.allCases)
    func snapshotsEqualFreshReadsBeforeAndAfter(_ schema: Schema) throws {
        let seed = Self.seed(default: 0xBE_4C4D_B)
        var random = SplitMix64(seed: seed)
        for round in 0..<6 {
            let rows = 40 + Int(random.next() % 80)
            let (folder, path) = try Self.makeDatabase(schema, rows: rows, random: &random)
            defer { try? FileManager.default.removeItem(at: folder) }
            let script = Self.randomScript(schema, rows: rows, statements: 10 + Int(random.next() % 30), random: &random)
            let scriptPath = try Self.writeScript(script, in: folder)
            let copy = folder.appendingPathComponent("copy.sqlite").path
            try FileManager.default.copyItem(atPath: path, toPath: copy)
            let after = try Connection(path: copy, journalModeWAL: false)
            try after.withDatabase { db throws(SQLiteError) in try db.execute(script) }
            let before = try Connection(path: path, mode: .readOnly)
            for (sort, section) in Self.orders {
                let label = "seed \(seed), round \(round), \(schema), --sort \(sort) --section \(section ?? "none")"
                let input = try BenchDatabase(path: path, table: "photo", sort: sort, section: section, scriptPath: scriptPath).snapshots()
                let specs = sort.map { spec -> (String, Bool) in
                    let words = spec.split(separator: " ")
                    return (String(words[0]), words.count == 1 || words[1] == "asc")
                }
                let old = try Self.expectedSnapshot(before, schema, sort: specs, section: section)
                let new = try Self.expectedSnapshot(after, schema, sort: specs, section: section)
                #expect(Self.same(input.old, old), "\(label): the old snapshot is not the table before the script")
                #expect(Self.same(input.new, new), "\(label): the new snapshot is not the table after the script")
                #expect(!Self.same(old, new) || script.isEmpty, "\(label): the script changed nothing the test can see")
            }
        }
    }

    // MARK: The database is left unchanged

    /// Everything a run must leave as it was: the main file's bytes, every
    /// row of every table, and what a connection open across the run sees
    /// of commits (`PRAGMA data_version`).
    struct Witness {
        var path: String
        var bytes: Data
        var rows: [String: [[DatabaseValue]]]
        var watcher: Connection
        var dataVersion: Int64

        init(path: String) throws {
            self.path = path
            watcher = try Connection(path: path, journalModeWAL: false)
            dataVersion = try watcher.withDatabase { db throws(SQLiteError) in try db.dataVersion() }
            rows = try Self.dump(watcher)
            bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        }

        static func dump(_ connection: Connection) throws -> [String: [[DatabaseValue]]] {
            try connection.withDatabase { db throws(SQLiteError) in
                var tables: [String: [[DatabaseValue]]] = [:]
                for row in try db.rows("SELECT name, sql FROM sqlite_master ORDER BY name") {
                    tables["schema " + (row[0].string ?? "")] = [row]
                }
                for name in try db.rows("SELECT name FROM sqlite_master WHERE type = 'table'").compactMap({ $0[0].string }) {
                    tables[name] = try db.rows("SELECT * FROM \"\(name)\" ORDER BY 1, 2")
                }
                return tables
            }
        }

        /// Checks that nothing changed, `label` naming the case.
        func check(_ label: String) throws {
            let version = try watcher.withDatabase { db throws(SQLiteError) in try db.dataVersion() }
            #expect(version == dataVersion, "\(label): a connection open across the run saw a commit (data_version \(dataVersion) → \(version))")
            #expect(try Self.dump(watcher) == rows, "\(label): the rows changed")
            #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == bytes, "\(label): the database file's bytes changed")
            #expect(!FileManager.default.fileExists(atPath: path + "-journal"), "\(label): a rollback journal was left behind")
        }
    }

    /// Scripts, and the error each gives (`nil`: it succeeds).
    static let scripts: [(name: String, sql: String, error: String?)] = [
        ("a script that succeeds", """
            INSERT INTO photo (id, album, title, taken) VALUES (900, 'Z', 'new', 1);
            UPDATE photo SET title = 'changed' WHERE id = 1;
            DELETE FROM photo WHERE id = 2;
            UPDATE note SET text = 'changed';
            CREATE TABLE scratch (x); INSERT INTO scratch VALUES (1);
            SAVEPOINT inner; DELETE FROM photo WHERE id = 3; ROLLBACK TO inner; RELEASE inner;
            PRAGMA table_info(photo);
            """, nil),
        ("a script larger than the page cache", """
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 15000)
            INSERT INTO photo (album, title, taken) SELECT 'Z', hex(randomblob(150)), i FROM n;
            UPDATE photo SET title = title || 'x';
            """, nil),
        ("a script whose third statement fails", """
            INSERT INTO photo (id, album, title, taken) VALUES (900, 'Z', 'new', 1);
            UPDATE photo SET title = 'changed' WHERE id = 1;
            UPDATE photo SET titel = 'typo' WHERE id = 2;
            DELETE FROM photo;
            """, "change.sql: statement 3 (line 3: \"UPDATE photo SET titel = 'typo' WHERE id = 2\") failed: no such column: titel"),
        ("a COMMIT in the middle of a script", """
            INSERT INTO photo (id, album, title, taken) VALUES (900, 'Z', 'new', 1);
            UPDATE note SET text = 'committed?';
            COMMIT;
            DELETE FROM photo;
            """, "change.sql: statement 3 (line 3: \"COMMIT\") is forbidden: COMMIT would end the transaction: the script runs inside a transaction that is rolled back, so that the database stays unchanged (use SAVEPOINT, ROLLBACK TO and RELEASE)"),
        ("a statement SQLite rolls the transaction back for", """
            DELETE FROM photo WHERE id > 10;
            INSERT OR ROLLBACK INTO photo (id, album, title, taken) VALUES (1, 'Z', 'again', 1);
            """, "change.sql: statement 2 (line 2: \"INSERT OR ROLLBACK INTO photo (id, album, title, taken) VAL…\") failed: UNIQUE constraint failed: photo.id"),
        ("an ATTACH", "DELETE FROM photo;\nATTACH 'other.sqlite' AS other;",
         "change.sql: statement 2 (line 2: \"ATTACH 'other.sqlite' AS other\") is forbidden: ATTACH would reach another database: the script runs inside a transaction that is rolled back, so that the database stays unchanged"),
        ("a pragma that writes", "DELETE FROM photo;\nPRAGMA journal_mode = MEMORY;",
         "change.sql: statement 2 (line 2: \"PRAGMA journal_mode = MEMORY\") is forbidden: PRAGMA journal_mode = MEMORY: only pragmas that read are allowed (the script runs inside a transaction that is rolled back, so that the database stays unchanged)"),
        ("a checkpoint", "DELETE FROM photo;\nPRAGMA wal_checkpoint(TRUNCATE);",
         "change.sql: statement 2 (line 2: \"PRAGMA wal_checkpoint(TRUNCATE)\") is forbidden: PRAGMA wal_checkpoint = TRUNCATE: only pragmas that read are allowed (the script runs inside a transaction that is rolled back, so that the database stays unchanged)"),
        ("a VACUUM", "DELETE FROM photo;\n\n  VACUUM;", "change.sql: statement 2 (line 3: \"VACUUM\") failed: cannot VACUUM from within a transaction"),
    ]

    @Test("the database is unchanged after a run, in WAL and rollback-journal modes: the main file's bytes, every row, and data_version for a connection open across it; also after a failing or forbidden statement", arguments: [false, true])
    func databaseIsUnchanged(wal: Bool) throws {
        var random = SplitMix64(seed: 19)
        for schema in [Schema.integerPrimaryKey, .noPrimaryKey] {
            // Without a primary key, the INSERT OR ROLLBACK meets no conflict.
            for (name, sql, expectedError) in Self.scripts where schema == .integerPrimaryKey || !sql.contains("OR ROLLBACK") {
                let label = "\(wal ? "WAL" : "rollback journal"), \(schema), \(name)"
                let (folder, path) = try Self.makeDatabase(schema, rows: 60, wal: wal, random: &random)
                defer { try? FileManager.default.removeItem(at: folder) }
                let scriptPath = try Self.writeScript(sql, in: folder)
                let witness = try Witness(path: path)
                let run = BenchDatabase(path: path, table: "photo", sort: ["taken desc"], section: "album", scriptPath: scriptPath)
                do {
                    let input = try run.snapshots()
                    #expect(expectedError == nil, "\(label): succeeded")
                    #expect(input.old.allItems.count == 60, "\(label)")
                    #expect(input.new.allItems != input.old.allItems, "\(label): the script changed nothing")
                } catch {
                    #expect(error.message == expectedError.map { folder.path + "/" + $0 }, "\(label)")
                    #expect(error.exitCode == 1, "\(label)")
                }
                try witness.check(label)
            }
        }
    }

    @Test("another writer holding the database: the run fails after the busy timeout, with status 3, and leaves the database unchanged", arguments: [false, true])
    func busyDatabaseFailsAfterTheTimeout(wal: Bool) throws {
        var random = SplitMix64(seed: 7)
        let (folder, path) = try Self.makeDatabase(.integerPrimaryKey, rows: 10, wal: wal, random: &random)
        defer { try? FileManager.default.removeItem(at: folder) }
        let scriptPath = try Self.writeScript("DELETE FROM photo;", in: folder)
        let witness = try Witness(path: path)
        let holder = try Connection(path: path, journalModeWAL: false)
        try holder.withDatabase { db throws(SQLiteError) in try db.execute("BEGIN IMMEDIATE; UPDATE note SET text = 'held'") }
        var run = BenchDatabase(path: path, table: "photo", sort: [], section: nil, scriptPath: scriptPath)
        run.busyTimeout = 0.2
        let error = #expect(throws: CommandError.self) { try run.snapshots() }
        #expect(error?.message == "\(path): the database is locked by another process (waited 0.2 s; try again when it commits)")
        #expect(error?.exitCode == 3)
        try holder.withDatabase { db throws(SQLiteError) in try db.execute("ROLLBACK") }
        try witness.check(wal ? "WAL" : "rollback journal")
        #expect(throws: Never.self) { try run.snapshots() }
    }

    // MARK: Errors

    /// A database with the photo table, a view and a table whose key has
    /// NULLs, and the folder it is in.
    static func errorFixture() throws -> (folder: URL, path: String) {
        var random = SplitMix64(seed: 3)
        let (folder, path) = try makeDatabase(.integerPrimaryKey, rows: 5, random: &random)
        let connection = try Connection(path: path, journalModeWAL: false)
        try connection.withDatabase { db throws(SQLiteError) in
            try db.execute("""
                CREATE VIEW recent AS SELECT * FROM photo WHERE taken > 10;
                CREATE TABLE tag (name TEXT PRIMARY KEY, weight REAL);
                INSERT INTO tag VALUES (NULL, 1), (NULL, 2);
                CREATE TABLE hidden (rowid, oid, _rowid_);
                """)
        }
        return (folder, path)
    }

    @Test("each error is one line that names the culprit, with the exit status of its kind, and leaves the database unchanged")
    func errorsNameTheCulprit() throws {
        let (folder, path) = try Self.errorFixture()
        defer { try? FileManager.default.removeItem(at: folder) }
        let script = try Self.writeScript("UPDATE photo SET title = 'x';", in: folder)
        let folderPath = folder.path
        let long = "UPDATE photo SET title = 'a rather long title that goes on and on' WHERE id IN (1, 2, 3)"
        let cases: [(label: String, run: BenchDatabase, message: String, status: Int32)] = [
            ("missing file", BenchDatabase(path: "\(folderPath)/nope.sqlite", table: "photo", sort: [], section: nil, scriptPath: script),
             "\(folderPath)/nope.sqlite: no such database file", 2),
            ("not a database", BenchDatabase(path: script, table: "photo", sort: [], section: nil, scriptPath: script),
             "\(script): not an SQLite database", 2),
            ("missing table", BenchDatabase(path: path, table: "nope", sort: [], section: nil, scriptPath: script),
             "no such table: nope in \(path) (it has: hidden, note, photo, recent, tag)", 2),
            ("a view", BenchDatabase(path: path, table: "recent", sort: [], section: nil, scriptPath: script),
             "--table recent: a view has no primary key to identify its rows by; bench the table it reads", 2),
            ("every row id name hidden", BenchDatabase(path: path, table: "hidden", sort: [], section: nil, scriptPath: script),
             "--table hidden: it has no primary key, and columns named rowid, _rowid_ and oid hide its row id", 2),
            ("keys that repeat", BenchDatabase(path: path, table: "tag", sort: [], section: nil, scriptPath: script),
             "\(path): table tag has two rows with the key NULL (a key of NULL, or values of different types that read the same)", 2),
            ("unknown sort column", BenchDatabase(path: path, table: "photo", sort: ["taken", "nope desc"], section: nil, scriptPath: script),
             "--sort: no such column: nope in table photo (its columns: id, album, title, taken)", 2),
            ("unknown section column", BenchDatabase(path: path, table: "photo", sort: [], section: "nope", scriptPath: script),
             "--section: no such column: nope in table photo (its columns: id, album, title, taken)", 2),
            ("bad sort order", BenchDatabase(path: path, table: "photo", sort: ["taken sideways"], section: nil, scriptPath: script),
             "--sort \"taken sideways\": the order must be asc or desc, not sideways", 64),
            ("missing script", BenchDatabase(path: path, table: "photo", sort: [], section: nil, scriptPath: "\(folderPath)/nope.sql"),
             "\(folderPath)/nope.sql: no such file", 1),
            ("script is a folder", BenchDatabase(path: path, table: "photo", sort: [], section: nil, scriptPath: folderPath),
             "\(folderPath): is a directory, not a file", 1),
            ("empty script", BenchDatabase(path: path, table: "photo", sort: [], section: nil, scriptPath: try Self.writeScript("", in: folder, name: "empty.sql")),
             "\(folderPath)/empty.sql: the file is empty", 1),
            ("script of comments", BenchDatabase(path: path, table: "photo", sort: [], section: nil,
                                                 scriptPath: try Self.writeScript("-- nothing\n/* at all */ ;\n", in: folder, name: "comments.sql")),
             "\(folderPath)/comments.sql: holds no SQL statement (only white space and comments)", 1),
            ("syntax error", BenchDatabase(path: path, table: "photo", sort: [], section: nil,
                                           scriptPath: try Self.writeScript("DELETE FROM note;\n-- then\n  UPDATE photo SETT title = 1;\nDELETE FROM photo;", in: folder, name: "syntax.sql")),
             "\(folderPath)/syntax.sql: statement 2 (line 3: \"UPDATE photo SETT title = 1\") failed: near \"SETT\": syntax error", 1),
            ("long statement", BenchDatabase(path: path, table: "photo", sort: [], section: nil,
                                             scriptPath: try Self.writeScript("\(long);\nINSERT INTO photo (id) VALUES (NULL, 2);", in: folder, name: "long.sql")),
             "\(folderPath)/long.sql: statement 2 (line 2: \"INSERT INTO photo (id) VALUES (NULL, 2)\") failed: 2 values for 1 columns", 1),
            ("long failing statement", BenchDatabase(path: path, table: "photo", sort: [], section: nil,
                                                     scriptPath: try Self.writeScript(long.replacingOccurrences(of: "title", with: "titel"), in: folder, name: "long2.sql")),
             "\(folderPath)/long2.sql: statement 1 (line 1: \"UPDATE photo SET titel = 'a rather long titel that goes on …\") failed: no such column: titel", 1),
            ("BEGIN", BenchDatabase(path: path, table: "photo", sort: [], section: nil, scriptPath: try Self.writeScript("BEGIN;", in: folder, name: "begin.sql")),
             "\(folderPath)/begin.sql: statement 1 (line 1: \"BEGIN\") is forbidden: BEGIN: the script runs inside a transaction that is rolled back, so that the database stays unchanged (use SAVEPOINT)", 1),
            ("END", BenchDatabase(path: path, table: "photo", sort: [], section: nil, scriptPath: try Self.writeScript("DELETE FROM photo; END", in: folder, name: "end.sql")),
             "\(folderPath)/end.sql: statement 2 (line 1: \"END\") is forbidden: COMMIT would end the transaction: the script runs inside a transaction that is rolled back, so that the database stays unchanged (use SAVEPOINT, ROLLBACK TO and RELEASE)", 1),
            ("ROLLBACK", BenchDatabase(path: path, table: "photo", sort: [], section: nil, scriptPath: try Self.writeScript("DELETE FROM photo;\nROLLBACK;", in: folder, name: "rollback.sql")),
             "\(folderPath)/rollback.sql: statement 2 (line 2: \"ROLLBACK\") is forbidden: ROLLBACK would end the transaction: the script runs inside a transaction that is rolled back, so that the database stays unchanged (use SAVEPOINT, ROLLBACK TO and RELEASE)", 1),
            ("DETACH", BenchDatabase(path: path, table: "photo", sort: [], section: nil, scriptPath: try Self.writeScript("DETACH main;", in: folder, name: "detach.sql")),
             "\(folderPath)/detach.sql: statement 1 (line 1: \"DETACH main\") is forbidden: DETACH: the script runs inside a transaction that is rolled back, so that the database stays unchanged, with no other database", 1),
            ("user_version", BenchDatabase(path: path, table: "photo", sort: [], section: nil, scriptPath: try Self.writeScript("PRAGMA user_version = 3;", in: folder, name: "version.sql")),
             "\(folderPath)/version.sql: statement 1 (line 1: \"PRAGMA user_version = 3\") is forbidden: PRAGMA user_version = 3: only pragmas that read are allowed (the script runs inside a transaction that is rolled back, so that the database stays unchanged)", 1),
            ("load_extension", BenchDatabase(path: path, table: "photo", sort: [], section: nil, scriptPath: try Self.writeScript("SELECT load_extension('x');", in: folder, name: "extension.sql")),
             "\(folderPath)/extension.sql: statement 1 (line 1: \"SELECT load_extension('x')\") is forbidden: load_extension(): the script runs inside a transaction that is rolled back, so that the database stays unchanged", 1),
            ("the script drops the table", BenchDatabase(path: path, table: "photo", sort: [], section: nil, scriptPath: try Self.writeScript("DROP TABLE photo;", in: folder, name: "drop.sql")),
             "after \(folderPath)/drop.sql, no such table: photo in \(path) (it has: hidden, note, recent, tag)", 2),
        ]
        let witness = try Witness(path: path)
        for (label, run, message, status) in cases {
            let error = #expect(throws: CommandError.self, "\(label)") { try run.snapshots() }
            #expect(error?.message == message, "\(label)")
            #expect(error?.exitCode == status, "\(label)")
            #expect(error?.message.contains("\n") == false, "\(label): more than one line")
        }
        try witness.check("errors")
    }

    @Test("pragmas that read and savepoints are allowed in a script; a temporary table of the same name does not hide the table; a sort on the row id works; NULL sections are their own")
    func allowedStatementsAndRowIDSorts() throws {
        let (folder, path) = try Self.errorFixture()
        defer { try? FileManager.default.removeItem(at: folder) }
        let script = try Self.writeScript("""
            PRAGMA table_info(photo); PRAGMA data_version; PRAGMA user_version; PRAGMA main.schema_version;
            SELECT * FROM pragma_index_list('photo');
            SAVEPOINT a; UPDATE photo SET album = NULL WHERE id = 1; RELEASE a;
            SAVEPOINT b; DELETE FROM photo; ROLLBACK TO b; RELEASE b;
            CREATE TEMP TABLE photo (x); INSERT INTO temp.photo VALUES (1);
            """, in: folder)
        let input = try BenchDatabase(path: path, table: "photo", sort: ["rowid desc"], section: "album", scriptPath: script).snapshots()
        #expect(input.new.allItems.count == 5)
        #expect(input.new.sections.first?.id == "NULL")
        #expect(input.new.items(inSection: 0).contains { $0.id == "1" })
        for section in input.new.sections.indices {
            let ids = input.new.items(inSection: section).map { Int($0.id)! }
            #expect(ids == ids.sorted(by: >), "rowid desc within \(input.new.sections[section].id)")
        }
        #expect(input.label == "photo in \(path), before and after \(script)")
    }
}
