import Foundation
import Testing
import TesseraPostgresTestSupport
import TesseraTestTraits
@testable import TesseraPostgres

/// What one commit costs the store: a round reads the followed tables'
/// columns only when their catalog rows changed, and a controller taking a
/// commit whose rows the round read takes no snapshot of its own.
@Suite("PostgreSQL: what a round reads", .tags(.postgres), .ownThreads)
struct PostgresRoundCostTests {
    private static func fresh(_ writer: PostgresSession, _ table: String) throws -> [Int64] {
        try writer.query("SELECT id FROM \(table) ORDER BY album, title, id", request: "fresh").rows.map { $0[0].int64! }
    }

    /// Takes what waits until the controller equals a fresh query.
    private static func catchUp(_ controller: FetchedResultsController<SmokePhoto>, _ writer: PostgresSession, _ table: String) throws {
        let fresh = try fresh(writer, table)
        var current: [Int64] = []
        // A bound against a hang only, in rounds (not by a clock).
        try waitInRounds(24_000, sleepingEvery: .milliseconds(5)) {
            _ = try controller.checkForExternalChanges()
            current = controller.snapshot.allItems.map(\.id)
            return current == fresh
        }
        #expect(current == fresh, "the controller did not catch up with a fresh query (\(current.count) rows against \(fresh.count))")
    }

    /// A fresh database with `setup` run in it, a store (named
    /// `applicationName`) and a controller fetched over `table` by album
    /// and title, which has then taken one commit (so that the feed has
    /// read the table's columns once).
    private static func followed(
        _ table: String, setup: [String], applicationName: String = "tessera"
    ) throws -> (writer: PostgresSession, store: PostgresStore, controller: FetchedResultsController<SmokePhoto>) {
        let url = try TestServer.freshDatabase(table)
        let writer = try PostgresSession.connect(PostgresEndpoint(url: url), applicationName: "writer")
        for sql in setup { try writer.query(sql, request: "setup") }
        let store = try PostgresStore(url: url, applicationName: applicationName)
        let controller = try FetchedResultsController<SmokePhoto>(
            store: store, request: FetchRequest(table: table, sortKeys: [SortKey("album"), SortKey("title")], sectionKey: "album")
        )
        try controller.performFetch()
        // The first round reads the table's columns once (its stamp is new
        // to the feed); the row inserted shows it has run.
        try writer.query("INSERT INTO \(table) (id, album, title) VALUES (500, 2, 'first')", request: "first commit")
        try catchUp(controller, writer, table)
        return (writer, store, controller)
    }

    @Test("A key named with capitals (\"Id\", beside a column id) is the column of that exact name: commits are patched row by row, and the result equals a fresh query")
    func keyNamedExactly() throws {
        // "Id" is the primary key; id holds other numbers (the folded name
        // would find it).
        try expectEachCommitPatched(
            "exactkey", keyColumn: "Id",
            setup: [
                "CREATE TABLE exactkey (\"Id\" bigint PRIMARY KEY, id bigint, album bigint, title text)",
                "INSERT INTO exactkey SELECT g, 1000 - g, g % 3, 'photo ' || g FROM generate_series(1, 60) g",
            ],
            commits: (0..<6).map { k in ["UPDATE exactkey SET album = \(k % 3), title = 'moved \(k)' WHERE \"Id\" = \(k * 7 + 1)"] },
            freshQuery: "SELECT id FROM exactkey ORDER BY album, title, \"Id\"",
            values: { (photo: SmokePhoto) in [.integer(photo.id)] }
        )
    }

