#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif
public import TesseraDiff

/// Sorted, sectioned results of a fetch request that follow every commit,
/// like Core Data's `NSFetchedResultsController`.
///
/// ```swift
/// let controller = try FetchedResultsController<Photo>(connection: connection, request: request)
/// try controller.performFetch()
/// controller.object(at: IndexPath(item: 0, section: 0))
/// for await report in controller.reports { apply(report.changeset) }
/// ```
///
/// Each committed transaction that changes the result gives one report (a
/// delegate callback sequence and an element of ``reports``); transactions
/// that change nothing visible, and rolled-back work, give none.
///
/// **How a commit is applied.** When the request allows it (see
/// ``supportsIncrementalUpdates``), the controller keeps the sort values of
/// every row (8 bytes a value while they are integers) and patches the
/// result: for each row the transaction touched it reads just that row by
/// key, finds its old and new places by binary search, and builds the
/// report directly, in time that follows the size of the change, not of the
/// result. The report is the one ``TesseraDiff/diff(from:to:)`` gives for
/// the two results, exactly. Requests over a view or your own SELECT, sort
/// keys that are expressions rather than columns, collations other than
/// BINARY, NOCASE and RTRIM, and transactions that touch more than
/// ``incrementalThreshold`` of the result re-fetch and diff instead.
///
/// **Other connections.** Commits made elsewhere (another connection or
/// process) are seen by polling `PRAGMA data_version`:
/// ``followExternalChanges(every:isolation:)`` polls every 100 ms by
/// default, ``checkForExternalChanges(isolation:)`` polls once, and
/// ``refresh(isolation:)`` re-fetches unconditionally.
///
/// **Isolation.** The controller is not `Sendable`: it lives in the actor
/// of the code that calls ``performFetch(isolation:)`` (its *home*: the
/// main actor, an actor of yours, or an actor that runs on a serial
/// executor of yours), and its state changes and its reports are delivered
/// there only. A commit made by code running there is reported before the
/// write returns: code isolated to the home, and, when the home is the main
/// actor, any code on the main actor (a nonisolated helper called from
/// there included). A commit made anywhere else (another actor, a detached
/// task), or by a nonisolated synchronous helper called from a home other
/// than the main actor, waits, and the home actor runs a job that reports
/// it, merged with any others that waited, when it is next free (for code
/// running there, at its next `await`); ``deliverWaitingChanges(isolation:)``
/// reports it at once. Nothing else can reach the controller: it
/// follows commits through an observer of its own, not through public
/// methods. The home is held weakly, so an actor that owns its controller
/// is released as usual. A call from no actor (a nonisolated function)
/// keeps the home: it can only reach the controller from there. A
/// controller fetched outside any actor has no home to send work to: it
/// takes each commit at once, on the thread that commits, so use it only
/// from code that does not run at the same time as other writers of its
/// connection (give it an actor to have Swift check that for you).
///
/// Built on the store seam (see <doc:TheStoreSeam>): the store-independent
/// engine keeps the result and applies commits; SQLite reads the rows and
/// hands over the commits.
public final class FetchedResultsController<Record: FetchableRecord> {
    /// How a report was made.
    public enum UpdateMethod: String, Hashable, Sendable {
        /// The result was patched row by row.
        case incremental
        /// The result was fetched again and diffed.
        case refetch
    }

