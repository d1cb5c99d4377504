import Foundation
import Testing
import TesseraDiff
import TesseraResults
import TesseraResultsTestSupport
import TesseraSQLite
import TesseraTestSupport
import TesseraTestTraits

// Runs on every store (ResultsStoreFixture.all): patching against
// re-fetching under random transactions and scripts, moves in large
// sections, the threshold, one far move, a slow consumer, and the edge
// cases of a same-table subquery, a failed re-fetch and odd thresholds.
// Single-store (SQLite): Collation.compare against SQLite's ORDER BY, which
// requests SQLite's patch plan refuses (views, rowid), another connection
// or process committing (data_version), rows read through the pre-update
// hook after ADD COLUMN … DEFAULT, a delegate reading the controller's
// connection, text compared by its bytes as SQLite does, a DELETE prepared
// before the controller (SQLite's truncate), and SQLite's parameter forms.

/// A row of any table, compared on every column.
struct AnyRow: FetchableRecord {
    var id: DatabaseValue
    var values: [DatabaseValue]

    init(row: Row) throws {
        id = row[0]
        values = row.values
    }
}

/// Values of every storage class, with the cases SQLite's ordering turns on:
/// integers and reals that are equal or differ past 2⁵³, case, trailing
/// spaces, bytes above ASCII, blobs that are prefixes of each other.
private let mixedValues: [DatabaseValue] = [
    .null, .integer(0), .integer(1), .integer(-1), .integer(2), .real(2.0), .real(2.5), .real(-0.5), .real(-0.0),
    .integer(9_007_199_254_740_993), .real(9_007_199_254_740_992), .integer(Int64.max), .integer(Int64.min),
    .real(9.3e18), .real(-9.3e18), .real(1e300),
    .text(""), .text("a"), .text("A"), .text("a "), .text("A  "), .text("ab"), .text("aB"), .text("b"), .text("B"),
    .text("Ä"), .text("ä"), .text("é"), .text("z"), .text("["), .text("_"), .text("a\u{0}b"), .text("a\u{0}c"),
    .blob([]), .blob([0]), .blob([0, 1]), .blob([1]), .blob([0xFF]),
]

extension DatabaseValue {
    /// The value as an SQL literal (text without NUL bytes).
    var sqlLiteral: String {
        switch self {
        case .null: return "NULL"
        case let .integer(value): return String(value)
        case let .real(value): return "\(value)"
        case let .text(text): return "'" + text.replacingOccurrences(of: "'", with: "''") + "'"
        case let .blob(bytes): return "X'" + bytes.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined() + "'"
        }
    }
}

@Suite("Incremental results", .tags(.postgres), .ownThreads)
struct IncrementalResultsTests {
    @Test("Collation.compare orders random mixed values exactly as SQLite's ORDER BY does, for every collation and direction")
    func orderingMatchesSQLite() throws {
        let seed = testSeed(default: 0x0BD3)
        var generator = SplitMix64(seed: seed)
        let connection = try Connection(path: ":memory:")
        var rows: [(id: Int64, value: DatabaseValue)] = []
        try connection.write { db in
            try db.execute("CREATE TABLE v (id INTEGER PRIMARY KEY, x)")
            for id in 1...600 {
                var value = mixedValues[Int.random(in: 0..<mixedValues.count, using: &generator)]
                switch Int.random(in: 0..<4, using: &generator) {
                case 0: value = .integer(Int64.random(in: -50...50, using: &generator))
                case 1: value = .real(Double(Int.random(in: -100...100, using: &generator)) / 4)
                case 2:
                    let letters = ["a", "A", "b", "B", " ", "é", "z"]
                    value = .text((0..<Int.random(in: 0...3, using: &generator)).map { _ in letters[Int.random(in: 0..<letters.count, using: &generator)] }.joined())
                default: break
                }
                try db.execute("INSERT INTO v VALUES (?, ?)", [.integer(Int64(id)), value])
                rows.append((Int64(id), value))
            }
        }
        for collation in [Collation.binary, .nocase, .rtrim] {
            for ascending in [true, false] {
                let sql = "SELECT id FROM v ORDER BY x COLLATE \(collation.rawValue) \(ascending ? "ASC" : "DESC"), id"
                let expected = try connection.read { db in try db.rows(sql).map { $0[0].int64 ?? -1 } }
                let sorted = rows.sorted { a, b in
                    let order = collation.compare(a.value, b.value) * (ascending ? 1 : -1)
                    return order != 0 ? order < 0 : a.id < b.id
                }
                #expect(sorted.map(\.id) == expected, "seed \(seed), \(collation) \(ascending ? "asc" : "desc")")
            }
        }
    }

    static let tables = [
        "CREATE TABLE item (id INTEGER PRIMARY KEY, grp, rank, name, flag INTEGER)",
        "CREATE TABLE tag (name TEXT PRIMARY KEY, weight) WITHOUT ROWID",
    ]

    /// The same tables with a type for each column, for a store whose
    /// columns hold one type (PostgreSQL): there a value of another type
    /// (text or a blob for `rank`) is refused, and the statement that
    /// writes it fails as a constraint would.
    static let typedTables = [
        "CREATE TABLE item (id INTEGER PRIMARY KEY, grp TEXT, rank REAL, name TEXT, flag INTEGER)",
        "CREATE TABLE tag (name TEXT PRIMARY KEY, weight REAL) WITHOUT ROWID",
    ]

    /// `item` and `tag`, empty, in a database of `store`.
    static func makeItems(_ store: ResultsStoreFixture) throws -> TestDatabase {
        try store.makeDatabase(executing: store.followsInBackground ? typedTables : tables)
    }

    /// `item` and `tag`, empty, in an SQLite database in memory.
    static func makeItems() throws -> Connection {
        try Connection.inMemory(executing: tables)
    }

