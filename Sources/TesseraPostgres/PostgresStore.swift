#if canImport(Glibc)
import Glibc
#endif
import TesseraResultsCore

/// A PostgreSQL database that results controllers read and follow: the
/// controllers of TesseraResults (``TesseraResults/FetchedResultsController``,
/// ``TesseraResults/FetchedSetController``,
/// ``TesseraResults/RelationalResultsController``) over a server instead of
/// an SQLite file, with the same API and the same reports.
///
/// ```swift
/// let store = try PostgresStore(url: "postgres://app@127.0.0.1:5432/photos")
/// let controller = try FetchedResultsController<Photo>(
///     store: store,
///     request: FetchRequest(table: "photo", sortKeys: [SortKey("album"), SortKey("taken")], sectionKey: "album")
/// )
/// try controller.performFetch()
/// ```
///
/// A store follows every commit to the tables its controllers read, made
/// by any connection, process or machine, through one temporary logical
/// replication slot of its own (PostgreSQL's `test_decoding` plugin): only
/// committed transactions, in commit order, each once. The server needs
/// `wal_level = logical`. The slot ends with the store's connection (the
/// server drops a temporary slot when its session ends, a killed process
/// included), so nothing is left behind. See "Following PostgreSQL" in
/// the documentation for the guarantees and the costs.
///
/// Calls block the calling thread for the server's answers, as SQLite's
/// calls do for the disk. Thread-safe.
public final class PostgresStore: @unchecked Sendable {
    let endpoint: PostgresEndpoint
    /// `application_name` of the store's sessions.
    let applicationName: String
    /// Sessions not in use.
    private let idle = PThreadMutex<[PostgresSession]>([])
    /// The change capture, started by the first fetch that follows.
    private let feedState = PThreadMutex<PostgresChangeFeed?>(nil)
    private let closed = PThreadMutex(false)
    /// The snapshots readers took (see ``PostgresDeferredSnapshot``).
    private let readerSnapshots = PThreadMutex(0)

    /// How often the store asks the server whether anything committed, in
    /// seconds (0.002 by default), when it reads its replication slot in
    /// polls: only over TLS (see "Following PostgreSQL"; without TLS the
    /// server streams each commit as it happens, and nothing polls). The
    /// most a commit then waits before its changes are read. Each ask is
    /// one small query.
    public var pollInterval: Double {
        get { pollIntervalState.withLock { $0 } }
        set { pollIntervalState.withLock { $0 = max(0.0005, min(newValue, 10)) } }
    }
    private let pollIntervalState = PThreadMutex(0.002)

    /// Connects to the database a `postgres://user[:password]@host[:port]/database`
    /// URL names, with the query parameters `sslmode=disable|prefer|require`
    /// (TLS is off by default on loopback and preferred elsewhere) and
    /// `connect_timeout=` (whole seconds, 1 to 3,600; 30 by default), either
    /// or both.
    ///
    /// Every round trip to the server is bounded: a statement the server
    /// has not answered within `roundTripLimit` (a server or a network
    /// that went silent) fails with ``PostgresStoreError/Kind/serverGone``,
    /// and its session is closed; the store's next read or write uses a
    /// new one. Making a connection is bounded by the URL's
    /// `connect_timeout` (30 s by default).
    ///
    /// - Parameters:
    ///   - applicationName: How the server lists the store's sessions
    ///     (`pg_stat_activity.application_name`).
    ///   - roundTripLimit: The longest the store waits for the answer to
    ///     one statement: 10 minutes by default, room for a fetch of
    ///     tens of millions of rows. Writes and the change feed's own
    ///     statements have shorter bounds of their own.
    /// - Throws: ``PostgresStoreError``: an invalid URL, a server that
    ///   cannot be reached, a refused user or password.
    public init(url: String, applicationName: String = "tessera", roundTripLimit: Duration = .seconds(600)) throws(PostgresStoreError) {
        endpoint = try PostgresEndpoint(url: url, roundTripLimit: roundTripLimit)
        self.applicationName = applicationName
        let session = try PostgresSession.connect(endpoint, applicationName: applicationName)
        idle.withLock { $0.append(session) }
    }

