import Foundation
import Testing
import TesseraResults
import TesseraSQLite
import TesseraTestSupport
import TesseraTestTraits
@testable import TesseraPostgres
#if canImport(Glibc)
import Glibc
#endif

/// A row of `photo(id, album, title, taken)`.
struct MovedPhoto: FetchableRecord, Hashable {
    var id: Int64
    var album: DatabaseValue
    var title: DatabaseValue
    var taken: DatabaseValue

    init(row: Row) throws {
        id = row["id"].int64 ?? -1
        album = row["album"]
        title = row["title"]
        taken = row["taken"]
    }

    /// A record from the values of `SELECT id, album, title, taken`.
    init(values: [DatabaseValue]) {
        id = values[0].int64 ?? -1
        album = values[1]
        title = values[2]
        taken = values[3]
    }
}

/// Three writers whose transactions interleave (left open while the
/// others work, some rolled back), moving rows across sections one by one
/// and several at a time, under a sectioned, sorted follower that takes
/// the commits only every few statements, so that many merge while it
/// waits.
@Suite("PostgreSQL: merged commits that move rows across sections", .tags(.postgres), .ownThreads)
struct PostgresMergedMovesTests {
    static let albums = ["A", "B", "C", "D", "E", "F"]
    static let request = FetchRequest(table: "photo", sortKeys: [SortKey("album"), SortKey("taken", ascending: false)], sectionKey: "album")
    static let orderBy = "ORDER BY album ASC, taken DESC, id ASC"

    /// The rows of a fresh query on `session`, in the request's order.
    static func fresh(_ session: PostgresSession) throws -> [MovedPhoto] {
        try session.query("SELECT id, album, title, taken FROM photo \(orderBy)", request: "fresh query").rows.map(MovedPhoto.init(values:))
    }

    /// The ids a controller's sections hold.
    static func sections(_ snapshot: Snapshot<ResultSection, MovedPhoto>) -> [[Int64]] {
        (0..<snapshot.numberOfSections).map { snapshot.items(inSection: $0).map(\.id) }
    }

    /// The ids of `records`, grouped by album as they come.
    static func grouped(_ records: [MovedPhoto]) -> [[Int64]] {
        PostgresOracleTests.grouped(records, id: \.id, album: \.album)
    }

    /// An id the controller holds twice, if any.
    static func duplicate(in snapshot: Snapshot<ResultSection, MovedPhoto>) -> Int64? {
        var seen = Set<Int64>()
        for id in sections(snapshot).joined() where !seen.insert(id).inserted { return id }
        return nil
    }

