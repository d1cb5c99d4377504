import Foundation
import TesseraDemoPhotos
import TesseraLiveProtocol
import TesseraSQLite

/// The photo library `tessera serve` shows when it is given no database:
/// a table `photo(id INTEGER PRIMARY KEY, album TEXT NOT NULL, title TEXT
/// NOT NULL, taken INTEGER NOT NULL, position INTEGER NOT NULL)` of photos
/// in 40 albums, with an index on `(album, position)`, in write-ahead
/// logging mode.
///
/// An album's photos are numbered by `position` from 0, newest (`taken`)
/// first; the live list is sectioned by album, sorted by position and
/// reordered by writing positions. The same count always seeds the same
/// library.
package struct DemoLibrary: Sendable, Hashable {
    /// The database file.
    package var path: String
    /// How many photos to seed, within ``photoCountRange``.
    package var photoCount: Int

    /// The sizes of library that can be seeded.
    package static let photoCountRange = 1...1_000_000

    /// The default photo count.
    package static let defaultPhotoCount = 10_000

    /// The default database: `tessera-serve/photos.sqlite` in the
    /// temporary folder.
    package static var defaultPath: String {
        FileManager.default.temporaryDirectory.appendingPathComponent("tessera-serve").appendingPathComponent("photos.sqlite").path
    }

    /// The albums, one section each.
    package static var albums: [String] { DemoPhotos.albums }

    /// The table the live list follows.
    package static let table = "photo"
    /// The section column.
    package static let sectionColumn = "album"
    /// The sort column, and the column reordering writes.
    package static let orderColumn = "position"
    /// The column an item shows.
    package static let titleColumn = "title"

    /// Creates a library description; nothing is written until ``seed()``.
    package init(path: String = DemoLibrary.defaultPath, photoCount: Int = DemoLibrary.defaultPhotoCount) {
        self.path = path
        self.photoCount = photoCount
    }

    /// Creates the database's folder and claims the file for seeding: no
    /// other process may have it open or claimed (another `tessera serve`
    /// showing it, say), and none may claim it while the claim lasts. Take
    /// it before ``seed()`` and keep it for as long as the library is
    /// served.
    ///
    /// - Throws: ``DemoLibraryError``, one line naming the file, the
    ///   process that has it, and what to do.
    package func claim() throws(DemoLibraryError) -> DatabaseFileClaim {
        let folder = (path as NSString).deletingLastPathComponent
        do {
            if !folder.isEmpty { try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true) }
        } catch {
            throw DemoLibraryError("cannot seed the demo library at \(path): \(error.localizedDescription)")
        }
        do {
            return try DatabaseFileClaim(path: path)
        } catch {
            switch error.reason {
            case let .inUse(process):
                let holder = process.map { " (process \($0))" } ?? ""
                throw DemoLibraryError(
                    "the demo library \(path) is open in another process\(holder), which would lose it if it were seeded again: "
                        + "stop that process, or give this one another folder with TMPDIR",
                    isInUse: true
                )
            case .cannotLock:
                throw DemoLibraryError("cannot seed the demo library at \(path): \(error)")
            }
        }
    }

    /// Creates the database's folder and the library, replacing the table
    /// a previous run left (in one transaction, so that a server following
    /// the file sees the library replaced at once). A process that serves
    /// the library takes ``claim()`` first.
    ///
    /// - Throws: ``DemoLibraryError`` naming the file when the count is out
    ///   of ``photoCountRange`` or the database cannot be made or written.
    /// - Complexity: O(*n* log *n*) in the photo count.
    package func seed() throws(DemoLibraryError) {
        let range = Self.photoCountRange
        guard range.contains(photoCount) else {
            throw DemoLibraryError("--photos \(photoCount): the number of photos must be from \(range.lowerBound) to \(range.upperBound)")
        }
        do {
            let folder = (path as NSString).deletingLastPathComponent
            if !folder.isEmpty { try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true) }
            let connection = try Connection(path: path)
            try connection.write { db in try write(db) }
        } catch {
            throw DemoLibraryError("cannot seed the demo library at \(path): \(error)")
        }
    }

    /// The rows, in id order: `(id, album, title, taken, position)`.
    ///
    /// - Complexity: O(*n* log *n*) in the photo count.
    package func rows() -> [(id: Int64, album: String, title: String, taken: Int64, position: Int64)] {
        var rows: [(id: Int64, album: String, title: String, taken: Int64, position: Int64)] = []
        rows.reserveCapacity(photoCount)
        DemoPhotos.generate(count: photoCount) { photo in
            rows.append((photo.id, photo.album, photo.title, photo.taken, 0))
        }
        // Positions: newest first within each album.
        var byAlbum: [String: [Int]] = [:]
        for index in rows.indices { byAlbum[rows[index].album, default: []].append(index) }
        for indices in byAlbum.values {
            let ordered = indices.sorted { (rows[$0].taken, rows[$1].id) > (rows[$1].taken, rows[$0].id) }
            for (position, index) in ordered.enumerated() { rows[index].position = Int64(position) }
        }
        return rows
    }

    private func write(_ db: Database) throws {
        try db.execute("DROP TABLE IF EXISTS photo")
        try db.execute("CREATE TABLE photo (id INTEGER PRIMARY KEY, album TEXT NOT NULL, title TEXT NOT NULL, taken INTEGER NOT NULL, position INTEGER NOT NULL)")
        try db.execute("CREATE INDEX photo_album_position ON photo (album, position)")
        let insert = try db.prepare("INSERT INTO photo (id, album, title, taken, position) VALUES (?, ?, ?, ?, ?)")
        for row in rows() {
            insert.reset()
            try insert.bind([.integer(row.id), .text(row.album), .text(row.title), .integer(row.taken), .integer(row.position)])
            while try insert.step() {}
        }
    }
}

/// A failure to seed the demo library: one line naming the file or the
/// option.
package struct DemoLibraryError: Error, CustomStringConvertible, Sendable, Hashable {
    /// The message.
    package var description: String
    /// Whether another process has the library open (``DemoLibrary/claim()``).
    package var isInUse: Bool

    /// Creates an error.
    package init(_ description: String, isInUse: Bool = false) {
        self.description = description
        self.isInUse = isInUse
    }
}

extension DemoLibrary {
    /// What the live list of the library shows: photos sectioned by album,
    /// in position order, titled by title, reordered through position.
    package func configuration() -> ServeConfiguration {
        ServeConfiguration(
            databasePath: path, table: Self.table, sectionColumn: Self.sectionColumn, sortColumn: Self.orderColumn,
            sortDescending: false, titleColumn: Self.titleColumn, orderColumn: Self.orderColumn,
            pollInterval: .milliseconds(10), outboxCapacity: 32
        )
    }
}
