#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif
public import TesseraDiff
public import TesseraSQLite

/// A section of a fetched result: the value of the section key its rows
/// share.
///
/// A ``FetchedResultsController``'s ``FetchedResultsController/snapshot``
/// is a `Snapshot<ResultSection, Record>`, with one section per distinct
/// value of the request's ``FetchRequest/sectionKey``, in the order of the
/// first sort key. A section exists only while it has rows. Rows whose
/// section key is NULL share a section whose value is `.null`; a request
/// without a section key has one such section, or none when the result is
/// empty.
///
/// ```swift
/// for section in controller.sections {
///     print(section.value.string ?? "No album")   // .text("Holidays") prints Holidays
/// }
/// let holidays = controller.snapshot.index(ofSectionWithID: .text("Holidays"))
/// ```
///
/// The value is the section's identity and its whole content, so a section
/// is never updated: a row whose section key changes moves to another
/// section, a section is deleted when its last row leaves and inserted
/// when its first row arrives.
public struct ResultSection: Identifiable, Hashable, Sendable {
    /// The section key's value.
    public var value: DatabaseValue
    /// The value identifies the section.
    public var id: DatabaseValue { value }

    /// Creates a section.
    public init(value: DatabaseValue) {
        self.value = value
    }
}

/// What happened to a section or a record in a change report.
public enum ResultsChangeType: String, Hashable, Sendable {
    case insert, delete, move, update
}

/// Callbacks for a change, in Core Data's order: will change, each section
/// and record change, did change. Every method has an empty default.
public protocol FetchedResultsControllerDelegate<Record>: AnyObject {
    associatedtype Record: FetchableRecord
    /// Before the changes of a report.
    func controllerWillChangeContent(_ controller: FetchedResultsController<Record>)
    /// A section changed: inserted (new index), deleted (old index), moved
    /// or updated (both).
    func controller(_ controller: FetchedResultsController<Record>, didChangeSectionAt oldIndex: Int?, for type: ResultsChangeType, newIndex: Int?)
    /// A record changed: inserted (new path), deleted (old path), moved or
    /// updated (both paths, always).
    func controller(_ controller: FetchedResultsController<Record>, didChangeRecordAt oldIndexPath: IndexPath?, for type: ResultsChangeType, newIndexPath: IndexPath?)
    /// After the changes of a report, with the report.
    func controller(_ controller: FetchedResultsController<Record>, didChangeContentWith report: ChangeReport<Record>)
    /// Re-fetching after a commit failed (the controller keeps its last
    /// good result; ``FetchedResultsController/refresh()`` tries again).
    func controller(_ controller: FetchedResultsController<Record>, didFailWith error: ResultsError)
}

extension FetchedResultsControllerDelegate {
    /// Nothing.
    public func controllerWillChangeContent(_ controller: FetchedResultsController<Record>) {}
    /// Nothing.
    public func controller(_ controller: FetchedResultsController<Record>, didChangeSectionAt oldIndex: Int?, for type: ResultsChangeType, newIndex: Int?) {}
    /// Nothing.
    public func controller(_ controller: FetchedResultsController<Record>, didChangeRecordAt oldIndexPath: IndexPath?, for type: ResultsChangeType, newIndexPath: IndexPath?) {}
    /// Nothing.
    public func controller(_ controller: FetchedResultsController<Record>, didChangeContentWith report: ChangeReport<Record>) {}
    /// Nothing.
    public func controller(_ controller: FetchedResultsController<Record>, didFailWith error: ResultsError) {}
}

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
/// default, ``checkForExternalChanges()`` polls once, and ``refresh()``
/// re-fetches unconditionally.
///
/// Not thread-safe: use it where you use its connection.
public final class FetchedResultsController<Record: FetchableRecord>: TransactionObserver {
    /// How a report was made.
    public enum UpdateMethod: String, Hashable, Sendable {
        /// The result was patched row by row.
        case incremental
        /// The result was fetched again and diffed.
        case refetch
    }

