import CSQLite
import TesseraResultsCore

/// A SQLite database handle, as the closures of a ``Connection`` receive it:
/// run SQL, prepare statements, manage savepoints, and observe changes
/// through hooks. Not thread-safe: use it only inside that closure (the
/// connection serializes them).
public final class Database {
    let handle: OpaquePointer
    /// The conditions of the ``interrupting(when:_:)`` calls under way,
    /// innermost last.
    var interruptConditions: [() -> Bool] = []
    /// The longest wait for another connection's lock (see
    /// ``busyTimeout``), in milliseconds.
    var busyTimeoutMilliseconds: Int32 = 0
    /// The isolations of the ``Connection`` calls under way on the thread
    /// that holds the connection, outermost first: `nil` for a caller in no
    /// actor. Each was proved by the compiler (the calls take an `isolated`
    /// parameter), so an observer that lives in one of these actors may be
    /// told of a commit at once: the thread runs that actor.
    public internal(set) var isolations: [(any Actor)?] = []

    /// How a row changed, as SQLite's update hooks report it.
    public enum Change: Hashable, Sendable {
        case insert, update, delete
    }

    /// A change the pre-update hook saw, with the row's values before and
    /// after.
    public struct PreUpdate: Sendable {
        /// How the row changes.
        public var change: Change
        /// The database name (`main`, …).
        public var databaseName: String
        /// The table.
        public var table: String
        /// The row id before the change (deletes and updates).
        public var oldRowID: Int64
        /// The row id after the change (inserts and updates).
        public var newRowID: Int64
        /// The column values before the change (empty for inserts).
        public var oldValues: [DatabaseValue]
        /// The column values after the change (empty for deletes).
        public var newValues: [DatabaseValue]
    }

    /// What an authorizer is asked about (the action code and its
    /// arguments, as `sqlite3_set_authorizer` passes them).
    public struct Authorization: Sendable {
        /// SQLite's action code (`SQLITE_READ` = 20, `SQLITE_INSERT` = 18, …).
        public var action: Int32
        /// The first argument: for reads, the table.
        public var first: String?
        /// The second argument: for reads, the column.
        public var second: String?
        /// The database name.
        public var databaseName: String?
    }

    /// Called after a row of a rowid table changes (SQLite's update hook).
    public var updateHook: ((_ change: Change, _ table: String, _ rowID: Int64) -> Void)? {
        didSet { installUpdateHook() }
    }

    /// Called before a row changes, with its values before and after
    /// (SQLite's pre-update hook; also covers WITHOUT ROWID tables and the
    /// deletes of `INSERT OR REPLACE`).
    public var preUpdateHook: ((PreUpdate) -> Void)?

    /// Called when a transaction commits.
    public var commitHook: (() -> Void)? {
        didSet { installCommitHook() }
    }

    /// Called when a transaction rolls back.
    public var rollbackHook: (() -> Void)? {
        didSet { installRollbackHook() }
    }

    /// Called while statements are prepared, for every action they would
    /// take; return `true` to allow it.
    public var authorizer: ((Authorization) -> Bool)? {
        didSet { installAuthorizer() }
    }

    init(handle: OpaquePointer) {
        self.handle = handle
        installPreUpdateHook()
        installBusyHandler()
    }

    private var preUpdateHookInstalled = false

    // MARK: Transaction observers

    /// An observer, held weakly, and what it has yet to be told.
    private final class ObserverEntry {
        weak var observer: (any TransactionObserver)?
        /// A commit happened that the observer has not been told of yet
        /// (another observer, told first, is still at work).
        var owesCommit = false
        /// While the observer waits: the changes of transactions that
        /// committed since, which it is given just before it is told of
        /// the commit, so that one notice covers them all.
        var waiting: [PreUpdate] = []
        /// While the observer waits: the changes of the open transaction,
        /// dropped if it rolls back, added to `waiting` if it commits.
        var uncommitted: [PreUpdate] = []

        init(_ observer: any TransactionObserver) { self.observer = observer }

        func forget() {
            owesCommit = false
            waiting = []
            uncommitted = []
        }
    }

    private var observers: [ObserverEntry] = []
    /// A commit hook fired: observers are told once the commit completes.
    private var commitPending = false
    /// Observers are being told of commits; a commit made meanwhile (by an
    /// observer, or by code it calls) is told once they are done.
    private var isNotifying = false
    /// A transaction rolled back: once the database is out of it,
    /// observers hear ``TransactionObserver/databaseDidEndRollback(_:)``.
    private var rollbackEnded = false

