import CSQLite
import TesseraResultsCore

/// A prepared SQL statement: prepare once, bind, step through rows, reset,
/// run again. Not thread-safe: use it only inside the closure that gave you
/// its ``Database``.
public final class Statement {
    let handle: OpaquePointer
    /// The SQL it was prepared from.
    public let sql: String
    /// Kept alive while the statement is: finalizing it may commit, and
    /// the database's observers are told then.
    let database: Database

    init(database: Database, sql: String) throws(SQLiteError) {
        try SQLiteError.checkNoNUL(in: sql)
        var statement: OpaquePointer?
        var code = SQLITE_OK
        let trailing: String? = sql.withCString { start in
            var tail: UnsafePointer<CChar>?
            code = sqlite3_prepare_v2(database.handle, start, -1, &statement, &tail)
            guard code == SQLITE_OK, statement != nil else { return nil }
            return Statement.trailingStatement(after: tail, in: database.handle)
        }
        guard code == SQLITE_OK else { throw database.error(code, sql: sql) }
        guard let statement else {
            throw SQLiteError(code: SQLITE_MISUSE, message: "no statement to prepare: the SQL holds only white space and comments", sql: sql)
        }
        if let trailing {
            sqlite3_finalize(statement)
            throw SQLiteError(
                code: SQLITE_ERROR,
                message: "more than one statement: \"\(trailing)\" follows the first; run scripts with execute(_:)",
                sql: sql
            )
        }
        self.handle = statement
        self.sql = sql
        self.database = database
    }

    /// The first statement in `tail` (what follows a prepared statement),
    /// or `nil` when it holds only white space and comments.
    private static func trailingStatement(after tail: UnsafePointer<CChar>?, in handle: OpaquePointer) -> String? {
        guard var rest = tail else { return nil }
        while rest.pointee != 0 {
            var statement: OpaquePointer?
            var next: UnsafePointer<CChar>?
            guard sqlite3_prepare_v2(handle, rest, -1, &statement, &next) == SQLITE_OK else {
                return String(cString: rest).trimmingSQLWhitespace()
            }
            if let statement {
                defer { sqlite3_finalize(statement) }
                return String(cString: sqlite3_sql(statement)).trimmingSQLWhitespace()
            }
            guard let next, next != rest else { return nil }
            rest = next
        }
        return nil
    }

    deinit {
        sqlite3_finalize(handle)
        // A statement finalized before it was done commits then.
        database.notifyCommitIfNeeded()
    }

    /// The number of columns a row has.
    public var columnCount: Int { Int(sqlite3_column_count(handle)) }

    /// The name of a column.
    public func columnName(_ index: Int) -> String {
        String(cString: sqlite3_column_name(handle, Int32(index)))
    }

    /// The tables the statement reads, as SQLite declares them for its
    /// result columns (columns computed from expressions have none).
    ///
    /// - Complexity: O(*c*) for *c* result columns.
    public var resultTables: Set<String> {
        var tables = Set<String>()
        for index in 0..<Int32(columnCount) {
            if let name = sqlite3_column_table_name(handle, index) { tables.insert(String(cString: name)) }
        }
        return tables
    }

    /// The number of parameters the statement takes: its `?` placeholders,
    /// or the largest index of its numbered (`?NNN`) and named ones
    /// (`sqlite3_bind_parameter_count`).
    public var parameterCount: Int { Int(sqlite3_bind_parameter_count(handle)) }

    /// Binds a value to a parameter by its 1-based index.
    ///
    /// - Throws: ``SQLiteError`` when the index is out of range.
    public func bind(_ value: DatabaseValue, at index: Int) throws(SQLiteError) {
        let position = Int32(index)
        let code: Int32
        switch value {
        case .null: code = sqlite3_bind_null(handle, position)
        case let .integer(integer): code = sqlite3_bind_int64(handle, position, integer)
        case let .real(real): code = sqlite3_bind_double(handle, position, real)
        case let .text(text):
            // With its byte count, so text holding a NUL is stored whole.
            var text = text
            code = text.withUTF8 { bytes in
                bytes.withMemoryRebound(to: CChar.self) { chars in
                    guard let start = chars.baseAddress else { return sqlite3_bind_text(handle, position, "", 0, transientDestructor) }
                    return sqlite3_bind_text(handle, position, start, Int32(chars.count), transientDestructor)
                }
            }
        case let .blob(bytes):
            code = bytes.withUnsafeBytes { buffer in
                sqlite3_bind_blob(handle, position, buffer.baseAddress, Int32(buffer.count), transientDestructor)
            }
        }
        guard code == SQLITE_OK else { throw database.error(code, sql: sql) }
    }

    /// Binds a value to a named parameter (`:name`, `@name` or `$name`).
    ///
    /// - Throws: ``SQLiteError`` when the statement has no such parameter.
    public func bind(_ value: DatabaseValue, to name: String) throws(SQLiteError) {
        let index = sqlite3_bind_parameter_index(handle, name)
        guard index > 0 else {
            throw SQLiteError(code: SQLITE_RANGE, message: "no parameter named \(name)", sql: sql)
        }
        try bind(value, at: Int(index))
    }