    @Test("Commits of rows read no columns from the catalog and take no reader snapshot; a column added with no row written is still seen, and read once")
    func roundsSkipTheCatalogUntilItChanges() throws {
        let (writer, store, controller) = try Self.followed(
            "cost", setup: [
                "CREATE TABLE cost (id bigint PRIMARY KEY, album bigint, title text)",
                "INSERT INTO cost SELECT g, g % 5, 'photo ' || g FROM generate_series(1, 100) g",
            ], applicationName: "tessera round cost"
        )
        defer { writer.close() }
        #expect(controller.supportsIncrementalUpdates)
        #expect(store.feedCatalogReads == 1)
        let catalogReads = try #require(store.feedCatalogReads)
        let snapshots = store.readerSnapshotsTaken
        let readsAhead = try #require(store.feedReadsAhead)

        for k in 0..<20 {
            try writer.query("UPDATE cost SET album = \(k % 5), title = 'moved \(k)' WHERE id = \(k * 3 + 2)", request: "update \(k)")
            if k % 4 == 0 { try writer.query("DELETE FROM cost WHERE id = \(k * 3 + 3)", request: "delete \(k)") }
            if k % 5 == 0 { try writer.query("INSERT INTO cost VALUES (\(1_000 + k), \(k % 5), 'new \(k)')", request: "insert \(k)") }
            try Self.catchUp(controller, writer, "cost")
        }
        #expect(controller.lastUpdateMethod == .incremental)
        #expect(store.feedCatalogReads == catalogReads, "rounds over commits of rows read the catalog (\(store.feedCatalogReads ?? -1) reads, \(catalogReads) before)")
        #expect(store.readerSnapshotsTaken == snapshots, "taking commits whose rows came with them took \(store.readerSnapshotsTaken - snapshots) reader snapshots")
        // A commit on its own arrives before its round begins: the round
        // reads its rows with reads sent before its snapshot (one that
        // arrives while a round is under way, or a round that sees a later
        // commit too, reads them after).
        let aheadBefore = store.feedReadsAhead ?? 0
        for k in 0..<10 {
            // With the feed at rest: no round under way to see the commit
            // before it arrives.
            waitInRounds(24_000, sleepingEvery: .milliseconds(5)) { store.feedIsAtRest == true }
            try writer.query("UPDATE cost SET title = 'alone \(k)' WHERE id = \(40 + k)", request: "commit alone \(k)")
            try Self.catchUp(controller, writer, "cost")
        }
        let ahead = (store.feedReadsAhead ?? 0) - aheadBefore
        print("PostgresRoundCostTests: \(ahead) of 10 commits on their own read ahead; \(aheadBefore - readsAhead) in the 20 steps before")
        // Not all: the server streams a commit as soon as it is flushed, a
        // moment before a new snapshot sees it, and a round that begins in
        // that moment reads the rows after its snapshot.
        #expect(ahead >= 1, "none of 10 commits made one at a time had its rows read ahead of the round's snapshot")
        // Each round's snapshot ends in the background, and its session
        // goes back to the store: the sessions stay few (the store keeps 8
        // idle; the rounds hold two snapshots; the stream has its own).
        let sessions = try writer.query(
            "SELECT count(*)::int8 FROM pg_stat_activity WHERE application_name LIKE 'tessera round cost%'", request: "count the store's sessions"
        ).rows.first?.first?.int64 ?? -1
        #expect((1...12).contains(sessions), "the store has \(sessions) sessions after 20 commits")

        // A schema change writes no row: the stamp moves, the columns are
        // read, and the controller fetches again and follows on.
        try writer.execute("ALTER TABLE cost ADD COLUMN extra int DEFAULT 7", request: "add a column")
        var refetched = false
        try waitInRounds(24_000, sleepingEvery: .milliseconds(5)) {
            store.requestFeedRound()
            _ = try controller.checkForExternalChanges()
            refetched = (store.feedCatalogReads ?? 0) > catalogReads && controller.lastUpdateMethod == .refetch
            return refetched
        }
        #expect(refetched, "the column added was not seen (catalog reads \(store.feedCatalogReads ?? -1), last update \(String(describing: controller.lastUpdateMethod)))")
        let afterChange = try #require(store.feedCatalogReads)
        try writer.query("UPDATE cost SET title = 'after' WHERE id = 4", request: "commit after")
        try Self.catchUp(controller, writer, "cost")
        #expect(controller.lastUpdateMethod == .incremental)
        #expect(store.feedCatalogReads == afterChange)
    }

    @Test("A column's type renamed moves no stamp: a controller that fetches again since knows the new name, and the rounds read the columns once more, then patch")
    func typeRenamedSettles() throws {
        let (writer, store, controller) = try Self.followed(
            "moody", setup: [
                "CREATE TYPE mood AS ENUM ('calm', 'busy')",
                "CREATE TABLE moody (id bigint PRIMARY KEY, album bigint, title text, feeling mood DEFAULT 'busy')",
                "INSERT INTO moody SELECT g, g % 3, 'photo ' || g, 'calm' FROM generate_series(1, 30) g",
            ]
        )
        defer { writer.close() }
        try writer.execute("ALTER TYPE mood RENAME TO temper", request: "rename the type")
        // A fetch made now knows the column's type by its new name.
        try controller.performFetch()
        let catalogReads = try #require(store.feedCatalogReads)
        for k in 0..<6 {
            try writer.query("UPDATE moody SET title = 'now \(k)', album = \(k % 3) WHERE id = \(k + 2)", request: "update \(k)")
            try Self.catchUp(controller, writer, "moody")
            #expect(controller.lastUpdateMethod == .incremental, "commit \(k) after the type's rename was fetched again, not patched")
        }
        let reads = (store.feedCatalogReads ?? 0) - catalogReads
        #expect(reads <= 1, "the rounds read the columns \(reads) times after the rename")
    }

