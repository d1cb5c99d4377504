import Foundation
import Testing
import TesseraTestTraits
import TesseraDiff
import TesseraResults
import TesseraResultsTestSupport
import TesseraSQLite
import TesseraTestSupport

// Runs on SQLite's stores (ResultsStoreFixture.sqlite): every test here.

/// A row of `entry(id, album_id, title)`.
struct Entry: FetchableRecord, Hashable {
    var id: Int64
    var albumID: Int64?
    var title: String

    init(row: Row) throws {
        id = row["id"].int64 ?? -1
        albumID = row["album_id"].int64
        title = row["title"].string ?? ""
    }
}

/// A row of `shelf(id, name)`.
struct Shelf: FetchableRecord, Hashable {
    var id: Int64
    var name: String

    init(row: Row) throws {
        id = row["id"].int64 ?? -1
        name = row["name"].string ?? ""
    }
}

/// Something a delegate does from inside a report, once.
typealias ReportAction = () -> Void

/// Keeps a controller's reports, checks that each one starts where the
/// previous one ended and that none starts inside another, and runs an
/// armed action from inside the next report.
final class ChainingSectionedDelegate: FetchedResultsControllerDelegate {
    typealias Record = Entry
    var reports: [ChangeReport<Entry>] = []
    var action: ReportAction?
    var inside = false
    var nested = 0
    func controllerWillChangeContent(_ controller: FetchedResultsController<Entry>) {
        if inside { nested += 1 }
        inside = true
        act()
    }
    func controller(_ controller: FetchedResultsController<Entry>, didChangeContentWith report: ChangeReport<Entry>) {
        reports.append(report)
        inside = false
    }
    func act() {
        guard let action else { return }
        self.action = nil
        action()
    }
}

final class ChainingSetDelegate: FetchedSetControllerDelegate {
    typealias Record = Entry
    var reports: [SetChangeReport<Entry>] = []
    var action: ReportAction?
    var inside = false
    var nested = 0
    func controllerWillChangeContent(_ controller: FetchedSetController<Entry>) {
        if inside { nested += 1 }
        inside = true
        if let action { self.action = nil; action() }
    }
    func controller(_ controller: FetchedSetController<Entry>, didChangeContentWith report: SetChangeReport<Entry>) {
        reports.append(report)
        inside = false
    }
}

final class ChainingRelationalDelegate: RelationalResultsControllerDelegate {
    typealias Parent = Shelf
    typealias Child = Entry
    var reports: [SnapshotReport<Shelf, Entry>] = []
    var action: ReportAction?
    var inside = false
    var nested = 0
    func controllerWillChangeContent(_ controller: RelationalResultsController<Shelf, Entry>) {
        if inside { nested += 1 }
        inside = true
        if let action { self.action = nil; action() }
    }
    func controller(_ controller: RelationalResultsController<Shelf, Entry>, didChangeContentWith report: SnapshotReport<Shelf, Entry>) {
        reports.append(report)
        inside = false
    }
}

// Not yet on PostgreSQL (ResultsStoreFixture.sqlite): the setup's trigger and
// deferred foreign key are SQLite's SQL, and the delegates that write from
// inside reports expect SQLite's delivery inside the write.
@Suite("Commit delivery oracle: every controller of a connection equals a fresh query after every step, and its reports chain", .tags(.oracle))
struct CommitDeliveryOracleTests {
    static let entryRequest = FetchRequest(
        table: "entry", sortKeys: [SortKey("album_id"), SortKey("title")], sectionKey: "album_id"
    )
    static let setRequest = SetRequest(table: "entry", predicate: "title < 'm'")
    static let parents = ParentRequest(table: "shelf", sortKeys: [SortKey("name")])
    static let children = ChildRequest(table: "entry", foreignKeyColumn: "album_id", sortKeys: [SortKey("title")])

