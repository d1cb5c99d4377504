import Foundation
import Testing
import TesseraCommandKit
import TesseraRender
import TesseraSQLite
import TesseraTestTraits

/// Details of the command's options, help and output that a user hit:
/// how a huge number is printed, sweep sizes measured at another size,
/// and `bench diff` on a file SQLite can only read. (How `help serve`
/// says its defaults is tested in TesseraServeTests, with `serve`.)
@Suite("tessera: numbers, sweep notices and read-only databases", .tags(.process), .ownThreads)
struct CommandDetailsTests {
    @Test("a number too large to round to hundredths prints as itself, never as inf")
    func hugeNumbers() {
        #expect(Format.number(1e308) == "1e+308")
        #expect(Format.number(-1.7976931348623157e308) == "-1.7976931348623157e+308")
        #expect(Format.number(1e15) == "1000000000000000")
        #expect(Format.number(2.5e16) == "2.5e+16")
        #expect(Format.number(12.345) == "12.35")
        #expect(Format.number(.infinity) == "inf")
    }

    @Test("--width 1e308 is refused naming the value given, not inf")
    func hugeWidth() throws {
        let result = try Tool.run(["watch", "absent.sqlite", "--table", "photo", "--layout", "list", "--width", "1e308"])
        #expect(result.status == 64)
        #expect(result.stderr == "tessera: error: --width 1e+308: the viewport's width must be a positive number up to 100000\n")
    }

    /// `photos.sqlite` in a fresh folder: a `photo(id, title)` table with
    /// a row a title, ids from 1, in WAL mode or with a rollback journal.
    static func makePhotoFile(titles: [String], wal: Bool) throws -> (folder: URL, path: String) {
        let folder = try Tool.temporaryFolder()
        let path = folder.appendingPathComponent("photos.sqlite").path
        try Connection(path: path, journalModeWAL: wal).write { db in
            try db.execute("CREATE TABLE photo (id INTEGER PRIMARY KEY, title TEXT)")
            for (offset, title) in titles.enumerated() {
                try db.execute("INSERT INTO photo VALUES (?, ?)", [.integer(Int64(offset + 1)), .text(title)])
            }
        }
        return (folder, path)
    }

    @Test("sweep sizes of files measured at another size are said, in the table and the JSON")
    func sweepSizesMerged() throws {
        let (old, new) = BenchFileTests.tenItemsReversed
        let (result, json) = try BenchFileTests.run(old: old, new: new, ["--sweep", "2,5,10,20,24"])
        try #require(result.status == 0, "stderr: \(result.stderr)")
        #expect(json?["sizes"] == .array([.int(10), .int(20)]))
        let merged = "--sweep: sizes 2, 5 and 10 are measured at 10 items (1 copy of the 10 items of old.json → new.json; an input is repeated a whole number of times, at least once)"
        let rounded = "--sweep: sizes 20 and 24 are measured at 20 items (2 copies of the 10 items of old.json → new.json; an input is repeated a whole number of times, at least once)"
        #expect(json?["notices"] == .array([.string(merged), .string(rounded)]))

        let folder = try Tool.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        try old.write(to: folder.appendingPathComponent("old.json"), atomically: true, encoding: .utf8)
        try new.write(to: folder.appendingPathComponent("new.json"), atomically: true, encoding: .utf8)
        let table = try Tool.run(["bench", "diff", "old.json", "new.json", "--runs", "1", "--sweep", "2,10"], in: folder)
        try #require(table.status == 0, "stderr: \(table.stderr)")
        #expect(table.stdout.contains("--sweep: sizes 2 and 10 are measured at 10 items (1 copy of the 10 items of old.json → new.json;"))
    }

