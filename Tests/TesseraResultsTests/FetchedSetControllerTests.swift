import Foundation
import Testing
@testable import TesseraResults
@testable import TesseraResultsCore
@testable import TesseraResultsSQLite
import TesseraResultsTestSupport
import TesseraSQLite
import TesseraTestSupport
import TesseraTestTraits

// Runs on every store (ResultsStoreFixture.all): fetching, inserts,
// deletes and updates, rollbacks and savepoints, key changes, a large
// transaction, a failed decode and the randomized oracle. Single-store
// (SQLite): a WITHOUT ROWID table, a row-id key and SQLite's view, and
// refresh after another connection's commit to the same file.

struct Message: FetchableRecord, Hashable {
    var id: Int64
    var folder: String
    var unread: Int64
    var subject: String

    init(row: Row) throws {
        id = row["id"].int64 ?? -1
        folder = row["folder"].string ?? ""
        unread = row["unread"].int64 ?? 0
        subject = row["subject"].string ?? ""
    }

    init(values: [DatabaseValue]) {
        id = values[0].int64 ?? -1
        folder = values[1].string ?? ""
        unread = values[2].int64 ?? 0
        subject = values[3].string ?? ""
    }
}

struct Label: FetchableRecord, Hashable {
    var id: String
    var weight: Int64

    init(row: Row) throws {
        id = row["name"].string ?? ""
        weight = row["weight"].int64 ?? 0
    }
}

/// Records every report and callback of a set controller.
final class SetLog<Record: FetchableRecord>: FetchedSetControllerDelegate {
    var reports: [SetChangeReport<Record>] = []
    var events: [String] = []
    var errors: [ResultsError] = []

    func controllerWillChangeContent(_ controller: FetchedSetController<Record>) { events.append("will") }
    func controller(_ controller: FetchedSetController<Record>, didChange record: Record, for type: ResultsChangeType) {
        events.append("\(type) \(record.id)")
    }
    func controller(_ controller: FetchedSetController<Record>, didChangeContentWith report: SetChangeReport<Record>) {
        events.append("did")
        reports.append(report)
    }
    func controller(_ controller: FetchedSetController<Record>, didFailWith error: ResultsError) { errors.append(error) }
}

@Suite("FetchedSetController", .tags(.postgres), .ownThreads)
struct FetchedSetControllerTests {
    static let unreadInbox = SetRequest(table: "message", predicate: "unread = ? AND folder = ?", arguments: [.integer(1), .text("inbox")])

    static let setUp = [
        "CREATE TABLE message (id INTEGER PRIMARY KEY, folder TEXT, unread INTEGER, subject TEXT)",
        "CREATE TABLE label (name TEXT PRIMARY KEY, weight INTEGER) WITHOUT ROWID",
        "CREATE TABLE muted (folder TEXT PRIMARY KEY)",
        "INSERT INTO message VALUES (1, 'inbox', 1, 'a'), (2, 'inbox', 0, 'b'), (3, 'spam', 1, 'c'), (4, 'inbox', 1, 'd')",
    ]

    /// `message` with four rows, `label` and `muted`, in a database of
    /// `store`.
    static func makeDatabase(_ store: ResultsStoreFixture) throws -> TestDatabase {
        try store.makeDatabase(executing: setUp)
    }

    /// The same tables in an SQLite database in memory.
    static func makeDatabase() throws -> Connection {
        try Connection.inMemory(executing: setUp)
    }

    static func makeController<Record>(_ database: TestDatabase, _ request: SetRequest, as type: Record.Type = Message.self) throws -> (FetchedSetController<Record>, SetLog<Record>) {
        try start(database.fetchedSetController(request, of: Record.self))
    }

    static func makeController<Record>(_ connection: Connection, _ request: SetRequest, as type: Record.Type = Message.self) throws -> (FetchedSetController<Record>, SetLog<Record>) {
        try start(FetchedSetController<Record>(connection: connection, request: request))
    }

    /// Gives the controller a log and fetches.
    static func start<Record>(_ controller: FetchedSetController<Record>) throws -> (FetchedSetController<Record>, SetLog<Record>) {
        let log = SetLog<Record>()
        controller.delegate = log
        try controller.performFetch()
        return (controller, log)
    }

