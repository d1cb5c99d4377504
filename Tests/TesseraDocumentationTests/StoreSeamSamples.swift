import Foundation
import Testing
import Tessera

/// The "Store seam" article's sample: a controller whose home is an actor
/// of yours, run on an in-memory database written from a detached task.
enum StoreSeamSample {
    struct Photo: FetchableRecord {
        var id: Int64
        var album: String?

        init(row: Row) throws {
            id = row["id"].int64 ?? -1
            album = row["album"].string
        }
    }

    // sample: Sources/TesseraResults/TesseraResults.docc/TheStoreSeam.md
    actor PhotoLibrary {
        let controller: FetchedResultsController<Photo>
        private(set) var reportCount = 0

        init(connection: Connection) throws {
            controller = try FetchedResultsController<Photo>(
                connection: connection,
                request: FetchRequest(table: "photo", sortKeys: [SortKey("album")], sectionKey: "album")
            )
        }

        /// Fetches here, in an actor method (an actor's synchronous init is not
        /// isolated to it): reports come here, whoever writes.
        func start() async throws {
            try controller.performFetch()
            for await _ in controller.reports { reportCount += 1 }
        }
    }
    // end of sample
}

/// The article's second sample extends its first, at file scope.
typealias PhotoLibrary = StoreSeamSample.PhotoLibrary

// sample: Sources/TesseraResults/TesseraResults.docc/TheStoreSeam.md
/// A nonisolated helper: Swift gives it no isolation, wherever it is called.
func addPhoto(to album: String, in connection: Connection) throws {
    try connection.write { db in try db.execute("INSERT INTO photo (album) VALUES (?)", [.text(album)]) }
}

extension PhotoLibrary {
    /// Adds a photo and returns how many the controller shows.
    func add(to album: String) throws -> Int {
        try addPhoto(to: album, in: controller.connection)   // the report waits for this actor
        try controller.deliverWaitingChanges()                // reported here, before the method returns
        return controller.result.count                        // counts the new photo
    }
}
// end of sample

extension PhotoLibrary {
    /// Fetches, without following `reports` as `start()` does.
    func fetch() throws {
        try controller.performFetch()
    }
}

@Suite("Store seam samples")
struct StoreSeamSamples {
    @Test("An actor's controller hears commits made in a detached task")
    func actorHome() async throws {
        let connection = try Connection(path: ":memory:")
        try connection.write { db in try db.execute("CREATE TABLE photo (id INTEGER PRIMARY KEY, album TEXT)") }
        let library = try StoreSeamSample.PhotoLibrary(connection: connection)
        let running = Task { try await library.start() }
        defer { running.cancel() }
        let deadline = ContinuousClock.now + .seconds(300)
        var id: Int64 = 0
        // Writes until one is reported: the first may come before the fetch.
        // The deadline is long: under a sanitizer, with every core busy,
        // the actor may wait long for a thread.
        while await library.reportCount == 0 && ContinuousClock.now < deadline {
            id += 1
            try await Task.detached { [id] in
                try connection.write { db in try db.execute("INSERT INTO photo VALUES (?, 'Holidays')", [.integer(id)]) }
            }.value
            try await Task.sleep(for: .milliseconds(20))
        }
        #expect(await library.reportCount > 0)
    }

    @Test("An actor's nonisolated helper commits; deliverWaitingChanges() reports it before the method returns")
    func actorTakesWaitingCommit() async throws {
        let connection = try Connection(path: ":memory:")
        try connection.write { db in try db.execute("CREATE TABLE photo (id INTEGER PRIMARY KEY, album TEXT)") }
        let library = try PhotoLibrary(connection: connection)
        try await library.fetch()
        #expect(try await library.add(to: "Holidays") == 1)
        #expect(try await library.add(to: "Family") == 2)
    }
}
