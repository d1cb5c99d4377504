import Foundation
#if canImport(Glibc)
import Glibc
#endif
import TesseraResultsCore

/// A store's change capture: one temporary logical replication slot
/// (`test_decoding`), read in rounds by a thread of its own, and handed to
/// every controller's change source (see ``PostgresStore``).
///
/// A round:
/// 1. opens a repeatable-read transaction *N* and reads its snapshot and
///    the write-ahead log's position *L* just after it;
/// 2. takes the slot's transactions that committed before *L*
///    (`pg_logical_slot_get_changes` up to *L*): every transaction *N*
///    sees that no earlier round took, in commit order, and perhaps a few
///    that committed as *N* began, which *N* does not see yet (they wait
///    for the next round);
/// 3. for each source, takes the transactions its last state did not see
///    and *N* sees, reads the rows they touched in its last state (where
///    they were) and in *N* (where they are), and hands that over as one
///    commit. The source's state is then *N*.
///
/// So each report goes from one snapshot of the database to a later one,
/// both real states, and every committed transaction is reported once.
/// (A transaction committed with `synchronous_commit = off` is seen
/// before its commit record is flushed, and the slot gives only what is
/// flushed: a round that finds the log not flushed as far as its snapshot
/// flushes it first; should the slot still give a transaction later than
/// a round that saw it, a source whose state is that round's fetches
/// again.) A
/// source that starts from a fetch's snapshot takes, from the rounds' kept
/// history, the transactions that snapshot did not see.
final class PostgresChangeFeed: @unchecked Sendable {
    /// A transaction as the slot gave it.
    struct Transaction {
        var xid: UInt32
        var changes: [DecodedChange]
        /// A line of it could not be read: sources that watch any table
        /// fetch again.
        var unreadable = false
    }

    /// A reader admitted before its snapshot was taken: rounds up to
    /// `round` had taken theirs by then. Kept alive by the reader; the
    /// history it may need is kept until it goes.
    final class ReaderTicket: @unchecked Sendable {
        let round: Int
        let epoch: Int
        let id: Int
        private weak var feed: PostgresChangeFeed?

        init(round: Int, epoch: Int, id: Int, feed: PostgresChangeFeed) {
            self.round = round
            self.epoch = epoch
            self.id = id
            self.feed = feed
        }

        deinit { feed?.release(self) }
    }

    /// One controller's change source.
    final class Source: ChangeSource, @unchecked Sendable {
        let plans: [PostgresQueryPlan]
        let tuples: Bool
        let delivery: CommitDelivery?
        /// Guarded by the feed's lock.
        fileprivate var baseline: PostgresHeldSnapshot?
        fileprivate var pending: [Transaction] = []
        fileprivate var cancelled = false
        /// A fetch must come first (the table changed shape, the slot was
        /// lost): nothing more is handed over until a fetch replaces it.
        fileprivate var awaitingFetch = false
        /// The baseline is a round's snapshot, not a fetch's: a
        /// transaction it sees that the slot gives only later (committed
        /// with `synchronous_commit = off`, seen before its commit record
        /// was flushed) was left out of the report that reached it.
        fileprivate var baselineIsRound = false
        private weak var feed: PostgresChangeFeed?

        fileprivate init(plans: [PostgresQueryPlan], tuples: Bool, delivery: CommitDelivery?, baseline: PostgresHeldSnapshot?, feed: PostgresChangeFeed?) {
            self.plans = plans
            self.tuples = tuples
            self.delivery = delivery
            self.baseline = baseline
            self.feed = feed
        }

        /// Whether a change to `name` touches what the source reads (a
        /// relation not yet looked up, a view, a partitioned table, a
        /// request with a subquery: any).
        func reads(_ name: QualifiedName) -> Bool {
            plans.contains { plan in
                guard let relation = plan.knownRelation, relation.kind == "r", !plan.readsOtherRelations else { return true }
                return relation.schema.utf8.elementsEqual(name.schema.utf8) && relation.name.utf8.elementsEqual(name.name.utf8)
            }
        }

        /// A source that hands nothing over.
        static var inert: Source { Source(plans: [], tuples: false, delivery: nil, baseline: nil, feed: nil) }

        func cancel() {
            feed?.remove(self)
        }

        deinit { feed?.remove(self) }
    }

    private struct Entry {
        var transaction: Transaction
        /// The first round whose snapshot saw it.
        var visibleRound: Int?
    }

    private struct State {
        var round = 0
        /// Moves when the slot is made again: what was admitted or
        /// followed before cannot trust the history.
        var epoch = 0
        var nextTicket = 0
        var tickets: [Int: Int] = [:]
        var history: [Entry] = []
        var sources: [Source] = []
        var stopped = false
        /// A round must run even if the log has not moved: a transaction
        /// waits to be seen, or a new source has some to take.
        var wake = false
        /// A source started from a fetch's snapshot since the last round:
        /// that snapshot read the source's tables and holds their locks.
        var fetchedBaselines = false
        /// Why no slot exists (its session ended, making it again failed);
        /// `nil` while one does. Readers are refused meanwhile: a fetch
        /// then would start a source that nothing follows.
        var slotProblem: PostgresStoreError?
        /// The session making the slot again, which `stop()` closes: the
        /// server may hold that call up for a long time.
        var making: PostgresSession?
        /// The replication connection making the slot again, which
        /// `stop()` shuts, for the same reason.
        var makingStream: PostgresWire?
        /// The passes of the feed's loop that ended without an error: each
        /// asked whether the log moved and, if it had, handed over what
        /// committed before it asked.
        var passes = 0
        /// The rounds that read the followed tables' columns (their
        /// catalog stamps moved, or a table was followed for the first
        /// time).
        var catalogReads = 0
        /// The sources' commits whose rows were read by reads sent before
        /// the round's snapshot (see ``prefetch()``).
        var readsAhead = 0
        /// The rounds whose snapshot was taken in a transaction begun
        /// ahead, as the round before ended (see ``PostgresBegunRead``).
        var roundsBegunAhead = 0
        /// The rounds whose transaction begun ahead had ended (the server
        /// ended its session, or its statement failed): their snapshot was
        /// taken on another session.
        var begunAheadLost = 0
        /// Work to run on the feed's thread between two rounds (see
        /// ``runBetweenRounds(_:)``).
        var betweenRounds: [@Sendable () -> Void] = []
        /// Whether the sources' snapshots read a table in the last round
        /// (a round 50 ms later lets them go).
        var holdingLocks = false
        /// The passes of the feed's loop that failed.
        var failedPasses = 0
        /// The last round that handed over everything its snapshot sees
        /// (0 before the first).
        var handedRound = 0
        /// The first round that may move `handedRound` on: one that began
        /// after a source took over transactions to hand over again.
        var handFloor = 0
        /// The snapshot of round `handedRound`: every transaction it sees
        /// has been handed over (`nil` while a source waits for a round to
        /// hand some over again).
        var handedSnapshot: PostgresXidSnapshot?
    }

