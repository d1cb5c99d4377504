import CSQLite
import Foundation
import Testing
import TesseraDiff
import TesseraResults
import TesseraResultsTestSupport
import TesseraSQLite
import TesseraTestSupport
import TesseraTestTraits

/// The storage under a controller fails: a full disk, reads and writes that
/// fail, a lock held past the timeout, a file truncated or overwritten.
/// Each time the error is typed and names its cause, the controller keeps
/// its last good result, and once the fault clears nothing committed is
/// lost: `integrity_check` is ok and the controller equals a fresh query.
@Suite("Storage faults", .ownThreads)
struct StorageFaultTests {
    static let request = FetchRequest(table: "photo", sortKeys: [SortKey("album"), SortKey("date"), SortKey("id")], sectionKey: "album")

    /// A photo library in a fresh file, a connection through the fault VFS
    /// and a controller over it.
    final class Library {
        let path: String
        let connection: Connection
        let controller: FetchedResultsController<Shot>
        let log = ReportLog()

        init(rows: Int = 300, busyTimeout: Double = 5) throws {
            _ = FaultVFS.register
            path = FileManager.default.temporaryDirectory.appendingPathComponent("tessera-faults-\(UUID().uuidString).sqlite").path
            connection = try Connection(path: path, busyTimeout: busyTimeout, vfs: FaultVFS.name)
            try connection.write { db in
                try db.execute("CREATE TABLE photo (id INTEGER PRIMARY KEY, album INTEGER NOT NULL, date INTEGER NOT NULL, title TEXT)")
                try db.execute("""
                    WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n WHERE x < \(rows))
                    INSERT INTO photo SELECT x, x % 7, x * 13 % 500, 'photo ' || x FROM n
                    """)
            }
            controller = try FetchedResultsController<Shot>(connection: connection, request: StorageFaultTests.request)
            controller.delegate = log
            try controller.performFetch()
        }

        deinit {
            FaultVFS.disarm(path: path)
            for suffix in ["", "-wal", "-shm", "-journal"] { try? FileManager.default.removeItem(atPath: path + suffix) }
        }

        /// The rows as a fresh query on a fresh connection gives them.
        func freshQuery() throws -> Snapshot<ResultSection, Shot> {
            let fresh = try FetchedResultsController<Shot>(connection: Connection(path: path), request: StorageFaultTests.request)
            try fresh.performFetch()
            return fresh.snapshot
        }

        /// `PRAGMA integrity_check` on a fresh connection.
        func integrity() throws -> String {
            try Connection(path: path).read { db in try db.rows("PRAGMA integrity_check").first?.first?.string ?? "" }
        }
    }

    /// Records what the delegate hears.
    final class ReportLog: FetchedResultsControllerDelegate {
        typealias Record = Shot
        var reports: [ChangeReport<Shot>] = []
        var errors: [ResultsError] = []
        func controller(_ controller: FetchedResultsController<Shot>, didChangeContentWith report: ChangeReport<Shot>) { reports.append(report) }
        func controller(_ controller: FetchedResultsController<Shot>, didFailWith error: ResultsError) { errors.append(error) }
    }

    /// The SQLite error inside an error, if any.
    static func sqliteError(_ error: any Error) -> SQLiteError? {
        if let error = error as? SQLiteError { return error }
        if case let .database(inner)? = error as? ResultsError { return inner }
        return nil
    }

    /// After the fault clears: the file is sound, and the controller equals
    /// a fresh query (after a refresh when `refreshing`).
    static func expectRecovered(_ library: Library, refreshing: Bool = false, _ label: String) throws {
        if refreshing { try library.controller.refresh() }
        #expect(try library.integrity() == "ok", "\(label): integrity_check")
        #expect(library.controller.snapshot == (try library.freshQuery()), "\(label): the controller differs from a fresh query")
    }

