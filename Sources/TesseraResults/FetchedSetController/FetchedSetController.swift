public import TesseraSQLite

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
/// by ``refresh()``. Not thread-safe: use it where you use its connection.
public final class FetchedSetController<Record: FetchableRecord>: TransactionObserver {
    /// The connection it reads and observes.
    public let connection: Connection
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
    public var incrementalLimit: Int?

    /// The records by the value of their key column.
    private var byKey: [DatabaseValue: Record] = [:]
    /// The key column value of each record, by record id.
    private var keyOfID: [Record.ID: DatabaseValue] = [:]
    /// Keys of rows of the table changed since the last commit.
    private var changedKeys: Set<DatabaseValue> = []
    /// The next commit must re-fetch (another table changed, the key could
    /// not be read from the hook, or an update failed).
    private var needsRefetch = false
    /// Where the key column is in the table's rows as the pre-update hook
    /// gives them, or `nil` when it is the row id or cannot be found.
    private var keyIndex: KeySource?
    private var schemaVersion: Int64?
    /// The result was read inside a transaction that has not ended: if it
    /// rolls back, it is fetched again.
    private var fetchedInTransaction = false
    private let streams = _ReportHub<SetChangeReport<Record>>(merging: SetChangeReport.merging)
    /// How the last commits were followed, for tests and diagnostics.
    private(set) var incrementalUpdates = 0
    private(set) var refetches = 0

    private enum KeySource {
        case column(Int)
        case rowID
    }

    /// Creates a controller; nothing is fetched until ``performFetch()``.
    public init(connection: Connection, request: SetRequest) {
        self.connection = connection
        self.request = request
    }

    // MARK: Fetching

    /// Fetches the set and starts following commits.
    ///
    /// Cancellable: when the task that calls it is cancelled (before or
    /// while it runs), or another thread calls the connection's
    /// ``TesseraSQLite/Connection/interrupt()`` while it runs, it throws
    /// ``ResultsError/cancelled`` and the controller keeps the result it
    /// had.
    ///
    /// - Throws: ``ResultsError`` for SQL SQLite refuses (an unknown table
    ///   or column), repeated keys or ids, or records that fail to decode;
    ///   ``ResultsError/cancelled`` when cancelled.
    /// - Complexity: O(*n*) to read *n* records, plus SQLite's work.
    public func performFetch() throws(ResultsError) {
        try connection.cancellableFetch { db throws(ResultsError) in
            let (records, ids) = try fetchAll(in: db)
            byKey = records
            keyOfID = ids
            changedKeys.removeAll()
            needsRefetch = false
            fetchedInTransaction = db.isInTransaction
            db.add(transactionObserver: self)
        }
    }

