import Foundation
import Testing
import TesseraResults
import TesseraResultsTestSupport
import TesseraSQLite
import TesseraTestTraits

/// A query that counts to `limit` in SQLite's virtual machine: about a
/// minute for 100 million on a busy machine, far longer than any test
/// should wait, so only an interruption ends it early.
func countingQuery(to limit: Int) -> String {
    "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < \(limit)) SELECT count(*) FROM c"
}

/// Runs `body` on a thread of its own after `milliseconds`: not on
/// Dispatch's or Swift concurrency's shared threads, which the blocked
/// queries of tests running in parallel can all be holding.
func onAnotherThread(after milliseconds: UInt32, _ body: @escaping @Sendable () -> Void) {
    Thread.detachNewThread {
        usleep(milliseconds * 1000)
        body()
    }
}

/// Seconds since `start`.
func seconds(since start: ContinuousClock.Instant) -> Double {
    let elapsed = ContinuousClock.now - start
    return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
}

@Suite("SQLite: interrupting a running statement", .ownThreads)
struct SQLiteInterruptTests {
    @Test("interrupt() from another thread stops a long query at once with an interrupted error; the connection goes on")
    func interruptFromAnotherThread() throws {
        let connection = try Connection(path: ":memory:")
        onAnotherThread(after: 300) { connection.interrupt() }
        let start = ContinuousClock.now
        #expect {
            try connection.withDatabase { db in try db.rows(countingQuery(to: 100_000_000)) }
        } throws: { error in
            guard let error = error as? SQLiteError else { return false }
            return error.isInterrupted && error.message == "interrupted" && error.description.contains("interrupted")
        }
        // The count runs for minutes when nothing stops it: the error says
        // it was stopped, with no clock to ask on a busy machine.
        #expect(try connection.withDatabase { db in try db.rows(countingQuery(to: 1000)) } == [[.integer(1000)]], "the connection after \(seconds(since: start)) s")
    }

    @Test("interrupt() with nothing running does nothing to the statements that follow")
    func interruptWhenIdle() throws {
        let connection = try Connection(path: ":memory:")
        connection.interrupt()
        #expect(try connection.withDatabase { db in try db.rows(countingQuery(to: 100_000)) } == [[.integer(100_000)]])
    }

    @Test("interrupting(when:) stops statements while its condition holds, also when it held before they started; calls nest")
    func interruptingWhen() throws {
        let connection = try Connection(path: ":memory:")
        try connection.withDatabase { db throws in
            #expect {
                try db.interrupting(when: { true }) { db in try db.rows(countingQuery(to: 100_000_000)) }
            } throws: { ($0 as? SQLiteError)?.isInterrupted == true }

            #expect(try db.interrupting(when: { false }) { db in try db.rows(countingQuery(to: 100_000)) } == [[.integer(100_000)]])

            // The condition turns true while the statement runs.
            let deadline = ContinuousClock.now + .milliseconds(200)
            #expect {
                try db.interrupting(when: { ContinuousClock.now >= deadline }) { db in try db.rows(countingQuery(to: 100_000_000)) }
            } throws: { ($0 as? SQLiteError)?.isInterrupted == true }

            // Nested: the inner condition stops its statement, the outer one
            // lets the next statement run, and none is left behind.
            try db.interrupting(when: { false }) { db throws in
                #expect {
                    try db.interrupting(when: { true }) { db in try db.rows(countingQuery(to: 100_000_000)) }
                } throws: { ($0 as? SQLiteError)?.isInterrupted == true }
                #expect(try db.rows(countingQuery(to: 100_000)) == [[.integer(100_000)]])
            }
            #expect(try db.rows(countingQuery(to: 100_000)) == [[.integer(100_000)]])
        }
    }

    @Test("interrupting(when:) also ends a wait for another connection's lock, however long the busy timeout, with an interrupted error; without it the wait runs to the timeout")
    func interruptingEndsALockWait() throws {
        let path = try temporaryDirectory().appendingPathComponent("locked.sqlite").path
        // A rollback journal: an EXCLUSIVE lock keeps readers out.
        let holder = try Connection(path: path, journalModeWAL: false)
        try holder.withDatabase { db in try db.execute("CREATE TABLE t (v)") }
        let waiter = try Connection(path: path, busyTimeout: 60, journalModeWAL: false)
        try holder.withDatabase { db in try db.execute("BEGIN EXCLUSIVE") }
        defer { try? holder.withDatabase { db in try db.execute("ROLLBACK") } }
        waiter.withDatabase { db in
            #expect(db.busyTimeout == 60)
            let start = ContinuousClock.now
            let deadline = start + .milliseconds(300)
            #expect {
                try db.interrupting(when: { ContinuousClock.now >= deadline }) { db in try db.rows("SELECT count(*) FROM t") }
            } throws: { ($0 as? SQLiteError)?.isInterrupted == true }
            // (A wait that ran to its 60 s timeout would end with SQLITE_BUSY,
            // not interrupted.)
            // The next wait is a plain one: it runs to the timeout.
            db.busyTimeout = 0.2
            let plain = ContinuousClock.now
            #expect { try db.rows("SELECT count(*) FROM t") } throws: { ($0 as? SQLiteError)?.code == 5 }
            #expect(seconds(since: plain) >= 0.19)
        }
    }

    @Test("a statement's parameter count is its number of placeholders")
    func parameterCount() throws {
        let connection = try Connection(path: ":memory:")
        try connection.withDatabase { db throws in
            #expect(try db.prepare("SELECT 1").parameterCount == 0)
            #expect(try db.prepare("SELECT ?, ?, ?").parameterCount == 3)
            #expect(try db.prepare("SELECT ?2").parameterCount == 2)
        }
    }
}