    @Test("A read ahead that fails (its section column renamed in the transaction that changed the row) leaves the round whole: the controller reports the column, and no round fails")
    func failedReadAheadRetakesTheSnapshot() throws {
        let (writer, store, controller) = try Self.followed(
            "ahead", setup: [
                "CREATE TABLE ahead (id bigint PRIMARY KEY, album bigint, title text)",
                "INSERT INTO ahead SELECT g, g % 4, 'photo ' || g FROM generate_series(1, 40) g",
            ]
        )
        defer { writer.close() }
        waitInRounds(24_000, sleepingEvery: .milliseconds(5)) { store.feedIsAtRest == true }
        let failed = try #require(store.feedFailedPasses)
        // The row's change arrives with the rename: the read ahead names
        // the old column, in the snapshot that sees the new one.
        try writer.execute(
            "BEGIN", "UPDATE ahead SET title = 'renamed with' WHERE id = 5", "ALTER TABLE ahead RENAME COLUMN album TO grouping", "COMMIT",
            request: "a row and a rename in one transaction"
        )
        var reported = false
        waitInRounds(24_000, sleepingEvery: .milliseconds(5)) {
            _ = try? controller.checkForExternalChanges()
            reported = controller.lastError.map { "\($0)".contains("album") } ?? false
            return reported
        }
        #expect(reported, "the controller did not report the renamed column (last error: \(String(describing: controller.lastError)))")
        #expect(store.feedFailedPasses == failed, "\((store.feedFailedPasses ?? 0) - failed) rounds failed")
    }

    @Test("Each round begins the next round's transaction as it ends, and takes its snapshot there; a begun transaction the server ended (terminated, timed out idle) costs no round: the round takes its snapshot elsewhere, and the result equals a fresh query")
    func roundsTakeTheirSnapshotInATransactionBegunAhead() throws {
        let (writer, store, controller) = try Self.followed(
            "begun", setup: [
                "CREATE TABLE begun (id bigint PRIMARY KEY, album bigint, title text)",
                "INSERT INTO begun SELECT g, g % 4, 'photo ' || g FROM generate_series(1, 40) g",
            ], applicationName: "tessera begun ahead"
        )
        defer { writer.close() }
        let failed = try #require(store.feedFailedPasses)
        let begunBefore = try #require(store.feedRoundsBegunAhead)
        let passesBefore = try #require(store.feedPasses)
        for k in 0..<8 {
            try writer.query("UPDATE begun SET album = \(k % 4), title = 'moved \(k)' WHERE id = \(k + 2)", request: "update \(k)")
            try Self.catchUp(controller, writer, "begun")
        }
        let begun = (store.feedRoundsBegunAhead ?? 0) - begunBefore
        let passes = (store.feedPasses ?? 0) - passesBefore
        // Every round since the first one of the store's began the next.
        #expect(begun >= 1 && begun >= passes - 1, "\(begun) of \(passes) rounds took their snapshot in a transaction begun ahead")

        // The server ends the begun transaction's session (as an operator's
        // pg_terminate_backend or an idle_in_transaction_session_timeout
        // would): it waits, idle in a transaction with no snapshot yet.
        // The feed's thread runs the termination between two rounds, so
        // that no round is taking that session meanwhile.
        let lostBefore = try #require(store.feedBegunAheadLost)
        let terminator = try PostgresSession.connect(writer.endpoint, applicationName: "terminator")
        defer { terminator.close() }
        for k in 0..<3 {
            let ended = PThreadMutex<Int64>(-1)
            // Run once the server has answered the begun transaction's
            // BEGIN: it then waits idle in that transaction.
            let ran = store.runBetweenFeedRounds {
                let count = try? terminator.query(
                    """
                    SELECT count(*)::int8 FROM (SELECT pg_terminate_backend(pid) FROM pg_stat_activity
                    WHERE application_name = 'tessera begun ahead' AND state = 'idle in transaction' AND backend_xmin IS NULL
                    AND query = $1) AS ended
                    """, [.text(PostgresBegunRead.startAhead)], request: "end the begun transaction's session"
                ).rows.first?.first?.int64
                ended.withLock { $0 = count ?? -1 }
            }
            #expect(ran, "the feed did not run the termination between its rounds")
            #expect(ended.withLock { $0 } == 1, "\(ended.withLock { $0 }) sessions ended, where one transaction waits begun")
            try writer.query("UPDATE begun SET album = \((k + 1) % 4), title = 'after the end \(k)' WHERE id = \(20 + k)", request: "update after the end \(k)")
            try Self.catchUp(controller, writer, "begun")
            #expect(controller.lastUpdateMethod == .incremental, "the commit after the begun transaction's end \(k) was fetched again, not patched")
        }
        #expect(store.feedBegunAheadLost == lostBefore + 3, "\((store.feedBegunAheadLost ?? 0) - lostBefore) rounds found their begun transaction ended, of 3 ended")
        #expect(store.feedFailedPasses == failed, "\((store.feedFailedPasses ?? 0) - failed) rounds failed")
    }

