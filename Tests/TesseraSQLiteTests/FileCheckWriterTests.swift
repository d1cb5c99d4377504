import CSQLite
import Foundation
import Testing
import TesseraSQLite
import TesseraTestSupport
import TesseraTestTraits

/// `Connection.checkFileIsDatabase()` while another connection writes the
/// file: a checkpoint (WAL mode) or a commit (rollback mode) writes the
/// header, which names the new page count, before the pages that extend
/// the file, so for a moment a sound file is shorter than its header says.
/// The tests stop another connection at that moment, deterministically:
/// it holds the lock it would write under (the WAL's checkpoint lock, or
/// an exclusive lock), and the file is cut where the pages not yet written
/// would start; then the pages are written back and the lock let go.
@Suite("The file check and another connection writing the file", .ownThreads)
struct FileCheckWriterTests {
    /// A database file of about 90 pages, all in the main file, and a
    /// connection to it.
    static func makeDatabase(wal: Bool) throws -> (path: String, connection: Connection) {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("tessera-filecheck-\(UUID().uuidString).sqlite").path
        let connection = try Connection(path: path, busyTimeout: 0.2, journalModeWAL: wal)
        try connection.write { db in
            try db.execute("CREATE TABLE photo (id INTEGER PRIMARY KEY, title TEXT)")
            try db.execute("WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n WHERE x < 20000) INSERT INTO photo SELECT x, 'photo ' || x FROM n")
        }
        if wal { try connection.withDatabase { db in _ = try db.rows("PRAGMA wal_checkpoint(TRUNCATE)") } }
        return (path, connection)
    }

    static func removeFiles(_ path: String) {
        for suffix in ["", "-wal", "-shm", "-journal"] { try? FileManager.default.removeItem(atPath: path + suffix) }
    }

    /// Another connection, through SQLite's C API: the writer.
    final class OtherConnection {
        let handle: OpaquePointer

        init(path: String) throws {
            var handle: OpaquePointer?
            guard sqlite3_open_v2(path, &handle, SQLITE_OPEN_READWRITE, nil) == SQLITE_OK, let handle else {
                throw SQLiteError(code: SQLITE_CANTOPEN, message: "cannot open \(path)")
            }
            self.handle = handle
            // A read maps the WAL index (in WAL mode).
            try run("SELECT count(*) FROM photo")
        }

        deinit { sqlite3_close_v2(handle) }

        func run(_ sql: String) throws {
            let code = sqlite3_exec(handle, sql, nil, nil, nil)
            guard code == SQLITE_OK else { throw SQLiteError(code: code, message: "\(sql): \(String(cString: sqlite3_errmsg(handle)))") }
        }

        /// Takes or lets go of the WAL's checkpoint lock (`WAL_CKPT_LOCK`,
        /// slot 1), as a checkpoint does.
        func checkpointLock(_ take: Bool) throws {
            var pointer: UnsafeMutableRawPointer?
            guard sqlite3_file_control(handle, "main", SQLITE_FCNTL_FILE_POINTER, &pointer) == SQLITE_OK,
                  let file = pointer?.assumingMemoryBound(to: sqlite3_file.self), let lock = file.pointee.pMethods?.pointee.xShmLock
            else { throw SQLiteError(code: SQLITE_ERROR, message: "no file handle") }
            let code = lock(file, 1, 1, (take ? SQLITE_SHM_LOCK : SQLITE_SHM_UNLOCK) | SQLITE_SHM_EXCLUSIVE)
            guard code == SQLITE_OK else { throw SQLiteError(code: code, message: "the checkpoint lock") }
        }
    }

    /// Cuts the file after `pages` pages, `minimumCut` pages or more cut
    /// off (the file's length is a whole number of pages), and returns what
    /// it cut.
    static func cut(_ path: String, after pages: Int, cuttingAtLeast minimumCut: Int = 2) throws -> (offset: UInt64, tail: Data) {
        let handle = try #require(FileHandle(forUpdatingAtPath: path))
        defer { try? handle.close() }
        let offset = UInt64(pages * 4096)
        try handle.seek(toOffset: offset)
        let tail = try handle.readToEnd() ?? Data()
        try #require(tail.count >= minimumCut * 4096, "the file holds \(minimumCut) pages or more after its first \(pages)")
        try handle.truncate(atOffset: offset)
        return (offset, tail)
    }

    /// Writes back what ``cut(_:after:)`` cut: the writer's pages land.
    static func writeBack(_ path: String, _ cut: (offset: UInt64, tail: Data)) throws {
        let handle = try #require(FileHandle(forUpdatingAtPath: path))
        defer { try? handle.close() }
        try handle.seek(toOffset: cut.offset)
        try handle.write(contentsOf: cut.tail)
    }

