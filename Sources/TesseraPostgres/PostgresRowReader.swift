import TesseraResultsCore

/// What a reader reads: one of the controllers' requests.
enum PostgresRequest: Sendable {
    case fetch(FetchRequest)
    case set(SetRequest)
    case parents(ParentRequest)
    case children(ChildRequest)
}

/// The SQL of one request, and what the catalog says about its table,
/// made once and shared by the readers of it in every transaction.
final class PostgresQueryPlan: @unchecked Sendable {
    let request: PostgresRequest
    /// The table or view named, `nil` for a query of your own.
    let table: String?
    let keyColumn: String
    /// How many leading values come before the record's columns, and which
    /// one is the key.
    let leadingCount: Int
    let keyLeadingIndex: Int
    /// The full sorted query, its rows' tuples (fetch requests), and the
    /// read by key (its last parameter: the keys as `text[]`).
    let sql: String
    let tupleSQL: String?
    private let pointSelect: String
    let arguments: [DatabaseValue]
    private let argumentCount: Int
    let predicateHasSubquery: Bool
    /// The predicate, a sort key or the section key has a subquery: the
    /// request reads other tables than its own.
    let readsOtherRelations: Bool
    let sortKeys: [SortKey]?

    /// What the catalog said, read on first need (`nil` inside: no such
    /// relation, or a query of your own).
    private let resolved = PThreadMutex<PostgresRelation??>(nil)
    /// The shapes of the relations the request reads, read in the
    /// snapshot of the fetch that starts following (see ``knownShapes``).
    private let shapes = PThreadMutex<[Int64: String]?>(nil)

    init(_ request: PostgresRequest) throws(ResultsError) {
        self.request = request
        let key: String, leading: [String], predicate: String?, sortKeys: [SortKey]?, from: String
        switch request {
        case let .fetch(fetch):
            try fetch.validate()
            key = fetch.keyColumn
            leading = [fetch.sectionKey.map(SQLFragment.spliced) ?? "NULL", quotedIdentifier(key)]
            predicate = fetch.predicate
            sortKeys = fetch.sortKeys
            switch fetch.source {
            case let .table(name):
                table = name
                from = quotedIdentifier(name)
            case let .query(query):
                table = nil
                from = "(\(SQLFragment.spliced(query))) AS tessera_query"
            }
            arguments = fetch.arguments
        case let .set(set):
            try checkFragments(predicate: set.predicate, sortKeys: nil)
            key = set.keyColumn
            leading = [quotedIdentifier(key)]
            predicate = set.predicate
            sortKeys = nil
            table = set.table
            from = quotedIdentifier(set.table)
            arguments = set.arguments
        case let .parents(parents):
            try checkFragments(predicate: parents.predicate, sortKeys: parents.sortKeys)
            key = parents.keyColumn
            leading = [quotedIdentifier(key)]
            predicate = parents.predicate
            sortKeys = parents.sortKeys
            table = parents.table
            from = quotedIdentifier(parents.table)
            arguments = parents.arguments
        case let .children(children):
            try checkFragments(predicate: children.predicate, sortKeys: children.sortKeys)
            key = children.keyColumn
            leading = [quotedIdentifier(key), quotedIdentifier(children.foreignKeyColumn)]
            predicate = children.predicate
            sortKeys = children.sortKeys
            table = children.table
            from = quotedIdentifier(children.table)
            arguments = children.arguments
        }
        keyColumn = key
        self.sortKeys = sortKeys
        leadingCount = leading.count
        if case .fetch = request { keyLeadingIndex = 1 } else { keyLeadingIndex = 0 }
        predicateHasSubquery = predicate?.lowercased().contains("select") ?? false
        let expressions = (sortKeys ?? []).map(\.expression) + [leading[0]]
        // A subquery is parenthesized: `(SELECT`, `( select`.
        readsOtherRelations = predicateHasSubquery || expressions.contains { $0.lowercased().filter { !$0.isWhitespace }.contains("(select") }
        let select = "SELECT " + leading.enumerated().map { "\($1) AS tessera_\($0)" }.joined(separator: ", ") + ", * FROM " + from
        let condition = whereClause(predicate)
        var order = ""
        if let sortKeys {
            var terms: [String] = []
            for sortKey in sortKeys { terms.append(try PostgresSQL.orderTerm(sortKey)) }
            order = " ORDER BY " + (terms + ["\(quotedIdentifier(key)) ASC"]).joined(separator: ", ")
        }
        let numbered = PostgresSQL.numbered(select + condition + order)
        sql = numbered.sql
        argumentCount = numbered.count
        guard argumentCount == arguments.count else {
            throw .invalidSQL(
                part: "predicate", sql: predicate ?? "",
                problem: "it has \(argumentCount) parameter\(argumentCount == 1 ? "" : "s") (?) and \(arguments.count) argument\(arguments.count == 1 ? "" : "s") were given"
            )
        }
        pointSelect = PostgresSQL.numbered(select + (predicate == nil ? " WHERE " : condition + " AND ")).sql
        if case .fetch = request, let sortKeys {
            let quotedKey = quotedIdentifier(key)
            var columns = [leading[0] + " AS tessera_0", quotedKey + " AS tessera_1"]
            if !sortKeys.contains(where: { $0.expression.contains("?") }) {
                columns += sortKeys.map { SQLFragment.spliced($0.expression) }
            }
            columns.append(quotedKey)
            tupleSQL = PostgresSQL.numbered("SELECT " + columns.joined(separator: ", ") + " FROM " + from + condition + order).sql
        } else {
            tupleSQL = nil
        }
    }

