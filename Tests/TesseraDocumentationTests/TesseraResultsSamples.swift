import Testing
import Tessera

/// The README's results sample, compiled with `import Tessera`. It is not
/// run: it opens photos.sqlite in the current folder, which tests must not
/// write. The "Backing a list with SQLite" samples below run the same
/// calls on an in-memory database.
enum ReadmeResultsSample {
    static func compiles() throws {
        // sample: README.md
        struct Photo: FetchableRecord {
            var id: Int64, album: String?, date: Int64, title: String
            init(row: Row) throws {
                id = row["id"].int64 ?? -1
                album = row["album"].string
                date = row["date"].int64 ?? 0
                title = row["title"].string ?? ""
            }
        }

        final class PhotoList: FetchedResultsControllerDelegate {
            let source: DiffableDataSource<ResultSection, Photo>
            init(source: DiffableDataSource<ResultSection, Photo>) { self.source = source }

            func controller(_ controller: FetchedResultsController<Photo>,
                            didChangeContentWith report: ChangeReport<Photo>) {
                _ = try? source.apply(report.newSnapshot)     // diff → one batch → plan
            }
        }

        let connection = try Connection(path: "photos.sqlite")
        let request = FetchRequest(
            table: "photo",
            predicate: "date >= ?", arguments: [.integer(2020)],
            sortKeys: [SortKey("album"), SortKey("date", ascending: false)],
            sectionKey: "album"
        )
        let controller = try FetchedResultsController<Photo>(connection: connection, request: request)
        try controller.performFetch()

        let view = CollectionView(layout: FlowLayout(), size: Size(width: 390, height: 844))
        let source = DiffableDataSource<ResultSection, Photo>(collectionView: view)
        try source.apply(controller.snapshot, animated: false)   // a Snapshot<ResultSection, Photo>
        let photoList = PhotoList(source: source)
        controller.delegate = photoList      // held weakly: keep `photoList`, or nothing is reported

        // This code runs on the main actor (top-level code does), the controller's home:
        // a commit made here, or by a function called from here, is reported before
        // `write` returns. One made elsewhere (a detached task, another actor) waits
        // for the main actor's next `await`; `deliverWaitingChanges()` reports it now.
        try connection.write { db in try db.execute("UPDATE photo SET title = 'Pier' WHERE id = 1") }
        try controller.deliverWaitingChanges()   // false here: nothing waits
        // end of sample
    }
}

/// The "Backing a list with SQLite" article's samples, compiled with the
/// import it states and, but for the one that opens photos.sqlite in the
/// current folder, run on an in-memory database.
@Suite("Backing a list with SQLite samples")
struct BackingAListSamples: PrintingSamples {
    let transcript = Transcript()

    // sample: Sources/TesseraResults/TesseraResults.docc/BackingAListWithSQLite.md
    struct Photo: FetchableRecord {
        var id: Int64
        var album: String
        var date: Int64
        var title: String

        init(row: Row) throws {
            id = row["id"].int64 ?? -1
            album = row["album"].string ?? ""
            date = row["date"].int64 ?? 0
            title = row["title"].string ?? ""
        }
    }
    // end of sample

    static func tableRequest() -> FetchRequest {
        // sample: Sources/TesseraResults/TesseraResults.docc/BackingAListWithSQLite.md
        let request = FetchRequest(
            table: "photo",                       // a table or a view
            keyColumn: "id",                      // the primary key (the default)
            predicate: "date >= ?", arguments: [.integer(2020)],
            sortKeys: [SortKey("album"), SortKey("date", ascending: false),
                       SortKey("title", collation: .nocase)],
            sectionKey: "album"
        )
        // end of sample
        return request
    }

    static func queryRequest() -> FetchRequest {
        // sample: Sources/TesseraResults/TesseraResults.docc/BackingAListWithSQLite.md
        let request = FetchRequest(
            query: "SELECT photo.id, photo.title, photo.date, album.name AS album "
                 + "FROM photo JOIN album ON album.id = photo.album_id",
            sortKeys: [SortKey("album"), SortKey("date")],
            sectionKey: "album"
        )
        // end of sample
        return request
    }