    @Test("A reader whose snapshot cannot be taken fails every statement with that failure, and takes none")
    func deferredSnapshotKeepsItsFailure() throws {
        let url = try TestServer.freshDatabase("deferred")
        let store = try PostgresStore(url: url)
        store.close()
        let snapshot = PostgresDeferredSnapshot(store: store)
        var failures: [PostgresStoreError.Kind] = []
        for _ in 0..<3 {
            do {
                _ = try snapshot.held()
            } catch {
                failures.append(error.kind)
            }
        }
        #expect(failures == [.serverGone, .serverGone, .serverGone])
        #expect(store.readerSnapshotsTaken == 0)
    }

    @Test("A relation's catalog stamp moves with every change of its shape, and with no write of rows")
    func stampsMoveWithTheShape() throws {
        let url = try TestServer.freshDatabase("stamps")
        let writer = try PostgresSession.connect(PostgresEndpoint(url: url), applicationName: "writer")
        defer { writer.close() }
        try writer.execute("CREATE TABLE stamped (id bigint PRIMARY KEY, album bigint, title text)", request: "setup")
        let oid = try #require(writer.query("SELECT 'stamped'::regclass::oid::int8", request: "oid").rows.first?.first?.int64)
        let store = try PostgresStore(url: url)
        func stamp() throws -> String? {
            try PostgresHeldSnapshot.open(store, stamping: [oid]).stamps[oid]
        }
        var last = try #require(try stamp())

        for (name, sql) in [
            ("rows written", "INSERT INTO stamped SELECT g, g, 'x' FROM generate_series(1, 50) g"),
            ("rows changed", "UPDATE stamped SET title = 'y' WHERE id < 10"),
            ("rows deleted", "DELETE FROM stamped WHERE id > 40"),
        ] {
            try writer.query(sql, request: name)
            #expect(try stamp() == last, "\(name) moved the stamp")
        }
        for (name, sql) in [
            ("a column added", "ALTER TABLE stamped ADD COLUMN extra int"),
            ("a column renamed", "ALTER TABLE stamped RENAME COLUMN extra TO more"),
            ("a column retyped", "ALTER TABLE stamped ALTER COLUMN more TYPE bigint"),
            ("a collation set", "ALTER TABLE stamped ALTER COLUMN title TYPE text COLLATE \"C\""),
            ("a column dropped", "ALTER TABLE stamped DROP COLUMN more"),
            ("the replica identity set", "ALTER TABLE stamped REPLICA IDENTITY FULL"),
            ("the primary key dropped", "ALTER TABLE stamped DROP CONSTRAINT stamped_pkey"),
            ("a primary key made", "ALTER TABLE stamped ADD PRIMARY KEY (id)"),
            ("the table renamed", "ALTER TABLE stamped RENAME TO restamped"),
        ] {
            try writer.query(sql, request: name)
            let now = try #require(try stamp(), "\(name): no stamp")
            #expect(now != last, "\(name) left the stamp where it was")
            last = now
        }
        try writer.query("DROP TABLE restamped", request: "drop")
        #expect(try stamp() == nil, "a dropped table still has a stamp")
    }
}

/// A row of `spelt`: its key (a column named `café` with the precomposed
/// letter) and the other columns, as values (text compared by bytes).
private struct SpeltRow: FetchableRecord, Hashable {
    var id: DatabaseValue
    var values: [DatabaseValue]
    init(row: Row) throws {
        id = row[SpeltKeyTests.precomposed]
        values = row.values
    }
}