@Suite("Results controllers: cancelling a fetch")
struct CancelledFetchTests {
    /// What a controller went through: its count before the slow fetch,
    /// what the slow fetch threw, its count after, and how long it took.
    struct Outcome: Sendable {
        var before: Int
        var error: ResultsError?
        var after: Int
        var seconds: Double
    }

    /// A database whose requests below read `slowness.n`: with n = 1 they
    /// fetch at once; with 100 million, for about a minute.
    static func makeDatabase() throws -> (folder: URL, path: String) {
        let folder = try temporaryDirectory()
        let path = folder.appendingPathComponent("library.sqlite").path
        let connection = try Connection(path: path)
        try connection.write { db in
            try db.execute("CREATE TABLE album (id INTEGER PRIMARY KEY, name TEXT)")
            try db.execute("CREATE TABLE photo (id INTEGER PRIMARY KEY, album TEXT, album_id INTEGER, date INTEGER, title TEXT)")
            try db.execute("CREATE TABLE slowness (n INTEGER)")
            try db.execute("INSERT INTO slowness VALUES (1)")
            try db.execute("INSERT INTO album VALUES (1, 'Paris'), (2, 'Rome')")
            try db.execute("INSERT INTO photo VALUES (1, 'Paris', 1, 10, 'Seine'), (2, 'Rome', 2, 20, 'Forum'), (3, 'Paris', 1, 30, 'Louvre')")
        }
        return (folder, path)
    }

    /// A predicate that takes as long as `slowness.n` says.
    static let slowPredicate =
        "(WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < (SELECT n FROM slowness)) SELECT count(*) FROM c) > 0"

    /// Makes the requests slow, through another connection (the
    /// controller's does not see it until it fetches).
    static func makeSlow(_ path: String) throws {
        try Connection(path: path).write { db in try db.execute("UPDATE slowness SET n = 100000000") }
    }

    /// Runs `body` in a task and cancels the task, from a thread of its
    /// own, 300 ms after `body` says its slow fetch starts.
    static func cancelling(_ body: @escaping @Sendable (_ path: String, _ slowFetchStarts: @Sendable () -> Void) throws -> Outcome) async throws -> Outcome {
        let (folder, path) = try makeDatabase()
        defer { try? FileManager.default.removeItem(at: folder) }
        let started = DispatchSemaphore(value: 0)
        let task = Task.detached { try body(path) { started.signal() } }
        Thread.detachNewThread {
            started.wait()
            usleep(300_000)
            task.cancel()
        }
        return try await task.value
    }

