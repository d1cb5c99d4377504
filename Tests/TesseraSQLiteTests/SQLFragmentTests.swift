import Foundation
import Testing
import TesseraDiff
import TesseraResults
import TesseraResultsCore
import TesseraSQLite
import TesseraTestSupport
import TesseraTestTraits

/// A row of `photo(id, album, taken, title)`.
struct Snap: FetchableRecord, Hashable {
    var id: Int64
    var album: String
    var taken: Int64
    var title: String

    init(row: Row) throws {
        id = row["id"].int64 ?? -1
        album = row["album"].string ?? ""
        taken = row["taken"].int64 ?? -1
        title = row["title"].string ?? ""
    }

    init(id: Int64, album: String, taken: Int64, title: String) {
        self.id = id
        self.album = album
        self.taken = taken
        self.title = title
    }
}

/// Texts that look like SQL's own punctuation, for titles and string
/// literals: inside quotes they are data.
private let trickyTitles = ["a;b", "-- not a comment", "/* nor this", ")", "(", "it's", "\"quoted\"", "plain", "x */ y", "[z]"]

/// A predicate made by ``SQLFragmentTests/randomPredicate(using:)``: its
/// SQL and what it means, to be evaluated in Swift.
struct GeneratedPredicate {
    var sql: String
    var matches: (Snap) -> Bool
}

@Suite("SQL fragments: a predicate, key or query can never change the statement around it", .cpuBound)
struct SQLFragmentTests {
    static func makePhotos(count: Int = 60, seed: UInt64 = 7) throws -> Connection {
        var generator = SplitMix64(seed: seed)
        let connection = try Connection(path: ":memory:")
        try connection.write { db in
            try db.execute("CREATE TABLE photo (id INTEGER PRIMARY KEY, album TEXT NOT NULL, taken INTEGER NOT NULL, title TEXT NOT NULL)")
            for id in 1...count {
                try db.execute("INSERT INTO photo VALUES (?, ?, ?, ?)", [
                    .integer(Int64(id)), .text(["Rome", "Oslo", "Lima"][Int.random(in: 0..<3, using: &generator)]),
                    .integer(Int64.random(in: 0..<40, using: &generator)), .text(trickyTitles[Int.random(in: 0..<trickyTitles.count, using: &generator)]),
                ])
            }
        }
        return connection
    }

    /// Every photo, read straight from the table.
    static func allPhotos(_ connection: Connection) throws -> [Snap] {
        try connection.read { db in
            try db.rows("SELECT id, album, taken, title FROM photo").map {
                Snap(id: $0[0].int64 ?? -1, album: $0[1].string ?? "", taken: $0[2].int64 ?? -1, title: $0[3].string ?? "")
            }
        }
    }

    /// The expected result: the photos that match, by album (when
    /// sectioned), then newest first, then by id.
    static func expected(_ photos: [Snap], _ predicate: (Snap) -> Bool, sectioned: Bool) -> [Int64] {
        photos.filter(predicate).sorted { a, b in
            if sectioned && a.album != b.album { return a.album < b.album }
            if a.taken != b.taken { return a.taken > b.taken }
            return a.id < b.id
        }.map(\.id)
    }

    static func request(predicate: String, sectioned: Bool) -> FetchRequest {
        FetchRequest(
            table: "photo", predicate: predicate,
            sortKeys: (sectioned ? [SortKey("album")] : []) + [SortKey("taken", ascending: false)],
            sectionKey: sectioned ? "album" : nil
        )
    }

    @Test("A predicate ending in a -- comment keeps the ORDER BY, with and without sections, and stays right after commits")
    func lineCommentKeepsOrder() throws {
        let connection = try Self.makePhotos()
        for sectioned in [false, true] {
            let controller = try FetchedResultsController<Snap>(connection: connection, request: Self.request(predicate: "taken >= 0 -- every photo", sectioned: sectioned))
            try controller.performFetch()
            #expect(controller.snapshot.allItems.map(\.id) == Self.expected(try Self.allPhotos(connection), { _ in true }, sectioned: sectioned))
            try connection.write { db in try db.execute("UPDATE photo SET taken = 99 WHERE id = 5") }
            #expect(controller.lastUpdateMethod == .incremental)
            #expect(controller.snapshot.allItems.map(\.id) == Self.expected(try Self.allPhotos(connection), { _ in true }, sectioned: sectioned))
            try connection.write { db in try db.execute("UPDATE photo SET taken = 7 WHERE id = 5") }
        }
    }

