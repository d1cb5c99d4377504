import TesseraResultsCore
import PostgresNIO

/// How a column's PostgreSQL type maps to a ``DatabaseValue`` and how its
/// values order.
///
/// Each kind names the value a cell of that type becomes:
///
/// | Kind | PostgreSQL types | Value |
/// |---|---|---|
/// | ``integer`` | `int2`, `int4`, `int8`, `oid` | `.integer` |
/// | ``real`` | `float4`, `float8` | `.real` (NaN kept) |
/// | ``numeric`` | `numeric` | `.text`, as PostgreSQL prints it (`12.50`, `NaN`, `Infinity`, `-Infinity`) |
/// | ``boolean`` | `bool` | `.integer(0)` or `.integer(1)` |
/// | ``text`` | `text`, `varchar`, `bpchar`, `name` | `.text` (a `bpchar` without its trailing spaces, as `::text` gives it) |
/// | ``uuid`` | `uuid` | `.text`, lower case, 8-4-4-4-12 |
/// | ``timestamp`` | `timestamptz`, `timestamp` | `.integer`: microseconds since 1970-01-01 UTC (a `timestamp` read as UTC); `infinity` is `Int64.max`, `-infinity` `Int64.min` |
/// | ``date`` | `date` | `.integer`: days since 1970-01-01; `infinity` is `Int64.max`, `-infinity` `Int64.min` |
/// | ``bytea`` | `bytea` | `.blob` |
/// | ``other`` | any other type | `.text` for `json`, `jsonb`, `xml` and a text-format cell (its text form), else `.blob` of its binary bytes |
package enum PostgresColumnKind: Hashable, Sendable {
    /// `int2`, `int4`, `int8` and `oid`: an `.integer`.
    case integer
    /// `float4` and `float8`: a `.real`, NaN included.
    case real
    /// `numeric`: a `.text` in PostgreSQL's own text form.
    case numeric
    /// `bool`: `.integer(0)` for false, `.integer(1)` for true.
    case boolean
    /// `text`, `varchar`, `bpchar` and `name`: a `.text`.
    case text
    /// `uuid`: a `.text` in lower case, 8-4-4-4-12.
    case uuid
    /// `timestamptz` and `timestamp`: an `.integer` of microseconds since
    /// 1970-01-01 UTC.
    case timestamp
    /// `date`: an `.integer` of days since 1970-01-01.
    case date
    /// `bytea`: a `.blob`.
    case bytea
    /// Any other type: its text form or its bytes.
    case other

    /// The kind of a column of the type with this OID (as a row
    /// description or `pg_type.oid` gives it).
    package init(typeOID: UInt32) {
        switch typeOID {
        case 20, 21, 23, 26: self = .integer
        case 700, 701: self = .real
        case 1700: self = .numeric
        case 16: self = .boolean
        case 25, 1043, 1042, 19: self = .text
        case 2950: self = .uuid
        case 1184, 1114: self = .timestamp
        case 1082: self = .date
        case 17: self = .bytea
        default: self = .other
        }
    }
}