    @Test("A write that fails (disk full or I/O error) throws a typed error, reports nothing, and loses nothing committed", arguments: [
        (FaultVFS.Fault.full, SQLITE_FULL, SQLITE_FULL), (.write, SQLITE_IOERR, FaultVFS.ioerrWrite), (.sync, SQLITE_IOERR, FaultVFS.ioerrFsync),
    ])
    func failingWrite(fault: FaultVFS.Fault, code: Int32, extendedCode: Int32) throws {
        let library = try Library()
        try library.connection.write { db in try db.execute("UPDATE photo SET date = 1 WHERE id = 5") }
        let before = library.controller.snapshot
        let reportsBefore = library.log.reports.count

        FaultVFS.arm(fault, path: library.path)
        var caught: (any Error)?
        do {
            // Enough rows that the pages leave the cache and reach the file.
            try library.connection.write { db in
                try db.execute("WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n WHERE x < 5000) INSERT INTO photo (album, date, title) SELECT x % 7, x, hex(randomblob(200)) FROM n")
            }
        } catch {
            caught = error
        }
        FaultVFS.disarm(path: library.path)
        let thrown = try #require(caught, "\(fault): the write succeeded")
        let error = try #require(Self.sqliteError(thrown), "\(fault): \(thrown)")
        #expect(error.code == code && error.extendedCode == extendedCode, "\(fault): \(error)")
        #expect(!error.message.isEmpty, "\(fault): \(error)")
        #expect(library.controller.snapshot == before, "\(fault): the controller changed")
        #expect(library.log.reports.count == reportsBefore, "\(fault): a report for work that was not committed")

        // The fault cleared: the next commit is reported, nothing is lost.
        try library.connection.write { db in try db.execute("INSERT INTO photo (album, date, title) VALUES (3, 42, 'after')") }
        #expect(library.log.reports.count == reportsBefore + 1, "\(fault)")
        try Self.expectRecovered(library, "\(fault)")
    }

