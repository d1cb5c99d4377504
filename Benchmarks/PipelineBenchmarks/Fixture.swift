// The fixture every pipeline benchmark reads: a fresh 1,000,000-row `photo`
// table (or as many rows as TESSERA_PIPELINE_ROWS says) in 1,024 albums
// with random dates, made once per process (the
// benchmark tool runs each benchmark in a process of its own) in a folder
// of its own under the temporary directory, and removed when the process's
// benchmark is done. Also the records, the layout and the viewport.

import BenchmarkSupport
import Foundation
import Synchronization
import TesseraLayout
import TesseraResults
import TesseraSQLite

/// The number of rows in the fixture: 1,000,000, or the whole number
/// from 10,000 to 100,000,000 that `TESSERA_PIPELINE_ROWS` gives
/// (underscores allowed: `10_000_000`).
let rowCount: Int = {
    guard let text = ProcessInfo.processInfo.environment["TESSERA_PIPELINE_ROWS"] else { return 1_000_000 }
    guard let rows = Int(text.filter { $0 != "_" }), (10_000...100_000_000).contains(rows) else {
        fatalError("TESSERA_PIPELINE_ROWS is \"\(text)\": give a whole number of rows from 10000 to 100000000")
    }
    return rows
}()
/// The number of albums (sections).
let albumCount = 1_024

/// The fixture's rows, sorted as the requests sort them (the peer's SQL).
let orderedSQL = "SELECT id, album, date, title, width, height FROM photo ORDER BY album, date, id"

/// The fixture database, made on first use and removed by ``remove()``.
enum Fixture {
    /// The folder holding the database, once made.
    private static let folder = Mutex<URL?>(nil)

    /// The database's path; the first call makes it (a few seconds).
    static var path: String {
        folder.withLock { folder in
            if let folder { return folder.appendingPathComponent("photos.sqlite").path }
            let made = FileManager.default.temporaryDirectory.appendingPathComponent("tessera-pipeline-\(getpid())")
            try? FileManager.default.removeItem(at: made)
            do {
                try FileManager.default.createDirectory(at: made, withIntermediateDirectories: true)
                try build(at: made.appendingPathComponent("photos.sqlite").path)
            } catch {
                fatalError("could not make the fixture in \(made.path): \(error)")
            }
            folder = made
            return made.appendingPathComponent("photos.sqlite").path
        }
    }

    /// Removes the fixture's folder, if it was made.
    static func remove() {
        folder.withLock { folder in
            if let folder { try? FileManager.default.removeItem(at: folder) }
            folder = nil
        }
    }

    /// Writes the table: ids 1 through ``rowCount``; album, date, width and
    /// height from a seeded SplitMix64; then the index on (album, date).
    private static func build(at path: String) throws {
        let connection = try Connection(path: path)
        try connection.write { db in
            try db.execute("CREATE TABLE photo (id INTEGER PRIMARY KEY, album INTEGER NOT NULL, date REAL NOT NULL, title TEXT NOT NULL, width INTEGER NOT NULL, height INTEGER NOT NULL)")
            // One bound statement; SQLite makes the title from the id
            // (`?1`), so the parameters are id, album, date, width, height.
            let insert = try db.prepare("INSERT INTO photo VALUES (?, ?, ?, 'Photo ' || ?1, ?, ?)")
            var generator = SplitMix64(seed: 0x7E55_E4A0)
            for id in 1...rowCount {
                let bits = generator.next()
                let album = Int64(bits % UInt64(albumCount))
                // Seconds over about ten years from 2015, to the microsecond.
                let date = 1_420_070_400 + Double(bits >> 24) / Double(1 << 40) * 315_360_000
                let landscape = bits & 0x800 == 0
                try insert.bind([
                    .integer(Int64(id)), .integer(album), .real(date),
                    .integer(landscape ? 4_032 : 3_024), .integer(landscape ? 3_024 : 4_032),
                ])
                _ = try insert.step()
                insert.reset()
            }
            try db.execute("CREATE INDEX photo_album_date ON photo (album, date)")
        }
    }
}

/// A photo, as Tessera's controllers read it.
struct Photo: TesseraResults.FetchableRecord {
    var id: Int64
    var album: Int64
    var date: Double
    var title: String
    var width: Int64
    var height: Int64

    init(row: TesseraResults.Row) throws {
        id = row[0].int64 ?? 0
        album = row[1].int64 ?? 0
        date = row[2].double ?? 0
        title = row[3].string ?? ""
        width = row[4].int64 ?? 0
        height = row[5].int64 ?? 0
    }
}

/// The request every Tessera benchmark follows: sectioned by album, sorted
/// by date in an album.
func photoRequest(fetchBatchSize: Int) -> FetchRequest {
    var request = FetchRequest(table: "photo", sortKeys: [SortKey("album"), SortKey("date")], sectionKey: "album")
    request.fetchBatchSize = fetchBatchSize
    return request
}

/// The viewport: a phone, 390×844 points.
let viewport = Size(width: 390, height: 844)

/// The demo's photo grid (`tessera demo`, `LayoutChoice.flow`): 96-point
/// squares 2 points apart, four to a row in the viewport, with 32-point
/// album headers.
func photoGrid() -> FlowLayout {
    let layout = FlowLayout()
    layout.itemSize = Size(width: 96, height: 96)
    layout.minimumInteritemSpacing = 2
    layout.minimumLineSpacing = 2
    layout.headerReferenceSize = Size(width: 0, height: 32)
    return layout
}
