import Foundation
import TesseraCommandKit
import TesseraDemoPhotos
import TesseraResultsCore
import TesseraSQLite

/// The table `tessera bench serve --rows` serves: a fresh SQLite file in WAL
/// mode holding `item(id INTEGER PRIMARY KEY, section INTEGER, rank INTEGER,
/// title TEXT)`, its rows in sections of consecutive ids, with an index on
/// what the list sorts by and, unless told otherwise, the change log on the
/// columns it sorts and sections by (as a user following other processes'
/// commits installs it).
///
/// Row `id` (from 1 to ``rows``) is in section `(id - 1) · sections / rows`
/// with rank `id`, titled `Row id`: the list is sorted by section, then
/// rank.
package struct LoadTable: Sendable {
    /// The table's name.
    package static let table = "item"
    /// The columns the change log holds: those the list sections and sorts
    /// by.
    package static let loggedColumns = ["section", "rank"]

    /// The file.
    package var path: String
    /// The rows.
    package var rows: Int
    /// The sections (at most one per row).
    package var sections: Int
    /// Whether the table has a change log.
    package var changeLog: Bool

    /// Describes the table of `rows` rows in `sections` sections at `path`.
    package init(path: String, rows: Int, sections: Int, changeLog: Bool) {
        self.path = path
        self.rows = rows
        self.sections = Swift.max(1, Swift.min(sections, rows))
        self.changeLog = changeLog
    }

    /// The section row `id` is written in.
    package func section(ofRow id: Int) -> Int { (id - 1) * sections / rows }

    /// The arguments after `serve` that show the table as a list.
    var serveArguments: [String] {
        [path, "--table", Self.table, "--section", "section", "--sort", "rank", "--title", "title"]
    }

    /// Every item id of the list, as the protocol spells them (the keys as
    /// text), in no particular order.
    var ids: [String] { (1...rows).map(String.init) }

    /// Writes the table into a new file: one transaction through one
    /// prepared statement, then the index and the change log.
    ///
    /// - Parameters:
    ///   - progress: Gets the rows written so far, every 100,000 rows and
    ///     at the end.
    ///   - isStopped: Checked every 10,000 rows: when it says so, the
    ///     transaction is rolled back.
    /// - Throws: ``LoadError`` naming the file and what failed, or
    ///   ``LoadError/interrupted``.
    /// - Complexity: O(*n* log *n*) for *n* rows (the index).
    package func build(progress: (Int) -> Void, isStopped: () -> Bool = { false }) throws(LoadError) {
        func failed(_ what: String, _ error: any Error) -> LoadError { LoadError("\(path): cannot \(what): \(error)") }
        let connection: Connection
        do {
            connection = try Connection(path: path, mode: .readWriteCreate)
        } catch {
            throw failed("create the table's file", error)
        }
        do {
            try connection.write { db in
                try db.execute("CREATE TABLE \(Self.table) (id INTEGER PRIMARY KEY, section INTEGER NOT NULL, rank INTEGER NOT NULL, title TEXT NOT NULL)")
                let insert = try db.prepare("INSERT INTO \(Self.table) (id, section, rank, title) VALUES (?, ?, ?, ?)")
                for id in 1...rows {
                    try insert.withReset { statement throws(SQLiteError) in
                        try statement.bind(.integer(Int64(id)), at: 1)
                        try statement.bind(.integer(Int64(section(ofRow: id))), at: 2)
                        try statement.bind(.integer(Int64(id)), at: 3)
                        try statement.bind(.text("Row \(id)"), at: 4)
                        _ = try statement.step()
                    }
                    if id % 100_000 == 0 { progress(id) }
                    if id % 10_000 == 0, isStopped() { throw LoadError.interrupted }
                }
                try db.execute("CREATE INDEX \(Self.table)_section_rank ON \(Self.table) (section, rank)")
            }
        } catch let error as LoadError {
            throw error
        } catch {
            throw failed("write \(rows) rows", error)
        }
        progress(rows)
        guard changeLog else { return }
        do {
            _ = try ChangeLogRun(databasePath: path, table: Self.table, action: .install(columns: Self.loggedColumns, keeping: 100_000)).run()
        } catch {
            throw LoadError("\(path): cannot install the change log: \(error.message)")
        }
    }
}

/// This process's own connection to the table, committing one-row updates
/// as another program writing the file would.
final class LoadTableWriter {
    let table: LoadTable
    let connection: Connection
    var random: SplitMix64

    /// Opens the table's file.
    ///
    /// - Throws: ``LoadError`` naming the file.
    init(table: LoadTable, seed: UInt64) throws(LoadError) {
        self.table = table
        random = SplitMix64(seed: seed)
        do {
            connection = try Connection(path: table.path, mode: .readWrite)
        } catch {
            throw LoadError("\(table.path): cannot open the table to commit to it: \(error)")
        }
    }

    /// Commits change `number`: even numbers retitle a random row, odd ones
    /// move a random row to another section (with one section, retitle).
    /// Returns once `COMMIT` has returned.
    ///
    /// - Throws: ``LoadError`` naming the file and what failed.
    /// - Complexity: O(log *n*) (one row found by its key).
    func commit(number: Int) throws(LoadError) {
        let id = Int64(1 + random.next() % UInt64(table.rows))
        let moves = number % 2 == 1 && table.sections > 1
        let step = Int64(1 + random.next() % UInt64(Swift.max(1, table.sections - 1)))
        let sections = Int64(table.sections)
        do {
            try connection.write { db in
                if moves {
                    try db.execute("UPDATE \(LoadTable.table) SET section = (section + ?) % ? WHERE id = ?", [.integer(step), .integer(sections), .integer(id)])
                } else {
                    try db.execute("UPDATE \(LoadTable.table) SET title = ? WHERE id = ?", [.text("Commit \(number)"), .integer(id)])
                }
            }
        } catch {
            throw LoadError("\(table.path): commit \(number + 1) failed: \(error)")
        }
    }
}

/// A folder of the run's own in the temporary folder, for the server's
/// files (the demo library, or the table), removed when the run ends.
struct LoadScratchFolder {
    let url: URL

    /// Creates the folder.
    ///
    /// - Throws: ``LoadError`` naming it.
    init() throws(LoadError) {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("tessera-bench-serve-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
        do {
            try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        } catch {
            throw LoadError("cannot create the server's folder \(url.path): \(error.localizedDescription)")
        }
    }

    /// Removes the folder and what is in it.
    func remove() {
        try? FileManager.default.removeItem(at: url)
    }
}
