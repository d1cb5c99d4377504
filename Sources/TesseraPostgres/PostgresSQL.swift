import TesseraResultsCore

/// The SQL Tessera sends to PostgreSQL for a request: the same request as
/// on SQLite, in PostgreSQL's dialect (`$1` parameters, `COLLATE "C"`).
enum PostgresSQL {
    /// Replaces each `?` outside string constants, quoted names, comments
    /// and dollar-quoted strings with `$first`, `$first+1`…
    ///
    /// - Returns: The SQL and how many parameters it has.
    /// - Complexity: O(*n*) for *n* characters.
    static func numbered(_ sql: String, from first: Int = 1) -> (sql: String, count: Int) {
        let scalars = Array(sql.unicodeScalars)
        var out = String.UnicodeScalarView()
        var next = first
        var i = 0
        func copy(until end: Int) {
            while i < end && i < scalars.count {
                out.append(scalars[i])
                i += 1
            }
        }
        while i < scalars.count {
            let c = scalars[i]
            switch c {
            case "'", "\"":
                // To the closing quote; a doubled quote stays inside.
                var j = i + 1
                while j < scalars.count {
                    if scalars[j] == c {
                        if j + 1 < scalars.count && scalars[j + 1] == c { j += 2; continue }
                        break
                    }
                    j += 1
                }
                copy(until: j + 1)
            case "-" where i + 1 < scalars.count && scalars[i + 1] == "-":
                var j = i
                while j < scalars.count && scalars[j] != "\n" { j += 1 }
                copy(until: j)
            case "/" where i + 1 < scalars.count && scalars[i + 1] == "*":
                var depth = 0
                var j = i
                while j < scalars.count {
                    if scalars[j] == "/" && j + 1 < scalars.count && scalars[j + 1] == "*" { depth += 1; j += 2; continue }
                    if scalars[j] == "*" && j + 1 < scalars.count && scalars[j + 1] == "/" {
                        depth -= 1
                        j += 2
                        if depth == 0 { break }
                        continue
                    }
                    j += 1
                }
                copy(until: j)
            case "$":
                // $tag$ … $tag$ (a tag of letters, digits and _, not
                // starting with a digit), else a `$1` as written.
                var j = i + 1
                while j < scalars.count, scalars[j] == "_" || scalars[j].properties.isAlphabetic || (j > i + 1 && ("0"..."9").contains(scalars[j])) { j += 1 }
                if j < scalars.count, scalars[j] == "$", j == i + 1 || !("0"..."9").contains(scalars[i + 1]) {
                    let tag = Array(scalars[i...j])
                    var k = j + 1
                    while k + tag.count <= scalars.count && Array(scalars[k..<(k + tag.count)]) != tag { k += 1 }
                    copy(until: min(scalars.count, k + tag.count))
                } else {
                    copy(until: i + 1)
                }
            case "?":
                out.append(contentsOf: "$\(next)".unicodeScalars)
                next += 1
                i += 1
            default:
                out.append(c)
                i += 1
            }
        }
        return (String(out), next - first)
    }

    /// A sort key in PostgreSQL's words: its expression, `COLLATE "C"` for
    /// ``TesseraResults/Collation/binary``, its direction and its NULLs.
    ///
    /// - Throws: ``TesseraResults/ResultsError/invalidSQL(part:sql:problem:)``
    ///   for a collation PostgreSQL does not have.
    static func orderTerm(_ key: SortKey) throws(ResultsError) -> String {
        var text = SQLFragment.spliced(key.expression)
        switch key.collation {
        case nil: break
        case .binary?: text += " COLLATE \"C\""
        case let collation?:
            throw .invalidSQL(
                part: "sort key", sql: key.expression,
                problem: "PostgreSQL has no \(collation.rawValue) collation: sort by lower(\(key.expression)) or a column of a case-insensitive type instead"
            )
        }
        return text + (key.ascending ? " ASC" : " DESC") + key.nullsSQL
    }

    /// A list of keys as one text parameter PostgreSQL reads as `text[]`:
    /// `{"1","two"}`, each element quoted and escaped.
    ///
    /// Escaped byte by byte, as the server reads it: a `"` or `\\` followed
    /// by a combining mark is one character to Swift, and two to the
    /// server.
    static func textArray(_ elements: [String]) -> String {
        var bytes: [UInt8] = [UInt8(ascii: "{")]
        for (index, element) in elements.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            bytes.append(UInt8(ascii: "\""))
            for byte in element.utf8 {
                if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") { bytes.append(UInt8(ascii: "\\")) }
                bytes.append(byte)
            }
            bytes.append(UInt8(ascii: "\""))
        }
        bytes.append(UInt8(ascii: "}"))
        return String(decoding: bytes, as: UTF8.self)
    }
}