/// Reading PostgreSQL cells into ``DatabaseValue``s and writing values back
/// as bind parameters.
///
/// ```swift
/// let value = PostgresValue.databaseValue(cell)     // .integer(12) for an int4 12
/// PostgresValue.parameterText(.real(.nan))          // "NaN"
/// PostgresValue.parameterText(.blob([10, 11]))      // "\\x0a0b"
/// ```
package enum PostgresValue {
    /// Microseconds from 1970-01-01 to 2000-01-01, PostgreSQL's epoch.
    static let epochMicroseconds: Int64 = 946_684_800_000_000
    /// Days from 1970-01-01 to 2000-01-01.
    static let epochDays: Int64 = 10_957

    /// The value of one cell of a result row, as ``PostgresColumnKind``
    /// maps the cell's type.
    ///
    /// Cells in binary format (what postgres-nio asks for in results) are
    /// decoded from their bytes; cells in text format (a simple query's)
    /// are read from their text as ``databaseValue(text:typeName:)`` reads
    /// it. A cell whose bytes do not have the length or layout its type
    /// has gives `.blob` of its bytes.
    ///
    /// A finite timestamp past 294247-01-10 04:00:54.775806 UTC (where
    /// microseconds since 1970 no longer fit an `Int64`) gives
    /// `Int64.max - 1`, one before `infinity`.
    ///
    /// - Parameter cell: The cell: its `dataType`, `format` and `bytes`
    ///   (`nil` for NULL).
    /// - Returns: `.null` for NULL, else the cell's value.
    /// - Complexity: O(*m*) for a cell of *m* bytes.
    package static func databaseValue(_ cell: PostgresCell) -> DatabaseValue {
        guard let buffer = cell.bytes else { return .null }
        let oid = cell.dataType.rawValue
        let kind = PostgresColumnKind(typeOID: oid)
        if cell.format == .binary, let value = fixedWidthValue(buffer, kind: kind, oid: oid) {
            return value
        }
        let bytes = Array(buffer.readableBytesView)
        if cell.format == .text {
            return textValue(bytes, kind: kind, oid: oid)
        }
        return binaryValue(bytes, kind: kind, oid: oid) ?? .blob(bytes)
    }

    /// A binary integer, real, boolean, timestamp or date read from the
    /// buffer without copying its bytes; `nil` for any other cell.
    private static func fixedWidthValue(_ buffer: ByteBuffer, kind: PostgresColumnKind, oid: UInt32) -> DatabaseValue? {
        let at = buffer.readerIndex
        switch (kind, buffer.readableBytes) {
        case (.integer, 2): return buffer.getInteger(at: at, as: Int16.self).map { .integer(Int64($0)) }
        case (.integer, 4) where oid == 26: return buffer.getInteger(at: at, as: UInt32.self).map { .integer(Int64($0)) }
        case (.integer, 4): return buffer.getInteger(at: at, as: Int32.self).map { .integer(Int64($0)) }
        case (.integer, 8): return buffer.getInteger(at: at, as: Int64.self).map { .integer($0) }
        case (.real, 4): return buffer.getInteger(at: at, as: UInt32.self).map { .real(Double(Float(bitPattern: $0))) }
        case (.real, 8): return buffer.getInteger(at: at, as: UInt64.self).map { .real(Double(bitPattern: $0)) }
        case (.boolean, 1): return buffer.getInteger(at: at, as: UInt8.self).map { .integer($0 == 0 ? 0 : 1) }
        case (.timestamp, 8): return buffer.getInteger(at: at, as: Int64.self).map(timestampValue)
        case (.date, 4): return buffer.getInteger(at: at, as: Int32.self).map(dateValue)
        default: return nil
        }
    }

    /// Microseconds since 2000-01-01 as microseconds since 1970-01-01.
    private static func timestampValue(_ raw: Int64) -> DatabaseValue {
        if raw == .max || raw == .min { return .integer(raw) }
        let (sum, overflow) = raw.addingReportingOverflow(epochMicroseconds)
        return .integer(overflow ? .max - 1 : Swift.min(sum, .max - 1))
    }

    /// Days since 2000-01-01 as days since 1970-01-01.
    private static func dateValue(_ raw: Int32) -> DatabaseValue {
        if raw == .max { return .integer(.max) }
        if raw == .min { return .integer(.min) }
        return .integer(Int64(raw) + epochDays)
    }

    /// A binary cell's value, or `nil` when its bytes are malformed.
    private static func binaryValue(_ bytes: [UInt8], kind: PostgresColumnKind, oid: UInt32) -> DatabaseValue? {
        switch kind {
        case .integer, .real, .boolean, .timestamp, .date:
            // Read by fixedWidthValue when their length is right.
            return nil
        case .numeric:
            return numericText(bytes).map(DatabaseValue.text)
        case .text:
            guard let text = String(validating: bytes, as: UTF8.self) else { return nil }
            return .text(oid == 1042 ? trimmingTrailingSpaces(text) : text)
        case .uuid:
            guard bytes.count == 16 else { return nil }
            return .text(uuidText(bytes))
        case .bytea:
            return .blob(bytes)
        case .other:
            switch oid {
            // json, xml, unknown: their binary form is their text.
            case 114, 142, 705:
                return String(validating: bytes, as: UTF8.self).map(DatabaseValue.text)
            // jsonb: a version byte (1), then the text.
            case 3802:
                guard bytes.first == 1 else { return nil }
                return String(validating: bytes.dropFirst(), as: UTF8.self).map(DatabaseValue.text)
            default:
                return .blob(bytes)
            }
        }
    }

    /// A text cell's value.
    private static func textValue(_ bytes: [UInt8], kind: PostgresColumnKind, oid: UInt32) -> DatabaseValue {
        guard let text = String(validating: bytes, as: UTF8.self) else { return .blob(bytes) }
        return databaseValue(text: text, kind: kind, padded: oid == 1042, single: oid == 700)
    }

    /// The text PostgreSQL reads back as the same value, for a bind
    /// parameter sent in text format with no type (the server infers the
    /// type from where the parameter is used).
    ///
    /// An integer gives its decimal digits (`"12"`), a real the shortest
    /// text that reads back as the same `Double` (`"0.1"`, `"-0.0"`,
    /// `"1e+20"`, `"NaN"`, `"Infinity"`, `"-Infinity"`), a text itself, a
    /// blob bytea's hex form (`"\\x0a0b"`). A timestamp or a date, kept as
    /// an integer, gives its integer: ``parameterText(_:kind:)`` gives the
    /// text a `timestamptz` or `date` parameter reads.
    ///
    /// - Returns: `nil` for `.null` (bind it as NULL).
    /// - Complexity: O(*m*) for a value of *m* bytes.
    package static func parameterText(_ value: DatabaseValue) -> String? {
        switch value {
        case .null: return nil
        case let .integer(integer): return String(integer)
        case let .real(real):
            if real.isNaN { return "NaN" }
            if real == .infinity { return "Infinity" }
            if real == -.infinity { return "-Infinity" }
            return real.description
        case let .text(text): return text
        case let .blob(bytes): return "\\x" + hexText(bytes)
        }
    }

    /// The text PostgreSQL reads back as the same value for a column of
    /// this kind: as ``parameterText(_:)``, except that a ``PostgresColumnKind/timestamp``
    /// integer gives an ISO 8601 timestamp in UTC (`"1970-01-01
    /// 00:00:00.000012+00"`, `"infinity"`), a ``PostgresColumnKind/date``
    /// integer an ISO date (`"1970-01-02"`, `"0044-03-15 BC"`), and a
    /// ``PostgresColumnKind/boolean`` integer `"true"` or `"false"`.
    ///
    /// - Returns: `nil` for `.null`.
    /// - Complexity: O(*m*) for a value of *m* bytes.
    package static func parameterText(_ value: DatabaseValue, kind: PostgresColumnKind) -> String? {
        switch (kind, value) {
        case let (.timestamp, .integer(microseconds)): return timestampText(microseconds)
        case let (.date, .integer(days)): return dateText(days)
        case let (.boolean, .integer(flag)): return flag == 0 ? "false" : "true"
        default: return parameterText(value)
        }
    }

    /// A value's text as a list shows it, for a column of type `typeOID`:
    /// its `::text` in a session whose time zone is UTC. As
    /// ``parameterText(_:kind:)`` gives it, except that a `timestamp` or
    /// `timestamptz` has only the digits of its fraction that are not
    /// trailing zeros (`"2024-01-01 10:00:00+00"`,
    /// `"2024-01-01 10:00:00.5+00"`), and a `timestamp` no offset. (A
    /// timestamp past 294247-01-10, held saturated, shows as that date.)
    ///
    /// - Returns: `nil` for `.null`.
    /// - Complexity: O(*m*) for a value of *m* bytes.
    package static func printedText(_ value: DatabaseValue, typeOID: UInt32) -> String? {
        switch (typeOID, value) {
        case let (1184, .integer(microseconds)): return timestampText(microseconds, printed: true)
        case let (1114, .integer(microseconds)): return timestampText(microseconds, printed: true, offset: false)
        default: return parameterText(value, kind: PostgresColumnKind(typeOID: typeOID))
        }
    }
}

