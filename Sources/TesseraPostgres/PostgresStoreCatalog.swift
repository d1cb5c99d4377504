import TesseraResultsCore

/// A table or view as the server's catalog describes it: what a request's
/// patch plan and its change capture need.
struct PostgresRelation: Sendable, Equatable {
    struct Column: Sendable, Equatable {
        var name: String
        var typeOID: UInt32
        /// The column's collation (`C`, `default`…), empty for a type
        /// without one.
        var collation: String
        /// `bigint`, `text`, `character varying(20)`…
        var typeName: String
        /// Whether the column is the table's primary key on its own.
        var isSoleKey: Bool
    }

    var oid: Int64
    var schema: String
    var name: String
    /// `r` table, `p` partitioned table, `v` view, `m` materialized view…
    var kind: String
    var columns: [Column]
    /// The database's default collation (`C`, `en_US.UTF-8`…).
    var databaseCollation: String
    /// `relreplident`: `d` the primary key, `f` every column, `i` an
    /// index's columns, `n` none. What an UPDATE's `old-key:` holds.
    var replicaIdentity = "d"

    /// Everything a request's plan derives from the catalog: it changes
    /// when the table is dropped and made again, becomes another kind of
    /// relation, changes its replica identity or primary key, or a column
    /// is added, dropped, renamed, or changes type or collation (which
    /// reorders the rows without writing any).
    var fingerprint: String {
        "\(oid)|\(kind)|\(replicaIdentity)|" + columns.map { column in
            "\(column.name):\(column.typeOID):\(column.typeName):\(column.collation):\(column.isSoleKey ? "k" : "")"
        }.joined(separator: ",")
    }

    /// The column a request's key names: the name as written (the
    /// statements quote it), compared by bytes.
    func column(exactly name: String) -> Int? {
        columns.firstIndex { $0.name.utf8.elementsEqual(name.utf8) }
    }

    /// The column a sort key names (`album`, `"Album"`): PostgreSQL folds
    /// an unquoted name to lower case.
    func column(named expression: String) -> Int? {
        // Byte by byte: names the same to Swift (composed or not) are two
        // columns to PostgreSQL.
        guard let name = bareColumnName(expression, foldingUnquoted: true) else { return nil }
        return columns.firstIndex { $0.name.utf8.elementsEqual(name.utf8) }
    }

    /// Whether text in this column, under `collation` (a sort key's, or the
    /// column's own when `nil`), orders by its bytes as
    /// ``PostgresSortOrdering`` orders it.
    func ordersByBytes(_ column: Int, collation: Collation?) -> Bool {
        if collation == .binary { return true }
        switch columns[column].collation {
        case "C", "POSIX": return true
        case "default": return databaseCollation == "C" || databaseCollation == "POSIX"
        default: return false
        }
    }

    /// Reads the relation a name resolves to (as the name in a FROM
    /// clause would), or `nil` when there is none.
    static func load(_ table: String, in session: PostgresSession) throws(PostgresStoreError) -> PostgresRelation? {
        let found = try session.query("SELECT to_regclass($1)::oid::int8", [.text(quotedIdentifier(table))], request: "look up \(table)")
        guard case let .integer(oid) = found.rows.first?.first else { return nil }
        return try load(oids: [oid], in: session, request: "read the columns of \(table)")[oid]
    }

    /// The relations with these OIDs as the catalog describes them in the
    /// session's snapshot, by OID (a relation dropped has none): one
    /// query, whose rows give ``fingerprint`` through the same code
    /// whoever reads them.
    ///
    /// - Complexity: one round trip; O(*c*) for *c* columns in all.
    static func load(oids: some Collection<Int64>, in session: PostgresSession, request: String) throws(PostgresStoreError) -> [Int64: PostgresRelation] {
        guard !oids.isEmpty else { return [:] }
        let rows = try session.query(
            """
            SELECT c.oid::int8, n.nspname::text, c.relname::text, c.relkind::text,
                   (SELECT datcollate::text FROM pg_database WHERE datname = current_database()), c.relreplident::text,
                   a.attname::text, a.atttypid::int8, coalesce(co.collname::text, ''), format_type(a.atttypid, a.atttypmod),
                   EXISTS (SELECT 1 FROM pg_index i WHERE i.indrelid = a.attrelid AND i.indisprimary AND i.indnatts = 1 AND i.indkey[0] = a.attnum)
            FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
            LEFT JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
            LEFT JOIN pg_collation co ON co.oid = a.attcollation
            WHERE c.oid = ANY($1::text[]::oid[])
            ORDER BY c.oid, a.attnum
            """,
            [.text(PostgresSQL.textArray(oids.map(String.init)))], request: request
        )
        var relations: [Int64: PostgresRelation] = [:]
        for values in rows.rows {
            guard case let .integer(oid) = values[0] else { continue }
            if relations[oid] == nil {
                relations[oid] = PostgresRelation(
                    oid: oid, schema: values[1].string ?? "", name: values[2].string ?? "", kind: values[3].string ?? "", columns: [],
                    databaseCollation: values[4].string ?? "", replicaIdentity: values[5].string ?? ""
                )
            }
            // A relation without columns has one row, of NULLs past its own.
            guard let name = values[6].string else { continue }
            relations[oid]?.columns.append(
                Column(
                    name: name, typeOID: UInt32(truncatingIfNeeded: values[7].int64 ?? 0),
                    collation: values[8].string ?? "", typeName: values[9].string ?? "", isSoleKey: values[10] == .integer(1)
                )
            )
        }
        return relations
    }
}

