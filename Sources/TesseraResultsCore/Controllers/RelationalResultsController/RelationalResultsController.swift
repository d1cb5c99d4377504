#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif
public import TesseraDiff

/// Sections from the rows of a parent table and items from the rows of a
/// child table that name them by a foreign key, following every commit
/// made through the controller's connection.
///
/// ```swift
/// let controller = RelationalResultsController<Album, Photo>(
///     connection: connection,
///     parents: ParentRequest(table: "album", sortKeys: [SortKey("name")]),
///     children: ChildRequest(table: "photo", foreignKeyColumn: "album_id", sortKeys: [SortKey("date")])
/// )
/// try controller.performFetch()
/// controller.parent(at: 0)                                  // an Album, even with no photos
/// controller.object(at: IndexPath(item: 0, section: 0))     // a Photo
/// ```
///
/// Unlike a ``FetchedResultsController`` with a section key, a parent
/// with no children shows as an empty section, and a section is a record
/// of its own: a renamed parent is a section update, a deleted one a
/// section delete. A child that moves to another parent is an item move
/// across sections; a child whose parent is not in the parent result is
/// not shown.
///
/// Each committed transaction that changes the result gives one report (a
/// delegate callback sequence and an element of ``reports``); transactions
/// that change nothing visible, and rolled-back work, give none. A commit
/// that touched either table (or changed the schema) re-fetches both
/// requests and diffs. Changes made by other connections are seen by
/// ``refresh(isolation:)``.
///
/// Not `Sendable`: it lives and reports in the isolation of the code that
/// calls ``performFetch(isolation:)``, as a ``FetchedResultsController``
/// does (see its discussion of isolation).
public final class RelationalResultsController<Parent: FetchableRecord, Child: FetchableRecord> {
    /// The snapshot type of the results: parents as sections, children as
    /// items.
    public typealias ResultSnapshot = Snapshot<Parent, Child>
    /// The report type.
    public typealias Report = SnapshotReport<Parent, Child>

    /// The store it reads and follows.
    package let store: any ResultsStore
    /// The parent request; change it with ``setRequests(parents:children:isolation:)``.
    public private(set) var parentRequest: ParentRequest
    /// The child request; change it with ``setRequests(parents:children:isolation:)``.
    public private(set) var childRequest: ChildRequest
    /// The result.
    public private(set) var snapshot = ResultSnapshot()
    /// Called for every report.
    ///
    /// Held weakly, as UIKit's and Core Data's delegates are: the
    /// controller does not keep its delegate alive. Keep a reference to it
    /// for as long as it should hear reports; a delegate nothing else
    /// holds is released at once, and nothing is reported to it:
    ///
    /// ```swift
    /// controller.delegate = AlbumList()   // released at once (the compiler warns): hears nothing
    ///
    /// let list = AlbumList()              // kept while `list` is
    /// controller.delegate = list
    /// ```
    ///
    /// ``reports`` delivers the same reports without a delegate.
    public weak var delegate: (any RelationalResultsControllerDelegate<Parent, Child>)?
    /// The tables the requests read (views report their base tables).
    public private(set) var observedTables: Set<String> = []
    /// The error of the last re-fetch after a commit, or `nil` once one
    /// succeeds. The snapshot is the last good result meanwhile.
    public private(set) var lastError: ResultsError?

    /// Where commits are handed over.
    private(set) lazy var delivery = CommitDelivery(to: receiver)
    /// Whether commits are followed (a fetch succeeded).
    private var isFollowing = false
    /// The store's source of this fetch's commits.
    private var changeSource: (any ChangeSource)?
    /// The adapter the delivery reaches the controller through.
    private lazy var receiver = _Receiver(self)
    private let streams = _ReportHub<Report>(merging: Report.merging)

    /// Creates a controller over a store.
    package init(store: any ResultsStore, parents: ParentRequest, children: ChildRequest) {
        self.store = store
        parentRequest = parents
        childRequest = children
    }

    // MARK: Fetching

    /// Fetches the result and starts following commits, reporting them in
    /// the caller's isolation.
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
    ///   or column), repeated keys, or records that fail to decode;
    ///   ``ResultsError/cancelled`` when cancelled.
    /// - Complexity: O(*p* log *p* + *c* log *c*) for SQLite's sorts of *p*
    ///   parents and *c* children, plus O(*p* + *c*) to read and group them.
    public func performFetch(isolation: isolated (any Actor)? = #isolation) throws(ResultsError) {
        delivery.setHome(isolation)
        try store.withReader(isolation: isolation) { reader throws(ResultsError) in
            let (queries, fetched) = try fetch(parentRequest, childRequest, from: reader)
            _ = try recordDiff(from: ResultSnapshot(), to: fetched)
            snapshot = fetched
            follow(queries, from: reader)
        }
    }

    /// Fetches again and reports what changed (for changes the controller
    /// could not see, such as other connections' commits). Cancellable as
    /// ``performFetch(isolation:)`` is.
    ///
    /// - Throws: ``ResultsError``; the controller keeps its result then.
    /// - Complexity: as ``performFetch(isolation:)``, plus the diff:
    ///   O(*p* + *c*) and O(*m* log *m*) for *m* moved elements.
    public func refresh(isolation: isolated (any Actor)? = #isolation) throws(ResultsError) {
        try store.withReader(isolation: isolation) { reader throws(ResultsError) in try refetchAndReport(from: reader) }
        lastError = nil
    }

    /// Changes the requests and reports the difference between the old
    /// result and the new one.
    ///
    /// - Throws: ``ResultsError``; the controller keeps its old requests
    ///   and result then.
    /// - Complexity: as ``refresh(isolation:)``.
    public func setRequests(parents: ParentRequest, children: ChildRequest, isolation: isolated (any Actor)? = #isolation) throws(ResultsError) {
        let old = (parentRequest, childRequest)
        (parentRequest, childRequest) = (parents, children)
        do throws(ResultsError) {
            try refresh(isolation: isolation)
        } catch {
            (parentRequest, childRequest) = old
            throw error
        }
    }

