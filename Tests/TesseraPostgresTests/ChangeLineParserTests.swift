import Foundation
import PostgresNIO
import Testing
import TesseraSQLite
import TesseraTestSupport
import TesseraTestTraits
@testable import TesseraPostgres

/// Lines PostgreSQL 15's test_decoding printed for a few changes, and what
/// they say.
enum ChangeLineSamples {
    static let table = QualifiedName(schema: "public", name: "My T\"x")

    static func column(_ name: String, _ type: String, _ value: DecodedColumn.Value) -> DecodedColumn {
        DecodedColumn(name: name, type: type, value: value)
    }

    static let tail: [DecodedColumn] = [
        column("c", "boolean", .text("true")), column("d", "numeric", .text("1.50")), column("e", "bit", .text("101")),
        column("f", "text[]", .text("{\"a b\",c,NULL}")), column("g", "double precision", .text("NaN")),
        column("h", "bytea", .text("\\x0a")), column("select", "integer", .text("3")),
    ]

    static let lines: [(String, DecodedLine)] = [
        ("BEGIN 738", .begin(xid: 738)),
        ("COMMIT 4294967295", .commit(xid: 4_294_967_295)),
        ("COMMIT 739 (at 2026-11-24 15:00:00.123456+00)", .commit(xid: 739)),
        (
            "table public.\"My T\"\"x\": INSERT: id[integer]:1 \"a b\"[text]:'it''s\nnew' c[boolean]:true d[numeric]:1.50 e[bit]:B'101' f[text[]]:'{\"a b\",c,NULL}' g[double precision]:NaN h[bytea]:'\\x0a' \"select\"[integer]:3",
            .change(DecodedChange(tables: [table], kind: .insert, newTuple: [column("id", "integer", .text("1")), column("a b", "text", .text("it's\nnew"))] + tail))
        ),
        (
            "table public.\"My T\"\"x\": UPDATE: old-key: id[integer]:1 new-tuple: id[integer]:2 \"a b\"[text]:null c[boolean]:true d[numeric]:1.50 e[bit]:B'101' f[text[]]:'{\"a b\",c,NULL}' g[double precision]:NaN h[bytea]:'\\x0a' \"select\"[integer]:3",
            .change(DecodedChange(
                tables: [table], kind: .update, newTuple: [column("id", "integer", .text("2")), column("a b", "text", .null)] + tail,
                oldKey: [column("id", "integer", .text("1"))]
            ))
        ),
        (
            "table public.\"My T\"\"x\": UPDATE: id[integer]:2 \"a b\"[text]:unchanged-toast-datum",
            .change(DecodedChange(tables: [table], kind: .update, newTuple: [column("id", "integer", .text("2")), column("a b", "text", .unchangedToast)]))
        ),
        (
            "table public.\"My T\"\"x\": DELETE: id[integer]:2 c[boolean]:false",
            .change(DecodedChange(tables: [table], kind: .delete, oldKey: [column("id", "integer", .text("2")), column("c", "boolean", .text("false"))]))
        ),
        ("table public.t: DELETE: (no-tuple-data)", .change(DecodedChange(tables: [QualifiedName(schema: "public", name: "t")], kind: .delete))),
        (
            "table public.\"My T\"\"x\", public.plain: TRUNCATE: restart_seqs cascade",
            .change(DecodedChange(tables: [table, QualifiedName(schema: "public", name: "plain")], kind: .truncate, restartSequences: true, cascade: true))
        ),
        ("table public.plain: TRUNCATE: (no-flags)", .change(DecodedChange(tables: [QualifiedName(schema: "public", name: "plain")], kind: .truncate))),
    ]
}

@Suite("test_decoding lines", .tags(.oracle), .cpuBound)
struct ChangeLineParserTests {
    @Test func serverLinesParseAsTheyRead() throws {
        for (line, expected) in ChangeLineSamples.lines {
            #expect(try ChangeLineParser.parse(line) == expected, "\(line)")
        }
    }

    @Test(arguments: [
        ("", 0), ("BEGIN", 0), ("BEGIN x", 6), ("BEGIN 4294967296", 6), ("COMMIT 12 trailing", 9),
        ("table public.t INSERT:", 14), ("table public.t: MERGE:", 15), ("table public.t: INSERT: id[integer:1", 27),
        ("table public.t: INSERT: id[integer]:'open", 36), ("table public.t: INSERT: \"open[integer]:1", 24),
        ("table public.t: UPDATE: old-key: id[integer]:1", 46), ("table public.t: TRUNCATE:", 25),
        ("table public.t, public.u: INSERT: id[integer]:1", 25),
        ("message: transactional: 1 prefix: p, sz: 1 content:x", 0),
    ] as [(String, Int)])
    func malformedLinesNameWhereTheyStop(line: String, offset: Int) {
        #expect(throws: ChangeLineError.self, "\(line)") { try ChangeLineParser.parse(line) }
        do {
            _ = try ChangeLineParser.parse(line)
        } catch {
            #expect(error.offset == offset, "\(line): \(error)")
        }
    }

