import Foundation
import Testing
import TesseraDiff
import TesseraResults
import TesseraSQLite
import TesseraTestSupport
import TesseraTestTraits
@testable import TesseraPostgres
#if canImport(Glibc)
import Glibc
#endif

/// A row of `photo(id, album, rank, title, taken, score, flag)`, its values
/// as the store reads them.
struct OraclePhoto: FetchableRecord, Hashable {
    static let columns = ["album", "rank", "title", "taken", "score", "flag"]
    /// The SELECT list a fresh query reads, in the order of ``init(values:)``.
    static let selectList = "id, album, rank, title, taken, score, flag"

    var id: Int64
    var values: [DatabaseValue]

    init(row: Row) throws {
        id = row["id"].int64 ?? -1
        values = Self.columns.map { row[$0] }
    }

    /// A record from the values of `SELECT id, album, rank, title, taken, score, flag`.
    init(values: [DatabaseValue]) {
        id = values[0].int64 ?? -1
        self.values = Array(values.dropFirst())
    }

    var album: DatabaseValue { values[0] }
    var title: DatabaseValue { values[2] }

    /// Whether a transaction or savepoint that was rolled back wrote it.
    var isRolledBack: Bool { title.string?.hasPrefix(PostgresOracleTests.rolledBackMarker) ?? false }
}

/// A row of `album(id, name)`.
struct OracleAlbum: FetchableRecord, Hashable {
    var id: Int64
    var name: DatabaseValue
    init(row: Row) throws {
        id = row["id"].int64 ?? -1
        name = row["name"]
    }
}

/// The reports of a controller with no home, and how each was made.
final class OracleFetchedLog: FetchedResultsControllerDelegate {
    var reports: [ChangeReport<OraclePhoto>] = []
    var methods: [FetchedResultsController<OraclePhoto>.UpdateMethod?] = []
    var errors: [ResultsError] = []
    func controller(_ controller: FetchedResultsController<OraclePhoto>, didChangeContentWith report: ChangeReport<OraclePhoto>) {
        reports.append(report)
        methods.append(controller.lastUpdateMethod)
    }
    func controller(_ controller: FetchedResultsController<OraclePhoto>, didFailWith error: ResultsError) { errors.append(error) }
}

final class OracleSetLog: FetchedSetControllerDelegate {
    var reports: [SetChangeReport<OraclePhoto>] = []
    var errors: [ResultsError] = []
    func controller(_ controller: FetchedSetController<OraclePhoto>, didChangeContentWith report: SetChangeReport<OraclePhoto>) { reports.append(report) }
    func controller(_ controller: FetchedSetController<OraclePhoto>, didFailWith error: ResultsError) { errors.append(error) }
}

final class OracleRelationalLog: RelationalResultsControllerDelegate {
    var reports: [SnapshotReport<OracleAlbum, OraclePhoto>] = []
    var errors: [ResultsError] = []
    func controller(_ controller: RelationalResultsController<OracleAlbum, OraclePhoto>, didChangeContentWith report: SnapshotReport<OracleAlbum, OraclePhoto>) {
        reports.append(report)
    }
    func controller(_ controller: RelationalResultsController<OracleAlbum, OraclePhoto>, didFailWith error: ResultsError) { errors.append(error) }
}

