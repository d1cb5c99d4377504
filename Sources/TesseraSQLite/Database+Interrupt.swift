import CSQLite

extension Database {
    /// How many steps of SQLite's virtual machine run between two checks
    /// of the conditions of ``interrupting(when:_:)``: a fraction of a
    /// millisecond of work.
    static let interruptCheckInterval: Int32 = 1000

    /// Runs `body`, interrupting the statements it runs as soon as
    /// `shouldInterrupt` returns true: the running statement stops at its
    /// next step with an ``SQLiteError`` whose ``SQLiteError/isInterrupted``
    /// is true, and so does any later statement of `body` while the
    /// condition holds.
    ///
    /// The condition is checked on the thread running the statement, every
    /// thousand steps of SQLite's virtual machine (through
    /// `sqlite3_progress_handler`), so it must be cheap, and it sees a
    /// change made before the statement started as well as one made while
    /// it runs. It makes long queries cancellable, for instance with the
    /// current task:
    ///
    /// ```swift
    /// let rows = try connection.withDatabase { db in
    ///     try db.interrupting(when: { Task.isCancelled }) { db in try db.rows(slowQuery) }
    /// }
    /// ```
    ///
    /// Calls nest: a statement stops when any of the conditions under way
    /// holds. For a thread that should stop the statement running now
    /// without a condition to poll, see ``Connection/interrupt()``.
    ///
    /// - Throws: what `body` throws.
    public func interrupting<T, E: Error>(when shouldInterrupt: () -> Bool, _ body: (Database) throws(E) -> T) throws(E) -> T {
        try withoutActuallyEscaping(shouldInterrupt) { (condition) throws(E) -> T in
            interruptConditions.append(condition)
            if interruptConditions.count == 1 { installInterruptCheck() }
            defer {
                interruptConditions.removeLast()
                if interruptConditions.isEmpty { sqlite3_progress_handler(handle, 0, nil, nil) }
            }
            return try body(self)
        }
    }

    private func installInterruptCheck() {
        sqlite3_progress_handler(handle, Self.interruptCheckInterval, { context in
            let database = Unmanaged<Database>.fromOpaque(context!).takeUnretainedValue()
            return database.interruptConditions.contains { $0() } ? 1 : 0
        }, Unmanaged.passUnretained(self).toOpaque())
    }
}
