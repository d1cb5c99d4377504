import Foundation
import Testing
import Tessera
import TesseraResultsTestSupport
import TesseraTestSupport
import TesseraTestTraits

// Runs on every store (ResultsStoreFixture.all): a ResultsDataSource
// driven by a FetchedResultsController's reports, against a
// DiffableDataSource given the same reports' snapshots, and reports
// applied out of step. One relational case runs on SQLite in memory.

@Suite("ResultsDataSource", .tags(.postgres), .ownThreads)
struct ResultsDataSourceTests {
    static let request = FetchRequest(
        table: "photo",
        predicate: "visible = ?", arguments: [.integer(1)],
        sortKeys: [SortKey("album"), SortKey("date", ascending: false), SortKey("title", collation: .nocase)],
        sectionKey: "album"
    )

    /// An empty `photo` table in a database of `store`.
    static func makePhotos(_ store: ResultsStoreFixture) throws -> TestDatabase {
        let database = try store.makeDatabase()
        try database.write { db in
            try db.execute("CREATE TABLE photo (id INTEGER PRIMARY KEY, album TEXT, date INTEGER, title TEXT, visible INTEGER)")
        }
        return database
    }

    /// A grid with album headers, smaller than its content once a few
    /// dozen photos are in: elements leave and enter the screen.
    /// The photos database over `store`, a controller of `request` (the
    /// suite's by default) fetched over it with its report log, and a
    /// view its results data source drives.
    struct Driven {
        let database: TestDatabase
        let controller: FetchedResultsController<Photo>
        let log = ReportLog<Photo>()
        let view = ResultsDataSourceTests.makeView()
        let source: ResultsDataSource<FetchedResult<Photo>>

        init(_ store: ResultsStoreFixture, request: FetchRequest? = nil) throws {
            database = try ResultsDataSourceTests.makePhotos(store)
            controller = try database.fetchedResultsController(request ?? store.portable(ResultsDataSourceTests.request), of: Photo.self)
            controller.delegate = log
            try controller.performFetch()
            source = ResultsDataSource(collectionView: view, result: controller.result)
        }

        /// A diffing data source over a view of its own, showing the
        /// controller's snapshot: what the results data source must match.
        func twin() throws -> (view: CollectionView, source: DiffableDataSource<ResultSection, Photo>) {
            let view = ResultsDataSourceTests.makeView()
            let source = DiffableDataSource<ResultSection, Photo>(collectionView: view)
            try source.apply(controller.snapshot, animated: false)
            return (view, source)
        }
    }

    static func makeView() -> CollectionView {
        let layout = FlowLayout()
        layout.itemSize = Size(width: 60, height: 60)
        layout.minimumLineSpacing = 4
        layout.minimumInteritemSpacing = 4
        layout.headerReferenceSize = Size(width: 0, height: 24)
        return CollectionView(layout: layout, size: Size(width: 200, height: 300))
    }

    /// The number of records in each section.
    static func counts(_ result: FetchedResult<Photo>) -> [Int] {
        (0..<result.numberOfSections).map { result.numberOfRecords(inSection: $0) }
    }