    /// Registers an observer (held weakly) of committed changes. Registering
    /// one again changes nothing.
    public func add(transactionObserver observer: any TransactionObserver) {
        observers.removeAll { $0.observer == nil }
        if !observers.contains(where: { $0.observer === observer }) {
            observers.append(ObserverEntry(observer))
        }
        installHooks()
    }

    /// Unregisters an observer.
    public func remove(transactionObserver observer: any TransactionObserver) {
        observers.removeAll { entry in
            guard entry.observer == nil || entry.observer === observer else { return false }
            entry.forget()
            return true
        }
        installHooks()
    }

    private var liveObservers: [any TransactionObserver] { observers.compactMap(\.observer) }

    /// Tells observers about a commit once the database is out of the
    /// transaction (after a statement or `COMMIT` finishes).
    ///
    /// Observers are told one at a time, and never while another is being
    /// told: a commit made from inside a notice (a delegate that writes
    /// when it hears of a change) is told to every observer once the
    /// current round is over, so that each observer hears of its commits in
    /// order. An observer still waiting for its notice when a later
    /// transaction commits hears of both in one notice, and a later
    /// transaction that rolls back meanwhile is never shown to it.
    func notifyCommitIfNeeded() {
        guard !isInTransaction else { return }
        if commitPending {
            commitPending = false
            for entry in observers where entry.observer != nil {
                if entry.owesCommit { entry.waiting += entry.uncommitted }
                entry.uncommitted = []
                entry.owesCommit = true
            }
        }
        guard !isNotifying else { return }
        isNotifying = true
        defer { isNotifying = false }
        // Rounds until nobody waits: an observer's work may commit again.
        // An observer that leaves a transaction open stops the round; the
        // others are told when that transaction ends. A rollback that ended
        // is told last, after the commits that came before it.
        while observers.contains(where: \.owesCommit) || rollbackEnded {
            if !observers.contains(where: \.owesCommit) {
                rollbackEnded = false
                for observer in liveObservers {
                    guard !isInTransaction else { return }
                    observer.databaseDidEndRollback(self)
                }
                continue
            }
            for entry in observers where entry.owesCommit {
                guard !isInTransaction else { return }
                let waiting = entry.waiting
                entry.forget()
                guard let observer = entry.observer else { continue }
                for change in waiting { observer.database(self, willChange: change) }
                observer.databaseDidCommit(self)
            }
        }
    }

    private func installHooks() {
        installPreUpdateHook()
        installCommitHook()
        installRollbackHook()
        installAuthorizer()
    }

    deinit {
        sqlite3_close_v2(handle)
    }

    /// An error for a result code, with SQLite's message and the SQL.
    func error(_ code: Int32, sql: String?) -> SQLiteError {
        // A wait for a lock that a condition of interrupting(when:) ended
        // (or cut short: it holds) reads as interrupted, as the statement
        // would have been.
        if code & 0xFF == SQLITE_BUSY, interruptConditions.contains(where: { $0() }) {
            return SQLiteError(code: SQLITE_INTERRUPT, message: "interrupted while waiting for another connection's lock", sql: sql)
        }
        return SQLiteError(
            code: code & 0xFF,
            extendedCode: sqlite3_extended_errcode(handle),
            message: String(cString: sqlite3_errmsg(handle)),
            sql: sql
        )
    }

    // MARK: Running SQL

    /// Runs one or more SQL statements with no results, one after another,
    /// stopping at the first that fails.
    ///
    /// Every statement that commits (a statement outside a transaction,
    /// `COMMIT`, `END`, or the `RELEASE` of an outermost savepoint) is told
    /// to the transaction observers as soon as that statement finishes,
    /// before the next one runs: a script that commits several times gives
    /// observers one commit each, and a later `ROLLBACK` in the same script
    /// undoes only its own transaction. (A script run by an observer while
    /// it hears of a commit is the exception: its commits are told once
    /// every observer has heard of that one; see
    /// ``TransactionObserver``.)
    ///
    /// - Throws: ``SQLiteError`` with the failing statement's SQL. The
    ///   statements before it have run (and those that committed stay
    ///   committed); a transaction the script opened stays open.
    /// - Complexity: O(*s*) for *s* statements, plus their own work.
    public func execute(_ sql: String) throws(SQLiteError) {
        do {
            try executeStatements(of: sql) { _ in true }
        } catch {
            throw error.error
        }
    }

    /// Runs one statement with arguments bound in order.
    ///
    /// - Throws: ``SQLiteError``.
    public func execute(_ sql: String, _ arguments: [DatabaseValue]) throws(SQLiteError) {
        let statement = try prepare(sql)
        try statement.withReset { statement throws(SQLiteError) in
            try statement.bind(arguments)
            while try statement.step() {}
        }
    }

