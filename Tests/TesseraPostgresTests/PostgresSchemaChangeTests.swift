import Foundation
import Testing
import TesseraTestTraits
import TesseraDiff
import TesseraResults
import TesseraResultsTestSupport
import TesseraSQLite
import TesseraTestSupport
@testable import TesseraPostgres
#if canImport(Glibc)
import Glibc
#endif

// What a schema change invalidates is read again: after a column is added
// or dropped, a column's collation or type changes, an index or a view is
// made or dropped, or the table is truncated, every record a PostgreSQL
// controller holds equals what a fresh query gives, every column of it.
// A change that breaks the request (its sort or section column renamed or
// dropped) is reported, naming the request, and the controller does not
// go on showing the old shape as if all were well.

/// A result as a list of groups (sections, or a relational controller's
/// parents), each named by its section value or parent record.
struct ReshapedGroup: Hashable, Sendable, CustomStringConvertible {
    var head: String
    var rows: [ReshapedRow]
    var description: String { "\(head): " + rows.map(\.description).joined(separator: ", ") }
}

/// The reports and failures of one controller of ``ReshapedRow``.
final class ReshapedLog: FetchedResultsControllerDelegate {
    var errors: [ResultsError] = []
    func controller(_ controller: FetchedResultsController<ReshapedRow>, didChangeContentWith report: ChangeReport<ReshapedRow>) {}
    func controller(_ controller: FetchedResultsController<ReshapedRow>, didFailWith error: ResultsError) { errors.append(error) }
}