/// Followers whose home is an actor: they fetch there, the fetched
/// results controller's reports are read from `controller.reports`, the
/// others' from their delegates (called there). FetchedSetController and
/// RelationalResultsController take commits on their home only.
actor OracleHome {
    struct State: Sendable {
        var snapshot: Snapshot<ResultSection, OraclePhoto>
        var reports: [ChangeReport<OraclePhoto>]
        var lastError: ResultsError?
        var setRecords: [OraclePhoto]
        var setReports: [SetChangeReport<OraclePhoto>]
        var setErrors: [ResultsError]
        var relationalSnapshot: Snapshot<OracleAlbum, OraclePhoto>
        var relationalReports: [SnapshotReport<OracleAlbum, OraclePhoto>]
        var relationalErrors: [ResultsError]
    }

    let stores: [PostgresStore]
    let controller: FetchedResultsController<OraclePhoto>
    let set: FetchedSetController<OraclePhoto>
    let relational: RelationalResultsController<OracleAlbum, OraclePhoto>
    private let setLog = OracleSetLog()
    private let relationalLog = OracleRelationalLog()
    private(set) var initial = Snapshot<ResultSection, OraclePhoto>()
    private(set) var setInitial: [OraclePhoto] = []
    private(set) var relationalInitial = Snapshot<OracleAlbum, OraclePhoto>()
    private var reports: [ChangeReport<OraclePhoto>] = []
    private var consumer: Task<Void, Never>?

    init(url: String, request: FetchRequest, setRequest: SetRequest, parents: ParentRequest, children: ChildRequest) throws {
        stores = try (0..<3).map { _ in try PostgresStore(url: url) }
        controller = try FetchedResultsController<OraclePhoto>(store: stores[0], request: request)
        set = FetchedSetController<OraclePhoto>(store: stores[1], request: setRequest)
        relational = RelationalResultsController<OracleAlbum, OraclePhoto>(store: stores[2], parents: parents, children: children)
    }

    func start() throws {
        set.delegate = setLog
        relational.delegate = relationalLog
        try controller.performFetch()
        try set.performFetch()
        try relational.performFetch()
        initial = controller.snapshot
        setInitial = set.records
        relationalInitial = relational.snapshot
        let sequence = controller.reports(bufferLimit: 100_000)
        // On threads of its own, as the test is (`.ownThreads`): an
        // unstructured task would otherwise run on the cooperative pool,
        // which the suite's other tests may keep busy for minutes on a
        // busy machine, and the consumer would take no report at all.
        consumer = Task(executorPreference: OwnThreadsExecutor.shared) {
            for await report in sequence { await self.append(report) }
        }
    }

    private func append(_ report: ChangeReport<OraclePhoto>) { reports.append(report) }

    func state() -> State {
        State(
            snapshot: controller.snapshot, reports: reports, lastError: controller.lastError,
            setRecords: set.records, setReports: setLog.reports, setErrors: setLog.errors,
            relationalSnapshot: relational.snapshot, relationalReports: relationalLog.reports, relationalErrors: relationalLog.errors
        )
    }

    func finish() {
        consumer?.cancel()
        for store in stores { store.close() }
    }
}

/// One writer: its session, its generator and the keys it made.
final class OracleWriter: @unchecked Sendable {
    let index: Int
    let session: PostgresSession
    var generator: SplitMix64
    var nextID: Int64
    var committed = 0
    var rolledBack = 0
    var failed: [String] = []

    init(index: Int, url: String, seed: UInt64) throws {
        self.index = index
        session = try OracleServer.session(url, applicationName: "oracle-writer-\(index)")
        try session.execute("SET lock_timeout = '5s'", request: "set the lock timeout")
        generator = SplitMix64(seed: seed &+ UInt64(index) &* 0x9E37)
        nextID = Int64(index + 1) * 1_000_000
    }

    func random(_ range: Range<Int>) -> Int { Int.random(in: range, using: &generator) }
    func chance(_ percent: Int) -> Bool { random(0..<100) < percent }

    /// An id that may exist: one of the first rows, or one this writer made.
    func someID() -> Int64 {
        let base = Int64(index + 1) * 1_000_000
        if nextID == base || chance(50) { return Int64(random(1..<PostgresOracleTests.initialRows + 1)) }
        return base + Int64(random(0..<Int(nextID - base)))
    }

    func freshID() -> Int64 {
        defer { nextID += 1 }
        return nextID
    }

    func maybeNull(_ value: DatabaseValue, _ percent: Int) -> DatabaseValue { chance(percent) ? .null : value }

    func title(marked: Bool) -> DatabaseValue {
        let words = ["a", "B", "b", "Z", "z", "é", "Ä", "~", "photo", "Photo", "_", "0"]
        let text = words[random(0..<words.count)] + (chance(50) ? words[random(0..<words.count)] : "") + " \(random(0..<50))"
        return marked ? .text(PostgresOracleTests.rolledBackMarker + text) : maybeNull(.text(text), 5)
    }