    @Test("PRAGMA max_page_count: a full database refuses the transaction with SQLITE_FULL, and the controller keeps its result")
    func fullDatabase() throws {
        let library = try Library()
        let pages = try library.connection.withDatabase { db in try db.rows("PRAGMA page_count")[0][0].int64 ?? 0 }
        try library.connection.withDatabase { db in _ = try db.rows("PRAGMA max_page_count = \(pages + 2)") }
        let before = library.controller.snapshot
        #expect {
            try library.connection.write { db in
                try db.execute("WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n WHERE x < 2000) INSERT INTO photo (album, date, title) SELECT x % 7, x, hex(randomblob(100)) FROM n")
            }
        } throws: { Self.sqliteError($0)?.code == SQLITE_FULL }
        #expect(library.controller.snapshot == before)
        try library.connection.withDatabase { db in _ = try db.rows("PRAGMA max_page_count = 1000000") }
        try library.connection.write { db in try db.execute("DELETE FROM photo WHERE id < 10") }
        try Self.expectRecovered(library, "max_page_count")
    }

    @Test("A read that fails while the controller re-fetches another connection's commit: a typed error, the last good result kept, and the next check catches up")
    func failingRead() throws {
        let library = try Library()
        let writer = try Connection(path: library.path)
        try writer.write { db in
            try db.execute("UPDATE photo SET album = 6 WHERE id BETWEEN 1 AND 40")
            try db.execute("WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n WHERE x < 3000) INSERT INTO photo (album, date, title) SELECT x % 7, x, hex(randomblob(100)) FROM n")
        }
        let before = library.controller.snapshot
        FaultVFS.arm(.read, path: library.path)
        #expect {
            _ = try library.controller.checkForExternalChanges()
        } throws: { Self.sqliteError($0)?.extendedCode == FaultVFS.ioerrRead }
        FaultVFS.disarm(path: library.path)
        #expect(FaultVFS.failureCount(path: library.path) > 0)
        #expect(library.controller.snapshot == before, "the controller shows a part-read result")

        // Cleared: the next check (not only a refresh) brings it up to date.
        #expect(try library.controller.checkForExternalChanges(), "the failed check took the commit as read")
        try Self.expectRecovered(library, "read fault")
    }

    @Test("A write lock held past the busy timeout gives SQLITE_BUSY; once released, the writes go through and the controller follows")
    func busyPastTheTimeout() throws {
        let library = try Library(busyTimeout: 0.2)
        let holder = try Connection(path: library.path)
        let before = library.controller.snapshot
        try holder.withDatabase { db in
            try db.execute("BEGIN IMMEDIATE")
            try db.execute("UPDATE photo SET date = 0 WHERE id = 1")
        }
        #expect {
            try library.connection.write { db in try db.execute("DELETE FROM photo WHERE id = 2") }
        } throws: { Self.sqliteError($0)?.code == SQLITE_BUSY }
        #expect(library.controller.snapshot == before)
        try holder.withDatabase { db in try db.execute("COMMIT") }
        try library.connection.write { db in try db.execute("DELETE FROM photo WHERE id = 2") }
        // The holder's commit arrives by the controller's own commit or by
        // polling; either way nothing is missed.
        try library.controller.checkForExternalChanges()
        try Self.expectRecovered(library, "busy")
    }

    @Test("The file truncated or overwritten under an open controller: a typed error and the last good result; restored, a refresh recovers", arguments: ["truncated", "cut to its first page", "overwritten", "replaced by another database"])
    func fileDamaged(damage: String) throws {
        let library = try Library()
        // Everything in the main file, so the damage reaches all of it.
        try library.connection.withDatabase { db in _ = try db.rows("PRAGMA wal_checkpoint(TRUNCATE)") }
        let backup = library.path + ".backup"
        try FileManager.default.copyItem(atPath: library.path, toPath: backup)
        defer { try? FileManager.default.removeItem(atPath: backup) }
        let before = library.controller.snapshot

        let handle = try #require(FileHandle(forUpdatingAtPath: library.path))
        switch damage {
        case "truncated":
            try handle.truncate(atOffset: 0)
        case "cut to its first page":
            // Shorter than its header says, for good: looked at again, it
            // stays cut short (a checkpoint in progress would not).
            let pageSize = try library.connection.read { db in
                _ = try db.rows("PRAGMA wal_checkpoint(TRUNCATE)")
                return try db.rows("PRAGMA page_size").first?.first?.int64 ?? 4096
            }
            let size = try handle.seekToEnd()
            try #require(size > UInt64(pageSize), "the file holds more than its first page once checkpointed")
            try handle.truncate(atOffset: UInt64(pageSize))
        case "overwritten":
            var generator = SplitMix64(seed: 0xDA3A)
            try handle.write(contentsOf: Data((0..<8192).map { _ in UInt8.random(in: 0...255, using: &generator) }))
        default:
            let other = library.path + ".other"
            let connection = try Connection(path: other, journalModeWAL: false)
            try connection.write { db in try db.execute("CREATE TABLE photo (id INTEGER PRIMARY KEY, album, date, title); INSERT INTO photo VALUES (1, 1, 1, 'other')") }
            try handle.write(contentsOf: try Data(contentsOf: URL(fileURLWithPath: other)))
            try handle.truncate(atOffset: try handle.offset())
            try? FileManager.default.removeItem(atPath: other)
        }
        try handle.close()

        var failure: ResultsError?
        do { try library.controller.refresh() } catch { failure = error }
        if let failure {
            #expect(!"\(failure)".isEmpty)
            #expect(library.controller.snapshot == before, "\(damage): the controller changed on a failed refresh")
        } else {
            // A whole other database in the file is not caught (see
            // Connection.checkFileIsDatabase()): SQLite's cache still shows
            // the old rows. Every other damage must be.
            #expect(damage == "replaced by another database", "\(damage): the refresh did not notice")
        }

        // Restored in place from the copy (the connection keeps the file it
        // opened): a refresh brings back the rows.
        let restore = try #require(FileHandle(forUpdatingAtPath: library.path))
        try restore.truncate(atOffset: 0)
        try restore.write(contentsOf: Data(contentsOf: URL(fileURLWithPath: backup)))
        try restore.close()
        try Self.expectRecovered(library, refreshing: true, damage)
        #expect(library.controller.snapshot == before, "\(damage)")
    }
}
