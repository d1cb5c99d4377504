import TesseraResultsCore
import TesseraSQLite

/// A change log as a follower finds it (see ``SQLiteChangeLog``): its
/// table's columns say what it logs, so nothing else records it.
struct ChangeLogLayout {
    /// The logged table, as the schema spells it.
    let table: String
    let keyColumn: String
    /// The logged columns, in the log's order.
    let columns: [String]

    /// The log of `table`, or `nil` when it has none.
    static func read(table: String, in db: Database) throws(SQLiteError) -> ChangeLogLayout? {
        guard let name = try db.rows(
            "SELECT name FROM sqlite_schema WHERE type = 'table' AND name = ? COLLATE NOCASE", [.text(table)]
        ).first?.first?.string else { return nil }
        let names = try db.rows("SELECT name FROM pragma_table_info(?)", [.text(SQLiteChangeLog.logTable(for: name))]).compactMap { $0[0].string }
        guard let key = names.first(where: { $0.hasPrefix("key.") }) else { return nil }
        return ChangeLogLayout(table: name, keyColumn: String(key.dropFirst(4)), columns: names.filter { $0.hasPrefix("old.") }.map { String($0.dropFirst(4)) })
    }

    /// The last entry's number (0: none yet): it only grows, since the log
    /// numbers its entries with AUTOINCREMENT.
    func lastEntry(in db: Database) throws(SQLiteError) -> Int64 {
        try db.rows("SELECT seq FROM sqlite_sequence WHERE name = ?", [.text(SQLiteChangeLog.logTable(for: table))]).first?.first?.int64 ?? 0
    }

    /// The positions among the logged columns of a request's tuple columns
    /// (its sort keys', then its key's), or `nil` when the log cannot place
    /// the request's rows: it lacks a column, or logs another key.
    func tupleSources(for plan: SQLitePatchPlan) -> [Int]? {
        guard sqliteNamesEqual(plan.table, table), let key = plan.tupleColumns.last,
              sqliteNamesEqual(key, keyColumn) else { return nil }
        var sources: [Int] = []
        for column in plan.tupleColumns.dropLast() {
            guard let index = columns.firstIndex(where: { sqliteNamesEqual($0, column) }) else { return nil }
            sources.append(index)
        }
        return sources
    }

    /// The changes logged after `position`: every key touched, with each
    /// tuple it had before a logged change (kind 1 to 3), oldest first.
    ///
    /// - Returns: `nil` when the entries after `position` are no longer all
    ///   there (trimmed), or they touch more than `limit` keys.
    /// - Complexity: O(*e*) for the *e* entries after `position`, at most
    ///   16 · `limit` + 1 of them read.
    func changes(
        since position: Int64, upTo last: Int64, sources: [Int], limit: Int, in db: Database
    ) throws(SQLiteError) -> [DatabaseValue: [[DatabaseValue]]]? {
        let log = quotedIdentifier(SQLiteChangeLog.logTable(for: table))
        let selected = ([quotedIdentifier("key.\(keyColumn)")] + sources.map { quotedIdentifier("old.\(columns[$0])") }).joined(separator: ", ")
        // No limit past what the log keeps (a share of 1 or more is none).
        let entryLimit = limit >= Int.max / 32 ? Int64.max : Int64(16 * limit + 1)
        let rows = try db.rows(
            "SELECT kind, \(selected) FROM \(log) WHERE seq > ? AND seq <= ? ORDER BY seq LIMIT ?",
            [.integer(position), .integer(last), .integer(entryLimit)]
        )
        guard Int64(rows.count) < entryLimit else { return nil }
        var touched: [DatabaseValue: [[DatabaseValue]]] = [:]
        for row in rows {
            let key = row[1]
            guard !key.isNull else { return nil }
            var tuples = touched[key] ?? []
            if row[0].int64 != 0 { tuples.append(Array(row[2...]) + [key]) }
            touched[key] = tuples
            if touched.count > limit { return nil }
        }
        // Read after the entries: the entries after `position` were all
        // there if the oldest kept one follows it (the log trims from the
        // oldest). A trim since the read only makes this say no.
        if last > position {
            let oldest = try db.rows("SELECT min(seq) FROM \(log)").first?.first?.int64
            guard let oldest, oldest <= position + 1 else { return nil }
        }
        return touched
    }
}
