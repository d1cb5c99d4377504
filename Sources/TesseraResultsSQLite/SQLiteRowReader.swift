import TesseraResultsCore
import TesseraSQLite

/// A request's reads on SQLite (see ``RowReader``): its full query, which
/// is prepared (and the tables it reads found) on first need, and its point
/// query by key.
final class SQLiteRowReader: RowReader {
    let database: Database
    /// The full query, made on first need.
    private(set) lazy var sql = makeSQL()
    /// The query by key, made on first need (`nil`: none).
    private(set) lazy var pointSQL = makePointSQL()
    private let makeSQL: () -> String
    private let makePointSQL: () -> String?
    private let makeTupleSQL: (() -> String)?
    let arguments: [DatabaseValue]
    let leadingColumns: Int
    /// The table or view the request names, `nil` for a query of its own.
    let table: String?
    let keyColumn: String
    /// Where the query by key is kept from one commit to the next.
    private let statements: SQLiteStatementCache?
    private let planning: ((Set<String>, Int, Database) -> SQLitePatchPlan?)?

    init(
        database: Database, sql: @escaping () -> String, pointSQL: @escaping () -> String?, tupleSQL: (() -> String)? = nil, arguments: [DatabaseValue], leadingColumns: Int,
        table: String?, keyColumn: String, statements: SQLiteStatementCache?, planning: ((Set<String>, Int, Database) -> SQLitePatchPlan?)? = nil
    ) {
        self.database = database
        makeSQL = sql
        makePointSQL = pointSQL
        makeTupleSQL = tupleSQL
        self.arguments = arguments
        self.leadingColumns = leadingColumns
        self.table = table
        self.keyColumn = keyColumn
        self.statements = statements
        self.planning = planning
    }

    convenience init(
        recordQuery: RecordQuery, pointQuery: RecordQuery?, database: Database, table: String, keyColumn: String,
        predicate: String?, statements: SQLiteStatementCache? = nil
    ) {
        self.init(
            database: database, sql: { recordQuery.sql }, pointSQL: { pointQuery?.sql }, arguments: recordQuery.arguments,
            leadingColumns: recordQuery.leadingColumns, table: table, keyColumn: keyColumn, statements: statements
        )
        // A subquery may make one row's change move others in or out (and
        // SQLite's authorizer does not report every subquery as a SELECT).
        predicateHasSubquery = predicate?.lowercased().contains("select") ?? false
    }

    /// Whether the predicate has a subquery.
    private var predicateHasSubquery = false

    private struct Prepared {
        var statement: Statement
        var tables: Set<String>
        var plan: SQLitePatchPlan?
    }

    private var prepared: Prepared?

    /// The full query, prepared once.
    private func prepare() throws(ResultsError) -> Prepared {
        if let prepared { return prepared }
        let (statement, tables, selects) = try prepareNotingReadsAndSelects(sql, in: database)
        let made = Prepared(statement: statement, tables: tables, plan: planning?(tables, selects, database))
        prepared = made
        return made
    }

    var readTables: Set<String> { (try? prepare().tables) ?? [] }

    /// SQLite's side of the patch plan (the table, the key's column, the
    /// columns whose NULL the hook may not give right).
    var sqlitePlan: SQLitePatchPlan? { try? prepare().plan }

    var patchPlan: PatchPlan? { sqlitePlan?.patchPlan }

    /// A table's single-column primary key is unique; any other key
    /// column, a view or a query of your own may repeat a key.
    var keysAreUnique: Bool {
        guard let table, let columns = try? database.rows("SELECT name, pk FROM pragma_table_info(?)", [.text(table)]) else { return false }
        let primaryKey = columns.filter { ($0[1].int64 ?? 0) > 0 }
        return primaryKey.count == 1 && primaryKey[0][0].string.map { sqliteNamesEqual($0, keyColumn) } == true
    }

    /// SQLite orders keys as its BINARY collation does: NULL, numbers,
    /// text by bytes, blobs.
    var keyOrdering: any SortOrdering { SQLiteSortOrdering(collation: .binary, ascending: true) }

    /// Where the pre-update hook's values hold the key: its column in a
    /// table without hidden columns, or the row id; `nil` (every change
    /// re-fetches) when the predicate has a subquery, which can make one
    /// row's change move others in or out.
    var keySource: SQLiteChangeSource.KeySource? {
        guard let table, !predicateHasSubquery else { return nil }
        guard let columns = try? database.rows("SELECT name, hidden FROM pragma_table_xinfo(?)", [.text(table)]),
              !columns.isEmpty, columns.allSatisfy({ $0[1].int64 == 0 })
        else { return nil }
        if let index = columns.firstIndex(where: { $0[0].string.map { sqliteNamesEqual($0, keyColumn) } == true }) { return .column(index) }
        if ["rowid", "oid", "_rowid_"].contains(where: { sqliteNamesEqual($0, keyColumn) }) { return .rowID }
        return nil
    }

