import Foundation
import Testing
import TesseraCommandKit
import TesseraSQLite
import TesseraRender
import TesseraTestTraits

/// `tessera watch` following commits made by another process (this test).
@Suite("tessera watch, end to end", .tags(.process), .ownThreads)
struct WatchTests {
    func makeDatabase() throws -> (folder: URL, path: String, writer: Connection) {
        let folder = try Tool.temporaryFolder()
        let path = folder.appendingPathComponent("photos.sqlite").path
        let writer = try Connection(path: path)
        try writer.write { db in
            try db.execute("CREATE TABLE photo (id INTEGER PRIMARY KEY, album TEXT NOT NULL, title TEXT, taken INTEGER)")
            try db.execute("CREATE TABLE note (id INTEGER PRIMARY KEY, text TEXT)")
            try db.execute("INSERT INTO photo VALUES (1, 'Paris', 'Seine', 10), (2, 'Rome', 'Forum', 20)")
        }
        return (folder, path, writer)
    }

    /// The counts of a JSON report line.
    func counts(_ line: String) throws -> [String: Int] {
        let json = try JSON.parse(line)
        guard case let .object(members)? = json["counts"] else { throw ToolError("no counts in \(line)") }
        var result: [String: Int] = [:]
        for (key, value) in members { if case let .number(text) = value { result[key] = Int(text) } }
        return result.filter { $0.value != 0 }
    }

    @Test("every commit of another process appears once, in order; other commits and rollbacks print nothing; Ctrl-C exits 0; the same with a change log on the table (tessera log install), which watch patches from", arguments: [false, true])
    func reportsEveryCommitOnceInOrder(changeLog: Bool) throws {
        let (folder, path, writer) = try makeDatabase()
        defer { try? FileManager.default.removeItem(at: folder) }
        if changeLog {
            let installed = try Tool.run(["log", "install", path, "--table", "photo", "--column", "album", "--column", "taken"])
            #expect(installed.status == 0, "\(installed.stderr)")
            #expect(installed.stdout == "\(path): installed the change log of photo (key id; logging album, taken; 0 entries, the last 0)\n")
        }
        let tool = try Tool.start(["watch", path, "--table", "photo", "--section", "album", "--sort", "taken desc", "--json"])
        defer { if tool.process.isRunning { tool.process.terminate() } }
        let fetched = try JSON.parse(try tool.waitForLines(1)[0])
        #expect(fetched["event"] == .string("fetched"))
        #expect(fetched["rows"] == .int(2))
        #expect(fetched["sections"] == .int(2))

        struct Commit { var sql: [String]; var counts: [String: Int]?; var rows: Int }
        let commits = [
            Commit(sql: ["INSERT INTO photo VALUES (3, 'Paris', 'Louvre', 30)"], counts: ["itemInserts": 1], rows: 3),
            Commit(sql: ["UPDATE photo SET title = 'Seine at night' WHERE id = 1"], counts: ["itemUpdates": 1], rows: 3),
            Commit(sql: ["UPDATE note SET text = 'unrelated' WHERE id = 1", "INSERT INTO note VALUES (1, 'elsewhere')"], counts: nil, rows: 3),
            Commit(sql: ["UPDATE photo SET taken = 40 WHERE id = 1"], counts: ["itemMoves": 1, "itemUpdates": 1], rows: 3),
            Commit(sql: ["DELETE FROM photo WHERE id = 2"], counts: ["sectionDeletes": 1], rows: 2),
            Commit(sql: ["INSERT INTO photo VALUES (4, 'Athens', 'Acropolis', 5)", "INSERT INTO photo VALUES (5, 'Athens', 'Agora', 6)"],
                   counts: ["sectionInserts": 1], rows: 4),
            Commit(sql: ["DELETE FROM photo WHERE id = 3", "INSERT INTO photo VALUES (6, 'Paris', 'Marais', 50)"],
                   counts: ["itemDeletes": 1, "itemInserts": 1], rows: 4),
        ]
        var expectedReports = 0
        for commit in commits {
            try writer.write { db in for sql in commit.sql { try db.execute(sql) } }
            guard let expected = commit.counts else {
                // Nothing the result shows changed: no report. The next
                // commit's report, checked to be the next one, is the
                // fence (a report of this one would come before it); the
                // pause keeps the two commits in polls of their own.
                usleep(500_000)
                #expect(try tool.waitForLines(1).count == 1 + expectedReports, "a commit that changes nothing in photo was reported")
                continue
            }
            expectedReports += 1
            let lines = try tool.waitForLines(1 + expectedReports)
            #expect(lines.count == 1 + expectedReports)
            let line = lines[expectedReports]
            let report = try JSON.parse(line)
            #expect(report["event"] == .string("change"))
            #expect(report["report"] == .int(expectedReports))
            #expect(report["rows"] == .int(commit.rows))
            #expect(try counts(line) == expected, "commit \(commit.sql): \(line)")
        }
        // A rolled-back transaction of the other process: nothing.
        do {
            try writer.write { db in
                try db.execute("DELETE FROM photo")
                throw ToolError("roll back")
            }
        } catch is ToolError {}
        // A fence rather than a pause: the next report is the next
        // commit's (a report of the rolled-back work would come before it).
        try writer.write { db in try db.execute("INSERT INTO photo VALUES (7, 'Athens', 'Stoa', 7)") }
        expectedReports += 1
        let fenced = try tool.waitForLines(1 + expectedReports)
        #expect(fenced.count == 1 + expectedReports, "the rolled-back transaction was reported: \(fenced)")
        #expect(try counts(fenced[expectedReports]) == ["itemInserts": 1], "the report after the rollback is not the next commit's: \(fenced[expectedReports])")

        tool.process.interrupt()
        #expect(try tool.process.exit(within: 300) == ChildExit(status: 0, signaled: false))
        let lines = tool.stdout(waitingForEOF: true).split(separator: "\n").map(String.init)
        #expect(lines.count == 1 + expectedReports, "\(lines)")
        #expect(lines.dropFirst().enumerated().allSatisfy { n, line in (try? JSON.parse(line))?["report"] == .int(n + 1) })
        #expect(tool.stderr(waitingForEOF: true).isEmpty)
    }