    @Test("bench diff measures a database SQLite can only read, on a copy, and leaves the file as it was")
    func readOnlyDatabase() throws {
        let (folder, path) = try Self.makePhotoFile(titles: ["a", "b", "c"], wal: false)
        defer { try? FileManager.default.removeItem(at: folder) }
        // A file format write version above 2 (byte 18 of the header):
        // SQLite reads the file and refuses to write it, for root too.
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        try handle.seek(toOffset: 18)
        try handle.write(contentsOf: Data([3]))
        try handle.close()
        #expect(throws: SQLiteError.self) {
            try Connection(path: path, journalModeWAL: false).write { db in try db.execute("UPDATE photo SET title = 'z'") }
        }
        let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        try "UPDATE photo SET title = 'z' WHERE id = 1; DELETE FROM photo WHERE id = 3;"
            .write(to: folder.appendingPathComponent("change.sql"), atomically: true, encoding: .utf8)
        let (json, tessera) = try runBenchDiffOnDatabase(in: folder, sort: "title")
        #expect(tessera["counts"]?["deletes"] == .int(1))
        #expect(tessera["counts"]?["moves"] == .int(1))
        #expect(tessera["counts"]?["updates"] == .int(1))
        #expect(json["input"]?["label"] == .string("photo in photos.sqlite, before and after change.sql"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == bytes, "the database file's bytes changed")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted() == ["change.sql", "photos.sqlite"])
    }

    @Test("the demo page says that the rolled-back transaction has no plan, rather than leave it out silently")
    func demoPageNamesTheRollback() throws {
        let folder = try Tool.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let database = folder.appendingPathComponent("demo.sqlite").path
        let result = try Tool.run(["demo", "--database", database, "--photos", "2000", "--html", "page.html"], in: folder)
        try #require(result.status == 0, "stderr: \(result.stderr)")
        let page = try String(contentsOf: folder.appendingPathComponent("page.html"), encoding: .utf8)
        #expect(page.contains("<ul id=\"notes\"><li>Transaction 8: delete every photo of Amsterdam, then roll back: rolled back, so the controller reported nothing and the list has no plan for it</li></ul>"))
        // Its notes are escaped like its title.
        let plain = PlanPage.html(title: "t", entries: [], notes: ["a <b> & c"])
        #expect(plain.contains("<ul id=\"notes\"><li>a &lt;b&gt; &amp; c</li></ul>"))
        #expect(PlanPage.html(title: "t", entries: []).contains("<ul id=\"notes\"></ul>"))
    }

    @Test("watch on a rollback-journal file says in one line what a writer should do; on a WAL file it says nothing", arguments: [false, true])
    func watchJournalNotice(wal: Bool) throws {
        let (folder, path) = try Self.makePhotoFile(titles: ["a"], wal: wal)
        defer { try? FileManager.default.removeItem(at: folder) }
        let notice = "\(path) uses a rollback journal (journal_mode delete), so a writer fails with \"database is locked\" "
            + "if it commits while watch reads the table again; give writers a busy timeout (sqlite3: .timeout 5000) "
            + "or switch the file to WAL (PRAGMA journal_mode = WAL), where readers never block a writer"

        let text = try Tool.start(["watch", path, "--table", "photo"])
        defer { if text.process.isRunning { text.process.terminate() } }
        #expect(try text.waitForLines(1)[0] == "watching photo in \(path): 1 section, 1 row (Ctrl-C to stop)")
        if !wal { #expect(try text.waitForLines(2)[1] == "note: " + notice) }
        text.process.interrupt()
        _ = try text.process.exit(within: 300)
        #expect(text.stdout(waitingForEOF: true).split(separator: "\n").count == (wal ? 1 : 2))

        let json = try Tool.start(["watch", path, "--table", "photo", "--json"])
        defer { if json.process.isRunning { json.process.terminate() } }
        let fetched = try JSON.parse(try json.waitForLines(1)[0])
        #expect(fetched["notice"] == (wal ? nil : .string(notice)))
        json.process.interrupt()
        _ = try json.process.exit(within: 300)
    }
}
