import TesseraResultsCore

extension PostgresColumnKind {
    /// The kind of a column whose type PostgreSQL names so: the name
    /// `format_type` gives without a type modifier, as `test_decoding`
    /// prints it (`integer`, `character varying`, `timestamp with time
    /// zone`); any other name is ``other``.
    package init(typeName: String) {
        switch typeName {
        case "smallint", "integer", "bigint", "oid": self = .integer
        case "real", "double precision": self = .real
        case "numeric": self = .numeric
        case "boolean": self = .boolean
        case "text", "character varying", "character", "name": self = .text
        case "uuid": self = .uuid
        case "timestamp with time zone", "timestamp without time zone": self = .timestamp
        case "date": self = .date
        case "bytea": self = .bytea
        default: self = .other
        }
    }
}

extension PostgresValue {
    /// The value of a column given in PostgreSQL's text form (a
    /// `test_decoding` column's value, a text-format cell), equal to the
    /// one ``databaseValue(_:)`` reads from the same value in binary.
    ///
    /// The text is read as the server prints it with `DateStyle` ISO (its
    /// default) and `bytea_output` hex (its default): an integer's digits,
    /// a real's (`NaN`, `Infinity`, `-Infinity` included), a boolean's
    /// `t`, `f`, `true` or `false`, a uuid in either case, bytea's `\x0a0b`,
    /// a timestamp's `2026-11-24 15:00:00.123456+05:30` (any offset, or
    /// none, ` BC`, `infinity`), a date's `2026-11-24`. A `character`
    /// value loses its trailing spaces. A text that does not read as its
    /// kind (and any ``PostgresColumnKind/other`` value) gives itself as
    /// `.text`.
    ///
    /// ```swift
    /// PostgresValue.databaseValue(text: "1970-01-02 01:00:00+01", typeName: "timestamp with time zone")
    /// // .integer(86_400_000_000)
    /// ```
    ///
    /// - Parameters:
    ///   - text: The value's text form.
    ///   - typeName: The column's type as `format_type` names it.
    /// - Complexity: O(*m*) for a text of *m* bytes.
    package static func databaseValue(text: String, typeName: String) -> DatabaseValue {
        databaseValue(text: text, kind: PostgresColumnKind(typeName: typeName), padded: typeName == "character", single: typeName == "real")
    }

    /// A value's text form read as a value of this kind; `padded` for a
    /// `character` (`bpchar`) value, whose trailing spaces go; `single` for
    /// a `real` (`float4`), read as a `Float` first.
    static func databaseValue(text: String, kind: PostgresColumnKind, padded: Bool, single: Bool) -> DatabaseValue {
        switch kind {
        case .integer:
            return Int64(text).map(DatabaseValue.integer) ?? .text(text)
        case .real:
            switch text {
            case "NaN": return .real(.nan)
            case "Infinity": return .real(.infinity)
            case "-Infinity": return .real(-.infinity)
            default:
                if single { return Float(text).map { .real(Double($0)) } ?? .text(text) }
                return Double(text).map(DatabaseValue.real) ?? .text(text)
            }
        case .boolean:
            switch text {
            case "t", "true": return .integer(1)
            case "f", "false": return .integer(0)
            default: return .text(text)
            }
        case .text:
            return .text(padded ? trimmingTrailingSpaces(text) : text)
        case .uuid:
            return .text(text.lowercased())
        case .bytea:
            return hexBytes(text).map(DatabaseValue.blob) ?? .text(text)
        case .timestamp:
            return timestamp(text).map(DatabaseValue.integer) ?? .text(text)
        case .date:
            return date(text).map(DatabaseValue.integer) ?? .text(text)
        case .numeric, .other:
            return .text(text)
        }
    }

