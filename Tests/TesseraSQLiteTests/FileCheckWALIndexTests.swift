import CSQLite
import Foundation
import Testing
import TesseraSQLite
import TesseraTestSupport
import TesseraTestTraits

/// `Connection.checkFileIsDatabase()` in WAL mode, where a sound file may
/// be shorter than its header names while each missing page's latest
/// version is in the WAL: only those pages may be missing. A file cut
/// short by something outside SQLite, while the WAL holds frames of other
/// pages, is damage however many frames the WAL holds.
@Suite("The file check and the pages the WAL holds", .cpuBound)
struct FileCheckWALIndexTests {
    typealias Support = FileCheckWriterTests

    /// Commits `count` updates of the first rows: as many frames in the
    /// WAL, all of pages near the start of the file.
    static func updateFirstRows(_ connection: Connection, count: Int) throws {
        for step in 0..<count {
            try connection.write { db in try db.execute("UPDATE photo SET title = 'photo \(step % 10)' WHERE id = \(1 + step % 3)") }
        }
    }

    @Test("WAL mode: the file's last pages cut off while the WAL holds many frames of other pages is damage", arguments: [1, 10])
    func lastPagesCutWithAFullWAL(pagesCut: Int) throws {
        let (path, connection) = try Support.makeDatabase(wal: true)
        defer { Support.removeFiles(path) }
        try connection.withDatabase { db in _ = try db.rows("PRAGMA wal_autocheckpoint = 0") }
        try Self.updateFirstRows(connection, count: 200)
        let pages = try Support.fileAndHeaderPages(path)
        try #require(pages.file == pages.header)
        try Support.check(connection)

        let damage = try Support.cut(path, after: pages.file - pagesCut, cuttingAtLeast: 1)
        let caught = Support.checkError(connection)
        try Support.writeBack(path, damage)
        #expect(caught?.code == SQLITE_CORRUPT, "\(pagesCut) last pages cut off, 200 frames of other pages in the WAL: \(caught.map { "\($0)" } ?? "no error")")
        try Support.check(connection)
        #expect(try connection.read { db in try db.rows("SELECT count(*) FROM photo").first?.first?.int64 } == 20_000)
    }

    /// With 5,000 frames before the last page's, its frame is listed in
    /// the WAL index's second region.
    @Test("WAL mode: a checkpoint stopped at a snapshot, with many frames of other pages in the WAL, is no damage; its missing last page cut further by one page is", arguments: [100, 5_000])
    func checkpointStoppedWithAFullWAL(framesBefore: Int) throws {
        let (path, connection) = try Support.makeDatabase(wal: true)
        defer { Support.removeFiles(path) }
        try connection.withDatabase { db in _ = try db.rows("PRAGMA wal_autocheckpoint = 0") }
        // Commit 1 adds a page at the end, and the header naming it.
        let lastID = try Support.addPage(connection)
        let reader = try Support.OtherConnection(path: path)
        try reader.run("BEGIN")
        try reader.run("SELECT count(*) FROM photo")
        // Many frames of other pages, then commit 2 writes the last page
        // again.
        try Self.updateFirstRows(connection, count: framesBefore)
        try connection.write { db in try db.execute("UPDATE photo SET title = 'photo X' WHERE id = \(lastID)") }
        try connection.withDatabase { db in _ = try db.rows("PRAGMA wal_checkpoint(PASSIVE)") }
        let pages = try Support.fileAndHeaderPages(path)
        try #require(pages.file == pages.header - 1, "the checkpoint left the file one page short (\(pages.file) pages, header \(pages.header))")

        let falseAlarm = Support.checkError(connection)
        #expect(falseAlarm == nil, "a file whose last page is in the WAL was taken for damage: \(falseAlarm.map { "\($0)" } ?? "")")

        // One page more cut off: that page is in the file only.
        let damage = try Support.cut(path, after: pages.file - 1, cuttingAtLeast: 1)
        let caught = Support.checkError(connection)
        try Support.writeBack(path, damage)
        #expect(caught?.code == SQLITE_CORRUPT, "a page the WAL does not hold cut off: \(caught.map { "\($0)" } ?? "no error")")

        try reader.run("COMMIT")
        try connection.withDatabase { db in _ = try db.rows("PRAGMA wal_checkpoint(TRUNCATE)") }
        try Support.check(connection)
        #expect(try connection.read { db in try db.rows("SELECT title FROM photo WHERE id = \(lastID)").first?.first?.string } == "photo X")
    }
}
