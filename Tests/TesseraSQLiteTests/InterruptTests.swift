import Foundation
import Testing
import TesseraResults
import TesseraResultsTestSupport
import TesseraSQLite
import TesseraTestTraits

/// A query that counts to `limit` in SQLite's virtual machine: about 40 s
/// for 100 million on an idle machine, minutes on a busy one, so that an
/// interrupted statement shows as an error rather than a count.
func countingQuery(to limit: Int) -> String {
    "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < \(limit)) SELECT count(*) FROM c"
}

/// Interrupts a connection from a thread of its own (not Dispatch's or
/// Swift concurrency's shared threads, which the blocked queries of tests
/// running in parallel can all be holding), every 10 ms from `milliseconds`
/// on until ``stop()``: an interruption reaches only a statement that
/// runs, and on a busy machine the statement may start late, so one
/// interruption at a set time could come before it and be lost.
final class Interrupter: Sendable {
    private let stopping = DispatchSemaphore(value: 0)
    private let stopped = DispatchSemaphore(value: 0)

    init(_ connection: Connection, after milliseconds: UInt32) {
        Thread.detachNewThread { [stopping, stopped] in
            defer { stopped.signal() }
            if stopping.wait(timeout: .now() + .milliseconds(Int(milliseconds))) == .success { return }
            repeat { connection.interrupt() } while stopping.wait(timeout: .now() + .milliseconds(10)) == .timedOut
        }
    }

    /// Stops the interruptions; returns once none can come any more.
    func stop() {
        stopping.signal()
        stopped.wait()
    }
}

/// A limit against a statement that does not stop: unless ``finish()``
/// comes within `seconds` of ``start()`` (generous for a sanitizer build
/// on a busy machine), it interrupts the connection until it does, and
/// ``fired`` tells the test, which fails.
///
/// The clock starts when the slow statement is about to run, not when the
/// test begins: a task that waits for a thread of the cooperative pool
/// (all of them busy with other tests on a loaded machine) has not begun
/// its statement, and a guard counting from before would interrupt it as
/// soon as it started.
final class HangGuard: Sendable {
    let seconds: Int
    private let connection: Connection
    private let finished = DispatchSemaphore(value: 0)
    private let done = DispatchSemaphore(value: 0)
    private let state = PThreadMutex((started: false, fired: false))

    init(_ connection: Connection, seconds: Int = 120, startsNow: Bool = true) {
        self.seconds = seconds
        self.connection = connection
        if startsNow { start() }
    }

    /// Starts the clock; a second call does nothing.
    func start() {
        let first = state.withLock { state -> Bool in
            defer { state.started = true }
            return !state.started
        }
        guard first else { return }
        Thread.detachNewThread { [finished, done, state, connection, seconds] in
            defer { done.signal() }
            if finished.wait(timeout: .now() + .seconds(seconds)) == .success { return }
            state.withLock { $0.fired = true }
            repeat { connection.interrupt() } while finished.wait(timeout: .now() + .milliseconds(10)) == .timedOut
        }
    }

    /// The statement has ended; returns once the guard is done. A guard
    /// never started has nothing to end.
    func finish() {
        guard state.withLock({ $0.started }) else { return }
        finished.signal()
        done.wait()
    }

    /// Whether the guard had to end the statement.
    var fired: Bool { state.withLock { $0.fired } }
}

/// Seconds since `start`.
func seconds(since start: ContinuousClock.Instant) -> Double {
    let elapsed = ContinuousClock.now - start
    return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
}

