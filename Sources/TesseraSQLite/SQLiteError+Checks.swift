import TesseraResultsCore

extension SQLiteError {
    /// Throws when the SQL holds a NUL character: SQLite reads SQL as a C
    /// string, so everything after it would be dropped without a word.
    static func checkNoNUL(in sql: String) throws(SQLiteError) {
        guard let offset = sql.utf8.firstIndex(of: 0).map({ sql.utf8.distance(from: sql.utf8.startIndex, to: $0) }) else { return }
        throw SQLiteError(code: 21 /* SQLITE_MISUSE */, message: "the SQL holds a NUL character at byte \(offset), where SQLite would stop reading it", sql: sql)
    }
}