/// Every kind of controller over one store, all at home on this actor
/// (commits reach them as jobs here), and the sessions that write and
/// check: the calls block this actor's thread for the server's answers,
/// as the controllers' own calls do.
actor SchemaChangeFollowers {
    static let sectioned = FetchRequest(table: "item", sortKeys: [SortKey("family"), SortKey("rank")], sectionKey: "family")
    static let filtered = FetchRequest(table: "item", predicate: "rank < ?", arguments: [.integer(40)], sortKeys: [SortKey("title", ascending: false)])
    static let lazy: FetchRequest = {
        var request = FetchRequest(table: "item", sortKeys: [SortKey("family"), SortKey("title")], sectionKey: "family")
        request.fetchBatchSize = 4
        return request
    }()
    static let set = SetRequest(table: "item", predicate: "family <> ?", arguments: [.integer(3)])
    static let parents = ParentRequest(table: "family", sortKeys: [SortKey("name")])
    static let children = ChildRequest(table: "item", foreignKeyColumn: "family", sortKeys: [SortKey("rank")])

    /// The fetched results controllers, by name, and the fresh query each
    /// must equal (`section`: the column that makes its sections).
    static let fetchedQueries: [(name: String, request: FetchRequest, sql: String, section: String?)] = [
        ("sectioned", sectioned, "SELECT * FROM item ORDER BY family, rank, id", "family"),
        ("filtered", filtered, "SELECT * FROM item WHERE rank < 40 ORDER BY title DESC, id", nil),
        ("lazy", lazy, "SELECT * FROM item ORDER BY family, title, id", "family"),
        ("query", FetchRequest(query: "SELECT * FROM item WHERE family <> 0", sortKeys: [SortKey("rank")]), "SELECT * FROM item WHERE family <> 0 ORDER BY rank, id", nil),
    ]

    struct State: Equatable, Sendable {
        var results: [String: [ReshapedGroup]] = [:]
        var errors: [String: String] = [:]
    }

    let store: PostgresStore
    let writer: PostgresSession
    let checker: PostgresSession
    private var fetched: [(name: String, controller: FetchedResultsController<ReshapedRow>, log: ReshapedLog)] = []
    private var set: FetchedSetController<ReshapedRow>?
    private var relational: RelationalResultsController<ReshapedRow, ReshapedRow>?

    init(url: String) throws {
        store = try PostgresStore(url: url)
        store.pollInterval = 0.001
        writer = try OracleServer.session(url)
        checker = try OracleServer.session(url, applicationName: "oracle-checker")
    }

    func start() throws {
        for (name, request, _, _) in Self.fetchedQueries {
            let controller = try FetchedResultsController<ReshapedRow>(store: store, request: request)
            if request.fetchBatchSize == 0 { controller.incrementalThreshold = .infinity }
            let log = ReshapedLog()
            controller.delegate = log
            try controller.performFetch()
            fetched.append((name, controller, log))
        }
        let set = FetchedSetController<ReshapedRow>(store: store, request: Self.set)
        try set.performFetch()
        self.set = set
        let relational = RelationalResultsController<ReshapedRow, ReshapedRow>(store: store, parents: Self.parents, children: Self.children)
        try relational.performFetch()
        self.relational = relational
    }

    func finish() {
        fetched = []
        set = nil
        relational = nil
        store.close()
        writer.close()
        checker.close()
    }

    /// Runs statements on the writer's session, one after another.
    func write(_ statements: [String]) throws {
        for sql in statements { try writer.query(sql, request: "write: \(sql)") }
    }

    /// What each controller shows now, and its error if it has one.
    func state() -> State {
        var state = State()
        for (name, controller, log) in fetched {
            if let error = controller.lastError ?? log.errors.last { state.errors[name] = "\(error)" }
            var groups: [ReshapedGroup] = []
            let result = controller.result
            for section in 0..<result.numberOfSections {
                var rows: [ReshapedRow] = []
                for item in 0..<result.numberOfRecords(inSection: section) {
                    do throws(ResultsError) {
                        rows.append(try result.record(at: IndexPath(item: item, section: section)))
                    } catch {
                        state.errors[name + " record"] = "\(error)"
                    }
                }
                groups.append(ReshapedGroup(head: "\(result.sections[section].value)", rows: rows))
            }
            state.results[name] = Self.normalized(groups, sectioned: controller.request.sectionKey != nil)
        }
        if let set {
            if let error = set.lastError { state.errors["set"] = "\(error)" }
            state.results["set"] = Self.normalized([ReshapedGroup(head: "", rows: set.records.sorted { $0.id < $1.id })], sectioned: false)
        }
        if let relational {
            if let error = relational.lastError { state.errors["relational"] = "\(error)" }
            let snapshot = relational.snapshot
            state.results["relational"] = snapshot.sections.indices.map { index in
                ReshapedGroup(head: "\(snapshot.sections[index])", rows: Array(snapshot.items(inSection: index)))
            }
        }
        return state
    }

    /// What fresh queries give now.
    func fresh() throws -> State {
        var state = State()
        for (name, _, sql, section) in Self.fetchedQueries {
            let rows = try query(sql)
            var groups: [ReshapedGroup] = []
            for row in rows {
                let head = section.map { "\(row[$0])" } ?? ""
                if groups.last?.head == head { groups[groups.count - 1].rows.append(row) } else { groups.append(ReshapedGroup(head: head, rows: [row])) }
            }
            state.results[name] = Self.normalized(groups, sectioned: section != nil)
        }
        state.results["set"] = Self.normalized([ReshapedGroup(head: "", rows: try query("SELECT * FROM item WHERE family <> 3 ORDER BY id"))], sectioned: false)
        let children = try query("SELECT * FROM item ORDER BY rank, id")
        state.results["relational"] = try query("SELECT * FROM family ORDER BY name, id").map { parent in
            ReshapedGroup(head: "\(parent)", rows: children.filter { $0["family"] == parent["id"] })
        }
        return state
    }

    private func query(_ sql: String) throws -> [ReshapedRow] {
        let rows = try checker.query(sql, request: "fresh: \(sql)")
        return rows.rows.map { ReshapedRow(columns: rows.columns.map(\.name), values: $0) }
    }

    /// No empty list for a result without sections; one group for all of it.
    private static func normalized(_ groups: [ReshapedGroup], sectioned: Bool) -> [ReshapedGroup] {
        if sectioned { return groups }
        let rows = groups.flatMap(\.rows)
        return rows.isEmpty ? [] : [ReshapedGroup(head: "", rows: rows)]
    }
}

