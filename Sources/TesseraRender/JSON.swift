#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A JSON value, parsed with positions so that errors can say where, and
/// written back in one canonical form (object keys sorted, no spaces) so
/// that two equal values always print the same.
package enum JSON: Hashable, Sendable {
    /// `null`.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// A number, with the text it was written as (so `1` stays `1`).
    case number(String)
    /// A string.
    case string(String)
    /// An array.
    case array([JSON])
    /// An object; keys keep the order they were written in.
    case object([(key: String, value: JSON)])

    /// Makes a number from an integer.
    package static func int(_ value: Int) -> JSON { .number(String(value)) }

    /// Makes a number from a double, written the shortest way that reads
    /// back the same (`12`, `12.5`).
    package static func double(_ value: Double) -> JSON {
        if value.isFinite, value == value.rounded(), abs(value) < 1e15 { return .number(String(Int64(value))) }
        return .number(value.isFinite ? "\(value)" : "null")
    }

    /// The value of a key of an object, or `nil`.
    package subscript(key: String) -> JSON? {
        guard case let .object(members) = self else { return nil }
        return members.first(where: { $0.key == key })?.value
    }

    /// The canonical text: object keys sorted, no insignificant spaces.
    package var canonicalText: String {
        var text = ""
        write(to: &text, sortKeys: true)
        return text
    }

    /// The text with keys in their order and no insignificant spaces.
    package var compactText: String {
        var text = ""
        write(to: &text, sortKeys: false)
        return text
    }

    /// A short description of the kind of value, for error messages.
    package var kindName: String {
        switch self {
        case .null: "null"
        case .bool: "a boolean"
        case .number: "a number"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }

    private func write(to text: inout String, sortKeys: Bool) {
        switch self {
        case .null: text += "null"
        case let .bool(value): text += value ? "true" : "false"
        case let .number(value): text += value
        case let .string(value): JSON.writeString(value, to: &text)
        case let .array(values):
            text += "["
            for (i, value) in values.enumerated() {
                if i > 0 { text += "," }
                value.write(to: &text, sortKeys: sortKeys)
            }
            text += "]"
        case let .object(members):
            text += "{"
            let ordered = sortKeys ? members.sorted { $0.key < $1.key } : members
            for (i, member) in ordered.enumerated() {
                if i > 0 { text += "," }
                JSON.writeString(member.key, to: &text)
                text += ":"
                member.value.write(to: &text, sortKeys: sortKeys)
            }
            text += "}"
        }
    }

    package static func writeString(_ value: String, to text: inout String) {
        text += "\""
        // Most strings need no escape: they go in whole.
        if !value.utf8.contains(where: { $0 < 0x20 || $0 == 0x22 || $0 == 0x5C || $0 == 0x3C }) {
            text += value
            text += "\""
            return
        }
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": text += "\\\""
            case "\\": text += "\\\\"
            case "\n": text += "\\n"
            case "\r": text += "\\r"
            case "\t": text += "\\t"
            case "<": text += "\\u003c"   // safe inside an HTML <script>
            default:
                if scalar.value < 0x20 {
                    let hex = String(scalar.value, radix: 16)
                    text += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    text.unicodeScalars.append(scalar)
                }
            }
        }
        text += "\""
    }

    /// Whether two values are equal, object key order aside.
    package static func == (lhs: JSON, rhs: JSON) -> Bool { lhs.canonicalText == rhs.canonicalText }
    /// Hashes the canonical text.
    package func hash(into hasher: inout Hasher) { hasher.combine(canonicalText) }
}

/// JSON text that does not parse, with the line and column (both from 1)
/// where the problem is.
package struct JSONSyntaxError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The line, from 1.
    package var line: Int
    /// The column, from 1, in characters.
    package var column: Int
    /// What is wrong there.
    package var reason: String

    /// `line 3, column 7: expected ',' or '}' after an object member`.
    package var description: String { "line \(line), column \(column): \(reason)" }
}

