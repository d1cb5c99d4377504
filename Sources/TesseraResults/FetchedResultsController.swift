#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif
public import TesseraDiff
public import TesseraSQLite

/// A section of a fetched result: the value of the section key its rows
/// share (NULL for a result without sections).
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

/// One committed transaction's change to a result: the changeset, and the
/// snapshots before and after (copy-on-write values, cheap to keep).
public struct ChangeReport<Record: FetchableRecord>: Sendable {
    /// The changes, in UIKit's index spaces.
    public var changeset: Changeset
    /// The result before.
    public var oldSnapshot: Snapshot<ResultSection, Record>
    /// The result after.
    public var newSnapshot: Snapshot<ResultSection, Record>
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

/// Sorted, sectioned results of a fetch request that follow every commit
/// made through the controller's connection, like Core Data's
/// `NSFetchedResultsController`.
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
/// that change nothing visible, and rolled-back work, give none. In this
/// version a commit that touched an observed table re-fetches the result
/// and diffs it. Changes made by other connections are seen by
/// ``refresh()``. Not thread-safe: use it where you use its connection.
public final class FetchedResultsController<Record: FetchableRecord>: TransactionObserver {
    /// The connection it reads and observes.
    public let connection: Connection
    /// The request; change it with ``setRequest(_:)``.
    public private(set) var request: FetchRequest
    /// The result.
    public private(set) var snapshot = Snapshot<ResultSection, Record>()
    /// Called for every report.
    public weak var delegate: (any FetchedResultsControllerDelegate<Record>)?
    /// The tables the request reads (views report their base tables).
    public private(set) var observedTables: Set<String> = []
    /// The error of the last re-fetch after a commit, or `nil` once one
    /// succeeds. The snapshot is the last good result meanwhile.
    public private(set) var lastError: ResultsError?

    private var changedSinceCommit = false
    /// SQLite's schema version when the result was last fetched: a commit
    /// that changes it (a dropped or altered table) re-fetches too.
    private var schemaVersion: Int64?
    private var continuations: [Int: AsyncStream<ChangeReport<Record>>.Continuation] = [:]
    private var nextContinuation = 0

    /// Creates a controller; nothing is fetched until ``performFetch()``.
    ///
    /// - Throws: ``ResultsError/sectionKeyNotFirstSortKey(sectionKey:firstSortKey:)``
    ///   when the section key is not the first sort key.
    public init(connection: Connection, request: FetchRequest) throws(ResultsError) {
        try request.validate()
        self.connection = connection
        self.request = request
    }

    deinit {
        for continuation in continuations.values { continuation.finish() }
    }

    // MARK: Fetching

    /// Fetches the result and starts following commits.
    ///
    /// - Throws: ``ResultsError`` for SQL SQLite refuses (an unknown table
    ///   or column), duplicate keys, or records that fail to decode.
    /// - Complexity: O(*n* log *n*) for SQLite's sort of *n* rows, plus
    ///   O(*n*) to read them.
    public func performFetch() throws(ResultsError) {
        snapshot = try connection.withDatabase { db throws(ResultsError) in
            let snapshot = try fetch(request, in: db)
            db.add(transactionObserver: self)
            return snapshot
        }
    }

    /// Fetches again and reports what changed (for changes the controller
    /// could not see, such as other connections' commits).
    ///
    /// - Throws: ``ResultsError``.
    public func refresh() throws(ResultsError) {
        try refetchAndReportLocked()
    }

    /// Re-fetches and reports with the connection's database.
    private func refetchAndReportLocked() throws(ResultsError) {
        try connection.withDatabase { db throws(ResultsError) in try refetchAndReport(in: db) }
        lastError = nil
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
            try refetchAndReportLocked()
        } catch {
            request = old
            throw error
        }
    }

    /// The reports, for Swift concurrency: each access makes a new stream
    /// that receives every later report.
    public var reports: AsyncStream<ChangeReport<Record>> {
        let (stream, continuation) = AsyncStream<ChangeReport<Record>>.makeStream(bufferingPolicy: .unbounded)
        let key = nextContinuation
        nextContinuation += 1
        continuations[key] = continuation
        return stream
    }

