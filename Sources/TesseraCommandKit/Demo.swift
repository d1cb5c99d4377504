import Foundation
import Tessera
import TesseraDemoPhotos
import TesseraDiff
import TesseraLayout
import TesseraRender
import TesseraResults
import TesseraSQLite
import TesseraView

/// A photo of the demo's library.
package struct DemoPhoto: FetchableRecord, Hashable {
    /// The primary key.
    package var id: Int64
    /// The album's name: the section.
    package var album: String
    /// The title.
    package var title: String
    /// When it was taken, in seconds since 1970: the sort key, newest first.
    package var taken: Int64

    /// Reads a photo row.
    package init(row: Row) throws {
        id = row["id"].int64 ?? -1
        album = row["album"].string ?? ""
        title = row["title"].string ?? ""
        taken = row["taken"].int64 ?? 0
    }
}

/// Collects a results controller's reports.
package final class ReportCollector<Record: FetchableRecord>: FetchedResultsControllerDelegate {
    package var reports: [ChangeReport<Record>] = []
    package var failures: [ResultsError] = []

    package init() {}

    package func controller(_ controller: FetchedResultsController<Record>, didChangeContentWith report: ChangeReport<Record>) {
        reports.append(report)
    }

    package func controller(_ controller: FetchedResultsController<Record>, didFailWith error: ResultsError) {
        failures.append(error)
    }
}

