import Foundation
import Testing
import TesseraDiff
import TesseraResults
import TesseraSQLite

/// One store configuration the store-independent controller tests run
/// against. A test that takes one runs once per store:
///
/// ```swift
/// @Test("…", arguments: ResultsStoreFixture.all)
/// func fetch(store: ResultsStoreFixture) throws {
///     let database = try store.makeDatabase()
///     try database.write { db in try db.execute("CREATE TABLE …") }
///     let controller = try database.fetchedResultsController(request, of: Photo.self)
///     …
///     #expect(controller.snapshot == (try database.freshSnapshot(request, of: Photo.self)))
/// }
/// ```
///
/// A store joins the matrix with one more case in ``all``: a name and a
/// way to open an empty database (a ``StoreBackend``). The tests' SQL is
/// SQLite's; a backend of another store runs it as SQLite would (see
/// ``postgres``).
public struct ResultsStoreFixture: Sendable, Identifiable, CustomTestStringConvertible {
    /// The name a test run shows for the case.
    public let name: String
    /// Whether the store finds commits in the background (PostgreSQL's
    /// change feed) rather than as they are made (SQLite's hooks): its
    /// controllers then take a commit some time after the write returns,
    /// and ``TestDatabase`` waits for them after each write.
    public let followsInBackground: Bool
    private let open: @Sendable () throws -> any StoreBackend

    /// A case: `open` makes an empty database of the store each time it
    /// is called.
    package init(name: String, followsInBackground: Bool = false, open: @escaping @Sendable () throws -> any StoreBackend) {
        self.name = name
        self.followsInBackground = followsInBackground
        self.open = open
    }

    /// `request` as this store can sort it: PostgreSQL has no NOCASE or
    /// RTRIM collation (its store refuses them), so there the keys that
    /// name one sort by bytes. A test whose subject is such a collation
    /// runs on ``sqlite`` only.
    public func portable(_ request: FetchRequest) -> FetchRequest {
        guard followsInBackground else { return request }
        var request = request
        request.sortKeys = request.sortKeys.map { key in
            guard key.collation == .nocase || key.collation == .rtrim else { return key }
            var key = key
            key.collation = nil
            return key
        }
        return request
    }

    /// How many rounds a randomized oracle runs over this store: `full`
    /// over SQLite, a tenth of it (or `1 / divisor`) over a store that
    /// follows in the background, where each write waits for the store to
    /// hand the commit over (a few milliseconds, round trips to the
    /// server).
    public func rounds(_ full: Int, divisor: Int = 10) -> Int {
        followsInBackground ? max(1, full / divisor) : full
    }

    /// A count an oracle's events reach at least in its `full` rounds, in
    /// the rounds it runs over this store (see ``rounds(_:)``): a twentieth
    /// of it in a tenth of the rounds, since over a store that follows in
    /// the background more of a short run's commits merge or re-fetch.
    public func share(_ count: Int) -> Int {
        followsInBackground ? count / 20 : count
    }

    public var id: String { name }
    public var testDescription: String { name }

    /// A new, empty database of this store, for one test.
    public func makeDatabase() throws -> TestDatabase {
        TestDatabase(store: self, backend: try open())
    }

    /// Every case: the matrix. PostgreSQL's when ``includesPostgres``.
    public static let all: [ResultsStoreFixture] = sqlite + (includesPostgres ? [.postgres] : [])

    /// SQLite's cases, for a test whose subject is SQLite's own behaviour.
    public static let sqlite: [ResultsStoreFixture] = [.sqliteFile, .sqliteInMemory]

    /// An SQLite file in write-ahead-log mode, in a directory of its own
    /// that goes when the test's database does.
    public static let sqliteFile = ResultsStoreFixture(name: "SQLite file (WAL)") {
        let directory = try temporaryDirectory()
        return try SQLiteBackend(connection: Connection(path: directory.appendingPathComponent("results.sqlite").path), directory: directory)
    }

    /// An SQLite database in memory.
    public static let sqliteInMemory = ResultsStoreFixture(name: "SQLite in memory") {
        try SQLiteBackend(connection: Connection(path: ":memory:"), directory: nil)
    }
}