/// A set controller and a relational one at home on this actor, counting
/// the failures their delegates are told of.
actor BrokenRequestFollowers {
    /// The failures the delegates were told of, by controller.
    final class Failures: FetchedSetControllerDelegate, RelationalResultsControllerDelegate {
        var set = 0
        var relational = 0
        func controller(_ controller: FetchedSetController<ReshapedRow>, didChangeContentWith report: SetChangeReport<ReshapedRow>) {}
        func controller(_ controller: FetchedSetController<ReshapedRow>, didFailWith error: ResultsError) { set += 1 }
        func controller(_ controller: RelationalResultsController<ReshapedRow, ReshapedRow>, didChangeContentWith report: SnapshotReport<ReshapedRow, ReshapedRow>) {}
        func controller(_ controller: RelationalResultsController<ReshapedRow, ReshapedRow>, didFailWith error: ResultsError) { relational += 1 }
    }

    struct State: Sendable {
        var setError: String?
        var setFailures: Int
        var setCount: Int
        var relationalError: String?
        var relationalFailures: Int
        var relationalCount: Int
    }

    let store: PostgresStore
    let set: FetchedSetController<ReshapedRow>
    let relational: RelationalResultsController<ReshapedRow, ReshapedRow>
    private let failures = Failures()

    init(url: String) throws {
        store = try PostgresStore(url: url)
        store.pollInterval = 0.001
        set = FetchedSetController<ReshapedRow>(store: store, request: SchemaChangeFollowers.set)
        relational = RelationalResultsController<ReshapedRow, ReshapedRow>(store: store, parents: SchemaChangeFollowers.parents, children: SchemaChangeFollowers.children)
    }

    func start() throws {
        set.delegate = failures
        relational.delegate = failures
        try set.performFetch()
        try relational.performFetch()
    }

    func finish() { store.close() }

    func state() -> State {
        State(
            setError: set.lastError.map { "\($0)" }, setFailures: failures.set, setCount: set.records.count,
            relationalError: relational.lastError.map { "\($0)" }, relationalFailures: failures.relational, relationalCount: relational.snapshot.numberOfItems
        )
    }
}

@Suite("PostgreSQL: schema changes are followed", .tags(.postgres), .ownThreads)
struct PostgresSchemaChangeTests {
    static let titles = ["apple", "Banana", "cherry", "Date", "éclair", "fig", "Grape", "_under", "10", "9", "zeta", "Zulu"]

    /// `item(id, family, rank, title)` with `count` rows and `family(id,
    /// name)` with five, in the database of `url`.
    static func setUp(_ url: String, count: Int) throws {
        var items: [String] = []
        for id in 1...count {
            items.append("(\(id), \(id % 5), \(id * 7 % 50), '\(titles[id % titles.count]) \(id)')")
        }
        try OracleServer.run(
            url,
            "DROP TABLE IF EXISTS item", "DROP TABLE IF EXISTS family",
            "CREATE TABLE family (id bigint PRIMARY KEY, name text NOT NULL)",
            "INSERT INTO family VALUES (0, 'zero'), (1, 'one'), (2, 'two'), (3, 'three'), (4, 'four')",
            "CREATE TABLE item (id bigint PRIMARY KEY, family bigint NOT NULL, rank integer NOT NULL, title text NOT NULL)",
            "INSERT INTO item VALUES \(items.joined(separator: ", "))"
        )
    }

    /// Waits until `followers` equal fresh queries and report no error, up
    /// to `rounds` rounds of at least 5 ms (24,000 by default, two minutes
    /// at the least: a limit against a hang only, generous for a sanitizer
    /// build on a busy machine; bounded in rounds, not by a clock); the
    /// last state and what fresh queries give.
    static func settle(_ followers: SchemaChangeFollowers, rounds: Int = 24_000) async throws -> (SchemaChangeFollowers.State, SchemaChangeFollowers.State) {
        let expected = try await followers.fresh()
        var state = await followers.state()
        try await waitInRounds(rounds, every: .milliseconds(5)) {
            state = await followers.state()
            return state == expected
        }
        return (state, expected)
    }