    @Test("a writer killed with SIGKILL mid-transaction: watch reports nothing for its work, and reports the next commit")
    func writerKilledMidTransaction() throws {
        let sqlite3 = "/usr/bin/sqlite3"
        try #require(FileManager.default.isExecutableFile(atPath: sqlite3), "the sqlite3 command is needed (.ci/run installs it)")
        let (folder, path, writer) = try makeDatabase()
        defer { try? FileManager.default.removeItem(at: folder) }
        let tool = try Tool.start(["watch", path, "--table", "photo", "--section", "album", "--sort", "taken desc", "--json"])
        defer { if tool.process.isRunning { tool.process.terminate() } }
        #expect(try JSON.parse(try tool.waitForLines(1)[0])["rows"] == .int(2))

        // Another process opens a transaction, deletes every photo and
        // writes enough rows to spill pages into the WAL, says so through a
        // file, and waits for more input that never comes.
        let marker = folder.appendingPathComponent("in-transaction").path
        let killed = Process()
        killed.executableURL = URL(fileURLWithPath: sqlite3)
        killed.arguments = [path]
        let input = Pipe()
        killed.standardInput = input
        killed.standardOutput = FileHandle.nullDevice
        try killed.run()
        defer { if killed.isRunning { kill(killed.processIdentifier, SIGKILL) } }
        input.fileHandleForWriting.write(Data("""
            PRAGMA cache_size = 10;
            BEGIN IMMEDIATE;
            DELETE FROM photo;
            WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n WHERE x < 20000)
              INSERT INTO photo SELECT 100 + x, 'Lost', hex(randomblob(64)), x FROM n;
            .shell touch '\(marker)'

            """.utf8))
        // A hang guard of the child writer only, its clock started with it.
        let deadline = Date().addingTimeInterval(120)
        while !FileManager.default.fileExists(atPath: marker) && Date() < deadline { usleep(10_000) }
        try #require(FileManager.default.fileExists(atPath: marker), "the writer did not reach the middle of its transaction within 120 s")
        // It really holds the write lock.
        let prober = try Connection(path: path, busyTimeout: 0)
        #expect(throws: SQLiteError.self) { try prober.write { _ in } }

        kill(killed.processIdentifier, SIGKILL)
        #expect(try killed.exit(within: 300).signaled)
        // Several polls later: nothing for the aborted work.
        usleep(600_000)
        #expect(try tool.waitForLines(1).count == 1, "watch reported the killed writer's uncommitted work")

        // The next commit (the lock is free again) is reported, and only it.
        try writer.write { db in try db.execute("INSERT INTO photo VALUES (3, 'Paris', 'Louvre', 30)") }
        let lines = try tool.waitForLines(2)
        #expect(try counts(lines[1]) == ["itemInserts": 1], "\(lines[1])")
        #expect(try JSON.parse(lines[1])["rows"] == .int(3))
        #expect(try writer.read { db in try db.rows("PRAGMA integrity_check")[0][0].string } == "ok")
        tool.process.interrupt()
        _ = try tool.process.exit(within: 300)
        #expect(tool.stdout(waitingForEOF: true).split(separator: "\n").count == 2)
    }

