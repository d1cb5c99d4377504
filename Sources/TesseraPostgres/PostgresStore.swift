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
    /// URL names (`?sslmode=disable|prefer|require`; TLS is off by default on
    /// loopback and preferred elsewhere).
    ///
    /// Every round trip to the server is bounded: a statement the server
    /// has not answered within `roundTripLimit` (a server or a network
    /// that went silent) fails with ``PostgresStoreError/Kind/serverGone``,
    /// and its session is closed; the store's next read or write uses a
    /// new one. Connecting is bounded by 10 s.
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
        if !keep { session.close() }
    }

    /// The passes of the change feed's loop so far (see
    /// ``PostgresChangeFeed/passes``); `nil` while nothing follows.
    package var feedPasses: Int? {
        feedState.withLock { $0 }?.passes
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

    private init(session: PostgresSession, snapshot: PostgresXidSnapshot, walPosition: String, flushed: Bool, store: PostgresStore) {
        self.session = session
        self.snapshot = snapshot
        self.walPosition = walPosition
        self.flushed = flushed
        self.store = store
    }

    /// Begins a repeatable-read, read-only transaction and reads its
    /// snapshot.
    ///
    /// - Parameter lockTimeout: How long its reads may wait for a table's
    ///   lock (`100ms`), `nil` for the server's setting. A change-capture
    ///   round's snapshot sets one: its reads would otherwise queue behind
    ///   a `TRUNCATE` or `ALTER TABLE` that itself waits for the lock the
    ///   sources' previous snapshots hold, which only the round releases.
    static func open(_ store: PostgresStore, lockTimeout: String? = nil) throws(PostgresStoreError) -> PostgresHeldSnapshot {
        let session = try store.takeSession()
        do throws(PostgresStoreError) {
            try session.query("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY", request: "begin a read")
            // The lock timeout is set in the same round trip: it bounds the
            // statements after this one, and this one takes no lock.
            let row = try session.query(
                """
                SELECT pg_current_snapshot()::text, pg_current_wal_insert_lsn()::text, pg_current_wal_flush_lsn() >= pg_current_wal_insert_lsn(),
                       CASE WHEN $1::text IS NULL THEN NULL ELSE set_config('lock_timeout', $1::text, true) END
                """,
                [lockTimeout.map(DatabaseValue.text) ?? .null], request: "read the snapshot"
            ).rows.first
            guard let text = row?[0].string, let snapshot = PostgresXidSnapshot(text), let position = row?[1].string else {
                throw PostgresStoreError(kind: .server, request: "read the snapshot", message: "the server answered \(row.map { "\($0)" } ?? "nothing")")
            }
            return PostgresHeldSnapshot(session: session, snapshot: snapshot, walPosition: position, flushed: row?[2] == .integer(1), store: store)
        } catch {
            session.close()
            throw error
        }
    }

    deinit {
        if let store, (try? session.query("COMMIT", request: "end a read")) != nil {
            store.giveBack(session)
        } else {
            session.close()
        }
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
        let held: PostgresHeldSnapshot
        do throws(PostgresStoreError) {
            // The capture starts before the snapshot: every commit the
            // snapshot does not see is then decoded.
            ticket = try feed().admitReader()
            held = try PostgresHeldSnapshot.open(self)
        } catch {
            throw error.resultsError
        }
        return try body(PostgresStoreReader(store: self, held: held, ticket: ticket))
    }
}

/// A reader of one snapshot (see ``TesseraResultsCore/StoreReader``).
struct PostgresStoreReader: StoreReader {
    let store: PostgresStore
    let held: PostgresHeldSnapshot
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
        PostgresRowReader(plan: try PostgresQueryPlan(request), session: held.session)
    }

    func follow(_ readers: [any RowReader], tuples: Bool, delivery: CommitDelivery, replacing previous: (any ChangeSource)?) -> any ChangeSource {
        let plans = readers.compactMap { ($0 as? PostgresRowReader)?.plan }
        // In the fetch's snapshot: the shapes a round compares with.
        for plan in plans { plan.readShapes(in: held.session) }
        let feed: PostgresChangeFeed
        do throws(PostgresStoreError) { feed = try store.feed() } catch {
            delivery.deliverLater(.refetch)
            return PostgresChangeFeed.Source.inert
        }
        return feed.follow(plans, tuples: tuples, delivery: delivery, from: held, ticket: ticket, replacing: previous as? PostgresChangeFeed.Source)
    }
}