    @Test("Seeded oracle: writes, columns added and dropped, collations and types changed, indexes and views made and dropped, truncates; after each step every controller equals a fresh query, every column of every record", .startsEarly)
    func followersMatchFreshQueriesAcrossSchemaChanges() async throws {
        let seed = testSeed(default: 0x5C4E_3A)
        print("PostgresSchemaChangeTests seed \(seed)")
        var generator = SplitMix64(seed: seed)
        func random(_ range: Range<Int>) -> Int { Int.random(in: range, using: &generator) }
        let url = try OracleServer.freshDatabase("schema")
        try Self.setUp(url, count: 30)
        let icu = try OracleServer.run(url, "SELECT count(*) FROM pg_collation WHERE collname = 'en-x-icu'").first?.first?.int64 == 1
        let followers = try SchemaChangeFollowers(url: url)
        try await followers.start()

        var extras: [(name: String, sql: String)] = []
        var familyExtras: [String] = []
        var nextColumn = 0
        var indexes = 0
        var views = 0
        var icuTitles = false
        var rankType = 0
        let rankTypes = ["integer", "bigint", "numeric"]
        var nextID = 100

        for step in 0..<40 {
            var what = ""
            var statements: [String] = []
            switch random(0..<100) {
            case 0..<40:
                what = "a write"
                statements.append("BEGIN")
                for _ in 0..<random(1..<4) {
                    let id = random(0..<3) == 0 ? nextID : random(1..<40)
                    nextID += 1
                    let title = Self.titles[random(0..<Self.titles.count)] + " \(random(0..<100))"
                    switch random(0..<6) {
                    case 0, 1:
                        statements.append(
                            "INSERT INTO item (id, family, rank, title) VALUES (\(id), \(random(0..<5)), \(random(0..<60)), '\(title)') "
                                + "ON CONFLICT (id) DO UPDATE SET family = excluded.family, rank = excluded.rank, title = excluded.title"
                        )
                    case 2: statements.append("UPDATE item SET family = \(random(0..<5)), rank = \(random(0..<60)) WHERE id = \(id)")
                    case 3: statements.append("UPDATE item SET title = '\(title)' WHERE id = \(id)")
                    case 4 where !extras.isEmpty:
                        let extra = extras[random(0..<extras.count)]
                        statements.append("UPDATE item SET \(extra.name) = \(extra.sql) WHERE id % 3 = \(random(0..<3))")
                    default: statements.append("DELETE FROM item WHERE id = \(id)")
                    }
                }
                statements.append(random(0..<6) == 0 ? "ROLLBACK" : "COMMIT")
            case 40..<54:
                if extras.count < 3 || random(0..<2) == 0 {
                    let name = "extra\(nextColumn)"
                    nextColumn += 1
                    let (type, value) = [("text", "'v\(nextColumn)'"), ("integer", "\(nextColumn)"), ("boolean", "true")][random(0..<3)]
                    let defaulted = random(0..<4) != 0
                    what = "ADD COLUMN \(name) \(type)\(defaulted ? " DEFAULT \(value)" : "")"
                    statements = ["ALTER TABLE item ADD COLUMN \(name) \(type)" + (defaulted ? " DEFAULT \(value)" : "")]
                    extras.append((name, value))
                } else {
                    let name = extras.remove(at: random(0..<extras.count)).name
                    what = "DROP COLUMN \(name)"
                    statements = ["ALTER TABLE item DROP COLUMN \(name)"]
                }
            case 54..<60:
                if familyExtras.isEmpty || random(0..<2) == 0 {
                    let name = "note\(nextColumn)"
                    nextColumn += 1
                    what = "family: ADD COLUMN \(name)"
                    statements = ["ALTER TABLE family ADD COLUMN \(name) text DEFAULT 'n\(nextColumn)'"]
                    familyExtras.append(name)
                } else {
                    let name = familyExtras.removeLast()
                    what = "family: DROP COLUMN \(name)"
                    statements = ["ALTER TABLE family DROP COLUMN \(name)"]
                }
            case 60..<68:
                if indexes == 0 || random(0..<2) == 0 {
                    what = "CREATE INDEX"
                    statements = ["CREATE INDEX item_i\(indexes) ON item (family, title)"]
                    indexes += 1
                } else {
                    indexes -= 1
                    what = "DROP INDEX"
                    statements = ["DROP INDEX item_i\(indexes)"]
                }
            case 68..<74:
                if views == 0 || random(0..<2) == 0 {
                    what = "CREATE VIEW"
                    statements = ["CREATE VIEW item_v\(views) AS SELECT id FROM item WHERE family = \(views % 5)"]
                    views += 1
                } else {
                    views -= 1
                    what = "DROP VIEW"
                    statements = ["DROP VIEW item_v\(views)"]
                }
            case 74..<78:
                what = "TRUNCATE"
                statements = ["BEGIN", "TRUNCATE item"]
                for id in 1...random(0..<8) + 1 {
                    statements.append("INSERT INTO item (id, family, rank, title) VALUES (\(id), \(random(0..<5)), \(random(0..<60)), '\(Self.titles[random(0..<Self.titles.count)]) \(id)')")
                }
                statements.append("COMMIT")
            case 78..<86 where icu:
                icuTitles.toggle()
                what = "title COLLATE \(icuTitles ? "en-x-icu" : "C")"
                statements = ["ALTER TABLE item ALTER COLUMN title TYPE text COLLATE \"\(icuTitles ? "en-x-icu" : "C")\""]
            case 86..<92:
                rankType = (rankType + 1) % rankTypes.count
                what = "rank TYPE \(rankTypes[rankType])"
                statements = ["ALTER TABLE item ALTER COLUMN rank TYPE \(rankTypes[rankType]) USING rank::\(rankTypes[rankType])"]
            case 92..<96:
                let identity = random(0..<2) == 0 ? "FULL" : "DEFAULT"
                what = "REPLICA IDENTITY \(identity)"
                statements = ["ALTER TABLE item REPLICA IDENTITY \(identity)"]
            default:
                what = "nothing"
            }
            try await followers.write(statements)
            let (state, expected) = try await Self.settle(followers)
            let label = "seed \(seed), step \(step) (\(what)), after waiting up to 24,000 rounds of 5 ms"
            for (name, groups) in expected.results.sorted(by: { $0.key < $1.key }) where state.results[name] != groups {
                Issue.record("\(label): \(name) differs from a fresh query\n  controller: \(state.results[name] ?? [])\n  fresh:      \(groups)")
            }
            for (name, error) in state.errors.sorted(by: { $0.key < $1.key }) {
                Issue.record("\(label): \(name) failed: \(error)")
            }
            if state != expected { break }
        }
        await followers.finish()
    }