    /// Fetches, makes the requests slow, says the slow fetch starts, and
    /// fetches again: the second fetch's outcome, with `count` (the
    /// result's size) before and after it.
    static func fetchAgainSlowly(
        _ path: String, _ slowFetchStarts: () -> Void, fetch: () throws(ResultsError) -> Void, count: () -> Int
    ) throws -> Outcome {
        try fetch()
        let before = count()
        try makeSlow(path)
        slowFetchStarts()
        let start = ContinuousClock.now
        do throws(ResultsError) {
            try fetch()
            return Outcome(before: before, error: nil, after: count(), seconds: seconds(since: start))
        } catch {
            return Outcome(before: before, error: error, after: count(), seconds: seconds(since: start))
        }
    }

    func expectCancelled(_ outcome: Outcome, sourceLocation: SourceLocation = #_sourceLocation) {
        // The slow fetch runs for minutes when nothing stops it: the error
        // says cancelling stopped it, with no clock to ask on a busy machine.
        #expect(outcome.error == .cancelled, "the cancelled fetch ran \(outcome.seconds) s", sourceLocation: sourceLocation)
        #expect(outcome.before > 0 && outcome.after == outcome.before, "the result changed: \(outcome.before) → \(outcome.after)", sourceLocation: sourceLocation)
    }

    @Test("FetchedResultsController: cancelling the task stops performFetch() with .cancelled and keeps the result")
    func fetchedResultsController() async throws {
        let outcome = try await Self.cancelling { path, slowFetchStarts in
            let controller = try FetchedResultsController<Photo>(
                connection: try Connection(path: path),
                request: FetchRequest(table: "photo", predicate: Self.slowPredicate, sortKeys: [SortKey("date")])
            )
            return try Self.fetchAgainSlowly(path, slowFetchStarts, fetch: { () throws(ResultsError) in try controller.performFetch() }, count: { controller.snapshot.numberOfItems })
        }
        expectCancelled(outcome)
    }

    @Test("FetchedSetController: cancelling the task stops performFetch() with .cancelled and keeps the set")
    func fetchedSetController() async throws {
        let outcome = try await Self.cancelling { path, slowFetchStarts in
            let controller = FetchedSetController<Photo>(
                connection: try Connection(path: path), request: SetRequest(table: "photo", predicate: Self.slowPredicate)
            )
            return try Self.fetchAgainSlowly(path, slowFetchStarts, fetch: { () throws(ResultsError) in try controller.performFetch() }, count: { controller.count })
        }
        expectCancelled(outcome)
    }

    @Test("RelationalResultsController: cancelling the task stops performFetch() with .cancelled and keeps the result")
    func relationalResultsController() async throws {
        let outcome = try await Self.cancelling { path, slowFetchStarts in
            let controller = RelationalResultsController<Album, AlbumPhoto>(
                connection: try Connection(path: path),
                parents: ParentRequest(table: "album", sortKeys: [SortKey("name")]),
                children: ChildRequest(table: "photo", foreignKeyColumn: "album_id", predicate: Self.slowPredicate, sortKeys: [SortKey("date")])
            )
            return try Self.fetchAgainSlowly(path, slowFetchStarts, fetch: { () throws(ResultsError) in try controller.performFetch() }, count: { controller.snapshot.numberOfItems })
        }
        expectCancelled(outcome)
    }

    @Test("FetchedResultsController: cancelling the task stops a performFetch() waiting for another connection's lock, with .cancelled")
    func cancelWhileWaitingForALock() async throws {
        let (folder, path) = try Self.makeDatabase()
        defer { try? FileManager.default.removeItem(at: folder) }
        let holder = try Connection(path: path, journalModeWAL: false)
        try holder.withDatabase { db in try db.execute("PRAGMA journal_mode = DELETE") }
        let connection = try Connection(path: path, busyTimeout: 60, journalModeWAL: false)
        try holder.withDatabase { db in try db.execute("BEGIN EXCLUSIVE") }
        defer { try? holder.withDatabase { db in try db.execute("ROLLBACK") } }
        let started = DispatchSemaphore(value: 0)
        let task = Task.detached { () -> (ResultsError?, Double) in
            let controller = try FetchedResultsController<Photo>(connection: connection, request: FetchRequest(table: "photo"))
            started.signal()
            let start = ContinuousClock.now
            do throws(ResultsError) {
                try controller.performFetch()
                return (nil, seconds(since: start))
            } catch {
                return (error, seconds(since: start))
            }
        }
        Thread.detachNewThread {
            started.wait()
            usleep(300_000)
            task.cancel()
        }
        let (error, elapsed) = try await task.value
        // A wait that ran to its 60 s busy timeout would end busy, not
        // cancelled.
        #expect(error == .cancelled, "after \(elapsed) s")
    }