    deinit {
        close()
    }

    /// Ends following and closes every connection (the replication slot
    /// goes with them). Reads after it fail with ``PostgresStoreError/Kind/serverGone``.
    public func close() {
        closed.withLock { $0 = true }
        let feed = feedState.withLock { state -> PostgresChangeFeed? in
            defer { state = nil }
            return state
        }
        feed?.stop()
        for session in idle.withLock({ sessions -> [PostgresSession] in
            defer { sessions = [] }
            return sessions
        }) {
            session.close()
        }
    }

    /// How many times the store's sessions waited for the server inside a
    /// Swift task on a thread Tessera did not start (``PostgresTaskWaits``).
    package var waitsInsideTasks: Int { endpoint.taskWaits.value }

    /// What the store reads, for messages: `user@host:port/database`.
    public var source: String { endpoint.description }

    // MARK: Sessions

    /// A session not in use, connecting a new one when none is idle.
    func takeSession() throws(PostgresStoreError) -> PostgresSession {
        if closed.withLock({ $0 }) {
            throw PostgresStoreError(kind: .serverGone, request: "read \(endpoint)", message: "the store is closed")
        }
        while let session = idle.withLock({ $0.popLast() }) {
            if !session.isClosed { return session }
        }
        return try PostgresSession.connect(endpoint, applicationName: applicationName)
    }

    /// Takes back a session with no transaction open.
    func giveBack(_ session: PostgresSession) {
        guard !session.isClosed else { return }
        let keep = !closed.withLock({ $0 }) && idle.withLock { sessions -> Bool in
            guard sessions.count < 8 else { return false }
            sessions.append(session)
            return true
        }
        if !keep {
            session.close()
        } else if closed.withLock({ $0 }) {
            // Closed meanwhile (a snapshot's end commits in the background):
            // `close()` may have emptied the idle sessions before this one
            // came.
            if idle.withLock({ sessions in sessions.firstIndex { $0 === session }.map { sessions.remove(at: $0) } }) != nil { session.close() }
        }
    }

    /// The passes of the change feed's loop so far (see
    /// ``PostgresChangeFeed/passes``); `nil` while nothing follows.
    package var feedPasses: Int? {
        feedState.withLock { $0 }?.passes
    }

    /// The change feed's rounds so far that read the followed tables'
    /// columns (see ``PostgresChangeFeed/catalogReads``); `nil` while
    /// nothing follows.
    package var feedCatalogReads: Int? {
        feedState.withLock { $0 }?.catalogReads
    }

    /// The sources' commits whose rows the change feed read with reads
    /// sent before its round's snapshot (see
    /// ``PostgresChangeFeed/readsAhead``); `nil` while nothing follows.
    package var feedReadsAhead: Int? {
        feedState.withLock { $0 }?.readsAhead
    }

    /// The change feed's rounds that took their snapshot in a transaction
    /// begun ahead (see ``PostgresChangeFeed/roundsBegunAhead``); `nil`
    /// while nothing follows.
    package var feedRoundsBegunAhead: Int? {
        feedState.withLock { $0 }?.roundsBegunAhead.taken
    }

    /// The change feed's rounds that found the transaction begun for them
    /// ended (its session ended by the server) and took their snapshot on
    /// another session; `nil` while nothing follows.
    package var feedBegunAheadLost: Int? {
        feedState.withLock { $0 }?.roundsBegunAhead.lost
    }

    /// Runs `body` on the change feed's thread while no round is under
    /// way (and once the server has answered the `BEGIN` of the
    /// transaction begun for the next round, if one is), and returns once
    /// it has run (`false`: nothing follows, or the
    /// feed did not run it within `timeout`). For tests that act on the
    /// feed's sessions between rounds. Blocks the calling thread: call it
    /// from a thread of your own, never from Swift concurrency's pool.
    package func runBetweenFeedRounds(timeout: Duration = .seconds(60), _ body: @escaping @Sendable () -> Void) -> Bool {
        guard let feed = feedState.withLock({ $0 }) else { return false }
        let done = PThreadCondition(false)
        feed.runBetweenRounds {
            body()
            done.update { $0 = true }
        }
        return done.wait(until: { $0 }, timeout: timeout) { _, ready in ready }
    }