    /// The values of a new row (its id first).
    func row(marked: Bool) -> [DatabaseValue] {
        let seconds = 1_700_000_000 + random(0..<1_000_000)
        return [
            .integer(freshID()),
            maybeNull(.integer(Int64(random(0..<PostgresOracleTests.albums + 4))), 3),
            maybeNull(.integer(Int64(random(0..<20))), 10),
            title(marked: marked),
            maybeNull(.integer(Int64(seconds)), 5),
            maybeNull(.real(Double(random(0..<1000)) / 1000), 10),
            maybeNull(.integer(Int64(random(0..<2))), 5),
        ]
    }

    /// One random statement (its SQL and arguments); `marked` titles for
    /// what is rolled back.
    func statement(marked: Bool) -> (String, [DatabaseValue]) {
        let albums = PostgresOracleTests.albums
        switch random(0..<100) {
        case 0..<20:
            let values = row(marked: marked)
            return ("INSERT INTO photo (id, album, rank, title, taken, score, flag) VALUES ($1, $2, $3, $4, to_timestamp($5::float8), $6, $7::int::bool)", values)
        case 20..<27:
            let count = random(2..<6)
            var placeholders: [String] = []
            var arguments: [DatabaseValue] = []
            for row in 0..<count {
                let n = row * 7
                placeholders.append("($\(n + 1)::int8, $\(n + 2)::int, $\(n + 3)::int, $\(n + 4), to_timestamp($\(n + 5)::float8), $\(n + 6)::float8, $\(n + 7)::int::bool)")
                arguments += self.row(marked: marked)
            }
            return ("INSERT INTO photo (id, album, rank, title, taken, score, flag) VALUES " + placeholders.joined(separator: ", "), arguments)
        case 27..<42:
            return ("UPDATE photo SET album = $1 WHERE id = $2", [maybeNull(.integer(Int64(random(0..<albums + 4))), 3), .integer(someID())])
        case 42..<60:
            return (
                "UPDATE photo SET rank = $1, title = $2, score = $3, flag = $4::int::bool WHERE id = $5",
                [maybeNull(.integer(Int64(random(0..<20))), 10), title(marked: marked), maybeNull(.real(Double(random(0..<1000)) / 1000), 10),
                 .integer(Int64(random(0..<2))), .integer(someID())]
            )
        case 60..<68:
            return ("UPDATE photo SET id = $1 WHERE id = $2", [.integer(freshID()), .integer(someID())])
        case 68..<80:
            return ("DELETE FROM photo WHERE id = $1", [.integer(someID())])
        case 80..<84:
            return ("UPDATE photo SET rank = COALESCE(rank, 0) + 1 WHERE album = $1 AND id % 5 = $2", [.integer(Int64(random(0..<albums))), .integer(Int64(random(0..<5)))])
        case 84..<87:
            return ("DELETE FROM photo WHERE album = $1 AND rank > $2", [.integer(Int64(random(0..<albums + 4))), .integer(Int64(random(15..<20)))])
        case 87..<92:
            let name: DatabaseValue = marked ? .text(PostgresOracleTests.rolledBackMarker + "album") : .text("album \(random(0..<100))")
            return ("UPDATE album SET name = $1 WHERE id = $2", [name, .integer(Int64(random(0..<albums + 4)))])
        case 92..<96:
            let name: DatabaseValue = marked ? .text(PostgresOracleTests.rolledBackMarker + "album") : .text("new album \(random(0..<100))")
            return (
                "INSERT INTO album (id, name) VALUES ($1, $2) ON CONFLICT (id) DO UPDATE SET name = excluded.name",
                [.integer(Int64(random(albums..<albums + 4))), name]
            )
        default:
            return ("DELETE FROM album WHERE id = $1", [.integer(Int64(random(albums..<albums + 4)))])
        }
    }