    @Test("A sort column's collation changed with no row written: the controller takes the server's new order, and patches later commits in it")
    func collationChangeReordersTheResult() throws {
        let url = try OracleServer.freshDatabase("schema_collation")
        try Self.setUp(url, count: 24)
        let icu = try OracleServer.run(url, "SELECT count(*) FROM pg_collation WHERE collname = 'en-x-icu'").first?.first?.int64 == 1
        try #require(icu, "the server has no ICU collation en-x-icu")
        let store = try PostgresStore(url: url)
        defer { store.close() }
        store.pollInterval = 0.001
        let controller = try FetchedResultsController<ReshapedRow>(store: store, request: FetchRequest(table: "item", sortKeys: [SortKey("title")]))
        controller.incrementalThreshold = .infinity
        try controller.performFetch()
        #expect(controller.supportsIncrementalUpdates)
        let fresh = { try OracleServer.run(url, "SELECT id FROM item ORDER BY title, id").map { $0[0].int64 ?? -1 } }
        func shown() -> [Int64] { controller.snapshot.allItems.map(\.id) }
        /// Follows commits until the controller shows `expected`, for
        /// 60,000 rounds of a check and 2 ms at most (a limit against a hang
        /// only; bounded in rounds, not by a clock).
        func wait(for expected: [Int64]) {
            waitInRounds(60_000, sleepingEvery: .milliseconds(2)) {
                if shown() == expected { return true }
                _ = try? controller.checkForExternalChanges()
                return false
            }
        }
        let byBytes = try fresh()
        #expect(shown() == byBytes)

        try OracleServer.run(url, "ALTER TABLE item ALTER COLUMN title TYPE text COLLATE \"en-x-icu\"")
        let byICU = try fresh()
        #expect(byICU != byBytes, "the titles order the same under both collations")
        wait(for: byICU)
        #expect(shown() == byICU, "the controller kept the order of the old collation (waited 60,000 rounds of 2 ms)")
        #expect(controller.lastError == nil)

        // A commit after it is placed in the new order.
        try OracleServer.run(url, "UPDATE item SET title = 'banana 0' WHERE id = 3", "INSERT INTO item VALUES (100, 1, 1, 'Cherry 0')")
        let after = try fresh()
        wait(for: after)
        #expect(shown() == after, "a commit after the change was placed in the old collation's order (waited 60,000 rounds of 2 ms)")
    }

