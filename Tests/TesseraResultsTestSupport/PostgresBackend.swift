import Foundation
import TesseraDiff
import TesseraPostgresTestSupport
import TesseraTestTraits
import TesseraResults
import TesseraSQLite
@testable import TesseraPostgres
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

extension ResultsStoreFixture {
    /// A PostgreSQL database of its own on the tests' server (see
    /// `TestServer` in TesseraPostgresTestSupport), dropped when the test's
    /// database goes.
    ///
    /// The tests' SQL is SQLite's; the backend runs it on PostgreSQL as
    /// SQLite would (see ``PostgresBackend``). Its controllers learn of
    /// commits through the store's change feed: after each write the
    /// database waits, in bounded rounds, until every controller it made
    /// has taken the commit (see ``TestDatabase``).
    public static let postgres = ResultsStoreFixture(name: "PostgreSQL", followsInBackground: true) {
        try PostgresBackend(url: TestServer.freshDatabase("matrix"))
    }

    /// Whether the PostgreSQL case runs: only when `TESSERA_MATRIX_POSTGRES`
    /// is `1`, with a server as the PostgreSQL tests find one
    /// (`TESSERA_POSTGRES_URL`, or under CI a loud failure without it).
    ///
    /// It is off by default (a plain `swift test` needs no server for
    /// it), and `.ci/run` turns it on. Over PostgreSQL each write waits for
    /// the change feed (``PostgresBackend/waitUntilHandedOver()``), and the
    /// randomized oracles run a tenth of their rounds
    /// (``ResultsStoreFixture/rounds(_:divisor:)``).
    public static let includesPostgres: Bool = {
        let environment = ProcessInfo.processInfo.environment
        guard environment["TESSERA_MATRIX_POSTGRES"] == "1" else { return false }
        return TestServer.source(environment: environment) != .privateCluster
    }()
}

/// A PostgreSQL database through one session of its own (the writer),
/// speaking the tests' SQLite dialect: `?` parameters, `INTEGER` and
/// `REAL` columns, `WITHOUT ROWID`, `INSERT OR REPLACE`, a `SAVEPOINT`
/// outside a transaction (which begins one), and a failed statement that
/// leaves its transaction open (each runs in a savepoint of its own).
final class PostgresBackend: StoreBackend, @unchecked Sendable {
    let url: String
    private let session: PostgresSession
    private let store: PostgresStore
    /// Guards the session and what follows: the tests call from one
    /// thread at a time, but a delegate may write from inside a report.
    private let state = PThreadMutex(State())

    struct State {
        var inTransaction = false
        /// The savepoint that began the transaction (SQLite's `SAVEPOINT`
        /// outside one), whose `RELEASE` commits it.
        var outerSavepoint: String?
        var savepoints = 0
        var removed = false
        /// Each table's columns and primary key, for `INSERT OR REPLACE`.
        var tables: [String: (columns: [String], key: [String])] = [:]
    }

    init(url: String) throws {
        self.url = url
        session = try PostgresSession.connect(PostgresEndpoint(url: url), applicationName: "tessera test writer")
        store = try PostgresStore(url: url)
    }

    /// The controllers' store: one for all of them, as SQLite's
    /// controllers share the test's connection.
    func makeResultsStore() -> any ResultsStore {
        store
    }

    func withConnection<T, E: Error>(isolation: isolated (any Actor)?, _ body: (any TestConnection) throws(E) -> T) throws(E) -> T {
        try body(PostgresTestConnection(backend: self))
    }

    func read<T>(isolation: isolated (any Actor)?, _ body: (any TestConnection) throws -> T) throws -> T {
        try transaction(body)
    }

    func write<T>(isolation: isolated (any Actor)?, _ body: (any TestConnection) throws -> T) throws -> T {
        try transaction(body)
    }

    private func transaction<T>(_ body: (any TestConnection) throws -> T) throws -> T {
        try run("BEGIN")
        let value: T
        do {
            value = try body(PostgresTestConnection(backend: self))
        } catch {
            if state.withLock({ $0.inTransaction }) { _ = try? run("ROLLBACK") }
            throw error
        }
        if state.withLock({ $0.inTransaction }) { try run("COMMIT") }
        return value
    }