    /// The store it reads and follows.
    package let store: any ResultsStore
    /// The request; change it with ``setRequest(_:isolation:)``.
    public private(set) var request: FetchRequest
    /// The result.
    public var result: FetchedResult<Record> { engine.result }
    /// Called for every report.
    ///
    /// Held weakly, as UIKit's and Core Data's delegates are: the
    /// controller does not keep its delegate alive. Keep a reference to it
    /// for as long as it should hear reports; a delegate nothing else
    /// holds is released at once, and nothing is reported to it:
    ///
    /// ```swift
    /// controller.delegate = PhotoList()   // released at once (the compiler warns): hears nothing
    ///
    /// let list = PhotoList()              // kept while `list` is
    /// controller.delegate = list
    /// ```
    ///
    /// ``reports`` delivers the same reports without a delegate.
    public weak var delegate: (any FetchedResultsControllerDelegate<Record>)?
    /// The tables the request reads (views report their base tables).
    public private(set) var observedTables: Set<String> = []
    /// The error of the last update after a commit, or `nil` once one
    /// succeeds. The result is the last good one meanwhile.
    public private(set) var lastError: ResultsError?
    /// Whether commits patch the result when the request allows it (the
    /// default); `false` re-fetches and diffs on every commit. Both give
    /// the same reports.
    public var isIncremental = true
    /// The share of the result's rows one transaction may touch and still
    /// be applied row by row; above it the result is fetched again. The
    /// default is 0.1; a minimum of one row always qualifies.
    public var incrementalThreshold = 0.1 {
        didSet { delivery.touchedLimit = touchedLimit }
    }
    /// The most rows a transaction may touch and be patched: at least one,
    /// `incrementalThreshold` of the result (a share of 1 or more, or
    /// infinity, is no limit; NaN or a negative share is one row).
    private var touchedLimit: Int {
        let share = incrementalThreshold
        guard !share.isNaN, share > 0 else { return 1 }
        guard share < 1 else { return .max }
        return Swift.max(1, Int(share * Double(result.count)))
    }

    /// How the last report (or the last commit that changed nothing) was
    /// made, or `nil` before the first commit.
    public private(set) var lastUpdateMethod: UpdateMethod?

    /// The result, the kept sort values and the rules for commits.
    var engine = _ResultEngine<Record>()
    /// Where commits are handed over.
    private(set) lazy var delivery = CommitDelivery(to: receiver)
    /// Whether commits are followed (a fetch succeeded).
    private(set) var isFollowing = false
    /// The store's source of this fetch's commits.
    private var changeSource: (any ChangeSource)?
    /// The adapter the delivery reaches the controller through.
    private lazy var receiver = _Receiver(self)
    private let hub = _ReportHub<ChangeReport<Record>>(merging: ChangeReport.merging)
    /// Where a lazy result's records come from, with the request they read.
    private var faults: (request: FetchRequest, faults: _RecordFaults<Record>)?
    /// The user-driven change under way (see
    /// ``performUserDrivenChange(_:isolation:write:)``), or `nil`.
    var userDrivenStep: _UserDrivenStep<FetchedResult<Record>, Record>?

    /// Creates a controller over a store; nothing is fetched until
    /// ``performFetch(isolation:)``.
    package init(store: any ResultsStore, request: FetchRequest) throws(ResultsError) {
        try request.validate()
        self.store = store
        self.request = request
    }

    // MARK: Reading

    /// The result as a snapshot.
    ///
    /// - Complexity: O(*n*) on first use after a change, then O(1).
    public var snapshot: Snapshot<ResultSection, Record> { result.snapshot }
    /// The sections, in order.
    public var sections: [ResultSection] { result.sections }
    /// The number of sections.
    public var numberOfSections: Int { result.numberOfSections }
    /// The number of records in a section, as Core Data's
    /// `sections[section].numberOfObjects` (and UIKit's
    /// `collectionView(_:numberOfItemsInSection:)`) count them.
    ///
    /// - Parameter section: the index of a section.
    /// - Precondition: `section` is in `0..<numberOfSections`.
    /// - Complexity: O(1).
    public func numberOfObjects(inSection section: Int) -> Int { result.numberOfRecords(inSection: section) }
    /// The record at an index path.
    ///
    /// - Complexity: O(log *n*).
    public func object(at indexPath: IndexPath) -> Record { result[indexPath] }
    /// The index path of a record (by its id), or `nil`.
    ///
    /// - Complexity: O(*n*).
    public func indexPath(for record: Record) -> IndexPath? { result.indexPath(ofRecordWithID: record.id) }

    /// Whether commits can patch this request's result (see the type's
    /// discussion), known once it is fetched.
    public var supportsIncrementalUpdates: Bool { engine.plan != nil }

    /// Bytes the kept sort values take (8 a value while they are integers;
    /// a sectioned result's section values once a section, where that
    /// takes less; text and blob contents not counted), 0 when the request
    /// re-fetches.
    public var keptSortValueByteCount: Int { engine.keptSortValueByteCount }

    // MARK: Fetching

