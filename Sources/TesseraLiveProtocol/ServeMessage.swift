import TesseraLayout
import TesseraRender

/// The state a reconnecting client shows: the `seq` its last message
/// brought it to (on the server it had, which may be another process) and
/// that state's fingerprint.
package struct ServeResume: Sendable, Hashable {
    /// The client's `seq`.
    package var seq: Int
    /// The fingerprint of the list it shows.
    package var state: ServeStateFingerprint

    /// A resume.
    package init(seq: Int, state: ServeStateFingerprint) {
        self.seq = seq
        self.state = state
    }
}

/// A client's message, parsed and bounded (see the protocol article).
package enum ServeMessage: Sendable, Equatable {
    /// `hello`: the layout, the viewport, whether the client wants ids,
    /// and the state it shows when it had one (`resume` with a `state`).
    case hello(layout: ServeLayoutKind, viewport: Rect, ids: Bool, resume: ServeResume?)
    /// `viewport`: the rectangle to fill, and a new layout if any.
    case viewport(Rect, layout: ServeLayoutKind?)
    /// `move`: an item to an index of its own section.
    case move(request: Int64, id: String, to: Int)
    /// `rename`: an item's new title.
    case rename(request: Int64, id: String, title: String)
    /// `delete`: items to delete.
    case delete(request: Int64, ids: [String])
    /// `add`: a new item at the end of a section.
    case add(request: Int64, section: String, title: String)

    /// The largest coordinate of a viewport's origin.
    package static let maximumCoordinate = 10_000_000.0
    /// The sizes a viewport's width and height may have.
    package static let viewportSizeRange = 1.0...100_000.0
    /// The largest area a viewport may have, in square points (8,192 ×
    /// 8,192): what one `viewport` message costs the hub (a layout query,
    /// and the reply's elements) grows with the area, so a client cannot
    /// ask for the whole list in one rectangle. A page's rectangle (its
    /// window and a window above and below it) stays within it up to an
    /// 8K screen.
    package static let maximumViewportArea = 8_192.0 * 8_192.0
    /// The longest id, in characters.
    package static let maximumIDLength = 256
    /// The longest title, in characters.
    package static let maximumTitleLength = 200
    /// The longest title, in bytes of UTF-8: a character (a grapheme
    /// cluster) may hold any number of combining scalars, so the count of
    /// characters alone does not bound a title's size.
    package static let maximumTitleBytes = 1_000
    /// The most ids one `delete` may name.
    package static let maximumDeleteCount = 1_000
    /// The largest request number (the integers a JSON double keeps exactly).
    package static let maximumRequest: Int64 = 9_007_199_254_740_991

    /// The request number of an edit, if it has one.
    package var request: Int64? {
        switch self {
        case .hello, .viewport: nil
        case let .move(request, _, _), let .rename(request, _, _), let .delete(request, _), let .add(request, _, _): request
        }
    }
}

/// A message the hub refuses: the `error` message's code and text, and the
/// request it answers when the message had a readable one.
package struct ServeMessageError: Error, Equatable, Sendable {
    /// The codes of the protocol's `error` message.
    package enum Code: String, Sendable {
        case malformed, unknownType, notReady, forbidden, notFound, outOfRange, tooLong, readOnly, database
    }

    /// The code.
    package var code: Code
    /// The message, naming the field.
    package var message: String
    /// The request the error answers, if the message had one.
    package var request: Int64?
    /// The ids of a `delete` that no longer exist (`notFound`), sent as the
    /// error's `ids` so that a client can drop them from its selection.
    package var missingIDs: [String] = []

    /// Creates an error.
    package init(_ code: Code, _ message: String, request: Int64? = nil) {
        self.code = code
        self.message = message
        self.request = request
    }
}

