import Foundation
import Testing
import TesseraPostgresTestSupport
import TesseraTestSupport
import TesseraSQLite
import TesseraTestTraits
@testable import TesseraPostgres
#if canImport(Glibc)
import Glibc
#endif

/// A session the server ends (`pg_terminate_backend`) while queries are
/// sent on it: every query is answered, with rows or with an error; none
/// waits for ever. (A query written as the connection closes is dropped
/// by the driver, its answer never coming: a store's thread waiting on it
/// stopped following commits for good.)
@Suite("PostgreSQL: a session ended by the server answers every query", .tags(.postgres), .ownThreads)
struct PostgresSessionEndTests {
    @Test("queries sent while another session ends this one: each returns rows or an error within seconds", arguments: 0..<4)
    func queriesRaceTheEnd(batch: Int) throws {
        let url = try OracleServer.freshDatabase("sessionend\(batch)")
        let killer = try OracleServer.session(url, applicationName: "oracle-killer")
        defer { killer.close() }
        let seed = testSeed(default: 0x5E55 + UInt64(batch))
        var generator = SplitMix64(seed: seed)
        for attempt in 0..<100 {
            let session = try OracleServer.session(url, applicationName: "oracle-victim-\(attempt)")
            defer { session.close() }
            let pid = try session.query("SELECT pg_backend_pid()::int8", request: "pid").rows.first?.first?.int64 ?? 0
            // The victim sends queries back to back on a thread of its
            // own until one fails; the test waits for it, bounded.
            let finished = DispatchSemaphore(value: 0)
            let outcome = PThreadMutex<String?>(nil)
            let victim = Thread {
                var answered = 0
                while true {
                    do throws(PostgresStoreError) {
                        _ = try session.query("SELECT 1", request: "a query as the session ends")
                        answered += 1
                    } catch {
                        // And one more at once, on a connection that may
                        // still be closing.
                        let again = (try? session.query("SELECT 1", request: "a query just after the end")) == nil
                        outcome.withLock { $0 = "failed after \(answered) answers: \(error.kind), and again: \(again)" }
                        break
                    }
                }
                finished.signal()
            }
            victim.start()
            usleep(UInt32.random(in: 0..<2_000, using: &generator))
            _ = try killer.query("SELECT pg_terminate_backend($1::int8::int)", [.integer(pid)], request: "end the victim")
            // A limit against a hang (the bug this test guards against),
            // generous for a sanitizer build on a busy machine.
            let answered = finished.wait(timeout: .now() + 120) == .success
            #expect(answered, "seed \(seed), attempt \(attempt): a query on the ended session was not answered within 120 s")
            if !answered { return }
            #expect(outcome.withLock { $0 } != nil, "seed \(seed), attempt \(attempt)")
        }
    }
}

/// A server that stops answering without closing anything (its process
/// stopped, as on a machine that froze or behind a network that went
/// silent): a read fails within the store's round-trip limit and closes
/// its session, and the store reads again on a new session once the
/// server answers; a connection the server never answers fails within the
/// connect limit.
@Suite("PostgreSQL: a server that stops answering", .tags(.postgres), .ownThreads)
struct PostgresSilentServerTests {
    /// Stops a backend (`SIGSTOP`) and returns what lets it go on. It goes
    /// on after 60 s in any case: a read without a bound then succeeds,
    /// and its test fails instead of hanging.
    static func stop(_ pid: pid_t) throws -> @Sendable () -> Void {
        try #require(Glibc.kill(pid, 0) == 0, "the test stops the server's backend: run it on the server's machine, as root or the server's user")
        #expect(Glibc.kill(pid, SIGSTOP) == 0)
        let resume: @Sendable () -> Void = { _ = Glibc.kill(pid, SIGCONT) }
        DispatchQueue.global().asyncAfter(deadline: .now() + 60, execute: resume)
        return resume
    }

    @Test("a read from a stopped backend fails within the store's round-trip limit, naming the read; the next read uses a new session")
    func stoppedBackend() throws {
        let url = try OracleServer.freshDatabase("silent")
        let store = try PostgresStore(url: url, applicationName: "tessera silent test", roundTripLimit: .seconds(2))
        defer { store.close() }
        let pid = pid_t(try #require(try store.rows("SELECT pg_backend_pid()::int8", request: "read the pid").first?.first?.int64))
        let resume = try Self.stop(pid)
        defer { resume() }
        #expect {
            try store.rows("SELECT 1", request: "read while the server is stopped")
        } throws: { error in
            guard let error = error as? PostgresStoreError else { return false }
            return error.kind == .serverGone && "\(error)".contains("did not answer within 2.0 seconds") && "\(error)".contains("read while the server is stopped")
        }
        resume()
        #expect(try store.rows("SELECT 41 + 1", request: "read again").first?.first == .integer(42))
        #expect(try store.rows("SELECT pg_backend_pid()::int8", request: "read the pid").first?.first?.int64 != Int64(pid))
    }

