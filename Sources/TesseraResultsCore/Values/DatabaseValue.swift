#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A value SQLite stores: one of its five storage classes.
public enum DatabaseValue: Hashable, Sendable, CustomStringConvertible {
    /// SQL NULL.
    case null
    /// A 64-bit signed integer.
    case integer(Int64)
    /// A 64-bit floating-point number.
    case real(Double)
    /// UTF-8 text.
    case text(String)
    /// Bytes.
    case blob([UInt8])

    /// Whether this is SQL NULL.
    public var isNull: Bool { self == .null }

    /// The integer, or `nil` when the value is not an integer.
    public var int64: Int64? {
        if case let .integer(value) = self { return value }
        return nil
    }

    /// The number (an integer converted), or `nil` when the value is not a
    /// number.
    public var double: Double? {
        switch self {
        case let .real(value): return value
        case let .integer(value): return Double(value)
        default: return nil
        }
    }

    /// The text, or `nil` when the value is not text.
    public var string: String? {
        if case let .text(value) = self { return value }
        return nil
    }

    /// The bytes, or `nil` when the value is not a blob.
    public var bytes: [UInt8]? {
        if case let .blob(value) = self { return value }
        return nil
    }

    /// The value as SQL would print it: `NULL`, `42`, `1.5`, `'text'`,
    /// `x'0a0b'`.
    public var description: String {
        switch self {
        case .null: return "NULL"
        case let .integer(value): return String(value)
        case let .real(value): return String(value)
        case let .text(value): return sqlQuoted(value, by: UInt8(ascii: "'"))
        case let .blob(bytes):
            let hex = bytes.map { byte in
                let digits = String(byte, radix: 16)
                return digits.count == 1 ? "0" + digits : digits
            }
            return "x'" + hex.joined() + "'"
        }
    }
}

extension DatabaseValue {
    /// Whether two values are the same value of the same storage class.
    /// Text is compared by its UTF-8 bytes, as SQLite compares it, not by
    /// Swift's Unicode equivalence: a precomposed "é" and an "e" followed by
    /// a combining accent are different values.
    public static func == (lhs: DatabaseValue, rhs: DatabaseValue) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): return true
        case let (.integer(x), .integer(y)): return x == y
        case let (.real(x), .real(y)): return x == y
        case let (.text(x), .text(y)): return Self.sameBytes(x, y)
        case let (.blob(x), .blob(y)): return x == y
        default: return false
        }
    }

    /// Whether two strings have the same UTF-8 bytes: one `memcmp` over
    /// their contiguous storage (a native string's), or a byte walk.
    ///
    /// - Complexity: O(*m*) for *m* bytes.
    private static func sameBytes(_ x: String, _ y: String) -> Bool {
        guard x.utf8.count == y.utf8.count else { return false }
        let compared = x.utf8.withContiguousStorageIfAvailable { a in
            y.utf8.withContiguousStorageIfAvailable { b in
                a.count == 0 || memcmp(a.baseAddress!, b.baseAddress!, a.count) == 0
            }
        }
        if let compared, let compared { return compared }
        return x.utf8.elementsEqual(y.utf8)
    }

    /// Hashes the storage class and the value (text by its UTF-8 bytes).
    ///
    /// Text and blobs feed their length before their bytes, so that where
    /// one value ends is part of what is hashed: without it, lists of
    /// values that split the same bytes differently (`["a", "b…"]` and
    /// `["a…", "b"]`, the class number of the second inside the first)
    /// would feed `Hasher` the same stream, and collide whatever its seed.
    public func hash(into hasher: inout Hasher) {
        switch self {
        case .null:
            hasher.combine(0)
        case let .integer(value):
            hasher.combine(1)
            hasher.combine(value)
        case let .real(value):
            hasher.combine(2)
            hasher.combine(value)
        case let .text(value):
            hasher.combine(3)
            var text = value
            text.withUTF8 { bytes in
                hasher.combine(bytes.count)
                hasher.combine(bytes: UnsafeRawBufferPointer(bytes))
            }
        case let .blob(bytes):
            hasher.combine(4)
            hasher.combine(bytes.count)
            bytes.withUnsafeBytes { hasher.combine(bytes: $0) }
        }
    }
}

extension DatabaseValue: ExpressibleByNilLiteral, ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral, ExpressibleByStringLiteral {
    /// `NULL`.
    public init(nilLiteral: ()) { self = .null }
    /// An integer.
    public init(integerLiteral value: Int64) { self = .integer(value) }
    /// A real.
    public init(floatLiteral value: Double) { self = .real(value) }
    /// Text.
    public init(stringLiteral value: String) { self = .text(value) }
}
