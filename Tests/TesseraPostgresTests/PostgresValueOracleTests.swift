import Foundation
import PostgresNIO
import Testing
import TesseraSQLite
import TesseraTestSupport
import TesseraTestTraits
@testable import TesseraPostgres

/// One column type the oracle fills, orders and reads back.
struct ValueColumnCase: Sendable, CustomStringConvertible {
    var type: String
    var kind: PostgresColumnKind
    /// Whether `ORDER BY v COLLATE "C"` applies.
    var collatable = false

    var description: String { type }

    static let all: [ValueColumnCase] = [
        ValueColumnCase(type: "int2", kind: .integer), ValueColumnCase(type: "int4", kind: .integer),
        ValueColumnCase(type: "int8", kind: .integer), ValueColumnCase(type: "oid", kind: .integer),
        ValueColumnCase(type: "float4", kind: .real), ValueColumnCase(type: "float8", kind: .real),
        ValueColumnCase(type: "numeric", kind: .numeric), ValueColumnCase(type: "bool", kind: .boolean),
        ValueColumnCase(type: "text", kind: .text, collatable: true),
        ValueColumnCase(type: "varchar", kind: .text, collatable: true),
        ValueColumnCase(type: "character(5)", kind: .text, collatable: true),
        ValueColumnCase(type: "name", kind: .text, collatable: true),
        ValueColumnCase(type: "uuid", kind: .uuid), ValueColumnCase(type: "timestamptz", kind: .timestamp),
        ValueColumnCase(type: "timestamp", kind: .timestamp), ValueColumnCase(type: "date", kind: .date),
        ValueColumnCase(type: "bytea", kind: .bytea),
    ]
}

/// A value to insert: NULL, an untyped text parameter, or an SQL
/// expression; with the value it must read back as, where the generator
/// knows it.
struct GeneratedValue {
    enum Source { case null, parameter(String), expression(String) }
    var source: Source
    var expected: DatabaseValue?
}

/// Seeded random values of one column type, edge values included.
struct ValueGenerator {
    var random: SplitMix64
    var column: ValueColumnCase
    var made: [GeneratedValue] = []

    mutating func next() -> GeneratedValue {
        if !made.isEmpty, Int.random(in: 0..<5, using: &random) == 0 {
            return made.randomElement(using: &random)!
        }
        let value = Int.random(in: 0..<10, using: &random) == 0 ? GeneratedValue(source: .null, expected: .null) : fresh()
        made.append(value)
        return value
    }

    mutating func pick<T>(_ choices: [T]) -> T { choices.randomElement(using: &random)! }

    mutating func chance(_ n: Int) -> Bool { Int.random(in: 0..<n, using: &random) == 0 }

    mutating func integer(_ range: ClosedRange<Int64>, edges: [Int64]) -> GeneratedValue {
        let x = chance(3) ? pick(edges) : Int64.random(in: range, using: &random)
        return GeneratedValue(source: .parameter(String(x)), expected: .integer(x))
    }

    mutating func string(_ pieces: [String], maxCount: Int) -> String {
        (0..<Int.random(in: 0...maxCount, using: &random)).map { _ in pick(pieces) }.joined()
    }