    private weak var store: PostgresStore?
    private let state = PThreadMutex(State())
    private let slotName: String
    /// Wakes the feed's thread: a transaction arrived on the stream, the
    /// stream ended, a round is asked for, the feed stops.
    let signal = PostgresFeedSignal()
    /// The slot, streamed (see ``PostgresReplicationStream``): the server
    /// pushes each transaction as it commits. Used by the feed's thread
    /// only (and by `start`).
    private var stream: PostgresReplicationStream?
    /// The slot, read in polls (`pg_logical_slot_get_changes`) on a
    /// session of its own: for a server reached over TLS, which the
    /// stream does not speak. Used by the feed's thread only (and by
    /// `start`).
    private var slotSession: PostgresSession?
    /// Whether a slot exists (streamed or polled).
    private var hasSlot: Bool { stream != nil || slotSession != nil }
    /// Whether the slot is streamed: when the endpoint's connections go
    /// without TLS.
    private var streams: Bool { store?.endpoint.tls == .disable }
    /// A request on the slot's session failed since the slot was made.
    /// The slot is temporary, and PostgreSQL drops a session's temporary
    /// slots at any error in it (a cancelled or timed-out statement, a
    /// permission refused): it is gone, even though its session is open.
    /// Used by the feed's thread only.
    private var slotRequestFailed = false
    private var lastPosition = ""
    /// The log position the last round's snapshot was taken at (streamed
    /// slot). Used by the feed's thread only.
    private var roundPosition = PostgresLogPosition(0)
    /// The shape of each followed relation when its columns were last read,
    /// with its catalog stamp then (see ``PostgresCatalogStamp``). The
    /// feed's thread only.
    private var catalog: [Int64: (stamp: String, shape: String)] = [:]
    /// The slots made again so far (streamed slot). Used by the feed's
    /// thread only.
    private var remakes = 0
    /// The next round's transaction, begun as the last round ended (see
    /// ``PostgresBegunRead``). Used by the feed's thread only.
    private var begun: PostgresBegunRead?
    private static let counter = PThreadMutex(0)

    private init(store: PostgresStore, slotName: String, slotSession: PostgresSession?) {
        self.store = store
        self.slotName = slotName
        self.slotSession = slotSession
    }

    /// Makes the slot and starts the thread that reads it.
    ///
    /// - Throws: ``PostgresStoreError``; of kind `cannotFollow` when the
    ///   server's `wal_level` is not `logical` or no slot is free.
    static func start(store: PostgresStore) throws(PostgresStoreError) -> PostgresChangeFeed {
        let number = counter.withLock { value -> Int in
            value += 1
            return value
        }
        let name = "tessera_\(getpid())_\(number)_\(UInt32.random(in: 0...UInt32.max))"
        let feed: PostgresChangeFeed
        if store.endpoint.tls == .disable {
            feed = PostgresChangeFeed(store: store, slotName: name, slotSession: nil)
            feed.stream = try PostgresReplicationStream.open(
                store.endpoint, slot: name, applicationName: store.applicationName + " (following)", timeout: .seconds(600), signal: feed.signal
            )
        } else {
            feed = PostgresChangeFeed(store: store, slotName: name, slotSession: try makeSlot(name, store: store))
        }
        let thread = Thread {
            OwnedThread.mark()
            feed.run()
        }
        thread.name = "tessera.postgres.feed"
        thread.start()
        return feed
    }

    /// Connects and makes the slot.
    ///
    /// - Parameters:
    ///   - timeout: How long the server may take to make the slot (`nil`:
    ///     no limit). It makes a logical slot only once every transaction
    ///     that holds a transaction ID when it starts has ended, in every
    ///     database of the server: one left open holds it up.
    ///   - connected: Told of the session as soon as it exists (`nil` once
    ///     done), so that it can be closed from another thread meanwhile.
    private static func makeSlot(
        _ name: String, store: PostgresStore, timeout: Duration? = nil, connected: (PostgresSession?) -> Void = { _ in }
    ) throws(PostgresStoreError) -> PostgresSession {
        let session = try PostgresSession.connect(store.endpoint, applicationName: store.applicationName + " (following)")
        connected(session)
        defer { connected(nil) }
        do throws(PostgresStoreError) {
            let level = try session.query("SHOW wal_level", request: "read wal_level").rows.first?.first?.string ?? ""
            guard level == "logical" else {
                throw PostgresStoreError(
                    kind: .cannotFollow, request: "follow commits on \(store.endpoint)",
                    message: "the server's wal_level is \(level), and following commits needs logical: set wal_level = logical in postgresql.conf and restart the server"
                )
            }
            let create = "SELECT pg_create_logical_replication_slot($1, 'test_decoding', true)"
            let request = "create the replication slot \(name)"
            if let timeout {
                let milliseconds = timeout.components.seconds * 1000 + timeout.components.attoseconds / 1_000_000_000_000_000
                try session.query("SELECT set_config('statement_timeout', $1, false)", [.text("\(milliseconds)ms")], request: "bound the slot's making")
                // A store closed meanwhile closes this session: the server
                // then ends the wait within a second, not at the timeout
                // (PostgreSQL 14 and later; older servers refuse the
                // setting, and end it at the timeout).
                _ = try? session.query("SELECT set_config('client_connection_check_interval', '1000', false)", request: "watch the client")
                // The server's own timeout comes first; this one is for a
                // server, or a network, that answers nothing at all.
                try session.query(create, [.text(name)], request: request, timeout: timeout + .seconds(10))
                try session.query("RESET statement_timeout", request: "unbound the slot's session")
            } else {
                try session.query(create, [.text(name)], request: request)
            }
        } catch {
            session.close()
            throw error
        }
        return session
    }