    /// libFuzzer-style: seeded random mutations of real lines (bytes
    /// flipped, inserted, removed, spans repeated, cut) never crash the
    /// parser; it throws or parses.
    @Test func mutatedLinesThrowOrParse() {
        let corpus = ChangeLineSamples.lines.map { Array($0.0.utf8) }
        let alphabet = Array(" '\"[]:.,-\\\n(){}BE0123456789abnulxtINSERTUPDATEDELETEold-keynew-tupleTRUNCATE".utf8) + [0, 0xC3, 0xA9, 0xFF, 0xF0]
        for seed in UInt64(0)..<20 {
            var random = SplitMix64(seed: seed)
            for _ in 0..<1000 {
                var bytes = corpus.randomElement(using: &random)!
                for _ in 0..<Int.random(in: 1...4, using: &random) {
                    let at = Int.random(in: 0...bytes.count, using: &random)
                    switch Int.random(in: 0..<5, using: &random) {
                    case 0 where at < bytes.count: bytes[at] = alphabet.randomElement(using: &random)!
                    case 1: bytes.insert(alphabet.randomElement(using: &random)!, at: at)
                    case 2 where at < bytes.count: bytes.remove(at: at)
                    case 3:
                        let end = Int.random(in: at...bytes.count, using: &random)
                        bytes.insert(contentsOf: bytes[at..<end], at: Int.random(in: 0...bytes.count, using: &random))
                    default: bytes.removeSubrange(at...)
                    }
                }
                let line = String(decoding: bytes, as: UTF8.self)
                do {
                    _ = try ChangeLineParser.parse(line)
                } catch {
                    #expect(error.offset >= 0 && error.offset <= line.utf8.count, "seed \(seed): \(line.debugDescription) \(error)")
                }
            }
        }
    }
}

/// A table the oracle writes to, its columns and replica identity.
private struct OracleTable {
    var name: QualifiedName
    var sql: String
    var full: Bool
    /// Rows by id: each column's text (`nil` for NULL).
    var rows: [Int: [String?]] = [:]

    static let columns: [(name: String, sql: String, type: String)] = [
        ("id", "id", "integer"), ("Col A", "\"Col A\"", "text"), ("select", "\"select\"", "character varying"),
        ("n", "n", "numeric"), ("arr", "arr", "text[]"), ("flag", "flag", "boolean"), ("f", "f", "double precision"),
        ("ts", "ts", "timestamp with time zone"), ("b", "b", "bytea"), ("mood", "mood", "\"Tessera Sch\"\"ema\".\"we]:ird\""),
        ("big", "big", "text"),
    ]
}

@Suite("test_decoding parser against a server", .tags(.postgres, .oracle), .ownThreads, .serialized, .startsEarly)
struct ChangeLineOracleTests {
    static let schema = "Tessera Sch\"ema"

    @Test(arguments: [UInt64(7), 0xDEC0DE, 20_261_124])
    func everyChangeParsesAsWritten(seed: UInt64) async throws {
        let seed = testSeed(default: seed)
        print("ChangeLineOracleTests: seed \(seed) (set TESSERA_SEED to replay)")
        try await ValuesTestConnection.with { connection in
            try await Self.run(seed: seed, connection: connection)
        }
    }

