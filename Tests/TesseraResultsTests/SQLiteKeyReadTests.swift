import Testing
@testable import TesseraResultsCore
@testable import TesseraResultsSQLite
import TesseraSQLite
import TesseraTestSupport
import TesseraTestTraits

/// Reads by key on SQLite: several keys are read with one statement for up
/// to ``SQLiteRowReader/batchWidth`` of them (`… IN (?, …)`). Oracle: the
/// same keys read one statement per key.
@Suite("SQLite: rows read by key, several to a statement", .cpuBound)
struct SQLiteKeyReadTests {
    /// Rows as comparable text: the leading values, then the record's
    /// columns with their names.
    private static func rendered(_ leading: any LeadingValues, count: Int, _ row: Row) -> String {
        let lead = (0..<count).map { leading.value(at: $0).description }.joined(separator: ",")
        let values = zip(row.columnNames, row.values).map { "\($0)=\($1)" }.joined(separator: " ")
        return lead + " | " + values
    }

    private static func makeTable(_ db: Database, rows: Int, random: inout SplitMix64) throws {
        try db.execute("CREATE TABLE item (id INTEGER PRIMARY KEY, grp INTEGER, title TEXT)")
        let insert = try db.prepare("INSERT INTO item (id, grp, title) VALUES (?, ?, ?)")
        for id in 1...rows {
            // Every seventh row is hidden from the request's predicate.
            let title: DatabaseValue = id % 7 == 0 ? "hidden" : .text("title \(random.next() % 1_000)")
            try insert.withReset { statement in
                try statement.bind([.integer(Int64(id)), .integer(Int64(random.next() % 10)), title])
                _ = try statement.step()
            }
        }
    }

    /// Keys to read, each row's at most once: present, hidden, missing,
    /// and of other types (text, real) that the column's affinity makes
    /// integers.
    private static func keys(_ count: Int, rows: Int, random: inout SplitMix64) -> [DatabaseValue] {
        var ids = Array(1...Int64(rows + rows / 4))
        ids.shuffle(using: &random)
        return ids.prefix(count).map { id in
            switch random.next() % 10 {
            case 0: return .text("\(id)")
            case 1: return .real(Double(id))
            default: return .integer(id)
            }
        }
    }

    /// What `reader` gives for `keys`, read together and one at a time,
    /// and whether every row read together is one of a key given (its
    /// `id`, the record's first column).
    private static func both(_ reader: any RowReader, _ keys: [DatabaseValue], leading: Int) throws -> (together: Set<String>, apart: Set<String>, togetherCount: Int, onlyKeysGiven: Bool) {
        let given = Set(keys.compactMap { key -> Int64? in
            switch key {
            case let .integer(id): return id
            case let .real(id): return Int64(id)
            case let .text(id): return Int64(id)
            default: return nil
            }
        })
        var together: [String] = []
        var onlyKeysGiven = true
        try reader.readRows(keys: keys) { (values, row) throws(ResultsError) in
            together.append(rendered(values, count: leading, row))
            if case let .integer(id) = row.values[0], given.contains(id) {} else { onlyKeysGiven = false }
        }
        var apart = Set<String>()
        for key in keys {
            try reader.readRows(keys: [key]) { (values, row) throws(ResultsError) in apart.insert(rendered(values, count: leading, row)) }
        }
        return (Set(together), apart, together.count, onlyKeysGiven)
    }

