import CSQLite
import TesseraResultsCore

/// A statement of a script that SQLite could not prepare or run, and where
/// it lies in the script.
package struct ScriptStatementError: Error, Sendable {
    /// SQLite's error, with the statement's SQL when SQLite could read it.
    package var error: SQLiteError
    /// The statement's place in the script's UTF-8 bytes: from the end of
    /// the statement before it (so white space, comments and empty `;`
    /// statements before it are included) to the end of its `;`, or to the end of the script when
    /// SQLite could not read it.
    package var bytes: Range<Int>

    /// Creates an error.
    package init(error: SQLiteError, bytes: Range<Int>) {
        self.error = error
        self.bytes = bytes
    }
}

extension Database {
    /// Runs the statements of a script one at a time, as ``execute(_:)``
    /// does, and calls `didRun` once each statement has run, with its place
    /// in the script's UTF-8 bytes (from the end of the statement before,
    /// so white space, comments and empty `;` statements before it are
    /// included); the script
    /// stops when `didRun` returns false. Each statement is prepared only
    /// once the ones before it have run, so a statement may use a table a
    /// statement before it created.
    ///
    /// - Throws: ``ScriptStatementError`` for the first statement SQLite
    ///   cannot prepare or run (its place, and SQLite's error), or for a
    ///   script that holds a NUL character. The statements before it have
    ///   run; the statements after it have not.
    /// - Complexity: O(*s*) for *s* statements, plus their own work.
    package func executeStatements(of script: String, didRun: (_ bytes: Range<Int>) -> Bool) throws(ScriptStatementError) {
        do {
            try SQLiteError.checkNoNUL(in: script)
        } catch {
            throw ScriptStatementError(error: error, bytes: 0..<script.utf8.count)
        }
        let length = script.utf8.count
        var failure: ScriptStatementError?
        script.withCString { start in
            var next: UnsafePointer<CChar>? = start
            while let current = next, current.pointee != 0 {
                let offset = current - start
                var statement: OpaquePointer?
                var tail: UnsafePointer<CChar>?
                let code = sqlite3_prepare_v2(handle, current, -1, &statement, &tail)
                guard code == SQLITE_OK else {
                    failure = ScriptStatementError(error: error(code, sql: String(cString: current).trimmingSQLWhitespace()), bytes: offset..<length)
                    return
                }
                let end = tail.map { $0 - start } ?? length
                next = tail
                // Only white space or a comment was left.
                guard let statement else { continue }
                var result: Int32
                repeat { result = sqlite3_step(statement) } while result == SQLITE_ROW
                let failed = result == SQLITE_DONE ? nil : error(result, sql: String(cString: sqlite3_sql(statement)).trimmingSQLWhitespace())
                sqlite3_finalize(statement)
                notifyCommitIfNeeded()
                if let failed {
                    failure = ScriptStatementError(error: failed, bytes: offset..<end)
                    return
                }
                guard didRun(offset..<end) else { return }
            }
        }
        if let failure { throw failure }
    }
}
