import Foundation
import Testing
import TesseraCommandKit
import TesseraSQLite
import TesseraRender
import TesseraTestTraits

/// `tessera bench diff`, end to end, on hostile change scripts and option
/// mistakes: the database is left as it was, every error is one line with
/// the status of its kind, and the figures mean what their names say.
@Suite("tessera bench diff: hostile scripts, interruptions, errors and figures", .tags(.process), .ownThreads)
struct BenchDiffHostileScriptTests {
    // MARK: Fixtures

    /// A database in rollback-journal mode (or WAL) in a new folder, with
    /// a `photo` table of five rows and a `note` table, closed.
    static func makeDatabase(wal: Bool = false) throws -> (folder: URL, path: String) {
        let folder = try Tool.temporaryFolder()
        let path = folder.appendingPathComponent("photos.sqlite").path
        let connection = try Connection(path: path, journalModeWAL: wal)
        try connection.write { db in
            try db.execute("CREATE TABLE photo (id INTEGER PRIMARY KEY, title TEXT, taken INTEGER UNIQUE)")
            try db.execute("CREATE TABLE note (id INTEGER PRIMARY KEY, text TEXT)")
            try db.execute("INSERT INTO note VALUES (1, 'kept')")
            for id in 1...5 { try db.execute("INSERT INTO photo VALUES (\(id), 't\(id)', \(id * 10))") }
        }
        return (folder, path)
    }

