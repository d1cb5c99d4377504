import TesseraResultsCore
import TesseraSQLite

/// An opt-in change log on one table of an SQLite file: triggers that
/// write the key (and the old sort values) of every row a transaction
/// touches into a table of Tessera's own, in the writer's own transaction,
/// whichever process or program writes. A controller that follows another
/// process's commits then reads the keys those commits touched and patches
/// its result, instead of fetching the whole result again.
///
/// ```swift
/// try connection.installChangeLog(on: "item", columns: ["grp", "rank"])
/// // Any process writes to item; a controller on item sorted by grp, rank:
/// try controller.checkForExternalChanges()   // patches; lastUpdateMethod == .incremental
/// ```
///
/// What it adds to the schema, for a table `item` whose primary key is
/// `id`: a table `tessera_log_item` (`seq`, `kind`, `"key.id"`, and one
/// `"old.<column>"` per logged column), five triggers on `item` named
/// `tessera_log_item_…`, and one on the log that trims it. What it adds to
/// each write: one row in the log per row inserted or deleted (two for an
/// update that changes the key), and for an INSERT or an UPDATE of a
/// unique column (or the rowid) a lookup per unique constraint and of the
/// rowid, so that rows a `REPLACE` removes are logged too.
/// ``Connection/removeChangeLog(from:)`` removes all of it.
///
/// Without a log (or when it cannot say: its entries were trimmed past a
/// controller's position, the schema changed, more rows were touched than
/// a patch takes) another process's commit makes the controller fetch
/// again, as it always has; the log never makes a result wrong.
///
/// Limits: a connection that turns triggers off
/// (`SQLITE_DBCONFIG_ENABLE_TRIGGER`) writes without logging; install the
/// log again after adding a unique index, renaming a logged column,
/// rebuilding the table (its triggers go with the old one), or adding a
/// column your requests sort by (until then the triggers are not the
/// ones the table needs, or the log lacks the column, and requests fetch
/// again). A logged column cannot be dropped while the log names it:
/// remove the log, drop the column, and install the log again.
public struct SQLiteChangeLog: Hashable, Sendable {
    /// The logged table, as the schema spells it.
    public var table: String
    /// Its primary key's column.
    public var keyColumn: String
    /// The columns whose old values each entry holds: a request can be
    /// patched from the log when it sorts by these alone.
    public var columns: [String]
    /// The entries the log holds now.
    public var entryCount: Int
    /// The last entry's number (0: none yet). Numbers only grow.
    public var lastEntry: Int64
    /// Whether its triggers are the ones the table needs now. `false` after
    /// the table was rebuilt (its triggers went with the old one), a unique
    /// index was added or a logged column renamed: controllers then fetch
    /// again on other processes' commits until the log is installed again.
    public var isCurrent: Bool

    /// A description of a log (``Connection/changeLog(on:isolation:)``
    /// reads one from a database).
    public init(table: String, keyColumn: String, columns: [String], entryCount: Int, lastEntry: Int64, isCurrent: Bool = true) {
        self.table = table
        self.keyColumn = keyColumn
        self.columns = columns
        self.entryCount = entryCount
        self.lastEntry = lastEntry
        self.isCurrent = isCurrent
    }

    /// The log's table: `tessera_log_` and the logged table's name.
    public var logTable: String { Self.logTable(for: table) }

    static func logTable(for table: String) -> String { "tessera_log_\(table)" }

    /// The default number of entries a log keeps: a follower further
    /// behind than that fetches again once.
    public static let defaultRetainedEntries = 100_000
}

/// Why a change log could not be installed or removed.
public enum SQLiteChangeLogError: Error, Hashable, Sendable, CustomStringConvertible {
    /// No ordinary table of that name in the `main` database.
    case noSuchTable(String)
    /// The table has no primary key, or one of several columns: the log
    /// needs one column that names each row.
    case noSingleColumnPrimaryKey(table: String, columns: [String])
    /// A column to log that the table does not have (or a hidden one).
    case noSuchColumn(table: String, column: String)
    /// A unique index on an expression: a `REPLACE` could remove rows by it
    /// that the log could not name.
    case expressionUniqueIndex(table: String, index: String)
    /// The number of entries to keep is below 1.
    case invalidRetention(Int)
    /// The table's name or a column's is one the log reserves.
    case reservedName(String)
    /// SQLite failed.
    case database(SQLiteError)