    /// One seed's run; the issues it records name the seed.
    static func run(seed: UInt64, commitsWanted: Int, checkEvery: UInt64, incrementalThreshold: Double, pollInterval: Double) throws {
        var random = SplitMix64(seed: seed)
        let url = try OracleServer.freshDatabase("moves")
        var initial: [String] = []
        for id in 0..<60 { initial.append("(\(id), '\(albums[id % albums.count])', 'photo \(id)', \(id % 17))") }
        try OracleServer.run(
            url, "CREATE TABLE photo (id bigint PRIMARY KEY, album text NOT NULL, title text, taken bigint NOT NULL)",
            "INSERT INTO photo VALUES \(initial.joined(separator: ", "))"
        )
        let checker = try OracleServer.session(url, applicationName: "oracle-checker")
        defer { checker.close() }
        let store = try PostgresStore(url: url)
        defer { store.close() }
        store.pollInterval = pollInterval
        let controller = try FetchedResultsController<MovedPhoto>(store: store, request: request)
        controller.incrementalThreshold = incrementalThreshold
        let log = MovedPhotoLog()
        controller.delegate = log
        try controller.performFetch()

        let writers = try (0..<3).map { _ in try OracleServer.session(url) }
        defer { for writer in writers { writer.close() } }
        // Each writer owns the ids ≡ its number (mod 3): open transactions
        // never wait for each other.
        var committed = (0..<3).map { c in Set((0..<60).filter { $0 % 3 == c }.map(Int64.init)) }
        var working: [Set<Int64>?] = [nil, nil, nil]
        var nextID: [Int64] = [999, 1000, 1001]
        var commits = 0
        var checks = 0

        func check(_ when: String) -> Bool {
            checks += 1
            do { _ = try controller.checkForExternalChanges() } catch {
                Issue.record("seed \(seed): check \(checks) \(when) failed: \(error)")
                return false
            }
            if let id = duplicate(in: controller.snapshot) {
                Issue.record("seed \(seed): after check \(checks) \(when) (\(commits) commits), id \(id) is in the result twice: \(sections(controller.snapshot))")
                return false
            }
            if let error = log.errors.first {
                Issue.record("seed \(seed): the controller failed at check \(checks): \(error)")
                return false
            }
            return true
        }

        /// Commits what is open, waits until the controller equals a fresh
        /// query (for 12,000 rounds of a check and 10 ms at most: a limit
        /// against a hang only, bounded in rounds, not by a clock), and says
        /// whether it did.
        func settle(_ label: String) throws -> Bool {
            for c in 0..<3 where working[c] != nil {
                try writers[c].execute("COMMIT", request: "commit")
                committed[c] = working[c]!
                working[c] = nil
                commits += 1
            }
            let expected = try fresh(checker)
            var failed = false
            let settled = waitInRounds(12_000, sleepingEvery: .milliseconds(10)) {
                guard check("while settling") else {
                    failed = true
                    return true
                }
                return controller.snapshot.allItems == expected && sections(controller.snapshot) == grouped(expected)
            }
            if failed { return false }
            if settled { return true }
            Issue.record("seed \(seed): \(label): after 12,000 rounds of a check and 10 ms, the controller differs from a fresh query (\(controller.snapshot.numberOfItems) rows against \(expected.count))")
            return false
        }

        var pauseAt = 50
        while commits < commitsWanted {
            let c = Int(random.next() % 3)
            if working[c] == nil {
                try writers[c].execute("BEGIN", request: "begin")
                working[c] = committed[c]
            }
            for _ in 0..<(1 + Int(random.next() % 3)) {
                let owned = working[c]!.sorted()
                let album = albums[Int(random.next() % UInt64(albums.count))]
                let taken = Int64(random.next() % 20)
                switch random.next() % 10 {
                case 0...3:
                    let id = nextID[c]
                    nextID[c] += 3
                    let title: DatabaseValue = random.next() % 5 == 0 ? .null : .text("new \(id)")
                    try writers[c].query("INSERT INTO photo VALUES ($1, $2, $3, $4)", [.integer(id), .text(album), title, .integer(taken)], request: "insert")
                    working[c]!.insert(id)
                case 4...6 where !owned.isEmpty:
                    let id = owned[Int(random.next() % UInt64(owned.count))]
                    switch random.next() % 3 {
                    case 0: try writers[c].query("UPDATE photo SET album = $1 WHERE id = $2", [.text(album), .integer(id)], request: "update")
                    case 1: try writers[c].query("UPDATE photo SET taken = $1 WHERE id = $2", [.integer(taken), .integer(id)], request: "update")
                    default: try writers[c].query("UPDATE photo SET title = $1 WHERE id = $2", [.text("retitled \(random.next() % 1000)"), .integer(id)], request: "update")
                    }
                case 7 where !owned.isEmpty:
                    // Several rows at once, across sections.
                    try writers[c].query(
                        "UPDATE photo SET album = $1 WHERE id % 3 = $2 AND taken = $3", [.text(album), .integer(Int64(c)), .integer(taken)], request: "update many"
                    )
                case 8...9 where !owned.isEmpty:
                    let id = owned[Int(random.next() % UInt64(owned.count))]
                    try writers[c].query("DELETE FROM photo WHERE id = $1", [.integer(id)], request: "delete")
                    working[c]!.remove(id)
                default:
                    break
                }
            }
            switch random.next() % 10 {
            case 0:
                try writers[c].execute("ROLLBACK", request: "rollback")
                working[c] = nil
            case 1...6:
                try writers[c].execute("COMMIT", request: "commit")
                committed[c] = working[c]!
                working[c] = nil
                commits += 1
            default:
                break
            }
            if random.next() % 4 == 0 { usleep(UInt32(random.next() % 3_000)) }
            if random.next() % checkEvery == 0, !check("among the writes") { return }
            if commits >= pauseAt {
                pauseAt += 50
                guard try settle("pause at \(commits) commits") else { return }
            }
        }
        _ = try settle("end")
    }

    @Test("random interleaved transactions that move rows across sections, taken every few statements: no id is ever in two sections, and at each pause the result equals a fresh query", .startsEarly)
    func mergedMovesKeepEachRowOnce() throws {
        let base = testSeed(default: 0x5EC7_1045)
        let seeds = Int(ProcessInfo.processInfo.environment["TESSERA_MOVES_SEEDS"] ?? "") ?? 3
        for n in 0..<seeds {
            let seed = base &+ UInt64(n) &* 0x9E37_79B9
            print("PostgresMergedMovesTests seed \(seed)")
            // Taken every few statements, or seldom; merges patched (a
            // threshold of 1) or, past a tenth of the rows, fetched again.
            try Self.run(
                seed: seed, commitsWanted: 300, checkEvery: [3, 12, 40, 6][n % 4], incrementalThreshold: n % 4 == 3 ? 0.1 : 1, pollInterval: 0.025
            )
        }
    }
}

/// The reports and failures of a controller of ``MovedPhoto``.
final class MovedPhotoLog: FetchedResultsControllerDelegate {
    var reports = 0
    var errors: [ResultsError] = []
    func controller(_ controller: FetchedResultsController<MovedPhoto>, didChangeContentWith report: ChangeReport<MovedPhoto>) { reports += 1 }
    func controller(_ controller: FetchedResultsController<MovedPhoto>, didFailWith error: ResultsError) { errors.append(error) }
}