    @Test("A column added, then dropped, under a request over a query of its own, with no row written: its records gain the column, then lose it, as a fresh query's do")
    func queryOfItsOwnFollowsColumnChanges() throws {
        let url = try OracleServer.freshDatabase("schema_query")
        try Self.setUp(url, count: 12)
        let store = try PostgresStore(url: url)
        defer { store.close() }
        store.pollInterval = 0.001
        let request = FetchRequest(query: "SELECT i.* FROM item i JOIN family f ON f.id = i.family WHERE f.name <> 'two'", sortKeys: [SortKey("rank")])
        let controller = try FetchedResultsController<ReshapedRow>(store: store, request: request)
        try controller.performFetch()
        let sql = "SELECT i.* FROM item i JOIN family f ON f.id = i.family WHERE f.name <> 'two' ORDER BY rank, id"
        func fresh() throws -> [ReshapedRow] {
            let session = try OracleServer.session(url, applicationName: "oracle-checker")
            defer { session.close() }
            let rows = try session.query(sql, request: "fresh")
            return rows.rows.map { ReshapedRow(columns: rows.columns.map(\.name), values: $0) }
        }
        /// Follows commits until the controller shows `expected`, for
        /// 60,000 rounds of a check and 2 ms at most (a limit against a hang
        /// only; bounded in rounds, not by a clock).
        func wait(for expected: [ReshapedRow]) {
            waitInRounds(60_000, sleepingEvery: .milliseconds(2)) {
                if controller.snapshot.allItems == expected { return true }
                _ = try? controller.checkForExternalChanges()
                return false
            }
        }
        #expect(controller.snapshot.allItems == (try fresh()))
        for change in ["ALTER TABLE item ADD COLUMN extra text DEFAULT 'added'", "ALTER TABLE item DROP COLUMN extra"] {
            try OracleServer.run(url, change)
            let expected = try fresh()
            wait(for: expected)
            #expect(controller.snapshot.allItems == expected, "\(change): 60,000 rounds of 2 ms after it, the records keep the old columns \(controller.snapshot.allItems.first?.columns ?? [])")
            #expect(controller.lastError == nil)
        }
    }

