// Temporary stand-ins until the value mapping lands.
import Foundation
import NIOCore
import PostgresNIO
import TesseraResults

package enum PostgresColumnKind: Hashable, Sendable {
    case integer, real, numeric, boolean, text, uuid, timestamp, date, bytea, other
    package init(typeOID: UInt32) {
        switch typeOID {
        case 20, 21, 23, 26: self = .integer
        case 700, 701: self = .real
        case 16: self = .boolean
        case 25, 1043, 1042, 19: self = .text
        default: self = .other
        }
    }
}

package enum PostgresValue {
    package static func databaseValue(_ cell: PostgresCell) -> DatabaseValue {
        guard var bytes = cell.bytes else { return .null }
        switch cell.dataType.rawValue {
        case 20: return .integer(bytes.readInteger(as: Int64.self) ?? 0)
        case 23: return .integer(Int64(bytes.readInteger(as: Int32.self) ?? 0))
        case 21: return .integer(Int64(bytes.readInteger(as: Int16.self) ?? 0))
        case 701: return .real(Double(bitPattern: bytes.readInteger(as: UInt64.self) ?? 0))
        case 16: return .integer(Int64(bytes.readInteger(as: UInt8.self) ?? 0))
        default: return .text(bytes.readString(length: bytes.readableBytes) ?? "")
        }
    }
    package static func parameterText(_ value: DatabaseValue) -> String? {
        switch value {
        case .null: nil
        case let .integer(v): String(v)
        case let .real(v): "\(v)"
        case let .text(v): v
        case let .blob(v): "\\x" + v.map { String($0, radix: 16) }.joined()
        }
    }
}

package struct PostgresTextParameter: PostgresDynamicTypeEncodable {
    var text: String
    package var psqlType: PostgresDataType { PostgresDataType(0) }
    package var psqlFormat: PostgresFormat { .text }
    package func encode<JSONEncoder: PostgresJSONEncoder>(into byteBuffer: inout ByteBuffer, context: PostgresEncodingContext<JSONEncoder>) {
        byteBuffer.writeString(text)
    }
}

extension PostgresBindings {
    package mutating func append(_ value: DatabaseValue) {
        if let text = PostgresValue.parameterText(value) { append(PostgresTextParameter(text: text)) } else { appendNull() }
    }
}

package struct PostgresSortOrdering: SortOrdering {
    let kind: PostgresColumnKind
    let ascending: Bool
    let nullsFirst: Bool
    package init(kind: PostgresColumnKind, ascending: Bool, nullsFirst: Bool?) {
        self.kind = kind
        self.ascending = ascending
        self.nullsFirst = nullsFirst ?? !ascending
    }
    package static func supports(_ kind: PostgresColumnKind) -> Bool { kind == .integer || kind == .text }
    package var integersAscending: Bool { ascending }
    package func compare(_ a: DatabaseValue, _ b: DatabaseValue) -> Int {
        switch (a, b) {
        case (.null, .null): return 0
        case (.null, _): return nullsFirst ? -1 : 1
        case (_, .null): return nullsFirst ? 1 : -1
        default: break
        }
        let c: Int
        switch (a, b) {
        case let (.integer(x), .integer(y)): c = x < y ? -1 : (x == y ? 0 : 1)
        case let (.text(x), .text(y)): c = Array(x.utf8).lexicographicallyPrecedes(Array(y.utf8)) ? -1 : (x == y ? 0 : 1)
        default: c = 0
        }
        return ascending ? c : -c
    }
}