extension ServeMessage {
    /// Parses one text frame.
    ///
    /// - Throws: ``ServeMessageError``: `malformed` for text that is not a
    ///   JSON object with a string `type`, or a field that is missing or of
    ///   the wrong kind; `unknownType`; `outOfRange` for a rectangle or a
    ///   position out of range, or too many ids; `tooLong` for a title over
    ///   200 characters or 1,000 bytes of UTF-8. Unknown keys are ignored.
    /// - Complexity: O(*n*) in the length of the text.
    package static func parse(_ text: String) throws(ServeMessageError) -> ServeMessage {
        let json: JSON
        do {
            json = try JSON.parse(text)
        } catch {
            throw ServeMessageError(.malformed, "not JSON: \(error)")
        }
        guard case .object = json else { throw ServeMessageError(.malformed, "expected a JSON object, not \(json.kindName)") }
        guard let typeValue = json["type"] else { throw ServeMessageError(.malformed, "the message has no \"type\"") }
        guard case let .string(type) = typeValue else {
            throw ServeMessageError(.malformed, "\"type\" must be a string, not \(typeValue.kindName)")
        }
        var fields = Fields(json: json, requestNumber: nil)
        switch type {
        case "hello":
            let layout = try fields.layout("layout") ?? .flow
            let viewport = try fields.rect("viewport")
            let ids = try fields.bool("ids") ?? false
            var resumed: ServeResume?
            if let resume = json["resume"] {
                switch resume {
                case .null: break
                case .object: resumed = try Fields(json: resume, requestNumber: nil).resume()
                default: throw ServeMessageError(.malformed, "\"resume\" must be null or an object, not \(resume.kindName)")
                }
            }
            return .hello(layout: layout, viewport: viewport, ids: ids, resume: resumed)
        case "viewport":
            return .viewport(try fields.rect("viewport"), layout: try fields.layout("layout"))
        case "move":
            let request = try fields.readRequest()
            return .move(request: request, id: try fields.id("id"), to: try fields.index("to"))
        case "rename":
            let request = try fields.readRequest()
            return .rename(request: request, id: try fields.id("id"), title: try fields.title("title"))
        case "delete":
            let request = try fields.readRequest()
            return .delete(request: request, ids: try fields.ids("ids"))
        case "add":
            let request = try fields.readRequest()
            return .add(request: request, section: try fields.id("section"), title: try fields.title("title"))
        default:
            let shown = type.count > 40 ? String(type.prefix(40)) + "…" : type
            throw ServeMessageError(.unknownType, "unknown message type \"\(shown)\" (expected hello, viewport, move, rename, delete or add)")
        }
    }

    /// Reads the fields of one message, with the request for errors.
    private struct Fields {
        let json: JSON
        var requestNumber: Int64?

        func fail(_ code: ServeMessageError.Code, _ message: String) -> ServeMessageError {
            ServeMessageError(code, message, request: requestNumber)
        }

        func value(_ key: String) throws(ServeMessageError) -> JSON {
            guard let value = json[key], value != .null else { throw fail(.malformed, "missing \"\(key)\"") }
            return value
        }

        /// A `resume` object: `nil` without a `state` (a client that names
        /// only its `seq` gets a snapshot); otherwise a `state` of 32
        /// hexadecimal digits and a `seq` from 0 to 2^53 - 1.
        func resume() throws(ServeMessageError) -> ServeResume? {
            guard let stateValue = json["state"], stateValue != .null else { return nil }
            guard case let .string(text) = stateValue, let state = ServeStateFingerprint(text: text) else {
                throw fail(.malformed, "\"resume.state\" must be 32 hexadecimal digits, not \(Self.shown(stateValue))")
            }
            guard let seqValue = json["seq"], case let .number(number) = seqValue, let seq = Self.integer(number),
                  seq >= 0, seq <= ServeMessage.maximumRequest else {
                throw fail(.malformed, "\"resume.seq\" must be an integer from 0 to 2^53 - 1, not \(json["seq"].map(Self.shown) ?? "missing")")
            }
            return ServeResume(seq: Int(seq), state: state)
        }

        mutating func readRequest() throws(ServeMessageError) -> Int64 {
            guard let value = json["request"] else { throw fail(.malformed, "missing \"request\"") }
            guard case let .number(text) = value, let number = Self.integer(text),
                  abs(number) <= ServeMessage.maximumRequest else {
                throw fail(.malformed, "\"request\" must be an integer of at most 2^53 - 1, not \(Self.shown(value))")
            }
            requestNumber = number
            return number
        }

        func layout(_ key: String) throws(ServeMessageError) -> ServeLayoutKind? {
            guard let value = json[key], value != .null else { return nil }
            guard case let .string(name) = value, let kind = ServeLayoutKind(rawValue: name) else {
                throw fail(.malformed, "\"\(key)\" must be \"flow\", \"list\" or \"column\", not \(Self.shown(value))")
            }
            return kind
        }

        func bool(_ key: String) throws(ServeMessageError) -> Bool? {
            guard let value = json[key], value != .null else { return nil }
            guard case let .bool(flag) = value else { throw fail(.malformed, "\"\(key)\" must be a boolean, not \(value.kindName)") }
            return flag
        }