    /// The relation, read from the catalog once.
    func relation(in session: PostgresSession) throws(PostgresStoreError) -> PostgresRelation? {
        if let known = resolved.withLock({ $0 }) { return known }
        guard let table else {
            resolved.withLock { $0 = .some(nil) }
            return nil
        }
        let loaded = try PostgresRelation.load(table, in: session)
        resolved.withLock { $0 = .some(loaded) }
        return loaded
    }

    /// The relation if it was read already.
    var knownRelation: PostgresRelation? { resolved.withLock { $0 ?? nil } }

    /// The shape (``PostgresRelation/fingerprint``) of each relation the
    /// request reads, by OID, as the fetch's snapshot saw it; the change
    /// feed fetches again when one differs. Empty until
    /// ``readShapes(in:)``.
    var knownShapes: [Int64: String] { shapes.withLock { $0 ?? [:] } }

    /// Reads ``knownShapes`` in the snapshot of `session`'s transaction,
    /// once: the table or view named, or every relation a query of your
    /// own scans (its plan, EXPLAIN's, names them). A change of schema
    /// alone commits nothing the replication slot gives, so without them
    /// a query's `SELECT *` would go on without a column added under it.
    /// A failure leaves them unread (the transaction goes on: the reads
    /// run inside a savepoint).
    func readShapes(in session: PostgresSession) {
        guard shapes.withLock({ $0 == nil }) else { return }
        var found: [Int64: String]?
        if table != nil {
            found = (try? relation(in: session)).map { relation in relation.map { [$0.oid: $0.fingerprint] } ?? [:] }
        } else if (try? session.query("SAVEPOINT tessera_shapes", request: "read the shapes of a query's relations")) != nil {
            found = try? scannedShapes(in: session)
            if found == nil {
                _ = try? session.query("ROLLBACK TO SAVEPOINT tessera_shapes", request: "read the shapes of a query's relations")
            }
            _ = try? session.query("RELEASE SAVEPOINT tessera_shapes", request: "read the shapes of a query's relations")
        }
        guard let found else { return }
        shapes.withLock { $0 = $0 ?? found }
    }

