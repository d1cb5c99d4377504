import Foundation
import Testing
import TesseraDiff
import TesseraResults
import TesseraResultsTestSupport
import TesseraSQLite
import TesseraTestSupport
import TesseraTestTraits

// Single-store (SQLite): another process (the sqlite3 command) writes the
// file while the controller polls data_version.

/// Another process (the `sqlite3` command) commits thousands of small
/// transactions while a controller follows it by polling: when the writer
/// stops, the controller equals a fresh query, and its reports chain from
/// the first result to the last.
@Suite("External writer: other processes' commits are never missed", .tags(.process), .ownThreads)
struct ExternalWriterTests {
    static let sqlite3 = "/usr/bin/sqlite3"
    static let rowCount = 20_000
    static let albums = 50
    static let request = FetchRequest(table: "photo", sortKeys: [SortKey("album"), SortKey("date")], sectionKey: "album")

    /// A database file of `rowCount` photos in `albums` albums.
    static func makeDatabase() throws -> (file: String, connection: Connection) {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("tessera-writer-\(UUID().uuidString).sqlite").path
        let connection = try Connection(path: file)
        try connection.write { db in
            try db.execute("CREATE TABLE photo (id INTEGER PRIMARY KEY, album INTEGER NOT NULL, date INTEGER NOT NULL, title TEXT)")
            try db.execute("""
                WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n WHERE x < \(rowCount))
                INSERT INTO photo SELECT x, x % \(albums), x * 7 % 1000, 'photo ' || x FROM n
                """)
        }
        return (file, connection)
    }

    /// A script of single-row transactions for the `sqlite3` command:
    /// updates that move a row within its album, ones that move it to
    /// another album, inserts and deletes; one in twenty rolled back. It
    /// pauses a millisecond every ten transactions, about 2,500 a second.
    /// With a `gate` (a path with no spaces or quotes, as the temporary
    /// folder's are), it stops half-way until that file exists, for two
    /// minutes at most, so that a failing test cannot leave it running.
    static func writerScript(transactions: Int, seed: UInt64, gate: String? = nil) -> String {
        var generator = SplitMix64(seed: seed)
        func random(_ range: Range<Int>) -> Int { Int.random(in: range, using: &generator) }
        var lines = ["PRAGMA busy_timeout = 10000;", "PRAGMA synchronous = NORMAL;"]
        for index in 0..<transactions {
            let change: String
            switch random(0..<100) {
            case 0..<55: change = "UPDATE photo SET date = \(random(0..<1000)) WHERE id = \(random(1..<rowCount))"
            case 55..<72: change = "UPDATE photo SET album = \(random(0..<albums)) WHERE id = \(random(1..<rowCount))"
            case 72..<88: change = "INSERT INTO photo (album, date, title) VALUES (\(random(0..<albums)), \(random(0..<1000)), 'new')"
            default: change = "DELETE FROM photo WHERE id = \(random(1..<rowCount))"
            }
            lines.append("BEGIN; \(change); \(random(0..<20) == 0 ? "ROLLBACK" : "COMMIT");")
            if index % 10 == 9 { lines.append(".shell sleep 0.001") }
            if let gate, index == transactions / 2 {
                lines.append(".shell i=0; while [ ! -e \(gate) ] && [ $i -lt 12000 ]; do sleep 0.01; i=$((i + 1)); done")
            }
        }
        return lines.joined(separator: "\n")
    }