    /// Prepares one statement.
    ///
    /// - Throws: ``SQLiteError`` naming the SQL (bad syntax, an unknown table
    ///   or column…, or a second statement after the first: anything but
    ///   white space and comments after its `;`, which would otherwise be
    ///   ignored without a word).
    public func prepare(_ sql: String) throws(SQLiteError) -> Statement {
        try Statement(database: self, sql: sql)
    }

    /// Every row of a query, as arrays of values.
    ///
    /// - Complexity: O(*r* · *c*) for *r* rows of *c* columns.
    public func rows(_ sql: String, _ arguments: [DatabaseValue] = []) throws(SQLiteError) -> [[DatabaseValue]] {
        let statement = try prepare(sql)
        return try statement.withReset { statement throws(SQLiteError) in
            try statement.bind(arguments)
            var rows: [[DatabaseValue]] = []
            while try statement.step() { rows.append(statement.row) }
            return rows
        }
    }

    /// The row id of the last insert.
    public var lastInsertRowID: Int64 { sqlite3_last_insert_rowid(handle) }

    /// The rows changed by the last statement.
    public var changes: Int { Int(sqlite3_changes(handle)) }

    /// Whether a transaction is open.
    public var isInTransaction: Bool { sqlite3_get_autocommit(handle) == 0 }

    /// The SQL of every statement prepared on this connection that has
    /// stepped and is neither done nor reset (`sqlite3_stmt_busy` over
    /// `sqlite3_next_stmt`). Each one holds the connection's read
    /// transaction open, so that it does not see other connections'
    /// commits, even though ``isInTransaction`` is false. Outside a
    /// statement of your own that you are stepping, it is empty: Tessera
    /// resets every statement it steps on every way out.
    ///
    /// - Complexity: O(*p*) for *p* statements prepared on the connection.
    public var busyStatements: [String] {
        var busy: [String] = []
        var statement = sqlite3_next_stmt(handle, nil)
        while let current = statement {
            if sqlite3_stmt_busy(current) != 0 {
                busy.append(sqlite3_sql(current).map { String(cString: $0) } ?? "")
            }
            statement = sqlite3_next_stmt(handle, current)
        }
        return busy
    }

    /// `PRAGMA data_version`: changes when another connection commits.
    public func dataVersion() throws(SQLiteError) -> Int64 {
        try rows("PRAGMA data_version").first?.first?.int64 ?? 0
    }

    /// What SQLite knows of a table's column: its declared type, collation,
    /// and whether it is NOT NULL or part of the primary key
    /// (`sqlite3_table_column_metadata`).
    public struct ColumnMetadata: Hashable, Sendable {
        /// The declared type (`INTEGER`, `TEXT`, …), empty when none.
        public var declaredType: String
        /// The collation's name (`BINARY`, `NOCASE`, `RTRIM` or a registered one).
        public var collation: String
        /// Whether the column is declared NOT NULL.
        public var isNotNull: Bool
        /// Whether the column is part of the primary key.
        public var isPrimaryKey: Bool
    }

    /// The metadata of a column of a table in the `main` database.
    ///
    /// - Throws: ``SQLiteError`` naming the table and column when either does
    ///   not exist.
    public func columnMetadata(table: String, column: String) throws(SQLiteError) -> ColumnMetadata {
        var type: UnsafePointer<CChar>?
        var collation: UnsafePointer<CChar>?
        var notNull: Int32 = 0
        var primaryKey: Int32 = 0
        var autoIncrement: Int32 = 0
        let code = sqlite3_table_column_metadata(handle, "main", table, column, &type, &collation, &notNull, &primaryKey, &autoIncrement)
        guard code == SQLITE_OK else {
            throw SQLiteError(code: code & 0xFF, message: "no column \(column) in table \(table): \(String(cString: sqlite3_errmsg(handle)))")
        }
        return ColumnMetadata(
            declaredType: type.map { String(cString: $0) } ?? "",
            collation: collation.map { String(cString: $0) } ?? "BINARY",
            isNotNull: notNull != 0,
            isPrimaryKey: primaryKey != 0
        )
    }

    // MARK: Savepoints

    /// Runs `body` in a savepoint: released when it returns, rolled back
    /// (and released) when it throws. Savepoints nest.
    ///
    /// - Throws: what `body` throws, or ``SQLiteError``.
    public func savepoint<T>(_ body: (Database) throws -> T) throws -> T {
        let name = "tessera_\(savepointDepth)"
        savepointDepth += 1
        defer { savepointDepth -= 1 }
        try execute("SAVEPOINT \(name)")
        do {
            let result = try body(self)
            try execute("RELEASE \(name)")
            return result
        } catch {
            try? execute("ROLLBACK TO \(name)")
            try? execute("RELEASE \(name)")
            throw error
        }
    }