    /// The change feed's passes that failed so far (see
    /// ``PostgresChangeFeed/failedPasses``); `nil` while nothing follows.
    package var feedFailedPasses: Int? {
        feedState.withLock { $0 }?.failedPasses
    }

    /// Whether the change feed is at rest (see
    /// ``PostgresChangeFeed/isAtRest``); `nil` while nothing follows.
    package var feedIsAtRest: Bool? {
        feedState.withLock { $0 }?.isAtRest
    }

    /// The snapshots the store's readers have taken so far: a reader takes
    /// one at its first statement, and one that runs none takes none.
    package var readerSnapshotsTaken: Int {
        readerSnapshots.withLock { $0 }
    }

    /// Counts a reader's snapshot.
    fileprivate func countReaderSnapshot() {
        readerSnapshots.withLock { $0 += 1 }
    }

    /// Asks the change feed for a round now (see
    /// ``PostgresChangeFeed/requestRound()``); nothing while nothing
    /// follows.
    package func requestFeedRound() {
        feedState.withLock { $0 }?.requestRound()
    }

    /// The change capture if it has started.
    var existingFeed: PostgresChangeFeed? {
        feedState.withLock { $0 }
    }

    /// The change capture, started on first need.
    func feed() throws(PostgresStoreError) -> PostgresChangeFeed {
        if let feed = feedState.withLock({ $0 }) { return feed }
        let made = try PostgresChangeFeed.start(store: self)
        let (kept, extra) = feedState.withLock { state -> (PostgresChangeFeed, PostgresChangeFeed?) in
            if let state { return (state, made) }
            state = made
            return (made, nil)
        }
        extra?.stop()
        return kept
    }
}

/// A read-only transaction held open at one snapshot: a reader's, or the
/// state a change source last reached. Committed (and its session given
/// back) when the last holder lets go.
final class PostgresHeldSnapshot: @unchecked Sendable {
    let session: PostgresSession
    let snapshot: PostgresXidSnapshot
    /// The write-ahead log's insert position read just after the snapshot
    /// was taken: the commit record of every transaction it sees comes
    /// before it (a commit is logged before it becomes visible).
    let walPosition: String
    /// Whether the log was flushed up to ``walPosition`` then. With
    /// `synchronous_commit = off` a transaction is seen before its commit
    /// is flushed, and logical decoding reads only what is flushed.
    let flushed: Bool
    /// Weak: the feed's sources keep snapshots, and the store keeps the
    /// feed; a strong reference would keep a released store (and its
    /// replication slot) alive.
    private weak var store: PostgresStore?

    /// The catalog stamp (see ``PostgresCatalogStamp``) of each relation
    /// ``open(_:lockTimeoutMilliseconds:stamping:begun:alongside:)`` was asked to stamp, by OID, as
    /// this snapshot sees the catalog (a relation dropped has none).
    let stamps: [Int64: String]

    private init(
        session: PostgresSession, snapshot: PostgresXidSnapshot, walPosition: String, flushed: Bool, stamps: [Int64: String], store: PostgresStore
    ) {
        self.session = session
        self.snapshot = snapshot
        self.walPosition = walPosition
        self.flushed = flushed
        self.stamps = stamps
        self.store = store
    }