    /// Starts the `sqlite3` command running the writer script on `file`
    /// (stopping half-way until `gate` exists, if given).
    static func startWriter(file: String, seed: UInt64, gate: String? = nil) throws -> Process {
        let script = FileManager.default.temporaryDirectory.appendingPathComponent("tessera-writer-\(UUID().uuidString).sql")
        // 6,000 transactions; fewer under a sanitizer (TESSERA_ORACLE_SCALE).
        try writerScript(transactions: oracleRounds(6_000, minimum: 1_500), seed: seed, gate: gate).write(to: script, atomically: true, encoding: .utf8)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: sqlite3)
        process.arguments = [file, ".read \(script.path)"]
        process.standardOutput = FileHandle.nullDevice
        process.terminationHandler = { _ in try? FileManager.default.removeItem(at: script) }
        try process.run()
        return process
    }

    /// A database of photos, a controller following it, and its reports.
    final class Fixture {
        let file: String
        let connection: Connection
        let controller: FetchedResultsController<Shot>
        let log = ReportLog<Shot>()
        let initial: Snapshot<ResultSection, Shot>

        init(changeLog: Bool = false) throws {
            (file, connection) = try ExternalWriterTests.makeDatabase()
            if changeLog { try connection.installChangeLog(on: "photo", columns: ["album", "date"]) }
            controller = try FetchedResultsController<Shot>(connection: connection, request: ExternalWriterTests.request)
            controller.delegate = log
            try controller.performFetch()
            initial = controller.snapshot
        }

        func removeFiles() {
            for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: file + suffix) }
        }

        /// Whether the controller shows what a fresh query reads now.
        func matchesFreshQuery() throws -> Bool {
            let fresh = try FetchedResultsController<Shot>(connection: connection, request: ExternalWriterTests.request)
            try fresh.performFetch()
            return controller.snapshot == fresh.snapshot
        }

        /// The controller equals a fresh query, and its reports chain: each
        /// starts where the one before ended, and replaying its changeset
        /// on its old snapshot gives its new one.
        func checkAgainstFreshQuery(seed: UInt64) throws {
            let fresh = try FetchedResultsController<Shot>(connection: connection, request: ExternalWriterTests.request)
            try fresh.performFetch()
            #expect(controller.lastError == nil, "seed \(seed)")
            #expect(controller.result.count == fresh.result.count, "seed \(seed): \(controller.result.count) rows against \(fresh.result.count)")
            #expect(controller.snapshot == fresh.snapshot, "seed \(seed)")
            #expect(!log.reports.isEmpty, "seed \(seed): no report at all")
            var previous = initial
            for (index, report) in log.reports.enumerated() {
                #expect(report.oldSnapshot == previous, "seed \(seed): report \(index) does not start where the one before ended")
                #expect(try previous.applying(report.changeset, takingValuesFrom: report.newSnapshot) == report.newSnapshot, "seed \(seed): report \(index)")
                previous = report.newSnapshot
            }
            #expect(previous == controller.snapshot, "seed \(seed)")
        }
    }

    /// Waits for the writer (stopping it if it still runs past the wait
    /// for it) and checks it succeeded.
    static func finish(_ writer: Process, seed: UInt64, waited: String) {
        let stopped = writer.isRunning
        if stopped { writer.terminate() }
        let ended = Result { try writer.exit(within: 120) }
        #expect((try? ended.get())?.succeeded == true, "seed \(seed): the writer \(stopped ? "was still running after \(waited), and was stopped" : "failed")")
    }

    @Test("checkForExternalChanges every 10 ms under a writer of about 2,500 commits a second: a final check leaves the controller equal to a fresh query; with a change log on the table, every check patches", arguments: [false, true])
    func pollingByHand(changeLog: Bool) throws {
        try #require(FileManager.default.isExecutableFile(atPath: Self.sqlite3), "the sqlite3 command is needed (.ci/run installs it)")
        let seed = testSeed(default: changeLog ? 0xE28 : 0xE27)
        print("ExternalWriterTests.pollingByHand(changeLog: \(changeLog)) seed \(seed)")
        let fixture = try Fixture(changeLog: changeLog)
        defer { fixture.removeFiles() }
        let (file, controller) = (fixture.file, fixture.controller)

        // The writer stops half-way until a check has found its commits:
        // however slow the controller (under ThreadSanitizer, say), one
        // check reads the table between two of its commits.
        let gate = file + "-gate"
        defer { try? FileManager.default.removeItem(atPath: gate) }
        let writer = try Self.startWriter(file: file, seed: seed, gate: gate)
        // Checks that found commits while the writer was still writing:
        // each one read the table between two of its commits.
        var checksAmidWrites = 0
        // Checks that fetched again rather than patch, though they cannot
        // have found more log entries than the touched limit: the entries
        // one check took are at most the log's end after it less the log's
        // end before the check before it (a check that falls further
        // behind, on a busy machine, fetches again as it should).
        var refetches = 0
        var refetchesPastTheLimit = 0
        func logEnd() throws -> Int64 {
            guard changeLog else { return 0 }
            return try fixture.connection.read { db in try db.rows("SELECT coalesce(max(seq), 0) FROM tessera_log_photo")[0][0].int64 ?? 0 }
        }
        var endBeforeTheLastCheck = try logEnd()
        // 12,000 rounds of a check and at least 10 ms (a limit against a
        // hang only, generous for a sanitizer build on a busy machine),
        // bounded in rounds, not by a clock: the writer waits half-way for
        // this loop's checks.
        try waitInRounds(12_000, sleepingEvery: .milliseconds(10)) {
            guard writer.isRunning else { return true }
            let before = try logEnd()
            let limit = max(1, Int(controller.incrementalThreshold * Double(controller.result.count)))
            let found = try controller.checkForExternalChanges()
            if found, controller.lastUpdateMethod == .refetch {
                if try logEnd() - endBeforeTheLastCheck > Int64(limit) { refetchesPastTheLimit += 1 } else { refetches += 1 }
            }
            endBeforeTheLastCheck = before
            if found, writer.isRunning {
                checksAmidWrites += 1
                if checksAmidWrites == 1 { _ = FileManager.default.createFile(atPath: gate, contents: nil) }
            }
            return false
        }
        Self.finish(writer, seed: seed, waited: "12,000 rounds of a check and 10 ms")
        try controller.checkForExternalChanges()
        #expect(checksAmidWrites >= 1, "seed \(seed): the writer finished before the controller caught it mid-way (\(checksAmidWrites) checks found commits while it wrote)")
        if changeLog {
            // Nothing in the writer's script needs a fetch: no schema
            // change, and the log keeps 100,000 entries (never trimmed
            // here); only a check that may have found more than the touched
            // limit (2,000 rows) fetches again.
            #expect(refetches == 0, "seed \(seed): \(refetches) of the checks fetched again within the touched limit (\(refetchesPastTheLimit) more past it)")
            print("ExternalWriterTests.pollingByHand seed \(seed): \(refetchesPastTheLimit) checks may have found more than the touched limit, and fetched again")
        }
        try fixture.checkAgainstFreshQuery(seed: seed)
    }

    @MainActor
    @Test("followExternalChanges every 10 ms under the same writer: once it stops, polling alone brings the controller to a fresh query")
    func following() async throws {
        try #require(FileManager.default.isExecutableFile(atPath: Self.sqlite3), "the sqlite3 command is needed (.ci/run installs it)")
        let seed = testSeed(default: 0xF011)
        let fixture = try Fixture()
        defer { fixture.removeFiles() }
        let (file, controller) = (fixture.file, fixture.controller)

        let polling = Task { @MainActor in await controller.followExternalChanges(every: .milliseconds(10)) }
        defer { polling.cancel() }
        let writer = try Self.startWriter(file: file, seed: seed)
        // A hang guard of the child writer only (generous for a sanitizer
        // build on a busy machine); its clock starts with the writer.
        let deadline = ContinuousClock.now + .seconds(120)
        while writer.isRunning && ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
        }
        Self.finish(writer, seed: seed, waited: "120 s")
        // Polling alone must catch up, however loaded the machine: no check
        // by hand here, and up to 2,400 rounds of at least 50 ms (bounded in
        // rounds, not by a clock) for the polls to reach the end.
        try await waitInRounds(2_400, every: .milliseconds(50)) { try fixture.matchesFreshQuery() }
        try fixture.checkAgainstFreshQuery(seed: seed)
    }
}
