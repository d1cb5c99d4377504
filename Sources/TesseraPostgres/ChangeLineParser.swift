/// One line of PostgreSQL's `test_decoding` output plugin, as
/// `pg_logical_slot_get_changes(slot, NULL, NULL, 'include-xids', '1',
/// 'skip-empty-xacts', '1')` gives it in its `data` column.
package enum DecodedLine: Equatable, Sendable {
    /// `BEGIN 738`: a transaction starts.
    case begin(xid: UInt32)
    /// `COMMIT 738`: the transaction commits.
    case commit(xid: UInt32)
    /// `table public.t: INSERT: …` and the like: one change.
    case change(DecodedChange)
}

/// One change of a `test_decoding` line: the tables it touches, its kind
/// and the columns it prints.
package struct DecodedChange: Equatable, Sendable {
    /// What the change does.
    package enum Kind: Equatable, Sendable {
        /// A row is inserted (`INSERT:`).
        case insert
        /// A row is updated (`UPDATE:`).
        case update
        /// A row is deleted (`DELETE:`).
        case delete
        /// Tables are emptied (`TRUNCATE:`).
        case truncate
    }

    /// The table changed: one, or several for a TRUNCATE.
    package var tables: [QualifiedName]
    /// What the change does.
    package var kind: Kind
    /// The row's columns after an INSERT or UPDATE; `nil` otherwise, and
    /// when the line says `(no-tuple-data)`.
    package var newTuple: [DecodedColumn]?
    /// The replica identity's columns before an UPDATE (its `old-key:`,
    /// printed when the key changes or the identity is FULL) or a DELETE;
    /// `nil` when the line has none or says `(no-tuple-data)`. NULL columns
    /// are left out of it, as the plugin does.
    package var oldKey: [DecodedColumn]?
    /// Whether a TRUNCATE restarts the tables' sequences (`restart_seqs`).
    package var restartSequences: Bool
    /// Whether a TRUNCATE cascades (`cascade`).
    package var cascade: Bool

    /// A change with these parts.
    package init(
        tables: [QualifiedName], kind: Kind, newTuple: [DecodedColumn]? = nil, oldKey: [DecodedColumn]? = nil,
        restartSequences: Bool = false, cascade: Bool = false
    ) {
        self.tables = tables
        self.kind = kind
        self.newTuple = newTuple
        self.oldKey = oldKey
        self.restartSequences = restartSequences
        self.cascade = cascade
    }
}

/// A table's schema and name, unquoted (a quoted identifier's doubled `""`
/// undone).
package struct QualifiedName: Hashable, Sendable {
    /// The schema, `public` for most tables.
    package var schema: String
    /// The table's name.
    package var name: String

    /// The table `schema.name`.
    package init(schema: String, name: String) {
        self.schema = schema
        self.name = name
    }
}

/// One column of a change: `name[type]:value`.
package struct DecodedColumn: Equatable, Sendable {
    /// A column's value as the plugin prints it.
    package enum Value: Equatable, Sendable {
        /// `null`.
        case null
        /// `unchanged-toast-datum`: an UPDATE left the TOASTed value as it
        /// was, and the plugin does not print it.
        case unchangedToast
        /// The value's text: the type's text form (`12`, `1.50`, `NaN`,
        /// `true`; a quoted literal unquoted, `''` read as `'`; a bit
        /// string's `B'101'` read as `101`).
        case text(String)
    }

    /// The column's name, unquoted.
    package var name: String
    /// The column's type as the plugin prints it (`integer`, `character
    /// varying`, `timestamp with time zone`, `text[]`).
    package var type: String
    /// The column's value.
    package var value: Value

    /// A column with this name, type and value.
    package init(name: String, type: String, value: Value) {
        self.name = name
        self.type = type
        self.value = value
    }
}

/// A `test_decoding` line that does not read as one: what was expected, and
/// where.
package struct ChangeLineError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The offset, in UTF-8 bytes from the start of the line, where reading
    /// stopped.
    package var offset: Int
    /// What was expected there.
    package var expected: String

    /// An error at this offset.
    package init(offset: Int, expected: String) {
        self.offset = offset
        self.expected = expected
    }

    /// "test_decoding line: expected … at byte …".
    package var description: String {
        "test_decoding line: expected \(expected) at byte \(offset)"
    }
}

