
/// The unordered set of records a table holds that match a predicate,
/// following every commit made through the controller's connection: for
/// badges, counts and selection sets.
///
/// ```swift
/// let unread = FetchedSetController<Message>(
///     connection: connection,
///     request: SetRequest(table: "message", predicate: "unread = 1")
/// )
/// try unread.performFetch()
/// badge.count = unread.count
/// for await report in unread.reports { badge.count = report.newCount }
/// ```
///
/// Each committed transaction that changes the set gives one report (a
/// delegate callback sequence and an element of ``reports``) of the
/// records inserted, deleted and updated; transactions that change nothing
/// in the set, and rolled-back work, give none.
///
/// The controller keeps no order, so following a commit is cheap: for each
/// row of the table the transaction changed (SQLite's pre-update hook gives
/// its key before and after), it reads just that row back by key under the
/// predicate. It re-fetches the whole set instead when the commit changed
/// more rows than ``incrementalLimit``, changed another table the request
/// reads (a view's base table, a subquery's), or changed the schema, and
/// on every commit when the predicate has a subquery (`SELECT`), which can
/// make one row's change move others in or out; both ways give the same
/// reports. The predicate must otherwise depend only on the row's own
/// values (not on `random()` or the current time). Changes made by other connections are seen
/// by ``refresh(isolation:)``.
///
/// Not `Sendable`: it lives and reports in the isolation of the code that
/// calls ``performFetch(isolation:)``, as a ``FetchedResultsController``
/// does (see its discussion of isolation).
public final class FetchedSetController<Record: FetchableRecord> {
    /// The store it reads and follows.
    package let store: any ResultsStore
    /// The request.
    public let request: SetRequest
    /// Called for every report.
    ///
    /// Held weakly, as UIKit's and Core Data's delegates are: the
    /// controller does not keep its delegate alive. Keep a reference to it
    /// for as long as it should hear reports; a delegate nothing else
    /// holds is released at once, and nothing is reported to it:
    ///
    /// ```swift
    /// controller.delegate = Badge()   // released at once (the compiler warns): hears nothing
    ///
    /// let badge = Badge()             // kept while `badge` is
    /// controller.delegate = badge
    /// ```
    ///
    /// ``reports`` delivers the same reports without a delegate.
    public weak var delegate: (any FetchedSetControllerDelegate<Record>)?
    /// The tables the request reads (views report their base tables).
    public private(set) var observedTables: Set<String> = []
    /// The error of the last update after a commit, or `nil` once one
    /// succeeds. The records are the last good ones meanwhile.
    public private(set) var lastError: ResultsError?
    /// The most changed rows a commit reads back one by one; beyond it the
    /// controller re-fetches the set. `nil` (the default) means a quarter
    /// of the set, and at least 64; 0 always re-fetches.
    public var incrementalLimit: Int? {
        didSet { delivery.touchedLimit = touchedLimit }
    }

    /// The records by the value of their key column.
    private var byKey: [DatabaseValue: Record] = [:]
    /// The key column value of each record, by record id.
    private var keyOfID: [Record.ID: DatabaseValue] = [:]
    /// How the store orders keys (reports list records in that order).
    private var keyOrdering: any SortOrdering = SQLiteSortOrdering(collation: .binary, ascending: true)
    /// Where commits are handed over.
    private(set) lazy var delivery = CommitDelivery(to: receiver)
    /// Whether commits are followed (a fetch succeeded).
    private var isFollowing = false
    /// The store's source of this fetch's commits.
    private var changeSource: (any ChangeSource)?
    /// The adapter the delivery reaches the controller through.
    private lazy var receiver = _Receiver(self)
    private let streams = _ReportHub<SetChangeReport<Record>>(merging: SetChangeReport.merging)
    /// An update failed: the next commit re-fetches.
    private var needsRefetch = false
    /// How the last commits were followed, for tests and diagnostics.
    private(set) var incrementalUpdates = 0
    private(set) var refetches = 0

    /// Creates a controller over a store.
    package init(store: any ResultsStore, request: SetRequest) {
        self.store = store
        self.request = request
    }

    // MARK: Fetching