/// Keys and names the server tells apart by their bytes, which Swift's
/// `==` takes as one: the two spellings of an accented letter.
@Suite("PostgreSQL: keys and column names spelt two ways", .tags(.postgres), .ownThreads)
struct SpeltKeyTests {
    /// `café` with the precomposed letter (U+00E9).
    static let precomposed = "caf\u{E9}"
    /// `café` with `e` and the combining accent (U+0301).
    static let decomposed = "cafe\u{301}"

    @Test("A text key column café beside a column café spelt the other way, and keys é spelt both ways moved in one transaction: each commit is patched from the key's own column, both keys are read, and the result equals a fresh query")
    func keysSpeltTwoWays() throws {
        // The twin column comes first: a search by Swift's names finds it
        // before the key's.
        try expectEachCommitPatched(
            "spelt", keyColumn: Self.precomposed,
            setup: [
                "CREATE TABLE spelt (\"\(Self.decomposed)\" text, \"\(Self.precomposed)\" text PRIMARY KEY, album bigint, title text)",
                "INSERT INTO spelt SELECT 'twin ' || g, 'k' || g, g % 3, 'photo ' || g FROM generate_series(1, 30) g",
                "INSERT INTO spelt VALUES ('twin a', '\u{E9}', 0, 'precomposed'), ('twin b', 'e\u{301}', 0, 'decomposed')",
            ],
            commits: [
                ["UPDATE spelt SET album = 1, \"\(Self.decomposed)\" = 'k7' WHERE \"\(Self.precomposed)\" = 'k3'"],
                // Both spellings of é, in one transaction, to other albums.
                ["UPDATE spelt SET album = 2 WHERE \"\(Self.precomposed)\" = '\u{E9}'", "UPDATE spelt SET album = 1 WHERE \"\(Self.precomposed)\" = 'e\u{301}'"],
                ["DELETE FROM spelt WHERE \"\(Self.precomposed)\" = 'e\u{301}'", "UPDATE spelt SET title = 'zz' WHERE \"\(Self.precomposed)\" = '\u{E9}'"],
                ["INSERT INTO spelt VALUES ('twin c', 'e\u{301}', 2, 'again')", "UPDATE spelt SET album = 0 WHERE \"\(Self.precomposed)\" = '\u{E9}'"],
            ],
            freshQuery: "SELECT * FROM spelt ORDER BY album, title, \"\(Self.precomposed)\"",
            values: { (row: SpeltRow) in row.values }
        )
    }
}

/// Follows `table` in a fresh database, made by `setup`, with a controller
/// of `Record` keyed by `keyColumn` (sorted by album and title, sectioned
/// by album), which must get a patch plan. Then runs each of `commits`'
/// statements in one transaction, and after each waits until the
/// controller's records (read as `values`) equal `freshQuery`'s rows, and
/// expects the commit to have been patched, not re-fetched.
private func expectEachCommitPatched<Record: FetchableRecord>(
    _ table: String, keyColumn: String, setup: [String], commits: [[String]], freshQuery: String,
    values: (Record) -> [DatabaseValue]
) throws {
    let url = try TestServer.freshDatabase(table)
    let writer = try PostgresSession.connect(PostgresEndpoint(url: url), applicationName: "writer")
    defer { writer.close() }
    for sql in setup { try writer.query(sql, request: "setup") }
    let store = try PostgresStore(url: url, applicationName: "tessera \(table)")
    let controller = try FetchedResultsController<Record>(
        store: store, request: FetchRequest(table: table, keyColumn: keyColumn, sortKeys: [SortKey("album"), SortKey("title")], sectionKey: "album")
    )
    try controller.performFetch()
    // Read into values first: a failed expectation reflects what it
    // names, and a controller does not reflect.
    let patches = controller.supportsIncrementalUpdates
    #expect(patches, "the key \(keyColumn) of \(table) got no patch plan")
    for (round, statements) in commits.enumerated() {
        try writer.query("BEGIN", request: "begin")
        for sql in statements { try writer.query(sql, request: "round \(round)") }
        try writer.query("COMMIT", request: "commit")
        let fresh = try writer.query(freshQuery, request: "fresh").rows
        var current: [[DatabaseValue]] = []
        // A bound against a hang only, in rounds (not by a clock).
        try waitInRounds(24_000, sleepingEvery: .milliseconds(5)) {
            _ = try controller.checkForExternalChanges()
            current = controller.snapshot.allItems.map(values)
            return current == fresh
        }
        #expect(current == fresh, "\(table), round \(round)")
        let method = controller.lastUpdateMethod
        #expect(method == .incremental, "\(table), round \(round)")
    }
}