    @Test("human-readable reports with a layout show the animation plan")
    func humanReportWithPlan() throws {
        let (folder, path, writer) = try makeDatabase()
        defer { try? FileManager.default.removeItem(at: folder) }
        let tool = try Tool.start(["watch", path, "--table", "photo", "--sort", "taken", "--layout", "list", "--width", "320", "--height", "200"])
        defer { if tool.process.isRunning { tool.process.terminate() } }
        #expect(try tool.waitForLines(1)[0] == "watching photo in \(path): 1 section, 2 rows (Ctrl-C to stop)")
        try writer.write { db in try db.execute("INSERT INTO photo VALUES (3, 'Oslo', 'Fjord', 15)") }
        let lines = try tool.waitForLines(7)
        #expect(lines[1] == "report 1: 1 section, 3 rows")
        #expect(lines[2] == "  changeset: sections: 0 deleted, 0 inserted, 0 moved, 0 updated; items: 0 deleted, 1 inserted, 0 moved, 0 updated")
        #expect(lines[3] == "  update items, moveThenReload (1):")
        #expect(lines[4] == "    insert → [section 0, item 1]")
        // A 28-point header (the one section), then 44-point rows: Seine
        // stays, Fjord fades in below it, Forum slides down one row.
        #expect(lines[5].hasPrefix("  animation plan: 4 visible elements (1 insert, 1 shift, 2 unchanged)"))
        let plan = try tool.waitForLines(10)
        #expect(plan[6] == "    unchanged header NULL  [0, 0]   → [0, 0]    (0, 0, 320×28)")
        #expect(plan[7] == "    unchanged 1            [0, 0]   → [0, 0]    (0, 28, 320×44)")
        #expect(plan[8] == "    insert    3            –        → [0, 1]    (0, 72, 320×44)  alpha 0 → 1")
        #expect(plan[9] == "    shift     2            [0, 1]   → [0, 2]    (0, 72, 320×44) → (0, 116, 320×44)")
        tool.process.interrupt()
        #expect(try tool.process.exit(within: 300).succeeded)
        #expect(tool.stderr(waitingForEOF: true) == "tessera: stopped watching photo\n")
    }

    /// A predicate SQLite never finishes: it counts the rows of an endless
    /// recursive CTE (in constant memory, unlike `id IN (…)` over it).
    static let endlessPredicate = "(WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c) > 0"

    /// Waits until the process catches `signal` (it has installed its
    /// handler; Linux shows it in /proc), at most 120 s (a hang guard of
    /// the child process only).
    func waitUntilCatching(_ signal: Int32, _ tool: RunningTool) throws {
        let deadline = Date().addingTimeInterval(120)
        let bit = UInt64(1) << UInt64(signal - 1)
        while Date() < deadline && tool.process.isRunning {
            let status = (try? String(contentsOfFile: "/proc/\(tool.process.processIdentifier)/status", encoding: .utf8)) ?? ""
            if let line = status.split(separator: "\n").first(where: { $0.hasPrefix("SigCgt:") }),
               let mask = UInt64(line.dropFirst("SigCgt:".count).trimmingCharacters(in: .whitespaces), radix: 16),
               mask & bit != 0 {
                return
            }
            usleep(10_000)
        }
        throw ToolError("watch did not start catching signal \(signal) within 120 s: \(tool.stderr())")
    }

    /// Waits up to `timeout` seconds (a hang guard of the child process
    /// only) for the process to exit, and says how it ended; kills it
    /// (SIGKILL) and returns nil when it does not.
    func waitForExit(_ tool: RunningTool, timeout: Double) -> ChildExit? {
        try? tool.process.exit(within: timeout)
    }