    /// Compiled, not run: it opens photos.sqlite in the current folder.
    static func fetchAndFollow(request: FetchRequest) throws -> (Int, Int, Photo, Snapshot<ResultSection, Photo>) {
        // sample: Sources/TesseraResults/TesseraResults.docc/BackingAListWithSQLite.md
        let connection = try Connection(path: "photos.sqlite")
        let controller = try FetchedResultsController<Photo>(connection: connection, request: request)
        try controller.performFetch()

        let albums = controller.numberOfSections
        let photosInFirstAlbum = controller.numberOfObjects(inSection: 0)
        let newest = controller.object(at: IndexPath(item: 0, section: 0))
        let snapshot = controller.snapshot       // a Snapshot<ResultSection, Photo>
        // end of sample
        return (albums, photosInFirstAlbum, newest, snapshot)
    }

    /// Four photos in two albums; the one from 2019 is outside the
    /// requests' predicate.
    static func photoLibrary() throws -> Connection {
        let connection = try Connection(path: ":memory:")
        try connection.write { db in
            try db.execute("CREATE TABLE photo (id INTEGER PRIMARY KEY, album TEXT, date INTEGER NOT NULL, title TEXT NOT NULL)")
            try db.execute("""
                INSERT INTO photo VALUES (1, 'Holidays', 2021, 'Beach'), (2, 'Holidays', 2023, 'Pier'),
                                         (3, 'Family', 2022, 'Picnic'), (4, 'Family', 2019, 'Garden')
                """)
        }
        return connection
    }

    static func fetchedController(_ connection: Connection) throws -> FetchedResultsController<Photo> {
        let controller = try FetchedResultsController<Photo>(connection: connection, request: tableRequest())
        try controller.performFetch()
        return controller
    }

    @Test("The table request fetches the photos since 2020 by album, newest first")
    func tableRequestFetches() throws {
        let controller = try Self.fetchedController(Self.photoLibrary())
        #expect(controller.sections == [ResultSection(value: .text("Family")), ResultSection(value: .text("Holidays"))])
        #expect(controller.numberOfObjects(inSection: 0) == 1)
        #expect(controller.numberOfObjects(inSection: 1) == 2)
        #expect(controller.object(at: IndexPath(item: 0, section: 1)).title == "Pier")
        #expect(controller.snapshot.allItems.map(\.id) == [3, 2, 1])
    }

    @Test("The SELECT request fetches a join, in sections by album name")
    func queryRequestFetches() throws {
        let connection = try Connection(path: ":memory:")
        try connection.write { db in
            try db.execute("CREATE TABLE album (id INTEGER PRIMARY KEY, name TEXT NOT NULL)")
            try db.execute("CREATE TABLE photo (id INTEGER PRIMARY KEY, album_id INTEGER, date INTEGER NOT NULL, title TEXT NOT NULL)")
            try db.execute("INSERT INTO album VALUES (1, 'Holidays'), (2, 'Family')")
            try db.execute("INSERT INTO photo VALUES (1, 1, 2021, 'Beach'), (2, 1, 2023, 'Pier'), (3, 2, 2022, 'Picnic')")
        }
        let controller = try FetchedResultsController<Photo>(connection: connection, request: Self.queryRequest())
        try controller.performFetch()
        #expect(controller.sections.map(\.value) == [.text("Family"), .text("Holidays")])
        #expect(controller.snapshot.allItems.map(\.title) == ["Picnic", "Beach", "Pier"])
        #expect(controller.object(at: IndexPath(item: 0, section: 0)).album == "Family")
    }