    /// `shelf`, `entry` (whose `album_id` names a shelf), `log` (whose
    /// trigger retitles an entry) and `ref` (a deferred foreign key to
    /// `shelf`, checked at COMMIT), with foreign keys on.
    static func makeDatabase(_ store: ResultsStoreFixture) throws -> TestDatabase {
        let database = try store.makeDatabase()
        try database.withConnection { db in
            try db.execute("PRAGMA foreign_keys = ON")
            try db.execute("""
                CREATE TABLE shelf (id INTEGER PRIMARY KEY, name TEXT);
                CREATE TABLE entry (id INTEGER PRIMARY KEY, album_id INTEGER, title TEXT);
                CREATE TABLE log (id INTEGER PRIMARY KEY, entry_id INTEGER, title TEXT);
                CREATE TRIGGER log_retitles AFTER INSERT ON log BEGIN
                    UPDATE entry SET title = NEW.title WHERE id = NEW.entry_id;
                END;
                CREATE TABLE ref (id INTEGER PRIMARY KEY, shelf_id INTEGER REFERENCES shelf(id) DEFERRABLE INITIALLY DEFERRED);
                INSERT INTO shelf VALUES (1, 'one'), (2, 'two'), (3, 'three');
                INSERT INTO entry VALUES (1, 1, 'a'), (2, 2, 'n'), (3, 1, 'z');
                """)
        }
        return database
    }

    /// One statement that changes `entry`, `shelf`, `log` or `ref` (some
    /// fail: a repeated key, a column that does not exist).
    static func randomStatement(using generator: inout SplitMix64) -> String {
        func id() -> Int { Int.random(in: 1...24, using: &generator) }
        func shelf() -> Int { Int.random(in: 1...4, using: &generator) }
        func title() -> String { "'" + String("abmnyz".randomElement(using: &generator)!) + String(Int.random(in: 0...9, using: &generator)) + "'" }
        switch Int.random(in: 0..<100, using: &generator) {
        case 0..<25: return "INSERT OR REPLACE INTO entry VALUES (\(id()), \(shelf()), \(title()))"
        case 25..<45: return "UPDATE entry SET title = \(title()) WHERE id = \(id())"
        case 45..<55: return "UPDATE entry SET album_id = \(shelf()) WHERE id = \(id())"
        case 55..<63: return "DELETE FROM entry WHERE id = \(id())"
        case 63..<68: return "INSERT OR REPLACE INTO shelf VALUES (\(shelf()), \(title()))"
        case 68..<71: return "DELETE FROM shelf WHERE id = 4"
        case 71..<79: return "INSERT INTO log (entry_id, title) VALUES (\(id()), \(title()))"
        case 79..<84: return "INSERT INTO entry VALUES (\(id()), \(shelf()), \(title())) RETURNING id"
        case 84..<89: return "INSERT INTO entry VALUES (\(id()), 1, 'dup')"
        case 89..<92: return "UPDATE entry SET nowhere = 1"
        case 92..<96: return "INSERT OR REPLACE INTO ref VALUES (\(id()), \(Int.random(in: 1...9, using: &generator)))"
        default: return "DELETE FROM entry WHERE id % 5 = \(id() % 5)"
        }
    }

    /// A script for one `execute`: statements, transactions committed or
    /// rolled back, savepoints released or rolled back to.
    static func randomScript(using generator: inout SplitMix64) -> String {
        var statements: [String] = []
        var open: [String] = []
        for _ in 0..<Int.random(in: 1...7, using: &generator) {
            switch Int.random(in: 0..<100, using: &generator) {
            case 0..<55: statements.append(randomStatement(using: &generator))
            case 55..<65 where open.isEmpty:
                statements.append("BEGIN")
                open.append("BEGIN")
            case 65..<75 where open.last == "BEGIN":
                statements.append(Bool.random(using: &generator) ? "COMMIT" : "ROLLBACK")
                open.removeLast()
            case 75..<85:
                let name = "s\(open.count)"
                statements.append("SAVEPOINT \(name)")
                open.append(name)
            case 85..<95 where open.last.map { $0 != "BEGIN" } ?? false:
                let name = open.removeLast()
                if Bool.random(using: &generator) {
                    statements.append("RELEASE \(name)")
                } else {
                    statements.append("ROLLBACK TO \(name)")
                    statements.append("RELEASE \(name)")
                }
            default: statements.append(randomStatement(using: &generator))
            }
        }
        if Bool.random(using: &generator) {
            for name in open.reversed() { statements.append(name == "BEGIN" ? "COMMIT" : "RELEASE \(name)") }
        }
        return statements.joined(separator: ";\n") + ";"
    }