    @Test("A fetch holds the matching rows: count, contains and lookup by id", arguments: ResultsStoreFixture.all)
    func fetch(store: ResultsStoreFixture) throws {
        let (controller, log) = try Self.makeController(try Self.makeDatabase(store), Self.unreadInbox)
        #expect(controller.count == 2)
        #expect(controller.contains(id: 1) && controller.contains(id: 4) && !controller.contains(id: 2) && !controller.contains(id: 3))
        #expect(controller.record(withID: 4)?.subject == "d" && controller.record(withID: 3) == nil)
        #expect(controller.ids == [1, 4] && Set(controller.records.map(\.id)) == [1, 4])
        #expect(log.reports.isEmpty && controller.observedTables == ["message"])
    }

    @Test("Inserts, deletes and content updates are reported by key with the counts; rows that do not match report nothing", arguments: ResultsStoreFixture.all)
    func insertDeleteUpdate(store: ResultsStoreFixture) throws {
        let database = try Self.makeDatabase(store)
        let (controller, log) = try Self.makeController(database, Self.unreadInbox)
        try database.write { db in try db.execute("INSERT INTO message VALUES (5, 'inbox', 1, 'e')") }
        #expect(log.reports.last?.inserted.map(\.id) == [5] && controller.count == 3)
        try database.write { db in try db.execute("INSERT INTO message VALUES (6, 'spam', 1, 'f')") }
        #expect(log.reports.count == 1)
        try database.write { db in try db.execute("UPDATE message SET subject = 'A' WHERE id = 1") }
        #expect(log.reports.last?.updated.map(\.subject) == ["A"] && log.reports.last?.inserted.isEmpty == true)
        try database.write { db in try db.execute("UPDATE message SET unread = 0 WHERE id = 4") }
        #expect(log.reports.last?.deleted.map(\.subject) == ["d"] && !controller.contains(id: 4))
        try database.write { db in try db.execute("UPDATE message SET unread = 1 WHERE id = 2") }
        #expect(log.reports.last?.inserted.map(\.id) == [2] && controller.contains(id: 2))
        try database.write { db in try db.execute("DELETE FROM message WHERE id = 5") }
        #expect(log.reports.last?.deleted.map(\.id) == [5])
        #expect(log.reports.count == 5 && controller.count == 2)
        log.events.removeAll()
        try database.write { db in
            try db.execute("DELETE FROM message WHERE id = 1")
            try db.execute("INSERT INTO message VALUES (8, 'inbox', 1, 'h'), (7, 'inbox', 1, 'g')")
            try db.execute("UPDATE message SET subject = 'B' WHERE id = 2")
        }
        let report = try #require(log.reports.last)
        #expect(report.inserted.map(\.id) == [7, 8] && report.deleted.map(\.id) == [1] && report.updated.map(\.id) == [2])
        #expect(report.oldCount == 2 && report.newCount == 3 && controller.count == 3)
        #expect(log.events == ["will", "delete 1", "insert 7", "insert 8", "update 2", "did"])
        // Over PostgreSQL the controller takes commits when it next looks:
        // one that matched nothing may come merged with the next.
        withKnownIssue("Over PostgreSQL a commit soon after the fetch is sometimes re-fetched where SQLite patches it (refetches 1 in a clean-clone CI run); the reports agree", isIntermittent: true) {
            #expect(controller.refetches == 0, "every commit, the one that matched nothing too, was followed row by row")
            #expect(store.followsInBackground ? (6...7).contains(controller.incrementalUpdates) : controller.incrementalUpdates == 7)
        } when: { store.followsInBackground }
    }

    @Test("Rolled-back transactions report nothing; a rolled-back savepoint drops only its own changes", arguments: ResultsStoreFixture.all)
    func rollbacks(store: ResultsStoreFixture) throws {
        let database = try Self.makeDatabase(store)
        let (controller, log) = try Self.makeController(database, Self.unreadInbox)
        try? database.write { db in
            try db.execute("DELETE FROM message")
            throw Rollback()
        }
        #expect(log.reports.isEmpty && controller.count == 2)
        try database.write { db in
            try? db.savepoint { db in
                try db.execute("DELETE FROM message WHERE id = 1")
                throw Rollback()
            }
            try db.execute("UPDATE message SET unread = 0 WHERE id = 4")
        }
        #expect(log.reports.count == 1)
        #expect(log.reports.last?.deleted.map(\.id) == [4] && log.reports.last?.inserted.isEmpty == true)
        #expect(controller.ids == [1])
    }