    func stop() {
        let (making, wire) = state.withLock { state -> (PostgresSession?, PostgresWire?) in
            state.stopped = true
            return (state.making, state.makingStream)
        }
        making?.close()
        wire?.shutdown()
        signal.notify()
    }

    /// Asks the feed's thread for a round now, whether or not a
    /// transaction arrived: one that starts after this call hands over
    /// every commit made before it.
    func requestRound() {
        state.withLock { $0.wake = true }
        signal.notify()
    }

    /// How long the server may take to make the slot again, at the
    /// `attempt`th try since it was lost: 5 s, then twice as long at each
    /// try, up to 80 s (the server waits for every transaction open when
    /// it starts, and a shorter try than the longest of them never
    /// succeeds).
    static func slotTimeout(attempt: Int) -> Duration {
        .seconds(5 << min(max(attempt - 1, 0), 4))
    }

    // MARK: Readers and sources

    /// Admits a reader that is about to take its snapshot.
    ///
    /// - Throws: ``PostgresStoreError`` of kind `cannotFollow` while the
    ///   store has no slot (it lost it, and has not made it again yet): a
    ///   result read then would not be followed.
    func admitReader() throws(PostgresStoreError) -> ReaderTicket {
        let admitted = state.withLock { state -> Result<(Int, Int, Int), PostgresStoreError> in
            if let problem = state.slotProblem { return .failure(problem) }
            state.nextTicket += 1
            state.tickets[state.nextTicket] = state.round
            return .success((state.round, state.epoch, state.nextTicket))
        }
        let (round, epoch, id) = try admitted.get()
        return ReaderTicket(round: round, epoch: epoch, id: id, feed: self)
    }

    fileprivate func release(_ ticket: ReaderTicket) {
        state.withLock { _ = $0.tickets.removeValue(forKey: ticket.id) }
    }

    fileprivate func remove(_ source: Source) {
        state.withLock { state in
            source.cancelled = true
            source.baseline = nil
            state.sources.removeAll { $0 === source }
        }
    }

    /// Starts a source from a reader's snapshot, stopping `previous` in
    /// the same step.
    func follow(
        _ plans: [PostgresQueryPlan], tuples: Bool, delivery: CommitDelivery, from held: PostgresHeldSnapshot,
        ticket: ReaderTicket?, replacing previous: Source?
    ) -> Source {
        let source = Source(plans: plans, tuples: tuples, delivery: delivery, baseline: held, feed: self)
        let stale = state.withLock { state -> Bool in
            if let previous {
                previous.cancelled = true
                previous.baseline = nil
                state.sources.removeAll { $0 === previous }
                // What `previous` handed over since the controller dropped
                // what waited goes from its state to a round's, which the
                // new snapshot may already include; what the new snapshot
                // does not see is in `pending` below.
                delivery.dropWaiting()
            }
            guard let ticket, ticket.epoch == state.epoch, !state.stopped else {
                // Admitted before the slot was made again: no history goes
                // back to the snapshot. The source waits for a fetch among
                // the others, so that the slot's making again (or a commit
                // to its tables) asks for one again should this one fail.
                if !state.stopped {
                    source.awaitingFetch = true
                    state.sources.append(source)
                }
                return true
            }
            // What the snapshot did not see, of what rounds after the
            // ticket's (or before it, not yet seen) took.
            source.pending = state.history.compactMap { entry in
                guard entry.visibleRound.map({ $0 > ticket.round }) ?? true, !held.snapshot.sees(entry.transaction.xid) else { return nil }
                return entry.transaction
            }
            state.sources.append(source)
            if !source.pending.isEmpty {
                state.wake = true
                // Those transactions were handed over to `previous`, and
                // dropped with it: they are handed over again only by the
                // next round, which a writer waiting for its commit to be
                // handed over must wait for (see `rounds`).
                state.handedRound = min(state.handedRound, ticket.round)
                state.handedSnapshot = nil
                state.handFloor = state.round + 1
            }
            state.fetchedBaselines = true
            return false
        }
        signal.notify()
        if stale {
            // Let go outside the lock: ending the snapshot's transaction
            // is a round trip to the server.
            let dropped = state.withLock { _ -> PostgresHeldSnapshot? in
                source.awaitingFetch = true
                defer { source.baseline = nil }
                return source.baseline
            }
            withExtendedLifetime(dropped) {}
            delivery.deliverLater(.refetch)
        }
        return source
    }

    /// How many passes of the feed's loop ended without an error. Every
    /// commit made before one reads the count has been handed over to its
    /// sources once the count has moved on by two: the pass under way at
    /// the read may have asked before the commit, the next one asks after.
    /// A streamed slot's feed counts its rounds only, and makes one only
    /// when a transaction arrives or one is asked for
    /// (``requestRound()``): ask before each read.
    var passes: Int {
        state.withLock { $0.passes }
    }

    /// How many rounds read the followed tables' columns from the catalog
    /// (see ``PostgresCatalogStamp``).
    var catalogReads: Int {
        state.withLock { $0.catalogReads }
    }

    /// How many sources' commits were read by reads sent before their
    /// round's snapshot (see ``prefetch()``).
    var readsAhead: Int {
        state.withLock { $0.readsAhead }
    }

    /// How many rounds took their snapshot in a transaction begun ahead
    /// (see ``PostgresBegunRead``), and how many found the one begun for
    /// them ended and took it on another session.
    var roundsBegunAhead: (taken: Int, lost: Int) {
        state.withLock { ($0.roundsBegunAhead, $0.begunAheadLost) }
    }

    /// Runs `body` on the feed's thread before its next pass, while no
    /// round is under way, once the server has answered the `BEGIN` of
    /// the transaction begun for the next round (if one is); for tests
    /// that act on the feed's sessions between rounds.
    func runBetweenRounds(_ body: @escaping @Sendable () -> Void) {
        state.withLock { $0.betweenRounds.append(body) }
        signal.notify()
    }

    /// How many passes of the feed's loop failed (a round that threw).
    var failedPasses: Int {
        state.withLock { $0.failedPasses }
    }

    /// Whether the feed is at rest: no round asked for, and none due to
    /// let the sources' snapshots' locks go.
    var isAtRest: Bool {
        state.withLock { !$0.holdingLocks && !$0.wake && !$0.fetchedBaselines }
    }