    mutating func fresh() -> GeneratedValue {
        switch column.type {
        case "int2": return integer(-32768...32767, edges: [-32768, 32767, 0, -1, 1])
        case "int4": return integer(-2_147_483_648...2_147_483_647, edges: [-2_147_483_648, 2_147_483_647, 0, -1, 1])
        case "int8": return integer(.min ... .max, edges: [.min, .max, 0, -1, 1, .max - 1, .min + 1])
        case "oid": return integer(0...4_294_967_295, edges: [0, 4_294_967_295, 2_147_483_648, 2_147_483_647])
        case "float4":
            if chance(3) {
                let edge = pick(["NaN", "Infinity", "-Infinity", "-0", "0", "1.4e-45", "-1.4e-45", "3.4028235e38", "-3.4028235e38", "1.1754944e-38"])
                let float = Float(edge.replacingOccurrences(of: "Infinity", with: "inf").replacingOccurrences(of: "NaN", with: "nan"))!
                return GeneratedValue(source: .parameter(edge), expected: .real(Double(float)))
            }
            var float = Float(bitPattern: UInt32(truncatingIfNeeded: random.next()))
            if !float.isFinite || chance(2) { float = Float(Int.random(in: -20...20, using: &random)) / 4 }
            return GeneratedValue(source: .parameter(float.description), expected: .real(Double(float)))
        case "float8":
            if chance(3) {
                let edge = pick(["NaN", "Infinity", "-Infinity", "-0", "0", "4.9e-324", "-4.9e-324", "1.7976931348623157e308", "-1.7976931348623157e308", "2.2250738585072014e-308"])
                let double = Double(edge.replacingOccurrences(of: "Infinity", with: "inf").replacingOccurrences(of: "NaN", with: "nan"))!
                return GeneratedValue(source: .parameter(edge), expected: .real(double))
            }
            var double = Double(bitPattern: random.next())
            if !double.isFinite || chance(2) { double = Double(Int.random(in: -20...20, using: &random)) / 4 }
            return GeneratedValue(source: .parameter(double.description), expected: .real(double))
        case "numeric":
            if chance(3) {
                return GeneratedValue(source: .parameter(pick([
                    "NaN", "Infinity", "-Infinity", "0", "0.000", "-0.00", "1.5", "1.50", "1.500", "-1.5", "-1.50", "1e10", "-2.5e-3",
                    "99999999999999999999999999999999999999.99999", "0.00000000000000000001", "-0.00000000000000000001",
                    "123456789012345678901234567890.123456789012345678901234567890", "10000", "10000.0001", "9999.9999",
                ])), expected: nil)
            }
            let digits = (0...9).map(String.init)
            var text = chance(3) ? "-" : ""
            text += string(digits, maxCount: 24)
            if text.isEmpty || text == "-" { text += "0" }
            if chance(2) { text += "." + string(digits, maxCount: 20) + String(repeating: "0", count: Int.random(in: 0...3, using: &random)) }
            if text.hasSuffix(".") { text += "0" }
            return GeneratedValue(source: .parameter(text), expected: nil)
        case "bool":
            let flag = chance(2)
            return GeneratedValue(source: .parameter(flag ? "true" : "false"), expected: .integer(flag ? 1 : 0))
        case "text", "varchar":
            let text = string(["a", "b", "A", "Z", "z", " ", "'", "\"", "\\", "\n", "\t", "é", "É", "日本", "😀", "0", "~", "\u{7F}", "\u{80}", "ß"], maxCount: 6)
            return GeneratedValue(source: .parameter(text), expected: .text(text))
        case "character(5)":
            let text = string(["a", "b", " ", "\t", "é", "Z"], maxCount: 5)
            return GeneratedValue(source: .parameter(text), expected: .text(PostgresValue.trimmingTrailingSpaces(text)))
        case "name":
            let text = string(["a", "b", "A", " ", "'", "é", "日", "_", "0"], maxCount: 8)
            return GeneratedValue(source: .parameter(text), expected: .text(text))
        case "uuid":
            var bytes = (0..<16).map { _ in UInt8.random(in: 0...255, using: &random) }
            if chance(4) { bytes = Array(repeating: pick([0, 255, 0x7F, 0x80]), count: 16) }
            if chance(3) { bytes[0] = pick([0, 255]) }
            let text = PostgresValue.uuidText(bytes)
            return GeneratedValue(source: .parameter(chance(2) ? text.uppercased() : text), expected: .text(text))
        case "timestamptz", "timestamp":
            let zone = column.type == "timestamptz" ? "+00" : ""
            if chance(4) {
                let (text, expected) = pick([
                    ("infinity", Int64.max), ("-infinity", Int64.min), ("1969-12-31 23:59:59.999999\(zone)", -1),
                    ("1970-01-01 00:00:00\(zone)", 0), ("4714-11-24 00:00:00\(zone) BC", -210_866_803_200_000_000),
                    ("294276-12-31 23:59:59.999999\(zone)", .max - 1), ("0001-01-01 00:00:00\(zone)", -62_135_596_800_000_000),
                    ("0001-12-31 23:59:59.999999\(zone) BC", -62_135_596_800_000_001),
                ])
                return GeneratedValue(source: .parameter(text), expected: .integer(expected))
            }
            let days = chance(2) ? Int64.random(in: -20000...30000, using: &random) : Int64.random(in: -2_440_000...106_000_000, using: &random)
            let micros = chance(3) ? 0 : Int64.random(in: 0..<86_400_000_000, using: &random)
            let base = column.type == "timestamptz" ? "TIMESTAMPTZ '1970-01-01 00:00:00+00'" : "TIMESTAMP '1970-01-01 00:00:00'"
            return GeneratedValue(
                source: .expression("\(base) + INTERVAL '\(days) days' + INTERVAL '\(micros) microseconds'"),
                expected: .integer(days * 86_400_000_000 + micros)
            )
        case "date":
            if chance(4) {
                let (text, expected) = pick([
                    ("infinity", Int64.max), ("-infinity", Int64.min), ("4714-11-24 BC", -2_440_588), ("5874897-12-31", 2_145_042_905),
                    ("0001-01-01", -719_162), ("0001-12-31 BC", -719_163),
                ])
                return GeneratedValue(source: .parameter(text), expected: .integer(expected))
            }
            let days = chance(2) ? Int64.random(in: -20000...30000, using: &random) : Int64.random(in: -2_440_000...2_100_000_000, using: &random)
            return GeneratedValue(source: .expression("DATE '1970-01-01' + \(days)"), expected: .integer(days))
        case "bytea":
            let bytes = (0..<Int.random(in: 0...5, using: &random)).map { _ in pick([0, 1, 0x7F, 0x80, 0xFF, UInt8.random(in: 0...255, using: &random)]) }
            return GeneratedValue(source: .parameter("\\x" + PostgresValue.hexText(bytes)), expected: .blob(bytes))
        default:
            fatalError("no generator for \(column.type)")
        }
    }
}