    static let requests: [(String, FetchRequest)] = [
        ("sectioned by a mixed-type column", FetchRequest(
            table: "item", predicate: "flag = ?", arguments: [.integer(1)],
            sortKeys: [SortKey("grp"), SortKey("rank", ascending: false), SortKey("name", collation: .nocase)],
            sectionKey: "grp")),
        ("sections under NOCASE", FetchRequest(
            table: "item",
            sortKeys: [SortKey("grp", collation: .nocase), SortKey("id", ascending: false)],
            sectionKey: "grp")),
        ("one list under RTRIM", FetchRequest(table: "item", sortKeys: [SortKey("name", collation: .rtrim), SortKey("rank")])),
        ("descending with a parameter", FetchRequest(table: "item", predicate: "rank > ? OR rank IS NULL", arguments: [.integer(0)], sortKeys: [SortKey("\"rank\"", ascending: false)])),
        ("by key only", FetchRequest(table: "item")),
        ("a WITHOUT ROWID table with a text key", FetchRequest(table: "tag", keyColumn: "name", sortKeys: [SortKey("weight", ascending: false)])),
    ]

    /// Pairs of controllers on one request, one patching and one
    /// re-fetching, with their reports.
    final class Pair {
        let name: String
        let patching: FetchedResultsController<AnyRow>
        let refetching: FetchedResultsController<AnyRow>
        let patchingLog = ReportLog<AnyRow>()
        let refetchingLog = ReportLog<AnyRow>()
        var incrementalCommits = 0

        init(name: String, patching: FetchedResultsController<AnyRow>, refetching: FetchedResultsController<AnyRow>) {
            self.name = name
            self.patching = patching
            self.refetching = refetching
            refetching.isIncremental = false
            patching.delegate = patchingLog
            refetching.delegate = refetchingLog
            try? patching.performFetch()
            try? refetching.performFetch()
        }

        /// A pair over a database of a store.
        convenience init(name: String, database: TestDatabase, request: FetchRequest) throws {
            try self.init(name: name, patching: database.fetchedResultsController(request), refetching: database.fetchedResultsController(request))
        }

        /// A pair over an SQLite connection.
        convenience init(name: String, connection: Connection, request: FetchRequest) throws {
            try self.init(name: name, patching: FetchedResultsController(connection: connection, request: request), refetching: FetchedResultsController(connection: connection, request: request))
        }
    }

    // Not yet on PostgreSQL (ResultsStoreFixture.sqlite): its requests sort
    // under NOCASE and RTRIM, its values mix SQLite's types in one column,
    // and 3,000 rounds with twelve controllers waiting on the change feed
    // after each would take the better part of an hour.
    @Test("3,000 random transactions and multi-statement scripts: the patching and the re-fetching controller give identical reports, and both equal a fresh query", .startsEarly, arguments: ResultsStoreFixture.sqlite)
    func patchingEqualsRefetching(store: ResultsStoreFixture) throws {
        let seed = testSeed(default: 0x1C4)
        var generator = SplitMix64(seed: seed)
        let database = try Self.makeItems(store)
        let pairs = try Self.requests.map { try Pair(name: $0.0, database: database, request: $0.1) }
        let groups: [DatabaseValue] = ["a", "b", "B", "c", .null, .integer(1), .real(1.5), .integer(2), .real(2.0)]
        let names: [DatabaseValue] = ["alpha", "Alpha", "beta", "beta ", "Beta  ", "gamma", "", "éclair", .null, .integer(3)]
        let ranks: [DatabaseValue] = [.integer(1), .integer(2), .real(2.0), .real(2.5), .integer(-1), .null, .integer(9_007_199_254_740_993), .real(9_007_199_254_740_992), "r", .blob([1])]
        func pick(_ values: [DatabaseValue]) -> DatabaseValue { values[Int.random(in: 0..<values.count, using: &generator)] }

        var scripts = 0
        for round in 0..<3_000 {
            let before = pairs.map { ($0.patchingLog.reports.count, $0.refetchingLog.reports.count) }
            // One round in four runs a multi-statement script through one
            // execute: commits, transactions rolled back, savepoints and
            // failing statements, one after another.
            if Int.random(in: 0..<4, using: &generator) == 0 {
                scripts += 1
                let script = Self.randomScript(using: &generator, groups: groups, names: names, ranks: ranks)
                database.withConnection { db in
                    try? db.execute(script)
                    // A script that failed or stopped inside its own BEGIN
                    // is rolled back by its caller.
                    if db.isInTransaction { try? db.execute("ROLLBACK") }
                }
            } else {
                let rollback = Int.random(in: 0..<12, using: &generator) == 0
                try? database.write { (db: any TestConnection) -> Void in
                    for _ in 0..<Int.random(in: 1...4, using: &generator) {
                        let id = Int64.random(in: 1...80, using: &generator)
                        let flag: Int64 = Int64.random(in: 0...3, using: &generator) == 0 ? 0 : 1
                        switch Int.random(in: 0..<100, using: &generator) {
                        case 0..<28:
                            try? db.execute("INSERT INTO item VALUES (?, ?, ?, ?, ?)", [.integer(id), pick(groups), pick(ranks), pick(names), .integer(flag)])
                        case 28..<48:
                            try db.execute("UPDATE item SET grp = ?, rank = ? WHERE id = ?", [pick(groups), pick(ranks), .integer(id)])
                        case 48..<56:
                            try db.execute("UPDATE item SET name = ?, flag = ? WHERE id = ?", [pick(names), .integer(flag), .integer(id)])
                        case 56..<60:
                            try? db.execute("UPDATE item SET id = ? WHERE id = ?", [.integer(Int64.random(in: 1...80, using: &generator)), .integer(id)])
                        case 60..<68:
                            try db.execute("DELETE FROM item WHERE id = ?", [.integer(id)])
                        case 68..<69:
                            try db.execute("DELETE FROM item")
                        case 69..<76:
                            try db.execute("INSERT OR REPLACE INTO item VALUES (?, ?, ?, 'r', ?)", [.integer(id), pick(groups), pick(ranks), .integer(flag)])
                        case 76..<80:
                            try db.execute("UPDATE item SET rank = rank + 1 WHERE id % 9 = ?", [.integer(id % 9)])
                        case 80..<88:
                            try db.execute("INSERT OR REPLACE INTO tag VALUES (?, ?)", [.text("tag\(id % 20)"), pick(ranks)])
                        case 88..<91:
                            try db.execute("DELETE FROM tag WHERE name = ?", [.text("tag\(id % 20)")])
                        default:
                            let release = Bool.random(using: &generator)
                            try? db.savepoint { db in
                                try db.execute("UPDATE item SET grp = ? WHERE id % 5 = ?", [pick(groups), .integer(id % 5)])
                                try db.execute("DELETE FROM tag WHERE weight < ?", [.integer(id % 4)])
                                if !release { throw Rollback() }
                            }
                        }
                    }
                    if rollback { throw Rollback() }
                }
            }
            #expect(database.leftOpen() == nil, "seed \(seed), round \(round)")
            for (pair, (patchedBefore, refetchedBefore)) in zip(pairs, before) {
                let comment = Comment(rawValue: "seed \(seed), round \(round), request \(pair.name)")
                if pair.patching.lastUpdateMethod == .incremental { pair.incrementalCommits += 1 }
                #expect(pair.patching.lastError == pair.refetching.lastError, comment)
                #expect(pair.patchingLog.reports.count == pair.refetchingLog.reports.count, comment)
                // Every report of the round, not just the last: a script
                // can commit several times.
                for (a, b) in zip(pair.patchingLog.reports[patchedBefore...], pair.refetchingLog.reports[refetchedBefore...]) {
                    #expect(a.changeset == b.changeset, comment)
                    #expect(a.oldSnapshot == b.oldSnapshot && a.newSnapshot == b.newSnapshot, comment)
                }
                #expect(pair.patching.snapshot == pair.refetching.snapshot, comment)
                if pair.refetching.lastError == nil {
                    if let fresh = try? database.freshSnapshot(pair.refetching.request, of: AnyRow.self) {
                        #expect(pair.patching.snapshot == fresh, comment)
                    }
                }
                // Stop at the first broken round: the rest would only repeat it.
                if pair.patching.snapshot != pair.refetching.snapshot || pair.patching.lastError != pair.refetching.lastError { return }
            }
        }
        #expect(scripts > 500, "seed \(seed): \(scripts) scripts")
        for pair in pairs {
            #expect(pair.patchingLog.reports.count > 300, "seed \(seed), \(pair.name): too few reports to mean anything")
        }
        // The requests a patch can serve were patched most of the time.
        for pair in pairs where pair.name != "sections under NOCASE" {
            #expect(pair.incrementalCommits > 500, "seed \(seed), \(pair.name): \(pair.incrementalCommits) patched commits")
        }
    }