/// The parser of `test_decoding`'s lines.
///
/// ```swift
/// let line = try ChangeLineParser.parse("table public.items: INSERT: id[integer]:1 title[text]:'it''s'")
/// // .change(DecodedChange(tables: [QualifiedName(schema: "public", name: "items")], kind: .insert,
/// //     newTuple: [DecodedColumn(name: "id", type: "integer", value: .text("1")),
/// //                DecodedColumn(name: "title", type: "text", value: .text("it's"))]))
/// ```
package enum ChangeLineParser {
    /// Reads one line of the plugin's output: `BEGIN <xid>`, `COMMIT <xid>`
    /// (a trailing ` (at <timestamp>)` allowed), or a change.
    ///
    /// - Throws: ``ChangeLineError`` naming the byte where the line stops
    ///   following the plugin's format (a message line,
    ///   `message: transactional: …`, included).
    /// - Complexity: O(*m*) for a line of *m* bytes.
    package static func parse(_ line: String) throws(ChangeLineError) -> DecodedLine {
        var reader = Reader(Array(line.utf8))
        return try reader.line()
    }
}

/// A cursor over a line's UTF-8 bytes.
private struct Reader {
    let bytes: [UInt8]
    var position = 0

    init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    var atEnd: Bool { position == bytes.count }

    func fail(_ expected: String) -> ChangeLineError {
        ChangeLineError(offset: position, expected: expected)
    }

    /// Whether the bytes at the cursor are `literal` (without moving).
    func sees(_ literal: String) -> Bool {
        let utf8 = Array(literal.utf8)
        guard bytes.count - position >= utf8.count else { return false }
        return bytes[position..<(position + utf8.count)].elementsEqual(utf8)
    }

    /// Moves past `literal` when the cursor is on it.
    mutating func skip(_ literal: String) -> Bool {
        guard sees(literal) else { return false }
        position += literal.utf8.count
        return true
    }

    mutating func expect(_ literal: String) throws(ChangeLineError) {
        guard skip(literal) else { throw fail("\"\(literal)\"") }
    }

    func text(_ range: Range<Int>) -> String {
        String(decoding: bytes[range], as: UTF8.self)
    }

    mutating func line() throws(ChangeLineError) -> DecodedLine {
        if skip("BEGIN ") {
            return .begin(xid: try transactionEnd())
        }
        if skip("COMMIT ") {
            return .commit(xid: try transactionEnd())
        }
        try expect("table ")
        return .change(try change())
    }

    /// A transaction id, then the end (or ` (at …)`).
    mutating func transactionEnd() throws(ChangeLineError) -> UInt32 {
        let start = position
        while !atEnd, bytes[position] >= UInt8(ascii: "0"), bytes[position] <= UInt8(ascii: "9") { position += 1 }
        guard position > start, let xid = UInt32(text(start..<position)) else {
            position = start
            throw fail("a transaction id")
        }
        if atEnd { return xid }
        guard skip(" (at "), bytes.last == UInt8(ascii: ")") else { throw fail("the end of the line") }
        return xid
    }

    mutating func change() throws(ChangeLineError) -> DecodedChange {
        var tables = [try qualifiedName()]
        while skip(", ") { tables.append(try qualifiedName()) }
        try expect(":")
        if tables.count == 1 {
            if skip(" INSERT:") {
                return DecodedChange(tables: tables, kind: .insert, newTuple: try tupleToEnd())
            }
            if skip(" DELETE:") {
                return DecodedChange(tables: tables, kind: .delete, oldKey: try tupleToEnd())
            }
            if skip(" UPDATE:") {
                var oldKey: [DecodedColumn]?
                if skip(" old-key:") {
                    var columns: [DecodedColumn] = []
                    while !skip(" new-tuple:") {
                        guard !atEnd else { throw fail("\" new-tuple:\"") }
                        columns.append(try column())
                    }
                    oldKey = columns
                }
                return DecodedChange(tables: tables, kind: .update, newTuple: try tupleToEnd(), oldKey: oldKey)
            }
        }
        guard skip(" TRUNCATE:") else {
            throw fail(tables.count == 1 ? "\" INSERT:\", \" UPDATE:\", \" DELETE:\" or \" TRUNCATE:\"" : "\" TRUNCATE:\"")
        }
        var change = DecodedChange(tables: tables, kind: .truncate)
        if !skip(" (no-flags)") {
            change.restartSequences = skip(" restart_seqs")
            change.cascade = skip(" cascade")
            guard change.restartSequences || change.cascade else { throw fail("TRUNCATE's flags") }
        }
        guard atEnd else { throw fail("the end of the line") }
        return change
    }