    /// The connection it reads and observes.
    public let connection: Connection
    /// The request; change it with ``setRequest(_:)``.
    public private(set) var request: FetchRequest
    /// The result.
    public private(set) var result = FetchedResult<Record>()
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
    public var incrementalThreshold = 0.1
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

    private var plan: _IncrementalPlan?
    private var keys = _SortKeyStore(collations: [], ascending: [])
    /// Rows the open transaction touched, by key: where each was when the
    /// transaction began (its sort values and key), or `nil` when it did
    /// not exist.
    private var touched: [DatabaseValue: [DatabaseValue]?] = [:]
    /// The open transaction touched too many rows, or ones the plan cannot
    /// follow: the commit re-fetches.
    private var mustRefetch = false
    private var changedSinceCommit = false
    /// SQLite's schema version when the result was last fetched: a commit
    /// that changes it (a dropped or altered table) re-fetches too.
    private var schemaVersion: Int64?
    /// `PRAGMA data_version` when the result was last brought up to date:
    /// it moves when another connection commits.
    private var dataVersion: Int64?
    private let hub = _ReportHub<ChangeReport<Record>>(merging: ChangeReport.merging)
    /// The result was read inside a transaction that has not ended: if it
    /// rolls back, the result holds rows that never were, and is fetched
    /// again.
    private var fetchedInTransaction = false