    /// Writes a script (raw bytes) next to the database.
    static func writeScript(_ bytes: [UInt8], in folder: URL, name: String = "change.sql") throws -> String {
        let path = folder.appendingPathComponent(name).path
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    static func writeScript(_ text: String, in folder: URL, name: String = "change.sql") throws -> String {
        try writeScript(Array(text.utf8), in: folder, name: name)
    }

    /// The arguments of a run over the fixture's `photo` table.
    static func arguments(_ path: String, script: String, _ extra: [String] = []) -> [String] {
        ["bench", "diff", "--database", path, "--table", "photo", "--sort", "id", "--script", script, "--runs", "1", "--json"] + extra
    }

    /// The files next to the database whose names start with its name
    /// (the database, and any -journal, -wal or -shm).
    static func companions(of path: String) -> [String] {
        let url = URL(fileURLWithPath: path)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: url.deletingLastPathComponent().path)) ?? []
        return names.filter { $0.hasPrefix(url.lastPathComponent) && $0 != url.lastPathComponent }.sorted()
    }

    /// Every row of the database's tables, read by a connection that may
    /// write (and so roll back a hot journal) or a read-only one.
    static func rows(_ path: String, readOnly: Bool = false) throws -> [[DatabaseValue]] {
        let connection = try Connection(path: path, mode: readOnly ? .readOnly : .readWrite, journalModeWAL: false)
        return try connection.withDatabase { db throws(SQLiteError) in
            try db.rows("SELECT 'photo', id, title, taken FROM photo UNION ALL SELECT 'note', id, text, NULL FROM note ORDER BY 1, 2")
        }
    }

    /// A standard error that is exactly one `tessera: error:` line.
    static func isOneLine(_ stderr: String) -> Bool {
        let lines = stderr.split(separator: "\n", omittingEmptySubsequences: false)
        return lines.count == 2 && lines[1].isEmpty && lines[0].hasPrefix("tessera: error: ")
    }

    /// Starts `tessera` with no signal blocked and every signal's default
    /// action, its standard output discarded and its standard error into a
    /// file.
    static func spawn(_ arguments: [String], stderr: String) throws -> pid_t {
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var empty = sigset_t(), all = sigset_t()
        sigemptyset(&empty)
        sigfillset(&all)
        posix_spawnattr_setsigmask(&attributes, &empty)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, stderr, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        closeInheritedDescriptors(&actions, from: 3)
        let executable = Tool.executable.path
        let argv: [UnsafeMutablePointer<CChar>?] = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var pid: pid_t = 0
        let code = posix_spawn(&pid, executable, &actions, &attributes, argv, environ)
        guard code == 0 else { throw ToolError("posix_spawn \(executable): \(String(cString: strerror(code)))") }
        return pid
    }

    // MARK: Hostile scripts

    /// Scripts that try to end the transaction, reach past it, or fail
    /// half way: each ends as expected, and the file is byte for byte what
    /// it was, with no journal left and the same rows for a read-only
    /// reader.
    @Test("hostile scripts leave the file byte for byte as it was", .startsEarly, arguments: [false, true])
    func hostileScripts(wal: Bool) throws {
        let cases: [(script: String, status: Int32, says: String)] = [
            ("COMMIT;", 1, "is forbidden: COMMIT"),
            ("END;", 1, "is forbidden: COMMIT"),
            ("ROLLBACK;", 1, "is forbidden: ROLLBACK"),
            ("BEGIN;", 1, "is forbidden: BEGIN"),
            ("DELETE FROM photo; COMMIT; DELETE FROM note;", 1, "statement 2"),
            ("SAVEPOINT a; DELETE FROM photo WHERE id = 1; RELEASE a;", 0, ""),
            ("SAVEPOINT a; DELETE FROM photo; ROLLBACK TO a; RELEASE a; DELETE FROM photo WHERE id = 2;", 0, ""),
            ("RELEASE a;", 1, "no such savepoint"),
            ("PRAGMA user_version = 7;", 1, "is forbidden: PRAGMA user_version"),
            ("PRAGMA journal_mode = WAL;", 1, "is forbidden: PRAGMA journal_mode"),
            ("PRAGMA main.page_size = 1024;", 1, "is forbidden"),
            ("PRAGMA writable_schema = 1;", 1, "is forbidden"),
            ("ATTACH 'other.sqlite' AS other;", 1, "is forbidden: ATTACH"),
            ("VACUUM;", 1, "cannot VACUUM from within a transaction"),
            ("VACUUM INTO 'copy.sqlite';", 1, "cannot VACUUM from within a transaction"),
            ("SELECT load_extension('x');", 1, "is forbidden: load_extension"),
            ("SELECT readfile('/etc/hostname');", 1, "no such function: readfile"),
            ("SELECT writefile('out.txt', 'x');", 1, "no such function: writefile"),
            ("DELETE FROM photo WHERE id = 1; INSERT OR ROLLBACK INTO photo VALUES (2, 'x', 0);", 1, "UNIQUE constraint failed"),
            ("INSERT INTO photo VALUES (9, 'x', 90) ON CONFLICT (id) DO NOTHING; UPDATE OR ROLLBACK photo SET taken = 10;", 1, "UNIQUE constraint failed"),
            ("CREATE TEMP TRIGGER t AFTER INSERT ON main.photo BEGIN SELECT RAISE(ROLLBACK, 'no'); END; INSERT INTO photo VALUES (9, 'x', 90);", 1, "failed: no"),
            ("CREATE TEMP TRIGGER t AFTER DELETE ON main.photo BEGIN DELETE FROM note; END; DELETE FROM photo WHERE id = 3;", 0, ""),
            ("CREATE TEMP TABLE photo (id INTEGER PRIMARY KEY); DELETE FROM main.photo WHERE id = 4;", 0, ""),
            ("DROP TABLE photo; CREATE TABLE photo (id INTEGER PRIMARY KEY, title TEXT, taken INTEGER);", 0, ""),
            ("SELECT * FROM photo; SELECT * FROM note; UPDATE photo SET title = 'y' WHERE id = 5;", 0, ""),
            ("bogus; DELETE FROM photo;", 1, "near \"bogus\": syntax error"),
            ("WITH RECURSIVE c(x) AS (SELECT 100 UNION ALL SELECT x + 1 FROM c WHERE x < 20000) INSERT INTO photo SELECT x, randomblob(600), x * 10 FROM c;", 0, ""),
        ]
        for (index, entry) in cases.enumerated() {
            let (folder, path) = try Self.makeDatabase(wal: wal)
            defer { try? FileManager.default.removeItem(at: folder) }
            let rowsBefore = try Self.rows(path)
            let before = try Data(contentsOf: URL(fileURLWithPath: path))
            let script = try Self.writeScript(entry.script, in: folder, name: "change\(index).sql")
            let result = try Tool.run(Self.arguments(path, script: script), in: folder)
            let label = "\(wal ? "WAL" : "rollback journal"): \(entry.script)"
            #expect(result.status == entry.status, "\(label): status \(result.status), \(result.stderr)")
            if entry.status != 0 {
                #expect(result.stderr.contains(entry.says), "\(label): \(result.stderr)")
                #expect(Self.isOneLine(result.stderr), "\(label): not one line: \(result.stderr)")
            }
            #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before, "\(label): the file's bytes changed")
            #expect(Self.companions(of: path).isEmpty, "\(label): left \(Self.companions(of: path))")
            #expect(try Self.rows(path) == rowsBefore, "\(label): a reader sees other rows")
            #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("copy.sqlite").path), "\(label): VACUUM INTO wrote a copy")
            #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("out.txt").path), "\(label): a file was written")
        }
    }

    // MARK: Bugs

    /// Interrupting the command (Ctrl-C, SIGTERM) while the script runs leaves the
    /// file changed: grown by the pages the script spilled, with a hot
    /// -journal next to it that a read-only reader cannot roll back. The
    /// command should stop the script (sqlite3_interrupt, as `watch` stops
    /// on SIGINT and SIGTERM), roll back, and end with a one-line error.
    @Test("Ctrl-C (SIGINT) during the script rolls back and leaves the file as it was")
    func interruptedScript() throws {
        let (folder, path) = try Self.makeDatabase()
        defer { try? FileManager.default.removeItem(at: folder) }
        let rowsBefore = try Self.rows(path)
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        // Inserts 24 MB of rows (more than the page cache holds, so pages
        // spill into the file), then counts without end.
        let script = try Self.writeScript("""
            WITH RECURSIVE c(x) AS (SELECT 100 UNION ALL SELECT x + 1 FROM c WHERE x < 40100) INSERT INTO photo SELECT x, randomblob(600), x * 10 FROM c;
            WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c;
            """, in: folder)
        // Started as a shell starts it: no signal blocked or ignored (the
        // test runner's threads block SIGINT and SIGTERM, and a child
        // inherits that).
        let errorPath = folder.appendingPathComponent("stderr.txt").path
        let pid = try Self.spawn(Self.arguments(path, script: script), stderr: errorPath)
        var status: Int32 = 0
        var exited = false
        func poll() { if !exited, waitpid(pid, &status, WNOHANG) == pid { exited = true } }
        defer { if !exited { kill(pid, SIGKILL); waitpid(pid, &status, 0) } }
        // Until the script has written into the file (a journal, and the
        // file grown), at most 120 s (a hang guard of the child process
        // only, its clock started with it).
        let deadline = Date().addingTimeInterval(120)
        func size() -> Int { ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int) ?? 0 }
        func writing() -> Bool { FileManager.default.fileExists(atPath: path + "-journal") && size() > before.count }
        while Date() < deadline, !exited, !writing() {
            usleep(20_000)
            poll()
        }
        #expect(!exited, "the endless script ended")
        try #require(writing(), "the script did not write into the file within 120 s")
        kill(pid, SIGINT)
        // A hang guard of the child's exit only.
        let exit = Date().addingTimeInterval(120)
        while !exited, Date() < exit {
            usleep(20_000)
            poll()
        }
        #expect(exited, "still running 120 s after SIGINT: killed")
        if !exited {
            kill(pid, SIGKILL)
            waitpid(pid, &status, 0)
            exited = true
        }
        let stderr = (try? String(contentsOfFile: errorPath, encoding: .utf8)) ?? ""
        // WIFEXITED: the low 7 bits are 0; the signal that ended it otherwise.
        let signal = status & 0x7F
        #expect(signal == 0 && Self.isOneLine(stderr), "ended by signal \(signal) instead of a one-line error: \(stderr)")
        #expect(Self.companions(of: path).isEmpty, "left \(Self.companions(of: path)) next to the database")
        #expect(size() == before.count, "the file is \(size()) bytes, was \(before.count)")
        // A reader that may not write (a backup job, a read-only mount)
        // cannot roll a hot journal back.
        var read: [[DatabaseValue]]?
        var failure = ""
        do { read = try Self.rows(path, readOnly: true) } catch { failure = "\(error)" }
        #expect(read == rowsBefore, "a read-only reader: \(failure)")
    }

    /// SQLite's messages may hold line breaks (a CHECK expression written
    /// over two lines, a RAISE message): the error is then two lines.
    /// The fix: fold white space in the message (in BenchDatabase.run, or
    /// once for every CommandError where `tessera` prints it).
    @Test("a failing statement's error is one line even when SQLite's message is not")
    func multilineMessages() throws {
        let scripts = [
            "CREATE TEMP TABLE t (x CHECK (x >\n 0));\nINSERT INTO t VALUES (-1);",
            "CREATE TEMP TRIGGER t AFTER INSERT ON main.photo BEGIN SELECT RAISE(ABORT, 'one\ntwo'); END;\nINSERT INTO photo VALUES (9, 'x', 90);",
        ]
        for script in scripts {
            let (folder, path) = try Self.makeDatabase()
            defer { try? FileManager.default.removeItem(at: folder) }
            let result = try Tool.run(Self.arguments(path, script: try Self.writeScript(script, in: folder)), in: folder)
            #expect(result.status == 1, "\(script): \(result.status)")
            #expect(Self.isOneLine(result.stderr), "\(script): not one line: \(result.stderr)")
        }
    }

    /// A NUL byte after the first statement is blamed on the first
    /// statement (`statement 1 (line 1: "SELECT 1") failed: … NUL …`),
    /// which does not hold it: SQLiteError.checkNoNUL runs over the whole
    /// script before any statement, with the whole script as the place.
    /// The fix: name the NUL's line (and no statement), as in
    /// `change.sql: line 2 holds a NUL character (byte 27)`.
    @Test("a NUL byte is not blamed on a statement that does not hold it")
    func nulByte() throws {
        let (folder, path) = try Self.makeDatabase()
        defer { try? FileManager.default.removeItem(at: folder) }
        let script = try Self.writeScript(Array("SELECT 1;\nDELETE FROM photo".utf8) + [0] + Array(";\n".utf8), in: folder)
        let result = try Tool.run(Self.arguments(path, script: script), in: folder)
        #expect(result.status == 1)
        #expect(result.stderr.contains("NUL"), "\(result.stderr)")
        #expect(Self.isOneLine(result.stderr), "\(result.stderr)")
        #expect(!result.stderr.contains("\"SELECT 1\""), "blames SELECT 1: \(result.stderr)")
    }

    /// The database is opened and the script run (under a write lock)
    /// before the other options are checked, so a usage mistake is hidden
    /// behind the script's error (status 1, not 64), or found only after
    /// the script's work. The fix: validate the options (BenchRun.validate
    /// without the input, the --sweep list, --html's folder) before
    /// BenchDatabase.snapshots().
    @Test("usage errors are reported before the script runs")
    func usageBeforeScript() throws {
        let (folder, path) = try Self.makeDatabase()
        defer { try? FileManager.default.removeItem(at: folder) }
        let bad = try Self.writeScript("bogus;", in: folder, name: "bad.sql")
        for extra in [["--runs", "0"], ["--sweep", "1x"], ["--swift-limit", "-1"], ["--scale", "0"]] {
            let arguments = ["bench", "diff", "--database", path, "--table", "photo", "--sort", "id", "--script", bad, "--json"] + extra
            let result = try Tool.run(arguments, in: folder)
            #expect(result.status == 64, "\(extra): status \(result.status): \(result.stderr)")
            #expect(result.stderr.contains(extra[0]), "\(extra): \(result.stderr)")
        }
    }

    /// With an even number of runs the "median" is the upper of the two
    /// middle times, so with --runs 2 it is the slower run, the same as the
    /// p90, for every method. The median of an even count is the mean of
    /// the two middle ones (`(sorted[n/2 - 1] + sorted[n/2]) / 2`).
    @Test("the median of two runs lies between them, below the p90")
    func medianOfTwoRuns() throws {
        let result = try Tool.run(["bench", "diff", "--count", "3000", "--runs", "2", "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        let json = try JSON.parse(result.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
        guard case let .array(results)? = json["results"] else {
            Issue.record("no results: \(result.stdout)")
            return
        }
        var pairs: [(median: Double, p90: Double)] = []
        for entry in results {
            if case let .number(median)? = entry["medianSeconds"], case let .number(p90)? = entry["p90Seconds"],
               let m = Double(median), let p = Double(p90) {
                pairs.append((m, p))
            }
        }
        #expect(pairs.count == results.count)
        // Two timings of the same work are almost never equal to the
        // nanosecond for all four methods; the mean of two unequal ones is
        // below the larger.
        #expect(pairs.contains { $0.median < $0.p90 }, "every median equals its p90: \(pairs)")
    }

    /// --swift-limit is compared with the old snapshot's item count only:
    /// an old snapshot of 1 item and a new one of many (a script that
    /// fills a table, a file pair that grows) runs Swift's O(n·d)
    /// difference at any size, which at 200,000 new rows takes hours. The
    /// fix: compare the larger of the two counts (old and new items) with
    /// the limit, in `prepare` and in the notices.
    @Test("--swift-limit applies to the new snapshot's size too")
    func swiftLimitCountsNewItems() throws {
        let old = BenchFileTests.document([("list", [("0", 0)])])
        let new = BenchFileTests.document([("list", (0..<500).map { ("\($0)", $0) })])
        let (result, json) = try BenchFileTests.run(old: old, new: new, ["--swift-limit", "100"])
        try #require(result.status == 0, "\(result.stderr)")
        let results = BenchFileTests.results(json)
        #expect(results[BenchFileTests.swift] == nil, "Swift's difference ran on 1 → 500 items above --swift-limit 100")
    }

    /// Edge cases of snapshot files that work: empty
    /// snapshots, one item swept up, and an id that a copy would repeat.
    @Test("empty snapshots, a one-item sweep, and a copy's id already in the files")
    func snapshotEdges() throws {
        let (empty, emptyJSON) = try BenchFileTests.run(old: "[]", new: "[]")
        #expect(empty.status == 0, "\(empty.stderr)")
        #expect(emptyJSON?["sizes"] == .array([.int(0)]))
        let one = BenchFileTests.document([("list", [("a", 1)])])
        let moved = BenchFileTests.document([("list", [("b", 2), ("a", 2)])])
        let (sweep, sweepJSON) = try BenchFileTests.run(old: one, new: moved, ["--sweep", "1,3,3,10"])
        #expect(sweep.status == 0, "\(sweep.stderr)")
        #expect(sweepJSON?["sizes"] == .array([.int(1), .int(3), .int(10)]))
        let tessera = BenchFileTests.results(sweepJSON)["Tessera diff(from:to:)"]
        #expect(tessera != nil)
        let clash = BenchFileTests.document([("list", [("a", 1), ("a#2", 1)])])
        let (collision, _) = try BenchFileTests.run(old: clash, new: clash, ["--sweep", "2,6"])
        #expect(collision.status == 64)
        #expect(collision.stderr == "tessera: error: --sweep: the id \"a#2\" of copy 2 of \"a\" is already an id in old.json → new.json\n")
    }

    /// --scale applies to --database as well (BenchRun.validate says "snapshot
    /// files or a database", and the run works), but its help says
    /// "Snapshots only".
    @Test("--scale's help says it applies to a database too")
    func scaleHelp() throws {
        let (folder, path) = try Self.makeDatabase()
        defer { try? FileManager.default.removeItem(at: folder) }
        let script = try Self.writeScript("DELETE FROM photo WHERE id = 2;", in: folder)
        let run = try Tool.run(Self.arguments(path, script: script, ["--scale", "3"]), in: folder)
        #expect(run.status == 0, "\(run.stderr)")
        let help = try Tool.run(["bench", "diff", "--help"])
        let scale = help.stdout.components(separatedBy: "--scale <N>").dropFirst().first?.components(separatedBy: "--database").first ?? ""
        #expect(!scale.contains("Snapshots only"), "--scale's help: \(scale)")
    }
}