    @Test("A -- comment whose second dash carries a combining mark (one character, two dashes to SQLite) keeps the ORDER BY too; identifiers are quoted with inner quotes doubled")
    func lineCommentByBytes() throws {
        let connection = try Self.makePhotos()
        for sectioned in [false, true] {
            let controller = try FetchedResultsController<Snap>(connection: connection, request: Self.request(predicate: "taken >= 0 -\u{2D}\u{301} every photo", sectioned: sectioned))
            try controller.performFetch()
            #expect(controller.snapshot.allItems.map(\.id) == Self.expected(try Self.allPhotos(connection), { _ in true }, sectioned: sectioned))
        }
        #expect(SQLFragment.spliced("a -\u{2D}\u{301}") == "a -\u{2D}\u{301}\n")
        #expect(SQLFragment.spliced("a -\u{301}- b") == "a -\u{301}- b")
        #expect(SQLFragment.spliced("a - b") == "a - b")
        #expect(quotedIdentifier("photo") == "\"photo\"")
        #expect(quotedIdentifier("a\"b\"") == "\"a\"\"b\"\"\"")
    }

    @Test("SQL text is read byte by byte, as SQLite reads it: a quote, a parameter's mark or a name followed by a combining mark (one character to Swift) is still quoted, found or told apart")
    func namesAndMarksByBytes() throws {
        // A table whose name holds a quote followed by a combining mark:
        // the quote is doubled, and the table fetched and followed.
        let table = "a\"\u{301}b"
        #expect(Array(quotedIdentifier(table).utf8) == Array("\"a\"\"\u{301}b\"".utf8))
        #expect(Array(DatabaseValue.text("it'\u{301}s").description.utf8) == Array("'it''\u{301}s'".utf8))
        let connection = try Connection(path: ":memory:")
        try connection.write { db in
            try db.execute("CREATE TABLE \(quotedIdentifier(table)) (id INTEGER PRIMARY KEY, album TEXT NOT NULL, taken INTEGER NOT NULL, title TEXT NOT NULL)")
            try db.execute("INSERT INTO \(quotedIdentifier(table)) VALUES (1, 'Rome', 3, 'x'), (2, 'Oslo', 1, 'y')")
        }
        let controller = try FetchedResultsController<Snap>(connection: connection, request: FetchRequest(table: table, sortKeys: [SortKey("taken")]))
        try controller.performFetch()
        #expect(controller.snapshot.allItems.map(\.id) == [2, 1])
        try connection.write { db in try db.execute("UPDATE \(quotedIdentifier(table)) SET taken = 0 WHERE id = 1") }
        #expect(controller.snapshot.allItems.map(\.id) == [1, 2])
        #expect(controller.lastUpdateMethod == .incremental)

        // A parameter's mark followed by a combining mark is a parameter to
        // SQLite: the lazy fetch does not select such a sort key ahead of
        // the predicate (its parameters would be bound out of order).
        #expect(SQLFragment.mayHoldParameter("abs(taken - :\u{301})"))
        #expect(SQLFragment.mayHoldParameter("x $\u{301}") && SQLFragment.mayHoldParameter("@\u{301}") && !SQLFragment.mayHoldParameter("taken * 2"))
        let marked = FetchRequest(table: "photo", predicate: "taken >= ?", arguments: [.integer(0), .integer(5)], sortKeys: [SortKey("abs(taken - :\u{301})")])
        let selected = marked.tupleSQL.prefix { $0 != "F" }
        #expect(selected.hasPrefix("SELECT ") && !selected.contains("abs(taken"), "\(marked.tupleSQL)")

        // A section key and a first sort key equal to Swift but not to
        // SQLite (é composed, and e with a combining accent) are refused.
        let composed = FetchRequest(table: "photo", sortKeys: [SortKey("cafe\u{301}")], sectionKey: "caf\u{E9}")
        #expect(throws: ResultsError.self) { try composed.validate() }

        // Bare column names, as the databases read them.
        #expect(bareColumnName(" \"Album\" ", foldingUnquoted: true) == "Album")
        #expect(bareColumnName("ALBUM", foldingUnquoted: true) == "album")
        #expect(bareColumnName("\u{C4}b", foldingUnquoted: true).map { Array($0.utf8) } == Array("\u{C4}b".utf8))
        #expect(bareColumnName("\"a\"\"b\"", foldingUnquoted: true) == "a\"b")
        #expect(bareColumnName("\"x\"\"\u{301}\"", foldingUnquoted: true).map { Array($0.utf8) } == Array("x\"\u{301}".utf8))
        for expression in ["\"a\"b\"", "a+b", "123", "$1", "\"a\"\u{301}", "", "  ", "taken DESC"] {
            #expect(bareColumnName(expression, foldingUnquoted: true) == nil, "\(expression)")
        }
        #expect(asciiLowercased("\u{C4}BC") .utf8.elementsEqual("\u{C4}bc".utf8))
    }