extension JSON {
    /// Parses JSON text (RFC 8259).
    ///
    /// - Throws: ``JSONSyntaxError`` with the line and column of the first
    ///   problem.
    /// - Complexity: O(*n*) in the length of the text.
    package static func parse(_ text: String) throws(JSONSyntaxError) -> JSON {
        var parser = JSONParser(Array(text.utf8))
        return try parser.parseDocument()
    }
}

private struct JSONParser {
    let bytes: [UInt8]
    var offset = 0
    var depth = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    func error(_ reason: String, at position: Int? = nil) -> JSONSyntaxError {
        let end = min(position ?? offset, bytes.count)
        var line = 1
        var lineStart = 0
        for i in 0..<end where bytes[i] == UInt8(ascii: "\n") {
            line += 1
            lineStart = i + 1
        }
        let column = (String(decoding: bytes[lineStart..<end], as: UTF8.self)).count + 1
        return JSONSyntaxError(line: line, column: column, reason: reason)
    }

    var current: UInt8? { offset < bytes.count ? bytes[offset] : nil }

    func describeCurrent() -> String {
        guard offset < bytes.count else { return "the end of the text" }
        let end = bytes[offset...].firstIndex(where: { $0 < 0x80 ? true : false }).map { max($0, offset + 1) } ?? bytes.count
        let character = String(decoding: bytes[offset..<min(end, offset + 4)], as: UTF8.self).first.map(String.init) ?? "?"
        return "'\(character)'"
    }

    mutating func skipSpace() {
        while let byte = current, byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 { offset += 1 }
    }

    mutating func parseDocument() throws(JSONSyntaxError) -> JSON {
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { offset = 3 }
        skipSpace()
        guard current != nil else { throw error("the text is empty: expected a JSON value") }
        let value = try parseValue()
        skipSpace()
        guard current == nil else { throw error("unexpected \(describeCurrent()) after the JSON value") }
        return value
    }