    /// A script of 2 to 8 statements for one `execute`: statements that
    /// commit on their own, transactions that commit or roll back, savepoints
    /// released or rolled back to, and statements that fail (a repeated
    /// key, an unknown column), which stop the script where they stand.
    static func randomScript(using generator: inout SplitMix64, groups: [DatabaseValue], names: [DatabaseValue], ranks: [DatabaseValue]) -> String {
        func pick(_ values: [DatabaseValue]) -> String { values[Int.random(in: 0..<values.count, using: &generator)].sqlLiteral }
        func id() -> Int64 { Int64.random(in: 1...80, using: &generator) }
        var statements: [String] = []
        var open: [String] = []   // "BEGIN" or savepoint names, innermost last
        for _ in 0..<Int.random(in: 2...8, using: &generator) {
            switch Int.random(in: 0..<100, using: &generator) {
            case 0..<22:
                statements.append("INSERT OR REPLACE INTO item VALUES (\(id()), \(pick(groups)), \(pick(ranks)), \(pick(names)), \(Int.random(in: 0...1, using: &generator)))")
            case 22..<40:
                statements.append("UPDATE item SET grp = \(pick(groups)), rank = \(pick(ranks)) WHERE id = \(id())")
            case 40..<48:
                statements.append("DELETE FROM item WHERE id = \(id())")
            case 48..<54:
                statements.append("INSERT OR REPLACE INTO tag VALUES ('tag\(id() % 20)', \(pick(ranks)))")
            case 54..<64 where open.isEmpty:
                statements.append("BEGIN")
                open.append("BEGIN")
            case 64..<72 where open.last == "BEGIN":
                statements.append(Bool.random(using: &generator) ? "COMMIT" : "ROLLBACK")
                open.removeLast()
            case 72..<80:
                let name = "s\(open.count)"
                statements.append("SAVEPOINT \(name)")
                open.append(name)
            case 80..<88 where open.last.map { $0 != "BEGIN" } ?? false:
                let name = open.removeLast()
                if Bool.random(using: &generator) {
                    statements.append("RELEASE \(name)")
                } else {
                    statements.append("ROLLBACK TO \(name)")
                    statements.append("RELEASE \(name)")
                }
            case 88..<94:
                // Fails on a repeated key when the row exists.
                statements.append("INSERT INTO item VALUES (\(id()), 'x', 1, 'dup', 1)")
            case 94..<97:
                statements.append("UPDATE item SET nowhere = 1")
            default:
                statements.append("DELETE FROM item WHERE id % 7 = \(id() % 7)")
            }
        }
        // Close what is open about half the time; the caller rolls back the
        // rest.
        if Bool.random(using: &generator) {
            for name in open.reversed() { statements.append(name == "BEGIN" ? "COMMIT" : "RELEASE \(name)") }
        }
        return statements.joined(separator: ";\n") + ";"
    }