    static func check(_ connection: Connection) throws(SQLiteError) {
        try connection.withDatabase { _ throws(SQLiteError) in try connection.checkFileIsDatabase() }
    }

    /// The error ``check(_:)`` throws for `connection`, or nil when the
    /// file passes.
    static func checkError(_ connection: Connection) -> SQLiteError? {
        do {
            try check(connection)
            return nil
        } catch {
            return error
        }
    }

    @Test("WAL mode: a checkpoint of another connection, its header written and not its last pages, is no damage; the same file cut short with no checkpoint under way is", arguments: [1, 32, 60])
    func checkpointUnderWay(pagesWritten: Int) throws {
        let (path, connection) = try Self.makeDatabase(wal: true)
        defer { Self.removeFiles(path) }
        let other = try OtherConnection(path: path)
        try Self.check(connection)

        try other.checkpointLock(true)
        let cut = try Self.cut(path, after: pagesWritten)
        var falseAlarm: SQLiteError?
        for _ in 0..<3 {
            do { try Self.check(connection) } catch { falseAlarm = error }
        }
        try Self.writeBack(path, cut)
        try other.checkpointLock(false)
        #expect(falseAlarm == nil, "a checkpoint under way was taken for damage: \(falseAlarm.map { "\($0)" } ?? "")")
        try Self.check(connection)

        // No checkpoint under way: the same cut is damage.
        let damage = try Self.cut(path, after: pagesWritten)
        let caught = Self.checkError(connection)
        try Self.writeBack(path, damage)
        #expect(caught?.code == SQLITE_CORRUPT, "a file cut short with no checkpoint under way: \(caught.map { "\($0)" } ?? "no error")")
        #expect(caught.map { "\($0)".contains("cut short") } ?? false)
        try Self.check(connection)
        #expect(try connection.read { db in try db.rows("SELECT count(*) FROM photo").first?.first?.int64 } == 20_000)
    }

    /// Commits rows after the last of `makeDatabase`'s until the database
    /// has one more page (its header naming it), and returns the last id.
    static func addPage(_ connection: Connection) throws -> Int64 {
        try connection.write { db in
            let pages = try db.rows("PRAGMA page_count").first?.first?.int64 ?? 0
            var id: Int64 = 20_000
            while try db.rows("PRAGMA page_count").first?.first?.int64 ?? 0 == pages {
                id += 1
                try db.execute("INSERT INTO photo VALUES (\(id), 'photo \(id)')")
            }
            return id
        }
    }

    /// The main file's size and the page count its header names.
    static func fileAndHeaderPages(_ path: String) throws -> (file: Int, header: Int) {
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        let header = data.prefix(32).suffix(4).reduce(0) { $0 << 8 | Int($1) }
        return (data.count / 4096, header)
    }

    @Test("WAL mode: a checkpoint stopped at another connection's snapshot leaves the file shorter than its header, its last page in the WAL: no damage; cut further than the WAL holds, it is")
    func checkpointStoppedAtASnapshot() throws {
        let (path, connection) = try Self.makeDatabase(wal: true)
        defer { Self.removeFiles(path) }
        try connection.withDatabase { db in _ = try db.rows("PRAGMA wal_autocheckpoint = 0") }
        // Commit 1 adds a page at the end, and the header naming it.
        let lastID = try Self.addPage(connection)
        // Another connection reads commit 1 and keeps reading it.
        let reader = try OtherConnection(path: path)
        try reader.run("BEGIN")
        try reader.run("SELECT count(*) FROM photo")
        // Commit 2 writes that last page again, and not the header.
        try connection.write { db in try db.execute("UPDATE photo SET title = 'photo X\(lastID % 10_000)' WHERE id = \(lastID)") }
        // A checkpoint stops at the reader: it copies commit 1's header,
        // and not the last page, whose latest frame is commit 2's.
        try connection.withDatabase { db in _ = try db.rows("PRAGMA wal_checkpoint(PASSIVE)") }
        let pages = try Self.fileAndHeaderPages(path)
        try #require(pages.file < pages.header, "the checkpoint left the file shorter than its header (\(pages.file) pages, header \(pages.header))")

        let falseAlarm = Self.checkError(connection)
        #expect(falseAlarm == nil, "a file whose last page is in the WAL was taken for damage: \(falseAlarm.map { "\($0)" } ?? "")")
        #expect(try connection.read { db in try db.rows("SELECT title FROM photo WHERE id = \(lastID)").first?.first?.string } == "photo X\(lastID % 10_000)")

        // Cut to its first page, more is missing than the WAL holds.
        let damage = try Self.cut(path, after: 1)
        let caught = Self.checkError(connection)
        try Self.writeBack(path, damage)
        #expect(caught?.code == SQLITE_CORRUPT, "a file cut to its first page with a short WAL: \(caught.map { "\($0)" } ?? "no error")")

        // The reader done, a checkpoint copies the rest: whole again.
        try reader.run("COMMIT")
        try connection.withDatabase { db in _ = try db.rows("PRAGMA wal_checkpoint(TRUNCATE)") }
        let whole = try Self.fileAndHeaderPages(path)
        #expect(whole.file == whole.header)
        try Self.check(connection)
        #expect(try connection.read { db in try db.rows("SELECT count(*) FROM photo").first?.first?.int64 } == lastID)
    }