    @Test("Keys read together give the rows they give one at a time, and only rows of those keys, for fetch and set requests (arguments, a top-level OR, more arguments than leave room for keys), at widths around the batch's")
    func togetherEqualsApart() throws {
        let seed = testSeed(default: 31)
        print("SQLiteKeyReadTests.togetherEqualsApart: seed \(seed) (set TESSERA_SEED to replay)")
        var random = SplitMix64(seed: seed)
        let rows = 3_000
        let connection = try Connection(path: ":memory:")
        try connection.withDatabase { db in try Self.makeTable(db, rows: rows, random: &random) }
        let store = SQLiteResultsStore(connection: connection)
        let fetch = FetchRequest(table: "item", predicate: "title != ?", arguments: ["hidden"], sortKeys: [SortKey("grp")], sectionKey: "grp")
        let set = SetRequest(table: "item", predicate: "title != ?", arguments: ["hidden"])
        // A predicate whose top level is an OR: the key's clause must
        // apply to all of it.
        let either = SetRequest(table: "item", predicate: "title != ? OR grp = ?", arguments: ["hidden", 3])
        // So many arguments of its own that the places for keys do not
        // fit in the parameters every SQLite accepts: a key at a time.
        let crowded = FetchRequest(
            table: "item", predicate: "title != ? AND id NOT IN (\(repeatElement("?", count: 490).joined(separator: ", ")))",
            arguments: ["hidden"] + (0..<490).map { .integer(-1 - Int64($0)) }, sortKeys: [SortKey("grp")]
        )
        let width = SQLiteRowReader.batchWidth
        for count in [2, 3, 8, 9, 64, 65, width - 1, width, width + 1, 2 * width + 7] {
            let keys = Self.keys(count, rows: rows, random: &random)
            try store.withReader(isolation: nil) { reader throws(ResultsError) in
                let queries = [
                    ("fetch", try reader.query(for: fetch), 2), ("set", try reader.query(for: set), 1),
                    ("set with OR", try reader.query(for: either), 1), ("fetch with 491 arguments", try reader.query(for: crowded), 2),
                ]
                // (The crowded request reads a key at a time whatever the
                // count: a few counts show it.)
                for (name, query, leading) in queries where count <= 65 || !name.contains("arguments") {
                    do {
                        let (together, apart, togetherCount, onlyKeysGiven) = try Self.both(query, keys, leading: leading)
                        #expect(together == apart, "seed \(seed), \(name), \(count) keys")
                        #expect(togetherCount == together.count, "seed \(seed), \(name), \(count) keys: a row read twice")
                        #expect(onlyKeysGiven, "seed \(seed), \(name), \(count) keys: a row of a key not given")
                        #expect(!together.isEmpty, "seed \(seed), \(name)")
                        if name != "set with OR" { #expect(!together.contains { $0.contains("hidden") }, "seed \(seed), \(name)") }
                    } catch {
                        Issue.record("seed \(seed), \(name), \(count) keys: \(error)")
                    }
                }
            }
        }
    }

    /// Readers of a fetch request and a set request over `db` that keep
    /// their statements as a change source's do.
    private static func keptReaders(_ db: Database, fetch: FetchRequest, set: SetRequest) -> [(name: String, reader: SQLiteRowReader, leading: Int, cache: SQLiteStatementCache)] {
        let fetchCache = SQLiteStatementCache(), setCache = SQLiteStatementCache()
        return [
            ("fetch", SQLiteRowReader(
                database: db, sql: { fetch.sql }, pointSQL: { fetch.pointSQL }, arguments: fetch.arguments, leadingColumns: 2,
                table: "item", keyColumn: "id", statements: fetchCache
            ), 2, fetchCache),
            ("set", SQLiteRowReader(
                recordQuery: set.query, pointQuery: set.rowQuery, database: db, table: "item", keyColumn: "id", predicate: set.predicate, statements: setCache
            ), 1, setCache),
        ]
    }

    @Test("A fetch request's and a set request's readers read several keys with one statement, and keep at most one of each width")
    func severalKeysOneStatement() throws {
        var random = SplitMix64(seed: 5)
        let connection = try Connection(path: ":memory:")
        try connection.withDatabase { db in
            try Self.makeTable(db, rows: 2_000, random: &random)
            let fetch = FetchRequest(table: "item", predicate: "title != ?", arguments: ["hidden"], sortKeys: [SortKey("grp")])
            let set = SetRequest(table: "item", predicate: "title != ? -- a comment", arguments: ["hidden"])
            for (name, reader, leading, cache) in Self.keptReaders(db, fetch: fetch, set: set) {
                for count in [1, 2, 7, 8, 40, 64, 300, 512, 1_300] {
                    let keys = Self.keys(count, rows: 2_000, random: &random)
                    let (together, apart, togetherCount, onlyKeysGiven) = try Self.both(reader, keys, leading: leading)
                    #expect(together == apart && togetherCount == together.count && onlyKeysGiven, "\(name), \(count) keys")
                }
                let kept = cache.statements.keys.sorted()
                #expect(kept.filter { $0.contains(" IN (") }.count == SQLiteRowReader.batchWidths.count, "\(name): \(kept)")
                #expect(kept.count == SQLiteRowReader.batchWidths.count + 1, "\(name): \(kept)")
            }
        }
    }

    @Test("A column added between two reads of many keys by a reader that keeps its statements: the second read's rows have it")
    func columnAddedBetweenReads() throws {
        var random = SplitMix64(seed: 7)
        let connection = try Connection(path: ":memory:")
        try connection.withDatabase { db in
            try Self.makeTable(db, rows: 600, random: &random)
            let fetch = FetchRequest(table: "item", sortKeys: [SortKey("grp")])
            let set = SetRequest(table: "item")
            let keys = (1...600).map { DatabaseValue.integer(Int64($0)) }
            let readers = Self.keptReaders(db, fetch: fetch, set: set)
            func columns(_ reader: SQLiteRowReader) throws -> Set<[String]> {
                var seen = Set<[String]>()
                var count = 0
                try reader.readRows(keys: keys) { (_, row) throws(ResultsError) in
                    seen.insert(row.columnNames)
                    count += 1
                }
                #expect(count == 600)
                return seen
            }
            for (_, reader, _, _) in readers { #expect(try columns(reader) == [["id", "grp", "title"]]) }
            try db.execute("ALTER TABLE item ADD COLUMN extra INTEGER DEFAULT 5")
            for (name, reader, _, cache) in readers {
                #expect(try columns(reader) == [["id", "grp", "title", "extra"]], "\(name)")
                #expect(cache.statements.keys.contains { $0.contains(" IN (") }, "\(name)")
            }
        }
    }
}
