import Foundation
import TesseraCommandKit
import TesseraDemoPhotos
import TesseraRender
import TesseraSQLite
import TesseraTestTraits
import Testing

/// `tessera bench diff --database … --script …` through the command: the
/// counts are the script's change, and the database is left as it was.
@Suite("bench diff --database, end to end", .tags(.process), .ownThreads)
struct BenchDatabaseCommandTests {
    @Test("a script that moves, deletes, inserts and updates rows: Tessera's counts are that change, and the file's bytes and rows are unchanged", arguments: [false, true])
    func countsAndUnchanged(wal: Bool) throws {
        var random = SplitMix64(seed: 19)
        let (folder, path) = try BenchDatabaseTests.makeDatabase(.integerPrimaryKey, rows: 0, wal: wal, random: &random)
        defer { try? FileManager.default.removeItem(at: folder) }
        // The connection closes when the function returns, so in WAL mode
        // the file holds every row before the bytes are read.
        func fill() throws -> [[DatabaseValue]] {
            let connection = try Connection(path: path, journalModeWAL: wal)
            try connection.write { db in
                for id in 1...40 {
                    try db.execute("INSERT INTO photo (id, album, title, taken) VALUES (?, ?, ?, ?)",
                                   [.integer(Int64(id)), .text(id <= 20 ? "A" : "B"), .text("t\(id)"), .integer(Int64(id))])
                }
            }
            return try connection.read { db in try db.rows("SELECT * FROM photo ORDER BY id") }
        }
        let rowsBefore = try fill()
        let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        // In album order by taken: 3 rows deleted, 2 inserted, row 5 taken
        // to the end of A (one move, and an update: its taken changed),
        // rows 30 and 31 retitled (updates).
        try """
            DELETE FROM photo WHERE id IN (2, 25, 40);
            INSERT INTO photo (id, album, title, taken) VALUES (41, 'A', 'new', 100), (42, 'B', 'new', 0);
            UPDATE photo SET taken = 50 WHERE id = 5;
            UPDATE photo SET title = 'renamed' WHERE id IN (30, 31);
            """.write(to: folder.appendingPathComponent("change.sql"), atomically: true, encoding: .utf8)
        let (json, tessera) = try runBenchDiffOnDatabase(in: folder, sort: "taken", section: "album")
        #expect(tessera["counts"]?["deletes"] == .int(3))
        #expect(tessera["counts"]?["inserts"] == .int(2))
        #expect(tessera["counts"]?["moves"] == .int(1))
        #expect(tessera["counts"]?["updates"] == .int(3))
        #expect(json["input"]?["label"] == .string("photo in photos.sqlite, before and after change.sql"))

        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == bytes, "the database file's bytes changed")
        let rowsAfter = try Connection(path: path, mode: .readOnly).read { db in try db.rows("SELECT * FROM photo ORDER BY id") }
        #expect(rowsAfter == rowsBefore, "the rows changed")
    }

    @Test("a failing statement names itself, and the rows before it are not kept")
    func failingStatement() throws {
        var random = SplitMix64(seed: 5)
        let (folder, path) = try BenchDatabaseTests.makeDatabase(.integerPrimaryKey, rows: 10, random: &random)
        defer { try? FileManager.default.removeItem(at: folder) }
        let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        try "DELETE FROM photo;\n\nUPDATE photo SET titel = 1;\n".write(to: folder.appendingPathComponent("bad.sql"), atomically: true, encoding: .utf8)
        let result = try Tool.run(["bench", "diff", "--database", "photos.sqlite", "--table", "photo", "--sort", "taken", "--script", "bad.sql"], in: folder)
        #expect(result.status == 1)
        #expect(result.stderr == "tessera: error: bad.sql: statement 2 (line 3: \"UPDATE photo SET titel = 1\") failed: no such column: titel\n")
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == bytes)
    }
}
