import CSQLite
import TesseraResultsCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

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
    /// A statement waiting for another connection's lock (see
    /// ``busyTimeout``) stops waiting too, within 10 ms of the condition
    /// holding, with the same interrupted error.
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

extension Database {
    /// How long a statement waits for another connection's lock before it
    /// fails with `SQLITE_BUSY`, in seconds: none when negative or NaN, and
    /// at most `Int32.max` milliseconds (about 24 days). It waits as
    /// SQLite's own `sqlite3_busy_timeout` does (1 ms, then longer, up to
    /// 100 ms between tries), except that the conditions of
    /// ``interrupting(when:_:)`` end the wait.
    public var busyTimeout: Double {
        get { Double(busyTimeoutMilliseconds) / 1000 }
        set {
            let milliseconds = (newValue * 1000).rounded(.down)
            // Negative or NaN: no wait.
            busyTimeoutMilliseconds = milliseconds > 0 ? (milliseconds < Double(Int32.max) ? Int32(milliseconds) : .max) : 0
        }
    }

    /// Installs the busy handler that waits up to ``busyTimeout`` unless a
    /// condition of ``interrupting(when:_:)`` holds.
    func installBusyHandler() {
        sqlite3_busy_handler(handle, { context, count in
            let database = Unmanaged<Database>.fromOpaque(context!).takeUnretainedValue()
            return database.waitForLock(retry: Int(count)) ? 1 : 0
        }, Unmanaged.passUnretained(self).toOpaque())
    }

    /// Waits before the `retry`th new try for a lock, as SQLite's default
    /// busy handler does; `false` to give up: the timeout is reached, or a
    /// condition of ``interrupting(when:_:)`` holds (the `SQLITE_BUSY`
    /// then reads as interrupted, see `error(_:sql:)`).
    private func waitForLock(retry: Int) -> Bool {
        let delays: [Int64] = [1, 2, 5, 10, 15, 20, 25, 25, 25, 50, 50, 100]
        let waited = retry < delays.count
            ? delays[..<retry].reduce(0, +)
            : delays.reduce(0, +) + 100 * Int64(retry - delays.count)
        var delay = retry < delays.count ? delays[retry] : 100
        if waited + delay > Int64(busyTimeoutMilliseconds) {
            delay = Int64(busyTimeoutMilliseconds) - waited
            guard delay > 0 else { return false }
        }
        // In slices, so that a condition that starts to hold is seen soon.
        while delay > 0 {
            if interruptConditions.contains(where: { $0() }) { return false }
            let slice = min(delay, 10)
            usleep(useconds_t(slice) * 1000)
            delay -= slice
        }
        return !interruptConditions.contains(where: { $0() })
    }
}
