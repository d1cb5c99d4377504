import TesseraResults
import TesseraResultsCore
import TesseraSQLite

/// A section's name, from its section value.
package typealias ServeSectionNaming = @Sendable (DatabaseValue) -> String

/// The configured table as checked against the database: its columns'
/// exact names, its key, and the request the hub's controller runs.
package struct ServeSchema: Sendable {
    /// How the list names a section: the text of its section value, as
    /// clients see it in `sections`, headers and `add`. A backend whose
    /// values are held in another form (a PostgreSQL date as its day
    /// number) names them as its database prints them.
    package var sectionName: ServeSectionNaming = ServeSchema.text(of:)

    /// The table's name as the database spells it.
    package var table: String
    /// The key column (a single-column primary key), or the row id:
    /// `rowid`, or `_rowid_` or `oid` when a column takes that name.
    package var keyColumn: String
    /// The section column, if any.
    package var sectionColumn: String?
    /// The sort column.
    package var sortColumn: String
    /// Whether the sort is descending.
    package var sortDescending: Bool
    /// The title column.
    package var titleColumn: String
    /// The order column, if any.
    package var orderColumn: String?

    /// The alias of the key in ``query``.
    package static let keyAlias = "tessera_serve_key"
    /// The alias of the section value.
    package static let sectionAlias = "tessera_serve_section"
    /// The alias of the title.
    package static let titleAlias = "tessera_serve_title"
    /// The alias of the sort value.
    package static let sortAlias = "tessera_serve_sort"

    /// Checks a table and its columns against the database, whose file is
    /// at `path` (for the messages).
    ///
    /// - Throws: ``ServeError`` naming the table (and the tables the file
    ///   has) or the column (and the table's columns), or a table without a
    ///   single-column primary key and without row ids.
    package init(
        table wantedTable: String, sectionColumn wantedSection: String?, sortColumn wantedSort: String, sortDescending: Bool,
        titleColumn wantedTitle: String, orderColumn wantedOrder: String?, path: String, database: Database
    ) throws(ServeError) {
        func sqlite<T>(_ body: () throws(SQLiteError) -> T) throws(ServeError) -> T {
            do { return try body() } catch { throw ServeError("\(path): \(error.message)") }
        }
        let found = try sqlite { () throws(SQLiteError) in
            try database.rows("SELECT name, type FROM sqlite_master WHERE type IN ('table', 'view') AND name = ? COLLATE NOCASE", [.text(wantedTable)])
        }
        guard let match = found.first, let name = match[0].string else {
            let names = try sqlite { () throws(SQLiteError) in
                try database.rows("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")
            }.compactMap { $0.first?.string }
            throw ServeError("no such table: \(wantedTable) in \(path) (it has: \(names.isEmpty ? "no tables" : names.joined(separator: ", ")))")
        }
        guard match[1].string == "table" else {
            throw ServeError("\(name) in \(path) is a view: the live list serves a table, whose rows it can edit")
        }
        table = name
        let info = try sqlite { () throws(SQLiteError) in
            try database.rows("SELECT name, pk FROM pragma_table_info(?)", [.text(name)])
        }
        let columns = info.compactMap { $0[0].string }
        let primaryKey = info.filter { ($0[1].int64 ?? 0) > 0 }.compactMap { $0[0].string }
        // The row id under a name no column of the table takes (a column
        // named rowid hides the row id under that name, not under the others).
        let rowIDName = ["rowid", "_rowid_", "oid"].first { alias in
            !columns.contains { sqliteNamesEqual($0, alias) }
        }
        let hasRowID = rowIDName.map { alias in (try? database.prepare("SELECT \(alias) FROM \(Self.quoted(name)) LIMIT 0")) != nil } ?? false
        func column(_ wanted: String, _ role: String) throws(ServeError) -> String {
            // As SQLite matches names: ASCII capitals alike, other bytes exact.
            if let exact = columns.first(where: { sqliteNamesEqual($0, wanted) }) { return exact }
            throw ServeError("\(role): no such column: \(wanted) in table \(name) of \(path) (its columns: \(columns.joined(separator: ", ")))")
        }
        if primaryKey.count == 1 {
            keyColumn = primaryKey[0]
        } else if hasRowID, let rowIDName {
            keyColumn = rowIDName
        } else {
            throw ServeError("table \(name) of \(path) has neither a single-column primary key nor row ids to identify its rows by")
        }
        sectionColumn = try wantedSection.map { (wanted) throws(ServeError) in try column(wanted, "section column") }
        sortColumn = try column(wantedSort, "sort column")
        self.sortDescending = sortDescending
        titleColumn = try column(wantedTitle, "title column")
        orderColumn = try wantedOrder.map { (wanted) throws(ServeError) in try column(wanted, "order column") }
    }

    /// A table already checked against its database (a server's catalog,
    /// read by the backend that serves it): the names as the database
    /// spells them, and its key column.
    package init(
        table: String, keyColumn: String, sectionColumn: String?, sortColumn: String, sortDescending: Bool,
        titleColumn: String, orderColumn: String?
    ) {
        self.table = table
        self.keyColumn = keyColumn
        self.sectionColumn = sectionColumn
        self.sortColumn = sortColumn
        self.sortDescending = sortDescending
        self.titleColumn = titleColumn
        self.orderColumn = orderColumn
    }

    /// Whether `move` edits can run: an order column that the list is
    /// sorted by.
    package var canReorder: Bool { orderColumn != nil && orderColumn == sortColumn }

    /// Whether a key column is the row id (the checking initializer names it
    /// `rowid`, or `_rowid_` or `oid` when the table has a column named
    /// `rowid`).
    package static func isRowID(_ keyColumn: String) -> Bool {
        ["rowid", "_rowid_", "oid"].contains { sqliteNamesEqual(keyColumn, $0) }
    }

    /// The SELECT the controller runs: the key, section, title and sort
    /// value under fixed aliases.
    package var query: String {
        let section = sectionColumn.map(Self.quoted) ?? "''"
        return "SELECT \(Self.quoted(keyColumn)) AS \(Self.keyAlias), \(section) AS \(Self.sectionAlias), "
            + "\(Self.quoted(titleColumn)) AS \(Self.titleAlias), \(Self.quoted(sortColumn)) AS \(Self.sortAlias) "
            + "FROM \(Self.quoted(table))"
    }

    /// The request: sections first (when there is a section column), then
    /// the sort value; the controller appends the key.
    ///
    /// A table with a key column is read as the table itself, so that the
    /// controller can patch its result row by row on each commit (its
    /// records read the columns ``tableColumns`` names); a table keyed by
    /// row id is read through ``query``, which names the row id, and is
    /// fetched again on each commit. The hub reads a table lazily when a
    /// change log covers it (see ``lazyRequest(on:)``).
    package var request: FetchRequest {
        if let columns = tableColumns {
            var keys = [SortKey(Self.quoted(sortColumn), ascending: !sortDescending)]
            if let section = columns.section { keys.insert(SortKey(Self.quoted(section)), at: 0) }
            return FetchRequest(table: table, keyColumn: keyColumn, sortKeys: keys, sectionKey: columns.section.map(Self.quoted))
        }
        return queryRequest
    }

    /// How many records the hub's controller reads at a time when its list
    /// is lazy (see ``lazyRequest(on:)``). The controller keeps eight
    /// batches of records (32,768): what a thousand clients scattered over
    /// the list show, so that a change that shifts every viewport reads no
    /// record again.
    package static let fetchBatchSize = 4_096

    /// The request read lazily (its sections and counts first, every key
    /// in the background, a record when a client shows it: a table of a
    /// million rows opens in the time of one grouped count), when the
    /// table has a current change log that holds the columns the list
    /// sorts and sections by under the list's key; otherwise `nil`.
    ///
    /// Only then: another process's commit is then patched from the log,
    /// row by row, while without a log it is fetched again, and a lazy
    /// list fetched again keeps no title of a row no client was shown to
    /// compare (see FollowingOtherProcesses in TesseraResults).
    ///
    /// - Complexity: O(*e*) for the log's *e* entries (they are counted).
    package func lazyRequest(on connection: Connection) -> FetchRequest? {
        guard let columns = tableColumns,
              let log = try? connection.changeLog(on: table), log.isCurrent,
              sqliteNamesEqual(log.keyColumn, columns.key)
        else { return nil }
        func logged(_ column: String) -> Bool { log.columns.contains { sqliteNamesEqual($0, column) } }
        guard logged(sortColumn), columns.section.map(logged) ?? true else { return nil }
        var request = request
        request.fetchBatchSize = Self.fetchBatchSize
        return request
    }

    /// The columns the records of a table request read, or `nil` for a
    /// table keyed by row id (`*` does not hold the row id).
    package var tableColumns: ServeRecord.TableColumns? {
        guard !Self.isRowID(keyColumn) else { return nil }
        return ServeRecord.TableColumns(key: keyColumn, section: sectionColumn, title: titleColumn)
    }

    /// The request over ``query``: the fixed aliases, fetched again on each
    /// commit.
    package var queryRequest: FetchRequest {
        var keys = [SortKey(Self.sortAlias, ascending: !sortDescending)]
        if sectionColumn != nil { keys.insert(SortKey(Self.sectionAlias), at: 0) }
        return FetchRequest(
            query: query, keyColumn: Self.keyAlias, sortKeys: keys,
            sectionKey: sectionColumn == nil ? nil : Self.sectionAlias
        )
    }

    /// A value as text: text as it is, numbers in SQL's spelling, NULL and
    /// blobs empty.
    package static func text(of value: DatabaseValue) -> String {
        switch value {
        case .null, .blob: ""
        case let .integer(number): String(number)
        case let .real(number): number == number.rounded() && abs(number) < 1e15 ? String(Int64(number)) : String(number)
        case let .text(text): text
        }
    }

    /// An identifier quoted for SQL.
    package static func quoted(_ identifier: String) -> String {
        quotedIdentifier(identifier)
    }
}