    @Test("every statement of a session is bounded: a fetch's or the change feed's read of a stopped backend fails within the limit")
    func everyStatementBounded() throws {
        let url = try OracleServer.freshDatabase("silentsession")
        let session = try PostgresSession.connect(PostgresEndpoint(url: url, roundTripLimit: .seconds(2)), applicationName: "tessera silent test")
        defer { session.close() }
        let pid = pid_t(try #require(try session.query("SELECT pg_backend_pid()::int8", request: "read the pid").rows.first?.first?.int64))
        let resume = try Self.stop(pid)
        defer { resume() }
        #expect {
            try session.query("SELECT 1", request: "read the rows")
        } throws: { error in
            guard let error = error as? PostgresStoreError else { return false }
            return error.kind == .serverGone && "\(error)".contains("did not answer within 2.0 seconds")
        }
        #expect(session.isClosed || (try? session.query("SELECT 1", request: "read again")) == nil)
    }

    @Test("a port that accepts connections and never answers: connecting fails after the URL's connect_timeout, naming the server, for a store and for a replication stream")
    func silentListener() throws {
        // The kernel completes the handshake; nothing ever answers the
        // startup message.
        let listener = try SilentListener()
        defer { listener.close() }
        let url = "postgres://app@127.0.0.1:\(listener.port)/photos?connect_timeout=1"
        #expect {
            try PostgresStore(url: url, applicationName: "tessera silent test")
        } throws: { error in
            guard let error = error as? PostgresStoreError else { return false }
            // The driver's own timeout, set from the URL, or the store's
            // backstop 5 s behind it (both wait on the event loop, which
            // a busy test process may hold up past the first).
            let text = "\(error)"
            return error.kind == .connection && (text.contains("timeout (1 s)") || text.contains("within 6.0 seconds"))
                && text.contains("127.0.0.1:\(listener.port)")
        }
        #expect {
            _ = try PostgresReplicationStream.open(
                try PostgresEndpoint(url: url), slot: "tessera_silent", applicationName: "tessera silent test", timeout: .seconds(1),
                signal: PostgresFeedSignal()
            )
        } throws: { error in
            guard let error = error as? PostgresStoreError else { return false }
            let text = "\(error)"
            return error.kind == .connection && text.contains("within 1.0 seconds (the URL's connect_timeout)") && text.contains("127.0.0.1:\(listener.port)")
        }
    }
}

/// A change-capture round's snapshot: its reads wait for a table's lock
/// at most its lock timeout (set in the same round trip as the snapshot).
@Suite("PostgreSQL: a round's snapshot and its lock timeout", .tags(.postgres), .ownThreads)
struct PostgresHeldSnapshotLockTests {
    @Test("a read in a snapshot opened with a lock timeout gives up on a locked table, and one without keeps the server's setting")
    func lockTimeout() throws {
        let url = try OracleServer.freshDatabase("heldlock")
        let store = try PostgresStore(url: url, applicationName: "tessera lock test")
        defer { store.close() }
        _ = try store.write(request: "make a table") { try $0.rows("CREATE TABLE t (id int PRIMARY KEY)") }
        let held = try PostgresHeldSnapshot.open(store, lockTimeoutMilliseconds: 100)
        #expect(try held.session.query("SELECT current_setting('lock_timeout')", request: "read the setting").rows.first?.first == .text("100ms"))
        let plain = try PostgresHeldSnapshot.open(store)
        #expect(try plain.session.query("SELECT current_setting('lock_timeout')", request: "read the setting").rows.first?.first == .text("0"))
        // Another session holds the table's lock (released after 60 s in
        // any case: without the timeout the read then succeeds, and the
        // test fails instead of hanging).
        let holder = try OracleServer.session(url, applicationName: "tessera lock holder")
        defer { holder.close() }
        try holder.execute("BEGIN", "LOCK TABLE t IN ACCESS EXCLUSIVE MODE", request: "lock the table")
        DispatchQueue.global().asyncAfter(deadline: .now() + 60) { _ = try? holder.query("ROLLBACK", request: "release the lock", timeout: .seconds(10)) }
        #expect {
            try held.session.query("SELECT count(*) FROM t", request: "read the locked table")
        } throws: { error in
            (error as? PostgresStoreError)?.code == "55P03"
        }
        _ = try? holder.query("ROLLBACK", request: "release the lock")
    }
}