    /// One random transaction: committed or rolled back, perhaps with a
    /// savepoint rolled back inside, now and then a TRUNCATE.
    func transaction() {
        if random(0..<400) == 0 {
            do {
                // The first rows come back, so that the followers go on
                // patching a table of some size.
                try session.execute("BEGIN", "TRUNCATE photo", request: "truncate")
                try session.query(PostgresOracleTests.initialInsert, [.integer(Int64(random(0..<1000)))], request: "fill again")
                try session.execute("COMMIT", request: "commit a truncate")
                committed += 1
            } catch {
                _ = try? session.execute("ROLLBACK", request: "rollback a truncate")
                // A lock timeout (the followers' reads hold the table, for
                // long on a slow machine) rolls the TRUNCATE back, as it
                // does any other transaction: one more case to follow.
                if error.kind != .serverGone && error.kind != .connection {
                    rolledBack += 1
                } else {
                    failed.append("\(error)")
                }
            }
            return
        }
        let rollback = chance(10)
        do throws(PostgresStoreError) {
            try session.execute("BEGIN", request: "begin")
            for _ in 0..<random(1..<4) {
                let (sql, arguments) = statement(marked: rollback)
                try session.query(sql, arguments, request: sql)
            }
            if !rollback && chance(15) {
                try session.execute("SAVEPOINT oracle", request: "savepoint")
                for _ in 0..<random(1..<3) {
                    let (sql, arguments) = statement(marked: true)
                    try session.query(sql, arguments, request: sql)
                }
                try session.execute("ROLLBACK TO SAVEPOINT oracle", request: "rollback to savepoint")
                let (sql, arguments) = statement(marked: false)
                try session.query(sql, arguments, request: sql)
            }
            try session.execute(rollback ? "ROLLBACK" : "COMMIT", request: "end")
            if rollback { rolledBack += 1 } else { committed += 1 }
        } catch {
            // A unique key taken, a deadlock, a lock timeout: the
            // transaction is rolled back, which is one more case to follow.
            _ = try? session.execute("ROLLBACK", request: "rollback after \(error.kind)")
            rolledBack += 1
            if error.kind == .serverGone || error.kind == .connection { failed.append("\(error)") }
        }
    }
}

@Suite("PostgreSQL oracle: three writers, five followers on stores of their own", .tags(.postgres, .oracle), .ownThreads)
struct PostgresOracleTests {
    static let rolledBackMarker = "rolledback-"
    static let initialRows = 2_000
    static let albums = 8
    /// Ten, or fewer under ThreadSanitizer in CI (see ``oracleRounds(_:minimum:)``).
    static let phases = oracleRounds(10, minimum: 3)
    static let transactionsPerWriterAndPhase = 35
    static let minimumFraction = 0.3

    static let sortKeys = [SortKey("album"), SortKey("rank", nullsFirst: true), SortKey("title", collation: .binary)]
    static let orderBy = "ORDER BY album ASC, rank ASC NULLS FIRST, title COLLATE \"C\" ASC, id ASC"
    static let sectioned = FetchRequest(table: "photo", sortKeys: sortKeys, sectionKey: "album")
    static let filtered = FetchRequest(table: "photo", predicate: "flag AND score > ?", arguments: [.real(Self.minimumFraction)], sortKeys: sortKeys, sectionKey: "album")
    static let filteredSQL = "WHERE flag AND score > \(minimumFraction)"
    static let descending = FetchRequest(table: "photo", sortKeys: [SortKey("rank", ascending: false), SortKey("title", ascending: false, collation: .binary)])
    static let descendingOrderBy = "ORDER BY rank DESC, title COLLATE \"C\" DESC, id ASC"
    static let setRequest = SetRequest(table: "photo", predicate: "album = ?", arguments: [.integer(3)])
    static let parents = ParentRequest(table: "album", sortKeys: [SortKey("id")])
    static let children = ChildRequest(table: "photo", foreignKeyColumn: "album", sortKeys: [SortKey("rank", nullsFirst: true), SortKey("title", collation: .binary)])

    static func setUp(_ url: String, seed: UInt64) throws {
        let session = try OracleServer.session(url)
        defer { session.close() }
        try session.execute(
            "CREATE TABLE photo (id bigint PRIMARY KEY, album int, rank int, title text, taken timestamptz, score float8, flag bool)",
            "CREATE TABLE album (id int PRIMARY KEY, name text)",
            request: "create the tables"
        )
        for album in 0..<albums {
            try session.query("INSERT INTO album VALUES ($1, $2)", [.integer(Int64(album)), .text("album \(album)")], request: "insert an album")
        }
        try session.query(initialInsert, [.integer(Int64(seed % 1000))], request: "insert the photos")
    }

