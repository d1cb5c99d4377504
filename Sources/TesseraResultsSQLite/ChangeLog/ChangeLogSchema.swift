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
    /// The collation the primary key's index compares keys under, when it
    /// has one (`PRIMARY KEY (id COLLATE NOCASE)` may differ from the
    /// column's own); `nil` for a key that is the rowid.
    var keyCollation: String? = nil
    /// The name the triggers give the rowid (one no column shadows), or
    /// `nil` when the rowid is the key or the table has none (`WITHOUT
    /// ROWID`): a `REPLACE` that sets it removes the row that held it.
    var rowid: String? = nil
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
        if sqliteName(name, hasPrefix: "sqlite_") || sqliteName(name, hasPrefix: "tessera_log_") {
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
            guard let found = visible.first(where: { sqliteNamesEqual($0, column) }) else {
                throw .noSuchColumn(table: name, column: column)
            }
            if !logged.contains(where: { sqliteNamesEqual($0, found) }) { logged.append(found) }
        }
        var constraints: [[(column: String, collation: String?)]] = []
        var keyCollation: String?
        // A table whose key has no index of its own keys its rows by the
        // rowid (INTEGER PRIMARY KEY); else it has a rowid when its key's
        // index ends with it.
        var keyIsRowid = true
        var hasRowid = true
        for index in try rows("SELECT name, origin FROM pragma_index_list(?) WHERE \"unique\" = 1", [.text(name)]) {
            guard let indexName = index[0].string else { continue }
            var parts: [(column: String, collation: String?)] = []
            var endsWithRowid = false
            for part in try rows("SELECT cid, name, coll, key FROM pragma_index_xinfo(?) ORDER BY seqno", [.text(indexName)]) {
                let cid = part[0].int64 ?? -2
                guard part[3].int64 == 1 else {
                    endsWithRowid = endsWithRowid || cid == -1
                    continue
                }
                if cid == -2 { throw .expressionUniqueIndex(table: name, index: indexName) }
                parts.append((cid == -1 ? "rowid" : part[1].string ?? "", part[2].string))
            }
            // The primary key's own index is the key lookup already, under
            // the index's collation (another unique index on the key, under
            // another collation, is a constraint of its own).
            if index[1].string == "pk" {
                keyIsRowid = false
                hasRowid = endsWithRowid
                if parts.count == 1, parts[0].column.lowercased() == key.lowercased() {
                    keyCollation = parts[0].collation
                    continue
                }
            }
            constraints.append(parts)
        }
        var rowid: String?
        if hasRowid, !keyIsRowid {
            let names = Set(info.compactMap { $0[0].string?.lowercased() })
            guard let free = ["rowid", "_rowid_", "oid"].first(where: { !names.contains($0) }) else { throw .reservedName("rowid") }
            rowid = free
        }
        return ChangeLogSchema(
            table: name, keyColumn: key, columns: logged, keyCollation: keyCollation, rowid: rowid, uniqueConstraints: constraints
        )
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
            var constraints = [[(column: keyColumn, collation: keyCollation)]]
            constraints += uniqueConstraints
            var matches = constraints.map { parts in
                "(" + parts.map { part in
                    let column = part.column == "rowid" ? "rowid" : q(part.column)
                    return "t.\(column) = new.\(column)" + (part.collation.map { " COLLATE \(q($0))" } ?? "")
                }.joined(separator: " AND ") + ")"
            }
            // An explicit rowid (INSERT OR REPLACE INTO t(rowid, …), or
            // UPDATE OR REPLACE t SET rowid = …) removes the row that held it.
            if let rowid { matches.append("(t.\(rowid) = new.\(rowid))") }
            // One statement, so that a row that holds several of them is
            // logged once.
            var condition = "(" + matches.joined(separator: " OR ") + ")"
            if excludingOld { condition += " AND t.\(key) IS NOT old.\(key)" }
            return "INSERT INTO \(target) SELECT 3, \(values("t.")) FROM \(source) AS t WHERE \(condition);"
        }
        // An update can make a row conflict only by changing a unique
        // column or the rowid; UPDATE OF cannot name the rowid (not even
        // through the key that aliases it), so the trigger says when.
        let uniqueColumns = Set(([keyColumn] + uniqueConstraints.flatMap { $0.map(\.column) }).filter { $0 != "rowid" })
        let changed = uniqueColumns.sorted().map(q) + (rowid.map { [$0] } ?? [])
        let updateWhen = " WHEN " + changed.map { "new.\($0) IS NOT old.\($0)" }.joined(separator: " OR ")
        return [
            "CREATE TABLE \(logTable)(seq INTEGER PRIMARY KEY AUTOINCREMENT, kind INTEGER NOT NULL, \(([keyEntry] + oldEntries).joined(separator: ", ")))",
            "CREATE TRIGGER \(trigger("before_insert")) BEFORE INSERT ON \(source) BEGIN \(conflicts(excludingOld: false)) END",
            "CREATE TRIGGER \(trigger("before_update")) BEFORE UPDATE ON \(source)\(updateWhen) BEGIN \(conflicts(excludingOld: true)) END",
            "CREATE TRIGGER \(trigger("after_insert")) AFTER INSERT ON \(source) BEGIN INSERT INTO \(logTable)(kind, \(keyEntry)) VALUES (0, new.\(key)); END",
            "CREATE TRIGGER \(trigger("after_update")) AFTER UPDATE ON \(source) BEGIN "
                + "INSERT INTO \(target) VALUES (1, \(values("old."))); "
                + "INSERT INTO \(logTable)(kind, \(keyEntry)) SELECT 0, new.\(key) WHERE new.\(key) IS NOT old.\(key); END",
            "CREATE TRIGGER \(trigger("after_delete")) AFTER DELETE ON \(source) BEGIN INSERT INTO \(target) VALUES (2, \(values("old."))); END",
            "CREATE TRIGGER \(trigger("trim")) AFTER INSERT ON \(logTable) WHEN new.seq % 256 = 0 BEGIN "
                + "DELETE FROM \(logTable) WHERE seq <= new.seq - \(retained); END",
        ]
    }

    /// Whether the triggers on the table are the ones a log installed now
    /// would have: they are gone when the table was dropped (or rebuilt and
    /// renamed), and stale when a unique index was added or a logged
    /// column renamed since. Until then the log misses writes or names
    /// them under the wrong column, and cannot patch a result.
    ///
    /// - Complexity: O(*u*) reads of the schema for the table's *u* unique
    ///   constraints.
    static func triggersMatch(_ layout: ChangeLogLayout, in db: Database) throws(SQLiteError) -> Bool {
        let schema: ChangeLogSchema
        do throws(SQLiteChangeLogError) {
            schema = try read(table: layout.table, columns: layout.columns, in: db)
        } catch {
            if case let .database(error) = error { throw error }
            return false
        }
        // Byte for byte, as SQLite compares the statements' text: Swift's
        // `==` takes two spellings of an accented letter as one.
        func same(_ a: String, _ b: String) -> Bool { a.utf8.elementsEqual(b.utf8) }
        func byBytes(_ a: String, _ b: String) -> Bool { a.utf8.lexicographicallyPrecedes(b.utf8) }
        guard same(schema.keyColumn, layout.keyColumn), schema.columns.elementsEqual(layout.columns, by: same) else { return false }
        let expected = schema.createStatements(retained: 1).filter { $0.hasPrefix("CREATE TRIGGER") }.dropLast()
        let log = SQLiteChangeLog.logTable(for: schema.table)
        let stored = try db.rows(
            "SELECT sql FROM sqlite_schema WHERE type = 'trigger' AND name IN (?, ?, ?, ?, ?) ORDER BY name",
            triggerSuffixes.dropLast().map { .text("\(log)_\($0)") }
        ).compactMap { $0[0].string }
        return stored.sorted(by: byBytes).elementsEqual(expected.sorted(by: byBytes), by: same)
    }
}