    /// Days since 1970-01-01 of a date in the proleptic Gregorian
    /// calendar, year 0 being 1 BC.
    static func days(year: Int64, month: Int64, day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// A date's text (`2026-11-24`, `0044-03-15 BC`, `infinity`) as days
    /// since 1970-01-01.
    static func date(_ text: String) -> Int64? {
        if text == "infinity" { return .max }
        if text == "-infinity" { return .min }
        var scanner = DateTextScanner(text)
        guard let days = scanner.date() else { return nil }
        let bc = scanner.skip(" BC")
        guard scanner.atEnd else { return nil }
        return bc ? Self.days(year: 1 - days.year, month: days.month, day: days.day) : Self.days(year: days.year, month: days.month, day: days.day)
    }

    /// A timestamp's text (`2026-11-24 15:00:00.123456+05:30`, with no
    /// offset for a `timestamp`, ` BC`, `infinity`) as microseconds since
    /// 1970-01-01 UTC; one past what an `Int64` holds reads as
    /// `Int64.max - 1`, as in binary.
    static func timestamp(_ text: String) -> Int64? {
        if text == "infinity" { return .max }
        if text == "-infinity" { return .min }
        var scanner = DateTextScanner(text)
        guard let date = scanner.date(), scanner.skip(" "),
              let hour = scanner.number(digits: 2), scanner.skip(":"),
              let minute = scanner.number(digits: 2), scanner.skip(":"),
              let second = scanner.number(digits: 2)
        else { return nil }
        var micros: Int64 = 0
        if scanner.skip(".") {
            var count = 0
            while let digit = scanner.digit() {
                guard count < 6 else { return nil }
                micros = micros * 10 + digit
                count += 1
            }
            guard count > 0 else { return nil }
            for _ in count..<6 { micros *= 10 }
        }
        var offset: Int64 = 0
        if let sign = scanner.sign() {
            guard let hours = scanner.number(digits: 2) else { return nil }
            offset = hours * 3600
            if scanner.skip(":") {
                guard let minutes = scanner.number(digits: 2) else { return nil }
                offset += minutes * 60
                if scanner.skip(":") {
                    guard let seconds = scanner.number(digits: 2) else { return nil }
                    offset += seconds
                }
            }
            offset *= sign
        }
        let bc = scanner.skip(" BC")
        guard scanner.atEnd, date.month >= 1, date.month <= 12, date.day >= 1, date.day <= 31, hour < 24, minute < 60, second < 61 else { return nil }
        let days = Self.days(year: bc ? 1 - date.year : date.year, month: date.month, day: date.day)
        let seconds = Int128(days) * 86_400 + Int128(hour * 3600 + minute * 60 + second) - Int128(offset)
        let total = seconds * 1_000_000 + Int128(micros)
        if total >= Int128(Int64.max) - 1 { return .max - 1 }
        if total <= Int128(Int64.min) + 1 { return .min + 1 }
        return Int64(total)
    }
}

/// A cursor over the ASCII of a date or timestamp text.
private struct DateTextScanner {
    let bytes: [UInt8]
    var position = 0

    init(_ text: String) {
        bytes = Array(text.utf8)
    }

    var atEnd: Bool { position == bytes.count }

    mutating func skip(_ literal: String) -> Bool {
        let utf8 = Array(literal.utf8)
        guard bytes.count - position >= utf8.count, bytes[position..<(position + utf8.count)].elementsEqual(utf8) else { return false }
        position += utf8.count
        return true
    }

    mutating func digit() -> Int64? {
        guard !atEnd, bytes[position] >= UInt8(ascii: "0"), bytes[position] <= UInt8(ascii: "9") else { return nil }
        position += 1
        return Int64(bytes[position - 1] - UInt8(ascii: "0"))
    }

    /// Exactly `digits` digits.
    mutating func number(digits: Int) -> Int64? {
        var value: Int64 = 0
        for _ in 0..<digits {
            guard let digit = digit() else { return nil }
            value = value * 10 + digit
        }
        return value
    }

    /// `+` (1) or `-` (-1).
    mutating func sign() -> Int64? {
        if skip("+") { return 1 }
        if skip("-") { return -1 }
        return nil
    }

    /// `YYYY-MM-DD`, the year of four to nine digits.
    mutating func date() -> (year: Int64, month: Int64, day: Int64)? {
        var year: Int64 = 0
        var count = 0
        while let digit = digit() {
            guard count < 9 else { return nil }
            year = year * 10 + digit
            count += 1
        }
        guard count >= 4, skip("-"), let month = number(digits: 2), skip("-"), let day = number(digits: 2),
              month >= 1, month <= 12, day >= 1, day <= 31
        else { return nil }
        return (year, month, day)
    }
}