    /// The rounds that began (took their number) so far, and the last one
    /// that handed over what its snapshot sees.
    ///
    /// A round takes its number just after its snapshot, so the round two
    /// past the one begun when a commit returned is the first whose
    /// snapshot surely sees that commit: once it is handed over, so is
    /// the commit.
    var rounds: (begun: Int, handed: Int) {
        state.withLock { ($0.round, $0.handedRound) }
    }

    /// Whether every transaction that committed before `mark` was taken
    /// has been handed over: the last round handed over is two past the
    /// mark's (see ``rounds``), or its snapshot sees the mark's
    /// transaction (which a round woken by that transaction's arrival
    /// usually does, one round sooner).
    func hasHandedOver(_ mark: PostgresFeedMark) -> Bool {
        state.withLock { state in
            if state.handedRound >= mark.begun + 2 { return true }
            guard let xid = mark.xid, let snapshot = state.handedSnapshot else { return false }
            return snapshot.sees(xid)
        }
    }

    // MARK: Rounds

    private func run() {
        var failures = 0
        // Tries to make the slot again since it was lost.
        var attempts = 0
        // Whether the sources' snapshots read a table in the last round,
        // and so hold its lock until the next round lets them go.
        var holdingLocks = false
        var lastRound = ContinuousClock.now
        while !state.withLock({ $0.stopped }) && store != nil {
            let between = state.withLock { state -> [@Sendable () -> Void] in
                defer { state.betweenRounds = [] }
                return state.betweenRounds
            }
            if !between.isEmpty {
                // Its answer may have failed: the round finds out.
                _ = try? begun?.answer.rows()
                for body in between { body() }
            }
            do throws(PostgresStoreError) {
                if !hasSlot {
                    attempts += 1
                    try remakeSlot(timeout: Self.slotTimeout(attempt: attempts))
                    attempts = 0
                }
                // A TRUNCATE or ALTER TABLE waits for those locks, and
                // every later writer waits behind it, so the log stands
                // still: a round soon after the last one moves the sources
                // to snapshots that read nothing yet.
                let locked = holdingLocks || state.withLock { $0.fetchedBaselines }
                let lockedRoundDue = locked && ContinuousClock.now - lastRound > .milliseconds(50)
                if let stream {
                    let seen = signal.current
                    if let ended = stream.ended {
                        slotRequestFailed = true
                        throw ended
                    }
                    let wake = state.withLock { state -> Bool in
                        defer { state.wake = false }
                        return state.wake
                    }
                    // The server read the log past the last round's
                    // position with no transaction for the store: a schema
                    // change (which writes no row), or another database's
                    // work. The round checks the followed tables' columns.
                    let moved = stream.position > roundPosition
                    if moved && !wake && !stream.hasArrivals {
                        // The server read the log further with nothing to
                        // send yet: often a transaction's rows, whose commit
                        // follows at once. A moment's wait lets it arrive
                        // before the round begins, so that the round reads
                        // its rows ahead of its snapshot (see `prefetch()`).
                        signal.wait(after: seen, timeout: .milliseconds(2))
                    }
                    if wake || moved || stream.hasArrivals || lockedRoundDue {
                        holdingLocks = try round()
                        lastRound = .now
                        failures = 0
                        state.withLock { [holdingLocks] in $0.holdingLocks = holdingLocks }
                        state.withLock { $0.passes += 1 }
                    } else {
                        // Nothing to do until the stream brings a
                        // transaction or a round is asked for.
                        signal.wait(after: seen, timeout: locked ? .milliseconds(50) : .seconds(1))
                    }
                    continue
                }
                let moved = try positionMoved()
                if moved || lockedRoundDue {
                    holdingLocks = try round()
                    lastRound = .now
                    state.withLock { [holdingLocks] in $0.holdingLocks = holdingLocks }
                } else {
                    pause()
                }
                failures = 0
                state.withLock { $0.passes += 1 }
            } catch {
                failures += 1
                state.withLock { $0.failedPasses += 1 }
                if slotSession == nil && attempts > 0 {
                    notMade(error)
                } else {
                    // An error on the slot's session dropped the slot (see
                    // `slotRequestFailed`). A failure that comes back round
                    // after round elsewhere (a permission revoked) would
                    // leave every source silently where it is: the third in
                    // a row is taken as the slot lost too.
                    lost(error, persistent: slotRequestFailed || failures >= Self.failuresTakenAsLost)
                }
                // The round that failed runs again, whether or not the log
                // moves meanwhile: what it was to hand over is still due.
                state.withLock { $0.wake = true }
                let seen = signal.current
                if !state.withLock({ $0.stopped }) {
                    signal.wait(after: seen, timeout: .milliseconds(min(failures, 10) * 50))
                }
            }
        }
        stream?.close()
        stream = nil
        slotSession?.close()
        slotSession = nil
        begun?.release(to: store)
        begun = nil
        let sources = state.withLock { state -> [Source] in
            defer { state.sources = [] }
            return state.sources
        }
        for source in sources { source.baseline = nil }
    }

    private func pause() {
        let interval = store?.pollInterval ?? 0.002
        usleep(useconds_t(interval * 1_000_000))
    }

    /// Whether the log moved since the last round (the position is read on
    /// the slot's session: one small query).
    private func positionMoved() throws(PostgresStoreError) -> Bool {
        guard let slotSession else { return false }
        // Bounded: a server, or a network, that stops answering must not
        // leave the sources silently where they are (the session is then
        // closed, and the slot made again).
        let position = try onSlot { () throws(PostgresStoreError) in
            try slotSession.query("SELECT pg_current_wal_insert_lsn()::text", request: "poll for commits", timeout: .seconds(30))
        }.rows.first?.first?.string ?? ""
        defer { lastPosition = position }
        let wake = state.withLock { state -> Bool in
            defer { state.wake = false }
            return state.wake
        }
        return wake || position != lastPosition
    }

    /// Runs a request on the slot's session, noting a failure (which
    /// dropped the slot: see `slotRequestFailed`).
    private func onSlot<T>(_ body: () throws(PostgresStoreError) -> T) throws(PostgresStoreError) -> T {
        do throws(PostgresStoreError) {
            return try body()
        } catch {
            slotRequestFailed = true
            throw error
        }
    }

    /// The failures in a row after which the slot is made again and every
    /// source fetches (which then reports the failure if it persists).
    static let failuresTakenAsLost = 3

