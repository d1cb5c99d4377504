#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The keys of a lazy result loading in the background (see
/// ``FetchRequest/fetchBatchSize``): what a result that opens at once has
/// instead of its keys until they are read.
///
/// It starts with the sections and their counts, which are exact: they
/// come from the same committed state as everything it reads after (a
/// ``SnapshotReader``). Until the keys are read, a record is read by its
/// position (its section and its offset there), a page at a time; then
/// every row's tuple is read in order on a thread of its own, checked
/// against the counts, and the result is complete. The controller takes
/// the tuples before it applies any commit, waiting for them if need be,
/// so that reports are exact whenever they come.
final class _KeyLoad<Record: FetchableRecord>: Sendable {
    typealias Fetched = _ResultEngine<Record>.Fetched

    /// The sections and where each starts, from the counts.
    let sections: [ResultSection]
    let sectionStarts: [Int]
    private let snapshot: any SnapshotReader
    private let faults: _RecordFaults<Record>
    private let sectioned: Bool

    private struct State {
        /// The load's end: the fetched result, or why it failed.
        var outcome: Result<Fetched, ResultsError>?
        /// The records read by position, by flat offset, with their keys.
        /// Kept here, not in the result's cache: they are the snapshot's,
        /// which a newer state of the result (a re-fetch, a second fetch)
        /// must not read as its own. Kept after the load too, as what this
        /// state showed (see ``shownRecords``).
        var positionRecords: [Int: (key: DatabaseValue, record: Record)] = [:]
        /// Who waits for the end without blocking.
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    private let state = PThreadMutex(State())
    private let ended = _Completion()

    /// A load from `snapshot`, whose counts are `counts`.
    init(counts: [(value: DatabaseValue, count: Int)], snapshot: any SnapshotReader, faults: _RecordFaults<Record>, sectioned: Bool) {
        var starts = [0]
        starts.reserveCapacity(counts.count + 1)
        for section in counts { starts.append(starts[starts.count - 1] + section.count) }
        sections = counts.map { ResultSection(value: $0.value) }
        sectionStarts = starts
        self.snapshot = snapshot
        self.faults = faults
        self.sectioned = sectioned
    }

    /// Reads every row's tuple on a thread of its own.
    ///
    /// - Parameters:
    ///   - plan: The request's patch plan, as the store's connection
    ///     found it (the tuples are read as it says).
    ///   - keysAreUnique: Whether the store keeps the keys unique.
    ///   - keyOrdering: How the store orders the keys.
    ///   - tables: The tables the request reads.
    ///   - failed: Called on the load's thread if the load fails.
    func start(
        plan: PatchPlan?, keysAreUnique: Bool, keyOrdering: any SortOrdering, tables: Set<String>,
        failed: @escaping @Sendable () -> Void
    ) {
        let reader = _SnapshotTuples(snapshot: snapshot, patchPlan: plan, keysAreUnique: keysAreUnique, keyOrdering: keyOrdering, readTables: tables)
        _startThread { [self] in
            KeyLoadTesting.beforeScan.withLock { $0[snapshot.source] }?()
            let outcome: Result<Fetched, ResultsError>
            do throws(ResultsError) {
                let fetched = try _ResultEngine<Record>.fetchLazily(reader, sectioned: sectioned, externalVersion: nil, faults: faults)
                try check(fetched.state)
                outcome = .success(fetched)
            } catch {
                outcome = .failure(error)
            }
            finish(outcome)
            if case .failure = outcome { failed() }
        }
    }

    /// Fails the load if the rows read are not the sections counted (the
    /// grouped count and the sorted rows disagree: a section whose rows
    /// are not together under the sort).
    private func check(_ loaded: _ResultState<Record>) throws(ResultsError) {
        let values = loaded.sections.map(\.value)
        guard loaded.sectionStarts != sectionStarts || values != sections.map(\.value) else { return }
        let differing = zip(values, sections.map(\.value)).first { $0.0 != $0.1 }?.0 ?? values.last ?? sections.last?.value
        throw .sectionNotContiguous(differing?.description ?? "NULL")
    }

