import CSQLite
import TesseraResultsCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A connection to an SQLite database. Thread-safe: it runs the closures
/// given to ``read(_:)``, ``write(_:)`` and ``withDatabase(_:)`` one at a
/// time, each with the ``Database`` handle, which must not escape them. A
/// closure may call the connection again on its own thread (a transaction
/// observer does, at a commit): the lock is recursive.
///
/// ```swift
/// let connection = try Connection(path: "photos.sqlite")
/// try connection.write { db in
///     try db.execute("INSERT INTO photo (title) VALUES (?)", ["Beach"])
/// }
/// let count = try connection.read { db in try db.rows("SELECT count(*) FROM photo")[0][0] }
/// ```
public final class Connection: @unchecked Sendable {
    // Every access to `database` happens with `lock` held (its
    // `isolations` included), except that
    // ``interrupt()`` reads its constant handle without it: SQLite allows
    // `sqlite3_interrupt` from any thread while the connection is open, and
    // it stays open as long as this object lives.
    let database: Database
    private let lock = _Lock()
    /// The path it was opened with (`:memory:` for an in-memory database).
    public let path: String
    /// The VFS it was opened through, `nil` for SQLite's default.
    public let vfs: String?

    /// How to open the database.
    public struct OpenMode: Sendable, Hashable {
        let flags: Int32
        /// Read only; the file must exist.
        public static let readOnly = OpenMode(flags: SQLITE_OPEN_READONLY)
        /// Read and write; the file must exist.
        public static let readWrite = OpenMode(flags: SQLITE_OPEN_READWRITE)
        /// Read and write, creating the file when missing.
        public static let readWriteCreate = OpenMode(flags: SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE)
    }

    /// Opens a database file, or an in-memory database for `:memory:`.
    ///
    /// Files use write-ahead logging (unless read only, or `journalModeWAL`
    /// is false) and wait up to `busyTimeout` seconds for a lock (see
    /// ``Database/busyTimeout``): none when it is negative or NaN, and at
    /// most `Int32.max` milliseconds (about 24 days) when it is larger.
    ///
    /// `vfs` names a VFS registered with `sqlite3_vfs_register` to open the
    /// file through (an encrypting or fault-injecting one, say); `nil` is
    /// SQLite's default.
    ///
    /// - Throws: ``SQLiteError`` naming the path when the file cannot be
    ///   opened (missing, unreadable, not a database, no such VFS).
    public init(path: String, mode: OpenMode = .readWriteCreate, busyTimeout: Double = 5, journalModeWAL: Bool = true, vfs: String? = nil) throws(SQLiteError) {
        var handle: OpaquePointer?
        let code = sqlite3_open_v2(path, &handle, mode.flags | SQLITE_OPEN_NOMUTEX, vfs)
        guard code == SQLITE_OK, let handle else {
            let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            if let handle { sqlite3_close_v2(handle) }
            throw SQLiteError(code: code, message: "cannot open \(path): \(message)")
        }
        self.path = path
        self.vfs = vfs
        database = Database(handle: handle)
        sqlite3_extended_result_codes(handle, 1)
        database.busyTimeout = busyTimeout
        // Reading the schema here surfaces "file is not a database" at open.
        _ = try database.rows("PRAGMA schema_version")
        if journalModeWAL && path != ":memory:" && !path.isEmpty && mode != .readOnly {
            _ = try database.rows("PRAGMA journal_mode = WAL")
        }
    }

    /// Runs `body` with the database, outside any transaction.
    ///
    /// - Parameter isolation: Where the caller runs (the default says so);
    ///   a commit `body` makes is told at once to observers that live
    ///   there (see ``Database/isolations``).
    /// - Throws: what `body` throws.
    public func withDatabase<T, E: Error>(
        isolation: isolated (any Actor)? = #isolation,
        _ body: (Database) throws(E) -> T
    ) throws(E) -> T {
        lock.lock()
        defer { lock.unlock() }
        database.isolations.append(isolation)
        defer { database.isolations.removeLast() }
        return try body(database)
    }

    /// Runs `body` in a read transaction (a deferred transaction that sees
    /// one consistent state).
    ///
    /// - Parameter isolation: Where the caller runs (see
    ///   ``withDatabase(isolation:_:)``).
    /// - Throws: what `body` throws, or ``SQLiteError``.
    public func read<T>(isolation: isolated (any Actor)? = #isolation, _ body: (Database) throws -> T) throws -> T {
        try transaction("BEGIN DEFERRED", isolation: isolation, body)
    }

    /// Runs `body` in a write transaction: committed when it returns, rolled
    /// back when it throws.
    ///
    /// - Parameter isolation: Where the caller runs (see
    ///   ``withDatabase(isolation:_:)``).
    /// - Throws: what `body` throws, or ``SQLiteError`` (for example
    ///   `SQLITE_BUSY` when another connection holds the write lock past the
    ///   busy timeout).
    public func write<T>(isolation: isolated (any Actor)? = #isolation, _ body: (Database) throws -> T) throws -> T {
        try transaction("BEGIN IMMEDIATE", isolation: isolation, body)
    }

    /// Interrupts the statements the connection is running now, from any
    /// thread: each stops at its next step and throws an ``SQLiteError``
    /// whose ``SQLiteError/isInterrupted`` is true (`SQLITE_INTERRUPT`). An
    /// interrupted INSERT, UPDATE or DELETE inside a transaction rolls the
    /// whole transaction back (SQLite's rule).
    ///
    /// ```swift
    /// // One thread:
    /// let rows = try connection.read { db in try db.rows(slowQuery) }   // throws, isInterrupted
    /// // Another, meanwhile:
    /// connection.interrupt()
    /// ```
    ///
    /// It does not wait for the connection's lock, and it affects only
    /// the statements running when it is called: with none running, it does
    /// nothing, and later statements run normally. A statement waiting for
    /// another connection's lock waits on (up to the busy timeout). To stop
    /// work that may not have started yet, or that waits for a lock, use
    /// ``Database/interrupting(when:_:)``, which checks a condition while
    /// the statements run and while they wait.
    public func interrupt() {
        sqlite3_interrupt(database.handle)
    }

    private func transaction<T>(_ begin: String, isolation: isolated (any Actor)?, _ body: (Database) throws -> T) throws -> T {
        try withDatabase(isolation: isolation) { database in
            try database.execute(begin)
            do {
                let result = try body(database)
                try database.execute("COMMIT")
                return result
            } catch {
                if database.isInTransaction { try? database.execute("ROLLBACK") }
                throw error
            }
        }
    }
}

/// A recursive mutual-exclusion lock over pthreads: the thread that holds
/// it may take it again, so a transaction observer called at a commit (with
/// the lock held) can read through the same connection.
final class _Lock: @unchecked Sendable {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>

    init() {
        mutex = .allocate(capacity: 1)
        var attributes = pthread_mutexattr_t()
        pthread_mutexattr_init(&attributes)
        pthread_mutexattr_settype(&attributes, Int32(PTHREAD_MUTEX_RECURSIVE))
        pthread_mutex_init(mutex, &attributes)
        pthread_mutexattr_destroy(&attributes)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    func lock() { pthread_mutex_lock(mutex) }
    func unlock() { pthread_mutex_unlock(mutex) }
}