// MARK: - Numeric

extension PostgresValue {
    /// A binary `numeric`'s text, as PostgreSQL's `numeric_out` prints it,
    /// or `nil` when the bytes are malformed.
    ///
    /// The layout: digit count, weight (of the first digit, in powers of
    /// 10000), sign, display scale (digits after the point), each an `Int16`,
    /// then the base-10000 digits.
    static func numericText(_ bytes: [UInt8]) -> String? {
        guard bytes.count >= 8 else { return nil }
        let count = Int(Int16(bitPattern: UInt16(bigEndian: bytes, at: 0)))
        let weight = Int(Int16(bitPattern: UInt16(bigEndian: bytes, at: 2)))
        let sign = UInt16(bigEndian: bytes, at: 4)
        let scale = Int(UInt16(bigEndian: bytes, at: 6))
        switch sign {
        case 0xC000: return "NaN"
        case 0xD000: return "Infinity"
        case 0xF000: return "-Infinity"
        case 0x0000, 0x4000: break
        default: return nil
        }
        guard count >= 0, bytes.count == 8 + 2 * count, scale <= 0x3FFF else { return nil }
        var digits: [Int] = []
        digits.reserveCapacity(count)
        for k in 0..<count {
            let digit = Int(UInt16(bigEndian: bytes, at: 8 + 2 * k))
            guard digit < 10_000 else { return nil }
            digits.append(digit)
        }
        func digit(_ index: Int) -> Int { index >= 0 && index < digits.count ? digits[index] : 0 }
        var text = sign == 0x4000 ? "-" : ""
        if weight < 0 {
            text += "0"
        } else {
            for index in 0...weight {
                let group = String(digit(index))
                if index > 0 { text += String(repeating: "0", count: 4 - group.count) }
                text += group
            }
        }
        if scale > 0 {
            text += "."
            var written = 0
            var index = weight + 1
            while written < scale {
                let group = String(digit(index))
                let padded = String(repeating: "0", count: 4 - group.count) + group
                for character in padded where written < scale {
                    text.append(character)
                    written += 1
                }
                index += 1
            }
        }
        return text
    }
}

