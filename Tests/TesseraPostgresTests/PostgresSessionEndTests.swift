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
