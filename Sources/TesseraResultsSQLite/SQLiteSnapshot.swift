#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Synchronization
import TesseraResultsCore
import TesseraSQLite

/// One committed state of an SQLite database, held by a read transaction
/// on a read-only connection of its own, while a lazy result's keys load
/// (see ``SnapshotReader``).
///
/// The write-ahead log lets it read that state for as long as it lives
/// while the store's connection commits; it is opened only for a file in
/// WAL mode, from outside any transaction.
///
/// Its connection is used under that connection's lock only. The scan of
/// tuples takes the lock a step (``scanStep`` rows) at a time, and lets a
/// page read that waits go first: a page is never behind the whole scan.
final class SQLiteSnapshot: SnapshotReader {
    /// Rows the scan reads in one hold of the connection.
    static var scanStep: Int { 4_096 }

    /// Rows a page read may step past in its section while the keys load:
    /// beyond, the read waits for the keys instead (an index steps about
    /// ten million rows a second).
    static var deepestPage: Int { 100_000 }

    /// The connection, until ``close()`` lets it go (it closes when the
    /// last read under way ends).
    private let connection: PThreadMutex<Connection?>
    /// Whether a page read is served by an index (no sort of the rows,
    /// no scan of the table to find a section's).
    private let pagesUseIndex: Bool
    let source: String
    private let countSQL: String
    private let pageSQL: String
    private let tupleSQL: String
    private let arguments: [DatabaseValue]
    private let sectioned: Bool
    /// Page reads waiting for the connection.
    private let waiting = Atomic<Int>(0)

    /// A snapshot on `connection`, whose database is `db` (held): its
    /// reads are made and prepared here, so that a read only the store's
    /// connection could make fails now, not later.
    private init(connection: Connection, in db: Database, request: FetchRequest, groupsAsValues: Bool) throws(SQLiteError) {
        self.connection = PThreadMutex(connection)
        source = connection.path
        arguments = request.arguments
        sectioned = request.sectionKey != nil
        let n = request.arguments.count
        let conditionJoin = request.predicate == nil ? " WHERE " : " AND "
        if let sectionKey = request.sectionKey, let first = request.sortKeys.first {
            let section = SQLFragment.spliced(sectionKey)
            // A group must be one section of the scan, whose values are
            // told apart by type and, for text, by bytes. A column whose
            // values SQLite groups that way already is grouped by itself
            // (an index on it serves); anything else by value, type and
            // bytes (SQLite then sorts the rows to group them).
            let grouping = groupsAsValues ? "tessera_section" : "tessera_section COLLATE BINARY, typeof(tessera_section)"
            countSQL = "SELECT \(section) AS tessera_section, count(*) FROM \(request.fromClause)\(whereClause(request.predicate))"
                + " GROUP BY \(grouping) ORDER BY \(first.sql)"
            // The section's rows, told apart as the counts were: by bytes
            // and type where the column's own comparison would not.
            let match = groupsAsValues
                ? "(\(section)) IS ?\(n + 1)"
                : "(\(section)) IS ?\(n + 1) COLLATE BINARY AND typeof(\(section)) = typeof(?\(n + 1))"
            pageSQL = request.selectClause + whereClause(request.predicate) + conditionJoin + match
                + " ORDER BY " + request.orderList + " LIMIT ?\(n + 2) OFFSET ?\(n + 3)"
        } else {
            countSQL = "SELECT NULL AS tessera_section, count(*) FROM \(request.fromClause)\(whereClause(request.predicate))"
            pageSQL = request.selectClause + whereClause(request.predicate) + " ORDER BY " + request.orderList + " LIMIT ?\(n + 1) OFFSET ?\(n + 2)"
        }
        tupleSQL = request.tupleSQL
        for sql in [pageSQL, tupleSQL, countSQL] { _ = try db.prepare(sql) }
        pagesUseIndex = try Self.pageUsesIndex(pageSQL, sectioned: sectioned, in: db)
    }