    /// The shapes of the relations the query's plan scans (views are
    /// expanded to their tables, subqueries included).
    private func scannedShapes(in session: PostgresSession) throws(PostgresStoreError) -> [Int64: String] {
        let explained = try session.query("EXPLAIN (VERBOSE, FORMAT JSON) " + sql, arguments, request: "explain: \(sql)")
        guard let plan = explained.rows.first?.first?.string else { return [:] }
        let oids = try session.query(
            """
            SELECT DISTINCT to_regclass(quote_ident(node->>'Schema') || '.' || quote_ident(node->>'Relation Name'))::oid::int8
            FROM jsonb_path_query($1::jsonb, 'lax $.** ? (exists (@."Relation Name"))') AS node
            """,
            [.text(plan)], request: "read the relations of \(sql)"
        ).rows.compactMap { $0.first?.int64 }
        return try PostgresRelation.load(oids: oids, in: session, request: "read the columns of the relations of \(sql)").mapValues(\.fingerprint)
    }

    /// The read by key: `key = ANY(<keys>)`, cast to the key's type when the
    /// catalog knows it, compared as text otherwise.
    func pointSQL(in session: PostgresSession) throws(PostgresStoreError) -> String {
        let parameter = "$\(argumentCount + 1)"
        let quotedKey = quotedIdentifier(keyColumn)
        if let relation = try relation(in: session), let index = relation.column(exactly: keyColumn) {
            return pointSelect + "\(quotedKey) = ANY(\(parameter)::text[]::\(relation.columns[index].typeName)[])"
        }
        return pointSelect + "\(quotedKey)::text = ANY(\(parameter)::text[])"
    }

    /// How a commit patches a fetch request's result, or `nil`: every
    /// sort key a column of the table whose values order in Swift exactly as
    /// the server orders them (see ``PostgresSortOrdering``), the key the
    /// table's primary key, and a predicate that reads no other row.
    func patchPlan(in session: PostgresSession) -> PatchPlan? {
        guard case .fetch = request, let sortKeys, !predicateHasSubquery,
              let relation = try? relation(in: session), relation.kind == "r",
              let keyIndex = relation.column(exactly: keyColumn), relation.columns[keyIndex].isSoleKey
        else { return nil }
        var positions: [Int] = []
        var orderings: [any SortOrdering] = []
        // The key last, found as it is written (its statements quote it).
        for (place, (sortKey, collation)) in (sortKeys.map({ ($0, $0.collation) }) + [(SortKey(keyColumn), nil)]).enumerated() {
            guard let index = place == sortKeys.count ? keyIndex : relation.column(named: sortKey.expression) else { return nil }
            let kind = PostgresColumnKind(typeOID: relation.columns[index].typeOID)
            guard PostgresSortOrdering.supports(kind), kind != .text || relation.ordersByBytes(index, collation: collation) else { return nil }
            positions.append(index)
            orderings.append(PostgresSortOrdering(kind: kind, ascending: sortKey.ascending, nullsFirst: sortKey.nullsFirst))
        }
        return PatchPlan(tuplePositions: positions, orderings: orderings)
    }

    /// Whether the row-by-row capture can follow this request: a table
    /// whose primary key is the key, read by a predicate that reads no
    /// other row, and whose replica identity is that key or every column
    /// (else an UPDATE that changes the key does not log the old one).
    func followsRows(in session: PostgresSession) -> Bool {
        guard !predicateHasSubquery, let relation = try? relation(in: session), relation.kind == "r",
              relation.replicaIdentity == "d" || relation.replicaIdentity == "f",
              let keyIndex = relation.column(exactly: keyColumn)
        else { return false }
        return relation.columns[keyIndex].isSoleKey
    }
}

/// A request's reads in one transaction (see ``TesseraResults/RowReader``).
final class PostgresRowReader: RowReader {
    let plan: PostgresQueryPlan
    private let transaction: Transaction
    private static let cursors = PThreadMutex(0)

    /// Where a reader's statements run.
    private enum Transaction {
        /// A transaction under way on a session.
        case open(PostgresSession)
        /// A reader's snapshot, opened at the first statement.
        case deferred(PostgresDeferredSnapshot)
    }

