// Benchmarks of TesseraResults: the initial fetch of a 1,000,000-row table
// (id, title, album, date, content hash) sorted by album then date, in
// sections by album, next to a raw sqlite3_step loop reading the same columns
// (the floor) and GRDB fetching the same rows into structs (the peer).

import Benchmark
import CSQLite
import Foundation
import GRDB
import TesseraResults
import TesseraSQLite

/// The fixture database: made once per process in the temporary directory.
let fixturePath: String = {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("tessera-results-1m.sqlite").path
    if FileManager.default.fileExists(atPath: path) { return path }
    do {
        let connection = try Connection(path: path)
        try connection.write { db in
            try db.execute("CREATE TABLE photo (id INTEGER PRIMARY KEY, title TEXT NOT NULL, album TEXT NOT NULL, date INTEGER NOT NULL, hash INTEGER NOT NULL)")
            let insert = try db.prepare("INSERT INTO photo VALUES (?, ?, ?, ?, ?)")
            var state: UInt64 = 0x5EED
            for id in 1...1_000_000 {
                state = state &* 6364136223846793005 &+ 1442695040888963407
                try insert.bind([
                    .integer(Int64(id)), .text("Photo \(id)"), .text("Album \(state >> 54)"),
                    .integer(Int64(state >> 40 & 0xFFFFF)), .integer(Int64(bitPattern: state)),
                ])
                _ = try insert.step()
                insert.reset()
            }
            try db.execute("CREATE INDEX photo_order ON photo (album, date, id)")
        }
    } catch {
        fatalError("could not make the fixture at \(path): \(error)")
    }
    return path
}()

let orderedSQL = "SELECT id, title, album, date, hash FROM photo ORDER BY album, date, id"

struct Photo: TesseraResults.FetchableRecord {
    var id: Int64
    var title: String
    var album: String
    var date: Int64
    var hash: Int64

    init(row: TesseraResults.Row) throws {
        id = row[0].int64 ?? 0
        title = row[1].string ?? ""
        album = row[2].string ?? ""
        date = row[3].int64 ?? 0
        hash = row[4].int64 ?? 0
    }
}

struct GRDBPhoto: GRDB.FetchableRecord {
    var id: Int64
    var title: String
    var album: String
    var date: Int64
    var hash: Int64

    init(row: GRDB.Row) {
        id = row[0]
        title = row[1]
        album = row[2]
        date = row[3]
        hash = row[4]
    }
}

let benchmarks: @Sendable () -> Void = {
    let configuration = Benchmark.Configuration(
        metrics: [.wallClock, .mallocCountTotal, .peakMemoryResident],
        timeUnits: .milliseconds,
        units: [.mallocCountTotal: .count],
        warmupIterations: 1,
        maxDuration: .seconds(10),
        maxIterations: 10
    )

    Benchmark("SQLite 1M rows: raw sqlite3_step loop (the floor)", configuration: configuration) { benchmark in
        let path = fixturePath
        benchmark.startMeasurement()
        var db: OpaquePointer?
        guard sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, nil) == SQLITE_OK else { fatalError("open") }
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(db, orderedSQL, -1, &statement, nil) == SQLITE_OK else { fatalError("prepare") }
        var count = 0
        var checksum: Int64 = 0
        while sqlite3_step(statement) == SQLITE_ROW {
            let id = sqlite3_column_int64(statement, 0)
            let title = String(cString: sqlite3_column_text(statement, 1))
            let album = String(cString: sqlite3_column_text(statement, 2))
            let date = sqlite3_column_int64(statement, 3)
            let hash = sqlite3_column_int64(statement, 4)
            checksum &+= id &+ date &+ hash &+ Int64(title.utf8.count + album.utf8.count)
            count += 1
        }
        sqlite3_finalize(statement)
        sqlite3_close(db)
        benchmark.stopMeasurement()
        precondition(count == 1_000_000)
        blackHole(checksum)
    }

    Benchmark("TesseraResults 1M rows: performFetch into a sectioned snapshot", configuration: configuration) { benchmark in
        let path = fixturePath
        benchmark.startMeasurement()
        let connection = try Connection(path: path)
        let request = FetchRequest(table: "photo", sortKeys: [SortKey("album"), SortKey("date")], sectionKey: "album")
        let controller = try FetchedResultsController<Photo>(connection: connection, request: request)
        try controller.performFetch()
        benchmark.stopMeasurement()
        precondition(controller.result.count == 1_000_000)
        blackHole(controller)
    }

    Benchmark("GRDB 1M rows: fetchAll into structs (the peer)", configuration: configuration) { benchmark in
        let path = fixturePath
        benchmark.startMeasurement()
        let queue = try DatabaseQueue(path: path)
        let photos = try queue.read { db in try GRDBPhoto.fetchAll(db, sql: orderedSQL) }
        benchmark.stopMeasurement()
        precondition(photos.count == 1_000_000)
        blackHole(photos)
    }

    registerCommitLatencyBenchmarks()
}