/// `tessera demo`: a photo library in an embedded SQLite database, followed
/// by a results controller and laid out in a phone-sized grid while a script
/// of transactions changes it.
package struct DemoRun: Sendable {
    /// The database file; re-seeded on every run so the script always
    /// starts from the same library, unless another process has it open.
    package var databasePath: String
    /// Where the page of every transaction's plan goes.
    package var htmlPath: String
    /// How many photos to seed, within ``photoCountRange``.
    package var photoCount: Int

    /// The sizes of library the demo seeds: its script needs 2,000 photos;
    /// a million, the most, takes about 40 seconds and 400 MB in a debug
    /// build.
    package static let photoCountRange = 2_000...1_000_000

    /// The default database: `tessera-demo/photos.sqlite` in the temporary
    /// folder.
    package static var defaultDatabasePath: String {
        FileManager.default.temporaryDirectory.appendingPathComponent("tessera-demo").appendingPathComponent("photos.sqlite").path
    }

    /// Creates a run.
    package init(databasePath: String = DemoRun.defaultDatabasePath, htmlPath: String = "tessera-demo.html", photoCount: Int = 10_000) {
        self.databasePath = databasePath
        self.htmlPath = htmlPath
        self.photoCount = photoCount
    }

    /// The albums, one section each.
    static var albums: [String] { DemoPhotos.albums }

    /// One scripted transaction.
    struct Step {
        var title: String
        var rollsBack: Bool
        var body: (Database, Snapshot<ResultSection, DemoPhoto>) throws -> Void
    }

    struct RolledBack: Error {}

    /// Checks the options: the photo count is within ``photoCountRange``.
    ///
    /// - Throws: ``CommandError`` naming `--photos`.
    package func validate() throws(CommandError) {
        let range = Self.photoCountRange
        guard range.contains(photoCount) else {
            throw CommandError("--photos \(photoCount): the number of photos must be from \(range.lowerBound) to \(range.upperBound)", exitCode: CommandError.usageExitCode)
        }
    }

    /// Runs the demo; `print` receives the report a line or block at a time,
    /// and `seeding` the share of the library seeded so far, from 0 to 1, a
    /// hundred times while it seeds.
    ///
    /// - Throws: ``CommandError`` for bad options, a page that cannot be
    ///   written where asked (checked before any work), a database that
    ///   cannot be made or that another process has open (status 3), or when the controller reports something other
    ///   than one report per commit.
    package func run(print: (String) -> Void, seeding: (Double) -> Void = { _ in }) throws(CommandError) {
        try validate()
        try InputFile.checkWritable(htmlPath)
        do {
            try runThrowing(print: print, seeding: seeding)
        } catch let error as CommandError {
            throw error
        } catch {
            throw CommandError("demo failed: \(error)")
        }
    }

    private func runThrowing(print: (String) -> Void, seeding: (Double) -> Void) throws {
        let folder = (databasePath as NSString).deletingLastPathComponent
        if !folder.isEmpty { try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true) }
        let reused = FileManager.default.fileExists(atPath: databasePath)
        // Never seeds a file another process has open (a server showing it,
        // another demo): its tables would be replaced under it.
        let claim = try Self.claim(databasePath)
        defer { withExtendedLifetime(claim) {} }
        let connection: Connection
        do {
            connection = try Connection(path: databasePath)
        } catch {
            throw DatabaseErrors.opening(databasePath, error)
        }
        let start = ContinuousClock.now
        try seed(connection, progress: seeding)
        print("Tessera demo")
        print("database: \(databasePath) (\(reused ? "reused" : "created"), seeded with \(photoCount) photos in \(Self.albums.count) albums in \(Format.duration(ContinuousClock.now - start)))")

        let request = FetchRequest(table: "photo", sortKeys: [SortKey("album"), SortKey("taken", ascending: false)], sectionKey: "album")
        let controller = try FetchedResultsController<DemoPhoto>(connection: connection, request: request)
        let collector = ReportCollector<DemoPhoto>()
        controller.delegate = collector
        try controller.performFetch()
        print("results controller: table photo, sectioned by album, sorted by taken (newest first): \(controller.numberOfSections) sections, \(controller.snapshot.numberOfItems) photos")

        let choice = LayoutChoice(kind: .flow)
        let view = CollectionView(layout: choice.makeLayout(), size: choice.size)
        // New photos at the top appear in view rather than above it.
        view.anchorsScrollPosition = false
        // Each report's changeset is performed as it is, with no second diff.
        let source = ResultsDataSource(collectionView: view, result: controller.result)
        print("layout: FlowLayout, 96×96 photos 2 points apart with 32-point album headers, in a 390×844 viewport: \(view.visibleElements.count) visible elements, content \(Format.size(view.contentSize))")

        var entries: [PlanPage.Entry] = []
        // What the page's list leaves out, said on the page.
        var notes: [String] = []
        var committed = 0
        for (n, step) in script().enumerated() {
            let title = "Transaction \(n + 1): \(step.title)"
            print("")
            print(title)
            collector.reports.removeAll()
            let before = controller.snapshot
            do {
                try connection.write { db in
                    try step.body(db, before)
                    if step.rollsBack { throw RolledBack() }
                }
            } catch is RolledBack {}
            if let failure = collector.failures.first { throw CommandError("the results controller failed: \(failure)") }
            if step.rollsBack {
                guard collector.reports.isEmpty else {
                    throw CommandError("\(title): rolled back, yet the controller reported \(collector.reports.count) change(s)")
                }
                print("  rolled back: the controller reported nothing, as it must")
                notes.append("\(title): rolled back, so the controller reported nothing and the list has no plan for it")
                continue
            }
            guard collector.reports.count == 1, let report = collector.reports.first else {
                throw CommandError("\(title): expected one report for the commit, got \(collector.reports.count)")
            }
            committed += 1
            let plan = try source.apply(report)
            let labels = ChangeDescription.labels(for: plan, old: report.oldSnapshot, new: report.newSnapshot)
            let description = ChangeDescription(
                changeset: report.changeset, batch: BatchUpdate(report.changeset, policy: .moveThenReload),
                staged: nil, plan: plan, labels: labels
            )
            print(description.text())
            entries.append(PlanPage.Entry(title: title, plan: plan, labels: labels, viewport: choice.size))
        }
        print("")
        print("\(committed) commits, \(committed) reports; the rolled-back transaction reported nothing")
        try InputFile.write(PlanPage.html(title: "tessera demo: a photo library following SQLite", entries: entries, notes: notes), to: htmlPath)
        let absolute = URL(fileURLWithPath: htmlPath).standardizedFileURL.path
        print("wrote \(absolute): open it in a browser to watch every transaction's animation plan")
    }

    /// Claims the database for seeding (see `DatabaseFileClaim`), before
    /// this process opens it.
    ///
    /// - Throws: ``CommandError``, status 3, one line naming the file, the
    ///   process that has it and what to do.
    static func claim(_ path: String) throws(CommandError) -> DatabaseFileClaim {
        do {
            return try DatabaseFileClaim(path: path)
        } catch {
            switch error.reason {
            case let .inUse(process):
                let holder = process.map { " (process \($0))" } ?? ""
                throw CommandError(
                    "\(path) is open in another process\(holder), which would lose it if the demo seeded it again: "
                        + "stop that process, or give the demo another file with --database",
                    exitCode: CommandError.lockedExitCode
                )
            case .cannotLock:
                throw CommandError("\(error)", exitCode: CommandError.databaseExitCode)
            }
        }
    }

    /// Creates the schema and the library, replacing what a previous run
    /// left.
    private func seed(_ connection: Connection, progress: (Double) -> Void) throws {
        try connection.write { db in
            try db.execute("DROP TABLE IF EXISTS photo")
            try db.execute("CREATE TABLE photo (id INTEGER PRIMARY KEY, album TEXT NOT NULL, title TEXT NOT NULL, taken INTEGER NOT NULL)")
            try db.execute("CREATE INDEX photo_album_taken ON photo (album, taken DESC)")
            let insert = try db.prepare("INSERT INTO photo (id, album, title, taken) VALUES (?, ?, ?, ?)")
            let step = max(1, photoCount / 100)
            try DemoPhotos.generate(count: photoCount) { photo in
                if photo.id % Int64(step) == 0 || photo.id == Int64(photoCount) { progress(Double(photo.id) / Double(photoCount)) }
                insert.reset()
                try insert.bind([.integer(photo.id), .text(photo.album), .text(photo.title), .integer(photo.taken)])
                while try insert.step() {}
            }
        }
    }

    /// The scripted transactions; each reads the controller's snapshot of
    /// before to pick the photos it changes.
    private func script() -> [Step] {
        let latest: Int64 = 1_800_000_000
        // The photos of an album, which must have enough for the step.
        func photos(_ snapshot: Snapshot<ResultSection, DemoPhoto>, album: String, atLeast count: Int = 21) throws(CommandError) -> [DemoPhoto] {
            let photos = snapshot.index(ofSectionWithID: .text(album)).map { Array(snapshot.items(inSection: $0)) } ?? []
            guard photos.count >= count else {
                throw CommandError("the library is too small for the demo's script: \(album) has \(photos.count) photos, the script needs \(count); seed more with --photos")
            }
            return photos
        }
        return [
            Step(title: "add 6 new photos to Amsterdam", rollsBack: false) { db, _ in
                for k in 0..<6 {
                    try db.execute("INSERT INTO photo (album, title, taken) VALUES ('Amsterdam', ?, ?)", [.text("New canal photo \(k + 1)"), .integer(latest + Int64(k))])
                }
            },
            Step(title: "delete 3 photos of Amsterdam", rollsBack: false) { db, snapshot in
                let amsterdam = try photos(snapshot, album: "Amsterdam")
                for offset in [1, 4, 9] { try db.execute("DELETE FROM photo WHERE id = ?", [.integer(amsterdam[offset].id)]) }
            },
            Step(title: "retitle 2 photos (same place, new content)", rollsBack: false) { db, snapshot in
                let amsterdam = try photos(snapshot, album: "Amsterdam")
                for offset in [2, 7] {
                    try db.execute("UPDATE photo SET title = title || ' (edited)' WHERE id = ?", [.integer(amsterdam[offset].id)])
                }
            },
            Step(title: "re-date 3 photos so they re-sort within Amsterdam", rollsBack: false) { db, snapshot in
                let amsterdam = try photos(snapshot, album: "Amsterdam")
                try db.execute("UPDATE photo SET taken = ? WHERE id = ?", [.integer(latest + 100), .integer(amsterdam[12].id)])
                try db.execute("UPDATE photo SET taken = ? WHERE id = ?", [.integer(amsterdam[20].taken - 1), .integer(amsterdam[0].id)])
                try db.execute("UPDATE photo SET taken = ? WHERE id = ?", [.integer(amsterdam[5].taken - 1), .integer(amsterdam[16].id)])
            },
            Step(title: "rename the album Zanzibar to Aachen, so it re-sorts to the top", rollsBack: false) { db, _ in
                try db.execute("UPDATE photo SET album = 'Aachen' WHERE album = 'Zanzibar'")
            },
            Step(title: "move 4 photos from Aachen to Amsterdam", rollsBack: false) { db, snapshot in
                let aachen = try photos(snapshot, album: "Aachen", atLeast: 7)
                for offset in [0, 3, 5, 6] {
                    try db.execute("UPDATE photo SET album = 'Amsterdam' WHERE id = ?", [.integer(aachen[offset].id)])
                }
            },
            Step(title: "add the album \"A weekend away\" with 5 photos, sorted first", rollsBack: false) { db, _ in
                for k in 0..<5 {
                    try db.execute("INSERT INTO photo (album, title, taken) VALUES ('A weekend away', ?, ?)", [.text("Weekend \(k + 1)"), .integer(latest - 1000 - Int64(k))])
                }
            },
            Step(title: "delete every photo of Amsterdam, then roll back", rollsBack: true) { db, _ in
                try db.execute("DELETE FROM photo WHERE album = 'Amsterdam'")
            },
            Step(title: "delete the album \"A weekend away\"", rollsBack: false) { db, _ in
                try db.execute("DELETE FROM photo WHERE album = 'A weekend away'")
            },
        ]
    }
}

/// Database errors as one-line command errors.
enum DatabaseErrors {
    /// SQLite's busy and locked codes.
    static func isLocked(_ error: SQLiteError) -> Bool { error.code == 5 || error.code == 6 }

    static func locked(_ path: String) -> CommandError {
        CommandError("\(path): the database is locked by another process (try again when it commits)", exitCode: CommandError.lockedExitCode)
    }

    static func opening(_ path: String, _ error: SQLiteError) -> CommandError {
        if isLocked(error) { return locked(path) }
        if error.code == 26 { return CommandError("\(path): not an SQLite database", exitCode: CommandError.databaseExitCode) }
        return CommandError("\(path): cannot open the database: \(error.message)", exitCode: CommandError.databaseExitCode)
    }
}

extension Format {
    /// `12 ms`, `1.5 s`.
    static func duration(_ duration: Duration) -> String {
        let seconds = Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
        return seconds < 1 ? "\(number(seconds * 1000)) ms" : "\(number(seconds)) s"
    }
}