    /// One random transaction on `photo` (rolled back now and then).
    static func randomTransaction(_ database: TestDatabase, using generator: inout SplitMix64) {
        let albums: [DatabaseValue] = ["a", "b", "c", "d", .null]
        func randomAlbum() -> DatabaseValue { albums[Int.random(in: 0..<albums.count, using: &generator)] }
        let rollback = Int.random(in: 0..<10, using: &generator) == 0
        try? database.write { (db: any TestConnection) -> Void in
            for _ in 0..<Int.random(in: 1...4, using: &generator) {
                let id = Int64.random(in: 1...60, using: &generator)
                let visible: Int64 = Int64.random(in: 0...3, using: &generator) == 0 ? 0 : 1
                let date = DatabaseValue.integer(Int64.random(in: 0...20, using: &generator))
                switch Int.random(in: 0..<100, using: &generator) {
                case 0..<35:
                    try? db.execute("INSERT INTO photo VALUES (?, ?, ?, ?, ?)", [.integer(id), randomAlbum(), date, .text("t\(id % 7)"), .integer(visible)])
                case 35..<55:
                    try db.execute("UPDATE photo SET album = ?, date = ? WHERE id = ?", [randomAlbum(), date, .integer(id)])
                case 55..<70:
                    try db.execute("UPDATE photo SET visible = ?, title = ? WHERE id = ?", [.integer(visible), .text("T\(id % 5)"), .integer(id)])
                case 70..<85:
                    try db.execute("DELETE FROM photo WHERE id = ?", [.integer(id)])
                case 85..<87:
                    try db.execute("DELETE FROM photo WHERE album = ?", [randomAlbum()])
                default:
                    try db.execute("UPDATE photo SET date = date + 1 WHERE id % 3 = ?", [.integer(id % 3)])
                }
            }
            if rollback { throw Rollback() }
        }
    }

    @Test("Random transactions: after every commit the view's counts are the controller's, and each plan equals the diffing data source's for the same report", arguments: ResultsStoreFixture.all)
    func randomTransactions(store: ResultsStoreFixture) throws {
        let seed = testSeed(default: 0xDA7A)
        print("ResultsDataSource random transactions (\(store.name)): seed \(seed); replay with TESSERA_SEED=\(seed)")
        var generator = SplitMix64(seed: seed)
        let driven = try Driven(store)
        let (database, controller, log, view, source) = (driven.database, driven.controller, driven.log, driven.view, driven.source)
        let (twinView, twin) = try driven.twin()

        var applied = 0
        var itemsLeaving = 0
        for round in 0..<store.rounds(1_200) {
            let comment = Comment(rawValue: "seed \(seed), round \(round)")
            let reportsBefore = log.reports.count
            Self.randomTransaction(database, using: &generator)
            #expect(log.reports.count - reportsBefore <= 1, comment)
            if log.reports.count > reportsBefore, let report = log.reports.last {
                let animated = Bool.random(using: &generator)
                let plan = try source.apply(report, animated: animated)
                let expected = try twin.apply(report.newSnapshot, animated: animated)
                #expect(plan == expected, comment)
                applied += 1
                itemsLeaving += plan.elements.filter { $0.category == .cell && $0.indexPathAfter == nil }.count
            }
            #expect(view.itemCounts == Self.counts(controller.result), comment)
            #expect(Self.counts(source.result) == Self.counts(controller.result), comment)
            #expect(source.result.sections == controller.result.sections, comment)
            // Scroll both now and then, so changes land on and off screen.
            if Int.random(in: 0..<8, using: &generator) == 0 {
                let height = view.contentSize.height
                let y = Double(Int.random(in: 0...Int(max(0, height - 300)), using: &generator))
                let bounds = Rect(origin: Point(x: 0, y: y), size: Size(width: 200, height: 300))
                #expect(view.setBounds(bounds, animated: false) == twinView.setBounds(bounds, animated: false), comment)
            }
        }
        #expect(applied > store.share(600), "seed \(seed): \(applied) reports, too few to mean anything")
        #expect(itemsLeaving > store.share(50), "seed \(seed): \(itemsLeaving) cells left the view, too few to check their ids")
    }

