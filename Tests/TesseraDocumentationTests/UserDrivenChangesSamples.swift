import Testing
import Tessera

/// The "User-driven changes" article's samples, compiled with the import it
/// states and run on an in-memory database.
@Suite("User-driven changes samples")
struct UserDrivenChangesSamples {
    @Test("The todo sample stores a dragged row's order and reports no move; a data source takes the report without a batch")
    func todo() throws {
        let connection = try Connection(path: ":memory:")
        try connection.write { db in
            try db.execute("CREATE TABLE todo (id INTEGER PRIMARY KEY, position INTEGER NOT NULL, title TEXT NOT NULL)")
            try db.execute("INSERT INTO todo VALUES (1, 0, 'milk'), (2, 1, 'bread'), (3, 2, 'eggs')")
        }

        // sample: Sources/TesseraResults/TesseraResults.docc/UserDrivenChanges.md
        struct Todo: FetchableRecord {
            var id: Int64
            var title: String

            init(row: Row) throws {
                id = row["id"].int64 ?? -1
                title = row["title"].string ?? ""
            }
        }

        let controller = try FetchedResultsController<Todo>(
            connection: connection,
            request: FetchRequest(table: "todo", sortKeys: [SortKey("position")])
        )
        try controller.performFetch()

        /// Where the user dropped a row: store the order the view shows.
        func userMovedTodo(from source: IndexPath, to destination: IndexPath) throws {
            try controller.performUserDrivenChange(.move(from: source, to: destination)) {
                var ids = controller.snapshot.allItems.map(\.id)
                ids.insert(ids.remove(at: source.item), at: destination.item)
                try connection.write { db in
                    for (position, id) in ids.enumerated() {
                        try db.execute("UPDATE todo SET position = ? WHERE id = ?", [.integer(Int64(position)), .integer(id)])
                    }
                }
            }
        }
        // end of sample

        let view = CollectionView(layout: FlowLayout(), size: Size(width: 390, height: 844))
        let dataSource = ResultsDataSource(collectionView: view, result: controller.result)
        final class Log: FetchedResultsControllerDelegate {
            var reports: [ChangeReport<Todo>] = []
            func controller(_ controller: FetchedResultsController<Todo>, didChangeContentWith report: ChangeReport<Todo>) { reports.append(report) }
        }
        let log = Log()
        controller.delegate = log

        try userMovedTodo(from: IndexPath(item: 0, section: 0), to: IndexPath(item: 2, section: 0))
        let reports = log.reports
        #expect(reports.count == 1)
        #expect(reports.first?.changeset.isEmpty == true)
        #expect(reports.first?.oldSnapshot.allItems.map(\.id) == [2, 3, 1])
        for report in reports { try dataSource.apply(report) }
        #expect(dataSource.result.isSameState(as: controller.result))
        #expect(controller.snapshot.allItems.map(\.title) == ["bread", "eggs", "milk"])
    }

    @Test("The playlist sample reports the dragged song as updated, not moved")
    func playlist() throws {
        // sample: Sources/TesseraResults/TesseraResults.docc/UserDrivenChanges.md
        struct Song: Identifiable, Equatable, Sendable {
            var id: Int
            var position: Int
            var title: String
        }

        let playlist = MutableResultsController<Int, Song>(
            sectionKey: { _ in 0 }, sectionOrder: { $0 < $1 }, itemOrder: { $0.position < $1.position }
        )
        try playlist.insert(contentsOf: [
            Song(id: 1, position: 1, title: "intro"),
            Song(id: 2, position: 2, title: "verse"),
            Song(id: 3, position: 3, title: "outro"),
        ])

        // The user dragged "outro" to the top of the list.
        try playlist.performUserDrivenChange(.move(from: IndexPath(item: 2, section: 0), to: IndexPath(item: 0, section: 0))) {
            playlist.didUpdate(Song(id: 3, position: 0, title: "outro"))
        }
        // end of sample
        #expect(playlist.snapshot.allItems.map(\.title) == ["outro", "intro", "verse"])
    }
}