    @Test("A ; in a predicate is refused with an error naming the predicate; the table is untouched", arguments: [
        "1=1; DROP TABLE photo", "taken > 3;", "1 -- fine\n; DELETE FROM photo",
    ])
    func semicolonRefused(predicate: String) throws {
        let connection = try Self.makePhotos()
        let error = try #require(throws: ResultsError.self) {
            _ = try FetchedResultsController<Snap>(connection: connection, request: Self.request(predicate: predicate, sectioned: false))
        }
        guard case let .invalidSQL(part, sql, problem) = error else { Issue.record("\(error)"); return }
        #expect(part == "predicate")
        #expect(sql == predicate)
        #expect(problem.contains("';'"))
        #expect(error.description.contains(predicate))
        #expect(try Self.allPhotos(connection).count == 60)
    }

    @Test("Comments: a closed /* */ is fine anywhere, an open one is refused, and quotes hide what looks like SQL")
    func commentsAndQuotes() throws {
        let connection = try Self.makePhotos()
        let photos = try Self.allPhotos(connection)
        let accepted: [(String, (Snap) -> Bool)] = [
            ("/* first */ taken < 20 /* ; ) -- */", { $0.taken < 20 }),
            ("title = 'a;b' OR title = '-- not a comment'", { $0.title == "a;b" || $0.title == "-- not a comment" }),
            ("title IN (')', '(', 'it''s') -- ) ; ORDER BY id", { [")", "(", "it's"].contains($0.title) }),
            ("\"title\" <> '/* nor this' AND [taken] >= 10", { $0.title != "/* nor this" && $0.taken >= 10 }),
        ]
        for (predicate, matches) in accepted {
            let controller = try FetchedResultsController<Snap>(connection: connection, request: Self.request(predicate: predicate, sectioned: true))
            try controller.performFetch()
            #expect(controller.snapshot.allItems.map(\.id) == Self.expected(photos, matches, sectioned: true), "\(predicate)")
        }
        let refused: [(String, String)] = [
            ("taken < 20 /* and the rest", "/* comment"),
            ("taken < 20) ORDER BY id DESC --", "closes a parenthesis"),
            ("1) /*", "closes a parenthesis"),
            ("(taken < 20", "parenthesis open"),
            ("title = 'open", "quote"),
            ("taken < 20 \u{0}", "NUL"),
            ("  ", "empty"),
        ]
        for (predicate, reason) in refused {
            let error = try #require(throws: ResultsError.self, "\(predicate)") {
                _ = try FetchedResultsController<Snap>(connection: connection, request: Self.request(predicate: predicate, sectioned: false))
            }
            #expect(error.description.contains(reason), "\(predicate): \(error)")
        }
    }

    @Test("Named parameters: what SQLite reads as part of one ($a(…), Tcl's array syntax) cannot hide a comment, a quote or a parenthesis, and ordinary ones bind")
    func namedParameters() throws {
        let connection = try Self.makePhotos()
        let photos = try Self.allPhotos(connection)
        // SQLite reads `$a(')` as one parameter, so a quote that seems to
        // hide `) /*` from a reader that does not know it would leave that
        // comment free to swallow the ORDER BY.
        for predicate in ["1 OR $a(') ) /* ')", "1 OR :a(') ) /* ')", "1 OR @a(') ) /* ')", "1 OR #a(') ) /* ')", "1 OR $a(--) ) /* \n)", "1 OR $b::c(') ) /* ')", "1 OR $a(x"] {
            let request = Self.request(predicate: predicate, sectioned: false)
            guard let controller = try? FetchedResultsController<Snap>(connection: connection, request: request) else { continue }
            // Accepted: then SQLite must fail on it, or keep the order.
            if (try? controller.performFetch()) != nil {
                #expect(controller.snapshot.allItems.map(\.id) == Self.expected(photos, { _ in true }, sectioned: false), "\(predicate)")
            }
        }
        let accepted: [(String, [DatabaseValue], (Snap) -> Bool)] = [
            ("taken < $limit AND album <> :skip", [.integer(20), .text("Rome")], { $0.taken < 20 && $0.album != "Rome" }),
            ("taken < $a(1) OR title = @t", [.integer(5), .text("it's")], { $0.taken < 5 || $0.title == "it's" }),
            ("taken >= $a::b(x) -- ')", [.integer(30)], { $0.taken >= 30 }),
        ]
        for (predicate, arguments, matches) in accepted {
            var request = Self.request(predicate: predicate, sectioned: true)
            request.arguments = arguments
            let controller = try FetchedResultsController<Snap>(connection: connection, request: request)
            try controller.performFetch()
            #expect(controller.snapshot.allItems.map(\.id) == Self.expected(photos, matches, sectioned: true), "\(predicate)")
        }
    }

    @Test("20,000 random fragments of SQL punctuation: a fragment is accepted when, and only when, SQLite's own tokenizer ends its last token within it and finds no ';', no stray parenthesis (nor, in an expression, a comma), short of tokens SQLite refuses anyway", arguments: [SQLFragment.Kind.condition, .expression])
    func fragmentsAgreeWithSQLitesTokenizer(kind: SQLFragment.Kind) throws {
        let seed = testSeed(default: 0x70C)
        var generator = SplitMix64(seed: seed)
        let pieces = [
            "'", "\"", "`", "[", "]", "(", ")", "--", "/*", "*/", "*", "/", "-", ";", ",", "\n", "\r", " ", "$a", "$a(", ":b(", "@c", "#d(", "::",
            "?", "?2", "1", "1e-", "0x", ".5", "x", "x'", "x'41'", "é", "'it''s'", "\"x\"\"y\"", "title", "OR",
        ]
        var accepted = 0
        var refused = 0
        for round in 0..<20_000 {
            let fragment = (0..<Int.random(in: 1...7, using: &generator)).map { _ in pieces[Int.random(in: 0..<pieces.count, using: &generator)] }.joined()
            let comment = Comment(rawValue: "seed \(seed), round \(round), \(kind): \(fragment.debugDescription)")
            let reference = SQLiteTokens.read(fragment, as: kind)
            let problem = SQLFragment.problem(in: fragment, as: kind)
            // Accepted only if SQLite ends it within itself; refused only
            // if it does not, or if SQLite would refuse one of its tokens.
            if problem == nil {
                #expect(reference.staysWithin, comment)
            } else {
                #expect(!reference.staysWithin || reference.hasIllegalToken, "\(comment): \(problem ?? "")")
            }
            if problem == nil { accepted += 1 } else { refused += 1 }
        }
        #expect(accepted > 1_000 && refused > 1_000, "seed \(seed): \(accepted) accepted, \(refused) refused")
    }

    @Test("Your own SELECT: a trailing -- comment keeps the ORDER BY, a second statement is refused")
    func ownSelect() throws {
        let connection = try Self.makePhotos()
        let photos = try Self.allPhotos(connection)
        let request = FetchRequest(query: "SELECT * FROM photo WHERE taken < 30 -- recent ones", sortKeys: [SortKey("taken", ascending: false)])
        let controller = try FetchedResultsController<Snap>(connection: connection, request: request)
        try controller.performFetch()
        #expect(controller.snapshot.allItems.map(\.id) == Self.expected(photos, { $0.taken < 30 }, sectioned: false))
        let error = try #require(throws: ResultsError.self) {
            _ = try FetchedResultsController<Snap>(connection: connection, request: FetchRequest(query: "SELECT * FROM photo; DROP TABLE photo"))
        }
        guard case .invalidSQL(part: "query", sql: _, problem: _) = error else { Issue.record("\(error)"); return }
        #expect(try Self.allPhotos(connection).count == 60)
    }

    @Test("Sort and section keys: a -- comment keeps the direction and the key order; a comma or a ; is refused")
    func keys() throws {
        let connection = try Self.makePhotos()
        let photos = try Self.allPhotos(connection)
        let request = FetchRequest(table: "photo", sortKeys: [SortKey("album -- by place"), SortKey("taken -- newest first", ascending: false)], sectionKey: "album -- by place")
        let controller = try FetchedResultsController<Snap>(connection: connection, request: request)
        try controller.performFetch()
        #expect(controller.snapshot.allItems.map(\.id) == Self.expected(photos, { _ in true }, sectioned: true))
        #expect(controller.sections.map(\.value) == ["Lima", "Oslo", "Rome"])
        for bad in [FetchRequest(table: "photo", sortKeys: [SortKey("taken DESC, id")]),
                    FetchRequest(table: "photo", sortKeys: [SortKey("album, 1")], sectionKey: "album, 1"),
                    FetchRequest(table: "photo", sortKeys: [SortKey("taken; DROP TABLE photo")])] {
            #expect(throws: ResultsError.self) { _ = try FetchedResultsController<Snap>(connection: connection, request: bad) }
        }
    }

    @Test("The set and relational controllers refuse the same predicates and keys, and read -- comments right")
    func family() throws {
        let connection = try Self.makePhotos()
        let set = FetchedSetController<Snap>(connection: connection, request: SetRequest(table: "photo", predicate: "taken < 10 -- old"))
        try set.performFetch()
        #expect(Set(set.records.map(\.id)) == Set(try Self.allPhotos(connection).filter { $0.taken < 10 }.map(\.id)))
        try connection.write { db in try db.execute("UPDATE photo SET taken = 1 WHERE id = 1") }
        #expect(Set(set.records.map(\.id)) == Set(try Self.allPhotos(connection).filter { $0.taken < 10 }.map(\.id)))
        let badSet = FetchedSetController<Snap>(connection: connection, request: SetRequest(table: "photo", predicate: "1; DELETE FROM photo"))
        #expect(throws: ResultsError.self) { try badSet.performFetch() }
        try connection.write { db in
            try db.execute("CREATE TABLE place (id TEXT PRIMARY KEY, name TEXT)")
            try db.execute("INSERT INTO place VALUES ('Rome', 'Rome'), ('Oslo', 'Oslo')")
        }
        let relational = RelationalResultsController<Place, Snap>(
            connection: connection,
            parents: ParentRequest(table: "place", sortKeys: [SortKey("name -- a to z")]),
            children: ChildRequest(table: "photo", foreignKeyColumn: "album", predicate: "taken >= 20 -- recent", sortKeys: [SortKey("taken -- newest", ascending: false)])
        )
        try relational.performFetch()
        #expect(relational.snapshot.sections.map(\.id) == ["Oslo", "Rome"])
        let photos = try Self.allPhotos(connection)
        let oslo = Self.expected(photos.filter { $0.album == "Oslo" }, { $0.taken >= 20 }, sectioned: false)
        let rome = Self.expected(photos.filter { $0.album == "Rome" }, { $0.taken >= 20 }, sectioned: false)
        #expect(relational.snapshot.allItems.map(\.id) == oslo + rome)
        let badRelational = RelationalResultsController<Place, Snap>(
            connection: connection,
            parents: ParentRequest(table: "place", sortKeys: [SortKey("name) --")]),
            children: ChildRequest(table: "photo", foreignKeyColumn: "album")
        )
        #expect(throws: ResultsError.self) { try badRelational.performFetch() }
    }

    /// A random predicate over `photo`: comparisons joined by AND, OR and
    /// NOT, with closed comments, string literals holding punctuation, and
    /// a trailing `--` comment with SQL after it, all of which must be
    /// read as SQLite reads them.
    static func randomPredicate(using generator: inout SplitMix64, depth: Int = 0) -> GeneratedPredicate {
        func comment() -> String {
            switch Int.random(in: 0..<6, using: &generator) {
            case 0: return " /* ; ) ORDER BY id */ "
            case 1: return " /**/"
            default: return " "
            }
        }
        if depth >= 3 || Int.random(in: 0..<3, using: &generator) == 0 {
            let bound = Int64.random(in: 0..<40, using: &generator)
            let title = trickyTitles[Int.random(in: 0..<trickyTitles.count, using: &generator)]
            let literal = "'" + title.replacingOccurrences(of: "'", with: "''") + "'"
            switch Int.random(in: 0..<4, using: &generator) {
            case 0: return GeneratedPredicate(sql: "taken >=\(comment())\(bound)", matches: { $0.taken >= bound })
            case 1: return GeneratedPredicate(sql: "\"taken\" < \(bound)", matches: { $0.taken < bound })
            case 2: return GeneratedPredicate(sql: "title =\(comment())\(literal)", matches: { $0.title == title })
            default: return GeneratedPredicate(sql: "[title] <> \(literal)", matches: { $0.title != title })
            }
        }
        let left = randomPredicate(using: &generator, depth: depth + 1)
        let right = randomPredicate(using: &generator, depth: depth + 1)
        switch Int.random(in: 0..<3, using: &generator) {
        case 0: return GeneratedPredicate(sql: "(\(left.sql) AND\(comment())\(right.sql))", matches: { left.matches($0) && right.matches($0) })
        case 1: return GeneratedPredicate(sql: "((\(left.sql))\(comment())OR (\(right.sql)))", matches: { left.matches($0) || right.matches($0) })
        default: return GeneratedPredicate(sql: "NOT (\(left.sql))", matches: { !left.matches($0) })
        }
    }

    @Test("400 random predicates, clean or with something that reaches past them: each is refused, or its result equals the Swift oracle in sort order, also after commits")
    func randomPredicates() throws {
        let seed = testSeed(default: 0x5A1)
        var generator = SplitMix64(seed: seed)
        let connection = try Self.makePhotos(seed: seed)
        var accepted = 0
        var refused = 0
        for round in 0..<400 {
            var predicate = Self.randomPredicate(using: &generator)
            // Half the time, something that reaches past the predicate.
            var hostile = false
            switch Int.random(in: 0..<10, using: &generator) {
            case 0: predicate.sql += "; DROP TABLE photo"; hostile = true
            case 1: predicate.sql += ") OR (1"; hostile = true
            case 2: predicate.sql += " /* ) ORDER BY id"; hostile = true
            case 3: predicate.sql = "1) UNION SELECT 1, 1, 1, 1, 1, 1 --" ; hostile = true
            case 4: predicate.sql += " AND title = 'open"; hostile = true
            case 5...7: predicate.sql += " -- ) ORDER BY id DESC; DROP TABLE photo"
            default: break
            }
            let sectioned = Bool.random(using: &generator)
            let comment = Comment(rawValue: "seed \(seed), round \(round): \(predicate.sql)")
            let request = Self.request(predicate: predicate.sql, sectioned: sectioned)
            guard let controller = try? FetchedResultsController<Snap>(connection: connection, request: request) else {
                #expect(hostile, comment)
                refused += 1
                continue
            }
            #expect(!hostile, comment)
            accepted += 1
            try controller.performFetch()
            #expect(controller.snapshot.allItems.map(\.id) == Self.expected(try Self.allPhotos(connection), predicate.matches, sectioned: sectioned), comment)
            // A commit patches or re-fetches through the same predicate.
            let id = Int64.random(in: 1...60, using: &generator)
            try connection.write { db in
                try db.execute("UPDATE photo SET taken = ?, title = ? WHERE id = ?", [
                    .integer(Int64.random(in: 0..<40, using: &generator)),
                    .text(trickyTitles[Int.random(in: 0..<trickyTitles.count, using: &generator)]), .integer(id),
                ])
            }
            #expect(controller.lastError == nil, comment)
            #expect(controller.snapshot.allItems.map(\.id) == Self.expected(try Self.allPhotos(connection), predicate.matches, sectioned: sectioned), comment)
        }
        #expect(accepted > 150 && refused > 100, "seed \(seed): \(accepted) accepted, \(refused) refused")
        #expect(try Self.allPhotos(connection).count == 60)
    }
}

