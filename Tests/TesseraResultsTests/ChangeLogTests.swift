import Foundation
import Testing
import TesseraDiff
import TesseraResults
import TesseraResultsTestSupport
import TesseraSQLite
import TesseraTestSupport
import TesseraTestTraits

// Single-store (SQLite): the change log is SQLite's capture of other
// connections' and processes' commits.

/// A table with a unique column besides its key, so that a REPLACE can
/// remove a row by either.
private func makeItems(count: Int) throws -> (connection: Connection, other: Connection, directory: URL) {
    var schema = ["CREATE TABLE item (id INTEGER PRIMARY KEY, grp TEXT, rank REAL, title TEXT, code TEXT UNIQUE)"]
    for id in 1...count { schema.append("INSERT INTO item VALUES (\(id), 'g\(id % 7)', \(id).0, 't\(id)', 'c\(id)')") }
    return try makeSharedDatabase(schema)
}

private func entries(_ connection: Connection) throws -> [String] {
    try connection.withDatabase { db in
        try db.rows("SELECT kind, \"key.id\", \"old.grp\", \"old.rank\" FROM tessera_log_item ORDER BY seq").map { row in
            row.map(\.description).joined(separator: " ")
        }
    }
}

/// A commit to make, once, while the next record decodes: another
/// connection's, landing between the controller's read of the log and its
/// read of the rows.
private let meddling = PThreadMutex<(() -> Void)?>(nil)

/// A row of `item` whose decoding runs the waiting commit, if any.
private struct Meddled: FetchableRecord, Hashable {
    var read: ReshapedRow
    var id: Int64 { read.id }

    init(row: Row) throws {
        read = try ReshapedRow(row: row)
        meddling.withLock { commit in
            commit?()
            commit = nil
        }
    }
}

/// Each section's value and its rows' ids, in order.
private func layout(of snapshot: Snapshot<ResultSection, ReshapedRow>) -> [String] {
    snapshot.sections.indices.map { index in
        "\(snapshot.sections[index].value): " + snapshot.items(inSection: index).map { "\($0.id)" }.joined(separator: " ")
    }
}

@Suite("Change log: other connections' and processes' commits patch a controller's result, exactly", .cpuBound)
struct ChangeLogTests {
    @Test("Installing names what is wrong: no such table, no primary key, a composite one, a column the table lacks, an expression unique index, a retention below 1, a reserved name")
    func installErrors() throws {
        let connection = try Connection.inMemory(executing: [
            "CREATE TABLE keyless (a INTEGER, b TEXT)",
            "CREATE TABLE pair (a INTEGER, b INTEGER, PRIMARY KEY (a, b))",
            "CREATE TABLE item (id INTEGER PRIMARY KEY, grp TEXT, title TEXT)",
            "CREATE TABLE shouting (id INTEGER PRIMARY KEY, name TEXT)",
            "CREATE UNIQUE INDEX shouting_upper ON shouting (upper(name))",
        ])
        #expect(throws: SQLiteChangeLogError.noSuchTable("nowhere")) { try connection.installChangeLog(on: "nowhere") }
        #expect(throws: SQLiteChangeLogError.noSingleColumnPrimaryKey(table: "keyless", columns: [])) { try connection.installChangeLog(on: "keyless") }
        #expect(throws: SQLiteChangeLogError.noSingleColumnPrimaryKey(table: "pair", columns: ["a", "b"])) { try connection.installChangeLog(on: "pair") }
        #expect(throws: SQLiteChangeLogError.noSuchColumn(table: "item", column: "rank")) { try connection.installChangeLog(on: "item", columns: ["grp", "rank"]) }
        #expect(throws: SQLiteChangeLogError.expressionUniqueIndex(table: "shouting", index: "shouting_upper")) { try connection.installChangeLog(on: "shouting") }
        #expect(throws: SQLiteChangeLogError.invalidRetention(0)) { try connection.installChangeLog(on: "item", keeping: 0) }
        try connection.installChangeLog(on: "ITEM", columns: ["grp"])
        #expect(throws: SQLiteChangeLogError.reservedName("tessera_log_item")) { try connection.installChangeLog(on: "tessera_log_item") }
        #expect(SQLiteChangeLogError.noSuchColumn(table: "item", column: "rank").description == "table item has no column rank to log")
        // Nothing was left behind by the failures.
        let objects = try connection.withDatabase { db in try db.rows("SELECT name FROM sqlite_schema WHERE name LIKE 'tessera_log_%' ORDER BY name").compactMap { $0[0].string } }
        #expect(objects == ["tessera_log_item", "tessera_log_item_after_delete", "tessera_log_item_after_insert", "tessera_log_item_after_update", "tessera_log_item_before_insert", "tessera_log_item_before_update", "tessera_log_item_trim"])
        #expect(try connection.changeLog(on: "item") == SQLiteChangeLog(table: "item", keyColumn: "id", columns: ["grp"], entryCount: 0, lastEntry: 0))
        try connection.removeChangeLog(from: "item")
        #expect(try connection.changeLog(on: "item") == nil)
        let left = try connection.withDatabase { db in try db.rows("SELECT name FROM sqlite_schema WHERE name LIKE 'tessera_log_%'").count }
        #expect(left == 0)
        try connection.removeChangeLog(from: "item")
    }

