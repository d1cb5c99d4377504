import TesseraResultsCore
import TesseraSQLite

/// The objects a change log adds to the schema, made from the logged
/// table's columns and unique constraints (see ``SQLiteChangeLog``).
///
/// Entries: `kind` 0 for a key that arrived (an insert, or the new key of
/// an update), 1 for a row that changed, 2 for one deleted, 3 for one a
/// `REPLACE` is about to remove; kinds 1 to 3 hold the row's key and old
/// values as they were, kind 0 only the key.
struct ChangeLogSchema {
    /// The table, as the schema spells it.
    let table: String
    let keyColumn: String
    /// The logged columns.
    let columns: [String]
    /// Each unique constraint but the primary key: its columns, each with
    /// the collation it compares under (`nil`: the column's own).
    let uniqueConstraints: [[(column: String, collation: String?)]]

    /// Reads what a log on `table` needs, checking that it can have one.
    static func read(table: String, columns requested: [String]?, in db: Database) throws(SQLiteChangeLogError) -> ChangeLogSchema {
        func rows(_ sql: String, _ arguments: [DatabaseValue]) throws(SQLiteChangeLogError) -> [[DatabaseValue]] {
            do throws(SQLiteError) { return try db.rows(sql, arguments) } catch { throw .database(error) }
        }
        guard let name = try rows(
            "SELECT name FROM sqlite_schema WHERE type = 'table' AND name = ? COLLATE NOCASE", [.text(table)]
        ).first?.first?.string else { throw .noSuchTable(table) }
        if name.lowercased().hasPrefix("sqlite_") || name.lowercased().hasPrefix("tessera_log_") {
            throw .reservedName(name)
        }
        let info = try rows("SELECT name, pk, hidden FROM pragma_table_xinfo(?)", [.text(name)])
        let visible = info.filter { $0[2].int64 == 0 }.compactMap { $0[0].string }
        let keys = info.filter { ($0[1].int64 ?? 0) > 0 }.sorted { ($0[1].int64 ?? 0) < ($1[1].int64 ?? 0) }.compactMap { $0[0].string }
        guard keys.count == 1, let key = keys.first else {
            throw .noSingleColumnPrimaryKey(table: name, columns: keys)
        }
        var logged: [String] = []
        for column in requested ?? visible {
            guard let found = visible.first(where: { $0.lowercased() == column.lowercased() }) else {
                throw .noSuchColumn(table: name, column: column)
            }
            if !logged.contains(where: { $0.lowercased() == found.lowercased() }) { logged.append(found) }
        }
        var constraints: [[(column: String, collation: String?)]] = []
        for index in try rows("SELECT name FROM pragma_index_list(?) WHERE \"unique\" = 1", [.text(name)]) {
            guard let indexName = index[0].string else { continue }
            var parts: [(column: String, collation: String?)] = []
            for part in try rows("SELECT cid, name, coll FROM pragma_index_xinfo(?) WHERE key = 1 ORDER BY seqno", [.text(indexName)]) {
                let cid = part[0].int64 ?? -2
                if cid == -2 { throw .expressionUniqueIndex(table: name, index: indexName) }
                parts.append((cid == -1 ? "rowid" : part[1].string ?? "", part[2].string))
            }
            // The primary key's own index is the key lookup already.
            if parts.count == 1, parts[0].column.lowercased() == key.lowercased() { continue }
            constraints.append(parts)
        }
        return ChangeLogSchema(table: name, keyColumn: key, columns: logged, uniqueConstraints: constraints)
    }

    /// Drops a log's objects, whether or not it has one.
    static func dropStatements(table: String) -> [String] {
        let log = SQLiteChangeLog.logTable(for: table)
        return triggerSuffixes.map { "DROP TRIGGER IF EXISTS \(quotedIdentifier("\(log)_\($0)"))" }
            // Dropping the table drops its row of sqlite_sequence too.
            + ["DROP TABLE IF EXISTS \(quotedIdentifier(log))"]
    }