    /// Fetches the result and starts following commits, reporting them in
    /// the caller's isolation (see the type's discussion).
    ///
    /// A lazy request (``FetchRequest/fetchBatchSize`` above 0) on an
    /// SQLite file in WAL mode returns once it has counted each section,
    /// and its keys load in the background (``isLoading``; see
    /// <doc:LargeLists> for what is immediate and what is eventual).
    ///
    /// Cancellable: when the task that calls it is cancelled (before or
    /// while it runs), or another thread calls the connection's
    /// `Connection.interrupt()` (TesseraSQLite) while it reads on that
    /// connection, it throws ``ResultsError/cancelled`` and the controller
    /// keeps the result it had.
    ///
    /// - Parameter isolation: The caller's isolation (the default says
    ///   so). An actor becomes the controller's home, where it reports from
    ///   now on; no actor keeps the home the controller has (see the
    ///   discussion of isolation in ``FetchedResultsController``).
    /// - Throws: ``ResultsError`` for SQL SQLite refuses (an unknown table
    ///   or column), duplicate keys, or records that fail to decode;
    ///   ``ResultsError/cancelled`` when cancelled.
    /// - Complexity: O(*n* log *n*) for SQLite's sort of *n* rows, plus
    ///   O(*n*) to read them; a lazy request that opens while its keys
    ///   load, SQLite's grouped count of the sections (O(*n*) steps of an
    ///   index), the rest in the background.
    public func performFetch(isolation: isolated (any Actor)? = #isolation) throws(ResultsError) {
        delivery.setHome(isolation)
        try store.withReader(isolation: isolation) { reader throws(ResultsError) in
            var opened = try openWhileLoading(request, from: reader)
            if opened == nil { opened = try fetch(request, from: reader) }
            guard let (query, fetched) = opened else { return }
            install(fetched, tables: query.readTables)
            follow(query, from: reader)
        }
    }

    /// Whether the result's keys are still loading in the background: a
    /// lazy request (``FetchRequest/fetchBatchSize``) that
    /// ``performFetch(isolation:)`` opened before reading them (see
    /// <doc:LargeLists>). Its sections, counts and records are there to
    /// read meanwhile.
    public var isLoading: Bool { engine.loading.map { !$0.isFinished } ?? false }

    /// Waits until the result's keys are loaded (see ``isLoading``), then
    /// returns; at once when nothing loads. A load that failed is
    /// replaced by a fetch, reported as ``refresh(isolation:)`` reports.
    ///
    /// Commits wait for the load by themselves, so reports are exact
    /// without this call; it is for work that wants the whole result (a
    /// ``snapshot``, an ``indexPath(for:)``) without blocking on it later.
    ///
    /// - Throws: ``ResultsError`` from the fetch that replaces a failed
    ///   load.
    /// - Complexity: blocks the calling thread for the rest of the load;
    ///   see ``waitUntilLoaded(isolation:)`` to wait without blocking.
    public func finishLoading(isolation: isolated (any Actor)? = #isolation) throws(ResultsError) {
        guard engine.finishLoading() != nil else { return }
        try refresh(isolation: isolation)
    }

    /// Waits, without blocking a thread, until the result's keys are
    /// loaded, then finishes as ``finishLoading(isolation:)`` does.
    ///
    /// - Throws: ``ResultsError`` from the fetch that replaces a failed
    ///   load.
    public func waitUntilLoaded(isolation: isolated (any Actor)? = #isolation) async throws(ResultsError) {
        if let load = engine.loading { await load.waitAsync() }
        try finishLoading(isolation: isolation)
    }

    /// Fetches again and reports what changed (for changes the controller
    /// could not see, such as a file replaced under it). Cancellable as
    /// ``performFetch(isolation:)`` is.
    ///
    /// - Throws: ``ResultsError``.
    /// - Complexity: O(*n* log *n*).
    public func refresh(isolation: isolated (any Actor)? = #isolation) throws(ResultsError) {
        try store.withReader(isolation: isolation) { reader throws(ResultsError) in try refetchAndReport(from: reader) }
        lastError = nil
    }