    @Test("WAL mode, seeded: single-row commits, another connection's snapshots held and let go, and checkpoints that stop at them never look like damage; the file cut to its first page at the end does")
    func randomCheckpointsAndSnapshots() throws {
        let seed = testSeed(default: 0xF11E)
        var generator = SplitMix64(seed: seed)
        func random(_ range: Range<Int>) -> Int { Int.random(in: range, using: &generator) }
        let (path, connection) = try Self.makeDatabase(wal: true)
        defer { Self.removeFiles(path) }
        try connection.withDatabase { db in _ = try db.rows("PRAGMA wal_autocheckpoint = 0") }
        let reader = try OtherConnection(path: path)
        var reading = false
        var rows: Int64 = 20_000
        // How often the file was shorter than its header: the case the
        // check must not take for damage.
        var shortLooks = 0
        for step in 0..<3_000 {
            try connection.write { db in
                switch random(0..<100) {
                case 0..<40: try db.execute("UPDATE photo SET title = 'photo \(random(0..<100_000))' WHERE id = \(random(1..<20_000))")
                case 40..<90:
                    // Long rows: a new last page every few commits.
                    try db.execute("INSERT INTO photo (title) VALUES (printf('%.*c', \(random(10..<600)), 'x'))")
                    rows += 1
                default:
                    try db.execute("DELETE FROM photo WHERE id = \(random(1..<20_000))")
                    rows -= Int64(db.changes)
                }
            }
            if random(0..<3) == 0 {
                if reading { try reader.run("COMMIT") } else { try reader.run("BEGIN; SELECT count(*) FROM photo") }
                reading.toggle()
            }
            if random(0..<2) == 0 {
                try connection.withDatabase { db in _ = try db.rows("PRAGMA wal_checkpoint(PASSIVE)") }
                let pages = try Self.fileAndHeaderPages(path)
                if pages.file < pages.header { shortLooks += 1 }
                do { try Self.check(connection) } catch {
                    Issue.record("seed \(seed), step \(step): \(error) (file \(pages.file) pages, header \(pages.header))")
                    return
                }
            }
        }
        print("seed \(seed): the file was shorter than its header at \(shortLooks) checks")
        #expect(shortLooks > 0, "seed \(seed): the file was never shorter than its header, so nothing was tried")
        if reading { try reader.run("COMMIT") }
        #expect(try connection.read { db in try db.rows("SELECT count(*) FROM photo").first?.first?.int64 } == rows, "seed \(seed)")
        let damage = try Self.cut(path, after: 1)
        let caught = Self.checkError(connection)
        try Self.writeBack(path, damage)
        #expect(caught?.code == SQLITE_CORRUPT, "seed \(seed): a file cut to its first page: \(caught.map { "\($0)" } ?? "no error")")
    }

    @Test("rollback mode: a commit of another connection, its header written and not its last pages, is no damage; the same file cut short with no commit under way is")
    func commitUnderWay() throws {
        let (path, connection) = try Self.makeDatabase(wal: false)
        defer { Self.removeFiles(path) }
        let other = try OtherConnection(path: path)
        try Self.check(connection)

        // A writer mid-commit holds the exclusive lock.
        try other.run("BEGIN EXCLUSIVE")
        let cut = try Self.cut(path, after: 32)
        let falseAlarm = Self.checkError(connection)
        try Self.writeBack(path, cut)
        try other.run("COMMIT")
        #expect(falseAlarm == nil, "a commit under way was taken for damage: \(falseAlarm.map { "\($0)" } ?? "")")
        try Self.check(connection)

        let damage = try Self.cut(path, after: 32)
        let caught = Self.checkError(connection)
        try Self.writeBack(path, damage)
        #expect(caught?.code == SQLITE_CORRUPT, "a file cut short with no commit under way: \(caught.map { "\($0)" } ?? "no error")")
        try Self.check(connection)
        #expect(try connection.read { db in try db.rows("SELECT count(*) FROM photo").first?.first?.int64 } == 20_000)
    }
}