    @Test("Ctrl-C and SIGTERM stop watch during a fetch that never ends: status 0, the usual message, nothing on standard output",
          arguments: [SIGINT, SIGTERM])
    func stopsDuringAnEndlessFetch(signal: Int32) throws {
        let (folder, path, _) = try makeDatabase()
        defer { try? FileManager.default.removeItem(at: folder) }
        let tool = try Tool.start(["watch", path, "--table", "photo", "--where", Self.endlessPredicate])
        defer { if tool.process.isRunning { kill(tool.process.processIdentifier, SIGKILL) } }
        try waitUntilCatching(signal, tool)
        usleep(300_000)
        #expect(tool.process.isRunning, "watch ended before the signal: \(tool.stderr())")
        // The fetch never ends by itself: that watch exits at all shows
        // the signal stopped it (no bound on the time it takes, which a
        // busy machine stretches).
        kill(tool.process.processIdentifier, signal)
        let exited = try #require(waitForExit(tool, timeout: 120), "watch was still running 120 s after signal \(signal)")
        #expect(exited == ChildExit(status: 0, signaled: false))
        #expect(tool.stdout(waitingForEOF: true) == "")
        #expect(tool.stderr(waitingForEOF: true) == "tessera: stopped watching photo\n")
    }

    @Test("Ctrl-C stops watch while another process holds the database locked, however long --busy-timeout is: before the first fetch and while polling",
          arguments: [false, true])
    func stopsWhileWaitingForALock(lockAfterStart: Bool) throws {
        let folder = try Tool.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("photos.sqlite").path
        // A rollback journal: a writer's EXCLUSIVE lock keeps readers out.
        let holder = try Connection(path: path, journalModeWAL: false)
        try holder.withDatabase { db in
            try db.execute("CREATE TABLE photo (id INTEGER PRIMARY KEY, album TEXT NOT NULL, title TEXT, taken INTEGER)")
            try db.execute("INSERT INTO photo VALUES (1, 'Paris', 'Seine', 10)")
        }
        func lock() throws { try holder.withDatabase { db in try db.execute("BEGIN EXCLUSIVE") } }
        defer { try? holder.withDatabase { db in if db.isInTransaction { try db.execute("ROLLBACK") } } }
        if !lockAfterStart { try lock() }
        // The longest busy timeout: only Ctrl-C ends the wait for the lock.
        let tool = try Tool.start(["watch", path, "--table", "photo", "--busy-timeout", "86400"])
        defer { if tool.process.isRunning { kill(tool.process.processIdentifier, SIGKILL) } }
        try waitUntilCatching(SIGINT, tool)
        if lockAfterStart {
            _ = try tool.waitForLines(1)
            try lock()
        }
        usleep(300_000)
        #expect(tool.process.isRunning, "watch ended before Ctrl-C: \(tool.stderr())")
        tool.process.interrupt()
        let exited = try #require(waitForExit(tool, timeout: 120), "watch was still running 120 s after Ctrl-C")
        #expect(exited.succeeded)
        #expect(tool.stderr(waitingForEOF: true) == "tessera: stopped watching photo\n")
    }

    @Test("with --json, a stop during the fetch prints nothing at all")
    func stopsDuringAnEndlessFetchQuietlyInJSON() throws {
        let (folder, path, _) = try makeDatabase()
        defer { try? FileManager.default.removeItem(at: folder) }
        let tool = try Tool.start(["watch", path, "--table", "photo", "--json", "--where", Self.endlessPredicate])
        defer { if tool.process.isRunning { kill(tool.process.processIdentifier, SIGKILL) } }
        try waitUntilCatching(SIGINT, tool)
        usleep(300_000)
        tool.process.interrupt()
        let exited = try #require(waitForExit(tool, timeout: 120), "watch was still running 120 s after Ctrl-C")
        #expect(exited.succeeded)
        #expect(tool.stdout(waitingForEOF: true) == "")
        #expect(tool.stderr(waitingForEOF: true) == "")
    }

    @Test("--where with -- and /* */ comments keeps the sort order: a re-dated photo moves", arguments: [
        "taken >= 0 -- every photo", "/* every photo */ taken >= 0", "title <> '-- not a comment; nor this' -- all of them",
    ])
    func whereWithComments(predicate: String) throws {
        let (folder, path, writer) = try makeDatabase()
        defer { try? FileManager.default.removeItem(at: folder) }
        let tool = try Tool.start(["watch", path, "--table", "photo", "--sort", "taken desc", "--where", predicate, "--json"])
        defer { if tool.process.isRunning { tool.process.terminate() } }
        let fetched = try JSON.parse(try tool.waitForLines(1)[0])
        #expect(fetched["rows"] == .int(2))
        // Photo 1 (taken 10) is last; re-dated to 40 it moves to the top,
        // which a result in rowid order would not show.
        try writer.write { db in try db.execute("UPDATE photo SET taken = 40 WHERE id = 1") }
        #expect(try counts(tool.waitForLines(2)[1]) == ["itemMoves": 1, "itemUpdates": 1])
        tool.process.interrupt()
        #expect(try tool.process.exit(within: 300).succeeded)
        #expect(tool.stderr(waitingForEOF: true).isEmpty)
    }