    /// Fetches again and reports what changed (for changes the controller
    /// could not see, such as other connections' commits). Cancellable as
    /// ``performFetch()`` is.
    ///
    /// - Throws: ``ResultsError``; the controller keeps its records then.
    /// - Complexity: O(*n*), plus O(*k* log *k*) to order *k* changes.
    public func refresh() throws(ResultsError) {
        try connection.cancellableFetch { db throws(ResultsError) in try refetchAndReport(in: db) }
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

    // MARK: Following commits

    private func fetchAll(in db: Database) throws(ResultsError) -> ([DatabaseValue: Record], [Record.ID: DatabaseValue]) {
        try checkFragments(predicate: request.predicate, sortKeys: nil)
        var tables = Set<String>()
        var records: [DatabaseValue: Record] = [:]
        var ids: [Record.ID: DatabaseValue] = [:]
        try request.query.run(Record.self, in: db, readTables: &tables) { (leading, record) throws(ResultsError) in
            guard records.updateValue(record, forKey: leading[0]) == nil else { throw .duplicateKey(leading[0].description) }
            guard ids.updateValue(leading[0], forKey: record.id) == nil else { throw .duplicateKey("\(record.id)") }
        }
        observedTables = tables
        schemaVersion = TesseraResults.schemaVersion(of: db)
        keyIndex = Self.keySource(of: request, in: db)
        return (records, ids)
    }

    /// Where the hook's values hold the key: its column position in a
    /// table without hidden columns, or the row id; `nil` (re-fetch on
    /// every change) when the predicate has a subquery.
    private static func keySource(of request: SetRequest, in db: Database) -> KeySource? {
        // A subquery may make one row's change move others in or out.
        if let predicate = request.predicate, predicate.lowercased().contains("select") { return nil }
        guard let columns = try? db.rows("SELECT name, hidden FROM pragma_table_xinfo(?)", [.text(request.table)]),
              !columns.isEmpty, columns.allSatisfy({ $0[1].int64 == 0 })
        else { return nil }
        let key = request.keyColumn.lowercased()
        if let index = columns.firstIndex(where: { $0[0].string?.lowercased() == key }) { return .column(index) }
        if ["rowid", "oid", "_rowid_"].contains(key) { return .rowID }
        return nil
    }

    private func refetchAndReport(in db: Database) throws(ResultsError) {
        let (records, ids) = try fetchAll(in: db)
        // Changes the open transaction made so far are in what was read.
        changedKeys.removeAll()
        fetchedInTransaction = db.isInTransaction
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
        refetches += 1
        report(inserted: inserted, deleted: deleted, updated: updated, oldCount: oldCount)
    }

    /// Reads each changed row back by key and applies what changed.
    private func updateIncrementally(keys: Set<DatabaseValue>, in db: Database) throws(ResultsError) {
        var inserted: [(DatabaseValue, Record)] = []
        var deleted: [(DatabaseValue, Record)] = []
        var updated: [(DatabaseValue, Record)] = []
        var tables = Set<String>()
        let query = request.rowQuery
        let statement = try query.prepare(in: db, readTables: &tables)
        for key in keys {
            var current: Record?
            try query.run(statement, arguments: query.arguments, key: key, as: Record.self) { (_, record) throws(ResultsError) in
                current = record
            }
            switch (byKey[key], current) {
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
        report(inserted: inserted, deleted: deleted, updated: updated, oldCount: oldCount)
    }

    private func report(inserted: [(DatabaseValue, Record)], deleted: [(DatabaseValue, Record)], updated: [(DatabaseValue, Record)], oldCount: Int) {
        func ordered(_ changes: [(DatabaseValue, Record)]) -> [Record] {
            changes.sorted { $0.0.sqlitePrecedes($1.0) }.map(\.1)
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

    // MARK: TransactionObserver

    /// A row of an observed table is changing: remember its key before and
    /// after.
    public func database(_ database: Database, willChange change: Database.PreUpdate) {
        guard change.table.lowercased() == request.table.lowercased(), let keyIndex else {
            needsRefetch = true
            return
        }
        switch keyIndex {
        case let .column(index):
            if index < change.oldValues.count { changedKeys.insert(change.oldValues[index]) }
            if index < change.newValues.count { changedKeys.insert(change.newValues[index]) }
        case .rowID:
            if change.change != .insert { changedKeys.insert(.integer(change.oldRowID)) }
            if change.change != .delete { changedKeys.insert(.integer(change.newRowID)) }
        }
    }

    /// A transaction committed: read back the rows it changed (or re-fetch)
    /// and report what changed in the set.
    ///
    /// - Complexity: O(*k*) row reads for *k* changed rows, or O(*n*) for a
    ///   re-fetch, plus O(*c* log *c*) to order *c* changes.
    public func databaseDidCommit(_ database: Database) {
        // A set read inside the transaction may hold work a savepoint
        // rolled back since: only a fetch is sure.
        if fetchedInTransaction { needsRefetch = true }
        fetchedInTransaction = false
        let schema = TesseraResults.schemaVersion(of: database)
        if schema != schemaVersion { needsRefetch = true }
        guard needsRefetch || !changedKeys.isEmpty else { return }
        let keys = changedKeys
        // A NULL key (possible in a rowid table's non-integer primary key)
        // cannot be read back with `=`.
        let refetch = needsRefetch || keys.count > (incrementalLimit ?? max(64, byKey.count / 4)) || keys.contains(.null)
        changedKeys.removeAll()
        needsRefetch = false
        schemaVersion = schema
        do throws(ResultsError) {
            if refetch {
                try refetchAndReport(in: database)
            } else {
                try updateIncrementally(keys: keys, in: database)
            }
            lastError = nil
        } catch {
            lastError = error
            needsRefetch = true
            delegate?.controller(self, didFailWith: error)
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
            lastError = error
            delegate?.controller(self, didFailWith: error)
        }
    }

    /// A transaction rolled back: forget its changes.
    public func databaseDidRollback(_ database: Database) {
        changedKeys.removeAll()
    }
}

@available(*, unavailable)
extension FetchedSetController: Sendable {}