    /// Fetches the set and starts following commits, reporting them in the
    /// caller's isolation.
    ///
    /// Cancellable: when the task that calls it is cancelled (before or
    /// while it runs), or another thread calls the connection's
    /// `Connection.interrupt()` (TesseraSQLite) while it runs, it throws
    /// ``ResultsError/cancelled`` and the controller keeps the result it
    /// had.
    ///
    /// - Parameter isolation: The caller's isolation (the default says
    ///   so). An actor becomes the controller's home, where it reports from
    ///   now on; no actor keeps the home the controller has (see the
    ///   discussion of isolation in ``FetchedResultsController``).
    /// - Throws: ``ResultsError`` for SQL SQLite refuses (an unknown table
    ///   or column), repeated keys or ids, or records that fail to decode;
    ///   ``ResultsError/cancelled`` when cancelled.
    /// - Complexity: O(*n*) to read *n* records, plus SQLite's work.
    public func performFetch(isolation: isolated (any Actor)? = #isolation) throws(ResultsError) {
        delivery.setHome(isolation)
        try store.withReader(isolation: isolation) { reader throws(ResultsError) in
            let (query, records, ids) = try fetchAll(from: reader)
            byKey = records
            keyOfID = ids
            needsRefetch = false
            follow(query, from: reader)
        }
    }

    /// Fetches again and reports what changed (for changes the controller
    /// could not see, such as other connections' commits). Cancellable as
    /// ``performFetch(isolation:)`` is.
    ///
    /// - Throws: ``ResultsError``; the controller keeps its records then.
    /// - Complexity: O(*n*), plus O(*k* log *k*) to order *k* changes.
    public func refresh(isolation: isolated (any Actor)? = #isolation) throws(ResultsError) {
        try store.withReader(isolation: isolation) { reader throws(ResultsError) in try refetchAndReport(from: reader) }
        lastError = nil
    }

    /// The reports, for Swift concurrency: each access makes a new
    /// sequence that receives every later report. A consumer more than
    /// `bufferLimit` reports behind gets the newest ones merged into one
    /// exact report (see ``ReportSequence`` and ``SetChangeReport``).
    public func reports(bufferLimit: Int) -> ReportSequence<SetChangeReport<Record>> { streams.makeSequence(limit: bufferLimit) }

    /// ``reports(bufferLimit:)`` with a limit of 64 waiting reports.
    public var reports: ReportSequence<SetChangeReport<Record>> { reports(bufferLimit: 64) }

    // MARK: Reading

    /// The number of records.
    public var count: Int { byKey.count }

    /// Whether the record with an id is in the set.
    public func contains(id: Record.ID) -> Bool { keyOfID[id] != nil }

    /// The record with an id, or `nil` when it is not in the set.
    public func record(withID id: Record.ID) -> Record? { keyOfID[id].flatMap { byKey[$0] } }

    /// The ids of the records.
    ///
    /// - Complexity: O(*n*).
    public var ids: Set<Record.ID> { Set(keyOfID.keys) }

    /// The records, in no particular order.
    ///
    /// - Complexity: O(*n*).
    public var records: [Record] { Array(byKey.values) }

    // MARK: Following the store

    /// The most changed rows a commit reads back one by one.
    private var touchedLimit: Int { incrementalLimit ?? max(64, byKey.count / 4) }

    private func fetchAll(from reader: any StoreReader) throws(ResultsError) -> (any RowReader, [DatabaseValue: Record], [Record.ID: DatabaseValue]) {
        let query = try reader.query(for: request)
        var records: [DatabaseValue: Record] = [:]
        var ids: [Record.ID: DatabaseValue] = [:]
        try query.readAll { (leading, row) throws(ResultsError) in
            let record = try Self.decode(row, key: leading.value(at: 0))
            guard records.updateValue(record, forKey: leading.value(at: 0)) == nil else { throw .duplicateKey(leading.value(at: 0).description) }
            guard ids.updateValue(leading.value(at: 0), forKey: record.id) == nil else { throw .duplicateKey("\(record.id)") }
        }
        observedTables = query.readTables
        keyOrdering = query.keyOrdering
        return (query, records, ids)
    }

    private static func decode(_ row: Row, key: DatabaseValue) throws(ResultsError) -> Record {
        do { return try Record(row: row) } catch { throw .decoding(key: key.description, message: "\(error)") }
    }

    /// Follows the commits to what `query` read, from the state `reader`
    /// sees on.
    private func follow(_ query: any RowReader, from reader: any StoreReader) {
        delivery.dropWaiting()
        delivery.touchedLimit = touchedLimit
        isFollowing = true
        changeSource = reader.follow([query], tuples: false, delivery: delivery, replacing: changeSource)
    }