    /// Begins a repeatable-read, read-only transaction and reads its
    /// snapshot.
    ///
    /// - Parameter lockTimeoutMilliseconds: How long its reads may wait
    ///   for a table's lock (100), `nil` for the server's setting. A change-capture
    ///   round's snapshot sets one: its reads would otherwise queue behind
    ///   a `TRUNCATE` or `ALTER TABLE` that itself waits for the lock the
    ///   sources' previous snapshots hold, which only the round releases.
    /// - Parameter stamping: Relations (OIDs) whose catalog stamps
    ///   (``stamps``) are read in the same statement as the snapshot.
    /// - Parameter alongside: Sends statements of the caller's on the
    ///   session, in the transaction, right behind the one that takes the
    ///   snapshot and before its answer is waited for (their answers are
    ///   the caller's to read).
    /// - Parameter begun: A transaction begun ahead of need (see
    ///   ``PostgresBegunRead``): its session takes the snapshot without
    ///   the round trip of `BEGIN`. One the server has ended meanwhile (an
    ///   `idle_in_transaction_session_timeout`, a terminated backend) is
    ///   closed, and a session of the store's begins a transaction instead.
    static func open(
        _ store: PostgresStore, lockTimeoutMilliseconds: Int? = nil, stamping oids: [Int64] = [],
        begun: PostgresBegunRead? = nil, alongside: (PostgresSession) -> Void = { _ in }
    ) throws(PostgresStoreError) -> PostgresHeldSnapshot {
        if let begun {
            if !begun.session.isClosed, let held = try? read(
                on: begun.session, begun: begun.answer, store: store, lockTimeoutMilliseconds: lockTimeoutMilliseconds, stamping: oids, alongside: alongside
            ) {
                return held
            }
            begun.session.close()
        }
        let session = try store.takeSession()
        return try read(
            on: session, begun: nil, store: store, lockTimeoutMilliseconds: lockTimeoutMilliseconds, stamping: oids, alongside: alongside
        )
    }

    /// Takes the snapshot on `session`, in the transaction `begun` began
    /// (`nil`: begins one first), and closes the session on failure.
    private static func read(
        on session: PostgresSession, begun: PostgresPendingQuery?, store: PostgresStore, lockTimeoutMilliseconds: Int?, stamping oids: [Int64],
        alongside: (PostgresSession) -> Void
    ) throws(PostgresStoreError) -> PostgresHeldSnapshot {
        do throws(PostgresStoreError) {
            // Prepared: a round runs it every time, and its planning costs
            // more than its execution. The values are written into it (a
            // lock timeout and OIDs, both the store's own).
            let sql = Self.sql(lockTimeoutMilliseconds: lockTimeoutMilliseconds, stamping: oids)
            try session.prepare(sql, request: "read the snapshot")
            // Sent one behind the other, with one wait: the connection
            // sends each as soon as the one before is answered. The lock
            // timeout is set in the snapshot's statement: it bounds the
            // statements after it, and it takes no lock. The stamps are
            // read after the snapshot is taken (the transaction's first
            // statement takes it), so in it.
            // A session begun ahead has waited idle the longest: one a
            // network dropped silently meanwhile is given up soon, and the
            // snapshot taken on another session.
            let limit = begun == nil ? session.endpoint.roundTripLimit : min(session.endpoint.roundTripLimit, PostgresBegunRead.answerLimit)
            let begun = begun ?? session.send(PostgresBegunRead.startNow, request: "begin a read", timeout: limit)
            let read = session.sendPrepared(sql, request: "read the snapshot", timeout: limit)
            alongside(session)
            // A failed BEGIN is the error to report (the statements after
            // it then ran on their own, outside any transaction).
            _ = try begun.rows()
            let row = try read.rows().rows.first
            guard let text = row?[0].string, let snapshot = PostgresXidSnapshot(text), let position = row?[1].string else {
                throw PostgresStoreError(kind: .server, request: "read the snapshot", message: "the server answered \(row.map { "\($0)" } ?? "nothing")")
            }
            return PostgresHeldSnapshot(
                session: session, snapshot: snapshot, walPosition: position, flushed: row?[2].string == "true",
                stamps: oids.isEmpty ? [:] : PostgresCatalogStamp.parse(row?.last?.string), store: store
            )
        } catch {
            session.close()
            throw error
        }
    }

    /// The statement that reads the snapshot, with the lock timeout and
    /// `oids` written in.
    static func sql(lockTimeoutMilliseconds: Int?, stamping oids: [Int64]) -> String {
        let timeout = lockTimeoutMilliseconds.map { ", set_config('lock_timeout', '\(max(0, $0))ms', true)" } ?? ""
        let stamps = oids.isEmpty ? "" : ", " + PostgresCatalogStamp.sql(oidsParameter: "'\(PostgresSQL.textArray(oids.map(String.init)))'")
        // Every column text: a prepared statement's answer is read as text
        // whatever form it comes in, and text's binary form is its text.
        return "SELECT pg_current_snapshot()::text, pg_current_wal_insert_lsn()::text, (pg_current_wal_flush_lsn() >= pg_current_wal_insert_lsn())::text"
            + timeout + stamps
    }

