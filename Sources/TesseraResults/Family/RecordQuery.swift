import TesseraDiff
import TesseraSQLite

/// A SELECT a controller of the family runs: leading columns of its own
/// (the key first), then every column of the table, which become the
/// record's ``Row``.
struct RecordQuery {
    /// The SQL.
    var sql: String
    /// The values bound to its parameters, in order.
    var arguments: [DatabaseValue]
    /// How many columns come before the table's: the first is the key.
    var leadingColumns: Int

    /// `SELECT <leading>, * FROM "<table>" WHERE (<predicate>) ORDER BY <keys>, <key>`.
    init(leading: [String], table: String, keyColumn: String, predicate: String?, arguments: [DatabaseValue], sortKeys: [SortKey]?) {
        var text = "SELECT " + leading.enumerated().map { "\($1) AS tessera_\($0)" }.joined(separator: ", ")
        text += ", * FROM \(quotedIdentifier(table))"
        text += whereClause(predicate)
        if let sortKeys {
            let order = sortKeys.map(\.sql) + ["\(quotedIdentifier(keyColumn)) ASC"]
            text += " ORDER BY " + order.joined(separator: ", ")
        }
        sql = text
        self.arguments = arguments
        leadingColumns = leading.count
    }

    /// Runs the query, calling `body` with each row's leading values and
    /// record, in order.
    ///
    /// - Parameter readTables: Set to the tables the query reads (views
    ///   report their base tables), without SQLite's own.
    /// - Throws: ``ResultsError/database(_:)`` for SQL SQLite refuses or a
    ///   failed step, ``ResultsError/decoding(key:message:)`` for a record
    ///   that fails to decode, or what `body` throws.
    /// - Complexity: O(*r* · *c*) for *r* rows of *c* columns, plus SQLite's
    ///   work.
    func run<Record: FetchableRecord>(
        _ type: Record.Type,
        in db: Database,
        readTables: inout Set<String>,
        _ body: (_ leading: [DatabaseValue], _ record: Record) throws(ResultsError) -> Void
    ) throws(ResultsError) {
        let statement = try prepare(in: db, readTables: &readTables)
        try run(statement, arguments: arguments, as: type, body)
    }

    /// Prepares the query, noting the tables it reads.
    ///
    /// - Throws: ``ResultsError/database(_:)`` for SQL SQLite refuses.
    func prepare(in db: Database, readTables: inout Set<String>) throws(ResultsError) -> Statement {
        let (statement, tables) = try prepareNotingReads(sql, in: db)
        readTables = tables
        return statement
    }

    /// Runs a statement prepared by ``prepare(in:readTables:)`` (again)
    /// with `arguments`, and `key` (when given) bound to its last
    /// parameter, calling `body` with each row's leading values and
    /// record, in order.
    ///
    /// - Throws: as ``run(_:in:readTables:_:)``.
    func run<Record: FetchableRecord>(
        _ statement: Statement,
        arguments: [DatabaseValue],
        key: DatabaseValue? = nil,
        as type: Record.Type,
        _ body: (_ leading: [DatabaseValue], _ record: Record) throws(ResultsError) -> Void
    ) throws(ResultsError) {
        statement.reset()
        do {
            try statement.bind(arguments, key: key)
        } catch {
            throw .database(error)
        }
        let names = (leadingColumns..<statement.columnCount).map(statement.columnName)
        var row = Row(columnNames: names, values: Array(repeating: .null, count: names.count))
        var leading = Array(repeating: DatabaseValue.null, count: leadingColumns)
        while true {
            do {
                guard try statement.step() else { break }
            } catch {
                throw .database(error)
            }
            for column in leading.indices { leading[column] = statement.value(at: column) }
            for column in row.values.indices { row.values[column] = statement.value(at: column + leadingColumns) }
            let record: Record
            do {
                record = try Record(row: row)
            } catch {
                throw .decoding(key: leading[0].description, message: "\(error)")
            }
            try body(leading, record)
        }
    }
}

/// Prepares a statement and returns the tables it reads, as SQLite's
/// authorizer reports them (views report their base tables), without
/// SQLite's own.
///
/// - Throws: ``ResultsError/database(_:)`` for SQL SQLite refuses.
func prepareNotingReads(_ sql: String, in db: Database) throws(ResultsError) -> (Statement, Set<String>) {
    let (statement, tables, _) = try prepareNotingReadsAndSelects(sql, in: db)
    return (statement, tables)
}

/// ``prepareNotingReads(_:in:)``, also counting the SELECTs the statement
/// runs (1 for a plain query; each subquery adds one).
func prepareNotingReadsAndSelects(_ sql: String, in db: Database) throws(ResultsError) -> (Statement, Set<String>, Int) {
    var tables = Set<String>()
    var selects = 0
    let statement: Statement
    do {
        let previous = db.authorizer
        db.authorizer = { authorization in
            if authorization.action == 20, let table = authorization.first { tables.insert(table) }   // SQLITE_READ
            if authorization.action == 21 { selects += 1 }   // SQLITE_SELECT
            return previous?(authorization) ?? true
        }
        defer { db.authorizer = previous }
        statement = try db.prepare(sql)
    } catch {
        throw .database(error)
    }
    return (statement, tables.filter { !$0.hasPrefix("sqlite_") }, selects)
}

/// An SQL identifier in double quotes, inner quotes doubled.
func quotedIdentifier(_ identifier: String) -> String {
    "\"" + identifier.split(separator: "\"", omittingEmptySubsequences: false).joined(separator: "\"\"") + "\""
}

/// SQLite's schema version, which changes with every schema change.
func schemaVersion(of database: Database) -> Int64? {
    try? database.rows("PRAGMA schema_version").first?.first?.int64
}

/// The changes between two snapshots of records, with repeated ids as
/// ``ResultsError/duplicateKey(_:)``.
func recordDiff<Section, Item>(from old: Snapshot<Section, Item>, to new: Snapshot<Section, Item>) throws(ResultsError) -> Changeset {
    do {
        return try diff(from: old, to: new)
    } catch let DiffError.duplicateItemID(id, _, _, _) {
        throw .duplicateKey(id)
    } catch let DiffError.duplicateSectionID(id, _, _, _) {
        throw .duplicateKey(id)
    } catch {
        throw .duplicateKey("\(error)")
    }
}

extension Statement {
    /// Binds a request's arguments in order, and `key` (when given) to the
    /// statement's last parameter: the `?` of the `key = ?` a point query
    /// ends with. That `?` takes the number after the largest before it,
    /// so a predicate with fewer arguments than parameters (the rest NULL,
    /// as in the full query) or with `?NNN` and named ones still gets the
    /// key there, not in one of its own.
    ///
    /// - Throws: ``SQLiteError`` for more arguments than the statement has
    ///   parameters.
    func bind(_ arguments: [DatabaseValue], key: DatabaseValue?) throws(SQLiteError) {
        try bind(arguments)
        if let key { try bind(key, at: parameterCount) }
    }
}
