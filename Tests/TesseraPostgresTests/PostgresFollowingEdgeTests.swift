import Foundation
import Testing
import TesseraPostgresTestSupport
import TesseraResults
import TesseraTestSupport
import TesseraTestTraits
@testable import TesseraPostgres

struct ValueRow: FetchableRecord, Hashable {
    var id: Int64
    var value: Int64
    init(row: Row) throws {
        id = row["id"].int64 ?? -1
        value = row["value"].int64 ?? -1
    }
}

@Suite("PostgreSQL: asynchronous commits, key changes without a replica identity, joined tables, a source followed again", .tags(.postgres), .ownThreads)
struct PostgresFollowingEdgeTests {
    /// Waits until the controller holds what a fresh query reads, for at
    /// most 24,000 rounds of a check and 5 ms (two minutes at the least: a
    /// limit against a hang, generous for a sanitizer build on a busy
    /// machine; bounded in rounds, not by a clock).
    private func converge(_ controller: FetchedResultsController<ValueRow>, _ writer: PostgresSession, _ sql: String) throws -> (current: [ValueRow], fresh: [ValueRow]) {
        let fresh = try writer.query(sql, request: "fresh").rows.map { values in
            try ValueRow(row: Row(columnNames: ["id", "value"], values: values))
        }
        var current: [ValueRow] = []
        try waitInRounds(24_000, sleepingEvery: .milliseconds(5)) {
            _ = try controller.checkForExternalChanges()
            current = controller.snapshot.allItems
            return current == fresh
        }
        return (current, fresh)
    }

    /// Transactions committed with `synchronous_commit = off` are seen by
    /// other snapshots before their commit record is flushed, so before
    /// logical decoding can give them: a round whose snapshot sees one the
    /// slot has not given yet must still report it.
    @Test func asynchronousCommitsAreReported() throws {
        let url = try TestServer.freshDatabase("async")
        let writer = try PostgresSession.connect(PostgresEndpoint(url: url), applicationName: "writer")
        defer { writer.close() }
        let other = try PostgresSession.connect(PostgresEndpoint(url: url), applicationName: "other")
        defer { other.close() }
        let count = 400
        try writer.execute(
            "CREATE TABLE items (id bigint PRIMARY KEY, value bigint)",
            "CREATE TABLE unrelated (id bigint PRIMARY KEY, value bigint)",
            "INSERT INTO items SELECT g, 0 FROM generate_series(1, \(count)) g",
            "INSERT INTO unrelated VALUES (1, 0)",
            "SET synchronous_commit = off",
            request: "setup"
        )
        let store = try PostgresStore(url: url)
        defer { store.close() }
        let controller = try FetchedResultsController<ValueRow>(
            store: store, request: FetchRequest(table: "items", sortKeys: [SortKey("value"), SortKey("id")])
        )
        try controller.performFetch()
        var generator = SplitMix64(seed: 0x5eed_a5c)
        var order = Array(1...count)
        order.shuffle(using: &generator)
        for (step, id) in order.enumerated() {
            // A synchronous commit flushes the log (and starts a round);
            // the asynchronous one right after it is seen, not flushed.
            try other.query("UPDATE unrelated SET value = value + 1", request: "flush")
            try writer.query("UPDATE items SET value = \(step + 1) WHERE id = \(id)", request: "update")
            if step % 50 == 0 { _ = try controller.checkForExternalChanges() }
        }
        try other.query("UPDATE unrelated SET value = value + 1", request: "flush")
        let (current, fresh) = try converge(controller, writer, "SELECT id, value FROM items ORDER BY value, id")
        let missing = Set(fresh).subtracting(current)
        let followed = current == fresh
        #expect(followed, "seed 0x5eed_a5c: \(missing.count) rows not followed, e.g. \(Array(missing.sorted { $0.id < $1.id }.prefix(5)))")
    }

    /// An UPDATE that changes the primary key prints the old key only when
    /// the replica identity holds it: under `REPLICA IDENTITY NOTHING` (or
    /// an index on other columns) the row's old key is not in the log, and
    /// the row under its old key must still leave the result.
    @Test func primaryKeyChangeWithoutReplicaIdentityIsFollowed() throws {
        for identity in ["NOTHING", "USING INDEX items_code"] {
            let url = try TestServer.freshDatabase("identity")
            let writer = try PostgresSession.connect(PostgresEndpoint(url: url), applicationName: "writer")
            defer { writer.close() }
            try writer.execute(
                "CREATE TABLE items (id bigint PRIMARY KEY, value bigint, code bigint NOT NULL)",
                "CREATE UNIQUE INDEX items_code ON items (code)",
                "ALTER TABLE items REPLICA IDENTITY \(identity)",
                "INSERT INTO items SELECT g, g, g FROM generate_series(1, 10) g",
                request: "setup"
            )
            let store = try PostgresStore(url: url)
            defer { store.close() }
            let controller = try FetchedResultsController<ValueRow>(
                store: store, request: FetchRequest(table: "items", sortKeys: [SortKey("value")])
            )
            try controller.performFetch()
            try writer.query("UPDATE items SET id = 99 WHERE id = 1", request: "change a key")
            let (current, fresh) = try converge(controller, writer, "SELECT id, value FROM items ORDER BY value, id")
            let followed = current == fresh
            #expect(followed, "REPLICA IDENTITY \(identity): \(current.map(\.id)) after the key changed, \(fresh.map(\.id)) in the table")
        }
    }

