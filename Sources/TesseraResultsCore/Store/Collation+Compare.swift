
extension Collation {
    /// Compares two values the way SQLite's `ORDER BY … COLLATE <self>`
    /// orders them: NULL first, then integers and reals compared by value
    /// (exactly, also past 2⁵³), then text under the collation, then blobs
    /// byte by byte.
    ///
    /// The text collations are SQLite's built-in ones on UTF-8 text: BINARY
    /// compares the bytes, NOCASE folds ASCII letters only (as SQLite does),
    /// RTRIM ignores trailing spaces.
    ///
    /// ```swift
    /// Collation.nocase.compare(.text("apple"), .text("Banana"))   // < 0
    /// Collation.binary.compare(.text("apple"), .text("Banana"))   // > 0
    /// Collation.binary.compare(.integer(2), .real(1.5))            // > 0
    /// ```
    ///
    /// - Returns: A negative number, zero or a positive number as `a` sorts
    ///   before, with or after `b` in ascending order.
    /// - Complexity: O(*m*) for values of *m* bytes.
    public func compare(_ a: DatabaseValue, _ b: DatabaseValue) -> Int {
        switch (a, b) {
        case let (.integer(x), .integer(y)): return x < y ? -1 : (x > y ? 1 : 0)
        case let (.real(x), .real(y)): return x < y ? -1 : (x > y ? 1 : 0)
        case let (.integer(x), .real(y)): return Self.compare(integer: x, real: y)
        case let (.real(x), .integer(y)): return -Self.compare(integer: y, real: x)
        case let (.text(x), .text(y)): return compareText(x, y)
        case let (.blob(x), .blob(y)):
            return x.withUnsafeBufferPointer { x in y.withUnsafeBufferPointer { y in Self.compareBytes(x, y) } }
        default: return Self.rank(a) - Self.rank(b)
        }
    }

    /// The storage classes' order: NULL, numbers, text, blobs.
    private static func rank(_ value: DatabaseValue) -> Int {
        switch value {
        case .null: return 0
        case .integer, .real: return 1
        case .text: return 2
        case .blob: return 3
        }
    }

    /// An integer against a real, exactly (SQLite's `sqlite3IntFloatCompare`).
    private static func compare(integer i: Int64, real r: Double) -> Int {
        if r < -9_223_372_036_854_775_808.0 { return 1 }
        if r >= 9_223_372_036_854_775_808.0 { return -1 }
        let truncated = Int64(r)
        if i < truncated { return -1 }
        if i > truncated { return 1 }
        let s = Double(i)
        return s < r ? -1 : (s > r ? 1 : 0)
    }

    private func compareText(_ x: String, _ y: String) -> Int {
        var x = x
        var y = y
        return x.withUTF8 { x in
            y.withUTF8 { y in
                switch self {
                case .binary: return Self.compareBytes(x, y)
                case .rtrim: return Self.compareBytes(Self.trimmingTrailingSpaces(x), Self.trimmingTrailingSpaces(y))
                case .nocase: return Self.compareFoldingASCII(x, y)
                }
            }
        }
    }

    /// `memcmp` over the shorter length, then the lengths.
    private static func compareBytes(_ x: UnsafeBufferPointer<UInt8>, _ y: UnsafeBufferPointer<UInt8>) -> Int {
        let n = Swift.min(x.count, y.count)
        for k in 0..<n where x[k] != y[k] {
            return Int(x[k]) - Int(y[k])
        }
        return x.count - y.count
    }

    private static func trimmingTrailingSpaces(_ bytes: UnsafeBufferPointer<UInt8>) -> UnsafeBufferPointer<UInt8> {
        var end = bytes.count
        while end > 0 && bytes[end - 1] == 0x20 { end -= 1 }
        return UnsafeBufferPointer(rebasing: bytes[..<end])
    }

    /// SQLite's NOCASE: ASCII letters folded to lower case, compared up to
    /// the shorter length (stopping at a NUL byte, as SQLite's
    /// `sqlite3StrNICmp` does), then the lengths.
    private static func compareFoldingASCII(_ x: UnsafeBufferPointer<UInt8>, _ y: UnsafeBufferPointer<UInt8>) -> Int {
        func fold(_ byte: UInt8) -> Int { Int(byte >= 0x41 && byte <= 0x5A ? byte + 0x20 : byte) }
        let n = Swift.min(x.count, y.count)
        var k = 0
        while k < n {
            let a = fold(x[k])
            let b = fold(y[k])
            if a != b { return a - b }
            if x[k] == 0 { break }
            k += 1
        }
        return x.count - y.count
    }
}

/// SQLite's `ORDER BY` for one sort column: ``Collation/compare(_:_:)``
/// under the column's collation, reversed for a descending key (so NULL
/// comes first ascending and last descending).
package struct SQLiteSortOrdering: SortOrdering {
    /// The collation text is compared under.
    package var collation: Collation
    /// Whether the key is ascending.
    package var ascending: Bool

    /// The ordering of a key under a collation and a direction.
    package init(collation: Collation, ascending: Bool) {
        self.collation = collation
        self.ascending = ascending
    }

    /// See ``SortOrdering/compare(_:_:)``.
    package func compare(_ a: DatabaseValue, _ b: DatabaseValue) -> Int {
        let order = collation.compare(a, b)
        return ascending ? order : -order
    }

    /// Integers order by value.
    package var integersAscending: Bool { ascending }

    /// Reals order by value, as `<` orders them: SQLite stores no NaN (it
    /// becomes NULL), and its -0.0 and 0.0 are equal, as they are to `<`.
    package var realsAscending: Bool? { ascending }
}