    // On SQLite's cases until the PostgreSQL known issues below are fixed:
    // over PostgreSQL it ran past 8 minutes (each mismatch waits out the
    // bound after a write).
    @Test("500 random transactions moving several rows at once, near and far, in large sections: patched reports equal re-fetched ones", arguments: ResultsStoreFixture.sqlite)
    func windows(store: ResultsStoreFixture) throws {
        let seed = testSeed(default: 0x3A7)
        var generator = SplitMix64(seed: seed)
        let database = try Self.makeItems(store)
        try database.write { db in
            for id in 1...600 {
                try db.execute("INSERT INTO item VALUES (?, ?, ?, 'n', 1)", [.integer(Int64(id)), .text(["a", "b", "c"][id % 3]), .integer(Int64(id))])
            }
        }
        let pairs = [
            try Pair(name: "sections", database: database, request: FetchRequest(table: "item", sortKeys: [SortKey("grp"), SortKey("rank")], sectionKey: "grp")),
            try Pair(name: "one list", database: database, request: FetchRequest(table: "item", sortKeys: [SortKey("rank", ascending: false)])),
        ]
        for round in 0..<500 {
            try database.write { db in
                for _ in 0..<Int.random(in: 1...6, using: &generator) {
                    let id = Int64.random(in: 1...620, using: &generator)
                    let near = Bool.random(using: &generator)
                    let rank = near ? Double(id) + Double.random(in: -8...8, using: &generator) : Double.random(in: -10...700, using: &generator)
                    switch Int.random(in: 0..<10, using: &generator) {
                    case 0: try db.execute("DELETE FROM item WHERE id = ?", [.integer(id)])
                    case 1: try db.execute("INSERT OR REPLACE INTO item VALUES (?, ?, ?, 'r', 1)", [.integer(id), .text(["a", "b", "c", "d"][Int(id) % 4]), .real(rank)])
                    case 2: try db.execute("UPDATE item SET grp = ? WHERE id = ?", [.text(["a", "b", "c"][Int.random(in: 0..<3, using: &generator)]), .integer(id)])
                    default: try db.execute("UPDATE item SET rank = ? WHERE id = ?", [.real(rank), .integer(id)])
                    }
                }
            }
            #expect(database.leftOpen() == nil, "seed \(seed), round \(round)")
            for pair in pairs {
                let comment = Comment(rawValue: "seed \(seed), round \(round), \(pair.name)")
                withKnownIssue("Over PostgreSQL a commit soon after the fetch is sometimes re-fetched where SQLite patches it (seed 935, round 0, sections: lastUpdateMethod .refetch); the reports agree", isIntermittent: true) {
                    #expect(pair.patching.lastUpdateMethod == .incremental, comment)
                } when: { store.followsInBackground }
                #expect(pair.patchingLog.reports.last?.changeset == pair.refetchingLog.reports.last?.changeset, comment)
                #expect(pair.patching.snapshot == pair.refetching.snapshot, comment)
                if pair.patching.snapshot != pair.refetching.snapshot { return }
            }
        }
        #expect(pairs.allSatisfy { $0.patchingLog.reports.count > 450 }, "seed \(seed)")
    }

    // On SQLite's cases until the PostgreSQL known issues below are fixed:
    // over PostgreSQL it ran past 8 minutes (each mismatch waits out the
    // bound after a write).
    @Test("400 random transactions over a sort column of reals (kept as reals, then as values once an integer comes), moving single rows and runs of adjacent rows, eager and lazy: patched reports equal re-fetched ones", .startsEarly, arguments: ResultsStoreFixture.sqlite)
    func realSortColumn(store: ResultsStoreFixture) throws {
        guard store.followsInBackground else { return try realSortColumnRounds(store) }
        withKnownIssue("""
            Over PostgreSQL (seed 20129) the patching controller over a REAL sort column re-fetches at round 0 \
            (lastUpdateMethod .refetch), and by round 10 its changeset and snapshot differ from the re-fetching \
            controller's on the same commits ("sections" request, lazy batch 16): not yet diagnosed
            """, isIntermittent: true) {
            try realSortColumnRounds(store)
        }
    }

    private func realSortColumnRounds(_ store: ResultsStoreFixture) throws {
        let seed = testSeed(default: 0x4EA1)
        print("IncrementalResultsTests.realSortColumn (\(store.name)): seed \(seed) (set TESSERA_SEED to replay)")
        var generator = SplitMix64(seed: seed)
        let database = try Self.makeItems(store)
        try database.write { db in
            for id in 1...400 {
                try db.execute("INSERT INTO item VALUES (?, ?, ?, 'n', 1)", [.integer(Int64(id)), .text(["a", "b", "c"][id % 3]), .real(Double(id) / 4)])
            }
        }
        func request(_ sortKeys: [SortKey], sectionKey: String? = nil, batch: Int) -> FetchRequest {
            var request = FetchRequest(table: "item", sortKeys: sortKeys, sectionKey: sectionKey)
            request.fetchBatchSize = batch
            return request
        }
        var pairs: [Pair] = []
        for batch in [0, 16] {
            pairs.append(try Pair(name: "sections, batch \(batch)", database: database, request: request([SortKey("grp"), SortKey("rank")], sectionKey: "grp", batch: batch)))
            pairs.append(try Pair(name: "one list descending, batch \(batch)", database: database, request: request([SortKey("rank", ascending: false)], batch: batch)))
        }
        // Reals that compare equal (0.0 and -0.0) and ties broken by the key.
        let specials: [Double] = [0, -0.0, 1, 1e300, -1e300, 50.25]
        for round in 0..<400 {
            let before = pairs.map { ($0.patchingLog.reports.count, $0.refetchingLog.reports.count) }
            try database.write { db in
                for _ in 0..<Int.random(in: 1...5, using: &generator) {
                    let id = Int64.random(in: 1...420, using: &generator)
                    let near = Bool.random(using: &generator)
                    var rank = near ? Double(id) / 4 + Double.random(in: -3...3, using: &generator) : Double.random(in: -10...120, using: &generator)
                    if Int.random(in: 0..<8, using: &generator) == 0 { rank = specials[Int.random(in: 0..<specials.count, using: &generator)] }
                    // Late on, an integer or a NULL makes the column general.
                    let late = round >= 300 && Int.random(in: 0..<40, using: &generator) == 0
                    let value: DatabaseValue = late ? (Bool.random(using: &generator) ? .integer(id) : .null) : .real(rank)
                    switch Int.random(in: 0..<10, using: &generator) {
                    case 0: try db.execute("DELETE FROM item WHERE id = ?", [.integer(id)])
                    case 1: try db.execute("INSERT OR REPLACE INTO item VALUES (?, ?, ?, 'r', 1)", [.integer(id), .text(["a", "b", "c", "d"][Int(id) % 4]), value])
                    case 2: try db.execute("UPDATE item SET grp = ? WHERE id = ?", [.text(["a", "b", "c"][Int.random(in: 0..<3, using: &generator)]), .integer(id)])
                    case 3:
                        // A run of adjacent rows touched, their values kept
                        // (they leave their places and come back to them).
                        try db.execute("UPDATE item SET name = name || 'x' WHERE id BETWEEN ? AND ?", [.integer(id), .integer(id + Int64.random(in: 1...12, using: &generator))])
                    case 4:
                        // A run touched, one of them moved.
                        try db.execute("UPDATE item SET name = name || 'y' WHERE id BETWEEN ? AND ?", [.integer(id), .integer(id + 6)])
                        try db.execute("UPDATE item SET rank = ? WHERE id = ?", [value, .integer(id + 3)])
                    default: try db.execute("UPDATE item SET rank = ? WHERE id = ?", [value, .integer(id)])
                    }
                }
            }
            #expect(database.leftOpen() == nil, "seed \(seed), round \(round)")
            for (pair, (patchedBefore, refetchedBefore)) in zip(pairs, before) {
                let comment = Comment(rawValue: "seed \(seed), round \(round), \(pair.name)")
                #expect(pair.patching.lastUpdateMethod == .incremental, comment)
                let patched = pair.patchingLog.reports.count > patchedBefore ? pair.patchingLog.reports.last?.changeset : nil
                let refetched = pair.refetchingLog.reports.count > refetchedBefore ? pair.refetchingLog.reports.last?.changeset : nil
                if pair.patching.result.isLazy {
                    // A lazy patch counts every row that stays as updated
                    // (it keeps no record to compare), so it can report
                    // where a re-fetch finds nothing: updates are not
                    // compared.
                    #expect((patched.map(LazyResultsTests.structure) ?? Changeset()) == (refetched.map(LazyResultsTests.structure) ?? Changeset()), comment)
                } else {
                    #expect(patched == refetched, comment)
                }
                #expect(pair.patching.snapshot == pair.refetching.snapshot, comment)
                if pair.patching.snapshot != pair.refetching.snapshot { return }
            }
        }
        #expect(pairs.allSatisfy { $0.refetchingLog.reports.count > 300 }, "seed \(seed)")
    }