/// Values equal as the same `DatabaseValue`, NaN equal to NaN and -0 told
/// from 0.
func identical(_ a: DatabaseValue, _ b: DatabaseValue) -> Bool {
    if case let .real(x) = a, case let .real(y) = b {
        return x.isNaN ? y.isNaN : x.bitPattern == y.bitPattern
    }
    return a == b
}

@Suite("PostgreSQL values and ORDER BY, against a server", .tags(.postgres, .oracle), .ownThreads, .serialized, .startsEarly)
struct PostgresValueOracleTests {
    /// Three seeds, or the one `TESSERA_SEED` names to replay a failure.
    static var seeds: [UInt64] {
        ProcessInfo.processInfo.environment["TESSERA_SEED"] != nil ? [testSeed(default: 1)] : [1, 0x5EED_CAFE, 20_261_124]
    }

    @Test(arguments: ValueColumnCase.all)
    func decodingOrderingAndParametersMatchTheServer(column: ValueColumnCase) async throws {
        try await ValuesTestConnection.with { connection in
            try await connection.run("SET TimeZone = 'UTC'")
            for seed in Self.seeds {
                try await Self.check(column, seed: seed, connection: connection)
            }
        }
    }

    @Test func otherTypesGiveTheirTextOrTheirBytes() async throws {
        try await ValuesTestConnection.with { connection in
            try await connection.run("DROP TYPE IF EXISTS pg_values_mood")
            try await connection.run("CREATE TYPE pg_values_mood AS ENUM ('happy')")
            let row = try await connection.values(
                "SELECT '{\"a\": 1}'::json, '{\"a\": 1}'::jsonb, ARRAY[1]::int4[], 'happy'::pg_values_mood, '12:30'::time"
            )[0]
            #expect(row[0] == .text("{\"a\": 1}"))
            #expect(row[1] == .text("{\"a\": 1}"))
            guard case .blob = row[2] else { Issue.record("an int4[] reads as \(row[2])"); return }
            #expect(row[3] == .blob(Array("happy".utf8)))
            guard case .blob = row[4] else { Issue.record("a time reads as \(row[4])"); return }
            try await connection.run("DROP TYPE pg_values_mood")
        }
    }