    /// The first rows: ids 1 to ``initialRows``, the rest made from `$1`.
    static let initialInsert = """
        INSERT INTO photo
        SELECT g, g % \(albums), CASE WHEN (g * 31 + $1) % 10 = 0 THEN NULL ELSE (g * 7919 + $1) % 20 END,
               'photo ' || ((g * 104729 + $1) % 100), to_timestamp(1700000000 + g), ((g * 7727 + $1) % 1000) / 1000.0, g % 2 = 1
        FROM generate_series(1, \(initialRows)) g
        """

    /// The rows of a fresh query on `session`.
    static func fresh(_ session: PostgresSession, _ clauses: String) throws -> [OraclePhoto] {
        try session.query("SELECT \(OraclePhoto.selectList) FROM photo \(clauses)", request: "fresh query").rows.map(OraclePhoto.init(values:))
    }

    /// The ids of each section of a sectioned result, and of a flat one.
    static func grouped(_ records: [OraclePhoto]) -> [[Int64]] {
        grouped(records, id: \.id, album: \.album)
    }

    /// The ids of `records`, grouped by album as they come.
    static func grouped<Record>(_ records: [Record], id: KeyPath<Record, Int64>, album: KeyPath<Record, DatabaseValue>) -> [[Int64]] {
        var groups: [[Int64]] = []
        var last: DatabaseValue?
        for record in records {
            if groups.isEmpty || record[keyPath: album] != last { groups.append([]) }
            groups[groups.count - 1].append(record[keyPath: id])
            last = record[keyPath: album]
        }
        return groups
    }

    static func sections(_ snapshot: Snapshot<ResultSection, OraclePhoto>) -> [[Int64]] {
        (0..<snapshot.numberOfSections).map { snapshot.items(inSection: $0).map(\.id) }
    }

    /// Each report starts where the one before ended; replaying its
    /// changeset on its old snapshot gives its new one; no rolled-back row
    /// shows; the last ends where the controller is.
    static func checkChain<S, I>(
        _ label: String, seed: UInt64, from initial: Snapshot<S, I>, reports: [(changeset: Changeset, old: Snapshot<S, I>, new: Snapshot<S, I>)],
        to final: Snapshot<S, I>, rolledBack: (I) -> Bool
    ) {
        var previous = initial
        for (index, report) in reports.enumerated() {
            #expect(report.old == previous, "seed \(seed): \(label) report \(index) does not start where the one before ended")
            do {
                let replayed = try previous.applying(report.changeset, takingValuesFrom: report.new)
                #expect(replayed == report.new, "seed \(seed): \(label) report \(index): its changeset does not lead to its new snapshot")
            } catch {
                Issue.record("seed \(seed): \(label) report \(index) does not replay: \(error)")
            }
            let shown = report.new.allItems.filter(rolledBack).map(\.id)
            #expect(shown.isEmpty, "seed \(seed): \(label) report \(index) shows rows of a rolled-back transaction: \(shown)")
            previous = report.new
        }
        if previous != final {
            // Named first: the two snapshots can be long.
            Issue.record("seed \(seed): \(label): the reports do not end where the controller is (\(reports.count) reports; the last ends with \(previous.numberOfItems) items in \(previous.numberOfSections) sections, the controller has \(final.numberOfItems) in \(final.numberOfSections)): \(previous) != \(final)")
        }
    }