    @Test("Requests a patch cannot serve say so and re-fetch: a view, a user SELECT, an expression sort key")
    func unsupportedRequests() throws {
        let connection = try Self.makeItems()
        try connection.write { db in
            try db.execute("CREATE VIEW visible AS SELECT * FROM item WHERE flag = 1")
            try db.execute("INSERT INTO item VALUES (1, 'a', 1, 'x', 1)")
        }
        let requests = [
            FetchRequest(table: "visible"),
            FetchRequest(query: "SELECT * FROM item"),
            FetchRequest(table: "item", sortKeys: [SortKey("rank * 2")]),
            FetchRequest(table: "item", predicate: "id IN (SELECT rowid FROM tag)"),
        ]
        for request in requests {
            let controller = try FetchedResultsController<AnyRow>(connection: connection, request: request)
            try controller.performFetch()
            #expect(!controller.supportsIncrementalUpdates, "\(request.source)")
            try connection.write { db in try db.execute("UPDATE item SET name = name || 'y'") }
            #expect(controller.lastUpdateMethod == .refetch, "\(request.source)")
        }
        let plain = try FetchedResultsController<AnyRow>(connection: connection, request: FetchRequest(table: "item", sortKeys: [SortKey("rank")]))
        try plain.performFetch()
        #expect(plain.supportsIncrementalUpdates)
        #expect(plain.keptSortValueByteCount == 16)
        // A sectioned result keeps its section values once a section: 1 +
        // 99 rows in two sections, 16 bytes a row for the rank and the
        // key, and one value and one end a section.
        try connection.write { db in
            for id in 2...100 { try db.execute("INSERT INTO item VALUES (?, 'a', ?, 'x', ?)", [.integer(Int64(id)), .integer(Int64(id)), .integer(Int64(id % 2))]) }
        }
        let sectioned = try FetchedResultsController<AnyRow>(
            connection: connection, request: FetchRequest(table: "item", sortKeys: [SortKey("flag"), SortKey("rank")], sectionKey: "flag"))
        try sectioned.performFetch()
        #expect(sectioned.result.sections.count == 2)
        #expect(sectioned.keptSortValueByteCount == 100 * 16 + 2 * (MemoryLayout<DatabaseValue>.stride + MemoryLayout<Int>.stride))
        // Sections of one row each: a value a row takes less, and the
        // first column stays chunked (8 bytes a row for three columns).
        let single = try FetchedResultsController<AnyRow>(
            connection: connection, request: FetchRequest(table: "item", sortKeys: [SortKey("rank"), SortKey("flag")], sectionKey: "rank"))
        try single.performFetch()
        #expect(single.result.sections.count == 100)
        #expect(single.keptSortValueByteCount == 100 * 24)
        try connection.write { db in try db.execute("UPDATE item SET rank = 1000 - rank WHERE id IN (3, 50, 97)") }
        #expect(single.lastUpdateMethod == .incremental)
        let fresh = try FetchedResultsController<AnyRow>(connection: connection, request: single.request)
        try fresh.performFetch()
        #expect(single.result.snapshot == fresh.result.snapshot)
    }

    @Test("The threshold: a transaction touching more than the set share of the result re-fetches, one under it patches; both report the same", arguments: ResultsStoreFixture.all)
    func threshold(store: ResultsStoreFixture) throws {
        let database = try Self.makeItems(store)
        try database.write { db in
            for id in 1...100 { try db.execute("INSERT INTO item VALUES (?, 'a', ?, 'n', 1)", [.integer(Int64(id)), .integer(Int64(id))]) }
        }
        let request = FetchRequest(table: "item", sortKeys: [SortKey("rank")])
        let pair = try Pair(name: "threshold", database: database, request: request)
        pair.patching.incrementalThreshold = 0.1
        // 10 rows: at the threshold, patched.
        try database.write { db in try db.execute("UPDATE item SET rank = 200 - rank WHERE id <= 10") }
        withKnownIssue("Over PostgreSQL a commit soon after the fetch is sometimes re-fetched where SQLite patches it (seen in two of four matrix runs); the reports agree", isIntermittent: true) {
            #expect(pair.patching.lastUpdateMethod == .incremental)
        } when: { store.followsInBackground }
        // 11 rows: over it, re-fetched.
        try database.write { db in try db.execute("UPDATE item SET rank = rank + 1000 WHERE id > 89") }
        #expect(pair.patching.lastUpdateMethod == .refetch)
        // And back under it.
        try database.write { db in try db.execute("DELETE FROM item WHERE id IN (1, 50, 99)") }
        #expect(pair.patching.lastUpdateMethod == .incremental)
        #expect(pair.patchingLog.reports.map(\.changeset) == pair.refetchingLog.reports.map(\.changeset))
        #expect(pair.patchingLog.reports.count == 3)
        #expect(pair.patching.snapshot == pair.refetching.snapshot)
    }