    /// ` (no-tuple-data)` (`nil`) or columns, to the end of the line.
    mutating func tupleToEnd() throws(ChangeLineError) -> [DecodedColumn]? {
        if skip(" (no-tuple-data)") {
            guard atEnd else { throw fail("the end of the line") }
            return nil
        }
        var columns: [DecodedColumn] = []
        while !atEnd { columns.append(try column()) }
        return columns
    }

    /// ` name[type]:value`.
    mutating func column() throws(ChangeLineError) -> DecodedColumn {
        try expect(" ")
        let name = try identifier(endingAt: UInt8(ascii: "["))
        try expect("[")
        let type = try typeName()
        try expect(":")
        return DecodedColumn(name: name, type: type, value: try value())
    }

    /// `schema.name`, each part quoted or not.
    mutating func qualifiedName() throws(ChangeLineError) -> QualifiedName {
        let schema = try identifier(endingAt: UInt8(ascii: "."))
        try expect(".")
        let name = try identifier(endingAt: UInt8(ascii: ":"), or: UInt8(ascii: ","))
        return QualifiedName(schema: schema, name: name)
    }

    /// A quoted identifier (`"My ""T"""`), or a bare one up to `end` (or
    /// `other`) or a space.
    mutating func identifier(endingAt end: UInt8, or other: UInt8? = nil) throws(ChangeLineError) -> String {
        if !atEnd, bytes[position] == UInt8(ascii: "\"") {
            return try quoted(UInt8(ascii: "\""))
        }
        let start = position
        while !atEnd, bytes[position] != end, bytes[position] != other, bytes[position] != UInt8(ascii: " "),
              bytes[position] != UInt8(ascii: "\"") {
            position += 1
        }
        guard position > start else { throw fail("an identifier") }
        return text(start..<position)
    }

    /// A literal between `quote`s, a doubled quote read as one.
    mutating func quoted(_ quote: UInt8) throws(ChangeLineError) -> String {
        let start = position
        position += 1
        var content: [UInt8] = []
        while true {
            guard !atEnd else {
                position = start
                throw fail("a closing quote for the one")
            }
            let byte = bytes[position]
            position += 1
            if byte == quote {
                if !atEnd, bytes[position] == quote {
                    content.append(quote)
                    position += 1
                } else {
                    return String(decoding: content, as: UTF8.self)
                }
            } else {
                content.append(byte)
            }
        }
    }

    /// A type name up to its closing `]` (the one followed by `:`; quoted
    /// parts, and the `[]` of an array type, inside it).
    mutating func typeName() throws(ChangeLineError) -> String {
        let start = position
        var inQuotes = false
        while !atEnd {
            let byte = bytes[position]
            if byte == UInt8(ascii: "\"") {
                inQuotes.toggle()
            } else if !inQuotes, byte == UInt8(ascii: "]"), position + 1 < bytes.count, bytes[position + 1] == UInt8(ascii: ":") {
                guard position > start else { throw fail("a type name") }
                let type = text(start..<position)
                position += 1
                return type
            }
            position += 1
        }
        position = start
        throw fail("a type name closed by \"]:\"")
    }

    /// `null`, `unchanged-toast-datum`, a quoted literal, `B'…'`, or an
    /// unquoted value (a number, `true`, `false`) up to a space.
    mutating func value() throws(ChangeLineError) -> DecodedColumn.Value {
        guard !atEnd else { throw fail("a value") }
        if bytes[position] == UInt8(ascii: "'") {
            return .text(try quoted(UInt8(ascii: "'")))
        }
        if sees("B'") {
            position += 1
            return .text(try quoted(UInt8(ascii: "'")))
        }
        let start = position
        while !atEnd, bytes[position] != UInt8(ascii: " ") { position += 1 }
        guard position > start else { throw fail("a value") }
        switch text(start..<position) {
        case "null": return .null
        case "unchanged-toast-datum": return .unchangedToast
        case let word: return .text(word)
        }
    }
}
