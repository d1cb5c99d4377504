import TesseraResultsCore
import TesseraSQLite

/// SQLite as a store of the results controllers (see ``ResultsStore``):
/// reads through a ``TesseraSQLite/Connection``, and follows the commits
/// made through it with a transaction observer of its own per controller
/// (``SQLiteChangeSource``), and other connections' commits by polling
/// `PRAGMA data_version`.
package final class SQLiteResultsStore: ResultsStore {
    /// The connection it reads and observes.
    package let connection: Connection

    /// A store over a connection.
    package init(connection: Connection) {
        self.connection = connection
    }

    /// Runs `body` with a reader, holding the connection (no commit is
    /// made meanwhile), after checking that the file is still a database
    /// (SQLite's cache would hide a file cut short or overwritten).
    /// Cancellable as ``Connection/cancellableFetch(isolation:_:)`` is.
    package func withReader<T>(
        isolation: isolated (any Actor)?,
        _ body: (any StoreReader) throws(ResultsError) -> T
    ) throws(ResultsError) -> T {
        try connection.cancellableFetch(isolation: isolation) { db throws(ResultsError) in
            try body(SQLiteStoreReader(database: db, file: (connection.path, connection.vfs)))
        }
    }

    /// Runs `body` with a reader, holding the connection; the task's
    /// cancellation does not stop it. Inside a transaction open on the
    /// connection (the lock is recursive) the reader sees its rows, which
    /// are not committed.
    package func withRecordReader<T>(_ body: (any StoreReader, _ committed: Bool) throws(ResultsError) -> T) throws(ResultsError) -> T {
        try connection.withDatabase(isolation: nil) { db throws(ResultsError) in
            try body(SQLiteStoreReader(database: db), !db.isInTransaction)
        }
    }
}

/// A reader of an SQLite database, inside a call that holds its
/// connection.
struct SQLiteStoreReader: StoreReader {
    let database: Database
    /// Statements kept from one commit to the next (a change source's), or
    /// `nil` to prepare afresh.
    var statements: SQLiteStatementCache?
    /// The file the database is, and the VFS it goes through, for a
    /// snapshot on a connection of its own; `nil`: none is taken.
    var file: (path: String, vfs: String?)?

    init(database: Database, statements: SQLiteStatementCache? = nil, file: (path: String, vfs: String?)? = nil) {
        self.database = database
        self.statements = statements
        self.file = file
    }

    func snapshot(for request: FetchRequest) -> (any SnapshotReader)? {
        guard let file else { return nil }
        return SQLiteSnapshot.open(for: request, beside: database, path: file.path, vfs: file.vfs)
    }

    func externalVersion() throws(ResultsError) -> Int64? {
        do throws(SQLiteError) { return try database.dataVersion() } catch { throw .database(error) }
    }

    func changeLogPosition(for query: any RowReader) throws(ResultsError) -> ChangeLogPosition? {
        // Inside a transaction the log holds this connection's entries that
        // may yet roll back, and commits elsewhere would reuse their
        // numbers: no position there (see ``loggedChanges(for:since:limit:)``).
        guard !database.isInTransaction, let plan = (query as? SQLiteRowReader)?.sqlitePlan else { return nil }
        do throws(SQLiteError) {
            // The schema first: a change to it after this read makes the
            // position stale, never the other way round.
            guard let schema = schemaVersion(of: database), let log = try ChangeLogLayout.read(table: plan.table, in: database),
                  log.tupleSources(for: plan) != nil, try ChangeLogSchema.triggersMatch(log, in: database)
            else { return nil }
            return ChangeLogPosition(entry: try log.lastEntry(in: database), schema: schema)
        } catch {
            throw .database(error)
        }
    }

    func changeLogPosition(for query: any RowReader, known: ChangeLogPosition) throws(ResultsError) -> ChangeLogPosition? {
        guard !database.isInTransaction, let plan = (query as? SQLiteRowReader)?.sqlitePlan else { return nil }
        do throws(SQLiteError) {
            // The schema as it was: the triggers were checked then.
            guard schemaVersion(of: database) == known.schema, let log = try ChangeLogLayout.read(table: plan.table, in: database) else { return nil }
            return ChangeLogPosition(entry: try log.lastEntry(in: database), schema: known.schema)
        } catch {
            throw .database(error)
        }
    }

