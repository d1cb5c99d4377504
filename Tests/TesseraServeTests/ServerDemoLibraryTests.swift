import Foundation
import Testing
import TesseraTestTraits
import TesseraSQLite
@testable import TesseraLiveHub
@testable import TesseraLiveProtocol
@testable import TesseraServe

/// The demo photo library `tessera serve` seeds when given no database.
@Suite("Server demo library", .ownThreads)
struct ServerDemoLibraryTests {
    @Test("10,000 photos in 40 albums; positions number each album newest first (checked against SQL's own numbering)")
    func seeds() throws {
        let path = try ServerTestSupport.temporaryFolder().appendingPathComponent("photos.sqlite").path
        let library = DemoLibrary(path: path)
        try library.seed()
        let connection = try Connection(path: path, mode: .readOnly)
        try connection.read { db in
            #expect(try db.rows("SELECT count(*), count(DISTINCT album) FROM photo") == [[.integer(10_000), .integer(40)]])
            // The oracle: SQLite numbers each album's photos by taken, newest
            // first (ties by id), and every photo's position must be that.
            let mismatches = try db.rows("""
                SELECT count(*) FROM (
                    SELECT position, ROW_NUMBER() OVER (PARTITION BY album ORDER BY taken DESC, id) - 1 AS expected FROM photo
                ) WHERE position != expected
                """)
            #expect(mismatches == [[.integer(0)]])
            let index = try db.rows("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'photo'")
            #expect(index == [[.text("photo_album_position")]])
            let columns = try db.rows("SELECT group_concat(name || ' ' || type || ' ' || \"notnull\" || ' ' || pk, ', ') FROM pragma_table_info('photo')")
            #expect(columns == [[.text("id INTEGER 0 1, album TEXT 1 0, title TEXT 1 0, taken INTEGER 1 0, position INTEGER 1 0")]])
            #expect(try db.rows("PRAGMA journal_mode") == [[.text("wal")]])
        }
    }

    @Test("the same count seeds the same library; seeding again replaces what was there")
    func deterministic() throws {
        let path = try ServerTestSupport.temporaryFolder().appendingPathComponent("photos.sqlite").path
        let library = DemoLibrary(path: path, photoCount: 500)
        try library.seed()
        let connection = try Connection(path: path)
        let first = try connection.read { db in try db.rows("SELECT * FROM photo ORDER BY id") }
        try connection.write { db in try db.execute("DELETE FROM photo WHERE id < 100") }
        try library.seed()
        let second = try connection.read { db in try db.rows("SELECT * FROM photo ORDER BY id") }
        #expect(first == second)
        #expect(first.count == 500)
        #expect(library.rows().map { [DatabaseValue.integer($0.id), .text($0.album), .text($0.title), .integer($0.taken), .integer($0.position)] } == first)
    }

    @Test("a count out of range, or a file that cannot be made, is an error naming it")
    func errors() throws {
        for count in [0, -1, 1_000_001] {
            #expect(throws: DemoLibraryError("--photos \(count): the number of photos must be from 1 to 1000000")) {
                try DemoLibrary(path: "/nonexistent/photos.sqlite", photoCount: count).seed()
            }
        }
        let file = try ServerTestSupport.temporaryFolder().appendingPathComponent("file")
        try Data().write(to: file)
        let path = file.appendingPathComponent("photos.sqlite").path
        do {
            try DemoLibrary(path: path, photoCount: 10).seed()
            Issue.record("seeding under a file succeeded")
        } catch {
            #expect(error.description.hasPrefix("cannot seed the demo library at \(path): "), "\(error)")
        }
    }

    @Test("the configuration follows the library by album and position")
    func configuration() {
        let configuration = DemoLibrary(path: "/tmp/x.sqlite").configuration()
        #expect(configuration.databasePath == "/tmp/x.sqlite")
        #expect(configuration.table == "photo")
        #expect(configuration.sectionColumn == "album")
        #expect(configuration.sortColumn == "position")
        #expect(!configuration.sortDescending)
        #expect(configuration.titleColumn == "title")
        #expect(configuration.orderColumn == "position")
    }
}