    @Test("--key rowid follows a table without an id column")
    func rowIDKey() throws {
        let (folder, path, writer) = try makeDatabase()
        defer { try? FileManager.default.removeItem(at: folder) }
        try writer.write { db in
            try db.execute("CREATE TABLE tag (name TEXT, weight INTEGER)")
            try db.execute("INSERT INTO tag VALUES ('beach', 3), ('city', 5)")
        }
        let tool = try Tool.start(["watch", path, "--table", "tag", "--key", "rowid", "--sort", "weight desc", "--json"])
        defer { if tool.process.isRunning { tool.process.terminate() } }
        let fetched = try JSON.parse(try tool.waitForLines(1)[0])
        #expect(fetched["event"] == .string("fetched"))
        #expect(fetched["rows"] == .int(2))
        try writer.write { db in try db.execute("INSERT INTO tag VALUES ('forest', 4)") }
        let report = try JSON.parse(try tool.waitForLines(2)[1])
        #expect(report["rows"] == .int(3))
        #expect(try counts(tool.waitForLines(2)[1]) == ["itemInserts": 1])
        tool.process.interrupt()
        #expect(try tool.process.exit(within: 300).succeeded)
        #expect(tool.stderr(waitingForEOF: true).isEmpty)
    }

    @Test("tessera log: install, show and remove a table's change log; errors name the file, the table or the column, with the exit status of their kind")
    func logCommand() throws {
        let (folder, path, writer) = try makeDatabase()
        defer { try? FileManager.default.removeItem(at: folder) }
        try writer.write { db in try db.execute("CREATE TABLE pair (a INTEGER, b INTEGER, PRIMARY KEY (a, b))") }
        #expect(try Tool.run(["log", "show", path, "--table", "photo"]).stdout == "\(path): photo has no change log\n")
        #expect(try Tool.run(["log", "install", path, "--table", "photo"]).status == 0)
        try writer.write { db in try db.execute("UPDATE photo SET taken = 11 WHERE id = 1") }
        #expect(try Tool.run(["log", "show", path, "--table", "PHOTO"]).stdout == "\(path): photo has a change log (key id; logging id, album, title, taken; 1 entry, the last 1)\n")
        // A unique index added since: the triggers no longer fit.
        try writer.write { db in try db.execute("CREATE UNIQUE INDEX photo_title ON photo (title)") }
        #expect(try Tool.run(["log", "show", path, "--table", "photo"]).stdout == "\(path): photo has a change log (key id; logging id, album, title, taken; 1 entry, the last 1); its triggers no longer fit the table: install it again\n")
        #expect(try Tool.run(["log", "remove", path, "--table", "photo"]).stdout == "\(path): removed the change log of photo\n")
        #expect(try Tool.run(["log", "remove", path, "--table", "photo"]).stdout == "\(path): photo had no change log\n")
        let failures: [([String], Int32, String)] = [
            (["log", "install", path, "--table", "nowhere"], 2, "\(path): no table named nowhere in the main database"),
            (["log", "show", path, "--table", "nowhere"], 2, "\(path): no table named nowhere in the main database"),
            (["log", "install", path, "--table", "pair"], 2, "\(path): table pair's primary key has 2 columns (a, b): a change log needs one"),
            (["log", "install", path, "--table", "photo", "--column", "colour"], 2, "\(path): table photo has no column colour to log"),
            (["log", "install", path, "--table", "photo", "--keep", "0"], 64, "--keep must be at least 1, not 0"),
            (["log", "install", folder.appendingPathComponent("missing.sqlite").path, "--table", "photo"], 2, "cannot open"),
        ]
        for (arguments, status, message) in failures {
            let result = try Tool.run(arguments)
            #expect(result.status == status, "\(arguments): \(result.stderr)")
            #expect(result.stderr.hasPrefix("tessera: error: "), "\(arguments)")
            #expect(result.stderr.contains(message), "\(arguments): \(result.stderr)")
            #expect(result.stdout.isEmpty)
        }
        let objects = try writer.withDatabase { db in try db.rows("SELECT name FROM sqlite_schema WHERE name LIKE 'tessera_log_%'").count }
        #expect(objects == 0, "a failed install left objects behind")
    }
}