// MARK: - Dates and times

extension PostgresValue {
    /// The date with this many days since 1970-01-01, as (year, month,
    /// day) in the proleptic Gregorian calendar, year 0 being 1 BC.
    static func civilDate(days: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    /// A number with at least `width` digits.
    private static func padded(_ number: Int64, _ width: Int) -> String {
        let digits = String(number)
        return String(repeating: "0", count: Swift.max(0, width - digits.count)) + digits
    }

    /// An ISO date PostgreSQL reads, with " BC" for years before 1 AD.
    static func dateText(_ days: Int64) -> String {
        if days == .max { return "infinity" }
        if days == .min { return "-infinity" }
        let date = civilDate(days: days)
        let year = date.year > 0 ? date.year : 1 - date.year
        let text = "\(padded(year, 4))-\(padded(date.month, 2))-\(padded(date.day, 2))"
        return date.year > 0 ? text : text + " BC"
    }

    /// An ISO timestamp in UTC PostgreSQL reads, for microseconds since
    /// 1970-01-01 UTC: with six digits of fraction and the offset `+00`,
    /// or as PostgreSQL prints it (`printed`: the fraction's trailing
    /// zeros dropped, and the offset only when `offset`).
    static func timestampText(_ microseconds: Int64, printed: Bool = false, offset: Bool = true) -> String {
        if microseconds == .max { return "infinity" }
        if microseconds == .min { return "-infinity" }
        let perDay: Int64 = 86_400_000_000
        var days = microseconds / perDay
        var rest = microseconds % perDay
        if rest < 0 {
            days -= 1
            rest += perDay
        }
        let date = civilDate(days: days)
        let year = date.year > 0 ? date.year : 1 - date.year
        let seconds = rest / 1_000_000
        let fraction = rest % 1_000_000
        var text = "\(padded(year, 4))-\(padded(date.month, 2))-\(padded(date.day, 2)) "
        text += "\(padded(seconds / 3600, 2)):\(padded(seconds / 60 % 60, 2)):\(padded(seconds % 60, 2))"
        if !printed {
            text += ".\(padded(fraction, 6))"
        } else if fraction > 0 {
            var digits = padded(fraction, 6)
            while digits.last == "0" { digits.removeLast() }
            text += "." + digits
        }
        if offset { text += "+00" }
        return date.year > 0 ? text : text + " BC"
    }
}

// MARK: - Bytes

extension PostgresValue {
    private static let hexDigits = Array("0123456789abcdef".utf8)

