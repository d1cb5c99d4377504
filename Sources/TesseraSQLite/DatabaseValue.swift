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
        case let .text(value): return "'" + value.split(separator: "'", omittingEmptySubsequences: false).joined(separator: "''") + "'"
        case let .blob(bytes):
            let hex = bytes.map { byte in
                let digits = String(byte, radix: 16)
                return digits.count == 1 ? "0" + digits : digits
            }
            return "x'" + hex.joined() + "'"
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
