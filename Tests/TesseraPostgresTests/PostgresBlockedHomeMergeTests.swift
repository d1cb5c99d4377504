import Foundation
import Synchronization
import Testing
import TesseraResults
import TesseraResultsTestSupport
import TesseraSQLite
import TesseraTestSupport
import TesseraTestTraits
@testable import TesseraPostgres
#if canImport(Glibc)
import Glibc
#endif

/// The reports and failures of a follower, checked as they come: a report
/// whose result holds an id twice is noted.
final class TitledPhotoLog: FetchedResultsControllerDelegate {
    var reports = 0
    var patched = 0
    var errors: [ResultsError] = []
    var duplicates: [String] = []

    func controller(_ controller: FetchedResultsController<TitledPhoto>, didChangeContentWith report: ChangeReport<TitledPhoto>) {
        reports += 1
        if controller.lastUpdateMethod == .incremental { patched += 1 }
        var seen = Set<Int64>()
        for id in report.newSnapshot.allItems.map(\.id) where !seen.insert(id).inserted {
            duplicates.append("report \(reports) (\(report.changeset.changeCount) changes): id \(id) twice")
        }
    }

    func controller(_ controller: FetchedResultsController<TitledPhoto>, didFailWith error: ResultsError) { errors.append(error) }
}

/// A follower on an actor whose executor the test holds now and then, so
/// that the commits merge while it waits.
actor HeldHome {
    let executor: ThreadExecutor
    let controller: FetchedResultsController<TitledPhoto>
    let log = TitledPhotoLog()

    nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

    init(store: PostgresStore, request: FetchRequest, executor: ThreadExecutor) throws {
        self.executor = executor
        controller = try FetchedResultsController<TitledPhoto>(store: store, request: request)
    }

    func start() throws {
        controller.delegate = log
        controller.incrementalThreshold = .infinity
        try controller.performFetch()
    }

    struct State: Sendable {
        var ids: [Int64]
        var records: [TitledPhoto]
        var reports: Int
        var patched: Int
        var errors: [String]
        var duplicates: [String]
        var lastError: String?
    }

    func state() -> State {
        State(
            ids: controller.snapshot.allItems.map(\.id), records: controller.snapshot.allItems, reports: log.reports, patched: log.patched,
            errors: log.errors.map { "\($0)" }, duplicates: log.duplicates, lastError: controller.lastError.map { "\($0)" }
        )
    }
}

/// Three writers' interleaved transactions (TRUNCATE and a fresh set of
/// rows reusing keys, a key deleted and inserted again, keys swapped,
/// titles moved across the predicate, savepoints and transactions rolled
/// back) under a follower with a predicate and a descending sort, patched
/// whatever the share of rows touched, on an actor held now and then.
@Suite("PostgreSQL: a follower on a held actor takes merged commits exactly", .tags(.postgres), .ownThreads)
struct PostgresBlockedHomeMergeTests {
    static let request = FetchRequest(
        table: "photo", predicate: "title < ?", arguments: [.text("m")], sortKeys: [SortKey("taken", ascending: false)]
    )
    static let freshSQL = "SELECT id, title, taken FROM photo WHERE title < 'm' ORDER BY taken DESC, id ASC"

    /// What the writers' thread tells the test, and what the test answers.
    final class Progress: @unchecked Sendable {
        // Guarded by `lock`.
        private let lock = NSCondition()
        private var expected: [TitledPhoto]?
        private var checked = false
        private var done = false
        private var stopping = false
        private var failure: String?
        private var commits = 0
        private var truncates = 0

        /// The writers are paused with `rows` committed; waits until the
        /// test has compared the follower with them.
        func paused(at rows: [TitledPhoto]) {
            lock.lock()
            expected = rows
            checked = false
            while !checked && !stopping { lock.wait() }
            lock.unlock()
        }

        /// Asks the writers to stop at their next step.
        func stop() {
            lock.withLock {
                stopping = true
                lock.signal()
            }
        }

        var isStopping: Bool { lock.withLock { stopping } }
        var failed: String? { lock.withLock { failure } }

        /// The rows of the pause under way, if the writers are paused.
        func pause() -> [TitledPhoto]? { lock.withLock { checked ? nil : expected } }

        func resume() {
            lock.withLock {
                expected = nil
                checked = true
                lock.signal()
            }
        }

        func finish(_ failure: String?) {
            lock.withLock {
                self.failure = failure
                done = true
            }
        }

