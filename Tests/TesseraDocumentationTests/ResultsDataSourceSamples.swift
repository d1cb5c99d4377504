import Testing
import Tessera

/// The samples of ResultsDataSource: the README's, whose delegate applies
/// each report, and the Tessera article's, which reads them from the
/// controller's report sequence. Both run on an in-memory database (the
/// README's uses the photo table of the README's results sample).
@Suite("ResultsDataSource samples")
struct ResultsDataSourceSamples: PrintingSamples {
    let transcript = Transcript()

    struct Photo: FetchableRecord {
        var id: Int64, album: String?, date: Int64, title: String
        init(row: Row) throws {
            id = row["id"].int64 ?? -1
            album = row["album"].string
            date = row["date"].int64 ?? 0
            title = row["title"].string ?? ""
        }
    }

    static func photoLibrary() throws -> Connection {
        let connection = try Connection(path: ":memory:")
        try connection.write { db in
            try db.execute("CREATE TABLE photo (id INTEGER PRIMARY KEY, album TEXT, date INTEGER NOT NULL, title TEXT NOT NULL)")
            try db.execute("INSERT INTO photo VALUES (1, 'Holidays', 2021, 'Beach'), (2, 'Holidays', 2023, 'Pier'), (3, 'Family', 2022, 'Picnic')")
        }
        return connection
    }

    static func fetchedController(_ connection: Connection) throws -> FetchedResultsController<Photo> {
        let request = FetchRequest(table: "photo", sortKeys: [SortKey("album"), SortKey("date", ascending: false)], sectionKey: "album")
        let controller = try FetchedResultsController<Photo>(connection: connection, request: request)
        try controller.performFetch()
        return controller
    }

    @Test("The README's delegate applies each report to the view and keeps its plan; a report out of step reloads")
    func readmeDelegate() throws {
        let connection = try Self.photoLibrary()
        let controller = try Self.fetchedController(connection)

        // sample: README.md
        // Continues the results sample above (Photo, controller).
        final class PhotoGrid: FetchedResultsControllerDelegate {
            let source: ResultsDataSource<FetchedResult<Photo>>
            var plans: [AnimationPlan] = []               // for a renderer to play
            init(source: ResultsDataSource<FetchedResult<Photo>>) { self.source = source }

            func controller(_ controller: FetchedResultsController<Photo>,
                            didChangeContentWith report: ChangeReport<Photo>) {
                do {
                    plans.append(try source.apply(report))   // the report's changeset → one batch → plan
                } catch {
                    source.reload(report.new)                // out of step: show the result, no animation
                }
            }
        }

        let view = CollectionView(layout: FlowLayout(), size: Size(width: 390, height: 844))
        let source = ResultsDataSource(collectionView: view, result: controller.result)
        let grid = PhotoGrid(source: source)
        controller.delegate = grid           // held weakly: keep `grid`
        // end of sample

        let before = controller.result
        try connection.write { db in try db.execute("INSERT INTO photo VALUES (4, 'Family', 2024, 'Garden')") }
        #expect(grid.plans.count == 1)
        #expect(grid.plans.first?.elements.contains { $0.disposition == .insert && $0.itemID == "4" } == true)
        #expect(view.itemCounts == [2, 2])

        // The same report again is out of step: the delegate reloads.
        let again = ChangeReport(changeset: Changeset(itemInserts: [IndexPath(item: 0, section: 0)]), old: before, new: controller.result)
        #expect(throws: ResultsDataSourceError.itemCountMismatch(section: 0, shown: 2, reportBefore: 1)) { try source.apply(again) }
        grid.controller(controller, didChangeContentWith: again)
        #expect(grid.plans.count == 1)
        #expect(view.itemCounts == [2, 2])
    }

    @Test("The article's loop applies each report from the sequence and prints its size")
    @MainActor
    func articleLoop() async throws {
        let connection = try Self.photoLibrary()
        let controller = try Self.fetchedController(connection)
        let view = CollectionView(layout: FlowLayout(), size: Size(width: 390, height: 844))
        // The sample waits for reports until its task is cancelled. The
        // writer lets it start waiting, commits, and cancels it: the report
        // already handed over is still taken, then the loop ends.
        let sample = Task { @MainActor in
            // sample: Sources/Tessera/Tessera.docc/Tessera.md
            let source = ResultsDataSource(collectionView: view, result: controller.result)

            for await report in controller.reports {
                do {
                    let plan = try source.apply(report)
                    print(plan.elements.count, "elements to animate")
                } catch let error as ResultsDataSourceError {
                    print(error)                       // a report skipped or applied twice
                    source.reload(report.new)          // show the result as it is, no animation
                }
            }
            // end of sample
        }
        let writer = Task { @MainActor in
            await Task.yield()
            try connection.write { db in try db.execute("INSERT INTO photo VALUES (4, 'Family', 2024, 'Garden')") }
            sample.cancel()
        }
        try await writer.value
        try await sample.value
        #expect(transcript.lines.count == 1)
        #expect(transcript.lines.first?.hasSuffix("elements to animate") == true)
        #expect(view.itemCounts == [2, 2])
    }
}