/// A relation's catalog stamp: the transaction ids that last wrote its
/// `pg_class` row and each of its `pg_attribute` rows, and its primary
/// key's index. Cheap to read (index lookups, a small plan), so the change
/// feed reads it with every round's snapshot, and reads the relation's
/// columns (``PostgresRelation/load(oids:in:request:)``, whose planning
/// alone costs about half a millisecond) only when it moved.
///
/// Every change that ``PostgresRelation/fingerprint`` sees writes one of
/// those rows: a column added (a new `pg_attribute` row), dropped,
/// renamed, retyped or given another collation (its row rewritten); the
/// replica identity or the kind changed (the `pg_class` row rewritten);
/// the primary key made or dropped (another index). A rewritten row has
/// the id of the transaction that rewrote it, which no earlier version
/// had. A stamp can move with no change to the shape (a `VACUUM FREEZE`,
/// a default set): the columns are then read and compared, as before.
/// Renaming a type or a collation a column uses changes neither row: the
/// next read by key then fails, and the source fetches again.
enum PostgresCatalogStamp {
    /// An expression giving the stamps of the relations whose OIDs
    /// `oidsParameter` (a text array) names, as `oid=stamp` joined by `;`
    /// (NULL for none).
    static func sql(oidsParameter: String) -> String {
        """
        (SELECT string_agg(c.oid::text || '=' || c.xmin::text || ':'
                || coalesce((SELECT string_agg(a.xmin::text, ',' ORDER BY a.attnum) FROM pg_attribute a WHERE a.attrelid = c.oid AND a.attnum > 0), '')
                || ':' || coalesce((SELECT string_agg(i.indexrelid::text, ',' ORDER BY i.indexrelid) FROM pg_index i WHERE i.indrelid = c.oid AND i.indisprimary), ''),
                ';')
         FROM pg_class c WHERE c.oid = ANY(\(oidsParameter)::text[]::oid[]))
        """
    }

    /// The stamps in `text` (see ``sql(oidsParameter:)``), by OID.
    ///
    /// - Complexity: O(*n*) in the text's length.
    static func parse(_ text: String?) -> [Int64: String] {
        guard let text else { return [:] }
        var stamps: [Int64: String] = [:]
        for entry in text.split(separator: ";") {
            guard let equals = entry.firstIndex(of: "="), let oid = Int64(entry[..<equals]) else { continue }
            stamps[oid] = String(entry[entry.index(after: equals)...])
        }
        return stamps
    }
}

/// A transaction's snapshot (`pg_current_snapshot()`): which transactions
/// it sees.
struct PostgresXidSnapshot: Sendable, Equatable {
    var xmin: UInt64
    var xmax: UInt64
    var inProgress: Set<UInt64>

    /// Reads `xmin:xmax:xip,xip…`.
    init?(_ text: String) {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 3, let xmin = UInt64(parts[0]), let xmax = UInt64(parts[1]) else { return nil }
        self.xmin = xmin
        self.xmax = xmax
        inProgress = Set(parts[2].split(separator: ",").compactMap { UInt64($0) })
    }

    /// Whether a transaction that committed (a 32-bit id, as logical
    /// decoding gives it: taken to be within 2³¹ of this snapshot's) is
    /// seen by this snapshot.
    func sees(_ xid: UInt32) -> Bool {
        let distance = Int32(bitPattern: UInt32(truncatingIfNeeded: xmax) &- xid)
        guard distance > 0, UInt64(distance) <= xmax else { return false }
        let full = xmax - UInt64(distance)
        return full < xmin || !inProgress.contains(full)
    }
}