package struct QualifiedName: Hashable, Sendable { package var schema: String; package var name: String }
package struct DecodedColumn: Equatable, Sendable {
    package var name: String
    package var type: String
    package var value: Value
    package enum Value: Equatable, Sendable { case null, unchangedToast, text(String) }
}
package struct DecodedChange: Equatable, Sendable {
    package enum Kind: Equatable, Sendable { case insert, update, delete, truncate }
    package var tables: [QualifiedName]
    package var kind: Kind
    package var newTuple: [DecodedColumn]?
    package var oldKey: [DecodedColumn]?
}
package enum DecodedLine: Equatable, Sendable {
    case begin(xid: UInt32)
    case commit(xid: UInt32)
    case change(DecodedChange)
}
package struct TestDecodingError: Error { var message: String }
package enum TestDecoding {
    package static func parse(_ line: String) throws(TestDecodingError) -> DecodedLine {
        if line.hasPrefix("BEGIN ") { return .begin(xid: UInt32(line.dropFirst(6)) ?? 0) }
        if line.hasPrefix("COMMIT ") { return .commit(xid: UInt32(line.dropFirst(7)) ?? 0) }
        // table public.t: KIND: cols
        guard line.hasPrefix("table "), let colon = line.range(of: ": ") else { throw TestDecodingError(message: line) }
        let names = line[line.index(line.startIndex, offsetBy: 6)..<colon.lowerBound].split(separator: ",").map { part -> QualifiedName in
            let bits = part.trimmingCharacters(in: .whitespaces).split(separator: ".", maxSplits: 1).map(String.init)
            return QualifiedName(schema: bits[0], name: bits.count > 1 ? bits[1] : "")
        }
        let rest = line[colon.upperBound...]
        guard let kindEnd = rest.range(of: ":") else { throw TestDecodingError(message: line) }
        let kindText = rest[..<kindEnd.lowerBound]
        var body = String(rest[kindEnd.upperBound...])
        let kind: DecodedChange.Kind
        switch kindText {
        case "INSERT": kind = .insert
        case "UPDATE": kind = .update
        case "DELETE": kind = .delete
        case "TRUNCATE": return .change(DecodedChange(tables: names, kind: .truncate))
        default: throw TestDecodingError(message: line)
        }
        func columns(_ text: String) -> [DecodedColumn] {
            var result: [DecodedColumn] = []
            let chars = Array(text)
            var i = 0
            while i < chars.count {
                while i < chars.count, chars[i] == " " { i += 1 }
                guard i < chars.count else { break }
                var name = ""
                while i < chars.count, chars[i] != "[" { name.append(chars[i]); i += 1 }
                i += 1
                var type = ""
                var depth = 1
                while i < chars.count { if chars[i] == "[" { depth += 1 } else if chars[i] == "]" { depth -= 1; if depth == 0 { break } }; type.append(chars[i]); i += 1 }
                i += 2 // ]:
                var value = DecodedColumn.Value.null
                if i < chars.count, chars[i] == "'" {
                    i += 1
                    var v = ""
                    while i < chars.count { if chars[i] == "'" { if i + 1 < chars.count, chars[i + 1] == "'" { v.append("'"); i += 2; continue }; i += 1; break }; v.append(chars[i]); i += 1 }
                    value = .text(v)
                } else {
                    var v = ""
                    while i < chars.count, chars[i] != " " { v.append(chars[i]); i += 1 }
                    value = v == "null" ? .null : (v == "unchanged-toast-datum" ? .unchangedToast : .text(v))
                }
                if name.hasPrefix("\"") { name = String(name.dropFirst().dropLast()) }
                result.append(DecodedColumn(name: name, type: type, value: value))
            }
            return result
        }
        var change = DecodedChange(tables: names, kind: kind)
        body = body.trimmingCharacters(in: .whitespaces)
        if body.hasPrefix("(no-tuple-data)") { return .change(change) }
        if kind == .delete {
            change.oldKey = columns(body)
        } else if body.hasPrefix("old-key: "), let range = body.range(of: " new-tuple: ") {
            change.oldKey = columns(String(body[body.index(body.startIndex, offsetBy: 9)..<range.lowerBound]))
            change.newTuple = columns(String(body[range.upperBound...]))
        } else {
            change.newTuple = columns(body)
        }
        return .change(change)
    }
}