    private func finish(_ outcome: Result<Fetched, ResultsError>) {
        let waiters = state.withLock { state in
            state.outcome = outcome
            defer { state.waiters = [] }
            return state.waiters
        }
        // Closed once the outcome is set (a read by position that saw none
        // yet holds the lock it is set under), and before anyone waiting
        // is told: a loaded result holds no second connection.
        snapshot.close()
        ended.signal()
        for waiter in waiters { waiter.resume() }
    }

    /// The records this state showed while its keys loaded (read by
    /// position), by key: what a re-fetch compares with the store's to
    /// report the ones that changed.
    var shownRecords: [DatabaseValue: Record] {
        state.withLock { state in
            var shown: [DatabaseValue: Record] = [:]
            for read in state.positionRecords.values { shown[read.key] = read.record }
            return shown
        }
    }

    /// Whether the load has ended (well or not).
    var isFinished: Bool { state.withLock { $0.outcome != nil } }

    /// Waits for the load to end and returns its outcome, blocking the
    /// calling thread.
    ///
    /// The load runs on a thread of its own and needs nothing of Swift
    /// concurrency's cooperative pool, so a caller on the pool (a
    /// controller homed on an actor) waits at most for the rest of the
    /// load; ``waitAsync()`` waits without holding a thread.
    ///
    /// - Complexity: at most the rest of the load.
    func wait() -> Result<Fetched, ResultsError> {
        ended.wait()
        return state.withLock { $0.outcome! }
    }

    /// Waits for the load to end, without blocking a thread.
    func waitAsync() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let ended = state.withLock { state in
                guard state.outcome == nil else { return true }
                state.waiters.append(continuation)
                return false
            }
            if ended { continuation.resume() }
        }
    }

    /// Why the load failed (waiting for it to end); `nil` when it did not.
    var failure: ResultsError? {
        guard case let .failure(error) = wait() else { return nil }
        return error
    }

    /// The keys, once loaded (waiting for them); `nil` when the load failed.
    var keys: _KeyColumn? {
        guard case let .success(fetched) = wait() else { return nil }
        return fetched.state.keys
    }

    /// The record at a flat offset: while loading, read by position with
    /// the page around it (and kept); after, as any lazy result reads it.
    ///
    /// - Throws: ``ResultsError``: the store's failure, a record that fails
    ///   to decode, the load's failure.
    /// - Complexity: O(log *s*) and a page read of ``_RecordFaults/batchSize``
    ///   rows from its section's offset while loading.
    func record(atFlat flat: Int) throws(ResultsError) -> Record {
        // Only a read by position is made under the lock: a read by key
        // takes the store's connection, which a commit holds while it
        // waits for the load.
        let outcome = try state.withLock { state throws(ResultsError) -> Result<Record, ResultsError>? in
            switch state.outcome {
            case .success?: return nil
            case let .failure(error)?: return .failure(error)
            case nil:
                if let read = state.positionRecords[flat] { return .success(read.record) }
                let (section, offset) = page(around: flat)
                // A page the store cannot read cheaply waits for the keys.
                guard snapshot.canReadPage(offset: offset) else { return nil }
                return .success(try readPage(section: section, offset: offset, flat: flat, into: &state))
            }
        }
        if let outcome { return try outcome.get() }
        guard let keys else { throw .recordUnavailable(key: "row \(flat)") }
        return try faults.record(at: flat, keys: keys)
    }

    /// The section holding `flat`, and the offset in it of the page
    /// around `flat`.
    private func page(around flat: Int) -> (section: Int, offset: Int) {
        let low = _section(containing: flat, starts: sectionStarts)
        let count = sectionStarts[low + 1] - sectionStarts[low]
        let batch = faults.batchSize
        return (low, Swift.max(0, Swift.min(flat - sectionStarts[low] - batch / 4, count - batch)))
    }

    /// Reads the page of `section` from `offset`, keeping its records by
    /// position, and returns the one at `flat`.
    private func readPage(section: Int, offset: Int, flat: Int, into state: inout State) throws(ResultsError) -> Record {
        let batch = faults.batchSize
        var read: [(key: DatabaseValue, record: Record)] = []
        read.reserveCapacity(batch)
        try snapshot.page(section: sectioned ? sections[section].value : nil, offset: offset, limit: batch) { (leading, row) throws(ResultsError) in
            let key = leading.value(at: 1)
            do { read.append((key, try Record(row: row))) } catch { throw .decoding(key: key.description, message: "\(error)") }
        }
        // Bounded as the result's cache is: past it, start over.
        if state.positionRecords.count + read.count > faults.capacity { state.positionRecords = [:] }
        let start = sectionStarts[section] + offset
        for (index, record) in read.enumerated() where start + index < sectionStarts[section + 1] {
            state.positionRecords[start + index] = record
        }
        let index = flat - start
        guard read.indices.contains(index) else { throw .recordUnavailable(key: "row \(flat)") }
        return read[index].record
    }
}

