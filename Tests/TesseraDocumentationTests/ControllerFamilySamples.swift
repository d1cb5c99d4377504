import Testing
import TesseraResults

/// The "Mutable, relational and set controllers" article's samples,
/// compiled with the import it states and run on an in-memory database.
@Suite("Controller family samples")
struct ControllerFamilySamples {
    struct Album: FetchableRecord {
        var id: Int64
        var name: String

        init(row: Row) throws {
            id = row["id"].int64 ?? -1
            name = row["name"].string ?? ""
        }
    }

    struct Photo: FetchableRecord {
        var id: Int64
        var albumID: Int64?
        var date: Int64

        init(row: Row) throws {
            id = row["id"].int64 ?? -1
            albumID = row["album_id"].int64
            date = row["date"].int64 ?? 0
        }
    }

    struct Message: FetchableRecord {
        var id: Int64
        var subject: String

        init(row: Row) throws {
            id = row["id"].int64 ?? -1
            subject = row["subject"].string ?? ""
        }
    }

    @Test("The mutable sample sorts the cards into their decks, with the update applied")
    func mutable() throws {
        // sample: Sources/TesseraResults/TesseraResults.docc/TheControllerFamily.md
        struct Card: Identifiable, Equatable, Sendable {
            var id: Int
            var deck: String
            var rank: Int
            var title: String
        }

        let controller = MutableResultsController<String, Card>(
            sectionKey: \.deck,
            sortKeys: [.ascending(\.rank), .descending(\.title)]
        )
        try controller.insert(Card(id: 1, deck: "hearts", rank: 2, title: "two"))   // one report

        controller.beginEditing()
        try controller.insert(Card(id: 2, deck: "spades", rank: 1, title: "ace"))
        controller.didUpdate(Card(id: 1, deck: "hearts", rank: 2, title: "deuce"))
        controller.endEditing()                                                       // one report for both
        // end of sample
        #expect(controller.sections == ["hearts", "spades"])
        #expect(controller.object(at: IndexPath(item: 0, section: 0)).title == "deuce")
        #expect(controller.numberOfObjects(inSection: 1) == 1)
    }

    @Test("The relational sample reads the first album that is not archived and its newest photo")
    func relational() throws {
        let connection = try Connection(path: ":memory:")
        try connection.write { db in
            try db.execute("CREATE TABLE album (id INTEGER PRIMARY KEY, name TEXT NOT NULL, archived INTEGER NOT NULL DEFAULT 0)")
            try db.execute("CREATE TABLE photo (id INTEGER PRIMARY KEY, album_id INTEGER, date INTEGER NOT NULL)")
            try db.execute("INSERT INTO album VALUES (1, 'alps', 0), (2, 'archive', 1), (3, 'beach', 0)")
            try db.execute("INSERT INTO photo VALUES (10, 1, 2020), (11, 1, 2022), (12, 3, 2021), (13, 2, 2023)")
        }

        // sample: Sources/TesseraResults/TesseraResults.docc/TheControllerFamily.md
        let controller = RelationalResultsController<Album, Photo>(
            connection: connection,
            parents: ParentRequest(table: "album", predicate: "archived = 0", sortKeys: [SortKey("name")]),
            children: ChildRequest(table: "photo", foreignKeyColumn: "album_id",
                                   sortKeys: [SortKey("date", ascending: false)])
        )
        try controller.performFetch()
        let album = controller.parent(at: 0)                               // an Album
        let photo = controller.object(at: IndexPath(item: 0, section: 0))  // a Photo
        // end of sample
        #expect(album.name == "alps")
        #expect(photo.id == 11)
        #expect(controller.sections.map(\.name) == ["alps", "beach"])
        #expect(controller.numberOfObjects(inSection: 1) == 1)
    }

    @Test("The set sample counts the unread messages, and its badge follows a commit")
    @MainActor
    func set() async throws {
        let connection = try Connection(path: ":memory:")
        try connection.write { db in
            try db.execute("CREATE TABLE message (id INTEGER PRIMARY KEY, unread INTEGER NOT NULL, subject TEXT NOT NULL)")
            try db.execute("INSERT INTO message VALUES (1, 1, 'a'), (2, 0, 'b'), (3, 1, 'c')")
        }
        // The sample waits for reports until its task is cancelled. The
        // writer lets it start waiting, commits, and cancels it: the report
        // already handed over is still taken, then the loop ends.
        let sample = Task { @MainActor in
            // sample: Sources/TesseraResults/TesseraResults.docc/TheControllerFamily.md
            let unread = FetchedSetController<Message>(
                connection: connection,
                request: SetRequest(table: "message", predicate: "unread = ?", arguments: [.integer(1)])
            )
            try unread.performFetch()
            var badge = unread.count
            let isUnread = unread.contains(id: 42)
            for await report in unread.reports {
                badge = report.newCount   // report.inserted, .deleted, .updated
            }
            // end of sample
            return (badge, isUnread, unread.contains(id: 42))
        }
        let writer = Task { @MainActor in
            await Task.yield()
            try connection.write { db in try db.execute("INSERT INTO message VALUES (42, 1, 'new')") }
            sample.cancel()
        }
        try await writer.value
        let (badge, wasUnreadBefore, isUnreadAfter) = try await sample.value
        #expect(badge == 3)
        #expect(!wasUnreadBefore && isUnreadAfter)
    }
}
