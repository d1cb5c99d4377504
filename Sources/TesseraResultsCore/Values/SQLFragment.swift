/// A piece of SQL that Tessera splices into a statement of its own: a
/// predicate, a sort or section expression, or a SELECT used as a source.
///
/// ``problem(in:as:)`` reads the fragment with SQLite's lexical rules
/// (quotes, comments, named parameters, parentheses, `;`) and refuses what
/// could reach past it into the rest of the statement: a `;` that starts a
/// second statement, a parenthesis that closes what the fragment did not
/// open, a `/*` comment, a quote or a parameter's `(` left open (each
/// swallows the rest), a NUL character (the statement would end there). A `--` comment is fine: ``spliced(_:)``
/// ends the fragment with a line break, so the comment stops there.
package enum SQLFragment {
    /// What the fragment must be.
    package enum Kind: Sendable {
        /// A condition for WHERE.
        case condition
        /// One expression, for ORDER BY or a result column: no comma
        /// outside parentheses either.
        case expression
        /// A SELECT statement used as a source.
        case query
    }

    /// Why the fragment cannot be spliced, in a sentence that ends the
    /// caller's "the predicate … is refused: ", or `nil` when it can.
    ///
    /// - Complexity: O(*n*) in the fragment's UTF-8 length.
    package static func problem(in text: String, as kind: Kind) -> String? {
        let bytes = Array(text.utf8)
        var depth = 0
        var index = 0
        func ending(_ terminator: UInt8, from start: Int) -> Int? {
            // A quote ends at its terminator not doubled ('it''s').
            var i = start + 1
            while i < bytes.count {
                if bytes[i] == terminator {
                    if terminator != UInt8(ascii: "]"), i + 1 < bytes.count, bytes[i + 1] == terminator { i += 2; continue }
                    return i
                }
                i += 1
            }
            return nil
        }
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case 0:
                return "it holds a NUL character (at byte \(index)), where SQLite would end the statement"
            case UInt8(ascii: "'"), UInt8(ascii: "\""), UInt8(ascii: "`"), UInt8(ascii: "["):
                let terminator = byte == UInt8(ascii: "[") ? UInt8(ascii: "]") : byte
                guard let end = ending(terminator, from: index) else {
                    return "it opens a quote (\(Character(Unicode.Scalar(byte)))) at byte \(index) that it does not close, which would swallow the rest of the statement"
                }
                index = end + 1
                continue
            case UInt8(ascii: "-") where index + 1 < bytes.count && bytes[index + 1] == UInt8(ascii: "-"):
                while index < bytes.count && bytes[index] != UInt8(ascii: "\n") { index += 1 }
                continue
            case UInt8(ascii: "/") where index + 1 < bytes.count && bytes[index + 1] == UInt8(ascii: "*"):
                var end = index + 2
                while end + 1 < bytes.count && !(bytes[end] == UInt8(ascii: "*") && bytes[end + 1] == UInt8(ascii: "/")) { end += 1 }
                guard end + 1 < bytes.count else {
                    return "it opens a /* comment at byte \(index) that it does not close, which would swallow the rest of the statement"
                }
                index = end + 2
                continue
            case UInt8(ascii: "$"), UInt8(ascii: "@"), UInt8(ascii: ":"), UInt8(ascii: "#"):
                // A named parameter: what SQLite reads as part of it (a
                // quote or a comment mark in its `(…)`) is not SQL.
                guard let end = parameterEnd(bytes, from: index) else {
                    return "it opens a parameter's ( at byte \(index) that it does not close, which would swallow what follows it"
                }
                index = end
                continue
            case UInt8(ascii: "?"):
                // A numbered parameter ends with its digits: a `$` right
                // after it starts a named one.
                index += 1
                while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) { index += 1 }
                continue
            case _ where isNameByte(byte):
                // A word: a name, a keyword or a number. `$` is one of its
                // letters (`a$b(` is the name `a$b` and a parenthesis), so
                // it starts a parameter only where no word goes on (above).
                while index < bytes.count, isNameByte(bytes[index]) { index += 1 }
                continue
            case UInt8(ascii: ";"):
                return "it holds a ';' (at byte \(index)): what follows would be a second statement"
            case UInt8(ascii: "("):
                depth += 1
            case UInt8(ascii: ")"):
                guard depth > 0 else {
                    return "it closes a parenthesis it did not open (at byte \(index))"
                }
                depth -= 1
            case UInt8(ascii: ",") where kind == .expression && depth == 0:
                return "it holds a comma outside parentheses (at byte \(index)): it must be one expression"
            default:
                break
            }
            index += 1
        }
        if depth > 0 {
            return "it leaves \(depth == 1 ? "a parenthesis" : "\(depth) parentheses") open"
        }
        if bytes.allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D || $0 == 0x0C }) {
            return "it is empty"
        }
        return nil
    }

    /// Whether SQLite reads a byte as part of a word (a name, keyword or
    /// number): letters, digits, `_`, `$` and every byte of a non-ASCII
    /// character.
    private static func isNameByte(_ byte: UInt8) -> Bool {
        byte >= 0x80 || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "$")
            || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
            || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
            || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
    }

    /// Where a named parameter that starts at `start` (`$name`, `:name`,
    /// `@name` or `#name`) ends, as SQLite's tokenizer reads it: its name
    /// (letters, digits, `_`, `$` and non-ASCII bytes), with `::` pairs
    /// inside, and after the name an optional `(…)` (Tcl's array syntax)
    /// that runs to the first `)` or white space, taking in whatever it
    /// meets: quotes, `--`, `/*`, `;`. `nil` when that `(` reaches the end
    /// of the fragment unclosed, where SQLite would read on into the
    /// statement around it.
    private static func parameterEnd(_ bytes: [UInt8], from start: Int) -> Int? {
        var index = start + 1
        var nameLength = 0
        while index < bytes.count {
            let byte = bytes[index]
            if isNameByte(byte) {
                nameLength += 1
                index += 1
            } else if byte == UInt8(ascii: "("), nameLength > 0 {
                index += 1
                // SQLite's white space here: tab, line feed, vertical tab,
                // form feed, carriage return and space.
                while index < bytes.count, !(0x09...0x0D).contains(bytes[index]), bytes[index] != 0x20, bytes[index] != UInt8(ascii: ")") {
                    index += 1
                }
                guard index < bytes.count else { return nil }
                return bytes[index] == UInt8(ascii: ")") ? index + 1 : index
            } else if byte == UInt8(ascii: ":"), index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: ":") {
                index += 2
            } else {
                break
            }
        }
        return index
    }

    /// Whether the fragment may hold a parameter: it has a `?`, `:`, `@`
    /// or `$` byte (a parameter's mark, whatever follows it: `:` and a
    /// combining mark is one character to Swift, a parameter to SQLite).
    ///
    /// - Complexity: O(*n*) in the fragment's length.
    package static func mayHoldParameter(_ text: String) -> Bool {
        text.utf8.contains { $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: ":") || $0 == UInt8(ascii: "@") || $0 == UInt8(ascii: "$") }
    }

    /// The fragment as it goes into a statement: followed by a line break
    /// when it holds a `--` comment, so that the comment ends with it.
    ///
    /// - Complexity: O(*n*) in the fragment's length.
    package static func spliced(_ text: String) -> String {
        // Byte by byte, as SQLite reads it (a combining mark after a dash
        // does not hide a comment from SQLite).
        var afterDash = false
        for byte in text.utf8 {
            if byte == UInt8(ascii: "-") {
                if afterDash { return text + "\n" }
                afterDash = true
            } else {
                afterDash = false
            }
        }
        return text
    }
}