    @Test("A key that changes is a delete of the old key and an insert of the new one", arguments: ResultsStoreFixture.all)
    func keyChange(store: ResultsStoreFixture) throws {
        let database = try Self.makeDatabase(store)
        let (controller, log) = try Self.makeController(database, Self.unreadInbox)
        try database.write { db in try db.execute("UPDATE message SET id = 10 WHERE id = 1") }
        #expect(log.reports.last?.deleted.map(\.id) == [1] && log.reports.last?.inserted.map(\.id) == [10])
        #expect(controller.ids == [4, 10])
    }

    @Test("A WITHOUT ROWID table with a text key, REPLACE and DELETE without WHERE are followed row by row")
    func withoutRowID() throws {
        let connection = try Self.makeDatabase()
        let (controller, log) = try Self.makeController(connection, SetRequest(table: "label", keyColumn: "name", predicate: "weight > 0"), as: Label.self)
        try connection.write { db in try db.execute("INSERT INTO label VALUES ('b', 1), ('a', 2), ('z', 0)") }
        #expect(log.reports.last?.inserted.map(\.id) == ["a", "b"])
        try connection.write { db in try db.execute("INSERT OR REPLACE INTO label VALUES ('a', 5), ('z', 3)") }
        #expect(log.reports.last?.updated.map(\.weight) == [5] && log.reports.last?.inserted.map(\.id) == ["z"])
        try connection.write { db in try db.execute("DELETE FROM label") }
        #expect(log.reports.last?.deleted.map(\.id) == ["a", "b", "z"] && controller.count == 0)
        #expect(controller.refetches == 0 && log.reports.count == 3)
    }

    @Test("A predicate with a subquery, a view, and a row-id key re-fetch or read by row id, and stay right")
    func otherSources() throws {
        let connection = try Self.makeDatabase()
        let (subquery, subqueryLog) = try Self.makeController(connection, SetRequest(table: "message", predicate: "folder NOT IN (SELECT folder FROM muted)"))
        try connection.write { db in try db.execute("CREATE VIEW unread AS SELECT * FROM message WHERE unread = 1") }
        let (view, viewLog) = try Self.makeController(connection, SetRequest(table: "unread"))
        let (byRowID, rowIDLog) = try Self.makeController(connection, SetRequest(table: "message", keyColumn: "rowid", predicate: "unread = 1"))
        #expect(subquery.count == 4 && view.count == 3 && byRowID.count == 3)
        try connection.write { db in try db.execute("INSERT INTO muted VALUES ('spam')") }
        #expect(subqueryLog.reports.last?.deleted.map(\.id) == [3] && subquery.count == 3)
        try connection.write { db in try db.execute("UPDATE message SET unread = 1 WHERE id = 2") }
        #expect(viewLog.reports.last?.inserted.map(\.id) == [2] && view.count == 4)
        #expect(rowIDLog.reports.last?.inserted.map(\.id) == [2] && byRowID.count == 4)
        #expect(subqueryLog.reports.count == 2 && subqueryLog.reports.last?.updated.map(\.id) == [2])
        // The view's creation changed the schema under the first controller.
        #expect(subquery.refetches == 3 && view.refetches == 1 && byRowID.refetches == 0 && byRowID.incrementalUpdates == 1)
    }

    @Test("A large transaction re-fetches by default and reports exactly what reading row by row reports", arguments: ResultsStoreFixture.all)
    func largeTransactionFallsBack(store: ResultsStoreFixture) throws {
        let database = try Self.makeDatabase(store)
        let (automatic, automaticLog) = try Self.makeController(database, Self.unreadInbox)
        let (incremental, incrementalLog) = try Self.makeController(database, Self.unreadInbox)
        incremental.incrementalLimit = .max
        try database.write { db in
            for id in 100..<300 {
                try db.execute("INSERT INTO message VALUES (?, ?, 1, 's')", [.integer(Int64(id)), .text(id % 3 == 0 ? "spam" : "inbox")])
            }
            try db.execute("UPDATE message SET subject = 'x' WHERE id = 1")
        }
        #expect(automatic.refetches == 1 && automatic.incrementalUpdates == 0)
        #expect(incremental.refetches == 0 && incremental.incrementalUpdates == 1)
        #expect(automaticLog.reports == incrementalLog.reports && automaticLog.reports.count == 1)
        #expect(automaticLog.reports.last?.inserted.count == 134 && automaticLog.reports.last?.updated.map(\.id) == [1])
        #expect(automaticLog.reports.last?.inserted.map(\.id) == (100..<300).filter { $0 % 3 != 0 }.map(Int64.init))
        #expect(automatic.count == 136 && incremental.count == 136)
    }