    func remove() {
        let first = state.withLock { state -> Bool in
            defer { state.removed = true }
            return !state.removed
        }
        guard first else { return }
        session.close()
        store.close()
        guard let name = URLComponents(string: url)?.path.dropFirst(), let server = try? TestServer.url() else { return }
        _ = try? TestServer.psql(server, "DROP DATABASE IF EXISTS \"\(name)\" WITH (FORCE)")
    }

    func leftOpen() -> String? {
        state.withLock { $0.inTransaction } ? "the writer's transaction is open" : nil
    }

    /// Waits until the store's change feed has made two more passes: every
    /// commit made before this call has then been handed over (see
    /// `PostgresStore.feedPasses`). A limit against a hang only, in rounds:
    /// 60,000 of 2 ms, each asking for a round.
    func waitUntilHandedOver() {
        guard let start = store.feedPasses else { return }
        _ = waitInRounds(60_000, sleepingEvery: .milliseconds(2)) {
            // A streamed slot's feed makes a round only when asked, or
            // when a transaction arrives.
            store.requestFeedRound()
            return (store.feedPasses ?? .max) >= start + 2
        }
    }

    var isInTransaction: Bool { state.withLock { $0.inTransaction } }

    // MARK: Running the tests' SQL

    /// Runs a script: its statements one after another.
    func execute(script: String) throws {
        for statement in Self.statements(of: script) { try run(statement) }
    }

    /// Runs one statement in SQLite's dialect, and returns its rows.
    @discardableResult
    func run(_ sql: String, _ arguments: [DatabaseValue] = []) throws -> [[DatabaseValue]] {
        let trimmed = sql.trimmingCharacters(in: .whitespacesAndNewlines.union(CharacterSet(charactersIn: ";")))
        let words = trimmed.split(whereSeparator: { $0.isWhitespace }).prefix(3).map { $0.uppercased() }
        guard let first = words.first else { return [] }
        switch first {
        case "PRAGMA":
            // SQLite's settings (foreign keys are always on here).
            return []
        case "BEGIN":
            try session.query("BEGIN", request: "begin")
            state.withLock { $0.inTransaction = true; $0.outerSavepoint = nil }
            return []
        case "COMMIT", "END":
            defer { state.withLock { $0.inTransaction = false; $0.outerSavepoint = nil } }
            try session.query("COMMIT", request: "commit")
            return []
        case "ROLLBACK" where !(words.count > 1 && (words[1] == "TO" || words[1] == "TRANSACTION" && words.count > 2 && words[2] == "TO")):
            defer { state.withLock { $0.inTransaction = false; $0.outerSavepoint = nil } }
            try session.query("ROLLBACK", request: "roll back")
            return []
        case "SAVEPOINT":
            let name = words.count > 1 ? words[1] : ""
            if !state.withLock({ $0.inTransaction }) {
                try session.query("BEGIN", request: "begin")
                state.withLock { $0.inTransaction = true; $0.outerSavepoint = name }
            }
            try session.query(trimmed, request: "savepoint")
            return []
        case "RELEASE":
            let name = words.last ?? ""
            if state.withLock({ $0.outerSavepoint == name }) {
                defer { state.withLock { $0.inTransaction = false; $0.outerSavepoint = nil } }
                try session.query("COMMIT", request: "release the outer savepoint")
                return []
            }
            try session.query(trimmed, request: "release")
            return []
        default:
            break
        }
        let statement = try translate(trimmed, arguments.count)
        guard state.withLock({ $0.inTransaction }) else {
            return try session.query(statement, arguments, request: trimmed).rows
        }
        // SQLite leaves the transaction open after a failed statement;
        // PostgreSQL would abort it.
        try session.query("SAVEPOINT tessera_statement", request: "savepoint")
        do {
            let rows = try session.query(statement, arguments, request: trimmed).rows
            try session.query("RELEASE tessera_statement", request: "release")
            return rows
        } catch {
            try session.query("ROLLBACK TO tessera_statement", request: "roll back")
            try session.query("RELEASE tessera_statement", request: "release")
            throw error
        }
    }