    /// Reads in the transaction under way on `session`.
    init(plan: PostgresQueryPlan, session: PostgresSession) {
        self.plan = plan
        transaction = .open(session)
    }

    /// Reads in `snapshot`, which the first statement opens.
    init(plan: PostgresQueryPlan, snapshot: PostgresDeferredSnapshot) {
        self.plan = plan
        transaction = .deferred(snapshot)
    }

    /// The session the reads run on (a deferred snapshot is opened now).
    var session: PostgresSession {
        get throws(PostgresStoreError) {
            switch transaction {
            case let .open(session): session
            case let .deferred(snapshot): try snapshot.held().session
            }
        }
    }

    var readTables: Set<String> {
        guard let relation = try? plan.relation(in: session) else { return [] }
        return [relation.name]
    }

    /// The patch plan once read (a reader whose snapshot could not be
    /// taken has none, and reads it again at the next ask).
    private var cachedPlan: PatchPlan??
    var patchPlan: PatchPlan? {
        if let known = cachedPlan { return known }
        guard let session = try? session else { return nil }
        let made = plan.patchPlan(in: session)
        cachedPlan = .some(made)
        return made
    }

    var keysAreUnique: Bool {
        guard let relation = try? plan.relation(in: session), let index = relation.column(exactly: plan.keyColumn) else { return false }
        return relation.kind == "r" && relation.columns[index].isSoleKey
    }

    var keyOrdering: any SortOrdering {
        let kind = (try? plan.relation(in: session)).flatMap { relation in
            relation.column(exactly: plan.keyColumn).map { PostgresColumnKind(typeOID: relation.columns[$0].typeOID) }
        } ?? .other
        return PostgresSortOrdering(kind: kind, ascending: true, nullsFirst: nil)
    }

    func readAll(_ body: (_ leading: any LeadingValues, _ row: Row) throws(ResultsError) -> Void) throws(ResultsError) {
        try readThroughCursor(plan.sql, leadingCount: plan.leadingCount, body)
    }

    func readTuples(_ body: (_ leading: any LeadingValues, _ tuple: Row) throws(ResultsError) -> Void) throws(ResultsError) {
        guard let tupleSQL = plan.tupleSQL else {
            throw .invalidSQL(part: "request", sql: plan.sql, problem: "it has no read of rows without their records")
        }
        try readThroughCursor(tupleSQL, leadingCount: 2, body)
    }

    func readRows(keys: [DatabaseValue], _ body: (_ leading: any LeadingValues, _ row: Row) throws(ResultsError) -> Void) throws(ResultsError) {
        // Keys in the text the server reads back as the key's type (a
        // timestamp's as ISO text, not its microseconds).
        let kind = (try? plan.relation(in: session)).flatMap { relation in
            relation.column(exactly: plan.keyColumn).map { PostgresColumnKind(typeOID: relation.columns[$0].typeOID) }
        }
        try readRows(keyTexts: keys.compactMap { key in kind.map { PostgresValue.parameterText(key, kind: $0) } ?? PostgresValue.parameterText(key) }, body)
    }

    /// The rows with the given keys, each key in the server's text form.
    func readRows(keyTexts: [String], _ body: (_ leading: any LeadingValues, _ row: Row) throws(ResultsError) -> Void) throws(ResultsError) {
        var start = 0
        while start < keyTexts.count {
            let end = min(keyTexts.count, start + Self.keysPerRead)
            try deliver(try sendRows(keyTexts[start..<end]).rows(), leadingCount: plan.leadingCount, body)
            start = end
        }
    }