    private func refetchAndReport(from reader: any StoreReader) throws(ResultsError) {
        let (query, records, ids) = try fetchAll(from: reader)
        var inserted: [(DatabaseValue, Record)] = []
        var deleted: [(DatabaseValue, Record)] = []
        var updated: [(DatabaseValue, Record)] = []
        for (key, record) in records {
            if let old = byKey[key] {
                if old != record { updated.append((key, record)) }
            } else {
                inserted.append((key, record))
            }
        }
        for (key, record) in byKey where records[key] == nil { deleted.append((key, record)) }
        let oldCount = byKey.count
        byKey = records
        keyOfID = ids
        needsRefetch = false
        refetches += 1
        if isFollowing { follow(query, from: reader) }
        report(inserted: inserted, deleted: deleted, updated: updated, oldCount: oldCount)
    }

    /// Reads each changed row back by key and applies what changed.
    private func updateIncrementally(keys: [DatabaseValue], rowsAfter: CommittedChanges.RowsAfter?, from reader: any StoreReader) throws(ResultsError) {
        var inserted: [(DatabaseValue, Record)] = []
        var deleted: [(DatabaseValue, Record)] = []
        var updated: [(DatabaseValue, Record)] = []
        var current: [DatabaseValue: Record] = [:]
        let query = try reader.query(for: request)
        try (rowsAfter.map { OverlayRowReader(base: query, rows: $0) } ?? query).readRows(keys: keys) { (leading, row) throws(ResultsError) in
            current[leading.value(at: 0)] = try Self.decode(row, key: leading.value(at: 0))
        }
        for key in keys {
            switch (byKey[key], current[key]) {
            case let (nil, new?): inserted.append((key, new))
            case let (old?, nil): deleted.append((key, old))
            case let (old?, new?) where old != new: updated.append((key, new))
            default: break
            }
        }
        // Check the new ids before changing anything, so a failure keeps
        // the last good records.
        var keyOfID = self.keyOfID
        for (key, _) in deleted + updated { if let old = byKey[key] { keyOfID[old.id] = nil } }
        for (key, record) in updated + inserted {
            guard keyOfID.updateValue(key, forKey: record.id) == nil else { throw .duplicateKey("\(record.id)") }
        }
        let oldCount = byKey.count
        for (key, _) in deleted { byKey[key] = nil }
        for (key, record) in updated { byKey[key] = record }
        for (key, record) in inserted { byKey[key] = record }
        self.keyOfID = keyOfID
        incrementalUpdates += 1
        delivery.touchedLimit = touchedLimit
        report(inserted: inserted, deleted: deleted, updated: updated, oldCount: oldCount)
    }

    private func report(inserted: [(DatabaseValue, Record)], deleted: [(DatabaseValue, Record)], updated: [(DatabaseValue, Record)], oldCount: Int) {
        let ordering = keyOrdering
        func ordered(_ changes: [(DatabaseValue, Record)]) -> [Record] {
            changes.sorted { ordering.compare($0.0, $1.0) < 0 }.map(\.1)
        }
        let report = SetChangeReport(inserted: ordered(inserted), deleted: ordered(deleted), updated: ordered(updated), oldCount: oldCount, newCount: byKey.count)
        guard !report.isEmpty else { return }
        // The sequences first: a delegate that makes the controller report
        // again from inside cannot put that report ahead of this one.
        streams.yield(report)
        if let delegate {
            delegate.controllerWillChangeContent(self)
            for record in report.deleted { delegate.controller(self, didChange: record, for: .delete) }
            for record in report.inserted { delegate.controller(self, didChange: record, for: .insert) }
            for record in report.updated { delegate.controller(self, didChange: record, for: .update) }
            delegate.controller(self, didChangeContentWith: report)
        }
    }

    /// Applies one commit's changes (or several merged): reads the changed
    /// rows back, or re-fetches, and reports what changed in the set.
    ///
    /// - Complexity: O(*k*) row reads for *k* changed rows, or O(*n*) for a
    ///   re-fetch, plus O(*c* log *c*) to order *c* changes.
    func apply(_ changes: CommittedChanges, from reader: any StoreReader) {
        do throws(ResultsError) {
            if needsRefetch || changes.mustRefetch || changes.touched.count > touchedLimit {
                try refetchAndReport(from: reader)
            } else {
                try updateIncrementally(keys: Array(changes.touched.keys), rowsAfter: changes.rowsAfter, from: reader)
            }
            lastError = nil
        } catch {
            fail(error)
        }
    }

    /// Notes a failure to follow a commit: the set may be older than the
    /// store now, so the next commit re-fetches.
    func fail(_ error: ResultsError) {
        lastError = error
        needsRefetch = true
        delegate?.controller(self, didFailWith: error)
    }
}

extension FetchedSetController: _CommitFollowing {}

@available(*, unavailable)
extension FetchedSetController: Sendable {}