    /// Work for a step or for a delegate to do from inside a report: a
    /// script, a write that commits or rolls back, a read that throws, or
    /// a statement stepped once and then reset or dropped.
    static func randomWork(_ database: TestDatabase, using generator: inout SplitMix64) -> () -> Void {
        struct Stop: Error {}
        switch Int.random(in: 0..<5, using: &generator) {
        case 0:
            let script = randomScript(using: &generator)
            return {
                database.withConnection { db in
                    try? db.execute(script)
                    if db.isInTransaction { try? db.execute("ROLLBACK") }
                }
            }
        case 1:
            let statements = (0..<Int.random(in: 1...3, using: &generator)).map { _ in randomStatement(using: &generator) }
            let rollback = Int.random(in: 0..<4, using: &generator) == 0
            return {
                _ = try? database.write { db in
                    for statement in statements { try? db.execute(statement) }
                    if rollback { throw Stop() }
                }
            }
        case 2:
            return { _ = try? database.read { db -> Int in _ = try db.rows("SELECT count(*) FROM entry"); throw Stop() } }
        default:
            let insert = "INSERT OR REPLACE INTO entry VALUES (\(Int.random(in: 1...24, using: &generator)), \(Int.random(in: 1...3, using: &generator)), 'r\(Int.random(in: 0...9, using: &generator))') RETURNING id"
            let reset = Bool.random(using: &generator)
            let inTransaction = Bool.random(using: &generator)
            let end = Bool.random(using: &generator) ? "COMMIT" : "ROLLBACK"
            return {
                database.withConnection { db in
                    if inTransaction { try? db.execute("BEGIN") }
                    try? db.stepOnce(insert, reset: reset)
                    if inTransaction { try? db.execute(end) }
                    if db.isInTransaction { try? db.execute("ROLLBACK") }
                }
            }
        }
    }

