import TesseraResultsCore
import TesseraSQLite

extension Connection {
    /// Runs a fetch with the database, cancellable: its statements stop
    /// when the current task is cancelled (a task cancelled already fetches
    /// nothing), and a statement interrupted that way or by
    /// ``TesseraSQLite/Connection/interrupt()`` ends the fetch with
    /// ``ResultsError/cancelled``. Outside a task, only `interrupt()`
    /// cancels.
    ///
    /// First checks that the file is still a database
    /// (`Connection.checkFileIsDatabase()`).
    ///
    /// - Throws: ``ResultsError/cancelled``, ``ResultsError/database(_:)``
    ///   when the file was damaged, or what `body` throws.
    func cancellableFetch<T>(
        isolation: isolated (any Actor)? = #isolation,
        _ body: (Database) throws(ResultsError) -> T
    ) throws(ResultsError) -> T {
        try withDatabase(isolation: isolation) { db throws(ResultsError) in
            guard !Task.isCancelled else { throw .cancelled }
            // SQLite's cache would hide a file cut short or overwritten.
            do throws(SQLiteError) { try checkFileIsDatabase() } catch { throw .database(error) }
            do throws(ResultsError) {
                return try db.interrupting(when: { Task.isCancelled }) { db throws(ResultsError) in try body(db) }
            } catch {
                if case let .database(sqlite) = error, sqlite.isInterrupted { throw .cancelled }
                throw error
            }
        }
    }
}
