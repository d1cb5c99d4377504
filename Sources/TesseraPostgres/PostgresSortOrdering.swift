import TesseraResultsCore

/// PostgreSQL's `ORDER BY` for one sort column, in Swift: how the server
/// orders the values ``PostgresValue/databaseValue(_:)`` reads from a column
/// of one ``PostgresColumnKind``.
///
/// - Integers, booleans (false before true), timestamps and dates (their
///   integers, `-infinity` first and `infinity` last) order by value. The
///   finite timestamps past 294247-01-10 UTC, which all read as
///   `Int64.max - 1`, compare equal.
/// - Reals order by value, with -0 equal to 0 and NaN after every number
///   (`Infinity` included) and equal to itself, as PostgreSQL's `float8`
///   comparisons do.
/// - Numerics order by decimal value, exactly, whatever the digits after
///   the point (`1.50` equals `1.5`): `-Infinity`, the numbers,
///   `Infinity`, then `NaN`, equal to itself.
/// - Text orders as `COLLATE "C"` does: by its UTF-8 bytes. It is exact for
///   a column whose collation is `"C"` or `"POSIX"` only.
/// - Uuids (lower-case text) and bytea order by their bytes.
///
/// A descending key reverses all of this; NULL comes last or first as
/// `nullsFirst` says, else where PostgreSQL puts it by default: last in
/// an ascending key, first in a descending one.
///
/// ```swift
/// let ordering = PostgresSortOrdering(kind: .real, ascending: true, nullsFirst: nil)
/// ordering.compare(.real(.nan), .real(.infinity))   // > 0
/// ordering.compare(.null, .real(.nan))              // > 0: NULLS LAST
/// ```
package struct PostgresSortOrdering: SortOrdering {
    /// The kind of the column's values.
    package var kind: PostgresColumnKind
    /// Whether the key is ascending.
    package var ascending: Bool
    /// Whether NULL comes before every other value.
    package var nullsFirst: Bool

    /// The ordering of a key of this kind, direction and NULL placement.
    ///
    /// - Parameters:
    ///   - kind: The kind of the column's values.
    ///   - ascending: Whether the key is ascending (`ASC`).
    ///   - nullsFirst: `true` for `NULLS FIRST`, `false` for `NULLS LAST`,
    ///     `nil` for PostgreSQL's default (`NULLS LAST` ascending,
    ///     `NULLS FIRST` descending).
    package init(kind: PostgresColumnKind, ascending: Bool, nullsFirst: Bool?) {
        self.kind = kind
        self.ascending = ascending
        self.nullsFirst = nullsFirst ?? !ascending
    }

    /// Whether this ordering follows the server's exactly for a column of
    /// this kind: `false` for ``PostgresColumnKind/other``, whose values it
    /// cannot order (a sort key of such a column is not patched).
    package static func supports(_ kind: PostgresColumnKind) -> Bool {
        kind != .other
    }

    /// See ``SortOrdering/compare(_:_:)``.
    ///
    /// - Complexity: O(*m*) for values of *m* bytes.
    package func compare(_ a: DatabaseValue, _ b: DatabaseValue) -> Int {
        switch (a, b) {
        case (.null, .null): return 0
        case (.null, _): return nullsFirst ? -1 : 1
        case (_, .null): return nullsFirst ? 1 : -1
        default:
            let order = Self.compareValues(a, b, kind: kind)
            return ascending ? order : -order
        }
    }

    /// Integers order by value.
    package var integersAscending: Bool { ascending }

    /// `nil`: PostgreSQL puts NaN after every number, which `<` does not,
    /// so reals are compared by ``compare(_:_:)``.
    package var realsAscending: Bool? { nil }

    /// Two values other than NULL, in ascending order.
    static func compareValues(_ a: DatabaseValue, _ b: DatabaseValue, kind: PostgresColumnKind) -> Int {
        switch (a, b) {
        case let (.integer(x), .integer(y)): return x < y ? -1 : (x > y ? 1 : 0)
        case let (.real(x), .real(y)): return compareReals(x, y)
        case var (.text(x), .text(y)):
            if kind == .numeric { return compareNumerics(x, y) }
            return x.withUTF8 { x in y.withUTF8 { y in compareBytes(x, y) } }
        case let (.blob(x), .blob(y)):
            return x.withUnsafeBufferPointer { x in y.withUnsafeBufferPointer { y in compareBytes(x, y) } }
        default: return rank(a) - rank(b)
        }
    }

    /// A stable order between values of different cases, which a column of
    /// one kind does not mix.
    private static func rank(_ value: DatabaseValue) -> Int {
        switch value {
        case .null: return 0
        case .integer: return 1
        case .real: return 2
        case .text: return 3
        case .blob: return 4
        }
    }

    /// `float8`'s order: NaN last and equal to itself, -0 equal to 0.
    static func compareReals(_ x: Double, _ y: Double) -> Int {
        switch (x.isNaN, y.isNaN) {
        case (true, true): return 0
        case (true, false): return 1
        case (false, true): return -1
        case (false, false): return x < y ? -1 : (x > y ? 1 : 0)
        }
    }

    /// `memcmp` over the shorter length, then the lengths.
    static func compareBytes(_ x: UnsafeBufferPointer<UInt8>, _ y: UnsafeBufferPointer<UInt8>) -> Int {
        for k in 0..<Swift.min(x.count, y.count) where x[k] != y[k] {
            return Int(x[k]) - Int(y[k])
        }
        return x.count < y.count ? -1 : (x.count > y.count ? 1 : 0)
    }

    /// A numeric's text split for comparison: its class (-Infinity, a
    /// number, Infinity, NaN), and for a number its sign and digits with
    /// neither leading nor trailing zeros around the point.
    private struct Decimal {
        enum Class: Int { case negativeInfinity = 0, finite = 1, infinity = 2, nan = 3 }
        var `class`: Class
        /// -1, 0 or 1.
        var sign = 0
        /// Digits before the point, without leading zeros.
        var integer: ArraySlice<UInt8> = []
        /// Digits after the point, without trailing zeros.
        var fraction: ArraySlice<UInt8> = []

        init(_ text: String) {
            switch text {
            case "NaN": self.class = .nan; return
            case "Infinity": self.class = .infinity; return
            case "-Infinity": self.class = .negativeInfinity; return
            default: self.class = .finite
            }
            var bytes = ArraySlice(text.utf8)
            var negative = false
            if bytes.first == UInt8(ascii: "-") {
                negative = true
                bytes = bytes.dropFirst()
            } else if bytes.first == UInt8(ascii: "+") {
                bytes = bytes.dropFirst()
            }
            let point = bytes.firstIndex(of: UInt8(ascii: ".")) ?? bytes.endIndex
            var integer = bytes[..<point]
            var fraction = point < bytes.endIndex ? bytes[(point + 1)...] : []
            while integer.first == UInt8(ascii: "0") { integer = integer.dropFirst() }
            while fraction.last == UInt8(ascii: "0") { fraction = fraction.dropLast() }
            self.integer = integer
            self.fraction = fraction
            sign = integer.isEmpty && fraction.isEmpty ? 0 : (negative ? -1 : 1)
        }
    }

    /// Two numerics' texts by value, exactly.
    static func compareNumerics(_ x: String, _ y: String) -> Int {
        let a = Decimal(x)
        let b = Decimal(y)
        if a.class != b.class { return a.class.rawValue < b.class.rawValue ? -1 : 1 }
        guard a.class == .finite else { return 0 }
        if a.sign != b.sign { return a.sign < b.sign ? -1 : 1 }
        if a.sign == 0 { return 0 }
        var magnitude: Int
        if a.integer.count != b.integer.count {
            magnitude = a.integer.count < b.integer.count ? -1 : 1
        } else {
            magnitude = 0
            for (p, q) in zip(a.integer, b.integer) where p != q {
                magnitude = p < q ? -1 : 1
                break
            }
            if magnitude == 0 {
                magnitude = a.fraction.withUnsafeBufferPointer { x in b.fraction.withUnsafeBufferPointer { y in compareBytes(x, y) } }
            }
        }
        return a.sign < 0 ? -magnitude : magnitude
    }
}
