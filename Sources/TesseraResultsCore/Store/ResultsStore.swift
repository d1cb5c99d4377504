
/// The seam between the results controllers and a store: a store gives
/// readers of its committed state (``StoreReader``), and change sources
/// that hand over each committed transaction (``ChangeSource``); how its
/// values order comes with each read (``SortOrdering``). The controllers,
/// and the engine they share, are written against these alone; SQLite is
/// the first store (``SQLiteResultsStore``).
///
/// A store is thread-safe: controllers in different isolations share one.
package protocol ResultsStore: AnyObject, Sendable {
    /// Runs `body` with a reader of one consistent committed state: no
    /// commit is handed to a controller while it runs. Cancellable: when
    /// the current task is cancelled (or the store is interrupted) the
    /// reads stop with ``ResultsError/cancelled``.
    ///
    /// - Parameter isolation: Where the caller runs; a commit made by
    ///   `body` (a delegate that writes) is delivered at once to
    ///   controllers that live there.
    /// - Throws: ``ResultsError``: `.cancelled`, the store's failure, or
    ///   what `body` throws.
    func withReader<T>(
        isolation: isolated (any Actor)?,
        _ body: (any StoreReader) throws(ResultsError) -> T
    ) throws(ResultsError) -> T

    /// Runs `body` with a reader, as ``withReader(isolation:_:)`` does but
    /// not cancelled with the current task: for short reads that must
    /// finish (a lazy result's records, read when asked for). `body` must
    /// not commit. Its second argument says whether the reader sees only
    /// committed rows: false when the caller reads from inside a
    /// transaction it has open on the store, whose rows may be rolled back.
    func withRecordReader<T>(_ body: (any StoreReader, _ committed: Bool) throws(ResultsError) -> T) throws(ResultsError) -> T
}

/// A reader of a store's committed state, valid only inside
/// ``ResultsStore/withReader(isolation:_:)``.
package protocol StoreReader {
    /// A value that moves when anything the controllers do not hear of
    /// commits (another connection, process or machine): polling compares
    /// it with the value read before the last fetch. `nil` when the store
    /// cannot tell.
    func externalVersion() throws(ResultsError) -> Int64?

    /// The reads of a fetch request: the full sorted query and the read of
    /// rows by key. Leading values: the section value, then the key.
    ///
    /// - Throws: ``ResultsError`` for SQL the store refuses.
    func query(for request: FetchRequest) throws(ResultsError) -> any RowReader

    /// The reads of a set request. Leading values: the key.
    func query(for request: SetRequest) throws(ResultsError) -> any RowReader

    /// The reads of a relational controller's parents (leading: the key)
    /// and children (leading: the key, then the parent's key).
    func queries(for parents: ParentRequest, _ children: ChildRequest) throws(ResultsError) -> (parents: any RowReader, children: any RowReader)

    /// Starts handing `receiver` every committed transaction that touches
    /// what `readers` read, from the state this reader sees on, and stops
    /// the change source `replacing` (the one of an earlier fetch) in the
    /// same step, so that no commit falls between the two.
    ///
    /// - Parameter tuples: For a reader with a ``RowReader/patchPlan``:
    ///   touched rows come with their tuples; otherwise with keys only.
    func follow(
        _ readers: [any RowReader],
        tuples: Bool,
        delivery: CommitDelivery,
        replacing previous: (any ChangeSource)?
    ) -> any ChangeSource

    /// Where the store's change log for the table `query` reads stands
    /// now, or `nil` when no log covers the query (none is installed, the
    /// request reads more than that table, or the log lacks a column the
    /// request sorts by). Read before the rows of a fetch: the result is
    /// then at this position or later.
    func changeLogPosition(for query: any RowReader) throws(ResultsError) -> ChangeLogPosition?

    /// Where the store's change log for `query` stands now, for a log
    /// found to cover it at `known` (``changeLogPosition(for:)``): the same
    /// log while the schema is the same, so only its last entry is read.
    /// `nil` when the schema changed since.
    func changeLogPosition(for query: any RowReader, known: ChangeLogPosition) throws(ResultsError) -> ChangeLogPosition?

    /// The changes logged after `position` for the table `query` reads,
    /// and the position they bring the result to; `nil` when the log cannot
    /// say (the schema changed, the entries after `position` were trimmed,
    /// more than `limit` rows were touched): the controller fetches again.
    ///
    /// - Complexity: O(*e*) for the *e* entries after `position`.
    func loggedChanges(
        for query: any RowReader, since position: ChangeLogPosition, limit: Int
    ) throws(ResultsError) -> (changes: CommittedChanges, position: ChangeLogPosition)?

    /// Holds the committed state this reader sees on a connection of its
    /// own, for a lazy fetch (``FetchRequest/fetchBatchSize``) to answer
    /// from at once while its keys load in the background; `nil` when the
    /// store cannot (an in-memory database, no write-ahead log, a
    /// transaction open on the connection, a request it cannot split).
    func snapshot(for request: FetchRequest) -> (any SnapshotReader)?
}