    @Test("Each write logs what it touched, with the row as it was: inserts, updates, a key changed, deletes, a REPLACE by the key and by a unique column, an upsert; a rollback logs nothing; the log trims to what it keeps")
    func whatEachWriteLogs() throws {
        let (connection, _, directory) = try makeItems(count: 3)
        defer { try? FileManager.default.removeItem(at: directory) }
        try connection.installChangeLog(on: "item", columns: ["grp", "rank"])
        func write(_ sql: String) throws -> [String] {
            let before = try entries(connection).count
            try connection.write { db in try db.execute(sql) }
            return Array(try entries(connection).dropFirst(before))
        }
        #expect(try write("INSERT INTO item VALUES (4, 'g1', 4.5, 't', 'c4')") == ["0 4 NULL NULL"])
        #expect(try write("UPDATE item SET rank = 9 WHERE id = 2") == ["1 2 'g2' 2.0"])
        #expect(try write("UPDATE item SET id = 20 WHERE id = 2") == ["1 2 'g2' 9.0", "0 20 NULL NULL"])
        #expect(try write("DELETE FROM item WHERE id = 3") == ["2 3 'g3' 3.0"])
        // REPLACE by key: the row it removes is logged before the insert.
        #expect(try write("INSERT OR REPLACE INTO item VALUES (4, 'g5', 1, 't', 'c4')") == ["3 4 'g1' 4.5", "0 4 NULL NULL"])
        // REPLACE by the unique code: row 1 goes, row 30 arrives.
        #expect(try write("INSERT OR REPLACE INTO item VALUES (30, 'g6', 2, 't', 'c1')") == ["3 1 'g1' 1.0", "0 30 NULL NULL"])
        // UPDATE OR REPLACE onto another row's code: that row goes.
        #expect(try write("UPDATE OR REPLACE item SET code = 'c4' WHERE id = 20") == ["3 4 'g5' 1.0", "1 20 'g2' 9.0"])
        // An upsert that updates: the row as it was, once for the conflict
        // lookup and once for the update (a follower takes the first).
        #expect(try write("INSERT INTO item VALUES (30, 'x', 0, 't', 'c30') ON CONFLICT (id) DO UPDATE SET grp = 'g0'") == ["3 30 'g6' 2.0", "1 30 'g6' 2.0"])
        let before = try entries(connection)
        #expect(throws: (any Error).self) {
            try connection.write { db in
                try db.execute("DELETE FROM item")
                throw SQLiteError(code: 1, message: "rolled back on purpose")
            }
        }
        #expect(try entries(connection) == before)

