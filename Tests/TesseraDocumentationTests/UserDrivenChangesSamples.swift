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

    @Test("The drag sample: the report of the handler's commit waits until the row settled, does not move it again, and the view shows the order stored")
    func dragEndToEnd() throws {
        let connection = try Connection(path: ":memory:")
        try connection.write { db in
            try db.execute("CREATE TABLE todo (id INTEGER PRIMARY KEY, position INTEGER NOT NULL, title TEXT NOT NULL)")
            try db.execute("INSERT INTO todo VALUES (1, 0, 'milk'), (2, 1, 'bread'), (3, 2, 'eggs'), (4, 3, 'tea')")
        }
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

        // sample: Sources/TesseraResults/TesseraResults.docc/UserDrivenChanges.md
        let view = CollectionView(layout: FlowLayout(), size: Size(width: 390, height: 844))
        let dataSource = ResultsDataSource(collectionView: view, result: controller.result)

        /// Applies each report as it comes.
        final class TodoListUpdater: FetchedResultsControllerDelegate {
            let dataSource: ResultsDataSource<FetchedResult<Todo>>
            var plans: [AnimationPlan] = []

            init(dataSource: ResultsDataSource<FetchedResult<Todo>>) {
                self.dataSource = dataSource
            }

            func controller(_ controller: FetchedResultsController<Todo>, didChangeContentWith report: ChangeReport<Todo>) {
                do {
                    plans.append(try dataSource.apply(report))
                } catch {
                    dataSource.reload(report.new)
                }
            }
        }
        let updater = TodoListUpdater(dataSource: dataSource)
        controller.delegate = updater

        // A dropped row: store the order the view shows.
        dataSource.reorderingHandler = { source, destination, _ in
            try userMovedTodo(from: source, to: destination)
        }

        // The user lifts the first row, drags it over the third, and drops it.
        try view.beginInteractiveMovementForItem(at: IndexPath(item: 0, section: 0))
        if let third = view.collectionViewLayout.layoutAttributesForItem(at: IndexPath(item: 2, section: 0)) {
            try view.updateInteractiveMovementTargetPosition(third.center)
        }
        let plans = try dataSource.endInteractiveMovement()
        // end of sample

        #expect(plans.count == 2)
        #expect(updater.plans.count == 1 && updater.plans[0].elements.isEmpty)
        #expect(!plans[1].elements.contains { $0.category == .cell && $0.itemID == "1" && $0.disposition == .move })
        let stored = try connection.read { db in try db.rows("SELECT id FROM todo ORDER BY position").compactMap { $0[0].int64 } }
        #expect(stored == [2, 3, 1, 4])
        let shown = (0..<view.itemCounts[0]).map { dataSource.collectionView(view, itemIdentifierAt: IndexPath(item: $0, section: 0)) ?? "" }
        #expect(shown == stored.map { "\($0)" })
        #expect(dataSource.result.isSameState(as: controller.result))
    }
}