    var dropStatements: [String] { Self.dropStatements(table: table) }

    private static let triggerSuffixes = ["before_insert", "before_update", "after_insert", "after_update", "after_delete", "trim"]

    /// Creates the log's table and triggers.
    func createStatements(retained: Int) -> [String] {
        let log = SQLiteChangeLog.logTable(for: table)
        let q = quotedIdentifier
        let logTable = q(log)
        let keyEntry = q("key.\(keyColumn)")
        let oldEntries = columns.map { q("old.\($0)") }
        let trigger = { (suffix: String) in q("\(log)_\(suffix)") }
        let source = q(table)
        let key = q(keyColumn)
        // The row as it is, from `prefix` (old. or t.).
        func values(_ prefix: String) -> String { ([prefix + key] + columns.map { prefix + q($0) }).joined(separator: ", ") }
        let target = "\(logTable)(kind, \(([keyEntry] + oldEntries).joined(separator: ", ")))"
        // Rows a REPLACE removes: the one with the new key, and the ones
        // that hold the new values of a unique constraint (NULLs never
        // conflict, and `=` never matches them).
        func conflicts(excludingOld: Bool) -> String {
            var constraints = [[(column: keyColumn, collation: String?.none)]]
            constraints += uniqueConstraints
            let matches = constraints.map { parts in
                "(" + parts.map { part in
                    let column = part.column == "rowid" ? "rowid" : q(part.column)
                    return "t.\(column) = new.\(column)" + (part.collation.map { " COLLATE \(q($0))" } ?? "")
                }.joined(separator: " AND ") + ")"
            }
            // One statement, so that a row that holds several of them is
            // logged once.
            var condition = "(" + matches.joined(separator: " OR ") + ")"
            if excludingOld { condition += " AND t.\(key) IS NOT old.\(key)" }
            return "INSERT INTO \(target) SELECT 3, \(values("t.")) FROM \(source) AS t WHERE \(condition);"
        }
        let uniqueColumns = Set(([keyColumn] + uniqueConstraints.flatMap { $0.map(\.column) }).filter { $0 != "rowid" })
        let updateOf = uniqueConstraints.contains(where: { $0.contains(where: { $0.column == "rowid" }) })
            ? "" : " OF " + uniqueColumns.sorted().map(q).joined(separator: ", ")
        return [
            "CREATE TABLE \(logTable)(seq INTEGER PRIMARY KEY AUTOINCREMENT, kind INTEGER NOT NULL, \(([keyEntry] + oldEntries).joined(separator: ", ")))",
            "CREATE TRIGGER \(trigger("before_insert")) BEFORE INSERT ON \(source) BEGIN \(conflicts(excludingOld: false)) END",
            "CREATE TRIGGER \(trigger("before_update")) BEFORE UPDATE\(updateOf) ON \(source) BEGIN \(conflicts(excludingOld: true)) END",
            "CREATE TRIGGER \(trigger("after_insert")) AFTER INSERT ON \(source) BEGIN INSERT INTO \(logTable)(kind, \(keyEntry)) VALUES (0, new.\(key)); END",
            "CREATE TRIGGER \(trigger("after_update")) AFTER UPDATE ON \(source) BEGIN "
                + "INSERT INTO \(target) VALUES (1, \(values("old."))); "
                + "INSERT INTO \(logTable)(kind, \(keyEntry)) SELECT 0, new.\(key) WHERE new.\(key) IS NOT old.\(key); END",
            "CREATE TRIGGER \(trigger("after_delete")) AFTER DELETE ON \(source) BEGIN INSERT INTO \(target) VALUES (2, \(values("old."))); END",
            "CREATE TRIGGER \(trigger("trim")) AFTER INSERT ON \(logTable) WHEN new.seq % 256 = 0 BEGIN "
                + "DELETE FROM \(logTable) WHERE seq <= new.seq - \(retained); END",
        ]
    }
}