    @Test("A single row moving far within one large section is one move; its neighbours do not move", arguments: ResultsStoreFixture.all)
    func oneRowMovesFar(store: ResultsStoreFixture) throws {
        let database = try Self.makeItems(store)
        try database.write { db in
            for id in 1...5_000 { try db.execute("INSERT INTO item VALUES (?, 'a', ?, 'n', 1)", [.integer(Int64(id)), .integer(Int64(id))]) }
        }
        let pair = try Pair(name: "far", database: database, request: FetchRequest(table: "item", sortKeys: [SortKey("grp"), SortKey("rank")], sectionKey: "grp"))
        try database.write { db in try db.execute("UPDATE item SET rank = 4500.5 WHERE id = 3") }
        let report = try #require(pair.patchingLog.reports.last)
        #expect(pair.patching.lastUpdateMethod == .incremental)
        #expect(report.changeset.itemMoves == [Move(from: IndexPath(item: 2, section: 0), to: IndexPath(item: 4499, section: 0))])
        #expect(report.changeset.itemUpdates == [Move(from: IndexPath(item: 2, section: 0), to: IndexPath(item: 4499, section: 0))])
        #expect(report.changeset == pair.refetchingLog.reports.last?.changeset)
        // Two neighbours swapping: the diff's choice, reproduced.
        try database.write { db in try db.execute("UPDATE item SET rank = CASE id WHEN 10 THEN 11 ELSE 10 END WHERE id IN (10, 11)") }
        #expect(pair.patching.lastUpdateMethod == .incremental)
        #expect(pair.patchingLog.reports.last?.changeset == pair.refetchingLog.reports.last?.changeset)
        #expect(pair.patchingLog.reports.last?.changeset.itemMoves.count == 1)
    }

    @Test("A commit by another connection, then one by the controller's own: the stale result is re-fetched, not patched")
    func otherConnectionThenOwn() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("tessera-\(UUID().uuidString).sqlite").path
        defer { try? FileManager.default.removeItem(atPath: file) }
        let connection = try Connection(path: file)
        try connection.write { db in
            try db.execute("CREATE TABLE item (id INTEGER PRIMARY KEY, grp, rank, name, flag INTEGER)")
            try db.execute("INSERT INTO item VALUES (1, 'a', 1, 'x', 1), (2, 'a', 2, 'y', 1)")
        }
        let controller = try FetchedResultsController<AnyRow>(connection: connection, request: FetchRequest(table: "item", sortKeys: [SortKey("rank")]))
        let log = ReportLog<AnyRow>()
        controller.delegate = log
        try controller.performFetch()
        let other = try Connection(path: file)
        try other.write { db in try db.execute("UPDATE item SET rank = 5 WHERE id = 1") }
        try connection.write { db in try db.execute("UPDATE item SET rank = 0 WHERE id = 2") }
        #expect(controller.lastUpdateMethod == .refetch)
        #expect(controller.snapshot.allItems.map(\.id) == [.integer(2), .integer(1)])
        #expect(try controller.checkForExternalChanges() == false)
        try other.write { db in try db.execute("DELETE FROM item WHERE id = 2") }
        #expect(try controller.checkForExternalChanges() == true)
        #expect(log.reports.last?.changeset.itemDeletes == [IndexPath(item: 0, section: 0)])
    }

    @MainActor
    @Test("Another process committing while the controller polls: every commit is reported once, in order", .tags(.process))
    func otherProcess() async throws {
        let sqlite3 = "/usr/bin/sqlite3"
        try #require(FileManager.default.isExecutableFile(atPath: sqlite3), "the sqlite3 command is needed (.ci/run installs it)")
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("tessera-\(UUID().uuidString).sqlite").path
        defer { try? FileManager.default.removeItem(atPath: file) }
        let connection = try Connection(path: file)
        try connection.write { db in try db.execute("CREATE TABLE item (id INTEGER PRIMARY KEY, grp, rank, name, flag INTEGER)") }
        let controller = try FetchedResultsController<AnyRow>(connection: connection, request: FetchRequest(table: "item", sortKeys: [SortKey("rank", ascending: false)]))
        let log = ReportLog<AnyRow>()
        controller.delegate = log
        try controller.performFetch()
        let polling = Task { @MainActor in await controller.followExternalChanges(every: .milliseconds(10)) }
        defer { polling.cancel() }
        for n in 1...5 {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: sqlite3)
            process.arguments = [file, "INSERT INTO item VALUES (\(n), 'a', \(n), 'p\(n)', 1)"]
            try process.run()
            #expect(try await process.exit(within: 120).succeeded)
            // 24,000 rounds of at least 5 ms (generous for a sanitizer build
            // on a busy machine), bounded in rounds, not by a clock.
            try await waitInRounds(24_000, every: .milliseconds(5)) { log.reports.count >= n }
            #expect(log.reports.count == n, "commit \(n) was not reported once within 24,000 rounds of 5 ms (\(log.reports.count) reports in all)")
            let changes = log.reports.last?.changeset
            #expect(n == 1 ? changes?.sectionInserts == [0] : changes?.itemInserts == [IndexPath(item: 0, section: 0)], "commit \(n)")
        }
        #expect(controller.snapshot.allItems.map(\.id) == (1...5).reversed().map { .integer(Int64($0)) })
    }

    @Test("A slow consumer: reports past the buffer limit merge into one exact report, and replaying what arrives gives the result", arguments: ResultsStoreFixture.all)
    func slowConsumer(store: ResultsStoreFixture) async throws {
        let database = try Self.makeItems(store)
        let controller = try database.fetchedResultsController(FetchRequest(table: "item", sortKeys: [SortKey("rank")]), of: AnyRow.self)
        try controller.performFetch()
        let start = controller.snapshot
        let reports = controller.reports(bufferLimit: 3)
        for n in 1...10 {
            try database.write { db in
                try db.execute("INSERT INTO item VALUES (?, 'a', ?, 'n', 1)", [.integer(Int64(n)), .integer(Int64(11 - n))])
                if n > 5 { try db.execute("DELETE FROM item WHERE id = ?", [.integer(Int64(n - 5))]) }
            }
        }
        let final = controller.snapshot
        var iterator = reports.makeAsyncIterator()
        var replayed = start
        var received: [ChangeReport<AnyRow>] = []
        while received.count < 3, let report = await iterator.next() {
            #expect(report.oldSnapshot == replayed)
            replayed = try replayed.applying(report.changeset, takingValuesFrom: report.newSnapshot)
            received.append(report)
        }
        #expect(received.count == 3)
        #expect(replayed == final)
        // The first report makes the section; the third goes from the
        // second commit's result (ids 1 and 2) to the last (ids 6 to 10).
        #expect(received[0].changeset.sectionInserts == [0])
        #expect(received[2].changeset.itemDeletes.count == 2 && received[2].changeset.itemInserts.count == 5)
    }
}