        var isDone: Bool { lock.withLock { done } }
        func counts() -> (commits: Int, truncates: Int) { lock.withLock { (commits, truncates) } }
        func count(commit: Bool, truncate: Bool) {
            lock.withLock {
                if commit { commits += 1 }
                if truncate { truncates += 1 }
            }
        }
    }

    /// The writers: runs on a thread of its own (its sessions block).
    static func write(url: String, seed: UInt64, commitsWanted: Int, executor: ThreadExecutor, progress: Progress) {
        var random = SplitMix64(seed: seed)
        func chance(_ percent: UInt64) -> Bool { random.next() % 100 < percent }
        func pick<T>(_ values: [T]) -> T? { values.isEmpty ? nil : values[Int(random.next() % UInt64(values.count))] }
        do {
            let checker = try OracleServer.session(url, applicationName: "oracle-checker")
            defer { checker.close() }
            let writers = try (0..<3).map { _ in try OracleServer.session(url) }
            defer { for writer in writers { writer.close() } }
            for writer in writers { try writer.execute("SET lock_timeout = '10s'", request: "set the lock timeout") }
            // Each writer owns the ids ≡ its number (mod 3), so that open
            // transactions never wait for each other's rows.
            var committed = (0..<3).map { c in Set((1...240).filter { $0 % 3 == c }.map(Int64.init)) }
            var working: [Set<Int64>?] = [nil, nil, nil]
            var holding = 0
            var pauseAt = 40

            func title() -> DatabaseValue {
                chance(8) ? .null : .text(String("afkmqz".randomElement(using: &random)!) + " \(random.next() % 100)")
            }
            func taken() -> DatabaseValue { chance(5) ? .null : .integer(Int64(1_700_000_000 + random.next() % 400)) }
            func insert(_ c: Int, _ id: Int64) throws {
                try writers[c].query(
                    "INSERT INTO photo VALUES ($1, $2, to_timestamp($3::float8))", [.integer(id), title(), taken()], request: "insert"
                )
            }
            func commitAll() throws {
                for c in 0..<3 where working[c] != nil {
                    try writers[c].execute("COMMIT", request: "commit")
                    committed[c] = working[c]!
                    working[c] = nil
                    progress.count(commit: true, truncate: false)
                }
            }

            while progress.counts().commits < commitsWanted && !progress.isStopping {
                let c = Int(random.next() % 3)
                if chance(4) {
                    // TRUNCATE and a fresh set of rows, some with the keys
                    // of before: every other transaction ends first (it
                    // waits for them), and only this writer's keys come
                    // back, so that the others' sets stay theirs.
                    try commitAll()
                    let fresh = (1...240).filter { $0 % 3 == c && random.next() % 3 != 0 }.map(Int64.init)
                    try writers[c].execute("BEGIN", "TRUNCATE photo", request: "truncate")
                    for id in fresh { try insert(c, id) }
                    try writers[c].execute("COMMIT", request: "commit a truncate")
                    committed = (0..<3).map { $0 == c ? Set(fresh) : [] }
                    progress.count(commit: true, truncate: true)
                } else {
                    if working[c] == nil {
                        try writers[c].execute("BEGIN", request: "begin")
                        working[c] = committed[c]
                    }
                    let savepoint = chance(10)
                    if savepoint { try writers[c].execute("SAVEPOINT s", request: "savepoint") }
                    let before = working[c]!
                    for _ in 0..<(1 + Int(random.next() % 4)) {
                        let owned = working[c]!.sorted()
                        switch random.next() % 12 {
                        case 0, 1:
                            let id = Int64(1 + random.next() % 80) * 3 + Int64(c)
                            guard !working[c]!.contains(id) else { continue }
                            try insert(c, id)
                            working[c]!.insert(id)
                        case 2, 3:
                            guard let id = pick(owned) else { continue }
                            try writers[c].query("UPDATE photo SET taken = to_timestamp($1::float8) WHERE id = $2", [taken(), .integer(id)], request: "update taken")
                        case 4, 5:
                            guard let id = pick(owned) else { continue }
                            try writers[c].query("UPDATE photo SET title = $1 WHERE id = $2", [title(), .integer(id)], request: "update title")
                        case 6:
                            guard let id = pick(owned) else { continue }
                            try writers[c].query("DELETE FROM photo WHERE id = $1", [.integer(id)], request: "delete")
                            working[c]!.remove(id)
                        case 7, 8:
                            // Deleted and inserted again, with other values.
                            guard let id = pick(owned) else { continue }
                            try writers[c].query("DELETE FROM photo WHERE id = $1", [.integer(id)], request: "delete")
                            try insert(c, id)
                        case 9:
                            // Two keys swapped, through a third.
                            guard let a = pick(owned), let b = pick(owned), a != b else { continue }
                            let spare = -a
                            try writers[c].query("UPDATE photo SET id = $1 WHERE id = $2", [.integer(spare), .integer(a)], request: "swap")
                            try writers[c].query("UPDATE photo SET id = $1 WHERE id = $2", [.integer(a), .integer(b)], request: "swap")
                            try writers[c].query("UPDATE photo SET id = $1 WHERE id = $2", [.integer(b), .integer(spare)], request: "swap")
                        case 10:
                            // A key changes to one that is free.
                            guard let id = pick(owned) else { continue }
                            let newID = Int64(1 + random.next() % 80) * 3 + Int64(c)
                            guard !working[c]!.contains(newID) else { continue }
                            try writers[c].query("UPDATE photo SET id = $1 WHERE id = $2", [.integer(newID), .integer(id)], request: "change a key")
                            working[c]!.remove(id)
                            working[c]!.insert(newID)
                        default:
                            // Many rows at once.
                            try writers[c].query(
                                "UPDATE photo SET taken = taken + interval '1 second' WHERE id % 3 = $1 AND id % 7 = $2",
                                [.integer(Int64(c)), .integer(Int64(random.next() % 7))], request: "update many"
                            )
                        }
                    }
                    if savepoint {
                        try writers[c].execute("ROLLBACK TO SAVEPOINT s", request: "rollback to savepoint")
                        working[c] = before
                    }
                    switch random.next() % 10 {
                    case 0:
                        try writers[c].execute("ROLLBACK", request: "rollback")
                        working[c] = nil
                    case 1...6:
                        try writers[c].execute("COMMIT", request: "commit")
                        committed[c] = working[c]!
                        working[c] = nil
                        progress.count(commit: true, truncate: false)
                    default:
                        break
                    }
                }
                // The follower's actor is held for a while, now and then:
                // what commits meanwhile merges into one delivery.
                if holding > 0 {
                    holding -= 1
                    if holding == 0 { executor.hold(false) }
                } else if chance(15) {
                    holding = 1 + Int(random.next() % 30)
                    executor.hold(true)
                }
                if progress.counts().commits >= pauseAt {
                    pauseAt += 40
                    try commitAll()
                    executor.hold(false)
                    holding = 0
                    let rows = try checker.query(freshSQL, request: "fresh query").rows.map(TitledPhoto.init(values:))
                    progress.paused(at: rows)
                }
            }
            if !progress.isStopping {
                try commitAll()
                executor.hold(false)
                progress.paused(at: try checker.query(freshSQL, request: "fresh query").rows.map(TitledPhoto.init(values:)))
            }
            executor.hold(false)
            progress.finish(nil)
        } catch {
            executor.hold(false)
            progress.finish("the writers failed: \(error)")
        }
    }