/// A row of `place(id, name)`.
struct Place: FetchableRecord, Hashable {
    var id: String
    var name: String

    init(row: Row) throws {
        id = row["id"].string ?? ""
        name = row["name"].string ?? ""
    }
}

/// SQLite's tokenizer (`sqlite3GetToken` in tokenize.c), written out again
/// for the tests as an oracle: where each token ends, and what it is.
enum SQLiteTokens {
    enum Kind { case space, comment, semicolon, open, close, comma, other, illegal }

    /// The length and kind of the token at `start` of `z` (read as SQLite
    /// reads a C string: a NUL, or the end, ends it).
    static func token(_ z: [UInt8], at start: Int) -> (length: Int, kind: Kind) {
        func at(_ i: Int) -> UInt8 { start + i < z.count ? z[start + i] : 0 }
        func isDigit(_ c: UInt8) -> Bool { (0x30...0x39).contains(c) }
        func isHex(_ c: UInt8) -> Bool { isDigit(c) || (0x41...0x46).contains(c) || (0x61...0x66).contains(c) }
        func isSpace(_ c: UInt8) -> Bool { (0x09...0x0D).contains(c) || c == 0x20 }
        func isIDChar(_ c: UInt8) -> Bool { c >= 0x80 || c == 0x5F || c == 0x24 || isDigit(c) || (0x41...0x5A).contains(c) || (0x61...0x7A).contains(c) }
        let c0 = at(0)
        switch c0 {
        case 0x20, 0x09, 0x0A, 0x0C, 0x0D:
            var i = 1
            while [0x20, 0x09, 0x0A, 0x0C, 0x0D].contains(at(i)) { i += 1 }
            return (i, .space)
        case UInt8(ascii: "-"):
            guard at(1) == UInt8(ascii: "-") else { return (1, .other) }
            var i = 2
            while at(i) != 0 && at(i) != 0x0A { i += 1 }
            return (i, .comment)
        case UInt8(ascii: "/"):
            guard at(1) == UInt8(ascii: "*"), at(2) != 0 else { return (1, .other) }
            var i = 3
            var c = at(2)
            while c != UInt8(ascii: "*") || at(i) != UInt8(ascii: "/") {
                c = at(i)
                if c == 0 { break }
                i += 1
            }
            if c != 0 { i += 1 }
            return (i, .comment)
        case UInt8(ascii: "("): return (1, .open)
        case UInt8(ascii: ")"): return (1, .close)
        case UInt8(ascii: ";"): return (1, .semicolon)
        case UInt8(ascii: ","): return (1, .comma)
        case UInt8(ascii: "'"), UInt8(ascii: "\""), UInt8(ascii: "`"):
            var i = 1
            while at(i) != 0 {
                if at(i) == c0 {
                    if at(i + 1) == c0 { i += 2; continue }
                    return (i + 1, .other)
                }
                i += 1
            }
            return (i, .other)
        case UInt8(ascii: "["):
            var i = 1
            while at(i) != 0 && at(i) != UInt8(ascii: "]") { i += 1 }
            return (at(i) == 0 ? i : i + 1, .other)
        case UInt8(ascii: "?"):
            var i = 1
            while isDigit(at(i)) { i += 1 }
            return (i, .other)
        case UInt8(ascii: "$"), UInt8(ascii: "@"), UInt8(ascii: ":"), UInt8(ascii: "#"):
            var i = 1
            var n = 0
            while at(i) != 0 {
                let c = at(i)
                if isIDChar(c) {
                    n += 1
                } else if c == UInt8(ascii: "("), n > 0 {
                    repeat { i += 1 } while at(i) != 0 && !isSpace(at(i)) && at(i) != UInt8(ascii: ")")
                    guard at(i) == UInt8(ascii: ")") else { return (i, .illegal) }
                    return (i + 1, .other)
                } else if c == UInt8(ascii: ":"), at(i + 1) == UInt8(ascii: ":") {
                    i += 1
                } else {
                    break
                }
                i += 1
            }
            return (i, n == 0 ? .illegal : .other)
        case UInt8(ascii: "x") where at(1) == UInt8(ascii: "'"), UInt8(ascii: "X") where at(1) == UInt8(ascii: "'"):
            var i = 2
            while isHex(at(i)) { i += 1 }
            var kind = Kind.other
            if at(i) != UInt8(ascii: "'") || i % 2 != 0 {
                kind = .illegal
                while at(i) != 0 && at(i) != UInt8(ascii: "'") { i += 1 }
            }
            if at(i) != 0 { i += 1 }
            return (i, kind)
        case UInt8(ascii: "."), UInt8(ascii: "0")...UInt8(ascii: "9"):
            if c0 == UInt8(ascii: "."), !isDigit(at(1)) { return (1, .other) }
            if c0 == UInt8(ascii: "0"), at(1) == UInt8(ascii: "x") || at(1) == UInt8(ascii: "X"), isHex(at(2)) {
                var i = 3
                while isHex(at(i)) { i += 1 }
                return (i, .other)
            }
            var i = 0
            while isDigit(at(i)) { i += 1 }
            if at(i) == UInt8(ascii: ".") {
                i += 1
                while isDigit(at(i)) { i += 1 }
            }
            if at(i) == UInt8(ascii: "e") || at(i) == UInt8(ascii: "E"),
               isDigit(at(i + 1)) || ((at(i + 1) == UInt8(ascii: "+") || at(i + 1) == UInt8(ascii: "-")) && isDigit(at(i + 2))) {
                i += 2
                while isDigit(at(i)) { i += 1 }
            }
            guard isIDChar(at(i)) else { return (i, .other) }
            while isIDChar(at(i)) { i += 1 }
            return (i, .illegal)
        default:
            guard isIDChar(c0) else { return (1, .other) }
            var i = 1
            while isIDChar(at(i)) { i += 1 }
            return (i, .other)
        }
    }

