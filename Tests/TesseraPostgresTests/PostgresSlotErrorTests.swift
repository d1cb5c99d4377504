import Foundation
import Testing
import TesseraResults
import TesseraPostgresTestSupport
import TesseraTestSupport
import TesseraTestTraits
@testable import TesseraPostgres
#if canImport(Glibc)
import Glibc
#endif

/// An error on the session that reads the replication slot: PostgreSQL
/// drops a session's temporary slots at any error in it, so the slot is
/// gone while its session stays open. The store must notice at once and
/// make it again, and a commit that came after must still reach the
/// controller, even when no later commit moves the log.
@Suite("PostgreSQL: an error on the slot's session drops the slot; commits after it still arrive", .tags(.postgres), .ownThreads)
struct PostgresSlotErrorTests {
    /// The server process of the store's slot session, and whether its
    /// slot exists (`nil`: no slot session).
    static func slotState(_ fixture: PostgresFaultTests.Fixture) throws -> (pid: Int64, slotExists: Bool)? {
        let row = try fixture.writer.query(
            """
            SELECT a.pid::int8, (SELECT count(*) FROM pg_replication_slots s WHERE s.database = current_database() AND s.slot_name LIKE 'tessera\\_%')::int8
            FROM pg_stat_activity a WHERE a.application_name = 'tessera (following)' AND a.datname = current_database()
            ORDER BY a.backend_start DESC LIMIT 1
            """,
            request: "find the slot's session"
        ).rows.first
        guard let pid = row?[0].int64 else { return nil }
        return (pid, (row?[1].int64 ?? 0) > 0)
    }

    /// Cancels the slot session's statements until one is cancelled: its
    /// slot is then gone (or already made again, by a new session).
    /// Whether that happened: the slot is waited for `rounds` rounds of a
    /// query and 10 ms (12,000 by default, two minutes at the least;
    /// bounded in rounds, not by a clock), and the server's loop of
    /// cancels is a hang guard of that one statement, of `seconds` (both
    /// limits against a hang only, generous for a sanitizer build on a
    /// busy machine); the failure names the step that did not come.
    static func cancelUntilSlotDropped(_ fixture: PostgresFaultTests.Fixture, rounds: Int = 12_000, within seconds: Int = 120) throws -> String? {
        // A slot made again after an earlier cancel may still be on its way.
        var first: (pid: Int64, slotExists: Bool)?
        try waitInRounds(rounds, sleepingEvery: .milliseconds(10)) {
            first = try slotState(fixture)
            return first?.slotExists == true
        }
        guard let first, first.slotExists else { return "no slot and slot session within \(rounds) rounds of a query and 10 ms (sessions: \(fixture.activity()))" }
        // A cancel reaches a statement only while one runs, and the session
        // is idle between its polls: a loop of cancels from the test, one
        // round trip each, could miss every poll for a minute on a busy
        // machine. The server cancels in a loop of its own instead, until
        // the session no longer holds its slot, so that the first poll
        // after the loop starts is cancelled. Its clock is a hang guard of
        // this statement only, started with it, on the server: a loop of
        // cancels with no pause has no rounds to count.
        _ = try fixture.writer.query(
            """
            DO $cancel$
            DECLARE deadline timestamptz := clock_timestamp() + interval '\(seconds) seconds';
            BEGIN
                WHILE EXISTS (SELECT 1 FROM pg_replication_slots WHERE active_pid = \(first.pid)) AND clock_timestamp() < deadline LOOP
                    PERFORM pg_cancel_backend(\(first.pid)::int4);
                END LOOP;
            END
            $cancel$
            """,
            request: "cancel the slot's statements until its slot is gone"
        )
        guard let now = try slotState(fixture) else { return nil }
        if now.pid != first.pid || !now.slotExists { return nil }
        return "no statement of the slot's session could be cancelled within \(seconds) s"
    }

    @Test("a statement cancelled on the slot's session drops its slot; one commit after it, and no other: the controller catches up")
    func cancelledStatementThenOneCommit() throws {
        let fixture = try PostgresFaultTests.Fixture(url: OracleServer.freshDatabase("slotcancel"))
        try fixture.insert(100_000)
        #expect(try fixture.settle(), "the controller did not follow before the cancel")
        for round in 0..<3 {
            let failure = try Self.cancelUntilSlotDropped(fixture)
            #expect(failure == nil, "round \(round): \(failure ?? "")")
            // One commit, and nothing after it moves the log.
            try fixture.insert(Int64(200_000 + round))
            #expect(
                try fixture.settle(),
                "round \(round): a commit after the slot was dropped never reached the controller (errors: \(fixture.log.errors + fixture.thrown); sessions: \(fixture.activity()))"
            )
        }
        fixture.checkReports("cancelled slot statements")
        // A slot exists again, and the store still follows.
        #expect(try !OracleServer.replicationSlots(fixture.url).isEmpty)
        try fixture.insert(300_000)
        #expect(try fixture.settle(), "the controller stopped following")
    }

    @Test("seeded: the slot's statements cancelled at random moments between 0 to 3 commits, 12 times: the controller equals a fresh query each time, and its reports replay")
    func cancelledAtRandomMoments() throws {
        let seed = testSeed(default: 0x5107)
        var generator = SplitMix64(seed: seed)
        let fixture = try PostgresFaultTests.Fixture(url: OracleServer.freshDatabase("slotcancelrandom"))
        var next: Int64 = 400_000
        for round in 0..<12 {
            let before = Int.random(in: 0...2, using: &generator)
            let after = Int.random(in: 0...1, using: &generator)
            for _ in 0..<before {
                try fixture.insert(next, album: Int64.random(in: 1...3, using: &generator))
                next += 1
                usleep(UInt32.random(in: 0..<10_000, using: &generator))
            }
            let failure = try Self.cancelUntilSlotDropped(fixture)
            #expect(failure == nil, "seed \(seed), round \(round): \(failure ?? "")")
            for _ in 0..<after {
                try fixture.writer.query(
                    "UPDATE photo SET album = $1 WHERE id = $2",
                    [.integer(Int64.random(in: 1...3, using: &generator)), .integer(Int64.random(in: 1...50, using: &generator))], request: "move"
                )
            }
            let caughtUp = try fixture.settle()
            #expect(caughtUp, "seed \(seed), round \(round): the controller did not catch up with a fresh query (errors: \(fixture.log.errors + fixture.thrown); sessions: \(fixture.activity()))")
            if !caughtUp { break }
        }
        fixture.checkReports("slot statements cancelled at random moments (seed \(seed))")
    }
}
