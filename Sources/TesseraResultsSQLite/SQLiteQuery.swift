import TesseraResultsCore
import TesseraSQLite

/// Prepares a statement and returns the tables it reads, as SQLite's
/// authorizer reports them (views report their base tables), without
/// SQLite's own, and the number of SELECTs it runs (1 for a plain query;
/// each subquery adds one).
///
/// - Throws: ``ResultsError/database(_:)`` for SQL SQLite refuses.
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

/// SQLite's schema version, which changes with every schema change.
func schemaVersion(of database: Database) -> Int64? {
    try? database.rows("PRAGMA schema_version").first?.first?.int64
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