    /// The slot's session (or the server) went away, or the slot was
    /// dropped by an error in its session, or rounds keep failing (those
    /// two are `persistent`): readers are refused until a new slot exists,
    /// and every source then fetches again (see ``notMade(_:)`` for a slot
    /// that cannot be made at once).
    private func lost(_ error: PostgresStoreError, persistent: Bool = false) {
        let slotGone = stream.map { $0.ended != nil } ?? (slotSession?.isClosed != false)
        guard persistent || error.kind == .serverGone || error.kind == .connection || slotGone else { return }
        begun?.session.close()
        begun = nil
        stream?.close()
        stream = nil
        slotSession?.close()
        slotSession = nil
        slotRequestFailed = false
        let problem = PostgresStoreError(
            kind: .cannotFollow, request: "follow commits on \(endpointDescription)", code: error.code,
            message: "the replication slot was lost (\(error)), and is being made again"
        )
        refetchEverything(problem: problem, deliver: false)
    }

    /// Making the slot again failed: every source is asked to fetch, which
    /// fails with a `cannotFollow` error naming `error`, so that each
    /// controller reports it (`didFailWith`, `lastError`) instead of
    /// showing a result that nothing follows. The run loop tries again.
    private func notMade(_ error: PostgresStoreError) {
        let timedOut = error.code == "57014" || (error.kind == .serverGone && error.message.contains("did not answer"))
        let why = timedOut
            ? "the server did not make it in time: it waits until every transaction that was open when it started has ended, in every database of the server, and one is still open (\(error))"
            : "\(error)"
        let problem = PostgresStoreError(
            kind: .cannotFollow, request: "follow commits on \(endpointDescription)", code: error.code,
            message: "the replication slot was lost, and could not be made again yet: \(why); the store tries again"
        )
        refetchEverything(problem: problem, deliver: true)
    }

    private var endpointDescription: String { store?.endpoint.description ?? "the server" }

    private func remakeSlot(timeout: Duration) throws(PostgresStoreError) {
        guard let store else { return }
        if streams {
            remakes += 1
            roundPosition = PostgresLogPosition(0)
            stream = try PostgresReplicationStream.open(
                // A name of its own each time: the server drops the lost
                // stream's slot only once that connection's process ends.
                store.endpoint, slot: "\(slotName)_\(remakes)", applicationName: store.applicationName + " (following)", timeout: timeout, signal: signal
            ) { wire in
                let stopped = state.withLock { state -> Bool in
                    state.makingStream = wire
                    return state.stopped
                }
                if stopped { wire?.shutdown() }
            }
            slotRequestFailed = false
            refetchEverything(problem: nil, deliver: true)
            return
        }
        slotSession = try Self.makeSlot(slotName, store: store, timeout: timeout) { session in
            let stopped = state.withLock { state -> Bool in
                state.making = session
                return state.stopped
            }
            // Stopped before the session could be named: no wait for it.
            if stopped { session?.close() }
        }
        slotRequestFailed = false
        lastPosition = ""
        refetchEverything(problem: nil, deliver: true)
    }

    /// Asks every source for a fetch (when `deliver`); the history no
    /// longer holds. Readers are refused while `problem` is set.
    private func refetchEverything(problem: PostgresStoreError?, deliver: Bool) {
        let sources = state.withLock { state -> [Source] in
            state.slotProblem = problem
            state.epoch += 1
            state.history = []
            for source in state.sources {
                source.awaitingFetch = true
                source.pending = []
                source.baseline = nil
            }
            return state.sources
        }
        if deliver {
            for source in sources { source.delivery?.deliverLater(.refetch) }
        }
    }

    /// One round (see the type's discussion); whether it read rows for a
    /// source.
    private func round() throws(PostgresStoreError) -> Bool {
        guard let store, hasSlot else { return false }
        // Reads that wait for a table's lock give up soon (the sources
        // that needed them fetch again), so that the snapshots the sources
        // hold now are let go (see PostgresHeldSnapshot.open).
        // The followed relations, each with the shapes the plans of the
        // sources that follow know of it (one waiting for its fetch may
        // know an older shape, and follows nothing meanwhile).
        let followed = state.withLock { state in
            var followed: [Int64: Set<String>] = [:]
            for source in state.sources {
                let follows = !source.cancelled && !source.awaitingFetch
                for plan in source.plans {
                    for (oid, shape) in plan.knownShapes {
                        if follows {
                            followed[oid, default: []].insert(shape)
                        } else if followed[oid] == nil {
                            followed[oid] = []
                        }
                    }
                }
            }
            return followed
        }
        // The rows the transactions that arrived touched: read where they
        // were now, and where they are in the snapshot, right behind it.
        let prefetched = prefetch()
        let begunAhead = begun
        begun = nil
        var next = try PostgresHeldSnapshot.open(store, lockTimeoutMilliseconds: 100, stamping: followed.keys.sorted(), begun: begunAhead) { session in
            for prefetch in prefetched.values {
                prefetch.after = try? PostgresRowReader(plan: prefetch.plan, session: session).sendRows(prefetch.keyTexts[...])
            }
        }
        // Whether the transaction begun ahead took the snapshot (or had
        // ended, and another session took it).
        let begunTaken = begunAhead.map { next.session === $0.session }
        // A read ahead that failed (a column it names dropped, a lock not
        // had in time) ended the snapshot's transaction: the round takes a
        // snapshot again, with nothing read ahead, so that the catalog's
        // check and the reads after it run as they would have.
        if prefetched.values.contains(where: { prefetch in prefetch.after.map { (try? $0.rows()) == nil } ?? false }) {
            for prefetch in prefetched.values { prefetch.after = nil }
            next = try PostgresHeldSnapshot.open(store, lockTimeoutMilliseconds: 100, stamping: followed.keys.sorted())
        }
        if let begunTaken {
            // A snapshot taken again counts as neither.
            let kept = begunTaken && next.session === begunAhead?.session
            state.withLock { state in
                if kept { state.roundsBegunAhead += 1 } else if !begunTaken { state.begunAheadLost += 1 }
            }
        }
        let round = state.withLock { state -> Int in
            state.round += 1
            return state.round
        }
        // Everything that can fail comes before the slot's changes are
        // taken: what the slot gave is gone from it.
        let shapes = try currentShapes(of: followed, in: next)
        let decoded: [Transaction]
        if let stream {
            decoded = try streamed(upTo: next, from: stream, store: store)
        } else if let slotSession {
            decoded = try polled(upTo: next, from: slotSession)
        } else {
            return false
        }
        // A read ahead that no source used still read its table in the
        // snapshot, which the sources now hold: its lock is let go by the
        // round that follows, as a read's is.
        let readRows = handOver(decoded, round: round, next: next, shapes: shapes, checked: followed, prefetched: prefetched)
            || prefetched.values.contains { $0.after != nil }
        state.withLock { state in
            // A feed that stopped during the round handed nothing over.
            if !state.stopped, round >= state.handFloor {
                state.handedRound = round
                state.handedSnapshot = next.snapshot
            }
        }
        // The next round's transaction, begun now: its snapshot then costs
        // one statement (a store that cannot give a session now leaves the
        // next round to begin its own).
        begun = try? PostgresBegunRead.begin(store)
        return readRows
    }