    /// Lower-case hex of bytes.
    static func hexText<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> String {
        var text: [UInt8] = []
        text.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            text.append(hexDigits[Int(byte >> 4)])
            text.append(hexDigits[Int(byte & 0x0F)])
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// A uuid's 16 bytes as 8-4-4-4-12 lower-case hex.
    static func uuidText(_ bytes: [UInt8]) -> String {
        let hex = Array(hexText(bytes).utf8)
        var text: [UInt8] = []
        for (index, digit) in hex.enumerated() {
            if index == 8 || index == 12 || index == 16 || index == 20 { text.append(UInt8(ascii: "-")) }
            text.append(digit)
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// The bytes of bytea's hex text form (`\x0a0b`), or `nil` for any
    /// other text.
    static func hexBytes(_ text: String) -> [UInt8]? {
        let utf8 = Array(text.utf8)
        guard utf8.count >= 2, utf8[0] == UInt8(ascii: "\\"), utf8[1] == UInt8(ascii: "x"), utf8.count % 2 == 0 else { return nil }
        func nibble(_ c: UInt8) -> UInt8? {
            switch c {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): return c - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): return c - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): return c - UInt8(ascii: "A") + 10
            default: return nil
            }
        }
        var bytes: [UInt8] = []
        var index = 2
        while index < utf8.count {
            guard let high = nibble(utf8[index]), let low = nibble(utf8[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
            index += 2
        }
        return bytes
    }

    /// Text without its trailing spaces (a `bpchar`'s padding).
    static func trimmingTrailingSpaces(_ text: String) -> String {
        var utf8 = Array(text.utf8)
        while utf8.last == 0x20 { utf8.removeLast() }
        return String(decoding: utf8, as: UTF8.self)
    }
}

extension FixedWidthInteger {
    /// The big-endian integer at `offset` in `bytes` (which holds it).
    fileprivate init(bigEndian bytes: [UInt8], at offset: Int) {
        var value: Self = 0
        for k in 0..<(Self.bitWidth / 8) {
            value = value << 8 | Self(bytes[offset + k])
        }
        self = value
    }
}

// MARK: - Bind parameters

/// A bind parameter sent as text with no type: the server infers its type
/// from where it is used, and reads the text as that type's input.
///
/// ```swift
/// var bindings = PostgresBindings()
/// bindings.append(PostgresTextParameter("12.50"))
/// ```
package struct PostgresTextParameter: PostgresDynamicTypeEncodable, Sendable {
    /// The text the server reads.
    package var text: String

    /// A parameter of this text.
    package init(_ text: String) {
        self.text = text
    }

    /// No type (OID 0): the server infers it.
    package var psqlType: PostgresDataType { PostgresDataType(0) }

    /// Text format.
    package var psqlFormat: PostgresFormat { .text }

    /// Writes the text's UTF-8 bytes.
    ///
    /// - Complexity: O(*m*) for a text of *m* bytes.
    package func encode<JSONEncoder: PostgresJSONEncoder>(into byteBuffer: inout ByteBuffer, context: PostgresEncodingContext<JSONEncoder>) {
        byteBuffer.writeString(text)
    }
}

extension PostgresBindings {
    /// Appends a value as a text parameter with no type
    /// (``PostgresValue/parameterText(_:)``), or NULL for `.null`.
    ///
    /// - Complexity: O(*m*) for a value of *m* bytes.
    package mutating func append(_ value: DatabaseValue) {
        if let text = PostgresValue.parameterText(value) {
            append(PostgresTextParameter(text))
        } else {
            appendNull()
        }
    }
}