/// An SQL identifier in double quotes, inner quotes doubled.
///
/// - Complexity: O(*n*) in the identifier's length.
package func quotedIdentifier(_ identifier: String) -> String {
    sqlQuoted(identifier, by: UInt8(ascii: "\""))
}

/// The column a sort key or key written as a bare name names, read byte
/// by byte as the database reads it: a quoted name's inside with each
/// doubled `"` made one, or an unquoted name (ASCII letters, digits, `_`,
/// `$` and every non-ASCII byte, not starting with a digit or `$`), folded
/// to lower case in ASCII when `foldingUnquoted` (PostgreSQL folds an
/// unquoted name, SQLite compares names without case in ASCII); `nil` for
/// any other expression. Spaces around it are ignored.
///
/// - Complexity: O(*n*) in the expression's length.
package func bareColumnName(_ expression: String, foldingUnquoted: Bool) -> String? {
    var bytes = ArraySlice(expression.utf8)
    let isSpace: (UInt8) -> Bool = { $0 == 0x20 || (0x09...0x0D).contains($0) }
    while let first = bytes.first, isSpace(first) { bytes = bytes.dropFirst() }
    while let last = bytes.last, isSpace(last) { bytes = bytes.dropLast() }
    let quote = UInt8(ascii: "\"")
    guard let first = bytes.first else { return nil }
    if first == quote {
        guard bytes.count >= 2, bytes.last == quote else { return nil }
        var name: [UInt8] = []
        var index = bytes.startIndex + 1
        let end = bytes.endIndex - 1
        while index < end {
            if bytes[index] == quote {
                // A quote inside is doubled; a single one ends the name
                // before the expression does.
                guard index + 1 < end, bytes[index + 1] == quote else { return nil }
                index += 1
            }
            name.append(bytes[index])
            index += 1
        }
        return String(decoding: name, as: UTF8.self)
    }
    let isWordByte: (UInt8) -> Bool = { byte in
        byte >= 0x80 || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "$")
            || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
            || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
    }
    guard bytes.allSatisfy(isWordByte), !(UInt8(ascii: "0")...UInt8(ascii: "9")).contains(first), first != UInt8(ascii: "$") else { return nil }
    let name = String(decoding: bytes, as: UTF8.self)
    return foldingUnquoted ? asciiLowercased(name) : name
}