    /// The transactions the stream brought, up to every one `next` sees
    /// (and perhaps a few after).
    private func streamed(upTo next: PostgresHeldSnapshot, from stream: PostgresReplicationStream, store: PostgresStore) throws(PostgresStoreError) -> [Transaction] {
        guard let target = PostgresLogPosition(next.walPosition) else {
            throw PostgresStoreError(kind: .server, request: "read the snapshot", message: "the server gave the log position \(next.walPosition)")
        }
        // A commit made with synchronous_commit = off is seen before it is
        // flushed, and the server streams only what is flushed.
        if !next.flushed { try flushLog(store) }
        let stopped = { [state] in state.withLock { $0.stopped } }
        if try !stream.wait(until: target, timeout: .milliseconds(100), stopped: stopped) {
            if stopped() { return [] }
            // The server tells how far it has read when it waits for more
            // log; a position inside a page's header, or a record not
            // flushed whole, is passed only by the next record: ours.
            try flushLog(store)
            guard try stream.wait(until: target, timeout: .seconds(30), stopped: stopped) else {
                if stopped() { return [] }
                slotRequestFailed = true
                throw PostgresStoreError(
                    kind: .serverGone, request: stream.request,
                    message: "the server sent nothing for 30 s while the log up to \(target) was awaited, and the connection was closed"
                )
            }
        }
        roundPosition = target
        return stream.take()
    }

    /// Flushes the log past every commit made so far: a transaction of
    /// ours, committed synchronously, on one of the store's sessions.
    private func flushLog(_ store: PostgresStore) throws(PostgresStoreError) {
        let session = try store.takeSession()
        do throws(PostgresStoreError) {
            try session.execute(
                "BEGIN", "SET LOCAL synchronous_commit = on", "SELECT pg_logical_emit_message(true, 'tessera', 'flush')", "COMMIT",
                request: "flush the log"
            )
        } catch {
            session.close()
            throw error
        }
        store.giveBack(session)
    }

    /// The slot's transactions up to `next`'s log position, read in a
    /// poll.
    private func polled(upTo next: PostgresHeldSnapshot, from slotSession: PostgresSession) throws(PostgresStoreError) -> [Transaction] {
        if !next.flushed {
            // A commit made with synchronous_commit = off is seen before it
            // is flushed, and the slot reads only what is flushed: a
            // transaction of ours, committed synchronously, flushes the log
            // past every commit the snapshot sees.
            try onSlot { () throws(PostgresStoreError) in
                try slotSession.execute(
                    "BEGIN", "SET LOCAL synchronous_commit = on", "SELECT pg_logical_emit_message(true, 'tessera', 'flush')", "COMMIT",
                    request: "flush the log"
                )
            }
        }
        let lines = try onSlot { () throws(PostgresStoreError) in
            try slotSession.query(
                "SELECT data FROM pg_logical_slot_get_changes($1, $2::pg_lsn, NULL, 'include-xids', '1', 'skip-empty-xacts', '1')",
                [.text(slotName), .text(next.walPosition)], request: "read the replication slot \(slotName)"
            )
        }
        return Self.transactions(lines.rows.compactMap { $0.first?.string })
    }

    /// Hands `decoded`, the transactions a round took, over to the sources
    /// whose state they change; whether it read rows for a source.
    private func handOver(
        _ decoded: [Transaction], round: Int, next: PostgresHeldSnapshot, shapes: [Int64: String], checked: [Int64: Set<String>],
        prefetched: [ObjectIdentifier: Prefetch]
    ) -> Bool {
        struct Work {
            var source: Source
            var ready: [Transaction]
            var baseline: PostgresHeldSnapshot
            var reshaped: Bool
        }
        let work = state.withLock { state -> [Work] in
            state.fetchedBaselines = false
            for index in state.history.indices where state.history[index].visibleRound == nil && next.snapshot.sees(state.history[index].transaction.xid) {
                state.history[index].visibleRound = round
            }
            for transaction in decoded {
                state.history.append(Entry(transaction: transaction, visibleRound: next.snapshot.sees(transaction.xid) ? round : nil))
            }
            var work: [Work] = []
            for source in state.sources where !source.cancelled && source.awaitingFetch {
                // Asked to fetch, and the fetch has not come (it failed: a
                // table dropped, a server that was away): asked again when
                // its tables change.
                if decoded.contains(where: { transaction in
                    transaction.changes.contains { change in change.tables.contains(where: source.reads) }
                }) {
                    source.delivery?.deliverLater(.refetch)
                }
            }
            for source in state.sources where !source.cancelled && !source.awaitingFetch {
                guard let baseline = source.baseline else { continue }
                source.pending += decoded.filter { !baseline.snapshot.sees($0.xid) }
                // A fetch that began while this round ran may have taken
                // its snapshot after the round's: the source is then ahead
                // of the round, and moving it to the round's state would
                // hand over again what its fetch already read (a row
                // inserted since would be inserted twice). The next round,
                // whose snapshot comes later, takes it on.
                guard next.snapshot.seesEverything(seenBy: baseline.snapshot) else {
                    state.wake = true
                    continue
                }
                // A source that began following after the round listed the
                // shapes to check (a fetch made meanwhile, which may know a
                // newer one): the next round checks its own.
                guard source.plans.allSatisfy({ $0.knownShapes.allSatisfy { checked[$0.key]?.contains($0.value) == true } }) else {
                    state.wake = true
                    // This round hands over nothing of the source's: a
                    // writer waiting for a commit the round sees to be
                    // handed over waits for the next round (see `rounds`).
                    if source.pending.contains(where: { next.snapshot.sees($0.xid) }) {
                        state.handFloor = max(state.handFloor, round + 1)
                    }
                    continue
                }
                let ready = source.pending.filter { next.snapshot.sees($0.xid) }
                source.pending.removeAll { next.snapshot.sees($0.xid) }
                let reshaped = source.plans.contains { plan in
                    plan.knownShapes.contains { shapes[$0.key] != $0.value }
                }
                // Seen by the last round's snapshot, given by the slot only
                // now: that round's report left its rows out.
                let late = source.baselineIsRound && decoded.contains { transaction in
                    baseline.snapshot.sees(transaction.xid)
                        && (transaction.unreadable || transaction.changes.contains { $0.tables.contains(where: source.reads) })
                }
                work.append(Work(source: source, ready: ready, baseline: baseline, reshaped: reshaped || late))
            }
            // What no reader or source can need any more.
            let oldest = state.tickets.values.min() ?? round
            state.history.removeAll { entry in entry.visibleRound.map { $0 <= oldest } ?? false }
            // A transaction this round's snapshot did not see yet is taken
            // by the next round, whether or not the log moves.
            if state.history.contains(where: { $0.visibleRound == nil }) { state.wake = true }
            return work
        }
        var read = false
        for item in work {
            let changes: CommittedChanges?
            if item.reshaped {
                changes = .refetch
            } else {
                changes = self.changes(
                    for: item.source, ready: item.ready, from: item.baseline, to: next, prefetched: prefetched[ObjectIdentifier(item.source)]
                )
                read = read || !item.ready.isEmpty
            }
            state.withLock { _ in
                guard !item.source.cancelled else { return }
                if item.reshaped || changes?.mustRefetch == true {
                    // The fetch the controller makes starts a source of
                    // its own; this one holds no transaction meanwhile.
                    item.source.awaitingFetch = true
                    item.source.baseline = nil
                } else {
                    item.source.baseline = next
                    item.source.baselineIsRound = true
                }
                if let changes { item.source.delivery?.deliverLater(changes) }
            }
        }
        return read
    }