    @Test("≥ 1,000 random transactions by three writers (fewer under ThreadSanitizer in CI): every report replays, no rolled-back row shows, and at each pause every follower equals a fresh query", .startsEarly)
    func followersMatchFreshQueries() async throws {
        let seed = testSeed(default: 0x0AC1E)
        print("PostgresOracleTests seed \(seed) (TESSERA_SEED=\(seed) replays the writers' statements)")
        let url = try OracleServer.freshDatabase("oracle")
        try Self.setUp(url, seed: seed)
        let checker = try OracleServer.session(url, applicationName: "oracle-checker")
        defer { checker.close() }

        // Followers with no home, each over a store of its own.
        let plainStore = try PostgresStore(url: url)
        let plain = try FetchedResultsController<OraclePhoto>(store: plainStore, request: Self.sectioned)
        let plainLog = OracleFetchedLog()
        plain.delegate = plainLog
        try plain.performFetch()
        let plainInitial = plain.snapshot

        let descendingStore = try PostgresStore(url: url)
        let descending = try FetchedResultsController<OraclePhoto>(store: descendingStore, request: Self.descending)
        let descendingLog = OracleFetchedLog()
        descending.delegate = descendingLog
        try descending.performFetch()
        let descendingInitial = descending.snapshot

        // Followers whose home is an actor.
        let home = try OracleHome(url: url, request: Self.filtered, setRequest: Self.setRequest, parents: Self.parents, children: Self.children)
        try await home.start()
        let homedInitial = await home.initial
        let relationalInitial = await home.relationalInitial
        var setState = Dictionary(uniqueKeysWithValues: await home.setInitial.map { ($0.id, $0) })

        defer {
            plainStore.close()
            descendingStore.close()
        }

        func pump() {
            do { _ = try plain.checkForExternalChanges() } catch { Issue.record("seed \(seed): sectioned check failed: \(error)") }
            do { _ = try descending.checkForExternalChanges() } catch { Issue.record("seed \(seed): descending check failed: \(error)") }
        }

        let writers = try (0..<3).map { try OracleWriter(index: $0, url: url, seed: seed) }
        defer { for writer in writers { writer.session.close() } }

        for phase in 0..<Self.phases {
            let finished = PThreadMutex(0)
            for writer in writers {
                let thread = Thread {
                    for _ in 0..<Self.transactionsPerWriterAndPhase { writer.transaction() }
                    finished.withLock { $0 += 1 }
                }
                thread.start()
            }
            while finished.withLock({ $0 }) < writers.count {
                pump()
                try await Task.sleep(for: .milliseconds(3))
            }

            // Quiescent: the writers are paused; every follower must reach
            // what a fresh query reads now.
            let expectedSectioned = try Self.fresh(checker, Self.orderBy)
            let expectedFiltered = try Self.fresh(checker, Self.filteredSQL + " " + Self.orderBy)
            let expectedDescending = try Self.fresh(checker, Self.descendingOrderBy)
            let expectedSet = Set(try Self.fresh(checker, "WHERE album = 3"))
            let freshRelationalStore = try PostgresStore(url: url)
            let freshRelational = RelationalResultsController<OracleAlbum, OraclePhoto>(store: freshRelationalStore, parents: Self.parents, children: Self.children)
            try freshRelational.performFetch()
            let expectedRelational = freshRelational.snapshot
            freshRelationalStore.close()

            func settled(_ homedState: OracleHome.State) -> Bool {
                plain.snapshot.allItems == expectedSectioned && Self.sections(plain.snapshot) == Self.grouped(expectedSectioned)
                    && descending.snapshot.allItems == expectedDescending
                    && Set(homedState.setRecords) == expectedSet
                    && homedState.relationalSnapshot == expectedRelational
                    && homedState.snapshot.allItems == expectedFiltered && Self.sections(homedState.snapshot) == Self.grouped(expectedFiltered)
            }
            // The limit only stops a hung test (generous for a sanitizer
            // build on a busy machine; bounded in rounds, not by a clock);
            // each follower is bound to settle.
            var homedState = await home.state()
            try await waitInRounds(12_000, every: .milliseconds(10)) {
                homedState = await home.state()
                if settled(homedState) { return true }
                pump()
                return false
            }
            let label = "seed \(seed), phase \(phase) (waited up to 12,000 rounds of 10 ms for the followers to settle)"
            #expect(plain.snapshot.allItems == expectedSectioned, "\(label): the sectioned follower differs from a fresh query (\(plain.snapshot.numberOfItems) rows against \(expectedSectioned.count))")
            #expect(Self.sections(plain.snapshot) == Self.grouped(expectedSectioned), "\(label): the sectioned follower's sections differ from a fresh query's")
            #expect(descending.snapshot.allItems == expectedDescending, "\(label): the descending follower differs from a fresh query (\(descending.snapshot.numberOfItems) rows against \(expectedDescending.count))")
            #expect(Set(homedState.setRecords) == expectedSet, "\(label): the set follower differs from a fresh query (\(homedState.setRecords.count) rows against \(expectedSet.count))")
            #expect(homedState.relationalSnapshot == expectedRelational, "\(label): the relational follower differs from a fresh fetch")
            #expect(homedState.snapshot.allItems == expectedFiltered, "\(label): the follower on an actor differs from a fresh query (\(homedState.snapshot.numberOfItems) rows against \(expectedFiltered.count))")
            #expect(Self.sections(homedState.snapshot) == Self.grouped(expectedFiltered), "\(label): the follower on an actor's sections differ from a fresh query's")
            if !settled(homedState) { break }

            // With the writers paused, one more commit of one row: however
            // many merged commits came before it fetched again, each follower
            // with no home patches it row by row, and the report holds just
            // that row.
            let probeID = Int64(9_000_000 + phase)
            let plainBefore = plainLog.reports.count
            let descendingBefore = descendingLog.reports.count
            try checker.query(
                "INSERT INTO photo (id, album, rank, title, taken, score, flag) VALUES ($1, $2, NULL, 'probe', now(), 0.5, true)",
                [.integer(probeID), .integer(Int64(phase % Self.albums))], request: "the probe commit"
            )
            try await waitInRounds(24_000, every: .milliseconds(5)) {
                if plainLog.reports.count != plainBefore && descendingLog.reports.count != descendingBefore { return true }
                pump()
                return false
            }
            for (name, log, before) in [("sectioned", plainLog, plainBefore), ("descending", descendingLog, descendingBefore)] {
                #expect(log.reports.count == before + 1, "\(label): the \(name) follower made \(log.reports.count - before) reports of the probe commit (waited up to 24,000 rounds of 5 ms), not one")
                guard log.reports.count > before else { continue }
                #expect(log.methods[before] == .incremental, "\(label): the \(name) follower fetched again for a one-row commit on a quiet table (\(String(describing: log.methods[before])))")
                let report = log.reports[before]
                let changeset = report.changeset
                let onlyInserts = changeset.itemDeletes.isEmpty && changeset.itemMoves.isEmpty && changeset.itemUpdates.isEmpty
                    && changeset.sectionDeletes.isEmpty && changeset.sectionMoves.isEmpty && changeset.sectionUpdates.isEmpty
                let shown = report.newSnapshot.allItems.filter { $0.id == probeID }.count
                #expect(onlyInserts && shown == 1 && report.newSnapshot.numberOfItems == report.oldSnapshot.numberOfItems + 1,
                        "\(label): the \(name) follower's probe report is not one inserted row: \(changeset)")
            }
        }