    /// The rows with the given keys read here (to `body`) and in `other`
    /// (to `otherBody`), the same request in another transaction: each
    /// read is sent to both sessions before either answer is waited for,
    /// so the two cost one round trip.
    func readRows(
        keyTexts: [String], _ body: (_ leading: any LeadingValues, _ row: Row) throws(ResultsError) -> Void,
        alongside other: PostgresRowReader, _ otherBody: (_ leading: any LeadingValues, _ row: Row) throws(ResultsError) -> Void
    ) throws(ResultsError) {
        var start = 0
        while start < keyTexts.count {
            let end = min(keyTexts.count, start + Self.keysPerRead)
            let mine = try sendRows(keyTexts[start..<end])
            let theirs = try other.sendRows(keyTexts[start..<end])
            try deliver(try mine.rows(), leadingCount: plan.leadingCount, body)
            try other.deliver(try theirs.rows(), leadingCount: other.plan.leadingCount, otherBody)
            start = end
        }
    }

    /// The most keys one read by key names.
    static let keysPerRead = 10_000

    /// Sends the read of the rows with `keyTexts` (at most
    /// ``keysPerRead``; bounded by the endpoint's round-trip limit),
    /// without waiting for the answer: ``deliver(_:_:)`` reads it.
    func sendRows(_ keyTexts: ArraySlice<String>) throws(ResultsError) -> PendingRows {
        let sql: String
        let session: PostgresSession
        do throws(PostgresStoreError) {
            session = try self.session
            sql = try plan.pointSQL(in: session)
        } catch {
            throw error.resultsError
        }
        let arguments = plan.arguments + [.text(PostgresSQL.textArray(Array(keyTexts)))]
        return PendingRows(query: session.send(sql, arguments, request: "read rows by key: \(sql)", timeout: session.endpoint.roundTripLimit))
    }

    /// A read by key sent, whose answer is read later.
    struct PendingRows {
        let query: PostgresPendingQuery

        func rows() throws(ResultsError) -> PostgresRows {
            do throws(PostgresStoreError) { return try query.rows() } catch { throw error.resultsError }
        }
    }

    /// Waits for a read ``sendRows(_:)`` sent, and hands its rows to `body`.
    func deliver(_ pending: PendingRows, _ body: (_ leading: any LeadingValues, _ row: Row) throws(ResultsError) -> Void) throws(ResultsError) {
        try deliver(try pending.rows(), leadingCount: plan.leadingCount, body)
    }

    /// Runs `sql` through a cursor, a batch of rows at a time, so that a
    /// large result is never held whole.
    private func readThroughCursor(_ sql: String, leadingCount: Int, _ body: (_ leading: any LeadingValues, _ row: Row) throws(ResultsError) -> Void) throws(ResultsError) {
        let number = Self.cursors.withLock { value -> Int in
            value += 1
            return value
        }
        let cursor = "tessera_cursor_\(number)"
        let session: PostgresSession
        do throws(PostgresStoreError) {
            session = try self.session
            try session.query("DECLARE \(cursor) NO SCROLL CURSOR FOR " + sql, plan.arguments, request: "fetch: \(sql)")
        } catch {
            throw error.resultsError
        }
        while true {
            if Task.isCancelled {
                _ = try? session.query("CLOSE \(cursor)", request: "close a cursor")
                throw .cancelled
            }
            let rows: PostgresRows
            do throws(PostgresStoreError) {
                rows = try session.query("FETCH FORWARD 5000 FROM \(cursor)", request: "fetch: \(sql)")
            } catch {
                throw error.resultsError
            }
            try deliver(rows, leadingCount: leadingCount, body)
            if rows.rows.count < 5000 { break }
        }
        do throws(PostgresStoreError) {
            try session.query("CLOSE \(cursor)", request: "close a cursor")
        } catch {
            throw error.resultsError
        }
    }

    private func deliver(_ rows: PostgresRows, leadingCount: Int, _ body: (_ leading: any LeadingValues, _ row: Row) throws(ResultsError) -> Void) throws(ResultsError) {
        guard !rows.rows.isEmpty else { return }
        let names = rows.columns.dropFirst(leadingCount).map(\.name)
        for values in rows.rows {
            try body(LeadingArray(values: Array(values.prefix(leadingCount))), Row(columnNames: names, values: Array(values.dropFirst(leadingCount))))
        }
    }
}