    /// The shape of each followed relation, as ``PostgresRelation/fingerprint``
    /// gives it, in `held`'s snapshot (a relation dropped has none). The
    /// columns are read only for a relation whose catalog stamp (read with
    /// the snapshot) moved since they were last read, or whose shape a
    /// source's plan knows otherwise (a type or collation renamed moves no
    /// stamp: a plan made since knows the new name).
    ///
    /// - Parameter followed: Each relation, with the shapes the sources'
    ///   plans know of it.
    /// - Complexity: O(*r*) for *r* relations when none moved: no round
    ///   trip.
    private func currentShapes(of followed: [Int64: Set<String>], in held: PostgresHeldSnapshot) throws(PostgresStoreError) -> [Int64: String] {
        var shapes: [Int64: String] = [:]
        var moved: [Int64] = []
        for (oid, known) in followed {
            guard let stamp = held.stamps[oid] else { continue }
            if let memo = catalog[oid], memo.stamp == stamp, known.isSubset(of: [memo.shape]) {
                shapes[oid] = memo.shape
            } else {
                moved.append(oid)
            }
        }
        catalog = catalog.filter { followed[$0.key] != nil }
        guard !moved.isEmpty else { return shapes }
        state.withLock { $0.catalogReads += 1 }
        let loaded = try PostgresRelation.load(oids: moved, in: held.session, request: "check the followed tables' columns")
        for oid in moved {
            guard let relation = loaded[oid], let stamp = held.stamps[oid] else { continue }
            shapes[oid] = relation.fingerprint
            catalog[oid] = (stamp, relation.fingerprint)
        }
        return shapes
    }

    /// Groups the slot's lines into transactions.
    static func transactions(_ lines: [String]) -> [Transaction] {
        var result: [Transaction] = []
        var current: Transaction?
        for line in lines where !line.hasPrefix("message:") {
            do throws(ChangeLineError) {
                switch try ChangeLineParser.parse(line) {
                case let .begin(xid): current = Transaction(xid: xid, changes: [])
                case let .commit(xid):
                    if var done = current {
                        done.xid = xid
                        result.append(done)
                    }
                    current = nil
                case let .change(change): current?.changes.append(change)
                }
            } catch {
                current?.unreadable = true
            }
        }
        return result
    }

    /// The rows transactions touched in a source's result.
    private enum TouchedRows {
        /// None of them.
        case none
        /// The source must fetch again (not followed row by row, or rows it
        /// cannot name: a TRUNCATE, a line not read, too many rows).
        case refetch
        /// The rows with these keys (in the server's text form, each once,
        /// in the order the transactions name them), read by `plan`.
        case keys(plan: PostgresQueryPlan, [String])
    }

    /// The rows `ready` touched in a source's result.
    ///
    /// - Complexity: O(*c*) for *c* changes in `ready`.
    private func touchedRows(for source: Source, ready: [Transaction], session: PostgresSession) -> TouchedRows {
        guard !ready.isEmpty else { return .none }
        let reads = source.reads
        // Row by row: one request on a table whose primary key is the key.
        // (A fetch request without a patch plan is fetched again anyway.)
        let fetchWithoutPlan = source.plans.first.map { if case .fetch = $0.request { !source.tuples } else { false } } ?? false
        guard source.plans.count == 1, let plan = source.plans.first, !fetchWithoutPlan, plan.followsRows(in: session),
              let relation = plan.knownRelation, let keyIndex = relation.column(exactly: plan.keyColumn)
        else {
            let touches = ready.contains { transaction in
                transaction.unreadable || transaction.changes.contains { $0.tables.contains(where: reads) }
            }
            return touches ? .refetch : .none
        }
        let keyName = relation.columns[keyIndex].name
        var keyTexts: [String] = []
        // By bytes, as the server tells keys and names apart: Swift's `==`
        // takes the two spellings of an accented letter as one, and would
        // drop a second key, or read the key from a column whose name is
        // the other spelling of the key's.
        var seen = Set<DatabaseValue>()
        func note(_ columns: [DecodedColumn]?) -> Bool {
            guard let column = columns?.first(where: { $0.name.utf8.elementsEqual(keyName.utf8) }), case let .text(text) = column.value else { return false }
            if seen.insert(.text(text)).inserted { keyTexts.append(text) }
            return true
        }
        for transaction in ready {
            if transaction.unreadable { return .refetch }
            for change in transaction.changes where change.tables.contains(where: reads) {
                switch change.kind {
                case .truncate: return .refetch
                case .insert: guard note(change.newTuple) else { return .refetch }
                case .update:
                    guard note(change.newTuple) else { return .refetch }
                    if change.oldKey != nil { guard note(change.oldKey) else { return .refetch } }
                case .delete: guard note(change.oldKey) else { return .refetch }
                }
            }
        }
        guard !keyTexts.isEmpty else { return .none }
        if let limit = source.delivery?.touchedLimit, keyTexts.count > limit { return .refetch }
        return .keys(plan: plan, keyTexts)
    }

