import TesseraResults
import TesseraSQLite

/// `Collation.compare` against SQLite's own ORDER BY on arbitrary values:
/// NULL, integers at the extremes, reals (signed zeros, infinities, NaN,
/// values next to 2⁶³), text with NULs and every byte, blobs.
///
/// Oracle: values stored in a table and read back, sorted in Swift with
/// `Collation.compare` (ties by row id), come out in the order
/// `ORDER BY x COLLATE … , id` gives.
public final class CollationFuzzCheck {
    let connection: Connection

    public init() throws {
        connection = try Connection(path: ":memory:")
        try connection.write { db in try db.execute("CREATE TABLE v (id INTEGER PRIMARY KEY, x)") }
    }

    static let reals: [Double] = [0, -0.0, 1, -1, 0.5, .infinity, -.infinity, .nan, 9.223372036854775807e18, -9.223372036854775808e18, 9.223372036854774784e18, 1e308, -1e-308, .leastNonzeroMagnitude, 2.5, 3]
    static let integers: [Int64] = [0, 1, -1, 2, 3, .max, .min, .max - 1, .min + 1, 1 << 53, (1 << 53) + 1, -(1 << 53) - 1, 9_223_372_036_854_774_784]

    public func problems(_ input: inout FuzzInput) -> [String] {
        var values: [DatabaseValue] = []
        for _ in 0..<input.int(in: 1...12) {
            switch input.int(in: 0...5) {
            case 0: values.append(.null)
            case 1: values.append(.integer(Self.integers[input.int(in: 0...Self.integers.count - 1)]))
            case 2: values.append(.integer(Int64(input.int(in: -4...4))))
            case 3: values.append(.real(Self.reals[input.int(in: 0...Self.reals.count - 1)]))
            case 4: values.append(.text(String(decoding: input.bytes(upTo: 6).map { $0 % 4 == 0 ? $0 / 4 + 32 : $0 }, as: UTF8.self)))
            default: values.append(.blob(input.bytes(upTo: 4)))
            }
        }
        let collation = [Collation.binary, .nocase, .rtrim][input.int(in: 0...2)]
        let ascending = input.bool()
        do {
            return try connection.write { db in
                try db.execute("DELETE FROM v")
                for (id, value) in values.enumerated() {
                    try db.execute("INSERT INTO v VALUES (?, ?)", [.integer(Int64(id)), value])
                }
                let stored = try db.rows("SELECT id, x FROM v ORDER BY id").map { (id: $0[0].int64 ?? -1, value: $0[1]) }
                let expected = try db.rows("SELECT id FROM v ORDER BY x COLLATE \(collation.rawValue) \(ascending ? "ASC" : "DESC"), id").map { $0[0].int64 ?? -1 }
                let sorted = stored.sorted { a, b in
                    let order = collation.compare(a.value, b.value) * (ascending ? 1 : -1)
                    return order != 0 ? order < 0 : a.id < b.id
                }
                if sorted.map(\.id) != expected {
                    return ["\(stored.map(\.value)) under \(collation) \(ascending ? "ASC" : "DESC"): SQLite orders the rows \(expected), Collation.compare \(sorted.map(\.id))"]
                }
                return []
            }
        } catch {
            return ["\(values): SQLite refused the values: \(error)"]
        }
    }
}