    func readAll(_ body: (_ leading: any LeadingValues, _ row: Row) throws(ResultsError) -> Void) throws(ResultsError) {
        let statement = try prepare().statement
        var row = statement.recordRow(after: leadingColumns)
        try run(statement, key: nil, row: &row, body)
    }

    func readTuples(_ body: (_ leading: any LeadingValues, _ tuple: Row) throws(ResultsError) -> Void) throws(ResultsError) {
        guard let makeTupleSQL else {
            throw .invalidSQL(part: "request", sql: sql, problem: "it has no read of rows without their records")
        }
        let tupleSQL = makeTupleSQL()
        let statement: Statement
        do throws(SQLiteError) { statement = try database.prepare(tupleSQL) } catch { throw .database(error) }
        var row = statement.recordRow(after: leadingColumns)
        try run(statement, key: nil, row: &row, body)
    }

    func readRows(keys: [DatabaseValue], _ body: (_ leading: any LeadingValues, _ row: Row) throws(ResultsError) -> Void) throws(ResultsError) {
        guard !keys.isEmpty else { return }
        guard let pointSQL else {
            throw .invalidSQL(part: "request", sql: sql, problem: "it has no read of rows by key")
        }
        // Several keys: a statement for up to `batchWidth` of them at a
        // time (`… IN (?, …, ?)`), not one per key. SQLite sorts the keys
        // and seeks each one, so that rows near each other in the table are
        // read one after another.
        // The first batch's statement is the widest: one that SQLite
        // refuses (a predicate's own numbered parameters leave too few
        // for its places) means reading a key at a time, before any row
        // is given.
        if keys.count > 1, let prefix = Self.batchPrefix(of: pointSQL), arguments.count + Self.batchWidth <= Self.parameterFloor,
           let first = try? kept(Self.batchSQL(prefix, keys: min(keys.count, Self.batchWidth))) {
            var start = keys.startIndex
            var statement = first
            while start < keys.endIndex {
                let end = min(keys.endIndex, start + Self.batchWidth)
                if start != keys.startIndex { statement = try kept(Self.batchSQL(prefix, keys: end - start)) }
                try readBatch(keys[start..<end], with: statement, body)
                start = end
            }
            return
        }
        let statement = try kept(pointSQL)
        var row = statement.recordRow(after: leadingColumns)
        for key in keys { try run(statement, key: key, row: &row, body) }
    }

    /// The statement for `sql`: the one the change source keeps, or one
    /// prepared for this read.
    private func kept(_ sql: String) throws(ResultsError) -> Statement {
        do throws(SQLiteError) {
            if let statements { return try statements.statement(sql, in: database) }
            return try database.prepare(sql)
        } catch {
            throw .database(error)
        }
    }

    /// The most keys one statement of ``readRows(keys:_:)`` binds.
    static let batchWidth = 512

    /// The widths of the statements of ``readRows(keys:_:)``: a batch is
    /// read by the narrowest that holds it (the places left over bound to
    /// NULL, which no key equals), so that a change source keeps at most
    /// three of them.
    static let batchWidths = [8, 64, batchWidth]

    /// The parameters every SQLite accepts in one statement (999 before
    /// 3.32): a request with more arguments of its own reads a key at a
    /// time.
    static let parameterFloor = 999

    /// The query by key without its `= ?` (to which `IN (…)` is added), or
    /// `nil` when it does not end so.
    static func batchPrefix(of pointSQL: String) -> String? {
        guard pointSQL.hasSuffix(" = ?") else { return nil }
        return String(pointSQL.dropLast(3))
    }

    /// The width of the statement that reads `count` keys: the narrowest
    /// of the ``batchWidths`` that holds them.
    static func batchWidth(for count: Int) -> Int {
        batchWidths.first { $0 >= count } ?? batchWidth
    }

    /// The statement that reads `keys` keys, from the query by key's
    /// `prefix`.
    static func batchSQL(_ prefix: String, keys: Int) -> String {
        prefix + "IN (" + repeatElement("?", count: batchWidth(for: keys)).joined(separator: ", ") + ")"
    }