    /// A snapshot of the state `database` (the store's connection, held by
    /// the caller) sees, or `nil` when the store cannot give one: an
    /// in-memory database, one not in WAL mode, a transaction open on the
    /// connection, a request whose section or sort keys have parameters
    /// (its page read could not bind them in order), what a new connection
    /// would read differently (a TEMP table or view on the store's
    /// connection, a LIKE, whose case sensitivity is the connection's), or
    /// a read the new connection refuses (a function only the store's
    /// connection has).
    static func open(for request: FetchRequest, beside database: Database, path: String, vfs: String?) -> SQLiteSnapshot? {
        guard !path.isEmpty, path != ":memory:", !database.isInTransaction else { return nil }
        let parameters: (String) -> Bool = { SQLFragment.mayHoldParameter($0) }
        if let sectionKey = request.sectionKey, parameters(sectionKey) { return nil }
        guard !request.sortKeys.contains(where: { parameters($0.expression) }) else { return nil }
        guard (try? database.rows("PRAGMA journal_mode"))?.first?.first?.string?.lowercased() == "wal" else { return nil }
        // What the store's connection has and a new one would not: a
        // temporary table or view (which may shadow the request's table),
        // and LIKE's case sensitivity (a pragma no query can read).
        guard (try? database.rows("SELECT count(*) FROM temp.sqlite_schema WHERE type IN ('table', 'view')"))?.first?.first == .integer(0) else { return nil }
        var texts = [request.predicate ?? "", request.sectionKey ?? ""] + request.sortKeys.map(\.expression)
        if case let .query(query) = request.source { texts.append(query) }
        guard !texts.contains(where: { $0.lowercased().contains("like") }) else { return nil }
        do throws(SQLiteError) {
            let connection = try Connection(path: path, mode: .readOnly, journalModeWAL: false, vfs: vfs)
            let grouped = groupsAsValues(request, in: database)
            return try connection.withDatabase { db throws(SQLiteError) in
                let snapshot = try SQLiteSnapshot(connection: connection, in: db, request: request, groupsAsValues: grouped)
                try db.execute("BEGIN DEFERRED")
                // The first read starts the transaction's state: now, while
                // the store's connection is held.
                _ = try db.rows("SELECT count(*) FROM sqlite_schema")
                return snapshot
            }
        } catch {
            return nil
        }
    }

    /// Whether SQLite's grouping of the request's section key tells its
    /// values apart exactly as the scan does: the key is a column of the
    /// request's table, with the BINARY collation (no two texts group
    /// together) and an affinity that stores numbers that compare equal
    /// with one type (INTEGER, REAL, NUMERIC or TEXT; a column without
    /// one may hold 1 and 1.0, which group together).
    static func groupsAsValues(_ request: FetchRequest, in database: Database) -> Bool {
        guard let table = request.source.tableName, let key = request.sectionKey else { return false }
        var column = String(key.drop(while: \.isWhitespace).reversed().drop(while: \.isWhitespace).reversed())
        if let first = column.first, let last = column.last, column.count >= 2,
           (first == "\"" && last == "\"") || (first == "`" && last == "`") || (first == "[" && last == "]") {
            column = String(column.dropFirst().dropLast())
        }
        guard let head = column.first, head == "_" || head.isLetter,
              column.allSatisfy({ $0 == "_" || $0.isLetter || $0.isNumber }),
              let metadata = try? database.columnMetadata(table: table, column: column)
        else { return false }
        let type = metadata.declaredType.uppercased()
        let blobAffinity = type.isEmpty || (type.contains("BLOB") && !type.contains("INT") && !type.contains("CHAR") && !type.contains("CLOB") && !type.contains("TEXT"))
        return metadata.collation.uppercased() == "BINARY" && !blobAffinity
    }

    /// Whether SQLite reads a page through an index, in order: no sort
    /// of all the rows (a sort of the rows that tie on an index's columns
    /// is fine) and, for a section's rows, no scan of the whole table.
    private static func pageUsesIndex(_ sql: String, sectioned: Bool, in db: Database) throws(SQLiteError) -> Bool {
        let plan = try db.rows("EXPLAIN QUERY PLAN " + sql).compactMap { $0.last?.string?.uppercased() }
        if plan.contains(where: { $0.contains("TEMP B-TREE FOR ORDER BY") && !$0.contains("RIGHT PART") }) { return false }
        return !sectioned || plan.contains(where: { $0.hasPrefix("SEARCH") })
    }

