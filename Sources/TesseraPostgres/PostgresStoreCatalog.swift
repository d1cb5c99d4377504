import TesseraResults

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

    /// What changes when the table is dropped and made again, or a column
    /// is added, dropped, renamed or changes type.
    var fingerprint: String {
        "\(oid)|" + columns.map { "\($0.name):\($0.typeOID)" }.joined(separator: ",")
    }

    /// The column named as a sort key or key names it (`album`,
    /// `"Album"`): PostgreSQL folds an unquoted name to lower case.
    func column(named expression: String) -> Int? {
        var name = expression.trimmingSpaces
        if name.count >= 2, name.first == "\"", name.last == "\"" {
            name = String(name.dropFirst().dropLast()).replacing("\"\"", with: "\"")
        } else {
            guard name.allSatisfy({ $0 == "_" || $0.isLetter || $0.isNumber || $0 == "$" }) else { return nil }
            name = name.lowercased()
        }
        return columns.firstIndex { $0.name == name }
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
        let found = try session.query(
            """
            SELECT c.oid::int8, n.nspname::text, c.relname::text, c.relkind::text,
                   (SELECT datcollate::text FROM pg_database WHERE datname = current_database()), c.relreplident::text
            FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
            WHERE c.oid = to_regclass($1)
            """,
            [.text(quotedIdentifier(table))], request: "look up \(table)"
        )
        guard let row = found.rows.first, case let .integer(oid) = row[0] else { return nil }
        let columns = try session.query(
            """
            SELECT a.attname::text, a.atttypid::int8, coalesce(co.collname::text, ''), format_type(a.atttypid, a.atttypmod),
                   EXISTS (SELECT 1 FROM pg_index i WHERE i.indrelid = a.attrelid AND i.indisprimary AND i.indnatts = 1 AND i.indkey[0] = a.attnum)
            FROM pg_attribute a LEFT JOIN pg_collation co ON co.oid = a.attcollation
            WHERE a.attrelid = $1::oid AND a.attnum > 0 AND NOT a.attisdropped
            ORDER BY a.attnum
            """,
            [.integer(oid)], request: "read the columns of \(table)"
        )
        return PostgresRelation(
            oid: oid, schema: row[1].string ?? "", name: row[2].string ?? "", kind: row[3].string ?? "",
            columns: columns.rows.map { values in
                Column(
                    name: values[0].string ?? "", typeOID: UInt32(truncatingIfNeeded: values[1].int64 ?? 0),
                    collation: values[2].string ?? "", typeName: values[3].string ?? "", isSoleKey: values[4] == .integer(1)
                )
            },
            databaseCollation: row[4].string ?? "", replicaIdentity: row[5].string ?? ""
        )
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

extension String {
    var trimmingSpaces: String {
        var text = Substring(self)
        while let first = text.first, first.isWhitespace { text = text.dropFirst() }
        while let last = text.last, last.isWhitespace { text = text.dropLast() }
        return String(text)
    }
}