    mutating func parseValue() throws(JSONSyntaxError) -> JSON {
        skipSpace()
        guard let byte = current else { throw error("unexpected end of the text: expected a value") }
        switch byte {
        case UInt8(ascii: "{"): return try parseObject()
        case UInt8(ascii: "["): return try parseArray()
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"): try literal("true"); return .bool(true)
        case UInt8(ascii: "f"): try literal("false"); return .bool(false)
        case UInt8(ascii: "n"): try literal("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try parseNumber()
        default: throw error("unexpected \(describeCurrent()): expected a value")
        }
    }

    mutating func literal(_ word: String) throws(JSONSyntaxError) {
        let expected = Array(word.utf8)
        guard bytes.count - offset >= expected.count, Array(bytes[offset..<offset + expected.count]) == expected else {
            throw error("unexpected \(describeCurrent()): expected a value")
        }
        offset += expected.count
    }

    mutating func enter() throws(JSONSyntaxError) {
        depth += 1
        if depth > 512 { throw error("nested more than 512 levels deep") }
    }

    mutating func parseObject() throws(JSONSyntaxError) -> JSON {
        try enter()
        defer { depth -= 1 }
        offset += 1
        var members: [(key: String, value: JSON)] = []
        skipSpace()
        if current == UInt8(ascii: "}") { offset += 1; return .object(members) }
        while true {
            skipSpace()
            guard current == UInt8(ascii: "\"") else {
                throw error("unexpected \(describeCurrent()): expected a string key in an object")
            }
            let key = try parseString()
            skipSpace()
            guard current == UInt8(ascii: ":") else { throw error("unexpected \(describeCurrent()): expected ':' after an object key") }
            offset += 1
            members.append((key, try parseValue()))
            skipSpace()
            switch current {
            case UInt8(ascii: ","): offset += 1
            case UInt8(ascii: "}"): offset += 1; return .object(members)
            default: throw error("unexpected \(describeCurrent()): expected ',' or '}' in an object")
            }
        }
    }

    mutating func parseArray() throws(JSONSyntaxError) -> JSON {
        try enter()
        defer { depth -= 1 }
        offset += 1
        var values: [JSON] = []
        skipSpace()
        if current == UInt8(ascii: "]") { offset += 1; return .array(values) }
        while true {
            values.append(try parseValue())
            skipSpace()
            switch current {
            case UInt8(ascii: ","): offset += 1
            case UInt8(ascii: "]"): offset += 1; return .array(values)
            default: throw error("unexpected \(describeCurrent()): expected ',' or ']' in an array")
            }
        }
    }

    mutating func parseString() throws(JSONSyntaxError) -> String {
        let start = offset
        offset += 1
        var scalars = String.UnicodeScalarView()
        var run = offset
        func flush(_ parser: JSONParser, to end: Int, into scalars: inout String.UnicodeScalarView) {
            scalars.append(contentsOf: String(decoding: parser.bytes[run..<end], as: UTF8.self).unicodeScalars)
        }
        while true {
            guard let byte = current else { throw error("unterminated string", at: start) }
            if byte == UInt8(ascii: "\"") {
                flush(self, to: offset, into: &scalars)
                offset += 1
                return String(scalars)
            }
            if byte < 0x20 { throw error("a control character inside a string: escape it") }
            if byte == UInt8(ascii: "\\") {
                flush(self, to: offset, into: &scalars)
                offset += 1
                guard let escape = current else { throw error("unterminated string", at: start) }
                offset += 1
                switch escape {
                case UInt8(ascii: "\""): scalars.append("\"")
                case UInt8(ascii: "\\"): scalars.append("\\")
                case UInt8(ascii: "/"): scalars.append("/")
                case UInt8(ascii: "b"): scalars.append("\u{8}")
                case UInt8(ascii: "f"): scalars.append("\u{C}")
                case UInt8(ascii: "n"): scalars.append("\n")
                case UInt8(ascii: "r"): scalars.append("\r")
                case UInt8(ascii: "t"): scalars.append("\t")
                case UInt8(ascii: "u"):
                    let code = try hex4()
                    // A high surrogate pairs with a low one escaped right
                    // after it; any other escape after it is read on its
                    // own, and a surrogate left alone becomes U+FFFD.
                    if (0xD800..<0xDC00).contains(code), current == UInt8(ascii: "\\"),
                       offset + 1 < bytes.count, bytes[offset + 1] == UInt8(ascii: "u") {
                        let next = offset
                        offset += 2
                        let low = try hex4()
                        if (0xDC00..<0xE000).contains(low) {
                            scalars.append(Unicode.Scalar(0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)) ?? "\u{FFFD}")
                        } else {
                            offset = next
                            scalars.append("\u{FFFD}")
                        }
                    } else {
                        scalars.append(Unicode.Scalar(code) ?? "\u{FFFD}")
                    }
                default:
                    offset -= 1
                    throw error("invalid escape \\\(describeCurrent().dropFirst().dropLast()) in a string")
                }
                run = offset
                continue
            }
            offset += 1
        }
    }

    mutating func hex4() throws(JSONSyntaxError) -> UInt32 {
        guard bytes.count - offset >= 4 else { throw error("\\u must be followed by four hexadecimal digits") }
        var value: UInt32 = 0
        for byte in bytes[offset..<offset + 4] {
            // Digits only: no sign, which integer parsing would accept.
            guard let digit = Character(Unicode.Scalar(byte)).hexDigitValue else {
                throw error("\\u must be followed by four hexadecimal digits")
            }
            value = value << 4 | UInt32(digit)
        }
        offset += 4
        return value
    }

    mutating func parseNumber() throws(JSONSyntaxError) -> JSON {
        let start = offset
        func digits(_ parser: inout JSONParser) -> Int {
            var count = 0
            while let byte = parser.current, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) { parser.offset += 1; count += 1 }
            return count
        }
        if current == UInt8(ascii: "-") { offset += 1 }
        if current == UInt8(ascii: "0") {
            offset += 1
        } else if digits(&self) == 0 {
            throw error("a number needs digits")
        }
        if current == UInt8(ascii: ".") {
            offset += 1
            guard digits(&self) > 0 else { throw error("a number needs digits after '.'") }
        }
        if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
            offset += 1
            if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { offset += 1 }
            guard digits(&self) > 0 else { throw error("a number needs digits in its exponent") }
        }
        return .number(String(decoding: bytes[start..<offset], as: UTF8.self))
    }
}