    @Test("Another connection's commits are seen by refresh, as one report")
    func refresh() throws {
        let file = try temporaryDirectory().appendingPathComponent("set.sqlite").path
        let connection = try Connection(path: file)
        try connection.write { db in
            try db.execute("CREATE TABLE message (id INTEGER PRIMARY KEY, folder TEXT, unread INTEGER, subject TEXT)")
            try db.execute("INSERT INTO message VALUES (1, 'inbox', 1, 'a'), (2, 'inbox', 1, 'b')")
        }
        let (controller, log) = try Self.makeController(connection, Self.unreadInbox)
        let other = try Connection(path: file)
        try other.write { db in
            try db.execute("UPDATE message SET unread = 0 WHERE id = 1")
            try db.execute("UPDATE message SET subject = 'B' WHERE id = 2")
            try db.execute("INSERT INTO message VALUES (3, 'inbox', 1, 'c')")
        }
        #expect(log.reports.isEmpty && controller.count == 2)
        try controller.refresh()
        let report = try #require(log.reports.last)
        #expect(report.deleted.map(\.id) == [1] && report.inserted.map(\.id) == [3] && report.updated.map(\.subject) == ["B"])
        #expect(controller.ids == [2, 3] && log.reports.count == 1)
        try controller.refresh()
        #expect(log.reports.count == 1)
    }

    @Test("A record that fails to decode after a commit keeps the last good set, tells the delegate, and recovers", arguments: ResultsStoreFixture.all)
    func failedUpdate(store: ResultsStoreFixture) throws {
        struct Strict: FetchableRecord {
            struct Bad: Error {}
            var id: Int64
            init(row: Row) throws {
                id = row["id"].int64 ?? -1
                if row["subject"].string == "bad" { throw Bad() }
            }
        }
        let database = try Self.makeDatabase(store)
        let (controller, log) = try Self.makeController(database, Self.unreadInbox, as: Strict.self)
        try database.write { db in try db.execute("INSERT INTO message VALUES (5, 'inbox', 1, 'bad')") }
        #expect(controller.count == 2 && log.errors.count == 1 && controller.lastError != nil)
        try database.write { db in try db.execute("UPDATE message SET subject = 'good' WHERE id = 5") }
        #expect(controller.count == 3 && controller.lastError == nil && log.reports.last?.inserted.map(\.id) == [5])
    }

    // MARK: Randomized oracle