@Suite("SQLite: interrupting a running statement", .ownThreads)
struct SQLiteInterruptTests {
    @Test("interrupt() from another thread stops a long query with an interrupted error; the connection goes on")
    func interruptFromAnotherThread() throws {
        let connection = try Connection(path: ":memory:")
        let interrupter = Interrupter(connection, after: 300)
        #expect {
            try connection.withDatabase { db in try db.rows(countingQuery(to: 100_000_000)) }
        } throws: { error in
            guard let error = error as? SQLiteError else { return false }
            return error.isInterrupted && error.message == "interrupted" && error.description.contains("interrupted")
        }
        interrupter.stop()
        #expect(try connection.withDatabase { db in try db.rows(countingQuery(to: 1000)) } == [[.integer(1000)]])
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
        // Only the interruption ends the wait with an interrupted error:
        // the timeout, a minute later, gives SQLITE_BUSY.
        let waiter = try Connection(path: path, busyTimeout: 60, journalModeWAL: false)
        try holder.withDatabase { db in try db.execute("BEGIN EXCLUSIVE") }
        defer { try? holder.withDatabase { db in try db.execute("ROLLBACK") } }
        waiter.withDatabase { db in
            #expect(db.busyTimeout == 60)
            let deadline = ContinuousClock.now + .milliseconds(300)
            #expect {
                try db.interrupting(when: { ContinuousClock.now >= deadline }) { db in try db.rows("SELECT count(*) FROM t") }
            } throws: { ($0 as? SQLiteError)?.isInterrupted == true }
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
    /// what the slow fetch threw, and its count after.
    struct Outcome: Sendable {
        var before: Int
        var error: ResultsError?
        var after: Int
    }

    /// A database whose requests below read `slowness.n`: with n = 1 they
    /// fetch at once; with 100 million, for about a minute; with
    /// ``endless``, for ever.
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

    /// A count no fetch reaches: only a cancellation (or a test's
    /// ``HangGuard``) ends a fetch that counts to it.
    static let endless: Int64 = 9_000_000_000_000_000_000

    /// Makes the requests slow (for ever, by default), through another
    /// connection (the controller's does not see it until it fetches).
    static func makeSlow(_ path: String, count: Int64 = endless) throws {
        try Connection(path: path).write { db in try db.execute("UPDATE slowness SET n = ?", [.integer(count)]) }
    }

    /// Runs `body` with a connection to a new database in a task, and
    /// cancels the task, from a thread of its own, 300 ms after `body`
    /// says its slow fetch (an endless one) starts. A ``HangGuard`` on the
    /// connection ends the fetch if the cancellation does not, and the
    /// test fails.
    static func cancelling(_ body: @escaping @Sendable (_ connection: Connection, _ path: String, _ slowFetchStarts: @Sendable () -> Void) throws -> Outcome) async throws -> Outcome {
        let (folder, path) = try makeDatabase()
        defer { try? FileManager.default.removeItem(at: folder) }
        let connection = try Connection(path: path)
        let guardian = HangGuard(connection, startsNow: false)
        let started = DispatchSemaphore(value: 0)
        let task = Task.detached {
            try body(connection, path) {
                guardian.start()
                started.signal()
            }
        }
        Thread.detachNewThread {
            started.wait()
            usleep(300_000)
            task.cancel()
        }
        let outcome = await task.result
        guardian.finish()
        #expect(!guardian.fired, "the fetch was still running \(guardian.seconds) s after its task was cancelled")
        return try outcome.get()
    }

    func expectCancelled(_ outcome: Outcome, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(outcome.error == .cancelled, sourceLocation: sourceLocation)
        #expect(outcome.before > 0 && outcome.after == outcome.before, "the result changed: \(outcome.before) → \(outcome.after)", sourceLocation: sourceLocation)
    }

    @Test("FetchedResultsController: cancelling the task stops performFetch() with .cancelled and keeps the result")
    func fetchedResultsController() async throws {
        let outcome = try await Self.cancelling { connection, path, slowFetchStarts in
            let controller = try FetchedResultsController<Photo>(
                connection: connection,
                request: FetchRequest(table: "photo", predicate: Self.slowPredicate, sortKeys: [SortKey("date")])
            )
            try controller.performFetch()
            let before = controller.snapshot.numberOfItems
            try Self.makeSlow(path)
            slowFetchStarts()
            do throws(ResultsError) {
                try controller.performFetch()
                return Outcome(before: before, error: nil, after: controller.snapshot.numberOfItems)
            } catch {
                return Outcome(before: before, error: error, after: controller.snapshot.numberOfItems)
            }
        }
        expectCancelled(outcome)
    }

    @Test("FetchedSetController: cancelling the task stops performFetch() with .cancelled and keeps the set")
    func fetchedSetController() async throws {
        let outcome = try await Self.cancelling { connection, path, slowFetchStarts in
            let controller = FetchedSetController<Photo>(
                connection: connection, request: SetRequest(table: "photo", predicate: Self.slowPredicate)
            )
            try controller.performFetch()
            let before = controller.count
            try Self.makeSlow(path)
            slowFetchStarts()
            do throws(ResultsError) {
                try controller.performFetch()
                return Outcome(before: before, error: nil, after: controller.count)
            } catch {
                return Outcome(before: before, error: error, after: controller.count)
            }
        }
        expectCancelled(outcome)
    }