extension StoreReader {
    /// No snapshot: a store without one fetches lazy results whole.
    package func snapshot(for request: FetchRequest) -> (any SnapshotReader)? { nil }

    /// No change log: other processes' commits are found by
    /// ``externalVersion()`` and fetched again.
    package func changeLogPosition(for query: any RowReader) throws(ResultsError) -> ChangeLogPosition? { nil }

    /// No change log.
    package func changeLogPosition(for query: any RowReader, known: ChangeLogPosition) throws(ResultsError) -> ChangeLogPosition? { nil }

    /// No change log.
    package func loggedChanges(
        for query: any RowReader, since position: ChangeLogPosition, limit: Int
    ) throws(ResultsError) -> (changes: CommittedChanges, position: ChangeLogPosition)? { nil }
}

/// A position in a store's change log: the last entry a result has taken,
/// and the schema it was read under (a schema change makes the entries
/// after it unreadable by the old plan, so the result is fetched again).
package struct ChangeLogPosition: Equatable, Sendable {
    /// The last entry taken (0: none yet).
    package var entry: Int64
    /// The store's schema version when it was read.
    package var schema: Int64

    package init(entry: Int64, schema: Int64) {
        self.entry = entry
        self.schema = schema
    }
}

/// One committed state of a store, held apart from the store's own
/// connection while a lazy result loads (see
/// ``StoreReader/snapshot(for:)``): the sections and their counts, pages
/// of records by position, and every row's tuple. Usable from any thread;
/// reads are serialized, and a page read waits at most for the scan's
/// current step.
package protocol SnapshotReader: AnyObject, Sendable {
    /// What it reads, in words (an SQLite file's path).
    var source: String { get }

    /// Every section's value and row count, in the request's order (one
    /// section of value NULL for a request without a section key, none
    /// when there is no row).
    ///
    /// - Complexity: the store's grouped count, O(*n*) at worst.
    func sectionCounts() throws(ResultsError) -> [(value: DatabaseValue, count: Int)]

    /// The rows of one section (`section` is its value; `nil`: the request
    /// has no section key) from `offset`, at most `limit`, in the
    /// request's order, with their records. Leading values: the section
    /// value, then the key.
    ///
    /// - Complexity: O(*offset* + *limit*) row steps.
    func page(
        section: DatabaseValue?, offset: Int, limit: Int,
        _ body: (_ leading: any LeadingValues, _ row: Row) throws(ResultsError) -> Void
    ) throws(ResultsError)

    /// Whether a page at `offset` in its section is cheap to read (the
    /// store reads it through an index, without stepping far): a page that
    /// is not waits for the keys instead.
    func canReadPage(offset: Int) -> Bool

    /// Every row's tuple in order, as ``RowReader/readTuples(_:)`` reads
    /// them, in steps between which page reads may run.
    func readTuples(_ body: (_ leading: any LeadingValues, _ tuple: Row) throws(ResultsError) -> Void) throws(ResultsError)

    /// Ends the snapshot (its transaction and connection). Reads after it
    /// throw.
    func close()
}