/// Edge cases of the patching path: each once broke the result or
/// the controller.
@Suite("Incremental results: edge cases", .tags(.postgres), .ownThreads)
struct IncrementalEdgeCaseTests {
    /// `item` holding `count` rows, in a database of `store`.
    static func items(_ store: ResultsStoreFixture, _ count: Int) throws -> TestDatabase {
        let database = try IncrementalResultsTests.makeItems(store)
        try database.write { db in
            for id in 1...count { try db.execute("INSERT INTO item VALUES (?, 'a', ?, ?, 1)", [.integer(Int64(id)), .integer(Int64(id)), .text("n\(id)")]) }
        }
        return database
    }

    /// `item` holding `count` rows, in an SQLite database in memory.
    static func items(_ count: Int) throws -> Connection {
        let connection = try IncrementalResultsTests.makeItems()
        try connection.write { db in
            for id in 1...count { try db.execute("INSERT INTO item VALUES (?, 'a', ?, ?, 1)", [.integer(Int64(id)), .integer(Int64(id)), .text("n\(id)")]) }
        }
        return connection
    }

    static func fresh(_ connection: Connection, _ request: FetchRequest) throws -> Snapshot<ResultSection, AnyRow> {
        let controller = try FetchedResultsController<AnyRow>(connection: connection, request: request)
        try controller.performFetch()
        return controller.snapshot
    }

    @Test("A predicate with a subquery on its own table re-fetches: one row's change moves others in and out", arguments: ResultsStoreFixture.all)
    func sameTableSubquery(store: ResultsStoreFixture) throws {
        let database = try Self.items(store, 10)
        let request = FetchRequest(table: "item", predicate: "rank >= (SELECT max(rank) FROM item) - 2", sortKeys: [SortKey("rank")])
        let controller = try database.fetchedResultsController(request, of: AnyRow.self)
        try controller.performFetch()
        #expect(!controller.supportsIncrementalUpdates)
        try database.write { db in try db.execute("UPDATE item SET rank = 100 WHERE id = 1") }
        #expect(controller.snapshot == (try database.freshSnapshot(request, of: AnyRow.self)))
        #expect(controller.snapshot.allItems.map(\.id) == [.integer(1)])
    }

    @Test("Rows written before ALTER TABLE … ADD COLUMN … DEFAULT: deletes and moves stay exact")
    func addedColumnWithDefault() throws {
        let connection = try Self.items(5)
        try connection.write { db in try db.execute("ALTER TABLE item ADD COLUMN prio INTEGER DEFAULT 5") }
        let request = FetchRequest(table: "item", sortKeys: [SortKey("prio"), SortKey("rank")])
        let pair = try IncrementalResultsTests.Pair(name: "defaults", connection: connection, request: request)
        try connection.write { db in try db.execute("DELETE FROM item WHERE id = 1") }
        try connection.write { db in try db.execute("UPDATE item SET prio = 1 WHERE id = 2") }
        try connection.write { db in try db.execute("INSERT INTO item (id, grp, rank, name, flag) VALUES (9, 'a', 0, 'x', 1)") }
        #expect(pair.patching.snapshot == (try Self.fresh(connection, request)))
        #expect(pair.patchingLog.reports.map(\.changeset) == pair.refetchingLog.reports.map(\.changeset))
        #expect(pair.patching.snapshot.allItems.map(\.id) == [2, 9, 3, 4, 5].map { .integer($0) })
    }

    /// A row whose id is its name, which the table does not keep unique.
    struct NamedRow: FetchableRecord {
        var id: String
        var rank: Int64
        init(row: Row) throws {
            id = row["name"].string ?? ""
            rank = row["rank"].int64 ?? 0
        }
    }

    @Test("After a re-fetch fails, commits re-fetch until one succeeds; none patches the stale result", arguments: ResultsStoreFixture.all)
    func failedRefetchStopsPatching(store: ResultsStoreFixture) throws {
        let database = try Self.items(store, 40)
        let controller = try database.fetchedResultsController(FetchRequest(table: "item", sortKeys: [SortKey("rank")]), of: NamedRow.self)
        try controller.performFetch()
        let good = controller.snapshot
        // Every name the same: the records' ids repeat, so no diff exists.
        try database.write { db in try db.execute("UPDATE item SET name = 'same'") }
        #expect(controller.lastError != nil)
        #expect(controller.snapshot == good)
        try database.write { db in try db.execute("UPDATE item SET rank = 0 WHERE id = 7") }
        #expect(controller.lastUpdateMethod == .refetch)
        #expect(controller.lastError != nil && controller.snapshot == good)
        try database.write { db in try db.execute("UPDATE item SET name = 'n' || id") }
        #expect(controller.lastError == nil)
        #expect(controller.snapshot.allItems.first?.id == "n7")
        #expect(controller.supportsIncrementalUpdates)
    }

    /// Calls back into the controller from its delegate.
    final class Reentrant: FetchedResultsControllerDelegate {
        var reports = 0
        var counts: [Int] = []
        func controller(_ controller: FetchedResultsController<AnyRow>, didChangeContentWith report: ChangeReport<AnyRow>) {
            reports += 1
            try? controller.refresh()
            counts.append((try? controller.connection.read { db in try db.rows("SELECT count(*) FROM item")[0][0].int64 }).flatMap { $0 }.map(Int.init) ?? -1)
        }
    }

