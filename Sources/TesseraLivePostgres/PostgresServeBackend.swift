import TesseraLiveHub
import TesseraLiveProtocol
import TesseraPostgres
import TesseraResultsCore

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
    /// The type of the key column (`pg_type`'s OID).
    private let keyType: UInt32
    /// The kinds of the key, section and order columns, for binding the
    /// values the list holds back as parameters.
    private let keyKind: PostgresColumnKind
    private let sectionKind: PostgresColumnKind
    /// Where the edits' transactions run: off the hub's actor and off
    /// Swift concurrency's threads (a transaction may wait for a lock),
    /// each on a session of its own, so that one edit waiting for a lock
    /// holds up no other, up to ``concurrentEdits`` at once.
    private let workers = BlockingWorkers(limit: PostgresServeBackend.concurrentEdits)
    /// The most edits whose transactions run at once (each holds a
    /// session of the server's); more wait their turn, in order.
    package static let concurrentEdits = 16
    /// How long an edit waits for the feed to hand its commit over.
    package static let followTimeout: Duration = .seconds(10)
    /// How long an edit's statements wait for a row another transaction
    /// holds before the edit fails (`lock_timeout`), unless the backend
    /// is made with another.
    package static let lockTimeout = "5s"
    /// This backend's `lock_timeout` for edits.
    private let editLockTimeout: String

    /// Connects, and checks the server, the table and the columns.
    ///
    /// - Parameter lockTimeout: How long an edit's statements wait for a
    ///   row or table another transaction holds (PostgreSQL's
    ///   `lock_timeout`, e.g. `"5s"`) before the edit fails.
    /// - Throws: ``TesseraLiveProtocol/ServeError``: a URL that is not a
    ///   PostgreSQL URL, a server that cannot be reached or refuses the
    ///   login, `wal_level` not `logical`, no such table (naming the ones
    ///   there are), a view, no single-column primary key, no such column
    ///   (naming the table's columns).
    package init(configuration: ServeConfiguration, applicationName: String = "tessera serve", lockTimeout: String = PostgresServeBackend.lockTimeout) throws(ServeError) {
        editLockTimeout = lockTimeout
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
            guard let table = postgresName(matching: configuration.table, in: names) else {
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
            // Keyed by the name's bytes (DatabaseValue compares text so).
            let types = Dictionary(columnRows.compactMap { row in row[0].string.map { (DatabaseValue.text($0), UInt32(truncatingIfNeeded: row[1].int64 ?? 0)) } }, uniquingKeysWith: { first, _ in first })
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
                if let exact = postgresName(matching: wanted, in: columns) { return exact }
                throw ServeError("\(role): no such column: \(wanted) in table \(table) of \(source) (its columns: \(columns.joined(separator: ", ")))")
            }
            var checked = ServeSchema(
                table: table, keyColumn: primaryKey[0],
                sectionColumn: try configuration.sectionColumn.map { (wanted) throws(ServeError) in try column(wanted, "section column") },
                sortColumn: try column(configuration.sortColumn, "sort column"), sortDescending: configuration.sortDescending,
                titleColumn: try column(configuration.titleColumn, "title column"),
                orderColumn: try configuration.orderColumn.map { (wanted) throws(ServeError) in try column(wanted, "order column") }
            )
            keyType = types[.text(primaryKey[0])] ?? 0
            keyKind = PostgresColumnKind(typeOID: keyType)
            let sectionType = checked.sectionColumn.map { types[.text($0)] ?? 0 } ?? 0
            sectionKind = checked.sectionColumn == nil ? .other : PostgresColumnKind(typeOID: sectionType)
            checked.sectionName = Self.sectionNaming(typeOID: sectionType)
            schema = checked
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

    /// How a list names sections of a column of type `typeOID`: by the
    /// value's `::text` in UTC where the store holds it as an integer (a
    /// date as `2026-11-30`, a `timestamptz` in UTC as `2026-11-30
    /// 18:00:00+00`, a boolean as `true`); otherwise the value's own text.
    static func sectionNaming(typeOID: UInt32) -> ServeSectionNaming {
        switch PostgresColumnKind(typeOID: typeOID) {
        case .date, .timestamp, .boolean:
            return { value in
                if case .null = value { return ServeSchema.text(of: value) }
                return PostgresValue.printedText(value, typeOID: typeOID) ?? ServeSchema.text(of: value)
            }
        default:
            return ServeSchema.text(of:)
        }
    }

    /// A value the list holds (read from a column of `kind`) as the
    /// parameter the server reads back as the same value: a timestamp,
    /// date or boolean is held as an integer.
    private static func bound(_ value: DatabaseValue, _ kind: PostgresColumnKind) -> DatabaseValue {
        PostgresValue.parameterText(value, kind: kind).map(DatabaseValue.text) ?? .null
    }

    /// The parameter that finds the key an id spells, and the condition
    /// it goes in; `nil` when no key of the column's type spells the id
    /// (an id that is not a number for an integer key, or out of its
    /// range).
    private func keyParameter(for id: String) -> (condition: String, value: DatabaseValue)? {
        switch keyKind {
        case .integer:
            guard let number = Int64(id) else { return nil }
            let fits = switch keyType {
            case 21: Int64(Int16.min)...Int64(Int16.max) ~= number
            case 23: Int64(Int32.min)...Int64(Int32.max) ~= number
            case 26: 0...Int64(UInt32.max) ~= number
            default: true
            }
            return fits ? ("\(key) = $1", .text(id)) : nil
        case .real, .numeric:
            guard let number = Double(id), number.isFinite else { return nil }
            return ("\(key) = $1", .text(id))
        case .timestamp, .date, .boolean:
            // Held as an integer: the id spells that integer.
            guard let number = Int64(id) else { return nil }
            return ("\(key) = $1", Self.bound(.integer(number), keyKind))
        case .text:
            return ("\(key) = $1", .text(id))
        case .uuid:
            // As the server writes a uuid: 8-4-4-4-12 lowercase hex digits.
            let bytes = Array(id.utf8)
            let spelled = bytes.count == 36 && bytes.enumerated().allSatisfy { index, byte in
                [8, 13, 18, 23].contains(index) ? byte == UInt8(ascii: "-") : (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte)
            }
            return spelled ? ("\(key) = $1", .text(id)) : nil
        case .bytea, .other:
            // Compared as text, which reads every row.
            return ("\(key)::text = $1", .text(id))
        }
    }

    package func makeController() throws(ServeError) -> FetchedResultsController<ServeRecord> {
        do {
            return try FetchedResultsController<ServeRecord>(store: store, request: schema.request)
        } catch {
            throw ServeError("\(source): table \(schema.table): \(error)")
        }
    }

    /// Writes `edit` in one transaction on a thread of the backend's; the
    /// commit it returns follows the store's feed.
    ///
    /// - Complexity: The transaction's statements (see each edit), and a
    ///   round or two of the feed.
    package func write(_ edit: ServeEdit, request: Int64) async throws(ServeMessageError) -> ServeCommit {
        let outcome: Result<PostgresFeedMark?, ServeMessageError> = await withCheckedContinuation { continuation in
            workers.run { [self] in
                continuation.resume(returning: transaction(edit, request: request))
            }
        }
        let store = store
        guard let mark = try outcome.get() else {
            return ServeCommit(isHandedOver: { false }, waitUntilHandedOver: { false })
        }
        return ServeCommit(
            isHandedOver: { store.isHandedOver(mark) },
            waitUntilHandedOver: { await store.waitUntilHandedOver(mark, timeout: Self.followTimeout) }
        )
    }

    // MARK: The edits' transactions

    /// SQLSTATEs of a transaction the server aborted to let another go
    /// on (a deadlock with a writer that locks rows in another order, a
    /// serialization failure): the edit runs again, from the start.
    static let retriedStates: Set<String> = ["40P01", "40001"]

    /// Writes `edit` in one transaction (again, up to twice, when the
    /// server aborted it for another's sake); the feed's mark after its
    /// commit.
    private func transaction(_ edit: ServeEdit, request: Int64) -> Result<PostgresFeedMark?, ServeMessageError> {
        do {
            var attempt = 1
            while true {
                do {
                    let (_, mark) = try store.write(request: "write an edit to \(schema.table)", lockTimeout: editLockTimeout) { transaction in
                        try write(edit, in: transaction, request: request)
                    }
                    return .success(mark)
                } catch let error as PostgresStoreError where attempt < 3 && Self.retriedStates.contains(error.code ?? "") {
                    attempt += 1
                }
            }
        } catch let error as ServeMessageError {
            return .failure(error)
        } catch let error as PostgresCommitOutcomeUnknown {
            return .failure(ServeMessageError(.database, "the edit may or may not have been written: \(error)", request: request))
        } catch let error as PostgresStoreError {
            return .failure(ServeMessageError(.database, "the write failed, nothing was written: \(error.message)\(error.code.map { " (\($0))" } ?? "")", request: request))
        } catch {
            return .failure(ServeMessageError(.database, "the write failed, nothing was written: \(error)", request: request))
        }
    }

    private var table: String { ServeSchema.quoted(schema.table) }
    private var key: String { ServeSchema.quoted(schema.keyColumn) }

    private func write(_ edit: ServeEdit, in transaction: PostgresWriteTransaction, request: Int64) throws {
        if case .rename = edit {} else {
            // Moves, adds and deletes of every server of this table, one at
            // a time: each locks rows of a section in one order, and an add
            // reads the section's last position.
            try transaction.rows("SELECT pg_advisory_xact_lock(hashtext($1))", [.text("tessera serve " + table)], request: "wait for the table's other edits")
        }
        switch edit {
        case let .move(id, to):
            try move(id, to: to, in: transaction, request: request)
        case let .rename(id, title):
            guard let row = try storedRow(id, in: transaction) else { throw Self.notFound(id, request: request) }
            try transaction.rows(
                "UPDATE \(table) SET \(ServeSchema.quoted(schema.titleColumn)) = $1 WHERE \(key) = $2", [.text(title), Self.bound(row.key, keyKind)],
                request: "rename an item of \(schema.table)"
            )
        case let .delete(ids):
            // By bytes: ids spelt two ways that Swift's `==` takes as one
            // are two rows.
            var seen = Set<DatabaseValue>()
            var keys: [DatabaseValue] = []
            var missing: [String] = []
            for id in ids where seen.insert(.text(id)).inserted {
                if let row = try storedRow(id, in: transaction) { keys.append(row.key) } else { missing.append(id) }
            }
            if let first = missing.first {
                var error = Self.notFound(first, request: request)
                error.missingIDs = missing
                throw error
            }
            for rowKey in keys {
                try transaction.rows("DELETE FROM \(table) WHERE \(key) = $1", [Self.bound(rowKey, keyKind)], request: "delete an item of \(schema.table)")
            }
        case let .add(title, section):
            try add(title, section: section, in: transaction)
        }
    }

    /// The row whose key spells `id`, locked for the transaction: its key
    /// and its section's value (`.null` without a section column).
    ///
    /// - Complexity: O(log *n*) through the primary key (O(*n*) for a key
    ///   of a type compared as text: uuid, bytea and types Tessera does not
    ///   read).
    private func storedRow(_ id: String, in transaction: PostgresWriteTransaction) throws -> (key: DatabaseValue, section: DatabaseValue)? {
        guard let (condition, value) = keyParameter(for: id) else { return nil }
        let section = schema.sectionColumn.map(ServeSchema.quoted) ?? "NULL"
        let rows = try transaction.rows(
            "SELECT \(key), \(section) FROM \(table) WHERE \(condition) FOR UPDATE", [value],
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
        // Locked first, then ordered: rows a lock was waited for are read as
        // committed, and sorted as they are now.
        let rows = try transaction.rows(
            "SELECT k, o FROM (SELECT \(key) AS k, \(order) AS o FROM \(table)\(condition) FOR UPDATE) AS locked ORDER BY o \(direction), k ASC",
            schema.sectionColumn == nil ? [] : [Self.bound(row.section, sectionKind)], request: "read the section of an item of \(schema.table)"
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
            try transaction.rows("UPDATE \(table) SET \(order) = $1 WHERE \(key) = $2", [value, Self.bound(rowKey, keyKind)], request: "reorder an item of \(schema.table)")
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
            arguments.append(Self.bound(section, sectionKind))
            values.append("$\(arguments.count)")
        }
        if let orderColumn = schema.orderColumn {
            let order = ServeSchema.quoted(orderColumn)
            columns.append(order)
            if let sectionColumn = schema.sectionColumn, let section {
                // A parameter of its own: one used both as the value and
                // in the comparison would need one type for both (a
                // varchar column compares as text).
                arguments.append(Self.bound(section, sectionKind))
                condition = " WHERE \(ServeSchema.quoted(sectionColumn)) IS NOT DISTINCT FROM $\(arguments.count)"
            }
            let end = schema.sortDescending ? "min(\(order)) - 1" : "max(\(order)) + 1"
            values.append("(SELECT coalesce(\(end), 0) FROM \(table)\(condition))")
        }
        try transaction.rows(
            "INSERT INTO \(table) (\(columns.joined(separator: ", "))) VALUES (\(values.joined(separator: ", ")))", arguments,
            request: "add an item to \(schema.table)"
        )
    }
}