/// The reads of one request (see ``StoreReader``): its full query in the
/// request's order, and a batched read of rows by key.
package protocol RowReader {
    /// The tables the request reads (views report their base tables).
    var readTables: Set<String> { get }
    /// How a commit can patch this request's result, or `nil` when every
    /// commit that touches it is followed by a fetch.
    var patchPlan: PatchPlan? { get }
    /// Whether the store itself keeps keys unique (a primary key), so that
    /// the engine need not check.
    var keysAreUnique: Bool { get }
    /// How the store orders the request's keys (a set controller lists a
    /// report's records in that order, so that it is the same whichever way
    /// it was made).
    var keyOrdering: any SortOrdering { get }

    /// Every row of the result in order: `body` gets the leading values
    /// (see ``StoreReader``), read when asked and only while `body` runs,
    /// and the record's row, whose buffer is reused from row to row.
    ///
    /// - Throws: ``ResultsError/database(_:)`` or the store's error, or
    ///   what `body` throws.
    /// - Complexity: O(*r* · *c*) for *r* rows of *c* columns, plus the
    ///   store's work.
    func readAll(_ body: (_ leading: any LeadingValues, _ row: Row) throws(ResultsError) -> Void) throws(ResultsError)

    /// Every row of the result in order, without its record: `body` gets
    /// the leading values and the row's tuple (its sort values, then its
    /// key), for a lazy fetch (``FetchRequest/fetchBatchSize``). Only a
    /// fetch request's reads have it.
    ///
    /// - Throws: as ``readAll(_:)``, and ``ResultsError/invalidSQL(part:sql:problem:)``
    ///   for reads that do not have it.
    /// - Complexity: O(*r* · *k*) for *r* rows of *k* sort keys, plus the
    ///   store's work.
    func readTuples(_ body: (_ leading: any LeadingValues, _ tuple: Row) throws(ResultsError) -> Void) throws(ResultsError)

    /// The rows of the result with the given keys (none given twice), in
    /// no particular order (a key matching no row gives none; one matching
    /// several gives all, which the engine refuses).
    ///
    /// - Complexity: O(*k*) row reads for *k* keys.
    func readRows(keys: [DatabaseValue], _ body: (_ leading: any LeadingValues, _ row: Row) throws(ResultsError) -> Void) throws(ResultsError)
}

/// The values a request's query puts before a record's columns (see
/// ``StoreReader``), for the row a ``RowReader`` is at: each is read when
/// asked, so a value nobody needs costs nothing. Valid only inside the
/// call that hands it over.
package protocol LeadingValues {
    /// The leading value at `index`.
    func value(at index: Int) -> DatabaseValue
}

/// How a commit patches a fetch request's result, as a store finds it for
/// one request: where the sort values and the key are in a row, and how
/// each orders.
package struct PatchPlan: Sendable {
    /// Where each sort value, then the key, is in a row's values.
    package var tuplePositions: [Int]
    /// How each of them orders, in the same order.
    package var orderings: [any SortOrdering]

    /// A plan.
    package init(tuplePositions: [Int], orderings: [any SortOrdering]) {
        self.tuplePositions = tuplePositions
        self.orderings = orderings
    }

    /// A row's tuple: its sort values and key.
    package func tuple(_ values: [DatabaseValue]) -> [DatabaseValue]? {
        guard tuplePositions.allSatisfy({ $0 < values.count }) else { return nil }
        return tuplePositions.map { values[$0] }
    }
}

/// Hands a controller one ``CommittedChanges`` per committed transaction
/// that touches what it reads (see ``StoreReader/follow(_:tuples:delivery:replacing:)``).
/// Dropping it, or ``cancel()``, stops it.
package protocol ChangeSource: AnyObject {
    /// Stops handing over changes.
    func cancel()
}