    /// Whether SQLite reads the fragment, as Tessera splices it, as tokens
    /// of its own: none runs on into what follows it (a quote, a comment,
    /// a parameter's `(…)` left open), none is a `;`, no `)` closes what
    /// it did not open and none is left open, and, as an expression, none
    /// is a comma outside parentheses. (A fragment of white space only, or
    /// holding a NUL, is refused too.)
    static func staysWithin(_ fragment: String, as kind: SQLFragment.Kind) -> Bool {
        read(fragment, as: kind).staysWithin
    }

    /// ``staysWithin(_:as:)``, and whether a token of the fragment is one
    /// SQLite refuses (a parameter with no name or an unclosed `(…)`, a
    /// malformed blob or number), so that preparing it fails anyway.
    static func read(_ fragment: String, as kind: SQLFragment.Kind) -> (staysWithin: Bool, hasIllegalToken: Bool) {
        var illegal = false
        let text = Array(SQLFragment.spliced(fragment).utf8)
        guard !text.contains(0), !text.allSatisfy({ [0x20, 0x09, 0x0A, 0x0C, 0x0D].contains($0) }) else { return (false, illegal) }
        // What follows it in Tessera's statements.
        for tail in [")", " ASC", " AS tessera_section", "\n) AND 1"] {
            let z = text + Array(tail.utf8)
            var index = 0
            var depth = 0
            while index < text.count {
                let (length, tokenKind) = token(z, at: index)
                index += length
                // White space may run on into the tail's; nothing else may.
                guard index <= text.count || tokenKind == .space else { return (false, illegal) }
                switch tokenKind {
                case .semicolon: return (false, illegal)
                case .open: depth += 1
                case .close:
                    depth -= 1
                    if depth < 0 { return (false, illegal) }
                case .comma: if kind == .expression && depth == 0 { return (false, illegal) }
                case .illegal: illegal = true
                case .space, .comment, .other: break
                }
            }
            if depth != 0 { return (false, illegal) }
        }
        return (true, illegal)
    }
}