    @Test("400 random steps with delegates that write, roll back or read from inside reports: every controller equals a fresh query, and every report starts where the previous one ended", arguments: ResultsStoreFixture.sqlite)
    func everyControllerFollowsEveryStep(store: ResultsStoreFixture) async throws {
        let seed = testSeed(default: 0xC0DE)
        var generator = SplitMix64(seed: seed)
        let database = try Self.makeDatabase(store)

        let patching = try database.fetchedResultsController(Self.entryRequest, of: Entry.self)
        let refetching = try database.fetchedResultsController(Self.entryRequest, of: Entry.self)
        refetching.isIncremental = false
        let set = database.fetchedSetController(Self.setRequest, of: Entry.self)
        let relational = database.relationalResultsController(parents: Self.parents, children: Self.children, of: (Shelf.self, Entry.self))
        let patchingLog = ChainingSectionedDelegate(), refetchingLog = ChainingSectionedDelegate()
        let setLog = ChainingSetDelegate(), relationalLog = ChainingRelationalDelegate()
        patching.delegate = patchingLog
        refetching.delegate = refetchingLog
        set.delegate = setLog
        relational.delegate = relationalLog
        try patching.performFetch()
        try refetching.performFetch()
        try set.performFetch()
        try relational.performFetch()
        let firstEntries = patching.snapshot
        let firstSet = Set(set.records)
        let firstRelational = relational.snapshot
        let patchingReports = patching.reports(bufferLimit: .max)
        let setReports = set.reports(bufferLimit: .max)
        let relationalReports = relational.reports(bufferLimit: .max)

        for step in 0..<400 {
            let comment = Comment(rawValue: "seed \(seed), step \(step)")
            // Arm a delegate or two with work to do inside its next report.
            for _ in 0..<Int.random(in: 0...2, using: &generator) {
                let work = Self.randomWork(database, using: &generator)
                switch Int.random(in: 0..<4, using: &generator) {
                case 0: patchingLog.action = work
                case 1: refetchingLog.action = work
                case 2: setLog.action = work
                default: relationalLog.action = work
                }
            }
            Self.randomWork(database, using: &generator)()

            #expect(database.leftOpen() == nil, comment)
            let freshEntries = try database.freshSnapshot(Self.entryRequest, of: Entry.self)
            let freshSet = try database.freshRecords(Self.setRequest, of: Entry.self)
            let freshRelational = try database.freshSnapshot(parents: Self.parents, children: Self.children, of: (Shelf.self, Entry.self))
            #expect(patching.snapshot == freshEntries, comment)
            #expect(refetching.snapshot == freshEntries, comment)
            #expect(Set(set.records) == Set(freshSet), comment)
            #expect(relational.snapshot == freshRelational, comment)
            #expect(patching.lastError == nil && refetching.lastError == nil && set.lastError == nil && relational.lastError == nil, comment)
            if patching.snapshot != freshEntries || Set(set.records) != Set(freshSet) || relational.snapshot != freshRelational { return }
        }

        // The delegates heard every report once, none inside another, each
        // from where the previous one left off.
        for log in [patchingLog, refetchingLog] {
            #expect(log.nested == 0, "seed \(seed)")
            #expect(log.reports.first?.oldSnapshot == firstEntries, "seed \(seed)")
            for (earlier, later) in zip(log.reports, log.reports.dropFirst()) {
                #expect(earlier.newSnapshot == later.oldSnapshot, "seed \(seed)")
            }
            #expect(log.reports.last?.newSnapshot == patching.snapshot, "seed \(seed)")
        }
        #expect(patchingLog.reports.count > 100, "seed \(seed): \(patchingLog.reports.count) reports")
        #expect(setLog.nested == 0 && relationalLog.nested == 0, "seed \(seed)")
        var records = Dictionary(uniqueKeysWithValues: firstSet.map { ($0.id, $0) })
        for report in setLog.reports {
            #expect(report.oldCount == records.count, "seed \(seed)")
            for record in report.deleted { #expect(records.removeValue(forKey: record.id) != nil, "seed \(seed)") }
            for record in report.updated { #expect(records.updateValue(record, forKey: record.id) != nil, "seed \(seed)") }
            for record in report.inserted { #expect(records.updateValue(record, forKey: record.id) == nil, "seed \(seed)") }
        }
        #expect(Set(records.values) == Set(set.records), "seed \(seed)")
        #expect(relationalLog.reports.first?.oldSnapshot == firstRelational, "seed \(seed)")
        for (earlier, later) in zip(relationalLog.reports, relationalLog.reports.dropFirst()) {
            #expect(earlier.newSnapshot == later.oldSnapshot, "seed \(seed)")
        }

        // The sequences got the same reports, in the same order.
        var entryIterator = patchingReports.makeAsyncIterator()
        for expected in patchingLog.reports {
            let report = await entryIterator.next()
            #expect(report?.oldSnapshot == expected.oldSnapshot && report?.newSnapshot == expected.newSnapshot, "seed \(seed)")
        }
        var setIterator = setReports.makeAsyncIterator()
        for expected in setLog.reports {
            let report = await setIterator.next()
            #expect(report?.oldCount == expected.oldCount && report?.newCount == expected.newCount && report?.inserted == expected.inserted, "seed \(seed)")
        }
        var relationalIterator = relationalReports.makeAsyncIterator()
        for expected in relationalLog.reports {
            let report = await relationalIterator.next()
            #expect(report?.oldSnapshot == expected.oldSnapshot && report?.newSnapshot == expected.newSnapshot, "seed \(seed)")
        }
    }

    @Test("A transaction one controller's delegate rolls back from inside a report does not cost the controllers told after it that commit", .cpuBound, arguments: ResultsStoreFixture.sqlite)
    func rollbackInsideAReportKeepsTheCommitForOthers(store: ResultsStoreFixture) throws {
        struct Stop: Error {}
        let database = try Self.makeDatabase(store)
        let first = try database.fetchedResultsController(Self.entryRequest, of: Entry.self)
        let second = try database.fetchedResultsController(Self.entryRequest, of: Entry.self)
        let set = database.fetchedSetController(Self.setRequest, of: Entry.self)
        let relational = database.relationalResultsController(parents: Self.parents, children: Self.children, of: (Shelf.self, Entry.self))
        let firstLog = ChainingSectionedDelegate(), secondLog = ChainingSectionedDelegate()
        first.delegate = firstLog
        second.delegate = secondLog
        try first.performFetch()
        try second.performFetch()
        try set.performFetch()
        try relational.performFetch()
        // A read that fails rolls its transaction back.
        firstLog.action = { _ = try? database.read { db -> Int in _ = try db.rows("SELECT 1"); throw Stop() } }
        try database.write { db in try db.execute("INSERT INTO entry VALUES (9, 1, 'b')") }

        #expect(second.snapshot.allItems.map(\.id) == [1, 9, 3, 2])
        #expect(secondLog.reports.count == 1)
        #expect(set.ids == [1, 9])
        #expect(relational.snapshot.allItems.map(\.id) == [1, 9, 3, 2])

        // And a write the delegate rolls back is never shown to them.
        firstLog.action = { _ = try? database.write { db in try db.execute("DELETE FROM entry"); throw Stop() } }
        try database.write { db in try db.execute("UPDATE entry SET title = 'c' WHERE id = 9") }
        #expect(second.snapshot.allItems.map(\.title) == ["a", "c", "z", "n"])
        #expect(secondLog.reports.count == 2)
        #expect(set.records.count == 2)
    }

    @Test("A delegate that writes from inside a report hears that write's report after its own, never inside it, and the sequence gets them in order", arguments: ResultsStoreFixture.sqlite)
    func writeInsideAReportIsReportedAfterIt(store: ResultsStoreFixture) async throws {
        let database = try Self.makeDatabase(store)
        let controller = try database.fetchedResultsController(Self.entryRequest, of: Entry.self)
        let other = try database.fetchedResultsController(Self.entryRequest, of: Entry.self)
        let log = ChainingSectionedDelegate(), otherLog = ChainingSectionedDelegate()
        controller.delegate = log
        other.delegate = otherLog
        try controller.performFetch()
        try other.performFetch()
        let reports = controller.reports
        log.action = { try? database.write { db in try db.execute("INSERT INTO entry VALUES (10, 2, 'b')") } }
        try database.write { db in try db.execute("INSERT INTO entry VALUES (9, 1, 'b')") }

        #expect(log.nested == 0)
        #expect(log.reports.map { $0.newSnapshot.allItems.map(\.id) } == [[1, 9, 3, 2], [1, 9, 3, 10, 2]])
        #expect(log.reports[0].newSnapshot == log.reports[1].oldSnapshot)
        var iterator = reports.makeAsyncIterator()
        let firstReport = await iterator.next()
        let secondReport = await iterator.next()
        #expect(firstReport?.newSnapshot == secondReport?.oldSnapshot)
        #expect(secondReport?.newSnapshot == controller.snapshot)
        // The other controller, told after the first, hears both commits.
        #expect(other.snapshot == controller.snapshot)
        #expect(otherLog.reports.last?.newSnapshot == controller.snapshot)
    }

    @Test("A delegate that makes its controller report again from inside a report (a new request) leaves the sequences' reports in order", arguments: ResultsStoreFixture.sqlite)
    func reportFromInsideAReportKeepsTheSequenceInOrder(store: ResultsStoreFixture) async throws {
        let database = try Self.makeDatabase(store)
        let controller = try database.fetchedResultsController(Self.entryRequest, of: Entry.self)
        let relational = database.relationalResultsController(parents: Self.parents, children: Self.children, of: (Shelf.self, Entry.self))
        let log = ChainingSectionedDelegate(), relationalLog = ChainingRelationalDelegate()
        controller.delegate = log
        relational.delegate = relationalLog
        try controller.performFetch()
        try relational.performFetch()
        let reports = controller.reports, relationalReports = relational.reports
        var narrower = Self.entryRequest
        narrower.predicate = "title < 'y'"
        log.action = { try? controller.setRequest(narrower) }
        relationalLog.action = { try? relational.setRequests(parents: Self.parents, children: ChildRequest(table: "entry", foreignKeyColumn: "album_id", predicate: "title < 'y'", sortKeys: [SortKey("title")])) }
        try database.write { db in try db.execute("INSERT INTO entry VALUES (9, 1, 'b')") }

        var iterator = reports.makeAsyncIterator()
        let first = await iterator.next(), second = await iterator.next()
        #expect(first?.newSnapshot.allItems.map(\.id) == [1, 9, 3, 2])
        #expect(first?.newSnapshot == second?.oldSnapshot)
        #expect(second?.newSnapshot == controller.snapshot)
        var relationalIterator = relationalReports.makeAsyncIterator()
        let firstRelational = await relationalIterator.next(), secondRelational = await relationalIterator.next()
        #expect(firstRelational?.newSnapshot == secondRelational?.oldSnapshot)
        #expect(secondRelational?.newSnapshot == relational.snapshot)
    }
}
