import Foundation
import Testing
import TesseraDiff
import TesseraResults
import TesseraResultsTestSupport
import TesseraSQLite
import TesseraTestSupport
import TesseraTestTraits

// Runs on every store (ResultsStoreFixture.all): sections from parents,
// renames, moves across parents, deletes, rollbacks and savepoints, one
// report per transaction, new requests, duplicate keys and the randomized
// oracle. Single-store (SQLite): a renamed column's error, which is
// SQLite's, and refresh after another connection's commit to the same
// file.

@Suite("RelationalResultsController", .tags(.postgres), .ownThreads)
struct RelationalResultsControllerTests {
    static let parents = ParentRequest(table: "album", predicate: "archived = ?", arguments: [.integer(0)], sortKeys: [SortKey("name")])
    static let children = ChildRequest(table: "photo", foreignKeyColumn: "album_id", predicate: "hidden = ?", arguments: [.integer(0)], sortKeys: [SortKey("date", ascending: false)])

    static let tables = [
        "CREATE TABLE album (id INTEGER PRIMARY KEY, name TEXT, archived INTEGER NOT NULL DEFAULT 0)",
        "CREATE TABLE photo (id INTEGER PRIMARY KEY, album_id INTEGER, date INTEGER, title TEXT, hidden INTEGER NOT NULL DEFAULT 0)",
        "CREATE TABLE other (id INTEGER PRIMARY KEY)",
    ]

    /// `album`, `photo` and `other`, empty, in a database of `store`.
    static func makeDatabase(_ store: ResultsStoreFixture) throws -> TestDatabase {
        try store.makeDatabase(executing: tables)
    }

    /// The same tables in an SQLite database in memory.
    static func makeDatabase() throws -> Connection {
        try Connection.inMemory(executing: tables)
    }

    static func makeController(_ database: TestDatabase) throws -> (RelationalResultsController<Album, AlbumPhoto>, RelationalLog<Album, AlbumPhoto>) {
        try start(database.relationalResultsController(parents: parents, children: children))
    }

    static func makeController(_ connection: Connection) throws -> (RelationalResultsController<Album, AlbumPhoto>, RelationalLog<Album, AlbumPhoto>) {
        try start(RelationalResultsController<Album, AlbumPhoto>(connection: connection, parents: parents, children: children))
    }

    /// Gives the controller a log and fetches.
    static func start(_ controller: RelationalResultsController<Album, AlbumPhoto>) throws -> (RelationalResultsController<Album, AlbumPhoto>, RelationalLog<Album, AlbumPhoto>) {
        let log = RelationalLog<Album, AlbumPhoto>()
        controller.delegate = log
        try controller.performFetch()
        return (controller, log)
    }

    /// Section names with their photo ids.
    static func layout(_ controller: RelationalResultsController<Album, AlbumPhoto>) -> [String] {
        (0..<controller.numberOfSections).map { s in
            controller.parent(at: s).name + ":" + controller.snapshot.items(inSection: s).map { String($0.id) }.joined(separator: ",")
        }
    }

    static let seedRows = [
        "INSERT INTO album (id, name, archived) VALUES (1, 'beach', 0), (2, 'alps', 0), (3, 'empty', 0), (4, 'old', 1)",
        """
        INSERT INTO photo (id, album_id, date, title, hidden) VALUES
        (10, 1, 5, 'a', 0), (11, 1, 7, 'b', 0), (12, 2, 1, 'c', 0),
        (13, 4, 1, 'archived album', 0), (14, 99, 1, 'no such album', 0), (15, NULL, 1, 'no album', 0), (16, 1, 9, 'hidden', 1)
        """,
    ]

    /// Four albums (one archived) and photos, some hidden or without a
    /// shown album.
    static func seed(_ database: TestDatabase) throws {
        try database.write { db in
            for sql in seedRows { try db.execute(sql) }
        }
    }

    static func seed(_ connection: Connection) throws {
        try connection.write { db in
            for sql in seedRows { try db.execute(sql) }
        }
    }

    @Test("Parents are sections in their order, a parent with no children is an empty section, children without a shown parent are not shown", arguments: ResultsStoreFixture.all)
    func fetch(store: ResultsStoreFixture) throws {
        let database = try Self.makeDatabase(store)
        try Self.seed(database)
        let (controller, _) = try Self.makeController(database)
        #expect(Self.layout(controller) == ["alps:12", "beach:11,10", "empty:"])
        #expect(controller.sections.map(\.id) == [2, 1, 3])
        #expect(controller.numberOfObjects(inSection: 2) == 0)
        #expect(controller.object(at: IndexPath(item: 1, section: 1)).id == 10)
        #expect(controller.section(for: Album(id: 3, name: "")) == 2)
        #expect(controller.observedTables == ["album", "photo"])
    }