    /// Creates a controller; nothing is fetched until ``performFetch()``.
    ///
    /// - Throws: ``ResultsError/sectionKeyNotFirstSortKey(sectionKey:firstSortKey:)``
    ///   when the section key is not the first sort key.
    public init(connection: Connection, request: FetchRequest) throws(ResultsError) {
        try request.validate()
        self.connection = connection
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
    public var supportsIncrementalUpdates: Bool { plan != nil }

    /// Bytes the kept sort values take (8 a value while they are integers;
    /// text and blob contents not counted), 0 when the request re-fetches.
    public var keptSortValueByteCount: Int { plan == nil ? 0 : keys.byteCount }

    // MARK: Fetching

    /// Fetches the result and starts following commits.
    ///
    /// Cancellable: when the task that calls it is cancelled (before or
    /// while it runs), or another thread calls the connection's
    /// ``TesseraSQLite/Connection/interrupt()`` while it runs, it throws
    /// ``ResultsError/cancelled`` and the controller keeps the result it
    /// had.
    ///
    /// - Throws: ``ResultsError`` for SQL SQLite refuses (an unknown table
    ///   or column), duplicate keys, or records that fail to decode;
    ///   ``ResultsError/cancelled`` when cancelled.
    /// - Complexity: O(*n* log *n*) for SQLite's sort of *n* rows, plus
    ///   O(*n*) to read them.
    public func performFetch() throws(ResultsError) {
        try connection.cancellableFetch { db throws(ResultsError) in
            let fetched = try fetch(request, in: db)
            install(fetched, in: db)
            db.add(transactionObserver: self)
        }
    }

    /// Fetches again and reports what changed (for changes the controller
    /// could not see, such as a file replaced under it). Cancellable as
    /// ``performFetch()`` is.
    ///
    /// - Throws: ``ResultsError``.
    /// - Complexity: O(*n* log *n*).
    public func refresh() throws(ResultsError) {
        try connection.cancellableFetch { db throws(ResultsError) in try refetchAndReport(in: db) }
        lastError = nil
    }

    /// Re-fetches and reports if another connection or process committed
    /// since the result was last brought up to date (`PRAGMA
    /// data_version` moved). Its re-fetch is cancellable as
    /// ``performFetch()`` is.
    ///
    /// - Returns: Whether the data version had moved.
    /// - Throws: ``ResultsError``.
    @discardableResult
    public func checkForExternalChanges() throws(ResultsError) -> Bool {
        let moved = try connection.cancellableFetch { db throws(ResultsError) -> Bool in
            let version: Int64
            do throws(SQLiteError) { version = try db.dataVersion() } catch { throw .database(error) }
            guard version != dataVersion else { return false }
            try refetchAndReport(in: db)
            return true
        }
        if moved { lastError = nil }
        return moved
    }

    /// Polls for other connections' and processes' commits until the task
    /// is cancelled: every `interval`, ``checkForExternalChanges()``.
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
                try checkForExternalChanges()
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
    public func setRequest(_ newRequest: FetchRequest) throws(ResultsError) {
        try newRequest.validate()
        let old = request
        request = newRequest
        do throws(ResultsError) {
            try refresh()
        } catch {
            request = old
            throw error
        }
    }

    /// The reports, for Swift concurrency: each access makes a new
    /// sequence that receives every later report. A consumer more than
    /// `bufferLimit` reports behind gets the newest ones merged into one
    /// exact report (see ``ChangeReports``).
    public func reports(bufferLimit: Int) -> ChangeReports<Record> {
        hub.makeSequence(limit: bufferLimit)
    }

    /// ``reports(bufferLimit:)`` with a limit of 64 waiting reports.
    public var reports: ChangeReports<Record> { reports(bufferLimit: 64) }

    /// A fetched result with what keeps it up to date.
    private struct Fetched {
        var state: _ResultState<Record>
        var plan: _IncrementalPlan?
        var keys: _SortKeyStore
        var tables: Set<String>
        /// `PRAGMA data_version` read before the rows: a commit by another
        /// connection while they were read moves it past this value, so
        /// the next check fetches again rather than missing that commit.
        var dataVersion: Int64?
    }

    private func install(_ fetched: Fetched, in db: Database) {
        result = FetchedResult(fetched.state)
        plan = fetched.plan
        keys = fetched.keys
        observedTables = fetched.tables
        schemaVersion = TesseraResults.schemaVersion(of: db)
        dataVersion = fetched.dataVersion
        fetchedInTransaction = db.isInTransaction
        // Changes the open transaction made so far are in the result now.
        touched = [:]
        mustRefetch = false
        changedSinceCommit = false
    }

    private func fetch(_ request: FetchRequest, in db: Database) throws(ResultsError) -> Fetched {
        let version = try? db.dataVersion()
        let (statement, tables, selects) = try prepareNotingReadsAndSelects(request.sql, in: db)
        var plan = _IncrementalPlan.make(for: request, readingTables: tables, selects: selects, in: db)
        var keys = _SortKeyStore(collations: plan?.collations ?? [], ascending: plan?.ascending ?? [])
        let positions = plan?.tuplePositions ?? []
        let maxPosition = positions.max() ?? 0
        do {
            try statement.bind(request.arguments)
            let names = (2..<statement.columnCount).map(statement.columnName)
            var row = Row(columnNames: names, values: Array(repeating: .null, count: names.count))
            var sections: [ResultSection] = []
            var sectionStarts = [0]
            var sectionValue: DatabaseValue?
            var seenSections = Set<DatabaseValue>()
            var items = _ChunkedArray<Record>()
            while try statement.step() {
                let section = statement.value(at: 0)
                if section != sectionValue {
                    guard seenSections.insert(section).inserted else {
                        throw ResultsError.sectionNotContiguous(section.description)
                    }
                    if let current = sectionValue {
                        // Sections that sort as equal but differ as values
                        // (1 and 1.0, or "a" and "A" under NOCASE) cannot
                        // be patched reliably: re-fetch on every commit.
                        if plan != nil, request.sectionKey != nil, keys.compare(current, section, column: 0) == 0 {
                            plan = nil
                        }
                        sections.append(ResultSection(value: current))
                        sectionStarts.append(items.count)
                    }
                }
                sectionValue = section
                // One buffer for every row: it is written in place unless a
                // record kept the previous row.
                for column in row.values.indices { row.values[column] = statement.value(at: column + 2) }
                do {
                    items.append(try Record(row: row))
                } catch {
                    throw ResultsError.decoding(key: statement.value(at: 1).description, message: "\(error)")
                }
                if plan != nil {
                    guard row.values.count > maxPosition else { plan = nil; continue }
                    keys.append(row.values, at: positions)
                }
            }
            if let sectionValue {
                sections.append(ResultSection(value: sectionValue))
                sectionStarts.append(items.count)
            }
            // A table's single-column primary key is unique; any other key
            // column, a view or a user's SELECT may repeat a key.
            if !Self.keyIsPrimaryKey(of: request, in: db) {
                var seen = Set<Record.ID>(minimumCapacity: items.count)
                for chunk in items.chunks {
                    for item in chunk where !seen.insert(item.id).inserted {
                        throw ResultsError.duplicateKey("\(item.id)")
                    }
                }
            }
            if plan == nil { keys = _SortKeyStore(collations: [], ascending: []) }
            let state = _ResultState(sections: sections, sectionStarts: sectionStarts, records: items)
            return Fetched(state: state, plan: plan, keys: keys, tables: tables, dataVersion: version)
        } catch let error as ResultsError {
            throw error
        } catch let error as SQLiteError {
            throw .database(error)
        } catch {
            throw .database(SQLiteError(code: 1, message: "\(error)"))
        }
    }

    private func refetchAndReport(in db: Database) throws(ResultsError) {
        lastUpdateMethod = .refetch
        let old = result
        let fetched: Fetched
        do {
            fetched = try fetch(request, in: db)
        } catch {
            // The result is now older than the database: commits cannot
            // patch it until a fetch succeeds.
            plan = nil
            throw error
        }
        let new = FetchedResult(fetched.state)
        let changeset: Changeset
        do {
            changeset = try diff(from: old.snapshot, to: new.snapshot)
        } catch let DiffError.duplicateItemID(id, _, _, _) {
            plan = nil
            throw .duplicateKey(id)
        } catch {
            plan = nil
            throw .duplicateKey("\(error)")
        }
        install(fetched, in: db)
        guard !changeset.isEmpty else { return }
        report(ChangeReport(changeset: changeset, old: old, new: new))
    }

    /// Hands a report to the sequences, then to the delegate: a delegate
    /// that makes the controller report again from inside (by a
    /// ``refresh()``, say) cannot put that report ahead of this one.
    private func report(_ report: ChangeReport<Record>) {
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

    private func fail(_ error: ResultsError) {
        lastError = error
        delegate?.controller(self, didFailWith: error)
    }

    // MARK: TransactionObserver

    /// A row of an observed table is changing: note where it was.
    public func database(_ database: Database, willChange change: Database.PreUpdate) {
        changedSinceCommit = true
        guard let plan, !mustRefetch else { return }
        // Turned on in the middle of a transaction: its earlier rows were
        // not noted.
        guard isIncremental else { mustRefetch = true; return }
        guard change.databaseName == "main", change.table.lowercased() == plan.table.lowercased() else {
            mustRefetch = true
            return
        }
        if change.change != .insert {
            guard let tuple = plan.tuple(change.oldValues), let key = tuple.last,
                  !plan.defaulted.contains(where: { tuple[$0].isNull }) else { mustRefetch = true; return }
            if touched[key] == nil { touched[key] = .some(tuple) }
        }
        if change.change != .delete {
            guard change.newValues.count > plan.keyIndex else { mustRefetch = true; return }
            let key = change.newValues[plan.keyIndex]
            if touched[key] == nil { touched[key] = .some(nil) }
        }
        if touched.count > touchedLimit {
            mustRefetch = true
            touched = [:]
        }
    }

    /// A transaction committed: patch or re-fetch, and report if the
    /// result changed.
    public func databaseDidCommit(_ database: Database) {
        // Taken now: a delegate may commit again from inside the report,
        // and that commit's changes are its own.
        // A result read inside the transaction may hold work a savepoint
        // rolled back since: only a fetch is sure.
        let readInside = fetchedInTransaction
        fetchedInTransaction = false
        let touched = self.touched
        let mustRefetch = self.mustRefetch || readInside
        let changed = changedSinceCommit || readInside
        self.touched = [:]
        self.mustRefetch = false
        changedSinceCommit = false
        let schema = TesseraResults.schemaVersion(of: database)
        let schemaChanged = schema != schemaVersion
        guard changed || schemaChanged else { return }
        // Noted even if the re-fetch fails, so that later commits that do
        // not touch the schema or the result do not retry it.
        schemaVersion = schema
        do throws(ResultsError) {
            let current = try? database.dataVersion()
            if plan != nil, isIncremental, !mustRefetch, !schemaChanged, current == dataVersion {
                if applyIncrementally(touched, in: database) {
                    lastUpdateMethod = .incremental
                    lastError = nil
                    return
                }
                // The kept sort values may be half patched: until a fetch
                // rebuilds them, commits re-fetch.
                plan = nil
            }
            try refetchAndReport(in: database)
            lastError = nil
        } catch {
            fail(error)
        }
    }

    /// A rollback ended: a result read inside the transaction that rolled
    /// back is fetched again, and the difference reported.
    ///
    /// - Complexity: as ``refresh()`` when it re-fetches, else O(1).
    public func databaseDidEndRollback(_ database: Database) {
        guard fetchedInTransaction else { return }
        fetchedInTransaction = false
        do throws(ResultsError) {
            try refetchAndReport(in: database)
            lastError = nil
        } catch {
            fail(error)
        }
    }

    /// A transaction rolled back: nothing to report.
    public func databaseDidRollback(_ database: Database) {
        changedSinceCommit = false
        mustRefetch = false
        touched = [:]
    }

    /// Whether the request's key column is its table's whole primary key,
    /// so SQLite already keeps it unique.
    private static func keyIsPrimaryKey(of request: FetchRequest, in database: Database) -> Bool {
        guard case let .table(table) = request.source,
              let columns = try? database.rows("SELECT name, pk FROM pragma_table_info(?)", [.text(table)]) else { return false }
        let primaryKey = columns.filter { ($0[1].int64 ?? 0) > 0 }
        return primaryKey.count == 1 && primaryKey[0][0].string?.lowercased() == request.keyColumn.lowercased()
    }

    // MARK: Incremental maintenance

    /// Patches the result with the rows the transaction touched and
    /// reports. Returns `false`, having reported nothing, when the commit
    /// must re-fetch instead (a row that fails to decode, a repeated key,
    /// sections the patch cannot place); the kept sort values are rebuilt
    /// by that re-fetch.
    private func applyIncrementally(_ touched: [DatabaseValue: [DatabaseValue]?], in db: Database) -> Bool {
        guard let plan else { return false }
        let old = result.state
        let statement: Statement
        do { statement = try db.prepare(plan.pointQuery) } catch { return false }
        let arguments = request.arguments

        var patch = _Patch<Record>()
        let sectioned = request.sectionKey != nil
        for (key, before) in touched {
            let oldFlat = before.flatMap { tuple in
                // In a sectioned result, only the row's section is searched.
                guard sectioned else { return keys.find(tuple) }
                guard let s = keys.section(of: tuple[0], in: old.sections) else { return nil }
                return keys.find(tuple, within: old.sectionStarts[s]..<old.sectionStarts[s + 1])
            }
            statement.reset()
            var found: _Patch<Record>.Arrival?
            do {
                try statement.bind(arguments, key: key)
                let names = (2..<statement.columnCount).map(statement.columnName)
                while try statement.step() {
                    guard found == nil else { return false }   // a repeated key
                    let values = (0..<names.count).map { statement.value(at: $0 + 2) }
                    guard let tuple = plan.tuple(values) else { return false }
                    let record = try Record(row: Row(columnNames: names, values: values))
                    found = .init(key: key, tuple: tuple, section: statement.value(at: 0), record: record)
                }
            } catch {
                return false
            }
            if let oldFlat { patch.departures.append(.init(key: key, oldFlat: oldFlat)) }
            if let found { patch.arrivals.append(found) }
        }
        guard !patch.departures.isEmpty || !patch.arrivals.isEmpty else { return true }
        guard let changes = patch.apply(to: old, keys: &keys, sectioned: sectioned) else { return false }
        result = FetchedResult(changes.state)
        if !changes.changeset.isEmpty {
            report(ChangeReport(changeset: changes.changeset, old: FetchedResult(old), new: result))
        }
        return true
    }
}

@available(*, unavailable)
extension FetchedResultsController: Sendable {}