/// An empty database of one store, made by ``ResultsStoreFixture/makeDatabase()``:
/// SQL to set it up and to write to it, the controllers over it, and
/// fresh results to compare them with.
public final class TestDatabase: @unchecked Sendable {
    /// The store it is in.
    public let store: ResultsStoreFixture
    let backend: any StoreBackend
    /// The controllers it made, over a store that follows in the
    /// background: each says whether it has caught up.
    private let followers = PThreadMutex<[Follower]>([])
    /// Whether a wait for the followers is under way (a delegate that
    /// writes from inside a report does not wait again).
    private let settling = PThreadMutex(false)

    /// A controller the database made, weakly.
    private struct Follower: Sendable {
        let controller: WeakReference
        /// Takes what waits for the controller (nothing once it is gone).
        let catchUp: @Sendable (_ isolation: isolated (any Actor)?) -> Void
    }

    /// A controller, weakly: the tests own their controllers.
    private final class WeakReference: @unchecked Sendable {
        weak var object: AnyObject?
        init(_ object: AnyObject) { self.object = object }
    }

    init(store: ResultsStoreFixture, backend: any StoreBackend) {
        self.store = store
        self.backend = backend
    }

    deinit { backend.remove() }

    /// What the store leaves open on its connection, outside a
    /// transaction of the test's own: an open transaction, or statements
    /// stepped and neither done nor reset; `nil` when nothing is. Random
    /// oracles check it after every call they make.
    public func leftOpen() -> String? {
        backend.leftOpen()
    }

    // MARK: SQL

    /// Runs `body` on the database's connection, outside any transaction:
    /// each statement commits as it ends unless `body` opens a
    /// transaction (which it ends).
    ///
    /// - Parameter isolation: Where the caller runs: a commit made here is
    ///   reported at once to controllers that live there.
    public func withConnection<T, E: Error>(
        isolation: isolated (any Actor)? = #isolation,
        _ body: (any TestConnection) throws(E) -> T
    ) throws(E) -> T {
        defer { settle(isolation: isolation) }
        return try backend.withConnection(isolation: isolation, body)
    }

    /// Runs `body` in one read transaction.
    public func read<T>(isolation: isolated (any Actor)? = #isolation, _ body: (any TestConnection) throws -> T) throws -> T {
        try backend.read(isolation: isolation, body)
    }

    /// Runs `body` in one write transaction: committed when it returns,
    /// rolled back when it throws.
    public func write<T>(isolation: isolated (any Actor)? = #isolation, _ body: (any TestConnection) throws -> T) throws -> T {
        defer { settle(isolation: isolation) }
        return try backend.write(isolation: isolation, body)
    }

    /// Writes made so far: a delegate may write from inside a report
    /// that ``settle(isolation:)`` hands over.
    private let writes = PThreadMutex(0)

    /// Over a store that follows in the background, hands every controller
    /// the database made the commits made so far: waits until the store
    /// has handed them over to its controllers (``StoreBackend/waitUntilHandedOver()``),
    /// then has each take what waits for it
    /// (``FetchedResultsController/deliverWaitingChanges(isolation:)``),
    /// again while a delegate's write comes in between. It compares
    /// nothing: the tests do. Over SQLite it returns at once: its
    /// controllers took each commit as it was made. The database calls it
    /// after each write.
    public func settle(isolation: isolated (any Actor)? = #isolation) {
        writes.withLock { $0 += 1 }
        guard store.followsInBackground else { return }
        let outermost = settling.withLock { settling -> Bool in
            defer { settling = true }
            return !settling
        }
        guard outermost else { return }
        defer { settling.withLock { $0 = false } }
        // Bounded: a delegate that writes in every report writes forever.
        for _ in 0..<100 {
            let before = writes.withLock { $0 }
            backend.waitUntilHandedOver()
            for follower in followers.withLock({ $0 }) { follower.catchUp(isolation) }
            if writes.withLock({ $0 }) == before { return }
        }
    }

    private func follow<Controller: AnyObject>(
        _ controller: Controller,
        _ catchUp: @escaping @Sendable (_ controller: Controller, _ isolation: isolated (any Actor)?) -> Void
    ) {
        guard store.followsInBackground else { return }
        let reference = WeakReference(controller)
        followers.withLock { followers in
            followers.removeAll { $0.controller.object == nil }
            followers.append(Follower(controller: reference) { isolation in
                guard let controller = reference.object as? Controller else { return }
                catchUp(controller, isolation)
            })
        }
    }