    public var description: String {
        switch self {
        case let .noSuchTable(table):
            return "no table named \(table) in the main database"
        case let .noSingleColumnPrimaryKey(table, columns) where columns.isEmpty:
            return "table \(table) has no primary key: a change log needs one column that names each row"
        case let .noSingleColumnPrimaryKey(table, columns):
            return "table \(table)'s primary key has \(columns.count) columns (\(columns.joined(separator: ", "))): a change log needs one"
        case let .noSuchColumn(table, column):
            return "table \(table) has no column \(column) to log"
        case let .expressionUniqueIndex(table, index):
            return "table \(table) has a unique index on an expression (\(index)): a REPLACE could remove rows the log cannot name"
        case let .invalidRetention(count):
            return "a change log keeps at least 1 entry, not \(count)"
        case let .reservedName(name):
            return "\(name) is a name the change log reserves"
        case let .database(error):
            return error.description
        }
    }
}

extension Connection {
    /// Installs a change log on `table` (see ``SQLiteChangeLog``), or
    /// installs it again with the given columns; entries already logged
    /// are dropped, and followers fetch again once.
    ///
    /// - Parameters:
    ///   - table: An ordinary table of the `main` database with a
    ///     one-column primary key.
    ///   - columns: The columns whose old values to log: the ones your
    ///     requests sort and section by. `nil`: every column.
    ///   - retained: How many entries the log keeps (trimmed every 256
    ///     entries): a follower that falls further behind fetches again.
    /// - Throws: ``SQLiteChangeLogError``, naming the table or column.
    /// - Complexity: O(1) in the table's rows.
    public func installChangeLog(
        on table: String, columns: [String]? = nil, keeping retained: Int = SQLiteChangeLog.defaultRetainedEntries,
        isolation: isolated (any Actor)? = #isolation
    ) throws(SQLiteChangeLogError) {
        guard retained >= 1 else { throw .invalidRetention(retained) }
        try changeLogTransaction(isolation: isolation) { db throws(SQLiteChangeLogError) in
            let schema = try ChangeLogSchema.read(table: table, columns: columns, in: db)
            for statement in schema.dropStatements + schema.createStatements(retained: retained) {
                do throws(SQLiteError) { try db.execute(statement) } catch { throw .database(error) }
            }
        }
    }

    /// Removes the change log of `table`: its triggers and its table. Does
    /// nothing when there is none.
    ///
    /// - Throws: ``SQLiteChangeLogError/database(_:)``.
    public func removeChangeLog(from table: String, isolation: isolated (any Actor)? = #isolation) throws(SQLiteChangeLogError) {
        try changeLogTransaction(isolation: isolation) { db throws(SQLiteChangeLogError) in
            for statement in ChangeLogSchema.dropStatements(table: table) {
                do throws(SQLiteError) { try db.execute(statement) } catch { throw .database(error) }
            }
        }
    }

    /// The change log of `table`, or `nil` when it has none.
    ///
    /// - Throws: ``SQLiteChangeLogError/database(_:)``.
    /// - Complexity: O(*e*) for the log's *e* entries (it counts them).
    public func changeLog(on table: String, isolation: isolated (any Actor)? = #isolation) throws(SQLiteChangeLogError) -> SQLiteChangeLog? {
        try withDatabase(isolation: isolation) { db throws(SQLiteChangeLogError) -> SQLiteChangeLog? in
            do throws(SQLiteError) {
                guard let layout = try ChangeLogLayout.read(table: table, in: db) else { return nil }
                let log = quotedIdentifier(SQLiteChangeLog.logTable(for: layout.table))
                let count = try db.rows("SELECT count(*) FROM \(log)").first?.first?.int64 ?? 0
                return SQLiteChangeLog(
                    table: layout.table, keyColumn: layout.keyColumn, columns: layout.columns,
                    entryCount: Int(count), lastEntry: try layout.lastEntry(in: db),
                    isCurrent: try ChangeLogSchema.triggersMatch(layout, in: db)
                )
            } catch {
                throw .database(error)
            }
        }
    }

    private func changeLogTransaction(
        isolation: isolated (any Actor)?, _ body: (Database) throws(SQLiteChangeLogError) -> Void
    ) throws(SQLiteChangeLogError) {
        do {
            try write(isolation: isolation) { db in try body(db) }
        } catch let error as SQLiteChangeLogError {
            throw error
        } catch let error as SQLiteError {
            throw .database(error)
        } catch {
            throw .database(SQLiteError(code: 1, message: "\(error)"))
        }
    }
}
