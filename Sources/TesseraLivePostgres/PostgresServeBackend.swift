import Dispatch
import TesseraLiveHub
import TesseraLiveProtocol
import TesseraPostgres

/// The live list over a PostgreSQL table (`tessera serve postgres://…`):
/// the hub's controller reads and follows a ``TesseraPostgres/PostgresStore``,
/// and the clients' edits are written in one transaction each, on a
/// session of that store.
///
/// ```swift
/// let backend = try PostgresServeBackend(configuration: configuration)
/// let hub = try ServeHub(configuration: configuration, backend: backend)
/// ```
///
/// The table needs a single-column primary key (PostgreSQL has no row
/// id), and the server `wal_level = logical` (the store follows commits
/// through a replication slot of its own).
package final class PostgresServeBackend: ServeBackend {
    /// The store the controller reads and the edits write.
    package let store: PostgresStore
    package let schema: ServeSchema
    package let source: String
    /// How an id is matched to the key column's type.
    private let keyMatch: KeyMatch
    /// Where the edits' transactions run: off the hub's actor, one at a
    /// time.
    private let queue = DispatchQueue(label: "tessera.serve.postgres-edits")
    /// How long an edit waits for the feed to hand its commit over.
    package static let followTimeout: Duration = .seconds(10)

    /// How an id (a key as text) finds its row.
    private enum KeyMatch {
        /// An integer column: the id must spell an integer.
        case integer
        /// A floating-point or numeric column: the id must spell a number.
        case number
        /// A text column: the id is the key.
        case text
        /// Any other type (uuid, date…): compared as text, which reads
        /// every row.
        case asText
    }

    /// Connects, and checks the server, the table and the columns.
    ///
    /// - Throws: ``TesseraLiveProtocol/ServeError``: a URL that is not a
    ///   PostgreSQL URL, a server that cannot be reached or refuses the
    ///   login, `wal_level` not `logical`, no such table (naming the ones
    ///   there are), a view, no single-column primary key, no such column
    ///   (naming the table's columns).
    package init(configuration: ServeConfiguration, applicationName: String = "tessera serve") throws(ServeError) {
        let url = configuration.databasePath
        let store: PostgresStore
        do {
            store = try PostgresStore(url: url, applicationName: applicationName)
        } catch {
            throw ServeError("\(PostgresStore.redacted(url)): \(error)")
        }
        let source = store.source
        func failure(_ error: PostgresStoreError) -> ServeError { ServeError("\(source): \(error)") }
        do {
            let level = try store.walLevel()
            guard level == "logical" else {
                throw ServeError("\(source): cannot follow commits: the server's wal_level is \(level), and serve needs logical: set wal_level = logical in postgresql.conf and restart the server")
            }
            let names = try store.relationNames()
            guard let table = Self.match(configuration.table, in: names) else {
                throw ServeError("no such table: \(configuration.table) in \(source) (it has: \(names.isEmpty ? "no tables" : names.joined(separator: ", ")))")
            }
            let quotedTable = ServeSchema.quoted(table)
            let kind = try store.rows("SELECT relkind::text FROM pg_class WHERE oid = to_regclass($1::text)", [.text(quotedTable)], request: "look up table \(table)")
            guard let relkind = kind.first?.first?.string else {
                throw ServeError("no such table: \(configuration.table) in \(source) (it has: \(names.joined(separator: ", ")))")
            }
            guard relkind == "r" || relkind == "p" else {
                throw ServeError("\(table) in \(source) is a view: the live list serves a table, whose rows it can edit")
            }
            let columnRows = try store.rows(
                """
                SELECT attname::text, atttypid::int8 FROM pg_attribute
                WHERE attrelid = to_regclass($1::text) AND attnum > 0 AND NOT attisdropped ORDER BY attnum
                """,
                [.text(quotedTable)], request: "read the columns of \(table)"
            )
            let columns = columnRows.compactMap { $0.first?.string }
            let types = Dictionary(columnRows.compactMap { row in row[0].string.map { ($0, row[1].int64 ?? 0) } }, uniquingKeysWith: { first, _ in first })
            let primaryKey = try store.rows(
                """
                SELECT a.attname::text FROM pg_index i JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = ANY(i.indkey)
                WHERE i.indrelid = to_regclass($1::text) AND i.indisprimary
                """,
                [.text(quotedTable)], request: "read the primary key of \(table)"
            ).compactMap { $0.first?.string }
            guard primaryKey.count == 1 else {
                throw ServeError("table \(table) of \(source) has no single-column primary key to identify its rows by (PostgreSQL tables have no row id)")
            }
            func column(_ wanted: String, _ role: String) throws(ServeError) -> String {
                if let exact = Self.match(wanted, in: columns) { return exact }
                throw ServeError("\(role): no such column: \(wanted) in table \(table) of \(source) (its columns: \(columns.joined(separator: ", ")))")
            }
            schema = ServeSchema(
                table: table, keyColumn: primaryKey[0],
                sectionColumn: try configuration.sectionColumn.map { (wanted) throws(ServeError) in try column(wanted, "section column") },
                sortColumn: try column(configuration.sortColumn, "sort column"), sortDescending: configuration.sortDescending,
                titleColumn: try column(configuration.titleColumn, "title column"),
                orderColumn: try configuration.orderColumn.map { (wanted) throws(ServeError) in try column(wanted, "order column") }
            )
            keyMatch = Self.keyMatch(forType: types[primaryKey[0]] ?? 0)
        } catch let error as ServeError {
            store.close()
            throw error
        } catch let error as PostgresStoreError {
            store.close()
            throw failure(error)
        } catch {
            store.close()
            throw ServeError("\(source): \(error)")
        }
        self.store = store
        self.source = source
    }

    deinit {
        store.close()
    }

    /// A name as written, or the one name it matches ignoring case.
    private static func match(_ name: String, in names: [String]) -> String? {
        if names.contains(name) { return name }
        let matches = names.filter { $0.caseInsensitiveCompare(name) == .orderedSame }
        return matches.count == 1 ? matches[0] : nil
    }

    /// The match for a key column of type `oid` (pg_type's).
    private static func keyMatch(forType oid: Int64) -> KeyMatch {
        switch oid {
        case 20, 21, 23: .integer // int8, int2, int4
        case 700, 701, 1700: .number // float4, float8, numeric
        case 25, 1042, 1043, 19: .text // text, bpchar, varchar, name
        default: .asText
        }
    }

    package func makeController() throws(ServeError) -> FetchedResultsController<ServeRecord> {
        do {
            return try FetchedResultsController<ServeRecord>(store: store, request: schema.request)
        } catch {
            throw ServeError("\(source): table \(schema.table): \(error)")
        }
    }

    package func write(_ edit: ServeEdit, request: Int64) async throws(ServeMessageError) -> Bool {
        let outcome: Result<PostgresFeedMark?, ServeMessageError> = await withCheckedContinuation { continuation in
            queue.async { [self] in
                continuation.resume(returning: transaction(edit, request: request))
            }
        }
        guard let mark = try outcome.get() else { return false }
        return await store.waitUntilHandedOver(mark, timeout: Self.followTimeout)
    }

    // MARK: The edits' transactions

    /// Writes `edit` in one transaction; the feed's mark after its commit.
    private func transaction(_ edit: ServeEdit, request: Int64) -> Result<PostgresFeedMark?, ServeMessageError> {
        do {
            let (_, mark) = try store.write(request: "write an edit to \(schema.table)") { transaction in
                try write(edit, in: transaction, request: request)
            }
            return .success(mark)
        } catch let error as ServeMessageError {
            return .failure(error)
        } catch let error as PostgresStoreError {
            return .failure(ServeMessageError(.database, "the write failed, nothing was written: \(error.message)\(error.code.map { " (\($0))" } ?? "")", request: request))
        } catch {
            return .failure(ServeMessageError(.database, "the write failed, nothing was written: \(error)", request: request))
        }
    }

    private var table: String { ServeSchema.quoted(schema.table) }
    private var key: String { ServeSchema.quoted(schema.keyColumn) }

    private func write(_ edit: ServeEdit, in transaction: PostgresWriteTransaction, request: Int64) throws {
        switch edit {
        case let .move(id, to):
            try move(id, to: to, in: transaction, request: request)
        case let .rename(id, title):
            guard let row = try storedRow(id, in: transaction) else { throw Self.notFound(id, request: request) }
            try transaction.rows(
                "UPDATE \(table) SET \(ServeSchema.quoted(schema.titleColumn)) = $1 WHERE \(key) = $2", [.text(title), row.key],
                request: "rename an item of \(schema.table)"
            )
        case let .delete(ids):
            var seen = Set<String>()
            var keys: [DatabaseValue] = []
            var missing: [String] = []
            for id in ids where seen.insert(id).inserted {
                if let row = try storedRow(id, in: transaction) { keys.append(row.key) } else { missing.append(id) }
            }
            if let first = missing.first {
                var error = Self.notFound(first, request: request)
                error.missingIDs = missing
                throw error
            }
            for rowKey in keys {
                try transaction.rows("DELETE FROM \(table) WHERE \(key) = $1", [rowKey], request: "delete an item of \(schema.table)")
            }
        case let .add(title, section):
            try add(title, section: section, in: transaction)
        }
    }

    /// The row whose key spells `id`, locked for the transaction: its key
    /// and its section's value (`.null` without a section column).
    ///
    /// - Complexity: O(log *n*) through the primary key (O(*n*) for a key
    ///   type compared as text).
    private func storedRow(_ id: String, in transaction: PostgresWriteTransaction) throws -> (key: DatabaseValue, section: DatabaseValue)? {
        let condition: String
        switch keyMatch {
        case .integer:
            guard Int64(id) != nil else { return nil }
            condition = "\(key) = $1"
        case .number:
            guard let number = Double(id), number.isFinite else { return nil }
            condition = "\(key) = $1"
        case .text:
            condition = "\(key) = $1"
        case .asText:
            condition = "\(key)::text = $1"
        }
        let section = schema.sectionColumn.map(ServeSchema.quoted) ?? "NULL"
        let rows = try transaction.rows(
            "SELECT \(key), \(section) FROM \(table) WHERE \(condition) FOR UPDATE", [.text(id)],
            request: "find an item of \(schema.table)"
        )
        return rows.first { ServeSchema.text(of: $0[0]) == id }.map { ($0[0], $0[1]) }
    }

    /// The refusal of an edit whose item is not in the table.
    private static func notFound(_ id: String, request: Int64) -> ServeMessageError {
        ServeMessageError(.notFound, "no item with id \(ServeHub.shown(id)) (it may have been deleted)", request: request)
    }

    /// Renumbers the item's section with the item at `index`, writing only
    /// the rows whose number changes.
    ///
    /// - Complexity: O(*m* log *m*) for the *m* rows of the section.
    private func move(_ id: String, to index: Int, in transaction: PostgresWriteTransaction, request: Int64) throws {
        guard let orderColumn = schema.orderColumn else { return }
        let order = ServeSchema.quoted(orderColumn)
        guard let row = try storedRow(id, in: transaction) else { throw Self.notFound(id, request: request) }
        let direction = schema.sortDescending ? "DESC" : "ASC"
        let condition = schema.sectionColumn.map { " WHERE \(ServeSchema.quoted($0)) IS NOT DISTINCT FROM $1" } ?? ""
        let rows = try transaction.rows(
            "SELECT \(key), \(order) FROM \(table)\(condition) ORDER BY \(order) \(direction), \(key) ASC FOR UPDATE",
            schema.sectionColumn == nil ? [] : [row.section], request: "read the section of an item of \(schema.table)"
        )
        var keys = rows.map { $0[0] }
        guard let from = keys.firstIndex(of: row.key) else { throw Self.notFound(id, request: request) }
        guard index < keys.count else {
            throw ServeMessageError(.outOfRange, "\"to\" \(index) is out of range: the item's section has \(keys.count) items (0 to \(keys.count - 1))", request: request)
        }
        let old = Dictionary(rows.map { ($0[0], $0[1]) }, uniquingKeysWith: { first, _ in first })
        keys.remove(at: from)
        keys.insert(row.key, at: index)
        for (position, rowKey) in keys.enumerated() {
            let value = DatabaseValue.integer(Int64(schema.sortDescending ? keys.count - 1 - position : position))
            guard old[rowKey] != value else { continue }
            try transaction.rows("UPDATE \(table) SET \(order) = $1 WHERE \(key) = $2", [value, rowKey], request: "reorder an item of \(schema.table)")
        }
    }

    /// Inserts an item at the end of its section in the list's order.
    private func add(_ title: String, section: DatabaseValue?, in transaction: PostgresWriteTransaction) throws {
        var columns = [ServeSchema.quoted(schema.titleColumn)]
        var values = ["$1"]
        var arguments: [DatabaseValue] = [.text(title)]
        var condition = ""
        if let sectionColumn = schema.sectionColumn, let section {
            columns.append(ServeSchema.quoted(sectionColumn))
            arguments.append(section)
            values.append("$\(arguments.count)")
            condition = " WHERE \(ServeSchema.quoted(sectionColumn)) IS NOT DISTINCT FROM $\(arguments.count)"
        }
        if let orderColumn = schema.orderColumn {
            let order = ServeSchema.quoted(orderColumn)
            columns.append(order)
            let end = schema.sortDescending ? "min(\(order)) - 1" : "max(\(order)) + 1"
            values.append("(SELECT coalesce(\(end), 0) FROM \(table)\(condition))")
        }
        try transaction.rows(
            "INSERT INTO \(table) (\(columns.joined(separator: ", "))) VALUES (\(values.joined(separator: ", ")))", arguments,
            request: "add an item to \(schema.table)"
        )
    }
}