    static func check(_ column: ValueColumnCase, seed: UInt64, connection: PostgresConnection) async throws {
        let context = "type \(column.type), seed \(seed) (set TESSERA_SEED to replay)"
        var generator = ValueGenerator(random: SplitMix64(seed: seed), column: column)
        try await connection.run("DROP TABLE IF EXISTS pg_values_oracle")
        try await connection.run("CREATE TEMP TABLE pg_values_oracle (i int PRIMARY KEY, v \(column.type))")
        var expected: [Int: DatabaseValue] = [:]
        for i in 0..<60 {
            let value = generator.next()
            switch value.source {
            case .null: try await connection.run("INSERT INTO pg_values_oracle VALUES (\(i), NULL)")
            case let .parameter(text): try await connection.run("INSERT INTO pg_values_oracle VALUES (\(i), $1)", [.text(text)])
            case let .expression(sql): try await connection.run("INSERT INTO pg_values_oracle VALUES (\(i), \(sql))")
            }
            expected[i] = value.expected
        }

        // Decoding: the value expected, and a text value equal to the server's text form.
        var values: [Int: DatabaseValue] = [:]
        for row in try await connection.values("SELECT i, v, v::text FROM pg_values_oracle") {
            guard case let .integer(i) = row[0] else { Issue.record("no id, \(context)"); return }
            values[Int(i)] = row[1]
            if let want = expected[Int(i)] {
                #expect(identical(row[1], want), "row \(i) decodes as \(row[1]), expected \(want); \(context)")
            }
            if case .text = row[1], column.kind != .other {
                #expect(row[1] == row[2], "row \(i) decodes as \(row[1]), its text is \(row[2]); \(context)")
            }
        }

        // Shown text: for the kinds the store holds as integers, what a
        // list shows is the server's own text (in UTC).
        if [PostgresColumnKind.timestamp, .date, .boolean].contains(column.kind) {
            let oid = try await connection.values(
                "SELECT atttypid::int8 FROM pg_attribute WHERE attrelid = 'pg_values_oracle'::regclass AND attname = 'v'"
            )[0][0]
            guard case let .integer(typeOID) = oid else { Issue.record("no type, \(context)"); return }
            for row in try await connection.values("SELECT v, v::text FROM pg_values_oracle WHERE v IS NOT NULL") {
                // Past 294247-01-10 a timestamp is held saturated (its
                // microseconds since 1970 do not fit 64 bits): not shown
                // as the server prints it.
                if column.kind == .timestamp, row[0] == .integer(.max - 1) { continue }
                let shown = PostgresValue.printedText(row[0], typeOID: UInt32(typeOID))
                #expect(shown.map(DatabaseValue.text) == row[1], "\(row[0]) is shown as \(shown ?? "nil"), the server's text is \(row[1]); \(context)")
            }
        }

        // Text forms, in a zone with odd offsets: read as the binary values.
        let typeName = try await connection.values(
            "SELECT format_type(atttypid, NULL) FROM pg_attribute WHERE attrelid = 'pg_values_oracle'::regclass AND attname = 'v'"
        )[0][0]
        guard case let .text(typeName) = typeName else { Issue.record("no type name, \(context)"); return }
        try await connection.run("SET TimeZone = 'Asia/Kolkata'")
        for row in try await connection.values("SELECT i, v::text FROM pg_values_oracle") {
            guard case let .integer(i) = row[0], case let .text(text) = row[1], let value = values[Int(i)] else { continue }
            let read = PostgresValue.databaseValue(text: text, typeName: typeName)
            #expect(identical(read, value), "\(typeName) \(text.debugDescription) reads as \(read), in binary \(value); \(context)")
        }
        try await connection.run("SET TimeZone = 'UTC'")

        // Equality: compare is 0 exactly where the server says a = b.
        let ordering = PostgresSortOrdering(kind: column.kind, ascending: true, nullsFirst: nil)
        for row in try await connection.values("SELECT a.i, b.i, a.v = b.v FROM pg_values_oracle a, pg_values_oracle b") {
            guard case let .integer(i) = row[0], case let .integer(j) = row[1], let a = values[Int(i)], let b = values[Int(j)] else { continue }
            let serverEqual = row[2] == .integer(1) || (a == .null && b == .null)
            #expect((ordering.compare(a, b) == 0) == serverEqual, "\(a) = \(b): server says \(serverEqual); \(context)")
        }

        // Order: the server's ORDER BY equals sorting under compare, for each direction and NULL placement.
        let collate = column.collatable ? " COLLATE \"C\"" : ""
        for ascending in [true, false] {
            for nullsFirst in [nil, true, false] as [Bool?] {
                let nulls = nullsFirst.map { $0 ? " NULLS FIRST" : " NULLS LAST" } ?? ""
                let sql = "SELECT v FROM pg_values_oracle ORDER BY v\(collate) \(ascending ? "ASC" : "DESC")\(nulls)"
                let server = try await connection.values(sql).map { $0[0] }
                let ordering = PostgresSortOrdering(kind: column.kind, ascending: ascending, nullsFirst: nullsFirst)
                let sorted = server.shuffled(using: &generator.random).sorted { ordering.compare($0, $1) < 0 }
                for k in server.indices where ordering.compare(sorted[k], server[k]) != 0 {
                    Issue.record("\(sql): position \(k) is \(server[k]) on the server, \(sorted[k]) in Swift; \(context)")
                    break
                }
            }
        }

        // Parameters: every value read back equal through parameterText.
        for value in Set(values.values) {
            let kindText = PostgresValue.parameterText(value, kind: column.kind)
            let back = try await connection.values("SELECT $1::\(column.type)", [kindText.map(DatabaseValue.text) ?? .null])
            #expect(identical(back[0][0], value), "\(value) sent as \(kindText ?? "NULL") reads back as \(back[0][0]); \(context)")
            guard column.kind != .timestamp, column.kind != .date else { continue }
            var bindings = PostgresBindings()
            bindings.append(value)
            let plain = try await connection.query(PostgresQuery(unsafeSQL: "SELECT $1::\(column.type)", binds: bindings), logger: Logger(label: "test"))
            for try await row in plain {
                let read = PostgresValue.databaseValue(row.first!)
                #expect(identical(read, value), "\(value) sent as \(PostgresValue.parameterText(value) ?? "NULL") reads back as \(read); \(context)")
            }
        }
    }
}