    /// One seed's run; whether it went through.
    static func run(seed: UInt64, commitsWanted: Int) async throws -> Bool {
        let url = try OracleServer.freshDatabase("heldhome")
        try OracleServer.run(
            url, "CREATE TABLE photo (id bigint PRIMARY KEY, title text, taken timestamptz)",
            """
            INSERT INTO photo SELECT g, chr(97 + (g * 7) % 26) || ' ' || g, to_timestamp(1700000000 + (g * 37) % 400)
            FROM generate_series(1, 240) g
            """
        )
        let store = try PostgresStore(url: url)
        store.pollInterval = 0.005
        let executor = ThreadExecutor()
        defer {
            store.close()
            executor.stop()
        }
        let home = try HeldHome(store: store, request: request, executor: executor)
        try await home.start()
        let progress = Progress()
        let thread = Thread { write(url: url, seed: seed, commitsWanted: commitsWanted, executor: executor, progress: progress) }
        thread.start()

        var pauses = 0
        var wrong = false
        while !progress.isDone {
            guard let expected = progress.pause() else {
                let state = await home.state()
                if let duplicate = state.duplicates.first {
                    Issue.record("seed \(seed): \(duplicate)")
                    wrong = true
                    break
                }
                try await Task.sleep(for: .milliseconds(2))
                continue
            }
            pauses += 1
            // A limit against a hang only, counted in rounds rather than
            // time (the follower is bound to settle; while other tests hold
            // the cooperative pool, neither it nor this loop runs): 24,000
            // rounds of at least 5 ms.
            var state = await home.state()
            var rounds = 0
            while state.records != expected && rounds < 24_000 {
                rounds += 1
                try await Task.sleep(for: .milliseconds(5))
                state = await home.state()
            }
            let counts = progress.counts()
            let comment = "seed \(seed), pause \(pauses) (\(counts.commits) commits, \(counts.truncates) TRUNCATEs; \(state.reports) reports, \(state.patched) patched)"
            if let duplicate = state.duplicates.first { Issue.record("\(comment): \(duplicate)") }
            if Set(state.ids).count != state.ids.count { Issue.record("\(comment): the result holds an id twice") }
            if !state.errors.isEmpty { Issue.record("\(comment): the follower failed: \(state.errors.prefix(3))") }
            if state.records != expected {
                let extra = Set(state.records).subtracting(expected).sorted { $0.id < $1.id }
                let missing = Set(expected).subtracting(state.records).sorted { $0.id < $1.id }
                Issue.record("\(comment): after waiting 24,000 rounds of 5 ms, the follower differs from a fresh query (\(state.ids.count) rows against \(expected.count)); it has \(extra), not \(missing)")
            }
            wrong = state.records != expected || !state.duplicates.isEmpty || !state.errors.isEmpty
            if wrong { progress.stop() }
            progress.resume()
            if wrong { break }
        }
        // The writers' thread ends before the store closes.
        progress.stop()
        while !progress.isDone { try await Task.sleep(for: .milliseconds(5)) }
        if let failure = progress.failed { Issue.record("seed \(seed): \(failure)") }
        let state = await home.state()
        let counts = progress.counts()
        print("PostgresBlockedHomeMergeTests seed \(seed): \(counts.commits) commits, \(counts.truncates) TRUNCATEs, \(state.reports) reports (\(state.patched) patched)")
        return progress.failed == nil && !wrong
    }