    @Test("A renamed parent is a section update; a rename that reorders is a section move plus an update", arguments: ResultsStoreFixture.all)
    func parentRenameIsSectionUpdate(store: ResultsStoreFixture) throws {
        let database = try Self.makeDatabase(store)
        try Self.seed(database)
        let (controller, log) = try Self.makeController(database)
        try database.write { db in try db.execute("UPDATE album SET name = 'beaches' WHERE id = 1") }
        #expect(log.reports.count == 1)
        #expect(log.reports.last?.changeset == Changeset(sectionUpdates: [Move(from: 1, to: 1)]))
        #expect(log.events == ["will", "section update 1 1", "did"])
        try database.write { db in try db.execute("UPDATE album SET name = 'zoo' WHERE id = 2") }
        #expect(Self.layout(controller) == ["beaches:11,10", "empty:", "zoo:12"])
        let changeset = try #require(log.reports.last).changeset
        #expect(changeset.sectionUpdates == [Move(from: 0, to: 2)])
        #expect(changeset.sectionMoves.count == 1 && changeset.itemMoves.isEmpty && changeset.itemUpdates.isEmpty)
    }

    @Test("A child that moves to another parent is an item move across sections", arguments: ResultsStoreFixture.all)
    func childMovingParentIsCrossSectionMove(store: ResultsStoreFixture) throws {
        let database = try Self.makeDatabase(store)
        try Self.seed(database)
        let (controller, log) = try Self.makeController(database)
        try database.write { db in try db.execute("UPDATE photo SET album_id = 3 WHERE id = 12") }
        #expect(Self.layout(controller) == ["alps:", "beach:11,10", "empty:12"])
        #expect(log.reports.last?.changeset == Changeset(
            itemMoves: [Move(from: IndexPath(item: 0, section: 0), to: IndexPath(item: 0, section: 2))],
            itemUpdates: [Move(from: IndexPath(item: 0, section: 0), to: IndexPath(item: 0, section: 2))]
        ))
    }

    @Test("A deleted parent is a section delete; its children go with it; an archived one likewise, and comes back with its children", arguments: ResultsStoreFixture.all)
    func parentDeleteIsSectionDelete(store: ResultsStoreFixture) throws {
        let database = try Self.makeDatabase(store)
        try Self.seed(database)
        let (controller, log) = try Self.makeController(database)
        try database.write { db in try db.execute("DELETE FROM album WHERE id = 1") }
        #expect(Self.layout(controller) == ["alps:12", "empty:"])
        #expect(log.reports.last?.changeset == Changeset(sectionDeletes: [1]))
        try database.write { db in try db.execute("UPDATE album SET archived = 0 WHERE id = 4") }
        #expect(Self.layout(controller) == ["alps:12", "empty:", "old:13"])
        #expect(log.reports.last?.changeset == Changeset(sectionInserts: [2]))
        #expect(log.reports.count == 2)
    }

    @Test("Rolled-back transactions report nothing; a rolled-back savepoint drops only its own changes; invisible changes report nothing", arguments: ResultsStoreFixture.all)
    func rollbacksReportNothing(store: ResultsStoreFixture) throws {
        let database = try Self.makeDatabase(store)
        try Self.seed(database)
        let (controller, log) = try Self.makeController(database)
        let before = controller.snapshot
        try? database.write { db in
            try db.execute("DELETE FROM photo")
            try db.execute("UPDATE album SET name = 'x'")
            throw Rollback()
        }
        #expect(log.reports.isEmpty && controller.snapshot == before)
        try database.write { db in
            try db.execute("UPDATE photo SET title = 'z' WHERE id = 14")   // no shown parent
            try db.execute("INSERT INTO other VALUES (1)")
        }
        #expect(log.reports.isEmpty)
        try database.write { db in
            try? db.savepoint { db in
                try db.execute("DELETE FROM album WHERE id = 2")
                throw Rollback()
            }
            try db.execute("INSERT INTO photo (id, album_id, date, title) VALUES (20, 3, 1, 'new')")
        }
        #expect(log.reports.count == 1)
        #expect(log.reports.last?.changeset == Changeset(itemInserts: [IndexPath(item: 0, section: 2)]))
    }

    @Test("One transaction touching both tables gives one report, in Core Data's callback order", arguments: ResultsStoreFixture.all)
    func oneReportPerTransaction(store: ResultsStoreFixture) throws {
        let database = try Self.makeDatabase(store)
        try Self.seed(database)
        let (controller, log) = try Self.makeController(database)
        try database.write { db in
            try db.execute("INSERT INTO album (id, name) VALUES (5, 'city')")
            try db.execute("UPDATE photo SET album_id = 5 WHERE id = 10")
            try db.execute("DELETE FROM photo WHERE id = 12")
        }
        #expect(Self.layout(controller) == ["alps:", "beach:11", "city:10", "empty:"])
        #expect(log.reports.count == 1)
        #expect(log.events == ["will", "section insert - 2", "delete [0, 0] -", "delete [1, 1] -", "did"])
    }

    @Test("A schema change re-fetches: a renamed sort column is an error naming it, renaming it back recovers")
    func schemaChange() throws {
        let connection = try Self.makeDatabase()
        try Self.seed(connection)
        let (controller, log) = try Self.makeController(connection)
        try connection.write { db in try db.execute("ALTER TABLE photo RENAME COLUMN date TO taken") }
        guard case let .database(error)? = controller.lastError else {
            Issue.record("expected a database error, got \(String(describing: controller.lastError))")
            return
        }
        #expect(error.message.contains("date"))
        #expect(log.errors.count == 1 && Self.layout(controller) == ["alps:12", "beach:11,10", "empty:"])
        try connection.write { db in try db.execute("ALTER TABLE photo RENAME COLUMN taken TO date") }
        #expect(controller.lastError == nil && log.reports.isEmpty)
    }

    @Test("Changing the requests reports the difference", arguments: ResultsStoreFixture.all)
    func setRequests(store: ResultsStoreFixture) throws {
        let database = try Self.makeDatabase(store)
        try Self.seed(database)
        let (controller, log) = try Self.makeController(database)
        var parents = Self.parents
        parents.predicate = nil
        parents.arguments = []
        try controller.setRequests(parents: parents, children: Self.children)
        #expect(Self.layout(controller) == ["alps:12", "beach:11,10", "empty:", "old:13"])
        #expect(log.reports.last?.changeset == Changeset(sectionInserts: [3]))
        var broken = Self.children
        broken.predicate = "missing = 1"
        #expect(throws: ResultsError.self) { try controller.setRequests(parents: Self.parents, children: broken) }
        #expect(controller.parentRequest == parents && controller.numberOfSections == 4)
    }

    @Test("Another connection's commits are seen by refresh, as one report, and through the reports stream")
    func refreshAndStream() async throws {
        let file = try temporaryDirectory().appendingPathComponent("relational.sqlite").path
        let connection = try Connection(path: file)
        try connection.write { db in
            try db.execute("CREATE TABLE album (id INTEGER PRIMARY KEY, name TEXT, archived INTEGER NOT NULL DEFAULT 0)")
            try db.execute("CREATE TABLE photo (id INTEGER PRIMARY KEY, album_id INTEGER, date INTEGER, title TEXT, hidden INTEGER NOT NULL DEFAULT 0)")
        }
        try Self.seed(connection)
        let (controller, log) = try Self.makeController(connection)
        let stream = controller.reports
        let other = try Connection(path: file)
        try other.write { db in
            try db.execute("UPDATE album SET name = 'mountains' WHERE id = 2")
            try db.execute("INSERT INTO photo (id, album_id, date, title) VALUES (30, 3, 1, 'x')")
        }
        #expect(log.reports.isEmpty, "another connection's commit is not seen until refresh")
        try controller.refresh()
        #expect(Self.layout(controller) == ["beach:11,10", "empty:30", "mountains:12"])
        #expect(log.reports.count == 1)
        try controller.refresh()
        #expect(log.reports.count == 1, "a refresh that finds nothing new reports nothing")
        var iterator = stream.makeAsyncIterator()
        let report = await iterator.next()
        #expect(report?.newSnapshot == controller.snapshot && report?.changeset == log.reports.first?.changeset)
    }

    @Test("A key column that repeats is a duplicate-key error", arguments: ResultsStoreFixture.all)
    func duplicateKeys(store: ResultsStoreFixture) throws {
        let database = try Self.makeDatabase(store)
        try Self.seed(database)
        let controller = database.relationalResultsController(
            parents: ParentRequest(table: "album", keyColumn: "archived"),
            children: Self.children,
            of: (Album.self, AlbumPhoto.self)
        )
        #expect(throws: ResultsError.duplicateKey("0")) { try controller.performFetch() }
    }

    // MARK: Randomized oracle

    /// The result computed with plain queries: the parents, then each
    /// parent's children.
    static func oracle(_ database: TestDatabase) throws -> Snapshot<Album, AlbumPhoto> {
        try database.withConnection { db in
            var snapshot = Snapshot<Album, AlbumPhoto>()
            for row in try db.rows("SELECT id, name FROM album WHERE archived = 0 ORDER BY name, id") {
                let album = Album(id: row[0].int64!, name: row[1].string ?? "")
                let photos = try db.rows("SELECT id, album_id, date, title FROM photo WHERE album_id = ? AND hidden = 0 ORDER BY date DESC, id", [row[0]])
                snapshot.appendSection(album, items: photos.map(AlbumPhoto.init(values:)))
            }
            return snapshot
        }
    }

    @Test("Random transactions: after each commit the result equals plain queries, and the report replays to it", arguments: ResultsStoreFixture.all)
    func randomTransactions(store: ResultsStoreFixture) throws {
        let seed = testSeed(default: 0x0A1B_2C3D)
        var generator = SplitMix64(seed: seed)
        let database = try Self.makeDatabase(store)
        let (controller, log) = try Self.makeController(database)
        let names: [DatabaseValue] = ["a", "b", "c", "d", nil]
        for round in 0..<store.rounds(1000, divisor: 4) {
            let before = (controller.snapshot, log.reports.count)
            let rollback = Int.random(in: 0..<10, using: &generator) == 0
            try? database.write { (db: any TestConnection) -> Void in
                for _ in 0..<Int.random(in: 1...4, using: &generator) {
                    let album = Int64.random(in: 1...8, using: &generator)
                    let photo = Int64.random(in: 1...40, using: &generator)
                    switch Int.random(in: 0..<100, using: &generator) {
                    case 0..<12:
                        try db.execute("INSERT OR REPLACE INTO album VALUES (?, ?, ?)", [.integer(album), names.randomElement(using: &generator)!, .integer(Int64.random(in: 0...4, using: &generator) == 0 ? 1 : 0)])
                    case 12..<20:
                        try db.execute("UPDATE album SET name = ? WHERE id = ?", [names.randomElement(using: &generator)!, .integer(album)])
                    case 20..<24:
                        try db.execute("UPDATE album SET archived = 1 - archived WHERE id = ?", [.integer(album)])
                    case 24..<29:
                        try db.execute("DELETE FROM album WHERE id = ?", [.integer(album)])
                    case 29..<55:
                        try db.execute("INSERT OR REPLACE INTO photo VALUES (?, ?, ?, ?, ?)", [
                            .integer(photo), Int.random(in: 0..<10, using: &generator) == 0 ? .null : .integer(album),
                            .integer(Int64.random(in: 0...5, using: &generator)), .text("t\(photo % 3)"),
                            .integer(Int64.random(in: 0...5, using: &generator) == 0 ? 1 : 0),
                        ])
                    case 55..<70:
                        try db.execute("UPDATE photo SET album_id = ? WHERE id = ?", [.integer(album), .integer(photo)])
                    case 70..<80:
                        try db.execute("UPDATE photo SET date = ?, title = ? WHERE id = ?", [.integer(Int64.random(in: 0...5, using: &generator)), .text("u\(photo % 2)"), .integer(photo)])
                    case 80..<84:
                        try db.execute("UPDATE photo SET hidden = 1 - hidden WHERE id = ?", [.integer(photo)])
                    case 84..<92:
                        try db.execute("DELETE FROM photo WHERE id = ?", [.integer(photo)])
                    case 92..<94:
                        try db.execute("DELETE FROM photo")
                    case 94..<96:
                        try db.execute("INSERT OR REPLACE INTO other VALUES (?)", [.integer(photo)])
                    default:
                        let release = Bool.random(using: &generator)
                        try? db.savepoint { db in
                            try db.execute("UPDATE photo SET album_id = ? WHERE id % 4 = ?", [.integer(album), .integer(photo % 4)])
                            try db.execute("DELETE FROM album WHERE id = ?", [.integer(album % 3 + 1)])
                            if !release { throw Rollback() }
                        }
                    }
                }
                if rollback { throw Rollback() }
            }
            let comment = Comment(rawValue: "seed \(seed), round \(round)")
            let expected = try Self.oracle(database)
            #expect(controller.snapshot == expected, comment)
            #expect(controller.lastError == nil, comment)
            if expected == before.0 {
                #expect(log.reports.count == before.1, "no report without a visible change; \(comment)")
            } else {
                #expect(log.reports.count == before.1 + 1, comment)
                if let report = log.reports.last, log.reports.count == before.1 + 1 {
                    #expect(report.oldSnapshot == before.0 && report.newSnapshot == expected, comment)
                    #expect(report.changeset == (try diff(from: before.0, to: expected)), comment)
                    #expect(try before.0.applying(report.changeset, takingValuesFrom: report.newSnapshot) == expected, comment)
                }
            }
            if rollback {
                #expect(log.reports.count == before.1, comment)
            }
        }
        #expect(log.reports.count > store.share(400), "seed \(seed): too few reports to mean anything")
        let sectionUpdates = log.reports.reduce(0) { $0 + $1.changeset.sectionUpdates.count }
        let crossMoves = log.reports.reduce(0) { $0 + $1.changeset.itemMoves.filter { $0.from.section != $0.to.section }.count }
        #expect(sectionUpdates > store.share(20) && crossMoves > store.share(5), "seed \(seed): the random transactions must rename parents (\(sectionUpdates)) and move children across parents (\(crossMoves))")
    }
}