    /// The reads of a source's touched rows sent before a round's snapshot
    /// was taken (see ``prefetch()``): the rows where they were, in the
    /// source's last state, and where they are, in the round's snapshot
    /// (sent behind the statement that takes it).
    private final class Prefetch {
        let baseline: PostgresHeldSnapshot
        let plan: PostgresQueryPlan
        let keyTexts: [String]
        let before: PostgresRowReader.PendingRows
        var after: PostgresRowReader.PendingRows?

        init(baseline: PostgresHeldSnapshot, plan: PostgresQueryPlan, keyTexts: [String], before: PostgresRowReader.PendingRows) {
            self.baseline = baseline
            self.plan = plan
            self.keyTexts = keyTexts
            self.before = before
        }
    }

    /// Sends, for each source, the reads of the rows the transactions
    /// that arrived touched, before the round takes its snapshot: the
    /// usual round (the commits it hands over had all arrived when it
    /// began) then waits once for its snapshot and these reads together.
    /// A source whose rows turn out otherwise (a transaction that arrived
    /// meanwhile, or one its snapshot does not see yet) reads them again
    /// (``changes(for:ready:from:to:prefetched:)``).
    private func prefetch() -> [ObjectIdentifier: Prefetch] {
        // What arrived, and what arrived before and was not seen yet (the
        // server streams a commit as soon as it is flushed, which can be
        // a moment before a new snapshot sees it).
        guard let arrived = stream?.peek() else { return [:] }
        let candidates = state.withLock { state -> [(Source, PostgresHeldSnapshot, [Transaction])] in
            state.sources.compactMap { source in
                guard !source.cancelled, !source.awaitingFetch, let baseline = source.baseline else { return nil }
                let ready = source.pending + arrived.filter { !baseline.snapshot.sees($0.xid) }
                return ready.isEmpty ? nil : (source, baseline, ready)
            }
        }
        var prefetched: [ObjectIdentifier: Prefetch] = [:]
        for (source, baseline, ready) in candidates {
            guard case let .keys(plan, keyTexts) = touchedRows(for: source, ready: ready, session: baseline.session),
                  keyTexts.count <= PostgresRowReader.keysPerRead,
                  let before = try? PostgresRowReader(plan: plan, session: baseline.session).sendRows(keyTexts[...])
            else { continue }
            prefetched[ObjectIdentifier(source)] = Prefetch(baseline: baseline, plan: plan, keyTexts: keyTexts, before: before)
        }
        return prefetched
    }

    /// What `ready` did to a source's rows, read in the source's last state
    /// and in `next` (by `prefetched`, when it read the same rows from the
    /// same state); `nil` when it touched none of them.
    private func changes(
        for source: Source, ready: [Transaction], from baseline: PostgresHeldSnapshot, to next: PostgresHeldSnapshot, prefetched: Prefetch?
    ) -> CommittedChanges? {
        let plan: PostgresQueryPlan
        let keyTexts: [String]
        switch touchedRows(for: source, ready: ready, session: next.session) {
        case .none: return nil
        case .refetch: return .refetch
        case let .keys(found, keys):
            plan = found
            keyTexts = keys
        }
        let before = PostgresRowReader(plan: plan, session: baseline.session)
        let after = PostgresRowReader(plan: plan, session: next.session)
        let patchPlan = source.tuples ? before.patchPlan : nil
        var touched: [DatabaseValue: [DatabaseValue]?] = [:]
        var rows = CommittedChanges.RowsAfter(columnNames: [])
        func wasRead(_ leading: any LeadingValues, _ row: Row) {
            touched[leading.value(at: plan.keyLeadingIndex)] = .some(patchPlan?.tuple(row.values))
        }
        func isRead(_ leading: any LeadingValues, _ row: Row) {
            let key = leading.value(at: plan.keyLeadingIndex)
            if rows.columnNames.isEmpty { rows.columnNames = row.columnNames }
            rows.rows[key] = ((0..<plan.leadingCount).map { leading.value(at: $0) }, row.values)
            if touched[key] == nil { touched[key] = .some(nil) }
        }
        do throws(ResultsError) {
            if let prefetched, prefetched.baseline === baseline, prefetched.plan === plan, prefetched.keyTexts == keyTexts,
               let afterRows = prefetched.after {
                state.withLock { $0.readsAhead += 1 }
                try before.deliver(prefetched.before) { (leading, row) throws(ResultsError) in wasRead(leading, row) }
                try after.deliver(afterRows) { (leading, row) throws(ResultsError) in isRead(leading, row) }
            } else {
                // Where they were and where they are, read at the same time.
                try before.readRows(keyTexts: keyTexts, { (leading, row) throws(ResultsError) in
                    wasRead(leading, row)
                }, alongside: after, { (leading, row) throws(ResultsError) in
                    isRead(leading, row)
                })
            }
        } catch {
            return .refetch
        }
        guard !touched.isEmpty else { return nil }
        return CommittedChanges(touched: touched, rowsAfter: rows)
    }
}

extension PostgresXidSnapshot {
    /// Whether this snapshot sees every transaction `other` sees: it was
    /// taken at the same time or later (a snapshot taken earlier misses a
    /// transaction that committed in between).
    ///
    /// - Complexity: O(*p* + *q*) for the transactions in progress in each.
    func seesEverything(seenBy other: PostgresXidSnapshot) -> Bool {
        // Those `other` sees that began after every one this one saw end.
        if xmax < other.xmax {
            let inProgressThere = other.inProgress.count { $0 >= xmax && $0 < other.xmax }
            if UInt64(inProgressThere) < other.xmax - xmax { return false }
        }
        // Those in progress here that had ended for `other`.
        return inProgress.allSatisfy { $0 >= other.xmax || other.inProgress.contains($0) }
    }
}