    func loggedChanges(
        for query: any RowReader, since position: ChangeLogPosition, limit: Int
    ) throws(ResultsError) -> (changes: CommittedChanges, position: ChangeLogPosition)? {
        // Inside a transaction of this connection the entries and rows read
        // include its uncommitted writes: a rollback would leave the result
        // holding rows that never were, and its position past entry numbers
        // that commits elsewhere reuse. A fetch instead, which the change
        // source fetches again when the transaction ends.
        guard !database.isInTransaction, let plan = (query as? SQLiteRowReader)?.sqlitePlan else { return nil }
        do throws(SQLiteError) {
            guard schemaVersion(of: database) == position.schema, let log = try ChangeLogLayout.read(table: plan.table, in: database),
                  let sources = log.tupleSources(for: plan)
            else { return nil }
            let last = try log.lastEntry(in: database)
            guard last >= position.entry,
                  let touched = try log.changes(since: position.entry, upTo: last, sources: sources, limit: limit, in: database)
            else { return nil }
            return (CommittedChanges(logged: touched), ChangeLogPosition(entry: last, schema: position.schema))
        } catch {
            throw .database(error)
        }
    }

    func query(for request: FetchRequest) throws(ResultsError) -> any RowReader {
        SQLiteRowReader(
            database: database, sql: { request.sql }, pointSQL: { request.pointSQL }, tupleSQL: { request.tupleSQL }, arguments: request.arguments, leadingColumns: 2,
            table: request.source.tableName, keyColumn: request.keyColumn, statements: statements,
            planning: { tables, selects, db in SQLitePatchPlan.make(for: request, readingTables: tables, selects: selects, in: db) }
        )
    }

    func query(for request: SetRequest) throws(ResultsError) -> any RowReader {
        try checkFragments(predicate: request.predicate, sortKeys: nil)
        return SQLiteRowReader(
            recordQuery: request.query, pointQuery: request.rowQuery, database: database, table: request.table,
            keyColumn: request.keyColumn, predicate: request.predicate, statements: statements
        )
    }

    func queries(for parents: ParentRequest, _ children: ChildRequest) throws(ResultsError) -> (parents: any RowReader, children: any RowReader) {
        try checkFragments(predicate: parents.predicate, sortKeys: parents.sortKeys)
        try checkFragments(predicate: children.predicate, sortKeys: children.sortKeys)
        return (
            SQLiteRowReader(recordQuery: parents.query, pointQuery: nil, database: database, table: parents.table, keyColumn: parents.keyColumn, predicate: parents.predicate),
            SQLiteRowReader(recordQuery: children.query, pointQuery: nil, database: database, table: children.table, keyColumn: children.keyColumn, predicate: children.predicate)
        )
    }

    func follow(
        _ readers: [any RowReader],
        tuples: Bool,
        delivery: CommitDelivery,
        replacing previous: (any ChangeSource)?
    ) -> any ChangeSource {
        if let previous = previous as? SQLiteChangeSource {
            previous.cancel()
            database.remove(transactionObserver: previous)
        }
        let sqliteReaders = readers.compactMap { $0 as? SQLiteRowReader }
        var tables = Set<String>()
        for reader in sqliteReaders { tables.formUnion(reader.readTables) }
        // Rows are followed one by one when one table is read, by one
        // request whose rows the hook can locate.
        var rows: SQLiteChangeSource.Rows?
        if sqliteReaders.count == 1, let reader = sqliteReaders.first {
            if tuples {
                if let plan = reader.sqlitePlan, reader.patchPlan != nil {
                    rows = .tuples(table: plan.table, keyIndex: plan.keyIndex, positions: plan.tuplePositions, untrustedNulls: plan.defaulted)
                }
            } else if let key = reader.keySource {
                rows = .keys(table: reader.table ?? "", key: key)
            }
        }
        let source = SQLiteChangeSource(
            statements: (previous as? SQLiteChangeSource)?.statements ?? SQLiteStatementCache(),
            tables: tables, rows: rows, delivery: delivery,
            schemaVersion: schemaVersion(of: database), readInTransaction: database.isInTransaction
        )
        database.add(transactionObserver: source)
        return source
    }
}

extension FetchRequest {
    /// The request's SELECT for one row, by key (bound to the last
    /// parameter), without ORDER BY.
    var pointSQL: String {
        var point = selectClause
        point += whereClause(predicate) + (predicate == nil ? " WHERE " : " AND ")
        return point + "\(quotedIdentifier(keyColumn)) = ?"
    }
}

extension FetchRequest.Source {
    /// The table or view's name, or `nil` for a query of your own.
    var tableName: String? {
        if case let .table(name) = self { return name }
        return nil
    }
}