    @Test("The delegate sample keeps its data source in step with every commit")
    func delegate() throws {
        let connection = try Self.photoLibrary()
        let controller = try Self.fetchedController(connection)

        // sample: Sources/TesseraResults/TesseraResults.docc/BackingAListWithSQLite.md
        final class PhotoList: FetchedResultsControllerDelegate {
            let dataSource: DiffableDataSource<ResultSection, Photo>
            init(dataSource: DiffableDataSource<ResultSection, Photo>) { self.dataSource = dataSource }

            func controllerWillChangeContent(_ controller: FetchedResultsController<Photo>) { }
            func controller(_ controller: FetchedResultsController<Photo>,
                            didChangeRecordAt old: IndexPath?, for type: ResultsChangeType,
                            newIndexPath new: IndexPath?) { }
            func controller(_ controller: FetchedResultsController<Photo>,
                            didChangeContentWith report: ChangeReport<Photo>) {
                _ = try? dataSource.apply(report.newSnapshot)
            }
        }

        let view = CollectionView(layout: FlowLayout(), size: Size(width: 390, height: 844))
        let photoList = PhotoList(dataSource: DiffableDataSource(collectionView: view))
        try photoList.dataSource.apply(controller.snapshot, animated: false)
        controller.delegate = photoList          // held weakly: keep `photoList`
        // end of sample
        #expect(photoList.dataSource.snapshot == controller.snapshot)
        try connection.write { db in
            try db.execute("INSERT INTO photo VALUES (5, 'Holidays', 2024, 'Dunes')")
            try db.execute("UPDATE photo SET album = 'Family' WHERE id = 1")
        }
        #expect(photoList.dataSource.snapshot == controller.snapshot)
        #expect(controller.snapshot.allItems.map(\.id) == [3, 1, 5, 2])
        #expect(view.numberOfItems(inSection: 0) == 2 && view.numberOfItems(inSection: 1) == 2)
    }

    @Test("The delegate is held weakly: one nothing else keeps hears nothing")
    func weakDelegate() throws {
        final class Counter: FetchedResultsControllerDelegate {
            var reports = 0
            func controller(_ controller: FetchedResultsController<Photo>, didChangeContentWith report: ChangeReport<Photo>) {
                reports += 1
            }
        }
        let connection = try Self.photoLibrary()
        let controller = try Self.fetchedController(connection)
        do {
            let temporary = Counter()
            controller.delegate = temporary
        }
        #expect(controller.delegate == nil)
        let counter = Counter()
        controller.delegate = counter
        try connection.write { db in try db.execute("DELETE FROM photo WHERE id = 1") }
        #expect(counter.reports == 1)
    }

    @Test("The reports sample prints one batch for each commit")
    @MainActor
    func reports() async throws {
        let connection = try Self.photoLibrary()
        let controller = try Self.fetchedController(connection)
        // The sample waits for reports until its task is cancelled. The
        // writer lets it start waiting, commits, and cancels it: the report
        // already handed over is still taken, then the loop ends.
        let sample = Task { @MainActor in
            // sample: Sources/TesseraResults/TesseraResults.docc/BackingAListWithSQLite.md
            for await report in controller.reports {
                let batch = BatchUpdate(report.changeset, policy: .moveThenReload)
                print(batch.items)   // a batch a collection view accepts
            }
            // end of sample
        }
        let writer = Task { @MainActor in
            await Task.yield()
            try connection.write { db in try db.execute("INSERT INTO photo VALUES (5, 'Holidays', 2024, 'Dunes')") }
            sample.cancel()
        }
        try await writer.value
        await sample.value
        #expect(transcript.lines == ["\([UpdateItem.insertItem(at: IndexPath(item: 0, section: 1))])"])
    }

    @Test("The polling sample starts polling and stops it")
    @MainActor
    func polling() async throws {
        let controller = try Self.fetchedController(Self.photoLibrary())

        // sample: Sources/TesseraResults/TesseraResults.docc/BackingAListWithSQLite.md
        let polling = Task { await controller.followExternalChanges() }
        // …
        polling.cancel()   // polling off
        // end of sample
        await polling.value
        #expect(polling.isCancelled)
    }
}