    /// Ends the read without waiting for the server: the session goes
    /// back to the store once it has committed.
    deinit {
        Self.end(session, givingBackTo: store, request: "end a read")
    }

    /// Ends the read-only transaction under way on `session` without
    /// waiting for the server, and gives the session back to `store` once
    /// it has (closes it when there is no store, or the end failed).
    static func end(_ session: PostgresSession, givingBackTo store: PostgresStore?, request: String) {
        guard let store else {
            session.close()
            return
        }
        // Weak: a store released meanwhile is not kept (nor ended) by the
        // event loop's callback.
        session.commitInBackground(request: request) { [weak store] committed in
            guard committed else { return }
            if let store { store.giveBack(session) } else { session.close() }
        }
    }
}

/// A session whose repeatable-read, read-only transaction was begun ahead
/// of need: the change feed begins the next round's transaction as a
/// round ends, so that the round's snapshot costs the statement that takes
/// it and not the round trip of `BEGIN` before it.
///
/// The transaction takes no snapshot and no transaction ID until its first
/// statement: while it waits it holds back no vacuum and no slot's making,
/// and locks no table (only its own virtual transaction ID, as every
/// transaction does). The server shows it as `idle in transaction`, its
/// statement ``startAhead`` and its `xact_start` the time `BEGIN` was
/// sent, and ends it at an `idle_in_transaction_session_timeout` (or
/// PostgreSQL 17's `transaction_timeout`); the snapshot is then taken on
/// another session (see
/// ``PostgresHeldSnapshot/open(_:lockTimeoutMilliseconds:stamping:begun:alongside:)``).
struct PostgresBegunRead {
    let session: PostgresSession
    /// The answer to `BEGIN`, read when the snapshot is taken.
    let answer: PostgresPendingQuery

    /// Takes a session of the store's and sends `BEGIN` on it, without
    /// waiting for the answer.
    ///
    /// - Throws: ``PostgresStoreError`` when no session can be had (the
    ///   store is closed, or connecting failed).
    static func begin(_ store: PostgresStore) throws(PostgresStoreError) -> PostgresBegunRead {
        let session = try store.takeSession()
        return PostgresBegunRead(session: session, answer: session.send(startAhead, request: "begin a read ahead", timeout: session.endpoint.roundTripLimit))
    }

    /// The statement that begins a transaction ahead of need. It differs
    /// from ``startNow`` in its first words only, so that
    /// `pg_stat_activity` tells a transaction waiting begun (its `query`)
    /// from one about to take its snapshot.
    static let startAhead = "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY"

    /// How long the snapshot's statement may wait for its answer on a
    /// session begun ahead before another session takes the snapshot.
    static let answerLimit: Duration = .seconds(10)

    /// The statement that begins a snapshot's transaction when none was
    /// begun ahead.
    static let startNow = "START TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY"

    /// Ends the transaction without waiting, and gives the session back to
    /// `store` once it has (closes it when the store is gone, or the end
    /// failed).
    func release(to store: PostgresStore?) {
        PostgresHeldSnapshot.end(session, givingBackTo: store, request: "end a read begun ahead")
    }
}

// MARK: The seam

extension PostgresStore: ResultsStore {
    /// Runs `body` with a reader of one snapshot, in a repeatable-read
    /// transaction of its own.
    package func withReader<T>(
        isolation: isolated (any Actor)?,
        _ body: (any StoreReader) throws(ResultsError) -> T
    ) throws(ResultsError) -> T {
        if Task.isCancelled { throw .cancelled }
        return try withSnapshot(body)
    }

    package func withRecordReader<T>(_ body: (any StoreReader, _ committed: Bool) throws(ResultsError) -> T) throws(ResultsError) -> T {
        try withSnapshot { reader throws(ResultsError) in try body(reader, true) }
    }