    /// Binds values to the parameters in order.
    public func bind(_ values: [DatabaseValue]) throws(SQLiteError) {
        for (offset, value) in values.enumerated() { try bind(value, at: offset + 1) }
    }

    /// Runs the statement to its next row: `true` when a row is available,
    /// `false` when it is done.
    ///
    /// - Throws: ``SQLiteError`` with SQLite's code, message and the SQL.
    @discardableResult
    public func step() throws(SQLiteError) -> Bool {
        let code = sqlite3_step(handle)
        switch code {
        case SQLITE_ROW: return true
        case SQLITE_DONE:
            database.notifyCommitIfNeeded()
            return false
        default:
            database.notifyCommitIfNeeded()
            throw database.error(code, sql: sql)
        }
    }

    /// Runs `body`, which binds and steps the statement, and resets the
    /// statement on every way out: a return, an error thrown by SQLite or
    /// by `body` (a record that fails to decode, say), an interrupt.
    ///
    /// A statement that has stepped and is neither done nor reset holds
    /// its connection's read transaction open: the connection goes on
    /// reading the state of that moment and never sees another
    /// connection's commit. This is the one way Tessera steps a statement
    /// it keeps, so that no path can leave it so. Bindings are kept.
    ///
    /// - Throws: what `body` throws.
    /// - Complexity: what `body` costs.
    public func withReset<T, E: Error>(_ body: (Statement) throws(E) -> T) throws(E) -> T {
        defer { reset() }
        return try body(self)
    }

    /// Whether the statement has stepped and is neither done nor reset
    /// (`sqlite3_stmt_busy`): while it is, its connection's read
    /// transaction stays open.
    public var isBusy: Bool { sqlite3_stmt_busy(handle) != 0 }

    /// How many times SQLite has prepared the statement again since it
    /// was made (`SQLITE_STMTSTATUS_REPREPARE`): it does so at the first
    /// step after a schema change, and its columns may then differ (a
    /// `SELECT *` gains or loses a column).
    public var reprepareCount: Int { Int(sqlite3_stmt_status(handle, Int32(SQLITE_STMTSTATUS_REPREPARE), 0)) }

    /// Resets the statement to run again (bindings are kept).
    public func reset() {
        sqlite3_reset(handle)
        // A statement reset before it was done commits then.
        database.notifyCommitIfNeeded()
    }

    /// Clears every binding to NULL.
    public func clearBindings() {
        sqlite3_clear_bindings(handle)
    }

    /// The value of a column of the current row.
    public func value(at index: Int) -> DatabaseValue {
        let column = Int32(index)
        switch sqlite3_column_type(handle, column) {
        case SQLITE_INTEGER: return .integer(sqlite3_column_int64(handle, column))
        case SQLITE_FLOAT: return .real(sqlite3_column_double(handle, column))
        case SQLITE_TEXT: return .text(text(at: index))
        case SQLITE_BLOB:
            let count = Int(sqlite3_column_bytes(handle, column))
            guard count > 0, let bytes = sqlite3_column_blob(handle, column) else { return .blob([]) }
            return .blob(Array(UnsafeRawBufferPointer(start: bytes, count: count)))
        default: return .null
        }
    }

    /// A column of the current row as an integer (SQLite's conversion).
    public func int64(at index: Int) -> Int64 { sqlite3_column_int64(handle, Int32(index)) }

    /// A column of the current row as a double (SQLite's conversion).
    public func double(at index: Int) -> Double { sqlite3_column_double(handle, Int32(index)) }

    /// A column of the current row as text (SQLite's conversion; NULL is
    /// the empty string).
    public func text(at index: Int) -> String {
        guard let text = sqlite3_column_text(handle, Int32(index)) else { return "" }
        let count = Int(sqlite3_column_bytes(handle, Int32(index)))
        return String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self)
    }

    /// Whether a column of the current row is NULL.
    public func isNull(at index: Int) -> Bool { sqlite3_column_type(handle, Int32(index)) == SQLITE_NULL }

    /// Every value of the current row.
    ///
    /// - Complexity: O(*c*) for *c* columns.
    public var row: [DatabaseValue] { (0..<columnCount).map(value(at:)) }
}

@available(*, unavailable)
extension Statement: Sendable {}

/// SQLITE_TRANSIENT: SQLite copies the bound bytes.
let transientDestructor = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

extension String {
    /// The text without leading and trailing white space.
    func trimmingSQLWhitespace() -> String {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\n" || $0 == "\t" || $0 == "\r" || $0 == "\u{0C}" }
        guard let first = firstIndex(where: { !isSpace($0) }), let last = lastIndex(where: { !isSpace($0) }) else { return "" }
        return String(self[first...last])
    }
}
