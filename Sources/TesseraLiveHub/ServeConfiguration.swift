import Logging
import TesseraSQLite
import TesseraLiveProtocol

/// Where `tessera serve` reads the list from, and how it follows it.
///
/// ```swift
/// let configuration = ServeConfiguration(
///     databasePath: "photos.sqlite", table: "photo", sectionColumn: "album",
///     sortColumn: "position", titleColumn: "title", orderColumn: "position"
/// )
/// let hub = try ServeHub(configuration: configuration)
/// ```
package struct ServeConfiguration: Sendable {
    /// The SQLite file; it must exist.
    package var databasePath: String
    /// The table (not a view): its rows are the list's items.
    package var table: String
    /// The column the items are grouped into sections by, or `nil` for one
    /// section.
    package var sectionColumn: String?
    /// The column items are sorted by within their section (ascending unless
    /// ``sortDescending``); ties are broken by the key.
    package var sortColumn: String
    /// Whether ``sortColumn`` sorts descending.
    package var sortDescending: Bool
    /// The column whose text an item shows.
    package var titleColumn: String
    /// An integer column that `move` edits write (drag to reorder), or `nil`
    /// when the list cannot be reordered. Moves need the list sorted by it
    /// (``sortColumn`` names the same column).
    package var orderColumn: String?
    /// How often `PRAGMA data_version` is read for other processes' commits.
    package var pollInterval: Duration
    /// How many messages may wait for a client before it is treated as slow
    /// (at least 1).
    package var outboxCapacity: Int
    /// The edits clients may make (those who may edit at all); the others
    /// are refused with `readOnly`.
    package var allowedEdits: ServeEdits
    /// Where the hub logs: following, clients connecting and leaving,
    /// slow clients closed, refused edits, failed reads.
    package var logger: Logger
    /// How many of the list's last states the hub keeps, by fingerprint,
    /// for clients that reconnect naming the state they show (`hello`'s
    /// `resume`); 256 unless set. A state the controller patched shares
    /// its storage with the next one, and costs about what its change
    /// touched; a state the next change fetched again (an SQLite table
    /// without a change log; over PostgreSQL, a truncate or a transaction
    /// touching many rows) holds all its rows, and the hub keeps such
    /// states only up to four times the list's rows (at least 4,000) in
    /// all. 0 keeps none (every `hello` gets a snapshot).
    package var resumableStates = 256
    /// The most rows a list may have for a client that names an older
    /// state than the current one to get a plan from it (a diff of the two
    /// lists and a layout of its own, O(*n*)); past it, such a client gets
    /// a snapshot, O(log *n* + *v*) (O(*n*) for a client that asks for
    /// every id). A client that names the current state
    /// resumes whatever the size. 100,000 unless set.
    package var resumableRows = 100_000

    /// Creates a configuration.
    package init(
        databasePath: String,
        table: String,
        sectionColumn: String? = nil,
        sortColumn: String,
        sortDescending: Bool = false,
        titleColumn: String,
        orderColumn: String? = nil,
        pollInterval: Duration = .milliseconds(10),
        outboxCapacity: Int = 32,
        allowedEdits: ServeEdits = .all,
        logger: Logger = Logger(label: "tessera.live-list", factory: { _ in SwiftLogNoOpLogHandler() })
    ) {
        self.databasePath = databasePath
        self.table = table
        self.sectionColumn = sectionColumn
        self.sortColumn = sortColumn
        self.sortDescending = sortDescending
        self.titleColumn = titleColumn
        self.orderColumn = orderColumn
        self.pollInterval = pollInterval
        self.outboxCapacity = outboxCapacity
        self.allowedEdits = allowedEdits
        self.logger = logger
    }
}

extension ServeConfiguration {
    /// The names of the log levels, from the most detailed: `trace`,
    /// `debug`, `info`, `notice`, `warning`, `error`, `critical`.
    package static let logLevelNames = Logger.Level.allCases.map(\.rawValue)

    /// Logs to standard error, one line per event with its metadata, from
    /// the level named `name` up.
    ///
    /// - Returns: `false`, changing nothing, when `name` is not one of
    ///   ``logLevelNames``.
    package mutating func logToStandardError(from name: String) -> Bool {
        guard let level = Logger.Level(rawValue: name.lowercased()) else { return false }
        var logger = Logger(label: "tessera.serve", factory: { label in StreamLogHandler.standardError(label: label) })
        logger.logLevel = level
        self.logger = logger
        return true
    }
}

extension ServeSchema {
    /// Checks a hub's configuration against the database.
    ///
    /// - Throws: ``ServeError`` naming the table (and the tables the file
    ///   has) or the column (and the table's columns), or a table without a
    ///   single-column primary key and without row ids.
    package init(_ configuration: ServeConfiguration, database: Database) throws(ServeError) {
        try self.init(
            table: configuration.table, sectionColumn: configuration.sectionColumn, sortColumn: configuration.sortColumn,
            sortDescending: configuration.sortDescending, titleColumn: configuration.titleColumn, orderColumn: configuration.orderColumn,
            path: configuration.databasePath, database: database
        )
    }
}