    /// A request whose rows come from other tables than the one it names
    /// (a view, a partitioned table, whose changes the log names by their
    /// partitions, a predicate or sort key with a subquery) fetches again
    /// when those tables change.
    @Test func requestsReadingOtherTablesFollowThem() throws {
        let cases: [(label: String, setup: [String], request: FetchRequest, write: String)] = [
            (
                "view", ["CREATE VIEW shown AS SELECT id, value FROM items WHERE value > 0"],
                FetchRequest(table: "shown", sortKeys: [SortKey("value")]), "UPDATE items SET value = 50 WHERE id = 2"
            ),
            (
                "partitioned",
                [
                    "CREATE TABLE parts (id bigint, value bigint, PRIMARY KEY (id)) PARTITION BY RANGE (id)",
                    "CREATE TABLE parts_low PARTITION OF parts FOR VALUES FROM (0) TO (100)",
                    "INSERT INTO parts SELECT id, value FROM items",
                ],
                FetchRequest(table: "parts", sortKeys: [SortKey("value")]), "UPDATE parts SET value = 50 WHERE id = 2"
            ),
            (
                "subquery", ["CREATE TABLE hidden (id bigint PRIMARY KEY)"],
                FetchRequest(table: "items", predicate: "id NOT IN (SELECT id FROM hidden)", sortKeys: [SortKey("value")]),
                "INSERT INTO hidden VALUES (2)"
            ),
        ]
        for item in cases {
            let url = try TestServer.freshDatabase(item.label)
            let writer = try PostgresSession.connect(PostgresEndpoint(url: url), applicationName: "writer")
            defer { writer.close() }
            try writer.execute("CREATE TABLE items (id bigint PRIMARY KEY, value bigint)", "INSERT INTO items SELECT g, g FROM generate_series(1, 10) g", request: "setup")
            for statement in item.setup { try writer.execute(statement, request: "setup") }
            let store = try PostgresStore(url: url)
            defer { store.close() }
            let controller = try FetchedResultsController<ValueRow>(store: store, request: item.request)
            try controller.performFetch()
            try writer.query(item.write, request: "write")
            let sql: String
            switch item.label {
            case "view": sql = "SELECT id, value FROM shown ORDER BY value, id"
            case "partitioned": sql = "SELECT id, value FROM parts ORDER BY value, id"
            default: sql = "SELECT id, value FROM items WHERE id NOT IN (SELECT id FROM hidden) ORDER BY value, id"
            }
            let (current, fresh) = try converge(controller, writer, sql)
            let followed = current == fresh
            #expect(followed, "\(item.label): \(current.map(\.id)) followed, \(fresh.map(\.id)) in the database")
        }
    }

    /// A controller that fetches again calls `dropWaiting()` and then
    /// `follow(replacing:)`; a round may hand its old source a commit in
    /// between. That commit went from the old state to a round's snapshot
    /// the new fetch may already include: it must not wait for the new
    /// source's controller. (The state the race leaves is made here in
    /// order: the old source's commit waits, then the new fetch follows.)
    @Test func followingAgainDropsWhatTheOldSourceHandedOver() throws {
        let url = try TestServer.freshDatabase("refollow")
        let writer = try PostgresSession.connect(PostgresEndpoint(url: url), applicationName: "writer")
        defer { writer.close() }
        try writer.execute(
            "CREATE TABLE items (id bigint PRIMARY KEY, value bigint)",
            "INSERT INTO items SELECT g, g FROM generate_series(1, 10) g",
            request: "setup"
        )
        let store = try PostgresStore(url: url)
        defer { store.close() }
        let receiver = IgnoringReceiver()
        let delivery = CommitDelivery(to: receiver)
        let request = FetchRequest(table: "items", sortKeys: [SortKey("value")])
        let old = try store.withReader(isolation: nil) { reader throws(ResultsError) in
            reader.follow([try reader.query(for: request)], tuples: true, delivery: delivery, replacing: nil)
        }
        try writer.query("UPDATE items SET value = 100 WHERE id = 3", request: "update")
        waitInRounds(60_000, sleepingEvery: .milliseconds(2)) { delivery.hasWaiting }
        let handed = delivery.hasWaiting
        #expect(handed, "the old source was not handed the update within 60,000 rounds of 2 ms")
        // The new fetch's snapshot sees the update.
        let new = try store.withReader(isolation: nil) { reader throws(ResultsError) in
            reader.follow([try reader.query(for: request)], tuples: true, delivery: delivery, replacing: old)
        }
        let stale = delivery.hasWaiting
        #expect(!stale, "a commit the new fetch read waits to be applied on top of it")
        withExtendedLifetime(new) {}
    }
}

/// A controller's side that takes nothing.
final class IgnoringReceiver: CommitReceiver {
    func receive(_ changes: CommittedChanges, from reader: any StoreReader) {}
    func takeWaitingChanges(isolation: isolated (any Actor)?) {}
}
