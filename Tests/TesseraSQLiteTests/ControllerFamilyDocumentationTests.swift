import Foundation
import Testing
import TesseraDiff
import TesseraResults
import TesseraSQLite

/// The "Mutable, relational and set controllers" article's examples, run as
/// written.
@Suite("Controller family documentation examples")
struct ControllerFamilyDocumentationTests {
    @Test("The mutable example reports the first insert, then the batch once")
    func mutableExample() throws {
        let controller = MutableResultsController<String, Card>(
            sectionKey: \.deck,
            sortKeys: [.ascending(\.rank), .descending(\.title)]
        )
        let log = MutableLog<String, Card>()
        controller.delegate = log
        try controller.insert(Card(id: 1, deck: "hearts", rank: 2, title: "two"))
        #expect(log.reports.count == 1)

        controller.beginEditing()
        try controller.insert(Card(id: 2, deck: "spades", rank: 1, title: "ace"))
        controller.didUpdate(Card(id: 1, deck: "hearts", rank: 2, title: "deuce"))
        controller.endEditing()
        #expect(log.reports.count == 2)
        #expect(log.reports.last?.changeset == Changeset(
            sectionInserts: [1],
            itemUpdates: [Move(from: IndexPath(item: 0, section: 0), to: IndexPath(item: 0, section: 0))]
        ))
        #expect(controller.sections == ["hearts", "spades"])
    }

    @Test("The relational example reads a parent and a child")
    func relationalExample() throws {
        let connection = try RelationalResultsControllerTests.makeDatabase()
        try RelationalResultsControllerTests.seed(connection)
        let controller = RelationalResultsController<Album, AlbumPhoto>(
            connection: connection,
            parents: ParentRequest(table: "album", predicate: "archived = 0", sortKeys: [SortKey("name")]),
            children: ChildRequest(table: "photo", foreignKeyColumn: "album_id",
                                   sortKeys: [SortKey("date", ascending: false)])
        )
        try controller.performFetch()
        #expect(controller.parent(at: 0).name == "alps")
        #expect(controller.object(at: IndexPath(item: 0, section: 0)).id == 12)
    }

    @Test("The set example counts, looks up, and streams reports with the new count")
    func setExample() async throws {
        let connection = try FetchedSetControllerTests.makeDatabase()
        let unread = FetchedSetController<Message>(
            connection: connection,
            request: SetRequest(table: "message", predicate: "unread = ?", arguments: [.integer(1)])
        )
        try unread.performFetch()
        #expect(unread.count == 3)
        #expect(!unread.contains(id: 42))
        let reports = unread.reports
        try connection.write { db in try db.execute("INSERT INTO message VALUES (42, 'inbox', 1, 'x')") }
        var badge = 0
        for await report in reports {
            badge = report.newCount
            #expect(report.inserted.map(\.id) == [42] && report.deleted.isEmpty && report.updated.isEmpty)
            break
        }
        #expect(badge == 4 && unread.contains(id: 42))
    }
}