    /// Re-fetches and reports if another connection or process committed
    /// since the result was last brought up to date (`PRAGMA
    /// data_version` moved). Its re-fetch is cancellable as
    /// ``performFetch(isolation:)`` is.
    ///
    /// A controller with no home (fetched outside any actor) over a store
    /// that follows commits in the background (PostgreSQL) takes the
    /// commits that waited for it here too, and reports them.
    ///
    /// - Returns: Whether the data version had moved, or commits waited.
    /// - Throws: ``ResultsError``.
    @discardableResult
    public func checkForExternalChanges(isolation: isolated (any Actor)? = #isolation) throws(ResultsError) -> Bool {
        try store.withReader(isolation: isolation) { reader throws(ResultsError) -> Bool in
            if let waiting = delivery.takeWaiting() {
                // A failure is reported (and kept in lastError) by apply.
                applyWaiting(waiting, from: reader)
                return true
            }
            let version = try reader.externalVersion()
            guard version != engine.externalVersion else { return false }
            if !takeLoggedChanges(from: reader, externalVersion: version) { try refetchAndReport(from: reader) }
            lastError = nil
            return true
        }
    }

    /// Whether commits that a store following them in the background
    /// (PostgreSQL) handed over wait for ``checkForExternalChanges(isolation:)``
    /// to take them.
    package var hasWaitingCommits: Bool { delivery.hasWaiting }

    /// Polls for other connections' and processes' commits until the task
    /// is cancelled: every `interval`, ``checkForExternalChanges(isolation:)``.
    /// Errors go to the delegate's `didFailWith` and ``lastError``; polling
    /// goes on. Cancelling the task stops a re-fetch under way too, and
    /// that is no error: the controller keeps its result and says nothing.
    ///
    /// ```swift
    /// let polling = Task { await controller.followExternalChanges() }
    /// // …
    /// polling.cancel()
    /// ```
    ///
    /// Not calling it (or cancelling its task) turns polling off.
    public func followExternalChanges(
        every interval: Duration = .milliseconds(100),
        isolation: isolated (any Actor)? = #isolation
    ) async {
        while !Task.isCancelled {
            do throws(ResultsError) {
                try checkForExternalChanges(isolation: isolation)
            } catch .cancelled where Task.isCancelled {
                return
            } catch {
                fail(error)
            }
            do { try await Task.sleep(for: interval) } catch { return }
        }
    }

    /// Changes the request and reports the difference between the old
    /// result and the new one.
    ///
    /// - Throws: ``ResultsError``; the controller keeps its old request then.
    public func setRequest(_ newRequest: FetchRequest, isolation: isolated (any Actor)? = #isolation) throws(ResultsError) {
        try newRequest.validate()
        let old = request
        request = newRequest
        do throws(ResultsError) {
            try refresh(isolation: isolation)
        } catch {
            request = old
            throw error
        }
    }

    /// The reports, for Swift concurrency: each access makes a new
    /// sequence that receives every later report. A consumer more than
    /// `bufferLimit` reports behind gets the newest ones merged into one
    /// exact report (see ``ChangeReports``).
    ///
    /// Read each report's rows from the report (``ChangeReport/new``, and
    /// ``ChangeReport/old`` for where it starts), never from ``result``:
    /// the controller applies every commit as it comes, so while a
    /// consumer handles one report the controller is usually ahead of it.
    public func reports(bufferLimit: Int) -> ChangeReports<Record> {
        hub.makeSequence(limit: bufferLimit)
    }

    /// ``reports(bufferLimit:)`` with a limit of 64 waiting reports.
    public var reports: ChangeReports<Record> { reports(bufferLimit: 64) }

    // MARK: Following the store

    /// Reads the request's whole result.
    private func fetch(_ request: FetchRequest, from reader: any StoreReader) throws(ResultsError) -> (any RowReader, _ResultEngine<Record>.Fetched) {
        let version = try? reader.externalVersion()
        let query = try reader.query(for: request)
        let position = try? reader.changeLogPosition(for: query)
        var fetched = try _ResultEngine<Record>.fetch(
            query, sectioned: request.sectionKey != nil, externalVersion: version, faults: recordFaults(for: request)
        )
        fetched.logPosition = position
        return (query, fetched)
    }

