import TesseraResultsCore
import TesseraSQLite

/// What a request needs for a commit to patch its result instead of
/// re-fetching it, found when the result is fetched.
///
/// A request qualifies when it reads one ordinary table of the `main`
/// database (no view, no query of your own, no other table in the
/// predicate), every sort key is a column of that table sorted under
/// BINARY, NOCASE or RTRIM, the table has no hidden or generated columns,
/// the database's text encoding is UTF-8, and the predicate has no
/// subquery. The predicate must depend only on the row and be
/// deterministic (no `random()`, no current time). Then the pre-update hook's
/// old values locate a changed row in the kept sort values, and one query
/// by key finds where it goes.
struct SQLitePatchPlan: Sendable {
    /// The table.
    let table: String
    /// The key column's position among the table's columns.
    let keyIndex: Int
    /// Each sort key's position among the table's columns.
    let sortIndexes: [Int]
    /// The tuple positions whose column has a default. For rows written
    /// before an `ALTER TABLE … ADD COLUMN … DEFAULT`, SQLite's pre-update
    /// hook (before 3.41) gives NULL where a query gives the default, so a
    /// NULL there cannot be trusted to locate the row.
    let defaulted: [Int]
    /// The collations of the sort keys, then of the key column.
    let collations: [Collation]
    /// The directions of the sort keys, then of the key column (ascending).
    let ascending: [Bool]
    /// The names of the sort keys' columns, then of the key column, as the
    /// schema spells them.
    let tupleColumns: [String]
    /// Where the sort values and the key are among the table's columns, in
    /// store order.
    var tuplePositions: [Int] { sortIndexes + [keyIndex] }

    /// The store-independent part: where the tuple is in a row, and how
    /// each of its values orders.
    var patchPlan: PatchPlan {
        PatchPlan(
            tuplePositions: tuplePositions,
            orderings: zip(collations, ascending).map { SQLiteSortOrdering(collation: $0, ascending: $1) }
        )
    }

    /// The plan for a request, or `nil` when its commits must re-fetch.
    static func make(for request: FetchRequest, readingTables tables: Set<String>, selects: Int, in db: Database) -> SQLitePatchPlan? {
        // One SELECT: a subquery in the predicate, even on the same table,
        // can make a change to one row move others in or out.
        // NULLs placed where SQLite would not put them are not followed
        // in Swift: such a request re-fetches.
        guard case let .table(table) = request.source, selects == 1,
              request.sortKeys.allSatisfy({ $0.nullsFirst == nil || $0.nullsFirst == $0.ascending }),
              tables.count == 1, tables.first.map({ sqliteNamesEqual($0, table) }) == true,
              (try? db.rows("PRAGMA encoding").first?.first?.string) == "UTF-8",
              let type = try? db.rows("SELECT type FROM sqlite_schema WHERE name = ? COLLATE NOCASE", [.text(table)]).first?.first?.string,
              type == "table",
              let columns = try? db.rows("SELECT name, hidden, dflt_value FROM pragma_table_xinfo(?)", [.text(table)]),
              !columns.isEmpty, columns.allSatisfy({ $0[1].int64 == 0 })
        else { return nil }
        // SQLite compares names without case in ASCII only, byte by byte
        // (sqliteNamesEqual folds as it compares).
        let names = columns.map { $0[0].string ?? "" }
        func index(of expression: String) -> Int? {
            guard let name = bareColumnName(expression, foldingUnquoted: false) else { return nil }
            return names.firstIndex { sqliteNamesEqual($0, name) }
        }
        func collation(ofColumn column: Int, declared override: Collation?) -> Collation? {
            if let override { return override }
            guard let metadata = try? db.columnMetadata(table: table, column: names[column]) else { return nil }
            return Collation(rawValue: metadata.collation.uppercased())
        }
        guard let keyIndex = names.firstIndex(where: { sqliteNamesEqual($0, request.keyColumn) }),
              let keyCollation = collation(ofColumn: keyIndex, declared: nil) else { return nil }
        var sortIndexes: [Int] = []
        var collations: [Collation] = []
        for key in request.sortKeys {
            guard let column = index(of: key.expression),
                  let collation = collation(ofColumn: column, declared: key.collation) else { return nil }
            sortIndexes.append(column)
            collations.append(collation)
        }
        let positions = sortIndexes + [keyIndex]
        return SQLitePatchPlan(
            table: table,
            keyIndex: keyIndex,
            sortIndexes: sortIndexes,
            defaulted: positions.indices.filter { !columns[positions[$0]][2].isNull },
            collations: collations + [keyCollation],
            ascending: request.sortKeys.map(\.ascending) + [true],
            tupleColumns: positions.map { columns[$0][0].string ?? "" }
        )
    }
}