    @Test("A delegate may call the controller and read the connection from a report (no deadlock)")
    func reentrantDelegate() throws {
        let connection = try Self.items(3)
        let controller = try FetchedResultsController<AnyRow>(connection: connection, request: FetchRequest(table: "item", sortKeys: [SortKey("rank")]))
        let delegate = Reentrant()
        controller.delegate = delegate
        try controller.performFetch()
        try connection.write { db in try db.execute("DELETE FROM item WHERE id = 2") }
        #expect(delegate.reports == 1 && delegate.counts == [2])
        #expect(controller.lastError == nil)
    }

    @Test("Text is compared by its bytes: a precomposed and a decomposed é are different keys and sections, as in SQLite")
    func unicodeForms() throws {
        let composed = "\u{E9}"
        let decomposed = "e\u{301}"
        #expect(DatabaseValue.text(composed) != DatabaseValue.text(decomposed))
        #expect(Set([DatabaseValue.text(composed), .text(decomposed)]).count == 2)
        let connection = try IncrementalResultsTests.makeItems()
        try connection.write { db in try db.execute("INSERT INTO item VALUES (1, ?, 1, 'x', 1)", [.text(composed)]) }
        let request = FetchRequest(table: "item", sortKeys: [SortKey("grp"), SortKey("rank")], sectionKey: "grp")
        let pair = try IncrementalResultsTests.Pair(name: "forms", connection: connection, request: request)
        try connection.write { db in try db.execute("INSERT INTO item VALUES (2, ?, 2, 'y', 1)", [.text(decomposed)]) }
        // Keys that differ only in Unicode form are two rows (a record type
        // whose id is a Swift String would see them as one id).
        let tags = try FetchedResultsController<AnyRow>(connection: connection, request: FetchRequest(table: "tag", keyColumn: "name", sortKeys: [SortKey("weight")]))
        try tags.performFetch()
        try connection.write { db in
            try db.execute("INSERT INTO tag VALUES (?, 1)", [.text(composed)])
            try db.execute("INSERT INTO tag VALUES (?, 2)", [.text(decomposed)])
        }
        #expect(pair.patching.snapshot == (try Self.fresh(connection, request)))
        #expect(pair.patching.snapshot.numberOfSections == 2)
        #expect(pair.patchingLog.reports.last?.changeset == pair.refetchingLog.reports.last?.changeset)
        #expect(tags.snapshot.numberOfItems == 2 && tags.lastError == nil)
    }

    @Test("DELETE without WHERE prepared before the controller existed is still seen row by row")
    func truncatePreparedEarlier() throws {
        let connection = try Self.items(4)
        try connection.withDatabase { db in
            let delete = try db.prepare("DELETE FROM item")
            let controller = try FetchedResultsController<AnyRow>(connection: connection, request: FetchRequest(table: "item", sortKeys: [SortKey("rank")]))
            try controller.performFetch()
            #expect(controller.snapshot.numberOfItems == 4)
            while try delete.step() {}
            #expect(controller.snapshot.numberOfItems == 0)
        }
    }

    @Test("Thresholds of infinity, NaN and less than zero do not trap: infinity always patches", arguments: ResultsStoreFixture.all)
    func oddThresholds(store: ResultsStoreFixture) throws {
        let database = try Self.items(store, 20)
        let controller = try database.fetchedResultsController(FetchRequest(table: "item", sortKeys: [SortKey("rank")]), of: AnyRow.self)
        try controller.performFetch()
        controller.incrementalThreshold = .infinity
        try database.write { db in try db.execute("UPDATE item SET rank = 100 - rank") }
        withKnownIssue("Over PostgreSQL this commit (every row of item, its REAL sort column rewritten) is re-fetched, not patched, although incrementalThreshold is infinity: lastUpdateMethod is .refetch; not yet diagnosed", isIntermittent: true) {
            #expect(controller.lastUpdateMethod == .incremental)
        } when: { store.followsInBackground }
        for threshold in [Double.nan, -1, 0] {
            controller.incrementalThreshold = threshold
            try database.write { db in try db.execute("UPDATE item SET rank = rank + 1 WHERE id <= 2") }
            #expect(controller.lastUpdateMethod == .refetch)
        }
        #expect(controller.snapshot == (try database.freshSnapshot(controller.request, of: AnyRow.self)))
    }

    @Test("A predicate with more parameters than arguments (the rest NULL), numbered or named, reads a changed row as the full query does: the key never lands in one of its parameters", arguments: [
        ("(title = ?3) IS NULL", [DatabaseValue]()),
        (":t IS NULL OR title = :t", []),
        ("title <> ?2 OR ?1 IS NULL", [.text("x")]),
        ("$limit IS NULL AND id > ?", [.integer(0)]),
    ])
    func fewerArgumentsThanParameters(predicate: String, arguments: [DatabaseValue]) throws {
        let connection = try Connection(path: ":memory:")
        try connection.write { db in
            try db.execute("CREATE TABLE item (id INTEGER PRIMARY KEY, title TEXT)")
            try db.execute("INSERT INTO item VALUES (1, 'b'), (2, 'a'), (4, 'x')")
        }
        let request = FetchRequest(table: "item", predicate: predicate, arguments: arguments, sortKeys: [SortKey("title")])
        let controller = try FetchedResultsController<DeliveryItem>(connection: connection, request: request)
        try controller.performFetch()
        let setRequest = SetRequest(table: "item", predicate: predicate, arguments: arguments)
        let set = FetchedSetController<DeliveryItem>(connection: connection, request: setRequest)
        try set.performFetch()
        for sql in ["INSERT INTO item VALUES (3, 'c')", "UPDATE item SET title = 'a2' WHERE id = 1", "DELETE FROM item WHERE id = 2", "UPDATE item SET title = 'y' WHERE id = 4"] {
            try connection.write { db in try db.execute(sql) }
            let fresh = try FetchedResultsController<DeliveryItem>(connection: connection, request: request)
            try fresh.performFetch()
            let freshSet = FetchedSetController<DeliveryItem>(connection: connection, request: setRequest)
            try freshSet.performFetch()
            #expect(controller.lastUpdateMethod == .incremental, "\(predicate): \(sql)")
            #expect(controller.snapshot == fresh.snapshot, "\(predicate): \(sql)")
            #expect(Set(set.records) == Set(freshSet.records), "\(predicate): \(sql)")
        }
    }
}