    private var savepointDepth = 0

    // MARK: Hooks

    private var context: UnsafeMutableRawPointer { Unmanaged.passUnretained(self).toOpaque() }

    private static func database(_ context: UnsafeMutableRawPointer?) -> Database {
        Unmanaged<Database>.fromOpaque(context!).takeUnretainedValue()
    }

    private static func change(_ operation: Int32) -> Change {
        switch operation {
        case SQLITE_INSERT: return .insert
        case SQLITE_DELETE: return .delete
        default: return .update
        }
    }

    private func installUpdateHook() {
        guard updateHook != nil else { sqlite3_update_hook(handle, nil, nil); return }
        sqlite3_update_hook(handle, { context, operation, _, table, rowID in
            let database = Database.database(context)
            database.updateHook?(Database.change(operation), table.map { String(cString: $0) } ?? "", rowID)
        }, context)
    }

    /// Installed once, when the database opens, and never removed: SQLite
    /// decides on its truncate shortcut for `DELETE` without `WHERE` when a
    /// statement is prepared, so a hook installed later would miss the
    /// deletes of statements prepared before it. With nobody listening it
    /// returns at once.
    private func installPreUpdateHook() {
        guard !preUpdateHookInstalled else { return }
        preUpdateHookInstalled = true
        sqlite3_preupdate_hook(handle, { context, handle, operation, databaseName, table, oldRowID, newRowID in
            let database = Database.database(context)
            guard database.preUpdateHook != nil || !database.observers.isEmpty else { return }
            let change = Database.change(operation)
            let count = sqlite3_preupdate_count(handle)
            func values(_ read: (OpaquePointer?, Int32, UnsafeMutablePointer<OpaquePointer?>) -> Int32) -> [DatabaseValue] {
                (0..<count).map { column in
                    var value: OpaquePointer?
                    guard read(handle, column, &value) == SQLITE_OK, let value else { return .null }
                    return DatabaseValue(sqliteValue: value)
                }
            }
            let update = PreUpdate(
                change: change,
                databaseName: databaseName.map { String(cString: $0) } ?? "main",
                table: table.map { String(cString: $0) } ?? "",
                oldRowID: oldRowID,
                newRowID: newRowID,
                oldValues: change == .insert ? [] : values(sqlite3_preupdate_old),
                newValues: change == .delete ? [] : values(sqlite3_preupdate_new)
            )
            database.preUpdateHook?(update)
            for entry in database.observers {
                guard let observer = entry.observer, observer.observedTables.contains(update.table) else { continue }
                if entry.owesCommit {
                    entry.uncommitted.append(update)
                } else {
                    observer.database(database, willChange: update)
                }
            }
        }, context)
    }

    private func installCommitHook() {
        guard commitHook != nil || !liveObservers.isEmpty else { sqlite3_commit_hook(handle, nil, nil); return }
        sqlite3_commit_hook(handle, { context in
            let database = Database.database(context)
            database.commitHook?()
            database.commitPending = true
            return 0
        }, context)
    }

    private func installRollbackHook() {
        guard rollbackHook != nil || !liveObservers.isEmpty else { sqlite3_rollback_hook(handle, nil, nil); return }
        sqlite3_rollback_hook(handle, { context in
            let database = Database.database(context)
            database.rollbackHook?()
            database.commitPending = false
            database.rollbackEnded = true
            for entry in database.observers {
                guard let observer = entry.observer else { continue }
                // One still waiting to hear of an earlier commit never saw
                // this transaction's changes: they are dropped.
                if entry.owesCommit {
                    entry.uncommitted = []
                } else {
                    observer.databaseDidRollback(database)
                }
            }
        }, context)
    }

    private func installAuthorizer() {
        guard authorizer != nil else { sqlite3_set_authorizer(handle, nil, nil); return }
        sqlite3_set_authorizer(handle, { context, action, first, second, databaseName, _ in
            let database = Database.database(context)
            let request = Authorization(
                action: action,
                first: first.map { String(cString: $0) },
                second: second.map { String(cString: $0) },
                databaseName: databaseName.map { String(cString: $0) }
            )
            return database.authorizer?(request) == false ? SQLITE_DENY : SQLITE_OK
        }, context)
    }
}

@available(*, unavailable)
extension Database: Sendable {}