@Suite("PostgreSQL values without a server", .tags(.oracle), .cpuBound)
struct PostgresValueTests {
    /// A binary numeric: digit count, weight, sign, scale, digits.
    static func numeric(weight: Int16, sign: UInt16, scale: UInt16, _ digits: [UInt16]) -> [UInt8] {
        var bytes: [UInt8] = []
        for field in [UInt16(digits.count), UInt16(bitPattern: weight), sign, scale] + digits {
            bytes += [UInt8(field >> 8), UInt8(field & 0xFF)]
        }
        return bytes
    }

    @Test func numericBinaryReadsAsPostgreSQLPrintsIt() {
        #expect(PostgresValue.numericText(Self.numeric(weight: 0, sign: 0, scale: 2, [12, 5000])) == "12.50")
        #expect(PostgresValue.numericText(Self.numeric(weight: 1, sign: 0x4000, scale: 0, [1, 0])) == "-10000")
        #expect(PostgresValue.numericText(Self.numeric(weight: -2, sign: 0, scale: 6, [1200])) == "0.000012")
        #expect(PostgresValue.numericText(Self.numeric(weight: 0, sign: 0, scale: 3, [])) == "0.000")
        #expect(PostgresValue.numericText(Self.numeric(weight: 0, sign: 0xC000, scale: 0, [])) == "NaN")
        #expect(PostgresValue.numericText(Self.numeric(weight: 0, sign: 0xD000, scale: 0, [])) == "Infinity")
        #expect(PostgresValue.numericText(Self.numeric(weight: 0, sign: 0xF000, scale: 0, [])) == "-Infinity")
        #expect(PostgresValue.numericText([0, 1]) == nil)
        #expect(PostgresValue.numericText(Self.numeric(weight: 0, sign: 0, scale: 0, [10_000])) == nil)
    }

    @Test func malformedCellsGiveTheirBytes() {
        let cell = PostgresCell(bytes: ByteBuffer(bytes: [1, 2, 3]), dataType: .int8, format: .binary, columnName: "v", columnIndex: 0)
        #expect(PostgresValue.databaseValue(cell) == .blob([1, 2, 3]))
        let null = PostgresCell(bytes: nil, dataType: .int8, format: .binary, columnName: "v", columnIndex: 0)
        #expect(PostgresValue.databaseValue(null) == .null)
    }