    // MARK: Controllers

    /// A fetched results controller over the database (not fetched yet).
    public func fetchedResultsController<Record: FetchableRecord>(_ request: FetchRequest, of record: Record.Type = Record.self) throws(ResultsError) -> FetchedResultsController<Record> {
        let controller = try FetchedResultsController<Record>(store: backend.makeResultsStore(), request: request)
        follow(controller) { controller, isolation in
            _ = try? controller.deliverWaitingChanges(isolation: isolation)
        }
        return controller
    }

    /// A fetched set controller over the database (not fetched yet).
    public func fetchedSetController<Record: FetchableRecord>(_ request: SetRequest, of record: Record.Type = Record.self) -> FetchedSetController<Record> {
        let controller = FetchedSetController<Record>(store: backend.makeResultsStore(), request: request)
        follow(controller) { controller, isolation in
            _ = try? controller.deliverWaitingChanges(isolation: isolation)
        }
        return controller
    }

    /// A relational results controller over the database (not fetched
    /// yet).
    public func relationalResultsController<Parent: FetchableRecord, Child: FetchableRecord>(
        parents: ParentRequest, children: ChildRequest, of records: (Parent.Type, Child.Type) = (Parent.self, Child.self)
    ) -> RelationalResultsController<Parent, Child> {
        let controller = RelationalResultsController<Parent, Child>(store: backend.makeResultsStore(), parents: parents, children: children)
        follow(controller) { controller, isolation in
            _ = try? controller.deliverWaitingChanges(isolation: isolation)
        }
        return controller
    }

    // MARK: Fresh results

    /// The result of a fresh fetch of `request`: what a controller that
    /// followed every commit must equal.
    public func freshSnapshot<Record: FetchableRecord>(
        _ request: FetchRequest, of record: Record.Type = Record.self, isolation: isolated (any Actor)? = #isolation
    ) throws -> Snapshot<ResultSection, Record> {
        let controller = try FetchedResultsController<Record>(store: backend.makeResultsStore(), request: request)
        try controller.performFetch(isolation: isolation)
        return controller.snapshot
    }

    /// The records of a fresh fetch of a set request.
    public func freshRecords<Record: FetchableRecord>(
        _ request: SetRequest, of record: Record.Type = Record.self, isolation: isolated (any Actor)? = #isolation
    ) throws -> [Record] {
        let controller = FetchedSetController<Record>(store: backend.makeResultsStore(), request: request)
        try controller.performFetch(isolation: isolation)
        return controller.records
    }

    /// The result of a fresh fetch of a relational controller's requests.
    public func freshSnapshot<Parent: FetchableRecord, Child: FetchableRecord>(
        parents: ParentRequest, children: ChildRequest, of records: (Parent.Type, Child.Type) = (Parent.self, Child.self),
        isolation: isolated (any Actor)? = #isolation
    ) throws -> Snapshot<Parent, Child> {
        let controller = RelationalResultsController<Parent, Child>(store: backend.makeResultsStore(), parents: parents, children: children)
        try controller.performFetch(isolation: isolation)
        return controller.snapshot
    }
}

/// The database as a test's SQL sees it inside ``TestDatabase/withConnection(isolation:_:)``,
/// ``TestDatabase/read(isolation:_:)`` or ``TestDatabase/write(isolation:_:)``.
public protocol TestConnection {
    /// Runs a script of one or more statements, in order, stopping at the
    /// first that fails.
    func execute(_ sql: String) throws
    /// Runs one statement with its arguments bound.
    func execute(_ sql: String, _ arguments: [DatabaseValue]) throws
    /// The rows of one query.
    func rows(_ sql: String, _ arguments: [DatabaseValue]) throws -> [[DatabaseValue]]
    /// Whether a transaction is open.
    var isInTransaction: Bool { get }
    /// Runs `body` in a savepoint: released when it returns, rolled back
    /// to (and released) when it throws.
    func savepoint<T>(_ body: (any TestConnection) throws -> T) throws -> T
    /// Runs a statement that returns rows to its first row only, then
    /// resets it (`reset`) or drops it, unfinished.
    func stepOnce(_ sql: String, reset: Bool) throws
}

extension TestConnection {
    /// The rows of one query without arguments.
    public func rows(_ sql: String) throws -> [[DatabaseValue]] {
        try rows(sql, [])
    }
}

