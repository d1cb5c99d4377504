import Foundation
import Testing
import Tessera

/// The "Large lists" article's sample: a lazy request over a photo table.
enum LargeListsSample {
    struct Photo: FetchableRecord {
        var id: Int64
        var album: Int64
        var date: Double

        init(row: Row) throws {
            id = row["id"].int64 ?? -1
            album = row["album"].int64 ?? -1
            date = row["date"].double ?? 0
        }
    }

    /// Runs the sample; returns the controller and the first record.
    static func run(connection: Connection) throws -> (FetchedResultsController<Photo>, Photo) {
        // sample: Sources/TesseraResults/TesseraResults.docc/LargeLists.md
        var request = FetchRequest(
            table: "photo",
            sortKeys: [SortKey("album"), SortKey("date")],
            sectionKey: "album"
        )
        request.fetchBatchSize = 64
        let controller = try FetchedResultsController<Photo>(connection: connection, request: request)
        try controller.performFetch()
        // Sections and counts are all here; no record was decoded yet.
        let first = controller.object(at: IndexPath(item: 0, section: 0))   // reads 64 records
        // end of sample
        return (controller, first)
    }

    /// Runs the sample of what is immediate and what is eventual; returns
    /// the first record, and whether the keys still load after the wait.
    static func runWaiting(controller: FetchedResultsController<Photo>) async throws -> (Photo, loadingAfter: Bool) {
        // sample: Sources/TesseraResults/TesseraResults.docc/LargeLists.md
        try controller.performFetch()                  // sections and counts
        let top = controller.object(at: IndexPath(item: 0, section: 0))
        try await controller.waitUntilLoaded()         // every key, when you need them
        // end of sample
        return (top, controller.isLoading)
    }
}

@Suite("Large lists samples")
struct LargeListsSamples {
    @Test("The lazy sample has every section and count at once, and reads the first record")
    func lazySample() throws {
        let connection = try Connection(path: ":memory:")
        try connection.write { db in
            try db.execute("CREATE TABLE photo (id INTEGER PRIMARY KEY, album INTEGER, date REAL)")
            try db.execute("WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n WHERE x < 1000) INSERT INTO photo SELECT x, x % 10, 1000.0 - x FROM n")
        }
        let (controller, first) = try LargeListsSample.run(connection: connection)
        #expect(controller.result.isLazy)
        #expect(controller.numberOfSections == 10)
        #expect((0..<10).map(controller.numberOfObjects(inSection:)) == Array(repeating: 100, count: 10))
        #expect(first.album == 0 && first.id == 1000, "album 0's earliest date is the highest id")
    }

    @Test("The waiting sample: on a file, the result opens while its keys load, and waitUntilLoaded ends the load")
    func waitingSample() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tessera-large-lists-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let connection = try Connection(path: directory.appendingPathComponent("photos.sqlite").path)
        try connection.write { db in
            try db.execute("CREATE TABLE photo (id INTEGER PRIMARY KEY, album INTEGER, date REAL)")
            try db.execute("WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n WHERE x < 1000) INSERT INTO photo SELECT x, x % 10, 1000.0 - x FROM n")
        }
        var request = FetchRequest(table: "photo", sortKeys: [SortKey("album"), SortKey("date")], sectionKey: "album")
        request.fetchBatchSize = 64
        let controller = try FetchedResultsController<LargeListsSample.Photo>(connection: connection, request: request)
        let (top, loadingAfter) = try await LargeListsSample.runWaiting(controller: controller)
        #expect(top.album == 0 && top.id == 1000)
        #expect(!loadingAfter)
        #expect(controller.snapshot.numberOfItems == 1000)
    }
}