    @Test(
        "A schema change that breaks the request (its sort or section column renamed or dropped) is reported, naming the request and the column, and the controller goes on reporting it after later commits",
        arguments: [
            ("ALTER TABLE item RENAME COLUMN rank TO position", "rank", false),
            ("ALTER TABLE item DROP COLUMN rank", "rank", false),
            ("ALTER TABLE item RENAME COLUMN family TO grp", "family", false),
            ("ALTER TABLE item RENAME COLUMN rank TO position", "rank", true),
            ("ALTER TABLE item RENAME COLUMN family TO grp", "family", true),
        ]
    )
    func breakingSchemaChangeIsReported(change: String, column: String, lazy: Bool) throws {
        let url = try OracleServer.freshDatabase("schema_broken")
        try Self.setUp(url, count: 20)
        let store = try PostgresStore(url: url)
        defer { store.close() }
        store.pollInterval = 0.001
        var request = FetchRequest(table: "item", sortKeys: [SortKey("family"), SortKey("rank")], sectionKey: "family")
        if lazy { request.fetchBatchSize = 4 }
        let controller = try FetchedResultsController<ReshapedRow>(store: store, request: request)
        controller.incrementalThreshold = .infinity
        let log = ReshapedLog()
        controller.delegate = log
        try controller.performFetch()
        let before = controller.result.count

        /// Takes what reached the controller until `done`, for 60,000
        /// rounds of a check and 2 ms at most (a limit against a hang only;
        /// bounded in rounds, not by a clock).
        func wait(until done: () -> Bool) {
            waitInRounds(60_000, sleepingEvery: .milliseconds(2)) {
                if done() { return true }
                _ = try? controller.checkForExternalChanges()
                return false
            }
        }

        try OracleServer.run(url, change)
        wait { controller.lastError != nil }
        let message = controller.lastError.map { "\($0)" } ?? ""
        #expect(controller.lastError != nil, "\(change): no error reported within 60,000 rounds of 2 ms")
        #expect(message.contains("item") && message.contains(column), "\(change): the error does not name the request and its column: \(message)")
        #expect(log.errors.count >= 1, "\(change): the delegate was not told")

        // Later commits to the table do not patch the old shape: each is
        // followed by a fetch that fails again, reported.
        for round in 0..<3 {
            let reported = log.errors.count
            try OracleServer.run(url, "UPDATE item SET title = 'later \(round)' WHERE id = \(round + 1)", "INSERT INTO item (id, \(column == "family" ? "grp" : "family"), title\(change.contains("DROP") ? "" : ", \(column == "rank" ? "position" : "rank")")) VALUES (\(1000 + round), 1, 'new'\(change.contains("DROP") ? "" : ", 1"))")
            wait { log.errors.count > reported }
            #expect(log.errors.count > reported, "\(change): commit \(round) after the change was not reported as failing within 60,000 rounds of 2 ms")
            #expect(controller.lastError != nil, "\(change): commit \(round) after the change cleared the error")
            #expect(controller.result.count == before, "\(change): commit \(round) after the change patched the old result")
        }
    }

    @Test("The column a set controller's predicate and a relational controller's children read renamed: both report it, naming the request and the column, and go on reporting it after later commits")
    func breakingSchemaChangeIsReportedBySetAndRelationalControllers() async throws {
        let url = try OracleServer.freshDatabase("schema_broken_set")
        try Self.setUp(url, count: 20)
        let followers = try BrokenRequestFollowers(url: url)
        try await followers.start()
        let before = await followers.state()

        /// Waits until `done`, for 24,000 rounds of at least 5 ms at most
        /// (a limit against a hang only; bounded in rounds, not by a
        /// clock).
        func wait(until done: (BrokenRequestFollowers.State) -> Bool) async throws -> BrokenRequestFollowers.State {
            var state = await followers.state()
            try await waitInRounds(24_000, every: .milliseconds(5)) {
                state = await followers.state()
                return done(state)
            }
            return state
        }

        try OracleServer.run(url, "ALTER TABLE item RENAME COLUMN family TO grp")
        var state = try await wait { $0.setError != nil && $0.relationalError != nil }
        for (name, message) in [("set", state.setError), ("relational", state.relationalError)] {
            #expect(message != nil, "\(name): no error reported within 24,000 rounds of 5 ms")
            #expect((message ?? "").contains("item") && (message ?? "").contains("family"), "\(name): the error does not name the request and its column: \(message ?? "")")
        }
        for round in 0..<2 {
            let reported = state
            try OracleServer.run(url, "UPDATE item SET title = 'later \(round)' WHERE id = \(round + 1)", "INSERT INTO item (id, grp, rank, title) VALUES (\(1000 + round), 1, 1, 'new')")
            state = try await wait { $0.setFailures > reported.setFailures && $0.relationalFailures > reported.relationalFailures }
            #expect(state.setFailures > reported.setFailures && state.setError != nil, "set: commit \(round) after the change was not reported as failing within 24,000 rounds of 5 ms")
            #expect(state.relationalFailures > reported.relationalFailures && state.relationalError != nil, "relational: commit \(round) after the change was not reported as failing within 24,000 rounds of 5 ms")
            #expect(state.setCount == before.setCount && state.relationalCount == before.relationalCount, "commit \(round) after the change patched the old result")
        }
        await followers.finish()
    }
}