    @Test("RelationalResultsController: cancelling the task stops performFetch() with .cancelled and keeps the result")
    func relationalResultsController() async throws {
        let outcome = try await Self.cancelling { connection, path, slowFetchStarts in
            let controller = RelationalResultsController<Album, AlbumPhoto>(
                connection: connection,
                parents: ParentRequest(table: "album", sortKeys: [SortKey("name")]),
                children: ChildRequest(table: "photo", foreignKeyColumn: "album_id", predicate: Self.slowPredicate, sortKeys: [SortKey("date")])
            )
            try controller.performFetch()
            let before = controller.snapshot.numberOfItems
            try Self.makeSlow(path)
            slowFetchStarts()
            do throws(ResultsError) {
                try controller.performFetch()
                return Outcome(before: before, error: nil, after: controller.snapshot.numberOfItems)
            } catch {
                return Outcome(before: before, error: error, after: controller.snapshot.numberOfItems)
            }
        }
        expectCancelled(outcome)
    }

    @Test("FetchedResultsController: cancelling the task stops a performFetch() waiting for another connection's lock, with .cancelled")
    func cancelWhileWaitingForALock() async throws {
        let (folder, path) = try Self.makeDatabase()
        defer { try? FileManager.default.removeItem(at: folder) }
        let holder = try Connection(path: path, journalModeWAL: false)
        try holder.withDatabase { db in try db.execute("PRAGMA journal_mode = DELETE") }
        // A busy timeout of an hour: only the cancellation (or the hang
        // guard) ends the wait.
        let connection = try Connection(path: path, busyTimeout: 3600, journalModeWAL: false)
        try holder.withDatabase { db in try db.execute("BEGIN EXCLUSIVE") }
        defer { try? holder.withDatabase { db in try db.execute("ROLLBACK") } }
        let guardian = HangGuard(connection, startsNow: false)
        let started = DispatchSemaphore(value: 0)
        let task = Task.detached { () -> ResultsError? in
            let controller = try FetchedResultsController<Photo>(connection: connection, request: FetchRequest(table: "photo"))
            guardian.start()
            started.signal()
            do throws(ResultsError) {
                try controller.performFetch()
                return nil
            } catch {
                return error
            }
        }
        Thread.detachNewThread {
            started.wait()
            usleep(300_000)
            task.cancel()
        }
        let error = try await task.value
        guardian.finish()
        #expect(error == .cancelled)
        #expect(!guardian.fired, "the fetch still waited for the lock \(guardian.seconds) s after its task was cancelled")
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
        // About a minute or more: a fetch the interruption missed ends
        // with a result, not an error.
        try Self.makeSlow(path, count: 100_000_000)
        let interrupter = Interrupter(connection, after: 300)
        #expect(throws: ResultsError.cancelled) { try controller.refresh() }
        interrupter.stop()
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
        let connection = try Connection(path: path)
        let guardian = HangGuard(connection, startsNow: false)
        let fetched = DispatchSemaphore(value: 0)
        let task = Task.detached { () -> (errors: [ResultsError], lastError: ResultsError?, count: Int) in
            let controller = try FetchedResultsController<Photo>(
                connection: connection,
                request: FetchRequest(table: "photo", predicate: Self.slowPredicate, sortKeys: [SortKey("date")])
            )
            let failures = Failures()
            controller.delegate = failures
            try controller.performFetch()
            // The next poll sees another connection's commit and re-fetches,
            // for ever, until the task is cancelled.
            try Self.makeSlow(path)
            guardian.start()
            fetched.signal()
            await controller.followExternalChanges(every: .milliseconds(10))
            return (failures.errors, controller.lastError, controller.snapshot.numberOfItems)
        }
        Thread.detachNewThread {
            fetched.wait()
            usleep(300_000)
            task.cancel()
        }
        let outcome = try await task.value
        guardian.finish()
        #expect(!guardian.fired, "polling still ran \(guardian.seconds) s after its task was cancelled")
        #expect(outcome.errors.isEmpty)
        #expect(outcome.lastError == nil)
        #expect(outcome.count == 3)
    }
}