    /// A lazy request's result opened before its keys are read, when the
    /// store holds a snapshot for it: the sections and their counts now,
    /// records by position while the keys load on a thread of their own
    /// (see ``_KeyLoad``). `nil` when the store cannot, or its counts fail
    /// (the whole fetch then says why).
    private func openWhileLoading(_ request: FetchRequest, from reader: any StoreReader) throws(ResultsError) -> (any RowReader, _ResultEngine<Record>.Fetched)? {
        guard request.fetchBatchSize > 0 else { return nil }
        let version = try? reader.externalVersion()
        let query = try reader.query(for: request)
        let position = try? reader.changeLogPosition(for: query)
        let plan = query.patchPlan
        let keysAreUnique = query.keysAreUnique
        // Only where the counts cannot disagree with the sorted rows: keys
        // the store keeps unique (a whole fetch refuses a repeated one),
        // and sections a patch plan orders (below: none tie).
        guard keysAreUnique, request.sectionKey == nil || plan != nil,
              let faults = recordFaults(for: request), let snapshot = reader.snapshot(for: request)
        else { return nil }
        let counts: [(value: DatabaseValue, count: Int)]
        do throws(ResultsError) { counts = try snapshot.sectionCounts() } catch {
            snapshot.close()
            if error == .cancelled { throw error }
            return nil
        }
        // Sections that sort as equal (under the sort's collation, or 1
        // and 1.0) come in an order the grouped count cannot tell, and
        // their rows may mix: the whole fetch decides.
        if let ordering = plan?.orderings.first, request.sectionKey != nil,
           zip(counts, counts.dropFirst()).contains(where: { ordering.compare($0.value, $1.value) == 0 }) {
            snapshot.close()
            return nil
        }
        let load = _KeyLoad(counts: counts, snapshot: snapshot, faults: faults, sectioned: request.sectionKey != nil)
        let delivery = delivery
        load.start(plan: plan, keysAreUnique: keysAreUnique, keyOrdering: query.keyOrdering, tables: query.readTables) {
            // Fetched again at the home's next turn (or the next commit).
            delivery.deliverLater(.refetch)
        }
        let fetched = _ResultEngine<Record>.Fetched(
            state: _ResultState(loading: load, faults: faults), plan: plan, keys: .none, externalVersion: version, logPosition: position
        )
        return (query, fetched)
    }

    /// The record source of a lazy request (``FetchRequest/fetchBatchSize``
    /// above 0): the one the result has when the request is the same, so
    /// that the records read stay kept; `nil` for a request that reads
    /// every record.
    private func recordFaults(for request: FetchRequest) -> _RecordFaults<Record>? {
        guard request.fetchBatchSize > 0 else { return nil }
        if let faults, faults.request == request { return faults.faults }
        let store = store
        let made = _RecordFaults<Record>(batchSize: request.fetchBatchSize) { keys throws(ResultsError) in
            try store.withRecordReader { (reader, committed) throws(ResultsError) in
                var records: [DatabaseValue: Record] = [:]
                records.reserveCapacity(keys.count)
                try reader.query(for: request).readRows(keys: keys) { (leading, row) throws(ResultsError) in
                    let key = leading.value(at: 1)
                    do { records[key] = try Record(row: row) } catch { throw .decoding(key: key.description, message: "\(error)") }
                }
                return (records, committed)
            }
        }
        faults = (request, made)
        return made
    }

    private func install(_ fetched: _ResultEngine<Record>.Fetched, tables: Set<String>) {
        engine.install(fetched)
        observedTables = tables
    }

    /// Follows the commits to what `query` read, from the state `reader`
    /// sees on; changes that waited are in that state already.
    private func follow(_ query: any RowReader, from reader: any StoreReader) {
        delivery.dropWaiting()
        delivery.touchedLimit = touchedLimit
        isFollowing = true
        changeSource = reader.follow([query], tuples: engine.plan != nil, delivery: delivery, replacing: changeSource)
    }

    private func refetchAndReport(from reader: any StoreReader) throws(ResultsError) {
        lastUpdateMethod = .refetch
        let query: any RowReader
        let fetched: _ResultEngine<Record>.Fetched
        do throws(ResultsError) {
            (query, fetched) = try fetch(request, from: reader)
        } catch {
            // The result is now older than the database: commits cannot
            // patch it until a fetch succeeds.
            engine.stopPatching()
            throw error
        }
        let report = try engine.replace(with: fetched)
        observedTables = query.readTables
        if isFollowing { follow(query, from: reader) }
        if let report { self.report(report) }
    }