    static func textCell(_ text: String, _ type: PostgresDataType) -> PostgresCell {
        PostgresCell(bytes: ByteBuffer(string: text), dataType: type, format: .text, columnName: "v", columnIndex: 0)
    }

    @Test func textCellsReadAsTheirValues() {
        #expect(PostgresValue.databaseValue(Self.textCell("-12", .int8)) == .integer(-12))
        #expect(PostgresValue.databaseValue(Self.textCell("4294967295", .oid)) == .integer(4_294_967_295))
        #expect(PostgresValue.databaseValue(Self.textCell("-Infinity", .float8)) == .real(-.infinity))
        #expect(PostgresValue.databaseValue(Self.textCell("0.5", .float4)) == .real(0.5))
        #expect(PostgresValue.databaseValue(Self.textCell("t", .bool)) == .integer(1))
        #expect(PostgresValue.databaseValue(Self.textCell("ab  ", .bpchar)) == .text("ab"))
        #expect(PostgresValue.databaseValue(Self.textCell("A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11", .uuid)) == .text("a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11"))
        #expect(PostgresValue.databaseValue(Self.textCell("\\x0aFF", .bytea)) == .blob([0x0A, 0xFF]))
        #expect(PostgresValue.databaseValue(Self.textCell("12.50", .numeric)) == .text("12.50"))
    }

    @Test func textFormsReadAsTheirValues() {
        #expect(PostgresValue.databaseValue(text: "1970-01-02 01:00:00+01", typeName: "timestamp with time zone") == .integer(86_400_000_000))
        #expect(PostgresValue.databaseValue(text: "1969-12-31 23:59:59.5", typeName: "timestamp without time zone") == .integer(-500_000))
        #expect(PostgresValue.databaseValue(text: "-infinity", typeName: "timestamp with time zone") == .integer(.min))
        #expect(PostgresValue.databaseValue(text: "0001-12-31 BC", typeName: "date") == .integer(-719_163))
        #expect(PostgresValue.databaseValue(text: "ab   ", typeName: "character") == .text("ab"))
        #expect(PostgresValue.databaseValue(text: "true", typeName: "boolean") == .integer(1))
        #expect(PostgresValue.databaseValue(text: "0.1", typeName: "real") == .real(Double(Float(0.1))))
        #expect(PostgresValue.databaseValue(text: "1970-13-01 00:00:00", typeName: "timestamp without time zone") == .text("1970-13-01 00:00:00"))
        #expect(PostgresValue.databaseValue(text: "{1,2}", typeName: "integer[]") == .text("{1,2}"))
    }

    @Test func parameterTextIsWhatPostgreSQLReads() {
        #expect(PostgresValue.parameterText(.integer(-12)) == "-12")
        #expect(PostgresValue.parameterText(.real(.nan)) == "NaN")
        #expect(PostgresValue.parameterText(.real(-.infinity)) == "-Infinity")
        #expect(PostgresValue.parameterText(.real(0.1)) == "0.1")
        #expect(PostgresValue.parameterText(.blob([10, 11])) == "\\x0a0b")
        #expect(PostgresValue.parameterText(.null) == nil)
        #expect(PostgresValue.parameterText(.integer(86_400_000_001), kind: .timestamp) == "1970-01-02 00:00:00.000001+00")
        #expect(PostgresValue.parameterText(.integer(-1), kind: .date) == "1969-12-31")
    }

    @Test func numericsCompareByValue() {
        let ordering = PostgresSortOrdering(kind: .numeric, ascending: true, nullsFirst: nil)
        let ascending = ["-Infinity", "-10", "-1.5", "-0.05", "0", "0.05", "0.5", "1", "1.05", "1.5", "10", "Infinity", "NaN"]
        for (i, a) in ascending.enumerated() {
            for (j, b) in ascending.enumerated() {
                #expect(ordering.compare(.text(a), .text(b)).signum() == (i < j ? -1 : (i > j ? 1 : 0)), "\(a) against \(b)")
            }
        }
        #expect(ordering.compare(.text("1.50"), .text("1.5")) == 0)
        #expect(ordering.compare(.text("-0.00"), .text("0")) == 0)
        #expect(ordering.compare(.text("NaN"), .text("NaN")) == 0)
        #expect(ordering.compare(.null, .text("NaN")) > 0)
    }
}