    static func quoted(_ identifier: String) -> String {
        "\"" + identifier.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    static func run(seed: UInt64, connection: PostgresConnection) async throws {
        var random = SplitMix64(seed: seed)
        // A zone whose offsets have minutes, and seconds before 1941.
        try await connection.run("SET TimeZone = 'Asia/Kolkata'")
        // The slot reads only what is flushed; the test server commits
        // without waiting for the flush unless asked.
        try await connection.run("SET synchronous_commit = on")
        try await connection.run("DROP SCHEMA IF EXISTS \(quoted(schema)) CASCADE")
        try await connection.run("CREATE SCHEMA \(quoted(schema))")
        try await connection.run("CREATE TYPE \(quoted(schema)).\"we]:ird\" AS ENUM ('happy', 'it''s', 'new-tuple: x')")
        var tables = ["Mixed Case", "with space", "quo\"te", "plain_t", "日本"].enumerated().map { index, name in
            OracleTable(name: QualifiedName(schema: schema, name: name), sql: "\(quoted(schema)).\(quoted(name))", full: index % 2 == 1)
        }
        for table in tables {
            try await connection.run("""
                CREATE TABLE \(table.sql) (id int PRIMARY KEY, "Col A" text, "select" varchar(20), n numeric, arr text[],
                flag bool, f float8, ts timestamptz, b bytea, mood \(quoted(schema)).\"we]:ird\", big text)
                """)
            if table.full { try await connection.run("ALTER TABLE \(table.sql) REPLICA IDENTITY FULL") }
        }
        let slot = "tessera_decoding_\(seed)"
        try await connection.run("SELECT pg_create_logical_replication_slot('\(slot)', 'test_decoding', true)")

        var expected: [DecodedChange] = []
        /// What each column text written reads as in binary, by type and text.
        var binaryValues: [String: DatabaseValue] = [:]
        var nextID = 1
        func text(_ pieces: [String]) -> String {
            (0..<Int.random(in: 0...6, using: &random)).map { _ in pieces.randomElement(using: &random)! }.joined()
        }
        func values() -> [DatabaseValue] {
            func maybe(_ value: DatabaseValue) -> DatabaseValue { Int.random(in: 0..<5, using: &random) == 0 ? .null : value }
            let pieces = ["a", "B", " ", "'", "''", "\"", "\\", "\n", "é", "😀", ",", "{", "}", "NULL", "null", ":", "[x]", " new-tuple: "]
            let big = (0..<9000).map { _ in Character(UnicodeScalar(UInt8.random(in: 33...126, using: &random))) }
            return [
                maybe(.text(text(pieces))), maybe(.text(String(text(pieces).prefix(20)))),
                maybe(.text(["0", "1.50", "-12.000", "NaN", "Infinity", "123456789012345678901234567890.5"].randomElement(using: &random)!)),
                maybe(.text(["{}", "{\"a b\",NULL,\"'\"}", "{x}", "{\"\\\\\",\"\\\"\"}"].randomElement(using: &random)!)),
                maybe(.text(Bool.random(using: &random) ? "true" : "false")),
                maybe(.real([0.1, -0.0, .nan, .infinity, 1e300, .leastNonzeroMagnitude].randomElement(using: &random)!)),
                maybe(.text(["2026-11-24 15:00:00.123456+00", "infinity", "0044-03-15 12:00:00+00 BC"].randomElement(using: &random)!)),
                maybe(.blob((0..<Int.random(in: 0...4, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) })),
                maybe(.text(["happy", "it's", "new-tuple: x"].randomElement(using: &random)!)),
                Int.random(in: 0..<3, using: &random) == 0 ? .text(String(big)) : maybe(.text(text(pieces))),
            ]
        }
        func serverRow(_ table: OracleTable, id: Int) async throws -> [String?] {
            let list = OracleTable.columns.map { "\($0.sql)::text" }.joined(separator: ", ")
            let rows = try await connection.values("SELECT \(list) FROM \(table.sql) WHERE id = \(id)")
            let binary = try await connection.values("SELECT \(OracleTable.columns.map(\.sql).joined(separator: ", ")) FROM \(table.sql) WHERE id = \(id)")
            return rows[0].enumerated().map { c, value -> String? in
                guard case let .text(text) = value else { return nil }
                binaryValues[OracleTable.columns[c].type + "\u{0}" + text] = binary[0][c]
                return text
            }
        }
        func columns(_ row: [String?], skippingNulls: Bool, toastFrom old: [String?]? = nil) -> [DecodedColumn] {
            OracleTable.columns.indices.compactMap { c in
                let column = OracleTable.columns[c]
                guard let text = row[c] else {
                    return skippingNulls ? nil : DecodedColumn(name: column.name, type: column.type, value: .null)
                }
                if let old, column.name == "big", old[c] == text, text.utf8.count >= 9000 {
                    return DecodedColumn(name: column.name, type: column.type, value: .unchangedToast)
                }
                return DecodedColumn(name: column.name, type: column.type, value: .text(text))
            }
        }
        let setList = OracleTable.columns.dropFirst().enumerated().map { "\($1.sql) = $\($0 + 1)" }.joined(separator: ", ")
        let valueList = (1...OracleTable.columns.count).map { "$\($0)" }.joined(separator: ", ")

        for _ in 0..<120 {
            let t = Int.random(in: 0..<tables.count, using: &random)
            let table = tables[t]
            let operation = table.rows.isEmpty ? 0 : Int.random(in: 0..<20, using: &random)
            switch operation {
            case 0..<8:
                let id = nextID
                nextID += 1
                try await connection.run("INSERT INTO \(table.sql) VALUES (\(valueList))", [.integer(Int64(id))] + values())
                let row = try await serverRow(table, id: id)
                tables[t].rows[id] = row
                expected.append(DecodedChange(tables: [table.name], kind: .insert, newTuple: columns(row, skippingNulls: false)))
            case 8..<15:
                let id = table.rows.keys.sorted().randomElement(using: &random)!
                let old = table.rows[id]!
                var newID = id
                if Int.random(in: 0..<3, using: &random) == 0 {
                    newID = nextID
                    nextID += 1
                    try await connection.run("UPDATE \(table.sql) SET id = \(newID) WHERE id = \(id)")
                } else {
                    let changeBig = Bool.random(using: &random)
                    let list = changeBig ? setList : setList.components(separatedBy: ", ").dropLast().joined(separator: ", ")
                    let new = values()
                    try await connection.run("UPDATE \(table.sql) SET \(list) WHERE id = \(id)", changeBig ? new : Array(new.dropLast()))
                }
                let row = try await serverRow(table, id: newID)
                tables[t].rows[id] = nil
                tables[t].rows[newID] = row
                let oldKey: [DecodedColumn]? = table.full
                    ? columns(old, skippingNulls: true)
                    : (newID != id ? columns(old, skippingNulls: true).filter { $0.name == "id" } : nil)
                expected.append(DecodedChange(tables: [table.name], kind: .update, newTuple: columns(row, skippingNulls: false, toastFrom: old), oldKey: oldKey))
            case 15..<19:
                let id = table.rows.keys.sorted().randomElement(using: &random)!
                let old = table.rows[id]!
                try await connection.run("DELETE FROM \(table.sql) WHERE id = \(id)")
                tables[t].rows[id] = nil
                let oldKey = table.full ? columns(old, skippingNulls: true) : columns(old, skippingNulls: true).filter { $0.name == "id" }
                expected.append(DecodedChange(tables: [table.name], kind: .delete, oldKey: oldKey))
            default:
                var chosen = [t]
                if Bool.random(using: &random) { chosen.append((t + 1) % tables.count) }
                let restart = Bool.random(using: &random)
                let cascade = Bool.random(using: &random)
                let names = chosen.map { tables[$0].sql }.joined(separator: ", ")
                try await connection.run("TRUNCATE \(names)\(restart ? " RESTART IDENTITY" : "")\(cascade ? " CASCADE" : "")")
                for c in chosen { tables[c].rows = [:] }
                expected.append(DecodedChange(tables: chosen.map { tables[$0].name }, kind: .truncate, restartSequences: restart, cascade: cascade))
            }
        }

        #expect(
            expected.contains { $0.newTuple?.contains { $0.value == .unchangedToast } == true },
            "seed \(seed): no update left a TOASTed value unchanged"
        )
        let lines = try await connection.values(
            "SELECT data FROM pg_logical_slot_get_changes('\(slot)', NULL, NULL, 'include-xids', '1', 'skip-empty-xacts', '1')"
        )
        var changes: [DecodedChange] = []
        var open: UInt32?
        for row in lines {
            guard case let .text(line) = row[0] else { Issue.record("no data, seed \(seed)"); continue }
            do {
                switch try ChangeLineParser.parse(line) {
                case let .begin(xid):
                    #expect(open == nil, "seed \(seed): BEGIN \(xid) inside \(open.map(String.init) ?? "")")
                    open = xid
                case let .commit(xid):
                    #expect(open == xid, "seed \(seed): COMMIT \(xid) closes \(open.map(String.init) ?? "nothing")")
                    open = nil
                case let .change(change):
                    changes.append(change)
                }
            } catch {
                Issue.record("seed \(seed): \(error) in \(line.debugDescription)")
            }
        }
        #expect(changes.count == expected.count, "seed \(seed): \(changes.count) changes, \(expected.count) written")
        for change in changes {
            for column in (change.newTuple ?? []) + (change.oldKey ?? []) {
                guard case let .text(text) = column.value, PostgresColumnKind(typeName: column.type) != .other else { continue }
                let read = PostgresValue.databaseValue(text: text, typeName: column.type)
                let key = column.type + "\u{0}" + (column.type == "character" ? PostgresValue.trimmingTrailingSpaces(text) : text)
                guard let binary = binaryValues[key] else { Issue.record("seed \(seed): \(column) was not written"); continue }
                #expect(identical(read, binary), "seed \(seed): \(column.type) \(text.debugDescription) reads as \(read), in binary \(binary)")
            }
        }
        for (k, (change, want)) in zip(changes, expected).enumerated() where change != want {
            Issue.record("seed \(seed), change \(k): parsed \(change), written \(want)")
            break
        }
        try await connection.run("SELECT pg_drop_replication_slot('\(slot)')")
        try await connection.run("DROP SCHEMA \(quoted(schema)) CASCADE")
    }
}