/// `text` with ASCII's capitals made small, and nothing else changed (as
/// SQLite compares names, and PostgreSQL folds unquoted ones).
///
/// - Complexity: O(*n*) in the text's length.
package func asciiLowercased(_ text: String) -> String {
    guard text.utf8.contains(where: { (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains($0) }) else { return text }
    return String(decoding: text.utf8.map { (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains($0) ? $0 + 32 : $0 }, as: UTF8.self)
}

/// Whether two bytes of a name are one byte once ASCII's capitals are made
/// small (and nothing else folded).
@inline(__always)
private func asciiFoldedBytesEqual(_ x: UInt8, _ y: UInt8) -> Bool {
    x == y || (x | 0x20 == y | 0x20 && (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(x | 0x20))
}

/// Whether `a` and `b` are one name with ASCII's capitals and small
/// letters alike and every other byte compared as it is: how SQLite
/// compares the names of tables and columns, and how PostgreSQL folds a
/// name written without quotes.
///
/// - Complexity: O(*n*) in the names' lengths.
package func asciiFoldedNamesEqual(_ a: String, _ b: String) -> Bool {
    a.utf8.count == b.utf8.count && a.utf8.elementsEqual(b.utf8, by: asciiFoldedBytesEqual)
}

/// Whether SQLite takes `a` and `b` as one name (of a table or a column):
/// byte for byte, with ASCII's capitals and small letters alike and
/// nothing else folded. Swift's `==` takes more names as one: two
/// spellings of an accented letter (precomposed, or a letter and a
/// combining mark), and `lowercased()` folds `É` to `é`; SQLite keeps each
/// of those apart, so a table may hold columns named both.
///
/// - Complexity: O(*n*) in the names' lengths.
package func sqliteNamesEqual(_ a: String, _ b: String) -> Bool {
    asciiFoldedNamesEqual(a, b)
}

/// Whether SQLite takes `name` to begin with `prefix` (ASCII's capitals
/// and small letters alike), byte for byte.
///
/// - Complexity: O(*n*) in the prefix's length.
package func sqliteName(_ name: String, hasPrefix prefix: String) -> Bool {
    name.utf8.starts(with: prefix.utf8, by: asciiFoldedBytesEqual)
}

/// The name of `names` with the bytes of `name`, or else the one name it
/// matches with ASCII's capitals alike (as PostgreSQL folds a name written
/// without quotes): the server's own spelling either way, and `nil` when
/// none matches or several match only once folded. Byte by byte: Swift's
/// `==` takes two spellings of an accented letter as one, and a table may
/// hold a column of each.
///
/// - Complexity: O(*n*) in the names' total length.
package func postgresName(matching name: String, in names: [String]) -> String? {
    if let exact = names.first(where: { $0.utf8.elementsEqual(name.utf8) }) { return exact }
    let matches = names.filter { asciiFoldedNamesEqual($0, name) }
    return matches.count == 1 ? matches[0] : nil
}

/// `text` between two `quote`s, each `quote` in it doubled: an SQL
/// identifier (`"`) or string literal (`'`).
///
/// Byte by byte, as the database reads it: a quote followed by a combining
/// mark is one character to Swift (which a search by characters misses,
/// leaving the quote single) and a quote to SQL.
///
/// - Complexity: O(*n*) in the text's length.
package func sqlQuoted(_ text: String, by quote: UInt8) -> String {
    guard text.utf8.contains(quote) else {
        let mark = String(decoding: [quote], as: UTF8.self)
        return mark + text + mark
    }
    var bytes: [UInt8] = [quote]
    bytes.reserveCapacity(text.utf8.count + 8)
    for byte in text.utf8 {
        bytes.append(byte)
        if byte == quote { bytes.append(quote) }
    }
    bytes.append(quote)
    return String(decoding: bytes, as: UTF8.self)
}