    @Test("a task cancelled before performFetch() fetches nothing: .cancelled")
    func cancelledBeforeTheFetch() async throws {
        let (folder, path) = try Self.makeDatabase()
        defer { try? FileManager.default.removeItem(at: folder) }
        let error = await Task.detached { () -> ResultsError? in
            withUnsafeCurrentTask { $0?.cancel() }
            do {
                let controller = try FetchedResultsController<Photo>(connection: try Connection(path: path), request: FetchRequest(table: "photo"))
                try controller.performFetch()
                return nil
            } catch let error as ResultsError {
                return error
            } catch {
                return .database(SQLiteError(code: 1, message: "\(error)"))
            }
        }.value
        #expect(error == .cancelled)
    }

    @Test("Connection.interrupt() from another thread cancels a running performFetch() the same way")
    func interruptCancelsAFetch() throws {
        let (folder, path) = try Self.makeDatabase()
        defer { try? FileManager.default.removeItem(at: folder) }
        let connection = try Connection(path: path)
        let controller = try FetchedResultsController<Photo>(
            connection: connection, request: FetchRequest(table: "photo", predicate: Self.slowPredicate, sortKeys: [SortKey("date")])
        )
        try controller.performFetch()
        #expect(controller.snapshot.numberOfItems == 3)
        try Self.makeSlow(path)
        onAnotherThread(after: 300) { connection.interrupt() }
        // The slow refresh runs for minutes when nothing stops it.
        #expect(throws: ResultsError.cancelled) { try controller.refresh() }
        #expect(controller.snapshot.numberOfItems == 3)
        #expect(ResultsError.cancelled.description.contains("cancelled"))
    }

    @Test("Cancelling followExternalChanges() while its re-fetch runs stops polling quietly: no didFailWith, no lastError, the result kept")
    func cancellingPollingDuringARefetchIsNoFailure() async throws {
        let (folder, path) = try Self.makeDatabase()
        defer { try? FileManager.default.removeItem(at: folder) }
        final class Failures: FetchedResultsControllerDelegate {
            var errors: [ResultsError] = []
            func controller(_ controller: FetchedResultsController<Photo>, didFailWith error: ResultsError) { errors.append(error) }
        }
        let fetched = DispatchSemaphore(value: 0)
        let task = Task.detached { () -> (errors: [ResultsError], lastError: ResultsError?, count: Int, seconds: Double) in
            let controller = try FetchedResultsController<Photo>(
                connection: try Connection(path: path),
                request: FetchRequest(table: "photo", predicate: Self.slowPredicate, sortKeys: [SortKey("date")])
            )
            let failures = Failures()
            controller.delegate = failures
            try controller.performFetch()
            // The next poll sees another connection's commit and re-fetches,
            // slowly, until the task is cancelled.
            try Self.makeSlow(path)
            fetched.signal()
            let start = ContinuousClock.now
            await controller.followExternalChanges(every: .milliseconds(10))
            return (failures.errors, controller.lastError, controller.snapshot.numberOfItems, seconds(since: start))
        }
        Thread.detachNewThread {
            fetched.wait()
            usleep(300_000)
            task.cancel()
        }
        let outcome = try await task.value
        // Polling ends only when cancelled: that it returned is the check.
        #expect(outcome.errors.isEmpty, "polling ran \(outcome.seconds) s")
        #expect(outcome.lastError == nil)
        #expect(outcome.count == 3)
    }
}