        try connection.installChangeLog(on: "item", columns: ["grp", "rank"], keeping: 10)
        try connection.write { db in
            for round in 0..<300 { try db.execute("UPDATE item SET rank = ? WHERE id = 30", [.real(Double(round))]) }
        }
        let log = try #require(try connection.changeLog(on: "item"))
        #expect(log.lastEntry == 300)
        // Trimmed every 256 entries, to the 10 before: 44 left.
        #expect(log.entryCount == 300 - 246)
    }

    enum Shape: String, CaseIterable, CustomTestStringConvertible {
        case sectioned, descendingWithPredicate, lazy
        var testDescription: String { rawValue }

        var request: FetchRequest {
            switch self {
            case .sectioned:
                return FetchRequest(table: "item", sortKeys: [SortKey("grp"), SortKey("rank")], sectionKey: "grp")
            case .descendingWithPredicate:
                return FetchRequest(table: "item", predicate: "rank < ?", arguments: [.real(60)], sortKeys: [SortKey("rank", ascending: false)])
            case .lazy:
                var request = FetchRequest(table: "item", sortKeys: [SortKey("grp"), SortKey("rank")], sectionKey: "grp")
                request.fetchBatchSize = 8
                return request
            }
        }
    }

    /// One seeded run: another connection (and the controller's own) write
    /// at random; after each round the controller checks for external
    /// changes and must equal a fresh fetch, with reports that chain.
    /// Returns how many checks patched and how many fetched again.
    static func runOracle(_ shape: Shape, seed: UInt64, rounds: Int, withLog: Bool) throws -> (patched: Int, refetched: Int, unexplained: [String]) {
        var generator = SplitMix64(seed: seed)
        func random(_ range: Range<Int>) -> Int { Int.random(in: range, using: &generator) }
        let (connection, other, directory) = try makeItems(count: 80)
        defer { try? FileManager.default.removeItem(at: directory) }
        if withLog { try other.installChangeLog(on: "item", columns: ["grp", "rank"], keeping: 200) }
        let request = shape.request
        let controller = try FetchedResultsController<ReshapedRow>(connection: connection, request: request)
        controller.incrementalThreshold = .infinity
        let log = ReportLog<ReshapedRow>()
        controller.delegate = log
        try controller.performFetch()
        var previous = controller.snapshot
        var patched = 0
        var refetched = 0
        var unexplained: [String] = []
        var nextColumn = 0
        for round in 0..<rounds {
            // Why this round may fetch again: a schema change, a burst past
            // what the log keeps.
            var mayRefetch = false
            for _ in 0..<random(1..<4) {
                let writer = random(0..<4) == 0 ? connection : other
                let rollBack = random(0..<12) == 0
                try? writer.write { db in
                    for _ in 0..<random(1..<5) {
                        let id = Int64(random(1..<120))
                        let grp = DatabaseValue.text("g\(random(0..<7))")
                        let rank = DatabaseValue.real(Double(random(0..<100)))
                        switch random(0..<100) {
                        case 0..<30: try db.execute("UPDATE item SET rank = ? WHERE id = ?", [rank, .integer(id)])
                        case 30..<45: try db.execute("UPDATE item SET grp = ?, rank = ? WHERE id = ?", [grp, rank, .integer(id)])
                        case 45..<55: try db.execute("UPDATE item SET title = ? WHERE id = ?", [.text("t\(random(0..<1000))"), .integer(id)])
                        case 55..<63: try db.execute("INSERT OR IGNORE INTO item VALUES (?, ?, ?, 'new', ?)", [.integer(id), grp, rank, .text("n\(id)")])
                        case 63..<70: try db.execute("DELETE FROM item WHERE id = ?", [.integer(id)])
                        case 70..<76: try db.execute("INSERT OR REPLACE INTO item VALUES (?, ?, ?, 'replaced', ?)", [.integer(id), grp, rank, .text("r\(id)")])
                        case 76..<82: try db.execute("INSERT OR REPLACE INTO item VALUES (?, ?, ?, 'by code', ?)", [.integer(id), grp, rank, .text("c\(random(1..<120))")])
                        case 82..<87: try db.execute("UPDATE OR REPLACE item SET code = ? WHERE id = ?", [.text("c\(random(1..<120))"), .integer(id)])
                        case 87..<92: try db.execute("UPDATE OR IGNORE item SET id = ? WHERE id = ?", [.integer(Int64(random(1..<120))), .integer(id)])
                        default: try db.execute("INSERT INTO item VALUES (?, ?, ?, 'upsert', ?) ON CONFLICT (id) DO UPDATE SET rank = excluded.rank", [.integer(id), grp, rank, .text("u\(id)")])
                        }
                    }
                    if rollBack { throw SQLiteError(code: 1, message: "rolled back on purpose") }
                }
            }
            switch random(0..<60) {
            case 0:
                mayRefetch = true
                nextColumn += 1
                try other.write { db in try db.execute("ALTER TABLE item ADD COLUMN extra\(nextColumn) TEXT DEFAULT 'd\(nextColumn)'") }
            case 1:
                mayRefetch = true
                try other.write { db in try db.execute("CREATE INDEX IF NOT EXISTS item_rank_\(random(0..<3)) ON item (rank)") }
            case 2 where withLog:
                // Past the 200 entries kept: the controller's position is
                // trimmed away.
                mayRefetch = true
                try other.write { db in
                    for _ in 0..<300 { try db.execute("UPDATE item SET title = title || '.' WHERE id = ?", [.integer(Int64(random(1..<120)))]) }
                }
            default:
                break
            }
            if try controller.checkForExternalChanges() {
                if controller.lastUpdateMethod == .incremental { patched += 1 } else {
                    refetched += 1
                    if !mayRefetch { unexplained.append("round \(round)") }
                }
            }
            // A commit of the controller's own connection was taken at once;
            // the check took the rest.
            let fresh = try FetchedResultsController<ReshapedRow>(connection: other, request: request)
            try fresh.performFetch()
            #expect(controller.lastError == nil, "seed \(seed), round \(round): \(String(describing: controller.lastError))")
            #expect(controller.snapshot == fresh.snapshot, "seed \(seed), round \(round): \(controller.result.count) rows against \(fresh.result.count)")
            #expect(leftOpen(on: connection) == nil, "seed \(seed), round \(round)")
            for report in log.reports {
                #expect(report.oldSnapshot == previous, "seed \(seed), round \(round): a report does not start where the one before ended")
                let replayed = try previous.applying(report.changeset, takingValuesFrom: report.newSnapshot)
                if shape == .lazy {
                    // A lazy snapshot reads a record when asked for, so an
                    // old snapshot's unread records are today's: only where
                    // each row is can be compared.
                    #expect(layout(of: replayed) == layout(of: report.newSnapshot), "seed \(seed), round \(round)")
                } else {
                    #expect(replayed == report.newSnapshot, "seed \(seed), round \(round)")
                }
                previous = report.newSnapshot
            }
            log.reports.removeAll()
            if controller.snapshot != fresh.snapshot { break }
        }
        return (patched, refetched, unexplained)
    }

    @Test("Seeded oracle: another connection's commits (updates, moves, inserts, deletes, REPLACE by key and by a unique column, key changes, upserts, rollbacks) patch the result through the log, and every check equals a fresh fetch; only schema changes and a trimmed position fetch again", .tags(.oracle), arguments: Shape.allCases)
    func oracle(_ shape: Shape) throws {
        let seed = testSeed(default: 0x106 + UInt64(Shape.allCases.firstIndex(of: shape)!))
        print("ChangeLogTests.oracle(\(shape)) seed \(seed)")
        let (patched, refetched, unexplained) = try Self.runOracle(shape, seed: seed, rounds: oracleRounds(300, minimum: 60), withLog: true)
        #expect(unexplained.isEmpty, "seed \(seed): checks that fetched again with nothing to explain it: \(unexplained)")
        #expect(patched > 10 * max(refetched, 1), "seed \(seed): \(patched) checks patched, \(refetched) fetched again")
    }

    @Test("The same oracle without a log: every check that found commits fetched again (what the log saves), and the results are as exact")
    func oracleWithoutLog() throws {
        let seed = testSeed(default: 0x107)
        print("ChangeLogTests.oracleWithoutLog seed \(seed)")
        let (patched, refetched, _) = try Self.runOracle(.sectioned, seed: seed, rounds: oracleRounds(100, minimum: 30), withLog: false)
        #expect(patched == 0)
        #expect(refetched > 0)
    }

    @Test("A log installed after the fetch, removed under the controller, or installed again with other columns: the controller fetches again, then patches again once it has a position")
    func logComesAndGoes() throws {
        let (connection, other, directory) = try makeItems(count: 40)
        defer { try? FileManager.default.removeItem(at: directory) }
        let request = Shape.sectioned.request
        let controller = try FetchedResultsController<ReshapedRow>(connection: connection, request: request)
        try controller.performFetch()
        func commitElsewhere(_ rank: Int) throws -> FetchedResultsController<ReshapedRow>.UpdateMethod? {
            try other.write { db in try db.execute("UPDATE item SET rank = ? WHERE id = 5", [.real(Double(rank))]) }
            try controller.checkForExternalChanges()
            let fresh = try FetchedResultsController<ReshapedRow>(connection: other, request: request)
            try fresh.performFetch()
            #expect(controller.snapshot == fresh.snapshot)
            return controller.lastUpdateMethod
        }
        #expect(try commitElsewhere(100) == .refetch)
        try other.installChangeLog(on: "item", columns: ["grp", "rank"])
        #expect(try commitElsewhere(101) == .refetch)   // the schema changed
        #expect(try commitElsewhere(102) == .incremental)
        try other.installChangeLog(on: "item", columns: ["title"])
        #expect(try commitElsewhere(103) == .refetch)
        #expect(try commitElsewhere(104) == .refetch)   // the log lacks grp and rank
        try other.installChangeLog(on: "item")
        #expect(try commitElsewhere(105) == .refetch)
        #expect(try commitElsewhere(106) == .incremental)
        try other.removeChangeLog(from: "item")
        #expect(try commitElsewhere(107) == .refetch)
        #expect(try commitElsewhere(108) == .refetch)
    }

    @Test("A commit that lands between the read of the log and the read of the rows it names: the rows read hold it, and the next check finds them where they are now, not where its entries say they were (else a row would be in the result twice)")
    func commitBetweenLogAndRows() throws {
        let (connection, other, directory) = try makeItems(count: 40)
        defer { try? FileManager.default.removeItem(at: directory) }
        try connection.installChangeLog(on: "item", columns: ["grp", "rank"])
        let request = Shape.sectioned.request
        let controller = try FetchedResultsController<Meddled>(connection: connection, request: request)
        try controller.performFetch()
        try other.write { db in try db.execute("UPDATE item SET rank = rank + 0.5 WHERE id IN (1, 8)") }
        // Whichever of the two rows is read first, the other is read after
        // this commit moved it further.
        meddling.withLock { $0 = { try? other.write { db in try db.execute("UPDATE item SET rank = rank + 50 WHERE id IN (1, 8)") } } }
        #expect(try controller.checkForExternalChanges())
        #expect(meddling.withLock { $0 == nil }, "the commit was made while a row decoded")
        #expect(try controller.checkForExternalChanges())
        #expect(controller.lastUpdateMethod == .incremental)
        let fresh = try FetchedResultsController<Meddled>(connection: other, request: request)
        try fresh.performFetch()
        #expect(controller.snapshot == fresh.snapshot)
        #expect(controller.result.count == 40)
    }

    @Test("The controller's own commits advance its position: after a thousand of them over every row, one commit elsewhere patches (read from the old position, the entries would touch every row, past the touched limit, and fetch again)")
    func ownCommitsAdvance() throws {
        let (connection, other, directory) = try makeItems(count: 40)
        defer { try? FileManager.default.removeItem(at: directory) }
        try connection.installChangeLog(on: "item", columns: ["grp", "rank"])
        let controller = try FetchedResultsController<ReshapedRow>(connection: connection, request: Shape.sectioned.request)
        // The default share, 0.1 of 40 rows: a change may touch 4.
        try controller.performFetch()
        for round in 0..<1_000 {
            try connection.write { db in try db.execute("UPDATE item SET rank = ? WHERE id = ?", [.real(Double(round)), .integer(Int64(round % 40 + 1))]) }
            #expect(controller.lastUpdateMethod == .incremental)
        }
        try other.write { db in try db.execute("UPDATE item SET grp = 'g9' WHERE id = 3") }
        #expect(try #require(try connection.changeLog(on: "item")).lastEntry == 1_001)
        #expect(try controller.checkForExternalChanges())
        #expect(controller.lastUpdateMethod == .incremental)
        let fresh = try FetchedResultsController<ReshapedRow>(connection: other, request: Shape.sectioned.request)
        try fresh.performFetch()
        #expect(controller.snapshot == fresh.snapshot)
    }
}