    @Test("TRUNCATE and a fresh set, keys deleted and inserted again, keys swapped, titles across a predicate, merged while the follower's actor is held: no report holds an id twice, and at each pause the follower equals a fresh query")
    func mergedCommitsOnAHeldActor() async throws {
        let base = testSeed(default: 0x27_0007)
        let seeds = Int(ProcessInfo.processInfo.environment["TESSERA_HELD_HOME_SEEDS"] ?? "") ?? 1
        for n in 0..<seeds {
            let seed = base &+ UInt64(n) &* 0x9E37_79B9
            print("PostgresBlockedHomeMergeTests seed \(seed)")
            guard try await Self.run(seed: seed, commitsWanted: 200) else { return }
        }
    }
}

/// A fetch that begins while the change feed's round runs may take its
/// snapshot after the round's: the source the fetch starts must not go
/// back to the round's state, which is told by comparing the snapshots.
@Suite("PostgreSQL: which of two snapshots is later", .cpuBound)
struct PostgresSnapshotOrderTests {
    @Test("Snapshots: one taken later sees everything an earlier one sees; one taken earlier, or with a transaction still in progress that the other saw end, does not")
    func snapshotOrder() throws {
        func snapshot(_ text: String) throws -> PostgresXidSnapshot { try #require(PostgresXidSnapshot(text)) }
        let earlier = try snapshot("100:105:100,102")
        #expect(try snapshot("100:105:100,102").seesEverything(seenBy: earlier))
        #expect(try snapshot("102:110:102,107").seesEverything(seenBy: earlier), "100 ended, 102 still runs: nothing the earlier saw is missed")
        #expect(try snapshot("110:110:").seesEverything(seenBy: earlier))
        #expect(!earlier.seesEverything(seenBy: try snapshot("110:110:")), "104 committed before the later one, after the earlier one")
        #expect(!(try snapshot("100:105:100,101,102")).seesEverything(seenBy: earlier), "101 in progress here, ended for the other")
        #expect(try snapshot("100:104:100,102").seesEverything(seenBy: try snapshot("100:106:100,102,104,105")),
                "what lies between the two xmax was in progress for the other")
        #expect(!(try snapshot("100:104:100,102")).seesEverything(seenBy: try snapshot("100:106:100,102,105")), "104 ended for the other")
    }
}