    private func fetch(_ request: FetchRequest, in db: Database) throws(ResultsError) -> Snapshot<ResultSection, Record> {
        var tables = Set<String>()
        let statement: Statement
        do {
            let previous = db.authorizer
            db.authorizer = { authorization in
                if authorization.action == 20, let table = authorization.first { tables.insert(table) }   // SQLITE_READ
                return previous?(authorization) ?? true
            }
            defer { db.authorizer = previous }
            statement = try db.prepare(request.sql)
        } catch {
            throw .database(error)
        }
        observedTables = tables.filter { !$0.hasPrefix("sqlite_") }
        schemaVersion = Self.schemaVersion(of: db)
        do {
            try statement.bind(request.arguments)
            let names = (2..<statement.columnCount).map(statement.columnName)
            var row = Row(columnNames: names, values: Array(repeating: .null, count: names.count))
            var sections: [ResultSection] = []
            var sectionStarts = [0]
            var sectionValue: DatabaseValue?
            var seenSections = Set<DatabaseValue>()
            var items: [Record] = []
            while try statement.step() {
                let section = statement.value(at: 0)
                if section != sectionValue {
                    guard seenSections.insert(section).inserted else {
                        throw ResultsError.sectionNotContiguous(section.description)
                    }
                    if let current = sectionValue {
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
            }
            if let sectionValue {
                sections.append(ResultSection(value: sectionValue))
                sectionStarts.append(items.count)
            }
            // A table's single-column primary key is unique; any other key
            // column, a view or a user's SELECT may repeat a key.
            if !Self.keyIsPrimaryKey(of: request, in: db) {
                var keys = Set<Record.ID>(minimumCapacity: items.count)
                for item in items where !keys.insert(item.id).inserted {
                    throw ResultsError.duplicateKey("\(item.id)")
                }
            }
            return Snapshot(sections: sections, flatItems: items, sectionStarts: sectionStarts)
        } catch let error as ResultsError {
            throw error
        } catch let error as SQLiteError {
            throw .database(error)
        } catch {
            throw .database(SQLiteError(code: 1, message: "\(error)"))
        }
    }

    private func refetchAndReport(in db: Database) throws(ResultsError) {
        let old = snapshot
        let new = try fetch(request, in: db)
        let changeset: Changeset
        do {
            changeset = try diff(from: old, to: new)
        } catch let DiffError.duplicateItemID(id, _, _, _) {
            throw .duplicateKey(id)
        } catch {
            throw .duplicateKey("\(error)")
        }
        snapshot = new
        guard !changeset.isEmpty else { return }
        report(ChangeReport(changeset: changeset, oldSnapshot: old, newSnapshot: new))
    }

    private func report(_ report: ChangeReport<Record>) {
        if let delegate {
            let changes = report.changeset
            delegate.controllerWillChangeContent(self)
            for s in changes.sectionDeletes { delegate.controller(self, didChangeSectionAt: s, for: .delete, newIndex: nil) }
            for t in changes.sectionInserts { delegate.controller(self, didChangeSectionAt: nil, for: .insert, newIndex: t) }
            for move in changes.sectionMoves { delegate.controller(self, didChangeSectionAt: move.from, for: .move, newIndex: move.to) }
            for update in changes.sectionUpdates { delegate.controller(self, didChangeSectionAt: update.from, for: .update, newIndex: update.to) }
            for path in changes.itemDeletes { delegate.controller(self, didChangeRecordAt: path, for: .delete, newIndexPath: nil) }
            for path in changes.itemInserts { delegate.controller(self, didChangeRecordAt: nil, for: .insert, newIndexPath: path) }
            for move in changes.itemMoves { delegate.controller(self, didChangeRecordAt: move.from, for: .move, newIndexPath: move.to) }
            for update in changes.itemUpdates { delegate.controller(self, didChangeRecordAt: update.from, for: .update, newIndexPath: update.to) }
            delegate.controller(self, didChangeContentWith: report)
        }
        for continuation in continuations.values { continuation.yield(report) }
    }

    // MARK: Reading

    /// The sections, in order.
    public var sections: [ResultSection] { snapshot.sections }
    /// The number of sections.
    public var numberOfSections: Int { snapshot.numberOfSections }
    /// The number of records in a section.
    public func numberOfObjects(inSection section: Int) -> Int { snapshot.numberOfItems(inSection: section) }
    /// The record at an index path.
    public func object(at indexPath: IndexPath) -> Record { snapshot[indexPath] }
    /// The index path of a record (by its id), or `nil`.
    ///
    /// - Complexity: O(*n*).
    public func indexPath(for record: Record) -> IndexPath? { snapshot.indexPath(ofItemWithID: record.id) }

    // MARK: TransactionObserver

    /// A row of an observed table is changing.
    public func database(_ database: Database, willChange change: Database.PreUpdate) {
        changedSinceCommit = true
    }

    /// A transaction committed: re-fetch and report if it touched the result.
    public func databaseDidCommit(_ database: Database) {
        let schema = Self.schemaVersion(of: database)
        guard changedSinceCommit || schema != schemaVersion else { return }
        changedSinceCommit = false
        schemaVersion = schema
        do throws(ResultsError) {
            try refetchAndReport(in: database)
            lastError = nil
        } catch {
            lastError = error
            delegate?.controller(self, didFailWith: error)
        }
    }

    /// Whether the request's key column is its table's whole primary key,
    /// so SQLite already keeps it unique.
    private static func keyIsPrimaryKey(of request: FetchRequest, in database: Database) -> Bool {
        guard case let .table(table) = request.source,
              let columns = try? database.rows("SELECT name, pk FROM pragma_table_info(?)", [.text(table)]) else { return false }
        let primaryKey = columns.filter { ($0[1].int64 ?? 0) > 0 }
        return primaryKey.count == 1 && primaryKey[0][0].string?.lowercased() == request.keyColumn.lowercased()
    }

    private static func schemaVersion(of database: Database) -> Int64? {
        try? database.rows("PRAGMA schema_version").first?.first?.int64
    }

    /// A transaction rolled back: nothing to report.
    public func databaseDidRollback(_ database: Database) {
        changedSinceCommit = false
    }
}

@available(*, unavailable)
extension FetchedResultsController: Sendable {}
