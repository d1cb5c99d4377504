import Foundation
import TesseraDiff
import TesseraResultsCore
import TesseraSQLite
import TesseraRender

/// Snapshots of a table before and after a change script, read in one
/// transaction that is rolled back: the database is left unchanged.
///
/// The run opens the file for reading and writing (it must exist: it is
/// never created), starts a write transaction (`BEGIN IMMEDIATE`, waiting
/// up to ``busyTimeout`` for another writer), reads the table, runs the
/// script statement by statement, reads the table again and rolls back,
/// on success and on every error alike.
///
/// A file SQLite can only read (write-protected, in a folder where its
/// journal cannot be made, or of a newer file format) is copied with
/// `VACUUM INTO` to a temporary file, and the run is made on the copy,
/// which is then deleted: the script's change is rolled back anyway.
///
/// While the script runs, an authorizer refuses what could end the
/// transaction or reach past it: `BEGIN`, `COMMIT`, `END`, `ROLLBACK`
/// (savepoints, `ROLLBACK TO` and `RELEASE` stay allowed: inside the
/// transaction they cannot end it), `ATTACH`, `DETACH`, `load_extension()`
/// and every pragma but those that only read. SQLite itself refuses
/// `VACUUM` inside a transaction. After each statement the run checks that
/// the transaction is still open.
///
/// The snapshots: one item per row, whose id is the row's primary key (its
/// value as text; a key of several columns is the JSON array of their
/// values) or, for a table that declares none, its row id; and whose
/// content is a JSON object of every column's value, so that a changed
/// column is an update. The rows are ordered by the ``sort`` keys, then by
/// the key. With ``section``, rows are grouped into one section per value
/// of that column (its text as the section's id; `NULL` for NULL), which
/// is the first sort key (ascending unless the first ``sort`` key names it
/// with a direction), as `tessera watch` does; without it, the snapshot is
/// one section, named after the table.
package struct BenchDatabase: Sendable {
    /// The SQLite file, which must exist (it is never created).
    package var path: String
    /// The table. A view has no primary key to identify its rows by, and is
    /// refused.
    package var table: String
    /// Sort keys as `tessera watch` takes them: `column`, `column asc` or
    /// `column desc` (see ``WatchRun/sortSpec(_:)``).
    package var sort: [String]
    /// The column the rows are grouped into sections by, if any.
    package var section: String?
    /// The change script: SQL text, one or more statements.
    package var scriptPath: String
    /// How long to wait for another process's lock, in seconds (5 unless
    /// set).
    package var busyTimeout: Double = 5

    /// Creates a run.
    /// Whether to stop: checked while the script and the reads run (and
    /// while waiting for another process's lock); when it returns true,
    /// the statement under way stops, the transaction is rolled back, and
    /// ``snapshots()`` throws an error with status 130. The command sets
    /// it from Ctrl-C and SIGTERM.
    package var shouldStop: @Sendable () -> Bool = { false }

    package init(path: String, table: String, sort: [String], section: String?, scriptPath: String) {
        self.path = path
        self.table = table
        self.sort = sort
        self.section = section
        self.scriptPath = scriptPath
    }

    /// Reads the table before and after the script, then rolls the script
    /// back.
    ///
    /// - Returns: The two snapshots, labelled with the table, the database
    ///   and the script.
    /// - Throws: ``CommandError``, one line: a malformed `--sort` value
    ///   (status 64); a missing or unreadable script, or one with no
    ///   statement (1); a missing file, a file that is not a database, a
    ///   missing table, a view, an unknown sort or section column, or rows
    ///   that share a key (2); a database another process keeps locked
    ///   past ``busyTimeout`` (3); a statement of the script that SQLite
    ///   refuses or that is forbidden, named by its number, line and
    ///   text, with the reason (1). The database is unchanged in every
    ///   case.
    /// - Complexity: O(*n* log *n*) for *n* rows (SQLite's sort), plus the
    ///   script's own work.
    package func snapshots() throws(CommandError) -> BenchInput {
        var sortKeys: [(column: String, ascending: Bool)] = []
        for spec in sort { sortKeys.append(try WatchRun.sortSpec(spec)) }
        guard FileManager.default.fileExists(atPath: path) else {
            throw CommandError("\(path): no such database file", exitCode: CommandError.databaseExitCode)
        }
        guard FileManager.default.isReadableFile(atPath: path) else {
            throw CommandError("\(path): cannot be read: permission denied", exitCode: CommandError.databaseExitCode)
        }
        let script = try InputFile.text(at: scriptPath)
        let scriptBytes = Array(script.utf8)
        if let nul = scriptBytes.firstIndex(of: 0) {
            let line = scriptBytes[..<nul].reduce(1) { $1 == UInt8(ascii: "\n") ? $0 + 1 : $0 }
            throw CommandError("\(scriptPath): line \(line) holds a NUL character (byte \(nul)): a script is SQL text", exitCode: CommandError.inputExitCode)
        }
        guard Self.statementStart(in: scriptBytes, from: 0) != nil else {
            throw CommandError("\(scriptPath): holds no SQL statement (only white space and comments)", exitCode: CommandError.inputExitCode)
        }
        let connection = try open(path)
        if let input = try measure(connection, sortKeys: sortKeys, script: script) { return input }
        // SQLite can only read the file: the run is made on a copy.
        let copy = FileManager.default.temporaryDirectory.appendingPathComponent("tessera-bench-\(UUID().uuidString).sqlite").path
        defer {
            for suffix in ["", "-journal", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: copy + suffix) }
        }
        do {
            try connection.withDatabase { db throws(SQLiteError) in try db.execute("VACUUM INTO ?", [.text(copy)]) }
        } catch {
            if DatabaseErrors.isLocked(error) { throw locked() }
            throw CommandError("\(path): SQLite can only read it, and it cannot be copied to run the script on: \(error.message)", exitCode: CommandError.databaseExitCode)
        }
        guard let input = try measure(try open(copy), sortKeys: sortKeys, script: script) else {
            throw CommandError("\(path): SQLite can only read it, and neither can it write a copy of it in \(FileManager.default.temporaryDirectory.path)", exitCode: CommandError.databaseExitCode)
        }
        return input
    }

    /// Opens `file` for reading and writing, waiting up to ``busyTimeout``
    /// for another process's lock.
    private func open(_ file: String) throws(CommandError) -> Connection {
        do {
            return try Connection(path: file, mode: .readWrite, busyTimeout: busyTimeout, journalModeWAL: false)
        } catch {
            if DatabaseErrors.isLocked(error) { throw locked() }
            throw DatabaseErrors.opening(path, error)
        }
    }

    /// The snapshots before and after the script, on `connection`; `nil`
    /// when SQLite can only read the database (nothing ran then).
    private func measure(_ connection: Connection, sortKeys: [(column: String, ascending: Bool)], script: String) throws(CommandError) -> BenchInput? {
        try connection.withDatabase { db throws(CommandError) in
            // The transaction is rolled back here, outside the interrupted
            // part, so that a stop request cannot stop the rollback too.
            defer { if db.isInTransaction { try? db.execute("ROLLBACK") } }
            do throws(CommandError) {
                return try db.interrupting(when: shouldStop) { db throws(CommandError) in
                    try measure(db, sortKeys: sortKeys, script: script)
                }
            } catch {
                guard shouldStop() else { throw error }
                throw interruptedError()
            }
        }
    }

    /// The error of a run stopped by ``shouldStop``: the script's change
    /// is rolled back (status 130).
    package func interruptedError() -> CommandError {
        CommandError("interrupted: the change of \(scriptPath) is rolled back, and \(path) is as it was", exitCode: CommandError.interruptedExitCode)
    }

    // MARK: The transaction

    /// Begins, reads, runs the script, reads again, and rolls back; `nil`
    /// when SQLite can only read the database.
    private func measure(_ db: Database, sortKeys: [(column: String, ascending: Bool)], script: String) throws(CommandError) -> BenchInput? {
        do {
            try db.execute("BEGIN IMMEDIATE")
            // Writes the user version it reads (rolled back with the rest):
            // what a read-only file or folder refuses.
            let version = try db.rows("PRAGMA main.user_version").first?.first?.int64 ?? 0
            try db.execute("PRAGMA main.user_version = \(version)")
        } catch {
            if Self.isReadOnly(error) { return nil }
            throw databaseError(error)
        }
        // The caller rolls back (closing the connection would too).
        let old = try read(db, try shape(db, sortKeys: sortKeys, afterScript: false))
        try run(script, in: db)
        let new = try read(db, try shape(db, sortKeys: sortKeys, afterScript: true))
        return BenchInput(label: "\(table) in \(path), before and after \(scriptPath)", old: old, new: new)
    }

    /// Whether SQLite refused to write because the database, its folder or
    /// its file format allow reading only.
    static func isReadOnly(_ error: SQLiteError) -> Bool {
        // SQLITE_READONLY (8) and its extended codes; SQLITE_CANTOPEN (14)
        // for a journal it cannot make beside the file.
        [8, 14].contains(error.code)
    }

    /// Runs the script's statements one at a time under the authorizer,
    /// checking after each that the transaction is still open.
    ///
    /// - Throws: ``CommandError`` naming the statement that failed, was
    ///   forbidden, or ended the transaction.
    private func run(_ script: String, in db: Database) throws(CommandError) {
        // Why the authorizer refused the statement being prepared.
        var refusal: String?
        db.authorizer = { request in
            guard let reason = Self.refusal(of: request) else { return true }
            refusal = refusal ?? reason
            return false
        }
        defer { db.authorizer = nil }
        let bytes = Array(script.utf8)
        var number = 0
        var ended: Range<Int>?
        do {
            try db.executeStatements(of: script) { place in
                number += 1
                refusal = nil
                guard db.isInTransaction else {
                    ended = place
                    return false
                }
                return true
            }
        } catch {
            let statement = Self.describe(statement: number + 1, at: error.bytes, in: bytes)
            if let refusal {
                throw CommandError("\(scriptPath): \(statement) is forbidden: \(refusal)", exitCode: CommandError.inputExitCode)
            }
            if DatabaseErrors.isLocked(error.error) { throw locked() }
            throw CommandError("\(scriptPath): \(statement) failed: \(error.error.message)", exitCode: CommandError.inputExitCode)
        }
        if let ended {
            let statement = Self.describe(statement: number, at: ended, in: bytes)
            throw CommandError("\(scriptPath): \(statement) ended the transaction the script runs in", exitCode: CommandError.inputExitCode)
        }
    }

    /// Why the script may not do what the authorizer is asked about, or
    /// `nil` when it may.
    static func refusal(of request: Database.Authorization) -> String? {
        let kept = "the script runs inside a transaction that is rolled back, so that the database stays unchanged"
        switch request.action {
        case 22: // SQLITE_TRANSACTION
            let operation = request.first ?? "it"
            if operation == "BEGIN" { return "BEGIN: \(kept) (use SAVEPOINT)" }
            return "\(operation) would end the transaction: \(kept) (use SAVEPOINT, ROLLBACK TO and RELEASE)"
        case 24: // SQLITE_ATTACH
            return "ATTACH would reach another database: \(kept)"
        case 25: // SQLITE_DETACH
            return "DETACH: \(kept), with no other database"
        case 19: // SQLITE_PRAGMA
            let name = (request.first ?? "").lowercased()
            if readingPragmas.contains(name) || (request.second == nil && queryingPragmas.contains(name)) { return nil }
            return "PRAGMA \(request.first ?? "")\(request.second.map { " = \($0)" } ?? ""): only pragmas that read are allowed (\(kept))"
        case 31 where request.second?.lowercased() == "load_extension": // SQLITE_FUNCTION
            return "load_extension(): \(kept)"
        default:
            return nil
        }
    }

    /// Pragmas that only read, whatever their argument (a table, an index,
    /// a limit).
    static let readingPragmas: Set<String> = [
        "table_info", "table_xinfo", "table_list", "index_info", "index_xinfo", "index_list",
        "foreign_key_list", "foreign_key_check", "integrity_check", "quick_check",
        "collation_list", "database_list", "function_list", "module_list", "pragma_list", "compile_options",
        "data_version", "page_count", "freelist_count",
    ]

    /// Pragmas that read without an argument and set something with one.
    static let queryingPragmas: Set<String> = [
        "schema_version", "user_version", "application_id", "encoding", "journal_mode", "page_size",
        "auto_vacuum", "foreign_keys", "recursive_triggers", "synchronous", "cache_size", "locking_mode",
    ]

    // MARK: The table

    /// The query that reads the table, and how to take its rows apart.
    struct Shape {
        /// `SELECT <key columns>, [<section column>,] * FROM <table> ORDER BY …`.
        var query: String
        /// How many key columns come first.
        var keyCount: Int
        /// Whether the section column comes after them.
        var hasSection: Bool
    }

    /// Checks the table and the columns, picks the key, and makes the
    /// query; after the script, the messages say so.
    ///
    /// - Throws: ``CommandError`` (status 2) for a missing table, a view,
    ///   a table whose row id every name of it is a column of, or an
    ///   unknown sort or section column.
    private func shape(_ db: Database, sortKeys: [(column: String, ascending: Bool)], afterScript: Bool) throws(CommandError) -> Shape {
        let when = afterScript ? "after \(scriptPath), " : ""
        func fail(_ message: String) -> CommandError {
            CommandError(when + message, exitCode: CommandError.databaseExitCode)
        }
        let found = try rows(db, "SELECT type, name FROM sqlite_master WHERE type IN ('table', 'view') AND name = ? COLLATE NOCASE", [.text(table)])
        guard let kind = found.first?.first?.string else {
            let names = try rows(db, "SELECT name FROM sqlite_master WHERE type IN ('table', 'view') AND name NOT LIKE 'sqlite_%' ORDER BY name").compactMap { $0.first?.string }
            throw fail("no such table: \(table) in \(path) (it has: \(names.isEmpty ? "no tables" : names.joined(separator: ", ")))")
        }
        let info = try rows(db, "SELECT name, pk FROM pragma_table_info(?, 'main')", [.text(table)])
        let columns = info.compactMap { $0.first?.string }
        let primaryKey = info.filter { ($0[1].int64 ?? 0) > 0 }.sorted { ($0[1].int64 ?? 0) < ($1[1].int64 ?? 0) }.compactMap { $0[0].string }
        // Views and WITHOUT ROWID tables have none.
        let hasRowID = kind == "table" && (try? db.prepare("SELECT rowid FROM main.\(Self.quoted(table))")) != nil
        let keys: [String]
        if !primaryKey.isEmpty {
            keys = primaryKey.map(Self.quoted)
        } else if kind == "view" {
            throw fail("--table \(table): a view has no primary key to identify its rows by; bench the table it reads")
        } else if let rowID = Self.rowIDNames.first(where: { name in !columns.contains { sqliteNamesEqual($0, name) } }) {
            keys = [rowID]
        } else {
            throw fail("--table \(table): it has no primary key, and columns named rowid, _rowid_ and oid hide its row id")
        }
        func column(_ name: String, _ option: String) throws(CommandError) -> String {
            if let match = columns.first(where: { sqliteNamesEqual($0, name) }) { return Self.quoted(match) }
            if hasRowID, WatchRun.rowIDNames.contains(name.lowercased()) { return name }
            throw fail("\(option): no such column: \(name) in table \(table) (its columns: \(columns.joined(separator: ", ")))")
        }
        var order: [(expression: String, ascending: Bool)] = []
        for key in sortKeys { order.append((try column(key.column, "--sort"), key.ascending)) }
        var sectionExpression: String?
        if let section {
            let expression = try column(section, "--section")
            sectionExpression = expression
            if order.first?.expression != expression { order.insert((expression, true), at: 0) }
        }
        let orderTerms = order.map { "\($0.expression) \($0.ascending ? "ASC" : "DESC")" } + keys
        let selected = keys + (sectionExpression.map { [$0] } ?? []) + ["*"]
        return Shape(
            query: "SELECT \(selected.joined(separator: ", ")) FROM main.\(Self.quoted(table)) ORDER BY \(orderTerms.joined(separator: ", "))",
            keyCount: keys.count, hasSection: sectionExpression != nil
        )
    }

    /// Reads the table into a snapshot.
    ///
    /// - Throws: ``CommandError`` (status 2) when two rows read as the same
    ///   id, or two section values as the same section id; SQLite's errors.
    /// - Complexity: O(*n* · *c*) for *n* rows of *c* columns, plus SQLite's
    ///   sort.
    private func read(_ db: Database, _ shape: Shape) throws(CommandError) -> SnapshotDocument.DocumentSnapshot {
        do {
            let statement = try db.prepare(shape.query)
            let first = shape.keyCount + (shape.hasSection ? 1 : 0)
            let names = (first..<statement.columnCount).map(statement.columnName)
            var sectionIndex: [DatabaseValue: Int] = [:]
            var sectionValues: [String: DatabaseValue] = [:]
            var sections: [DocumentSection] = []
            var items: [[DocumentItem]] = []
            var ids = Set<String>()
            if !shape.hasSection {
                sections.append(DocumentSection(id: table))
                items.append([])
            }
            while try statement.step() {
                let id = shape.keyCount == 1
                    ? Self.idText(statement.value(at: 0))
                    : JSON.array((0..<shape.keyCount).map { Self.json(statement.value(at: $0)) }).compactText
                guard ids.insert(id).inserted else {
                    throw CommandError(
                        "\(path): table \(table) has two rows with the key \(id) (a key of NULL, or values of different types that read the same)",
                        exitCode: CommandError.databaseExitCode
                    )
                }
                var content: [(key: String, value: JSON)] = []
                content.reserveCapacity(names.count)
                for (offset, name) in names.enumerated() { content.append((name, Self.json(statement.value(at: first + offset)))) }
                var s = 0
                if shape.hasSection {
                    let value = statement.value(at: shape.keyCount)
                    if let index = sectionIndex[value] {
                        s = index
                    } else {
                        let sectionID = Self.idText(value)
                        if let other = sectionValues[sectionID] {
                            throw CommandError(
                                "\(path): --section \(section ?? ""): the values \(other) and \(value) of table \(table) read as the same section id \(sectionID)",
                                exitCode: CommandError.databaseExitCode
                            )
                        }
                        sectionValues[sectionID] = value
                        s = sections.count
                        sectionIndex[value] = s
                        sections.append(DocumentSection(id: sectionID))
                        items.append([])
                    }
                }
                items[s].append(DocumentItem(id: id, content: .object(content)))
            }
            var snapshot = SnapshotDocument.DocumentSnapshot()
            for (section, sectionItems) in zip(sections, items) { snapshot.appendSection(section, items: sectionItems) }
            return snapshot
        } catch let error as CommandError {
            throw error
        } catch let error as SQLiteError {
            throw databaseError(error)
        } catch {
            throw CommandError("\(path): \(error)", exitCode: CommandError.databaseExitCode)
        }
    }

    /// A value as an id: an integer's digits, a real's shortest text, the
    /// text itself, a blob as `x'…'` in hexadecimal, `NULL`.
    static func idText(_ value: DatabaseValue) -> String {
        switch value {
        case .null: "NULL"
        case let .integer(integer): String(integer)
        case let .real(real): "\(real)"
        case let .text(text): text
        case let .blob(bytes): "x'" + hex(bytes) + "'"
        }
    }

    /// A value as JSON: numbers, strings and null as themselves; a blob as
    /// `{"blob": "<hexadecimal>"}` and an infinite real as
    /// `{"real": "Infinity"}` (or `-Infinity`), which no other value reads
    /// as.
    static func json(_ value: DatabaseValue) -> JSON {
        switch value {
        case .null: .null
        case let .integer(integer): .number(String(integer))
        case let .real(real): real.isFinite ? .number("\(real)") : .object([("real", .string(real < 0 ? "-Infinity" : "Infinity"))])
        case let .text(text): .string(text)
        case let .blob(bytes): .object([("blob", .string(hex(bytes)))])
        }
    }

    /// The bytes in upper-case hexadecimal, two digits each.
    private static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789ABCDEF")
        var text = ""
        text.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0xF)])
        }
        return text
    }

    // MARK: Naming statements

    /// `statement 3 (line 7: "UPDATE photo SET …")`: the statement's number,
    /// the line where its text starts, and the text on one line, without
    /// its `;`, shortened to 60 characters.
    static func describe(statement number: Int, at place: Range<Int>, in bytes: [UInt8]) -> String {
        let start = statementStart(in: bytes, from: place.lowerBound) ?? place.lowerBound
        let line = 1 + bytes[..<start].reduce(0) { $0 + ($1 == UInt8(ascii: "\n") ? 1 : 0) }
        // To its first `;`: the end of the statement, unless SQLite could
        // not read it (or the `;` is inside a literal: the text is cut short).
        var end = max(start, min(place.upperBound, bytes.count))
        end = bytes[start..<end].firstIndex(of: UInt8(ascii: ";")) ?? end
        let words = String(decoding: bytes[start..<end], as: UTF8.self).split(whereSeparator: \.isWhitespace)
        var text = words.joined(separator: " ")
        if text.count > 60 { text = String(text.prefix(59)) + "…" }
        return "statement \(number) (line \(line): \"\(text)\")"
    }

    /// The byte where the next statement starts at or after `offset`,
    /// past white space, comments and empty statements (`;`); `nil` when
    /// only those are left.
    static func statementStart(in bytes: [UInt8], from offset: Int) -> Int? {
        var i = offset
        while i < bytes.count {
            switch bytes[i] {
            case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\n"), UInt8(ascii: "\r"), 0x0C, UInt8(ascii: ";"):
                i += 1
            case UInt8(ascii: "-") where i + 1 < bytes.count && bytes[i + 1] == UInt8(ascii: "-"):
                while i < bytes.count && bytes[i] != UInt8(ascii: "\n") { i += 1 }
            case UInt8(ascii: "/") where i + 1 < bytes.count && bytes[i + 1] == UInt8(ascii: "*"):
                i += 2
                while i < bytes.count && !(bytes[i] == UInt8(ascii: "*") && i + 1 < bytes.count && bytes[i + 1] == UInt8(ascii: "/")) { i += 1 }
                i = min(i + 2, bytes.count)
            default:
                return i
            }
        }
        return nil
    }

    // MARK: Errors

    /// Every row of a query, with SQLite's errors as command errors.
    private func rows(_ db: Database, _ sql: String, _ arguments: [DatabaseValue] = []) throws(CommandError) -> [[DatabaseValue]] {
        do {
            return try db.rows(sql, arguments)
        } catch {
            throw databaseError(error)
        }
    }

    /// An SQLite error of the database (status 2), or a lock (status 3).
    private func databaseError(_ error: SQLiteError) -> CommandError {
        if DatabaseErrors.isLocked(error) { return locked() }
        return CommandError("\(path): \(error.message)", exitCode: CommandError.databaseExitCode)
    }

    /// Another process kept the database locked past the busy timeout.
    private func locked() -> CommandError {
        CommandError(
            "\(path): the database is locked by another process (waited \(Format.number(busyTimeout)) s; try again when it commits)",
            exitCode: CommandError.lockedExitCode
        )
    }

    /// The names of a table's row id, in the order they are tried when a
    /// column hides one.
    static let rowIDNames = ["rowid", "_rowid_", "oid"]

    /// An identifier in double quotes, its own double quotes doubled.
    private static func quoted(_ identifier: String) -> String {
        quotedIdentifier(identifier)
    }
}