    // Not yet on PostgreSQL (ResultsStoreFixture.sqlite): there, the
    // fresh set controllers the wait after each write makes and releases
    // (TestDatabase.freshRecords) leave their sessions idle in an open
    // transaction, 266 of them after a few minutes of this test, until the
    // server refuses connections; released fetched results controllers do
    // not. See the report of the PostgreSQL case.
    @Test("Random transactions: the incremental and re-fetch paths give the same reports, the set equals a plain query, and reports replay to it", arguments: ResultsStoreFixture.sqlite)
    func randomTransactions(store: ResultsStoreFixture) throws {
        let seed = testSeed(default: 0x5E7_5E7)
        var generator = SplitMix64(seed: seed)
        let database = try Self.makeDatabase(store)
        let request = SetRequest(table: "message", predicate: "unread = ? AND folder <> ?", arguments: [.integer(1), .text("spam")])
        let (automatic, automaticLog) = try Self.makeController(database, request)
        let (refetching, refetchingLog) = try Self.makeController(database, request)
        refetching.incrementalLimit = 0
        let (incremental, incrementalLog) = try Self.makeController(database, request)
        incremental.incrementalLimit = .max
        let folders: [DatabaseValue] = ["inbox", "spam", "work", nil]
        var previous = Dictionary(uniqueKeysWithValues: automatic.records.map { ($0.id, $0) })
        for round in 0..<store.rounds(800) {
            let reportsBefore = automaticLog.reports.count
            let rollback = Int.random(in: 0..<10, using: &generator) == 0
            try? database.write { (db: any TestConnection) -> Void in
                for _ in 0..<Int.random(in: 1...5, using: &generator) {
                    let id = Int64.random(in: 1...50, using: &generator)
                    switch Int.random(in: 0..<100, using: &generator) {
                    case 0..<30:
                        try db.execute("INSERT OR REPLACE INTO message VALUES (?, ?, ?, ?)", [
                            .integer(id), folders.randomElement(using: &generator)!,
                            .integer(Int64.random(in: 0...1, using: &generator)), .text("s\(Int.random(in: 0...2, using: &generator))"),
                        ])
                    case 30..<50:
                        try db.execute("UPDATE message SET unread = 1 - unread WHERE id = ?", [.integer(id)])
                    case 50..<62:
                        try db.execute("UPDATE message SET folder = ? WHERE id = ?", [folders.randomElement(using: &generator)!, .integer(id)])
                    case 62..<74:
                        try db.execute("UPDATE message SET subject = ? WHERE id = ?", [.text("s\(Int.random(in: 0...2, using: &generator))"), .integer(id)])
                    case 74..<84:
                        try db.execute("DELETE FROM message WHERE id = ?", [.integer(id)])
                    case 84..<86:
                        try db.execute("DELETE FROM message")
                    case 86..<89:
                        try? db.execute("UPDATE message SET id = ? WHERE id = ?", [.integer(Int64.random(in: 1...50, using: &generator)), .integer(id)])
                    case 89..<92:
                        try db.execute("UPDATE message SET unread = 1 WHERE id % 5 = ?", [.integer(id % 5)])
                    case 92..<94:
                        try db.execute("INSERT OR REPLACE INTO label VALUES (?, 1)", [.text("l\(id)")])
                    default:
                        let release = Bool.random(using: &generator)
                        try? db.savepoint { db in
                            try db.execute("UPDATE message SET unread = 1 - unread WHERE id % 3 = ?", [.integer(id % 3)])
                            try db.execute("DELETE FROM message WHERE id = ?", [.integer(id)])
                            if !release { throw Rollback() }
                        }
                    }
                }
                if rollback { throw Rollback() }
            }
            let comment = Comment(rawValue: "seed \(seed), round \(round)")
            let rows = try database.withConnection { db in
                try db.rows("SELECT id, folder, unread, subject FROM message WHERE unread = 1 AND folder <> 'spam'")
            }
            let expected = Dictionary(uniqueKeysWithValues: rows.map { (Message(values: $0).id, Message(values: $0)) })
            for controller in [automatic, refetching, incremental] {
                #expect(Dictionary(uniqueKeysWithValues: controller.records.map { ($0.id, $0) }) == expected, comment)
                #expect(controller.count == expected.count && controller.lastError == nil, comment)
            }
            #expect(automaticLog.reports == refetchingLog.reports, comment)
            #expect(automaticLog.reports == incrementalLog.reports, comment)
            if expected == previous {
                #expect(automaticLog.reports.count == reportsBefore, "no report without a change; \(comment)")
            } else {
                #expect(automaticLog.reports.count == reportsBefore + 1, comment)
                if let report = automaticLog.reports.last, automaticLog.reports.count == reportsBefore + 1 {
                    var replayed = previous
                    for record in report.deleted {
                        #expect(replayed.removeValue(forKey: record.id) == record, "a delete names the record as it was; \(comment)")
                    }
                    for record in report.inserted {
                        #expect(replayed.updateValue(record, forKey: record.id) == nil, "an insert is new; \(comment)")
                    }
                    for record in report.updated {
                        #expect(replayed.updateValue(record, forKey: record.id) != record, "an update changes content; \(comment)")
                    }
                    #expect(replayed == expected, comment)
                    #expect(report.oldCount == previous.count && report.newCount == expected.count, comment)
                }
            }
            if rollback { #expect(automaticLog.reports.count == reportsBefore, comment) }
            previous = expected
        }
        #expect(automaticLog.reports.count > store.share(200), "seed \(seed): too few reports to mean anything")
        #expect(incremental.refetches == 0 && refetching.incrementalUpdates == 0)
        #expect(automatic.incrementalUpdates > store.share(300), "seed \(seed): the automatic controller must mostly follow commits row by row")
    }
}