    @Test("A lazily fetched controller drives the view: after every commit the counts are the controller's and every cell's id is its record's", arguments: ResultsStoreFixture.all)
    func lazyResult(store: ResultsStoreFixture) throws {
        let seed = testSeed(default: 0x1A2B)
        print("ResultsDataSource lazy result (\(store.name)): seed \(seed); replay with TESSERA_SEED=\(seed)")
        var generator = SplitMix64(seed: seed)
        var request = store.portable(Self.request)
        request.fetchBatchSize = 4
        let driven = try Driven(store, request: request)
        let (database, controller, log, view, source) = (driven.database, driven.controller, driven.log, driven.view, driven.source)
        #expect(controller.result.isLazy)

        var applied = 0
        var appliedInRound = -2
        var sameState = 0
        for round in 0..<store.rounds(400) {
            let comment = Comment(rawValue: "seed \(seed), round \(round)")
            let reportsBefore = log.reports.count
            Self.randomTransaction(database, using: &generator)
            guard log.reports.count > reportsBefore, let report = log.reports.last else { continue }
            // A patch right after the report applied last starts from the
            // very state that report ended with: the data source checks it
            // without comparing or reading. (A commit that changes no row
            // in view, or a re-fetch, may leave an equal state in its place.)
            if appliedInRound == round - 1, controller.lastUpdateMethod == .incremental {
                #expect(report.old.isSameState(as: source.result), comment)
                sameState += 1
            }
            let plan = try source.apply(report)
            applied += 1
            appliedInRound = round
            #expect(view.itemCounts == Self.counts(controller.result), comment)
            for element in plan.elements where element.category == .cell {
                if let path = element.indexPathAfter {
                    #expect(element.itemID == "\(controller.result[path].id)", comment)
                }
            }
        }
        #expect(applied > store.share(200), "seed \(seed): \(applied) reports, too few to mean anything")
        #expect(sameState > store.share(50), "seed \(seed): \(sameState) reports right after another, too few to mean anything")
    }

    @Test("Random reports skipped or applied twice: a doubled one always throws, a skipped one throws or lands in step, and nothing changes when it throws", arguments: ResultsStoreFixture.all)
    func reportsOutOfStep(store: ResultsStoreFixture) throws {
        let seed = testSeed(default: 0x0575)
        print("ResultsDataSource out of step (\(store.name)): seed \(seed); replay with TESSERA_SEED=\(seed)")
        var generator = SplitMix64(seed: seed)
        let driven = try Driven(store)
        let (database, controller, log, view, source) = (driven.database, driven.controller, driven.log, driven.view, driven.source)

        var doubled = 0, skippedCaught = 0, skippedUnseen = 0
        var skipping = false
        for round in 0..<store.rounds(1_000) {
            let comment = Comment(rawValue: "seed \(seed), round \(round)")
            let reportsBefore = log.reports.count
            Self.randomTransaction(database, using: &generator)
            guard log.reports.count > reportsBefore, let report = log.reports.last else { continue }
            if skipping {
                skipping = false
                let shown = Self.counts(source.result)
                let visible = view.visibleElements
                do {
                    try source.apply(report)
                    skippedUnseen += 1
                } catch let error as ResultsDataSourceError {
                    skippedCaught += 1
                    #expect(Self.counts(source.result) == shown && view.itemCounts == shown, comment)
                    #expect(view.visibleElements == visible, comment)
                    #expect(!error.description.isEmpty, comment)
                    source.reload(report.new)
                }
                #expect(view.itemCounts == Self.counts(controller.result), comment)
                continue
            }
            try source.apply(report)
            switch Int.random(in: 0..<10, using: &generator) {
            case 0:
                // The same report again: the view already shows its result after.
                let visible = view.visibleElements
                #expect(throws: ResultsDataSourceError.self, comment) { try source.apply(report) }
                #expect(view.visibleElements == visible, comment)
                doubled += 1
            case 1:
                skipping = true
                let pending = log.reports.count
                Self.randomTransaction(database, using: &generator)
                // A commit that changed nothing (or rolled back) skips nothing.
                if log.reports.count == pending { skipping = false }
            default:
                break
            }
            if !skipping {
                #expect(view.itemCounts == Self.counts(controller.result), comment)
            }
        }
        #expect(doubled > store.share(40) && skippedCaught > store.share(20), "seed \(seed): \(doubled) doubled, \(skippedCaught) skipped and caught, \(skippedUnseen) unseen")
    }