        // The last probe's commit reaches the followers on the actor too,
        // and the reports of the one fed by an AsyncSequence come after its
        // snapshot changes: wait until each has caught up before the
        // chains are compared.
        // 12,000 rounds of at least 10 ms, bounded in rounds, not by a
        // clock.
        let finalFiltered = try Self.fresh(checker, Self.filteredSQL + " " + Self.orderBy)
        let finalSet = Set(try Self.fresh(checker, "WHERE album = 3"))
        // The chains below are checked on the state read when the reports
        // had caught up: a report read from the sequence comes after its
        // snapshot, so a state read later may hold a change whose report
        // is on its way.
        var caughtUp: OracleHome.State?
        try await waitInRounds(12_000, every: .milliseconds(10)) {
            let state = await home.state()
            let reportsCaughtUp = (state.reports.last?.newSnapshot ?? homedInitial) == state.snapshot
            if state.snapshot.allItems == finalFiltered && Set(state.setRecords) == finalSet && reportsCaughtUp {
                caughtUp = state
                return true
            }
            pump()
            return false
        }

        // Every report replays, from each follower's first snapshot to its
        // last.
        Self.checkChain("sectioned", seed: seed, from: plainInitial, reports: plainLog.reports.map { ($0.changeset, $0.oldSnapshot, $0.newSnapshot) }, to: plain.snapshot, rolledBack: \.isRolledBack)
        Self.checkChain("descending", seed: seed, from: descendingInitial, reports: descendingLog.reports.map { ($0.changeset, $0.oldSnapshot, $0.newSnapshot) }, to: descending.snapshot, rolledBack: \.isRolledBack)
        let homedState: OracleHome.State
        if let caughtUp { homedState = caughtUp } else { homedState = await home.state() }
        let relationalLog = (reports: homedState.relationalReports, errors: homedState.relationalErrors)
        let setLog = (reports: homedState.setReports, errors: homedState.setErrors)
        Self.checkChain("relational", seed: seed, from: relationalInitial, reports: relationalLog.reports.map { ($0.changeset, $0.oldSnapshot, $0.newSnapshot) }, to: homedState.relationalSnapshot) { photo in
            photo.isRolledBack
        }
        Self.checkChain("on an actor", seed: seed, from: homedInitial, reports: homedState.reports.map { ($0.changeset, $0.oldSnapshot, $0.newSnapshot) }, to: homedState.snapshot, rolledBack: \.isRolledBack)
        let relationalParents = relationalLog.reports.flatMap(\.newSnapshot.sections).filter { $0.name.string?.hasPrefix(Self.rolledBackMarker) ?? false }
        #expect(relationalParents.isEmpty, "seed \(seed): the relational follower showed albums of rolled-back transactions")

