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
/// SQLite's today.
public struct ResultsStoreFixture: Sendable, Identifiable, CustomTestStringConvertible {
    /// The name a test run shows for the case.
    public let name: String
    private let open: @Sendable () throws -> any StoreBackend

    /// A case: `open` makes an empty database of the store each time it
    /// is called.
    package init(name: String, open: @escaping @Sendable () throws -> any StoreBackend) {
        self.name = name
        self.open = open
    }

    public var id: String { name }
    public var testDescription: String { name }

    /// A new, empty database of this store, for one test.
    public func makeDatabase() throws -> TestDatabase {
        TestDatabase(store: self, backend: try open())
    }

    /// Every case: the matrix.
    public static let all: [ResultsStoreFixture] = [.sqliteFile, .sqliteInMemory]

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
public final class TestDatabase: Sendable {
    /// The store it is in.
    public let store: ResultsStoreFixture
    let backend: any StoreBackend

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
        try backend.withConnection(isolation: isolation, body)
    }

    /// Runs `body` in one read transaction.
    public func read<T>(isolation: isolated (any Actor)? = #isolation, _ body: (any TestConnection) throws -> T) throws -> T {
        try backend.read(isolation: isolation, body)
    }

    /// Runs `body` in one write transaction: committed when it returns,
    /// rolled back when it throws.
    public func write<T>(isolation: isolated (any Actor)? = #isolation, _ body: (any TestConnection) throws -> T) throws -> T {
        try backend.write(isolation: isolation, body)
    }

    // MARK: Controllers

    /// A fetched results controller over the database (not fetched yet).
    public func fetchedResultsController<Record: FetchableRecord>(_ request: FetchRequest, of record: Record.Type = Record.self) throws(ResultsError) -> FetchedResultsController<Record> {
        try FetchedResultsController<Record>(store: backend.makeResultsStore(), request: request)
    }

    /// A fetched set controller over the database (not fetched yet).
    public func fetchedSetController<Record: FetchableRecord>(_ request: SetRequest, of record: Record.Type = Record.self) -> FetchedSetController<Record> {
        FetchedSetController<Record>(store: backend.makeResultsStore(), request: request)
    }

    /// A relational results controller over the database (not fetched
    /// yet).
    public func relationalResultsController<Parent: FetchableRecord, Child: FetchableRecord>(
        parents: ParentRequest, children: ChildRequest, of records: (Parent.Type, Child.Type) = (Parent.self, Child.self)
    ) -> RelationalResultsController<Parent, Child> {
        RelationalResultsController<Parent, Child>(store: backend.makeResultsStore(), parents: parents, children: children)
    }

    // MARK: Fresh results

    /// The result of a fresh fetch of `request`: what a controller that
    /// followed every commit must equal.
    public func freshSnapshot<Record: FetchableRecord>(
        _ request: FetchRequest, of record: Record.Type = Record.self, isolation: isolated (any Actor)? = #isolation
    ) throws -> Snapshot<ResultSection, Record> {
        let controller = try fetchedResultsController(request, of: Record.self)
        try controller.performFetch(isolation: isolation)
        return controller.snapshot
    }

    /// The records of a fresh fetch of a set request.
    public func freshRecords<Record: FetchableRecord>(
        _ request: SetRequest, of record: Record.Type = Record.self, isolation: isolated (any Actor)? = #isolation
    ) throws -> [Record] {
        let controller = fetchedSetController(request, of: Record.self)
        try controller.performFetch(isolation: isolation)
        return controller.records
    }

    /// The result of a fresh fetch of a relational controller's requests.
    public func freshSnapshot<Parent: FetchableRecord, Child: FetchableRecord>(
        parents: ParentRequest, children: ChildRequest, of records: (Parent.Type, Child.Type) = (Parent.self, Child.self),
        isolation: isolated (any Actor)? = #isolation
    ) throws -> Snapshot<Parent, Child> {
        let controller = relationalResultsController(parents: parents, children: children, of: records)
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