    @Test("A report applied twice names what does not match: the counts it starts from, or the item it updates")
    func doubledReportNamesTheMismatch() throws {
        let database = try Self.makePhotos(.sqliteInMemory)
        try database.write { db in
            try db.execute("INSERT INTO photo VALUES (1, 'a', 3, 'x', 1), (2, 'a', 2, 'y', 1), (3, 'b', 1, 'z', 1)")
        }
        let controller = try database.fetchedResultsController(Self.request, of: Photo.self)
        let log = ReportLog<Photo>()
        controller.delegate = log
        try controller.performFetch()
        let view = Self.makeView()
        let source = ResultsDataSource(collectionView: view, result: controller.result)

        try database.write { db in try db.execute("INSERT INTO photo VALUES (4, 'a', 9, 'w', 1)") }
        let insert = try #require(log.reports.last)
        try source.apply(insert)
        #expect(throws: ResultsDataSourceError.itemCountMismatch(section: 0, shown: 3, reportBefore: 2)) { try source.apply(insert) }

        try database.write { db in try db.execute("UPDATE photo SET title = 'renamed' WHERE id = 3") }
        let update = try #require(log.reports.last)
        #expect(update.changeset.itemUpdates.map(\.from) == [IndexPath(item: 0, section: 1)])
        try source.apply(update)
        #expect(throws: ResultsDataSourceError.itemMismatch(indexPath: IndexPath(item: 0, section: 1))) { try source.apply(update) }

        try database.write { db in try db.execute("INSERT INTO photo VALUES (5, 'c', 1, 'v', 1)") }
        let newSection = try #require(log.reports.last)
        try source.apply(newSection)
        #expect(throws: ResultsDataSourceError.sectionCountMismatch(shown: 3, reportBefore: 2)) { try source.apply(newSection) }
        #expect(view.itemCounts == [3, 1, 1])
    }