    /// Runs `body` in a savepoint of its own.
    func savepoint<T>(_ body: () throws -> T) throws -> T {
        let name = state.withLock { state -> String in
            state.savepoints += 1
            return "tessera_savepoint_\(state.savepoints)"
        }
        try run("SAVEPOINT \(name)")
        let value: T
        do {
            value = try body()
        } catch {
            if state.withLock({ $0.outerSavepoint == name.uppercased() }) {
                _ = try? run("ROLLBACK")
            } else {
                _ = try? session.query("ROLLBACK TO \(name)", request: "roll back to a savepoint")
                _ = try? session.query("RELEASE \(name)", request: "release a savepoint")
            }
            throw error
        }
        try run("RELEASE \(name)")
        return value
    }

    /// `sql` in PostgreSQL's dialect.
    private func translate(_ sql: String, _ argumentCount: Int) throws -> String {
        var text = Self.numberingParameters(sql)
        let upper = text.uppercased()
        if upper.hasPrefix("CREATE TABLE") {
            text = Self.portableTypes(text)
        } else if upper.hasPrefix("INSERT OR REPLACE INTO ") {
            text = try replacing(text)
        } else if upper.hasPrefix("INSERT OR IGNORE INTO ") {
            text = "INSERT INTO " + text.dropFirst("INSERT OR IGNORE INTO ".count) + " ON CONFLICT DO NOTHING"
        }
        return text
    }

    /// `INSERT OR REPLACE INTO t …` as `INSERT INTO t … ON CONFLICT (key)
    /// DO UPDATE SET` every column.
    private func replacing(_ sql: String) throws -> String {
        let rest = sql.dropFirst("INSERT OR REPLACE INTO ".count)
        let table = String(rest.prefix { $0.isLetter || $0.isNumber || $0 == "_" })
        let (columns, key) = try describe(table)
        var insert = "INSERT INTO " + rest
        var returning = ""
        if let range = insert.range(of: " RETURNING ", options: [.caseInsensitive, .backwards]) {
            returning = String(insert[range.lowerBound...])
            insert = String(insert[..<range.lowerBound])
        }
        let others = columns.filter { !key.contains($0) }
        let conflict = others.isEmpty
            ? " ON CONFLICT DO NOTHING"
            : " ON CONFLICT (\(key.joined(separator: ", "))) DO UPDATE SET (\(others.joined(separator: ", "))) = ROW(\(others.map { "EXCLUDED." + $0 }.joined(separator: ", ")))"
        return insert + conflict + returning
    }

    /// A table's columns, in order, and its primary key.
    private func describe(_ table: String) throws -> (columns: [String], key: [String]) {
        if let known = state.withLock({ $0.tables[table.lowercased()] }) { return known }
        let columns = try session.query(
            "SELECT attname::text FROM pg_attribute WHERE attrelid = $1::regclass AND attnum > 0 AND NOT attisdropped ORDER BY attnum",
            [.text(table)], request: "the columns of \(table)"
        ).rows.compactMap { $0.first?.string }
        let key = try session.query(
            "SELECT a.attname::text FROM pg_index i JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = ANY(i.indkey) WHERE i.indrelid = $1::regclass AND i.indisprimary",
            [.text(table)], request: "the key of \(table)"
        ).rows.compactMap { $0.first?.string }
        state.withLock { $0.tables[table.lowercased()] = (columns, key) }
        return (columns, key)
    }

    /// Forgets what it knows of the tables (after a schema change).
    func forgetTables() {
        state.withLock { $0.tables = [:] }
    }