/// How a store's database does what a ``TestDatabase`` offers: one per
/// store, behind a ``ResultsStoreFixture``.
package protocol StoreBackend: Sendable {
    /// A store over the database, for one controller.
    func makeResultsStore() -> any ResultsStore
    /// See ``TestDatabase/withConnection(isolation:_:)``.
    func withConnection<T, E: Error>(isolation: isolated (any Actor)?, _ body: (any TestConnection) throws(E) -> T) throws(E) -> T
    /// See ``TestDatabase/read(isolation:_:)``.
    func read<T>(isolation: isolated (any Actor)?, _ body: (any TestConnection) throws -> T) throws -> T
    /// See ``TestDatabase/write(isolation:_:)``.
    func write<T>(isolation: isolated (any Actor)?, _ body: (any TestConnection) throws -> T) throws -> T
    /// Removes what the database leaves behind (its files), once the test
    /// is done with it.
    func remove()
    /// See ``TestDatabase/leftOpen()``.
    func leftOpen() -> String?
    /// Waits until the store has handed every commit made so far over to
    /// its controllers (at once for a store whose controllers take each
    /// commit as it is made). Bounded in rounds.
    func waitUntilHandedOver()
}

// MARK: SQLite

/// An SQLite database through one connection.
struct SQLiteBackend: StoreBackend {
    let connection: Connection
    /// The directory of its file, removed with it; `nil` in memory.
    let directory: URL?

    func makeResultsStore() -> any ResultsStore {
        SQLiteResultsStore(connection: connection)
    }

    func withConnection<T, E: Error>(isolation: isolated (any Actor)?, _ body: (any TestConnection) throws(E) -> T) throws(E) -> T {
        try connection.withDatabase(isolation: isolation) { (db: Database) throws(E) -> T in try body(SQLiteTestConnection(database: db)) }
    }

    func read<T>(isolation: isolated (any Actor)?, _ body: (any TestConnection) throws -> T) throws -> T {
        try connection.read(isolation: isolation) { db in try body(SQLiteTestConnection(database: db)) }
    }

    func write<T>(isolation: isolated (any Actor)?, _ body: (any TestConnection) throws -> T) throws -> T {
        try connection.write(isolation: isolation) { db in try body(SQLiteTestConnection(database: db)) }
    }

    func remove() {
        if let directory { try? FileManager.default.removeItem(at: directory) }
    }

    func leftOpen() -> String? {
        TesseraResultsTestSupport.leftOpen(on: connection)
    }

    /// Nothing to wait for: SQLite's controllers take each commit as it is
    /// made.
    func waitUntilHandedOver() {}
}

/// What is left open on `connection`, outside a transaction of the
/// caller's: an open transaction, or statements that stepped and are
/// neither done nor reset (each holds a read transaction open, so the
/// connection no longer sees other connections' commits). `nil` when
/// nothing is; a test checks it after every public call it makes.
public func leftOpen(on connection: Connection) -> String? {
    connection.withDatabase { db in
        var problems: [String] = []
        if db.isInTransaction { problems.append("a transaction is open") }
        let busy = db.busyStatements
        if !busy.isEmpty { problems.append("statements left busy: \(busy)") }
        return problems.isEmpty ? nil : problems.joined(separator: "; ")
    }
}

/// SQLite's ``Database`` as a ``TestConnection``.
struct SQLiteTestConnection: TestConnection {
    let database: Database

    func execute(_ sql: String) throws { try database.execute(sql) }
    func execute(_ sql: String, _ arguments: [DatabaseValue]) throws { try database.execute(sql, arguments) }
    func rows(_ sql: String, _ arguments: [DatabaseValue]) throws -> [[DatabaseValue]] { try database.rows(sql, arguments) }
    var isInTransaction: Bool { database.isInTransaction }

    func savepoint<T>(_ body: (any TestConnection) throws -> T) throws -> T {
        try database.savepoint { db in try body(SQLiteTestConnection(database: db)) }
    }

    func stepOnce(_ sql: String, reset: Bool) throws {
        let statement = try database.prepare(sql)
        let stepped = Result { () throws(SQLiteError) -> Bool in try statement.step() }
        if reset { statement.reset() }
        _ = try stepped.get()
    }
}