    /// The reports, for Swift concurrency: each access makes a new
    /// sequence that receives every later report. A consumer more than
    /// `bufferLimit` reports behind gets the newest ones merged into one
    /// exact report (see ``ReportSequence``).
    public func reports(bufferLimit: Int) -> ReportSequence<Report> { streams.makeSequence(limit: bufferLimit) }

    /// ``reports(bufferLimit:)`` with a limit of 64 waiting reports.
    public var reports: ReportSequence<Report> { reports(bufferLimit: 64) }

    // MARK: Following the store

    /// Both requests' rows, grouped: each parent's children in order.
    private func fetch(_ parents: ParentRequest, _ children: ChildRequest, from reader: any StoreReader) throws(ResultsError) -> ([any RowReader], ResultSnapshot) {
        let (parentQuery, childQuery) = try reader.queries(for: parents, children)
        var sections: [Parent] = []
        var sectionOfKey: [DatabaseValue: Int] = [:]
        try parentQuery.readAll { (leading, row) throws(ResultsError) in
            let parent: Parent
            do { parent = try Parent(row: row) } catch { throw .decoding(key: leading.value(at: 0).description, message: "\(error)") }
            guard sectionOfKey.updateValue(sections.count, forKey: leading.value(at: 0)) == nil else {
                throw .duplicateKey(leading.value(at: 0).description)
            }
            sections.append(parent)
        }
        var buckets = Array(repeating: [Child](), count: sections.count)
        var childKeys = Set<DatabaseValue>()
        try childQuery.readAll { (leading, row) throws(ResultsError) in
            let child: Child
            do { child = try Child(row: row) } catch { throw .decoding(key: leading.value(at: 0).description, message: "\(error)") }
            guard let section = sectionOfKey[leading.value(at: 1)] else { return }
            guard childKeys.insert(leading.value(at: 0)).inserted else { throw .duplicateKey(leading.value(at: 0).description) }
            buckets[section].append(child)
        }
        observedTables = parentQuery.readTables.union(childQuery.readTables)
        var starts = [0]
        starts.reserveCapacity(sections.count + 1)
        var items: [Child] = []
        items.reserveCapacity(childKeys.count)
        for bucket in buckets {
            items.append(contentsOf: bucket)
            starts.append(items.count)
        }
        return ([parentQuery, childQuery], Snapshot(sections: sections, flatItems: items, sectionStarts: starts))
    }

    /// Follows the commits to what the queries read (every one re-fetches).
    private func follow(_ queries: [any RowReader], from reader: any StoreReader) {
        delivery.dropWaiting()
        isFollowing = true
        changeSource = reader.follow(queries, tuples: false, delivery: delivery, replacing: changeSource)
    }

    private func refetchAndReport(from reader: any StoreReader) throws(ResultsError) {
        let old = snapshot
        let (queries, new) = try fetch(parentRequest, childRequest, from: reader)
        let changeset = try recordDiff(from: old, to: new)
        snapshot = new
        if isFollowing { follow(queries, from: reader) }
        guard !changeset.isEmpty else { return }
        let report = Report(changeset: changeset, oldSnapshot: old, newSnapshot: new)
        // The sequences first: a delegate that makes the controller report
        // again from inside cannot put that report ahead of this one.
        streams.yield(report)
        if let delegate {
            delegate.controllerWillChangeContent(self)
            changeset.forEachChange(
                section: { delegate.controller(self, didChangeSectionAt: $0, for: $1, newIndex: $2) },
                item: { delegate.controller(self, didChangeRecordAt: $0, for: $1, newIndexPath: $2) }
            )
            delegate.controller(self, didChangeContentWith: report)
        }
    }

    /// A commit touched either table (or changed the schema): re-fetch and
    /// report.
    ///
    /// - Complexity: as ``refresh(isolation:)``.
    func apply(_ changes: CommittedChanges, from reader: any StoreReader) {
        do throws(ResultsError) {
            try refetchAndReport(from: reader)
            lastError = nil
        } catch {
            fail(error)
        }
    }

    /// Notes a failure to follow a commit.
    func fail(_ error: ResultsError) {
        lastError = error
        delegate?.controller(self, didFailWith: error)
    }

    // MARK: Reading

    /// The parents, in order: one per section.
    public var sections: [Parent] { snapshot.sections }
    /// The number of sections.
    public var numberOfSections: Int { snapshot.numberOfSections }
    /// The parent of a section.
    public func parent(at section: Int) -> Parent { snapshot[section: section] }
    /// The number of children in a section (the parent's children that
    /// are shown; zero for a parent with none).
    ///
    /// - Precondition: `section` is in `0..<numberOfSections`.
    /// - Complexity: O(1).
    public func numberOfObjects(inSection section: Int) -> Int { snapshot.numberOfItems(inSection: section) }
    /// The child at an index path.
    public func object(at indexPath: IndexPath) -> Child { snapshot[indexPath] }
    /// The index path of a child (by its id), or `nil`.
    ///
    /// - Complexity: O(*c*).
    public func indexPath(for child: Child) -> IndexPath? { snapshot.indexPath(ofItemWithID: child.id) }
    /// The section of a parent (by its id), or `nil`.
    ///
    /// - Complexity: O(*p*).
    public func section(for parent: Parent) -> Int? { snapshot.index(ofSectionWithID: parent.id) }
}

extension RelationalResultsController: _CommitFollowing {}

@available(*, unavailable)
extension RelationalResultsController: Sendable {}