    /// Reads the rows of up to ``batchWidth`` keys with `statement`, the
    /// ``batchSQL(_:keys:)`` for their count.
    private func readBatch(
        _ keys: ArraySlice<DatabaseValue>, with statement: Statement, _ body: (_ leading: any LeadingValues, _ row: Row) throws(ResultsError) -> Void
    ) throws(ResultsError) {
        let width = Self.batchWidth(for: keys.count)
        var row = statement.recordRow(after: leadingColumns)
        try statement.withReset { statement throws(ResultsError) in
            do throws(SQLiteError) {
                try statement.bind(arguments)
                let first = statement.parameterCount - width + 1
                var index = first
                for key in keys {
                    try statement.bind(key, at: index)
                    index += 1
                }
                while index < first + width {
                    try statement.bind(.null, at: index)
                    index += 1
                }
            } catch {
                throw .database(error)
            }
            try statement.readRows(after: leadingColumns, into: &row, body)
        }
    }

    /// Runs a statement with the request's arguments, and `key` bound to
    /// its last parameter when given, calling `body` with each row. `row`
    /// is the buffer every row is read into: written in place unless a
    /// record kept the previous row.
    private func run(
        _ statement: Statement, key: DatabaseValue?, row: inout RecordRow,
        _ body: (_ leading: any LeadingValues, _ row: Row) throws(ResultsError) -> Void
    ) throws(ResultsError) {
        try statement.withReset { statement throws(ResultsError) in
            do throws(SQLiteError) {
                try statement.bind(arguments, key: key)
            } catch {
                throw .database(error)
            }
            try statement.readRows(after: leadingColumns, into: &row, body)
        }
    }
}

/// A statement's first columns are a row's leading values.
extension Statement: LeadingValues {}

extension Statement {
    /// A row buffer for the record's columns: those after the first
    /// `leading` ones, as the statement is prepared now.
    func recordRow(after leading: Int) -> RecordRow {
        let names = (leading..<max(leading, columnCount)).map(columnName)
        return RecordRow(row: Row(columnNames: names, values: Array(repeating: .null, count: names.count)), preparation: reprepareCount)
    }

    /// Steps through at most `limit` rows, reading each one's columns
    /// after the first `leading` into `buffer` (in place unless a record
    /// kept the previous row) and calling `body` with it; the leading
    /// values are the statement's first columns, read when asked.
    ///
    /// When SQLite has prepared the statement again since `buffer` was
    /// made (after a schema change: a `SELECT *` gains or loses columns,
    /// or has as many under other names), the buffer is made anew from
    /// the statement's columns before a row is read into it, so no record
    /// reads the columns of the statement's old shape. That holds across
    /// calls with one buffer too: a step that gave no row (a key the
    /// commit deleted) may be the one that prepared it again.
    ///
    /// The statement is reset on every way out but one: when it stops at
    /// `limit` with rows left, the caller goes on stepping it later (and
    /// ends it; see ``Statement/withReset(_:)``). A throw from SQLite or
    /// from `body` resets it.
    ///
    /// - Returns: Whether the statement is done.
    @discardableResult
    func readRows(
        upTo limit: Int = .max, after leading: Int, into buffer: inout RecordRow,
        _ body: (_ leading: any LeadingValues, _ row: Row) throws(ResultsError) -> Void
    ) throws(ResultsError) -> Bool {
        var stoppedWithRowsLeft = false
        defer { if !stoppedWithRowsLeft { reset() } }
        var stepped = 0
        while stepped < limit {
            do throws(SQLiteError) {
                guard try step() else { return true }
            } catch {
                throw .database(error)
            }
            stepped += 1
            if buffer.preparation != reprepareCount || buffer.row.values.count != columnCount - leading { buffer = recordRow(after: leading) }
            for column in buffer.row.values.indices { buffer.row.values[column] = value(at: column + leading) }
            try body(self, buffer.row)
        }
        stoppedWithRowsLeft = true
        return false
    }
}

/// A row buffer for a statement's record columns, and the preparation of
/// the statement its column names are those of (its
/// ``TesseraSQLite/Statement/reprepareCount`` when it was made).
struct RecordRow {
    var row: Row
    var preparation: Int
}

/// The statements a change source keeps from one commit to the next (its
/// request's query by key), so that a commit does not prepare them again.
/// Used only where its connection is held, like the statements it keeps,
/// and only with that connection's database (a change source observes one).
final class SQLiteStatementCache {
    private(set) var statements: [String: Statement] = [:]

    /// The statement for `sql`, prepared on first use and reset after.
    ///
    /// - Throws: ``SQLiteError`` when SQLite refuses the SQL.
    func statement(_ sql: String, in database: Database) throws(SQLiteError) -> Statement {
        if let statement = statements[sql] { return statement }
        let statement = try database.prepare(sql)
        statements[sql] = statement
        return statement
    }
}