    @Test("A skipped report that renames an item throws for the next report that touches it; reload puts the view back in step")
    func skippedReportThenReload() throws {
        let database = try Self.makePhotos(.sqliteInMemory)
        try database.write { db in
            try db.execute("INSERT INTO photo VALUES (1, 'a', 3, 'x', 1), (2, 'a', 2, 'y', 1)")
        }
        let controller = try database.fetchedResultsController(Self.request, of: Photo.self)
        let log = ReportLog<Photo>()
        controller.delegate = log
        try controller.performFetch()
        let view = Self.makeView()
        let source = ResultsDataSource(collectionView: view, result: controller.result)
        let visible = view.visibleElements

        try database.write { db in try db.execute("UPDATE photo SET title = 'skipped' WHERE id = 2") }
        try database.write { db in try db.execute("DELETE FROM photo WHERE id = 2") }
        let delete = try #require(log.reports.last)
        #expect(throws: ResultsDataSourceError.itemMismatch(indexPath: IndexPath(item: 1, section: 0))) { try source.apply(delete) }
        #expect(view.visibleElements == visible)
        #expect(source.result[IndexPath(item: 1, section: 0)].title == "y")

        source.reload(delete.new)
        #expect(view.itemCounts == [1])
        #expect(source.collectionView(view, itemIdentifierAt: IndexPath(item: 0, section: 0)) == "1")
        try database.write { db in try db.execute("INSERT INTO photo VALUES (3, 'a', 1, 'z', 1)") }
        let plan = try source.apply(try #require(log.reports.last))
        #expect(plan.elements.compactMap(\.itemID) == ["1", "3"])
    }

    @Test("Item ids and reuse identifiers come from the closures given; a deleted cell's id is read from the result before")
    func closures() throws {
        let database = try Self.makePhotos(.sqliteInMemory)
        try database.write { db in
            try db.execute("INSERT INTO photo VALUES (1, 'a', 3, 'x', 1), (2, 'a', 2, 'y', 1)")
        }
        let controller = try database.fetchedResultsController(Self.request, of: Photo.self)
        let log = ReportLog<Photo>()
        controller.delegate = log
        try controller.performFetch()
        let view = Self.makeView()
        let source = ResultsDataSource(
            collectionView: view, result: controller.result,
            itemIdentifier: { "photo-\($0.id)" },
            reuseIdentifier: { _, photo in photo.title == "x" ? "Wide" : "Cell" },
            supplementaryReuseIdentifier: { kind, path in "\(kind)-\(path[0])" }
        )
        #expect(source.collectionView(view, reuseIdentifierForItemAt: IndexPath(item: 0, section: 0)) == "Wide")
        #expect(source.collectionView(view, reuseIdentifierForItemAt: IndexPath(item: 5, section: 0)) == "Cell")
        #expect(source.collectionView(view, reuseIdentifierForSupplementaryElementOfKind: ElementKind.sectionHeader, at: IndexPath(item: 0, section: 0)) == "\(ElementKind.sectionHeader)-0")
        #expect(source.collectionView(view, itemIdentifierAt: IndexPath(item: 1, section: 0)) == "photo-2")
        #expect(source.collectionView(view, itemIdentifierAt: IndexPath(item: 0, section: 3)) == nil)

        try database.write { db in try db.execute("DELETE FROM photo WHERE id = 1") }
        let plan = try source.apply(try #require(log.reports.last))
        let deleted = try #require(plan.elements.first { $0.disposition == .delete && $0.category == .cell })
        #expect(deleted.itemID == "photo-1")
        #expect(plan.elements.filter { $0.category == .cell }.compactMap(\.itemID).sorted() == ["photo-1", "photo-2"])
    }

    @Test("A relational controller's reports drive the view too, with the plans of the diffing data source")
    func relationalReports() throws {
        let database = try ResultsStoreFixture.sqliteInMemory.makeDatabase()
        try database.write { db in
            try db.execute("CREATE TABLE album (id INTEGER PRIMARY KEY, name TEXT)")
            try db.execute("CREATE TABLE photo (id INTEGER PRIMARY KEY, album_id INTEGER, date INTEGER, title TEXT)")
            try db.execute("INSERT INTO album VALUES (1, 'one'), (2, 'two')")
            try db.execute("INSERT INTO photo VALUES (1, 1, 5, 'a'), (2, 1, 4, 'b'), (3, 2, 3, 'c')")
        }
        let controller = database.relationalResultsController(
            parents: ParentRequest(table: "album", sortKeys: [SortKey("name")]),
            children: ChildRequest(table: "photo", foreignKeyColumn: "album_id", sortKeys: [SortKey("date")]),
            of: (Album.self, AlbumPhoto.self)
        )
        let log = RelationalLog<Album, AlbumPhoto>()
        controller.delegate = log
        try controller.performFetch()
        let view = Self.makeView()
        let source = ResultsDataSource(collectionView: view, result: controller.snapshot)
        let twinView = Self.makeView()
        let twin = DiffableDataSource<Album, AlbumPhoto>(collectionView: twinView)
        try twin.apply(controller.snapshot, animated: false)

        let scripts = [
            "INSERT INTO photo VALUES (4, 2, 1, 'd')",
            "UPDATE photo SET album_id = 2 WHERE id = 1",
            "UPDATE album SET name = 'zero' WHERE id = 2",
            "INSERT INTO album VALUES (3, 'alpha')",
            "DELETE FROM photo WHERE id = 2",
            "DELETE FROM album WHERE id = 1",
        ]
        for script in scripts {
            try database.write { db in try db.execute(script) }
            let report = try #require(log.reports.last)
            #expect(try source.apply(report) == twin.apply(report.newSnapshot), Comment(rawValue: script))
            #expect(view.itemCounts == controller.snapshot.itemCounts, Comment(rawValue: script))
        }
        #expect(log.reports.count == scripts.count)
        let last = try #require(log.reports.last)
        #expect(throws: ResultsDataSourceError.self) { try source.apply(last) }
    }
}