    /// SQLite's `?` and `?NNN` parameters as `$1`, `$2`…, outside quotes.
    static func numberingParameters(_ sql: String) -> String {
        var result = ""
        var next = 1
        var quote: Character?
        var characters = sql.makeIterator()
        var pending: Character? = nil
        while let character = pending ?? characters.next() {
            pending = nil
            if let open = quote {
                result.append(character)
                if character == open { quote = nil }
                continue
            }
            if character == "'" || character == "\"" {
                quote = character
                result.append(character)
            } else if character == "?" {
                var digits = ""
                while let following = characters.next() {
                    if following.isNumber { digits.append(following) } else { pending = following; break }
                }
                if let number = Int(digits) {
                    result += "$\(number)"
                    next = max(next, number + 1)
                } else {
                    result += "$\(next)"
                    next += 1
                }
            } else {
                result.append(character)
            }
        }
        return result
    }

    /// A `CREATE TABLE` with PostgreSQL's types for SQLite's, no
    /// `WITHOUT ROWID`, and `text` for a column declared without a type
    /// (SQLite's columns of any type: here every value in it is text).
    static func portableTypes(_ sql: String) -> String {
        var text = typedColumns(sql)
        for (pattern, replacement) in [
            (#"\bWITHOUT\s+ROWID\b"#, ""),
            (#"\bINTEGER\b"#, "bigint"),
            (#"\bREAL\b"#, "double precision"),
        ] {
            text = text.replacingOccurrences(of: pattern, with: replacement, options: [.regularExpression, .caseInsensitive])
        }
        return text
    }

    /// `sql` with `text` after each column definition that is a name
    /// alone.
    static func typedColumns(_ sql: String) -> String {
        guard let open = sql.firstIndex(of: "("), let close = sql.lastIndex(of: ")"), open < close else { return sql }
        var definitions: [String] = []
        var current = ""
        var depth = 0
        for character in sql[sql.index(after: open)..<close] {
            if character == "(" { depth += 1 }
            if character == ")" { depth -= 1 }
            if character == "," && depth == 0 {
                definitions.append(current)
                current = ""
            } else {
                current.append(character)
            }
        }
        definitions.append(current)
        let typed = definitions.map { definition -> String in
            let words = definition.split(whereSeparator: { $0.isWhitespace })
            return words.count == 1 && words[0].allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" }) ? definition + " text" : definition
        }
        return String(sql[...open]) + typed.joined(separator: ",") + String(sql[close...])
    }

    /// The statements of a script, split at semicolons outside quotes and
    /// outside a trigger's `BEGIN … END`.
    static func statements(of script: String) -> [String] {
        var statements: [String] = []
        var current = ""
        var quote: Character?
        for character in script {
            if let open = quote {
                current.append(character)
                if character == open { quote = nil }
                continue
            }
            if character == "'" || character == "\"" { quote = character }
            if character == ";" {
                let trimmed = current.trimmingCharacters(in: .whitespacesAndNewlines)
                if !trimmed.isEmpty { statements.append(trimmed) }
                current = ""
            } else {
                current.append(character)
            }
        }
        let trimmed = current.trimmingCharacters(in: .whitespacesAndNewlines)
        if !trimmed.isEmpty { statements.append(trimmed) }
        return statements
    }
}

/// The writer of a ``PostgresBackend`` as a ``TestConnection``.
struct PostgresTestConnection: TestConnection {
    let backend: PostgresBackend

    func execute(_ sql: String) throws {
        let statements = PostgresBackend.statements(of: sql)
        for statement in statements {
            try backend.run(statement)
            if statement.uppercased().hasPrefix("ALTER") || statement.uppercased().hasPrefix("DROP") { backend.forgetTables() }
        }
    }

    func execute(_ sql: String, _ arguments: [DatabaseValue]) throws {
        try backend.run(sql, arguments)
    }

    func rows(_ sql: String, _ arguments: [DatabaseValue]) throws -> [[DatabaseValue]] {
        try backend.run(sql, arguments)
    }

    var isInTransaction: Bool { backend.isInTransaction }

    func savepoint<T>(_ body: (any TestConnection) throws -> T) throws -> T {
        try backend.savepoint { try body(self) }
    }

    /// PostgreSQL has no statement left stepped: the statement runs to its
    /// end.
    func stepOnce(_ sql: String, reset: Bool) throws {
        try backend.run(sql)
    }
}
