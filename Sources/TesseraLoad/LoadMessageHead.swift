/// What the load generator reads of a server message: its type and the
/// numbers it needs, found near the message's start without decoding the
/// whole message (a plan can be many kilobytes; its type, `fromSeq` and
/// `seq` come first).
package struct LoadMessageHead: Equatable, Sendable {
    /// The message's `type`.
    package enum Kind: Equatable, Sendable {
        case snapshot, elements, plan, done, error, other
    }

    /// The message's type (``Kind/other`` for a type the generator does
    /// not read, or none).
    package var kind: Kind
    /// `seq`, when present.
    package var seq: Int?
    /// `fromSeq`, when present.
    package var fromSeq: Int?
    /// `request`, when present.
    package var request: Int?

    /// Reads the head of one message.
    ///
    /// - Complexity: O(*p*) where *p* is the position of the last key read
    ///   (the keys come first in the server's messages); O(*n*) in the
    ///   message's length at worst.
    package static func scan(_ bytes: UnsafeRawBufferPointer) -> LoadMessageHead {
        var head = LoadMessageHead(kind: .other)
        let typeValue = string(after: typeKey, in: bytes)
        switch typeValue {
        case "plan":
            head.kind = .plan
            head.fromSeq = number(after: fromSeqKey, in: bytes)
            head.seq = number(after: seqKey, in: bytes)
        case "snapshot":
            head.kind = .snapshot
            head.seq = number(after: seqKey, in: bytes)
        case "elements":
            head.kind = .elements
            head.seq = number(after: seqKey, in: bytes)
        case "done":
            head.kind = .done
            head.request = number(after: requestKey, in: bytes)
            head.seq = number(after: seqKey, in: bytes)
        case "error":
            head.kind = .error
            head.request = number(after: requestKey, in: bytes)
        default:
            break
        }
        return head
    }

    /// Reads the head of one message given as text.
    package static func scan(_ text: String) -> LoadMessageHead {
        var text = text
        return text.withUTF8 { scan(UnsafeRawBufferPointer($0)) }
    }

    static let typeKey = Array(#""type""#.utf8)
    static let seqKey = Array(#""seq""#.utf8)
    static let fromSeqKey = Array(#""fromSeq""#.utf8)
    static let requestKey = Array(#""request""#.utf8)

    /// Where the value of the first `key` starts (after the colon and
    /// spaces).
    static func valueStart(of key: [UInt8], in bytes: UnsafeRawBufferPointer) -> Int? {
        let limit = bytes.count
        var index = 0
        while index + key.count <= limit {
            if bytes[index] == key[0] {
                var matches = true
                for offset in 1..<key.count where bytes[index + offset] != key[offset] {
                    matches = false
                    break
                }
                if matches {
                    var position = index + key.count
                    while position < limit, bytes[position] == 0x20 { position += 1 }
                    if position < limit, bytes[position] == 0x3A {
                        position += 1
                        while position < limit, bytes[position] == 0x20 { position += 1 }
                        return position
                    }
                }
            }
            index += 1
        }
        return nil
    }

    /// The non-negative integer after `key`, if any.
    static func number(after key: [UInt8], in bytes: UnsafeRawBufferPointer) -> Int? {
        guard var position = valueStart(of: key, in: bytes) else { return nil }
        var value = 0
        var digits = 0
        while position < bytes.count, (0x30...0x39).contains(bytes[position]), digits < 18 {
            value = value * 10 + Int(bytes[position] - 0x30)
            digits += 1
            position += 1
        }
        return digits > 0 ? value : nil
    }

    /// The short string after `key` (up to 16 bytes, without escapes), if
    /// any.
    static func string(after key: [UInt8], in bytes: UnsafeRawBufferPointer) -> String? {
        guard var position = valueStart(of: key, in: bytes), position < bytes.count, bytes[position] == 0x22 else { return nil }
        position += 1
        let start = position
        while position < bytes.count, bytes[position] != 0x22, bytes[position] != 0x5C, position - start < 16 { position += 1 }
        guard position < bytes.count, bytes[position] == 0x22 else { return nil }
        return String(decoding: UnsafeRawBufferPointer(rebasing: bytes[start..<position]), as: UTF8.self)
    }
}