    func canReadPage(offset: Int) -> Bool {
        pagesUseIndex && offset <= Self.deepestPage
    }

    func sectionCounts() throws(ResultsError) -> [(value: DatabaseValue, count: Int)] {
        try withConnection { db throws(ResultsError) in
            let rows: [[DatabaseValue]]
            do throws(SQLiteError) {
                // Cancelled with the task that fetches, as a whole fetch is.
                rows = try db.interrupting(when: { Task.isCancelled }) { db throws(SQLiteError) in try db.rows(countSQL, arguments) }
            } catch {
                throw error.isInterrupted ? .cancelled : .database(error)
            }
            return rows.compactMap { row in
                let count = Int(row[1].int64 ?? 0)
                return count > 0 ? (row[0], count) : nil
            }
        }
    }

    func page(
        section: DatabaseValue?, offset: Int, limit: Int,
        _ body: (_ leading: any LeadingValues, _ row: Row) throws(ResultsError) -> Void
    ) throws(ResultsError) {
        var bound = arguments
        if sectioned { bound.append(section ?? .null) }
        bound += [.integer(Int64(limit)), .integer(Int64(offset))]
        try withConnection { db throws(ResultsError) in
            let statement: Statement
            do throws(SQLiteError) {
                statement = try db.prepare(pageSQL)
                try statement.bind(bound)
            } catch {
                throw .database(error)
            }
            var row = statement.recordRow(after: 2)
            try statement.readRows(after: 2, into: &row, body)
        }
    }

    func readTuples(_ body: (_ leading: any LeadingValues, _ tuple: Row) throws(ResultsError) -> Void) throws(ResultsError) {
        // Held until the statement is finalized, even if closed meanwhile.
        guard let held = connection.withLock({ $0 }) else { throw Self.closedError }
        var statement: Statement? = try withConnection { db throws(ResultsError) in
            do throws(SQLiteError) {
                let statement = try db.prepare(tupleSQL)
                try statement.bind(arguments)
                return statement
            } catch {
                throw .database(error)
            }
        }
        defer {
            // Finalized under the lock: the connection is not SQLite's
            // serialized kind.
            held.withDatabase { _ in statement = nil }
        }
        var row = statement?.recordRow(after: 2) ?? RecordRow(row: Row(columnNames: [], values: []), preparation: 0)
        var done = false
        while !done {
            try withConnection { _ throws(ResultsError) in
                guard let statement else { return }
                done = try statement.readRows(upTo: Self.scanStep, after: 2, into: &row, body)
            }
            // A page read that waits goes first.
            while waiting.load(ordering: .acquiring) > 0 { sched_yield() }
        }
    }

    func close() {
        let closing = connection.withLock { connection in
            defer { connection = nil }
            return connection
        }
        // Ends the transaction; the connection closes when the last read
        // under way lets it go.
        closing?.withDatabase { db in try? db.execute("COMMIT") }
    }

    /// What a read after ``close()`` throws (SQLITE_MISUSE).
    private static var closedError: ResultsError {
        .database(SQLiteError(code: 21, message: "the snapshot of a loading result is closed"))
    }

    /// Runs `body` with the connection, once any scan step under way ends;
    /// a scan lets it go ahead of its next step.
    ///
    /// - Throws: what `body` throws; ``ResultsError/database(_:)`` once the
    ///   snapshot is closed.
    private func withConnection<T>(_ body: (Database) throws(ResultsError) -> T) throws(ResultsError) -> T {
        guard let held = connection.withLock({ $0 }) else { throw Self.closedError }
        waiting.add(1, ordering: .acquiringAndReleasing)
        var counted = true
        defer { if counted { waiting.subtract(1, ordering: .acquiringAndReleasing) } }
        return try held.withDatabase { db throws(ResultsError) in
            waiting.subtract(1, ordering: .acquiringAndReleasing)
            counted = false
            // Closed while this waited: its transaction has ended.
            guard connection.withLock({ $0 != nil }) else { throw Self.closedError }
            return try body(db)
        }
    }
}
