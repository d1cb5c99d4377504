import TesseraResults
import TesseraSQLite

/// `tessera log`: installs, describes or removes the change log of a table
/// of an SQLite file (see ``SQLiteChangeLog``).
package struct ChangeLogRun {
    package enum Action: Sendable {
        case install(columns: [String]?, keeping: Int)
        case show
        case remove
    }

    package let databasePath: String
    package let table: String
    package let action: Action

    package init(databasePath: String, table: String, action: Action) {
        self.databasePath = databasePath
        self.table = table
        self.action = action
    }

    /// Runs the action and returns what to print.
    package func run() throws(CommandError) -> String {
        if case let .install(_, keeping) = action, keeping < 1 {
            throw CommandError("--keep must be at least 1, not \(keeping)", exitCode: CommandError.usageExitCode)
        }
        let connection: Connection
        do {
            connection = try Connection(path: databasePath, mode: .readWrite, busyTimeout: 5)
        } catch {
            throw DatabaseErrors.opening(databasePath, error)
        }
        let found: [[DatabaseValue]]
        do throws(SQLiteError) {
            found = try connection.withDatabase { db throws(SQLiteError) in
                try db.rows("SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = ? COLLATE NOCASE", [.text(table)])
            }
        } catch {
            throw DatabaseErrors.opening(databasePath, error)
        }
        if found.isEmpty { throw Self.commandError(.noSuchTable(table), path: databasePath) }
        do throws(SQLiteChangeLogError) {
            switch action {
            case let .install(columns, keeping):
                try connection.installChangeLog(on: table, columns: columns, keeping: keeping)
                return try describe(connection, verb: "installed")
            case .show:
                return try describe(connection, verb: nil)
            case .remove:
                let had = try connection.changeLog(on: table) != nil
                try connection.removeChangeLog(from: table)
                return had ? "\(databasePath): removed the change log of \(table)" : "\(databasePath): \(table) had no change log"
            }
        } catch {
            throw Self.commandError(error, path: databasePath)
        }
    }

    private func describe(_ connection: Connection, verb: String?) throws(SQLiteChangeLogError) -> String {
        guard let log = try connection.changeLog(on: table) else { return "\(databasePath): \(table) has no change log" }
        let head = verb.map { "\(databasePath): \($0) the change log of \(log.table)" } ?? "\(databasePath): \(log.table) has a change log"
        let entries = log.entryCount == 1 ? "1 entry" : "\(log.entryCount) entries"
        let line = head + " (key \(log.keyColumn); logging \(log.columns.joined(separator: ", ")); \(entries), the last \(log.lastEntry))"
        // A table rebuilt, a unique index added, a logged column renamed.
        return log.isCurrent ? line : line + "; its triggers no longer fit the table: install it again"
    }

    static func commandError(_ error: SQLiteChangeLogError, path: String) -> CommandError {
        switch error {
        case let .database(sqlite):
            if DatabaseErrors.isLocked(sqlite) { return DatabaseErrors.locked(path) }
            return CommandError("\(path): \(sqlite.message)", exitCode: CommandError.databaseExitCode)
        case .invalidRetention:
            return CommandError("\(error)", exitCode: CommandError.usageExitCode)
        default:
            return CommandError("\(path): \(error)", exitCode: CommandError.databaseExitCode)
        }
    }
}