    private func withSnapshot<T>(_ body: (any StoreReader) throws(ResultsError) -> T) throws(ResultsError) -> T {
        let ticket: PostgresChangeFeed.ReaderTicket?
        do throws(PostgresStoreError) {
            // The capture starts before the snapshot: every commit the
            // snapshot does not see is then decoded.
            ticket = try feed().admitReader()
        } catch {
            throw error.resultsError
        }
        return try body(PostgresStoreReader(store: self, snapshot: PostgresDeferredSnapshot(store: self), ticket: ticket))
    }
}

/// A reader's snapshot, taken at its first statement: a reader that runs
/// none (a controller taking a commit whose rows the change feed read
/// already) costs no round trip. Taken after the reader's ticket, as the
/// snapshot would have been. A failure to take it is kept, and every later
/// statement of the reader fails with it (no second try).
///
/// `@unchecked Sendable`: its one mutable state, the snapshot or the
/// failure, is behind `opened`'s mutex.
final class PostgresDeferredSnapshot: @unchecked Sendable {
    private let store: PostgresStore
    private let opened = PThreadMutex<Result<PostgresHeldSnapshot, PostgresStoreError>?>(nil)

    init(store: PostgresStore) {
        self.store = store
    }

    /// The snapshot, taken now if it was not yet.
    ///
    /// - Throws: ``PostgresStoreError`` when the transaction cannot begin
    ///   (now or at the first try).
    func held() throws(PostgresStoreError) -> PostgresHeldSnapshot {
        if let known = opened.withLock({ $0 }) { return try known.get() }
        // A reader is used by one caller at a time; should two race, the
        // first kept wins and the other's transaction ends with it.
        let made = Result { () throws(PostgresStoreError) in try PostgresHeldSnapshot.open(store) }
        let (kept, first) = opened.withLock { current -> (Result<PostgresHeldSnapshot, PostgresStoreError>, Bool) in
            if let current { return (current, false) }
            current = made
            return (made, true)
        }
        if first, case .success = kept { store.countReaderSnapshot() }
        return try kept.get()
    }
}

/// A reader of one snapshot (see ``TesseraResultsCore/StoreReader``).
struct PostgresStoreReader: StoreReader {
    let store: PostgresStore
    let snapshot: PostgresDeferredSnapshot
    let ticket: PostgresChangeFeed.ReaderTicket?

    /// PostgreSQL hands every commit over: nothing is missed that a
    /// version would tell.
    func externalVersion() throws(ResultsError) -> Int64? { nil }

    func query(for request: FetchRequest) throws(ResultsError) -> any RowReader {
        try reader(.fetch(request))
    }

    func query(for request: SetRequest) throws(ResultsError) -> any RowReader {
        try reader(.set(request))
    }

    func queries(for parents: ParentRequest, _ children: ChildRequest) throws(ResultsError) -> (parents: any RowReader, children: any RowReader) {
        (try reader(.parents(parents)), try reader(.children(children)))
    }

    private func reader(_ request: PostgresRequest) throws(ResultsError) -> PostgresRowReader {
        PostgresRowReader(plan: try PostgresQueryPlan(request), snapshot: snapshot)
    }

    func follow(_ readers: [any RowReader], tuples: Bool, delivery: CommitDelivery, replacing previous: (any ChangeSource)?) -> any ChangeSource {
        let plans = readers.compactMap { ($0 as? PostgresRowReader)?.plan }
        let feed: PostgresChangeFeed
        let held: PostgresHeldSnapshot
        do throws(PostgresStoreError) {
            feed = try store.feed()
            held = try snapshot.held()
        } catch {
            delivery.deliverLater(.refetch)
            return PostgresChangeFeed.Source.inert
        }
        // In the fetch's snapshot: the shapes a round compares with.
        for plan in plans { plan.readShapes(in: held.session) }
        return feed.follow(plans, tuples: tuples, delivery: delivery, from: held, ticket: ticket, replacing: previous as? PostgresChangeFeed.Source)
    }
}
