import Foundation
import Tessera
import TesseraDiff
import TesseraResults
import TesseraResultsCore
import TesseraSQLite
import TesseraView
import TesseraRender

/// A row of any table: its key and its values, compared for content.
package struct WatchedRow: FetchableRecord, Hashable {
    /// The key column's value.
    package var id: DatabaseValue
    /// Every column's value, in table order.
    package var values: [DatabaseValue]

    /// Reads a row whose first column is the key (see ``WatchRun``), or
    /// whose column ``keyColumnName`` is, when it is set.
    package init(row: Row) throws {
        try self.init(row: row, keyColumn: Self.keyColumnName)
    }
}

/// `tessera watch`: follows a table (or view) that other processes write,
/// one report per commit that changes the result.
///
/// Commits by other connections are seen by polling `PRAGMA data_version`
/// (every ``interval`` seconds) and refreshing the results controller;
/// commits that leave the result unchanged print nothing. Two commits that
/// land within one poll are one report. A `postgres://` URL instead of a
/// file is followed through PostgreSQL's change capture, with the same
/// output (see ``isPostgres``).
package struct WatchRun: Sendable {
    /// The database file, which must exist, or a `postgres://` (or
    /// `postgresql://`) URL (see ``isPostgres``).
    package var databasePath: String
    /// The table or view.
    package var table: String
    /// Sort keys as `column`, `column asc` or `column desc`.
    package var sortKeys: [String]
    /// The column the rows are grouped into sections by, if any. It becomes
    /// the first sort key (ascending) unless it already is.
    package var section: String?
    /// An SQL condition, with a `?` parameter for each argument.
    package var predicate: String?
    /// The predicate's arguments, one for each of its parameters: integers
    /// and reals when they read as numbers, text otherwise.
    package var arguments: [String]
    /// The key column: a unique column, or `rowid` (or `oid`, `_rowid_`)
    /// for the row id of a table that has one.
    package var keyColumn: String
    /// The layout of the animation plans, if any.
    package var layout: LayoutChoice?
    /// JSON lines instead of text.
    package var json: Bool
    /// Seconds between polls.
    package var interval: Double
    /// With ``json``, the `fetched` event lists every section and row
    /// (`state`), and each `change` event the rows the changeset places
    /// (`insertedSections` and `placed`), so that the output alone replays
    /// to the result.
    package var printRows = false
    /// How long to wait for another process's lock, in seconds, within
    /// ``busyTimeoutRange``.
    package var busyTimeout: Double

    /// What follows a PostgreSQL URL: `run(print:shouldStop:)` calls it
    /// with the run, the printer and the stop test.
    package typealias PostgresFollower = @Sendable (WatchRun, (String) -> Void, () -> Bool) throws(CommandError) -> Void

    /// Follows ``databasePath`` when it is a PostgreSQL URL. The `tessera`
    /// executable sets it from the TesseraCommandPostgres module, the one
    /// part of the command that links postgres-nio; without it, a URL is a
    /// usage error.
    package var followPostgres: PostgresFollower?

    /// The busy timeouts `--busy-timeout` takes: from none to a day.
    package static let busyTimeoutRange: ClosedRange<Double> = 0...86_400

    /// Creates a run.
    package init(databasePath: String, table: String, sortKeys: [String] = [], section: String? = nil,
                predicate: String? = nil, arguments: [String] = [], keyColumn: String = "id",
                layout: LayoutChoice? = nil, json: Bool = false, interval: Double = 0.1, busyTimeout: Double = 1) {
        self.databasePath = databasePath
        self.table = table
        self.sortKeys = sortKeys
        self.section = section
        self.predicate = predicate
        self.arguments = arguments
        self.keyColumn = keyColumn
        self.layout = layout
        self.json = json
        self.interval = interval
        self.busyTimeout = busyTimeout
    }

    /// Follows the database until `shouldStop` returns true, printing a
    /// report per change with `print`. It returns without printing more
    /// once `shouldStop` is true: it is checked between polls and, while a
    /// fetch runs, by SQLite every thousand steps of its work, so a slow
    /// query stops at once.
    ///
    /// - Throws: ``CommandError`` for a busy timeout out of range, a missing
    ///   file, a file that is not a database, a table or column that does
    ///   not exist, a `--where` SQLite refuses or whose placeholders do not
    ///   match the arguments, or a database locked past the busy timeout.
    package func run(print: (String) -> Void, shouldStop: () -> Bool) throws(CommandError) {
        if printRows && !json {
            throw CommandError("--print-rows adds the rows to the JSON lines: it needs --json", exitCode: CommandError.usageExitCode)
        }
        if isPostgres {
            guard let followPostgres else {
                throw CommandError("\(Self.urlWithoutPassword(databasePath)): this tessera was built without the PostgreSQL trait and follows SQLite files only (build it with the default traits to follow PostgreSQL)", exitCode: CommandError.usageExitCode)
            }
            try followPostgres(self, print, shouldStop)
            return
        }
        let path = databasePath
        try layout?.validate()
        try checkInterval()
        guard Self.busyTimeoutRange.contains(busyTimeout) else {
            throw CommandError(
                "--busy-timeout \(Format.number(busyTimeout)): the seconds to wait for a lock must be from \(Format.number(Self.busyTimeoutRange.lowerBound)) to \(Format.number(Self.busyTimeoutRange.upperBound))",
                exitCode: CommandError.usageExitCode
            )
        }
        guard FileManager.default.fileExists(atPath: path) else {
            throw CommandError("\(path): no such database file", exitCode: CommandError.databaseExitCode)
        }
        guard FileManager.default.isReadableFile(atPath: path) else {
            throw CommandError("\(path): cannot be read: permission denied", exitCode: CommandError.databaseExitCode)
        }
        guard let connection = try open(shouldStop) else { return }
        // Every statement from here on stops once `shouldStop` holds, a
        // wait for another process's lock included.
        do {
            try connection.withDatabase { db throws(CommandError) in
                try db.interrupting(when: shouldStop) { _ throws(CommandError) in
                    try follow(connection, print: print, shouldStop: shouldStop)
                }
            }
        } catch {
            if shouldStop() { return }
            throw error
        }
    }

    /// Opens the database, waiting for another process's lock up to the
    /// busy timeout: `nil` when `shouldStop` holds meanwhile. (Opening
    /// reads the schema, which such a lock holds up; the wait is here, in
    /// steps of 10 ms, rather than in SQLite's, so that a stop is seen.)
    private func open(_ shouldStop: () -> Bool) throws(CommandError) -> Connection? {
        let deadline = ContinuousClock.now + .milliseconds(Int64(busyTimeout * 1000))
        while true {
            do {
                let connection = try Connection(path: databasePath, mode: .readWrite, busyTimeout: 0, journalModeWAL: false)
                connection.withDatabase { db in db.busyTimeout = busyTimeout }
                return connection
            } catch {
                if shouldStop() { return nil }
                guard DatabaseErrors.isLocked(error), ContinuousClock.now < deadline else {
                    throw DatabaseErrors.opening(databasePath, error)
                }
                usleep(10_000)
            }
        }
    }

    /// Fetches and follows the table until `shouldStop` holds (the caller
    /// interrupts SQLite then), printing with `print`.
    private func follow(_ connection: Connection, print: (String) -> Void, shouldStop: () -> Bool) throws(CommandError) {
        let path = databasePath
        let request = try makeRequest(connection)
        let controller: FetchedResultsController<WatchedRow>
        do {
            controller = try FetchedResultsController<WatchedRow>(connection: connection, request: request)
        } catch {
            throw resultsError(error)
        }
        let fetched = try stoppable(connection, shouldStop) { () throws(ResultsError) -> Bool in
            try controller.performFetch()
            return true
        }
        guard fetched != nil else { return }
        let collector = ReportCollector<WatchedRow>()
        controller.delegate = collector
        var reporter = WatchReporter(
            table: table, database: path, json: json, printRows: printRows, layout: layout, result: controller.result
        )
        print(reporter.fetched(controller.result, notice: try journalNotice(connection)))

        while !shouldStop() {
            usleep(useconds_t(max(interval, 0.001) * 1_000_000))
            collector.reports.removeAll()
            // Another process committed when `PRAGMA data_version` moved;
            // the controller then re-fetches and reports the difference.
            let moved = try stoppable(connection, shouldStop) { () throws(ResultsError) in try controller.checkForExternalChanges() }
            guard let moved else { return }
            guard moved else { continue }
            let current = try dataVersion(connection)
            for report in collector.reports { print(try reporter.report(report, dataVersion: current)) }
        }
    }

    /// What to do about a rollback journal, or `nil` in WAL mode. With a
    /// rollback journal, every read holds a lock that a writer's commit
    /// must wait for, and watch reads the whole result again after each
    /// commit: a writer that does not wait (the sqlite3 shell, by default)
    /// fails with "database is locked" while it does.
    func journalNotice(_ connection: Connection) throws(CommandError) -> String? {
        let mode: String
        do {
            mode = try connection.withDatabase { db throws(SQLiteError) in
                try db.rows("PRAGMA journal_mode").first?.first?.string ?? "wal"
            }.lowercased()
        } catch {
            if DatabaseErrors.isLocked(error) { throw DatabaseErrors.locked(databasePath) }
            throw CommandError("\(databasePath): \(error.message)", exitCode: CommandError.databaseExitCode)
        }
        guard mode != "wal" else { return nil }
        return "\(databasePath) uses a rollback journal (journal_mode \(mode)), so a writer fails with \"database is locked\" "
            + "if it commits while watch reads the table again; give writers a busy timeout (sqlite3: .timeout 5000) "
            + "or switch the file to WAL (PRAGMA journal_mode = WAL), where readers never block a writer"
    }

    /// Runs `body` (a fetch of the controller) so that its statements stop
    /// as soon as `shouldStop` returns true: `nil` when they stopped.
    private func stoppable<T>(_ connection: Connection, _ shouldStop: () -> Bool, _ body: () throws(ResultsError) -> T) throws(CommandError) -> T? {
        do throws(ResultsError) {
            return try connection.withDatabase { db throws(ResultsError) in
                try db.interrupting(when: shouldStop) { _ throws(ResultsError) in try body() }
            }
        } catch {
            if shouldStop() { return nil }
            throw resultsError(error)
        }
    }

    private func dataVersion(_ connection: Connection) throws(CommandError) -> Int64 {
        do {
            return try connection.withDatabase { db throws(SQLiteError) in try db.dataVersion() }
        } catch {
            if DatabaseErrors.isLocked(error) { throw DatabaseErrors.locked(databasePath) }
            throw CommandError("\(databasePath): \(error.message)", exitCode: CommandError.databaseExitCode)
        }
    }

    private func resultsError(_ error: ResultsError) -> CommandError {
        if case let .invalidSQL(part, sql, problem) = error, part == "predicate" {
            return CommandError("--where \"\(sql)\" is refused: \(problem)", exitCode: CommandError.usageExitCode)
        }
        if case let .database(sqlite) = error {
            if DatabaseErrors.isLocked(sqlite) { return DatabaseErrors.locked(databasePath) }
            return CommandError("\(databasePath): \(sqlite.message)", exitCode: CommandError.databaseExitCode)
        }
        return CommandError("\(databasePath): \(error)", exitCode: CommandError.databaseExitCode)
    }

    /// A `--sort` value, `column`, `column asc` or `column desc`: the
    /// column and the direction.
    package static func sortSpec(_ spec: String) throws(CommandError) -> (column: String, ascending: Bool) {
        let words = spec.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
        guard (1...2).contains(words.count) else {
            throw CommandError("--sort \"\(spec)\": expected \"column\", \"column asc\" or \"column desc\"", exitCode: CommandError.usageExitCode)
        }
        var ascending = true
        if words.count == 2 {
            switch words[1].lowercased() {
            case "asc": ascending = true
            case "desc": ascending = false
            default: throw CommandError("--sort \"\(spec)\": the order must be asc or desc, not \(words[1])", exitCode: CommandError.usageExitCode)
            }
        }
        return (words[0], ascending)
    }

    /// Checks the table and columns and makes the request.
    func makeRequest(_ connection: Connection) throws(CommandError) -> FetchRequest {
        let path = databasePath
        let columns: [String]
        let hasRowID: Bool
        do {
            let found = try connection.withDatabase { db throws(SQLiteError) in
                try db.rows("SELECT name FROM sqlite_master WHERE type IN ('table', 'view') AND name = ? COLLATE NOCASE", [.text(table)])
            }
            guard !found.isEmpty else {
                let names = try connection.withDatabase { db throws(SQLiteError) in
                    try db.rows("SELECT name FROM sqlite_master WHERE type IN ('table', 'view') AND name NOT LIKE 'sqlite_%' ORDER BY name")
                }.compactMap { $0.first?.string }
                throw CommandError("no such table: \(table) in \(path) (it has: \(names.isEmpty ? "no tables" : names.joined(separator: ", ")))", exitCode: CommandError.databaseExitCode)
            }
            columns = try connection.withDatabase { db throws(SQLiteError) in
                try db.rows("SELECT name FROM pragma_table_info(?)", [.text(table)])
            }.compactMap { $0.first?.string }
            // Views and WITHOUT ROWID tables have none.
            hasRowID = (try? connection.withDatabase { db throws(SQLiteError) in try db.prepare("SELECT rowid FROM \(quoted(table))") }) != nil
        } catch let error as CommandError {
            throw error
        } catch let error as SQLiteError {
            if DatabaseErrors.isLocked(error) { throw DatabaseErrors.locked(path) }
            throw CommandError("\(path): \(error.message)", exitCode: CommandError.databaseExitCode)
        } catch {
            throw CommandError("\(path): \(error)", exitCode: CommandError.databaseExitCode)
        }
        func column(_ name: String, _ option: String) throws(CommandError) -> String {
            // As SQLite matches names: ASCII capitals alike, other bytes exact.
            if let match = columns.first(where: { sqliteNamesEqual($0, name) }) { return match }
            if hasRowID, Self.rowIDNames.contains(name.lowercased()) { return name }
            let hint = option == "--key" && hasRowID ? "; --key rowid keys rows by their row id" : ""
            throw CommandError("\(option): no such column: \(name) in table \(table) (its columns: \(columns.joined(separator: ", "))\(hint))", exitCode: CommandError.databaseExitCode)
        }
        let key = try column(keyColumn, "--key")
        var keys: [SortKey] = []
        for spec in sortKeys {
            let (name, ascending) = try Self.sortSpec(spec)
            keys.append(SortKey(quoted(try column(name, "--sort")), ascending: ascending))
        }
        var sectionKey: String?
        if let section {
            let name = quoted(try column(section, "--section"))
            sectionKey = name
            if keys.first?.expression != name { keys.insert(SortKey(name), at: 0) }
        }
        let arguments: [DatabaseValue] = arguments.map { text in
            if let integer = Int64(text) { return .integer(integer) }
            if let real = Double(text), real.isFinite { return .real(real) }
            return .text(text)
        }
        let query = "SELECT \(quoted(key)) AS tessera_watch_key, * FROM \(quoted(table))"
        try checkPredicate(over: query, connection)
        return FetchRequest(
            query: query, keyColumn: "tessera_watch_key", predicate: predicate, arguments: arguments,
            sortKeys: keys, sectionKey: sectionKey
        )
    }

    /// The names SQLite gives a table's row id.
    package static let rowIDNames: Set<String> = ["rowid", "oid", "_rowid_"]

    /// Checks that SQLite reads the predicate over `query`, and that it has
    /// a parameter for each argument.
    ///
    /// - Throws: ``CommandError`` naming `--where` and the predicate: with
    ///   SQLite's message (status 2 for a table or column that does not
    ///   exist, 64 for anything else), or with both counts (64).
    private func checkPredicate(over query: String, _ connection: Connection) throws(CommandError) {
        guard let predicate else {
            guard arguments.isEmpty else {
                throw CommandError("--arg: \(Self.count(arguments.count, "value")) but no --where with ? placeholders to bind \(arguments.count == 1 ? "it" : "them") to", exitCode: CommandError.usageExitCode)
            }
            return
        }
        // The rule the controller applies: the predicate stays one condition.
        if let problem = SQLFragment.problem(in: predicate, as: .condition) {
            throw CommandError("--where \"\(predicate)\" is refused: \(problem)", exitCode: CommandError.usageExitCode)
        }
        let placeholders: Int
        do {
            placeholders = try connection.withDatabase { db throws(SQLiteError) in
                try db.prepare("SELECT * FROM (\(query)) WHERE (\(SQLFragment.spliced(predicate)))").parameterCount
            }
        } catch {
            if DatabaseErrors.isLocked(error) { throw DatabaseErrors.locked(databasePath) }
            let missing = error.message.hasPrefix("no such column") || error.message.hasPrefix("no such table")
            throw CommandError("--where \"\(predicate)\": \(error.message)", exitCode: missing ? CommandError.databaseExitCode : CommandError.usageExitCode)
        }
        guard placeholders == arguments.count else {
            throw CommandError(
                "--where \"\(predicate)\" has \(Self.count(placeholders, "? placeholder")) but \(Self.count(arguments.count, "--arg value")) \(arguments.count == 1 ? "was" : "were") given",
                exitCode: CommandError.usageExitCode
            )
        }
    }

    /// `1 value`, `2 values`.
    private static func count(_ n: Int, _ noun: String) -> String { "\(n) \(noun)\(n == 1 ? "" : "s")" }

    private func quoted(_ identifier: String) -> String {
        quotedIdentifier(identifier)
    }
}