        // The set follower's reports replay the same way, on a dictionary.
        for (index, report) in setLog.reports.enumerated() {
            #expect(report.oldCount == setState.count, "seed \(seed): set report \(index) starts from \(report.oldCount) rows, not \(setState.count)")
            for record in report.deleted { #expect(setState.removeValue(forKey: record.id) != nil, "seed \(seed): set report \(index) deletes \(record.id), which it did not have") }
            for record in report.updated { #expect(setState.updateValue(record, forKey: record.id) != nil, "seed \(seed): set report \(index) updates \(record.id), which it did not have") }
            for record in report.inserted { #expect(setState.updateValue(record, forKey: record.id) == nil, "seed \(seed): set report \(index) inserts \(record.id), which it had") }
            #expect(report.newCount == setState.count, "seed \(seed): set report \(index) ends at \(report.newCount) rows, not \(setState.count)")
            let shown = (report.inserted + report.updated).filter(\.isRolledBack).map(\.id)
            #expect(shown.isEmpty, "seed \(seed): set report \(index) shows rows of a rolled-back transaction: \(shown)")
        }
        #expect(Set(setState.values) == Set(homedState.setRecords), "seed \(seed): the set reports do not end where the controller is")

        // The writers did what they were meant to, and the followers
        // followed it row by row.
        let committed = writers.map(\.committed).reduce(0, +)
        let rolledBack = writers.map(\.rolledBack).reduce(0, +)
        print("PostgresOracleTests seed \(seed): \(committed) transactions committed, \(rolledBack) rolled back; reports: sectioned \(plainLog.reports.count) (\(plainLog.methods.filter { $0 == .incremental }.count) incremental), descending \(descendingLog.reports.count), set \(setLog.reports.count), relational \(relationalLog.reports.count), on an actor \(homedState.reports.count)")
        #expect(committed + rolledBack >= Self.phases * 3 * Self.transactionsPerWriterAndPhase * 95 / 100, "seed \(seed): only \(committed + rolledBack) transactions in \(Self.phases) phases")
        #expect(writers.flatMap(\.failed).isEmpty, "seed \(seed): writers failed: \(writers.flatMap(\.failed).prefix(5))")
        #expect(plainLog.errors.isEmpty && descendingLog.errors.isEmpty && setLog.errors.isEmpty && relationalLog.errors.isEmpty && homedState.lastError == nil,
                "seed \(seed): errors: \(plainLog.errors + descendingLog.errors + setLog.errors + relationalLog.errors) \(homedState.lastError.map { "\($0)" } ?? "")")
        // Enough reports to tell anything: 10 and 5 over ten phases, fewer
        // over the fewer phases of a ThreadSanitizer run in CI, whose
        // followers also merge more.
        let many = Self.phases, few = max(1, Self.phases / 2)
        #expect(plainLog.reports.count >= many && descendingLog.reports.count >= many && setLog.reports.count >= few && relationalLog.reports.count >= few && homedState.reports.count >= few,
                "seed \(seed): too few reports to tell anything (\(many) and \(few) over \(Self.phases) phases)")
        // How many merged reports were patched row by row depends on how
        // the commits fell into rounds (a merge past the touched limit, a
        // TRUNCATE or a round that met a lock fetches again): the probe of
        // each pause is where patching is asserted, above.
        await home.finish()
    }
}