    /// Takes the changes the store's change log holds since the result's
    /// position (commits made elsewhere, and this connection's own, which
    /// patch to what the result holds already), and reports them as one.
    ///
    /// - Returns: Whether the result took them; `false`: no log covers the
    ///   result, or it cannot say, and the caller fetches again.
    private func takeLoggedChanges(from reader: any StoreReader, externalVersion: Int64?) -> Bool {
        guard let position = engine.logPosition, let query = try? reader.query(for: request),
              let (changes, reached) = try? reader.loggedChanges(for: query, since: position, limit: touchedLimit)
        else { return false }
        let outcome = engine.applyLogged(
            changes, isIncremental: isIncremental, touchedLimit: touchedLimit, externalVersion: externalVersion,
            position: reached, sectioned: request.sectionKey != nil, rows: { query }
        )
        guard case let .patched(report) = outcome else { return false }
        lastUpdateMethod = .incremental
        if let report { self.report(report) }
        return true
    }

    /// Applies one commit's changes (or several merged): patches when the
    /// engine can, else re-fetches, and reports.
    func apply(_ changes: CommittedChanges, from reader: any StoreReader) {
        do throws(ResultsError) {
            let request = request
            if engine.logPosition != nil, case let version = try? reader.externalVersion(), version != engine.externalVersion {
                // Something committed elsewhere first: the log holds it and
                // this commit too, in order.
                if takeLoggedChanges(from: reader, externalVersion: version) {
                    lastError = nil
                    delivery.touchedLimit = touchedLimit
                    return
                }
                try refetchAndReport(from: reader)
                lastError = nil
                return
            }
            // Read before the version: when nothing committed elsewhere
            // since the result's version, every entry up to it is this
            // connection's, which the commit brings (or an earlier one
            // brought).
            let logged = engine.logPosition.flatMap { known in
                (try? reader.query(for: request)).flatMap { try? reader.changeLogPosition(for: $0, known: known) }
            }
            let outcome = engine.apply(
                changes, isIncremental: isIncremental, touchedLimit: touchedLimit,
                externalVersion: try? reader.externalVersion(), sectioned: request.sectionKey != nil,
                rows: { () throws(ResultsError) in changes.reading(try reader.query(for: request)) }
            )
            if case let .patched(report) = outcome {
                // A patch means the version, read after `logged`, had not moved.
                if let logged { engine.advanceLog(to: logged) }
                lastUpdateMethod = .incremental
                lastError = nil
                delivery.touchedLimit = touchedLimit
                if let report { self.report(report) }
                return
            }
            try refetchAndReport(from: reader)
            lastError = nil
        } catch {
            fail(error)
        }
    }

    /// Hands a report to the sequences, then to the delegate: a delegate
    /// that makes the controller report again from inside (by a
    /// ``refresh(isolation:)``, say) cannot put that report ahead of this one.
    func report(_ report: ChangeReport<Record>) {
        var report = report
        if var step = userDrivenStep, !step.hasReported {
            // The first report of a user-driven change starts from what
            // the view shows.
            step.hasReported = true
            userDrivenStep = step
            guard let fromShown = userDrivenReport(step, to: report.new, updatedKeys: report.updatedKeys) else { return }
            report = fromShown
        }
        hub.yield(report)
        if let delegate {
            let changes = report.changeset
            delegate.controllerWillChangeContent(self)
            changes.forEachChange(
                section: { delegate.controller(self, didChangeSectionAt: $0, for: $1, newIndex: $2) },
                item: { delegate.controller(self, didChangeRecordAt: $0, for: $1, newIndexPath: $2) }
            )
            delegate.controller(self, didChangeContentWith: report)
        }
    }

    func fail(_ error: ResultsError) {
        lastError = error
        delegate?.controller(self, didFailWith: error)
    }
}

extension FetchedResultsController: _CommitFollowing {}

@available(*, unavailable)
extension FetchedResultsController: Sendable {}