/// A snapshot's tuples as a ``RowReader`` (what ``_ResultEngine`` reads a
/// lazy result from): the rest of what it says was found on the store's
/// connection.
private struct _SnapshotTuples: RowReader {
    let snapshot: any SnapshotReader
    let patchPlan: PatchPlan?
    let keysAreUnique: Bool
    let keyOrdering: any SortOrdering
    let readTables: Set<String>

    func readTuples(_ body: (_ leading: any LeadingValues, _ tuple: Row) throws(ResultsError) -> Void) throws(ResultsError) {
        try snapshot.readTuples(body)
    }

    func readAll(_ body: (_ leading: any LeadingValues, _ row: Row) throws(ResultsError) -> Void) throws(ResultsError) {
        throw .invalidSQL(part: "request", sql: "", problem: "a loading result reads no records whole")
    }

    func readRows(keys: [DatabaseValue], _ body: (_ leading: any LeadingValues, _ row: Row) throws(ResultsError) -> Void) throws(ResultsError) {
        throw .invalidSQL(part: "request", sql: "", problem: "a loading result reads no records by key")
    }
}

/// A one-time event threads can wait for: a pthread condition, which
/// ThreadSanitizer follows.
final class _Completion: Sendable {
    private let done = PThreadCondition(false)

    func signal() {
        done.update { $0 = true }
    }

    func wait() {
        done.wait(until: { $0 }) { _ in }
    }
}

/// Runs `body` on a new detached thread (not one of Swift concurrency's,
/// which a long read would hold), marked as Tessera's own
/// (``OwnedThread``); on the calling thread when the system refuses a new
/// thread.
func _startThread(_ body: @escaping @Sendable () -> Void) {
    if !_tryStartThread(body) { body() }
}

/// Runs `body` on a new detached thread marked as Tessera's own
/// (``OwnedThread``), and returns true; false (and `body` not run) when
/// the system refuses a new thread.
func _tryStartThread(_ body: @escaping @Sendable () -> Void) -> Bool {
    let box = Unmanaged.passRetained(_ThreadBody(body)).toOpaque()
    var thread = pthread_t()
    let created = pthread_create(&thread, nil, { pointer in
        #if canImport(Darwin)
        let box = Unmanaged<AnyObject>.fromOpaque(pointer).takeRetainedValue()
        #else
        let box = Unmanaged<AnyObject>.fromOpaque(pointer!).takeRetainedValue()
        #endif
        OwnedThread.mark()
        (box as! _ThreadBody).body()
        return nil
    }, box)
    guard created == 0 else {
        Unmanaged<AnyObject>.fromOpaque(box).release()
        return false
    }
    pthread_detach(thread)
    return true
}

/// What a thread started by ``_startThread(_:)`` runs.
private final class _ThreadBody {
    let body: @Sendable () -> Void
    init(_ body: @escaping @Sendable () -> Void) { self.body = body }
}

/// What tests reach of key loads.
package enum KeyLoadTesting {
    /// Called on the thread of each load of a source (an SQLite file's
    /// path) before it reads the tuples: a test holds the loads of its own
    /// file open with it, to read and commit while they load.
    package static let beforeScan = PThreadMutex<[String: @Sendable () -> Void]>([:])
}