        func rect(_ key: String) throws(ServeMessageError) -> Rect {
            let value = try value(key)
            guard case let .array(parts) = value, parts.count == 4 else {
                throw fail(.malformed, "\"\(key)\" must be an array of four numbers [x, y, width, height]")
            }
            var numbers: [Double] = []
            for part in parts {
                guard case let .number(text) = part, let number = Double(text) else {
                    throw fail(.malformed, "\"\(key)\" must be an array of four numbers [x, y, width, height], not one with \(part.kindName)")
                }
                numbers.append(number)
            }
            let limit = ServeMessage.maximumCoordinate
            let sizes = ServeMessage.viewportSizeRange
            guard numbers.allSatisfy(\.isFinite), (0...limit).contains(numbers[0]), (0...limit).contains(numbers[1]),
                  sizes.contains(numbers[2]), sizes.contains(numbers[3]) else {
                throw fail(.outOfRange, "\"\(key)\" out of range: x and y must be from 0 to 10000000, width and height from 1 to 100000")
            }
            guard numbers[2] * numbers[3] <= ServeMessage.maximumViewportArea else {
                throw fail(.outOfRange, "\"\(key)\" out of range: its area, \(Int(numbers[2])) × \(Int(numbers[3])), is more than 8192 × 8192")
            }
            return Rect(x: numbers[0], y: numbers[1], width: numbers[2], height: numbers[3])
        }

        func index(_ key: String) throws(ServeMessageError) -> Int {
            let value = try value(key)
            guard case let .number(text) = value, let number = Self.integer(text) else {
                throw fail(.malformed, "\"\(key)\" must be an integer, not \(Self.shown(value))")
            }
            guard number >= 0, number <= Int64(Int32.max) else { throw fail(.outOfRange, "\"\(key)\" \(number) is out of range") }
            return Int(number)
        }

        func id(_ key: String) throws(ServeMessageError) -> String {
            let value = try value(key)
            guard case let .string(text) = value else { throw fail(.malformed, "\"\(key)\" must be a string, not \(value.kindName)") }
            guard text.count <= ServeMessage.maximumIDLength else {
                throw fail(.malformed, "\"\(key)\" is longer than \(ServeMessage.maximumIDLength) characters")
            }
            return text
        }

        func ids(_ key: String) throws(ServeMessageError) -> [String] {
            let value = try value(key)
            guard case let .array(items) = value else { throw fail(.malformed, "\"\(key)\" must be an array of strings, not \(value.kindName)") }
            guard !items.isEmpty else { throw fail(.malformed, "\"\(key)\" is empty") }
            guard items.count <= ServeMessage.maximumDeleteCount else {
                throw fail(.outOfRange, "\"\(key)\" names \(items.count) items: at most \(ServeMessage.maximumDeleteCount) at a time")
            }
            var texts: [String] = []
            for item in items {
                guard case let .string(text) = item else {
                    throw fail(.malformed, "\"\(key)\" must be an array of strings, not one with \(item.kindName)")
                }
                guard text.count <= ServeMessage.maximumIDLength else {
                    throw fail(.malformed, "\"\(key)\" has an id longer than \(ServeMessage.maximumIDLength) characters")
                }
                texts.append(text)
            }
            return texts
        }

        func title(_ key: String) throws(ServeMessageError) -> String {
            let value = try value(key)
            guard case let .string(text) = value else { throw fail(.malformed, "\"\(key)\" must be a string, not \(value.kindName)") }
            guard text.utf8.count <= ServeMessage.maximumTitleBytes else {
                throw fail(.tooLong, "\"\(key)\" has \(text.utf8.count) bytes of UTF-8: at most \(ServeMessage.maximumTitleBytes)")
            }
            guard text.count <= ServeMessage.maximumTitleLength else {
                throw fail(.tooLong, "\"\(key)\" has \(text.count) characters: at most \(ServeMessage.maximumTitleLength)")
            }
            if let scalar = text.unicodeScalars.first(where: { $0.properties.generalCategory == .control }) {
                throw fail(.malformed, "\"\(key)\" has a control character (U+\(String(scalar.value, radix: 16, uppercase: true)))")
            }
            return text
        }

        /// An integer written as a JSON number (`7`, `7.0`, `7e0`), or nil.
        static func integer(_ text: String) -> Int64? {
            if let exact = Int64(text) { return exact }
            guard let number = Double(text), number.isFinite, number == number.rounded(),
                  abs(number) < 9.2e18 else { return nil }
            return Int64(number)
        }

        static func shown(_ value: JSON) -> String {
            if case let .number(text) = value { return text.count > 24 ? String(text.prefix(24)) + "…" : text }
            return value.kindName
        }
    }
}
