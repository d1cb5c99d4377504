#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import TesseraDiff

/// One state of a result, shared by the controller and the reports that
/// name it. Its records are chunked, so the next state shares every chunk
/// a commit did not touch.
///
/// A lazily fetched state (``FetchRequest/fetchBatchSize``) holds its rows'
/// keys instead of their records, also chunked and shared with the
/// controller's kept sort values; its records come from the controller's
/// ``_RecordFaults``.
final class _ResultState<Record: FetchableRecord>: Sendable {
    let sections: [ResultSection]
    /// Flat offsets where each section starts, then the record count.
    let sectionStarts: [Int]
    /// The records (empty when the state is lazy).
    let records: _ChunkedArray<Record>
    /// The rows' keys, when the state is lazy and loaded.
    private let loadedKeys: _KeyColumn?
    /// The load of the keys of a lazy state that opened before they were
    /// read (see ``_KeyLoad``).
    let load: _KeyLoad<Record>?
    /// Where a lazy state's records come from.
    let faults: _RecordFaults<Record>?
    private let materialized = PThreadMutex<Snapshot<ResultSection, Record>?>(nil)

    init(sections: [ResultSection], sectionStarts: [Int], records: _ChunkedArray<Record>) {
        self.sections = sections
        self.sectionStarts = sectionStarts
        self.records = records
        loadedKeys = nil
        load = nil
        faults = nil
    }

    /// A lazy state.
    init(sections: [ResultSection], sectionStarts: [Int], keys: _KeyColumn, faults: _RecordFaults<Record>) {
        self.sections = sections
        self.sectionStarts = sectionStarts
        records = _ChunkedArray()
        loadedKeys = keys
        load = nil
        self.faults = faults
    }

    /// A lazy state whose keys are still loading: its sections and counts
    /// are the load's.
    init(loading load: _KeyLoad<Record>, faults: _RecordFaults<Record>) {
        sections = load.sections
        sectionStarts = load.sectionStarts
        records = _ChunkedArray()
        loadedKeys = nil
        self.load = load
        self.faults = faults
    }

    /// The rows' keys, when the state is lazy: waits for a load under way
    /// to end; `nil` when it failed.
    var keys: _KeyColumn? { loadedKeys ?? load?.keys }

    /// The rows' keys when the state is lazy and has them now, without
    /// waiting for a load under way; `nil` otherwise.
    var keysIfLoaded: _KeyColumn? {
        if let loadedKeys { return loadedKeys }
        guard let load, load.isFinished else { return nil }
        return load.keys
    }

    static var empty: _ResultState { _ResultState(sections: [], sectionStarts: [0], records: _ChunkedArray()) }

    /// The number of rows.
    var count: Int { sectionStarts[sectionStarts.count - 1] }

    /// Whether the records are read when asked for.
    var isLazy: Bool { faults != nil }

    /// The record at a flat offset, read from the store if the state is
    /// lazy and the record is not kept.
    ///
    /// - Throws: ``ResultsError`` when a lazy state cannot read it.
    /// - Complexity: O(log *n*), plus a batch read when lazy and not kept.
    func record(atFlat flat: Int) throws(ResultsError) -> Record {
        if let load { return try load.record(atFlat: flat) }
        if let faults, let keys = loadedKeys { return try faults.record(at: flat, keys: keys) }
        return records[flat]
    }

    /// Reads the records at flat offsets that a lazy state does not keep,
    /// and keeps them; an eager state, or one whose keys still load, reads
    /// nothing.
    ///
    /// - Returns: How many records it read.
    @discardableResult
    func prefetch(_ flats: some Sequence<Int>) throws(ResultsError) -> Int {
        guard let faults, let keys = keysIfLoaded else { return 0 }
        return try faults.prefetch(flats, keys: keys)
    }

    /// Every record in order (a lazy state reads those it does not keep).
    ///
    /// - Complexity: O(*n*), with O(*n*) record reads when lazy.
    func allRecords() throws(ResultsError) -> [Record] {
        if let faults {
            guard let keys else { throw load?.failure ?? .recordUnavailable(key: "row 0") }
            return try faults.records(in: 0..<keys.count, keys: keys)
        }
        return records.joined()
    }

    /// The state as a snapshot, made on first use and kept. A lazy state's
    /// records are read outside the lock, so that no thread waits for the
    /// lock while holding the store's.
    ///
    /// - Precondition: a lazy state can read every record.
    var snapshot: Snapshot<ResultSection, Record> {
        if let cached = materialized.withLock({ $0 }) { return cached }
        let items: [Record]
        do throws(ResultsError) { items = try allRecords() } catch {
            preconditionFailure("the records of a lazily fetched result could not be read for its snapshot: \(error)")
        }
        let made = Snapshot(sections: sections, flatItems: items, sectionStarts: sectionStarts)
        return materialized.withLock { cached in
            if let cached { return cached }
            cached = made
            return made
        }
    }

    /// Whether ``snapshot`` was made for this state: a way for tests to see
    /// that a reader of the state (the live list's hub, say) never copied
    /// its records whole.
    package var hasMadeSnapshot: Bool { materialized.withLock { $0 != nil } }

    /// The section holding a flat offset.
    ///
    /// - Complexity: O(log *s*).
    func section(ofFlatOffset offset: Int) -> Int {
        _section(containing: offset, starts: sectionStarts)
    }
}

/// The section holding a flat offset, given where each section starts and
/// then the count: the last section that starts at or before it (a section
/// before it may be empty).
///
/// - Complexity: O(log *s*).
func _section(containing offset: Int, starts: [Int]) -> Int {
    var low = 0
    var high = starts.count - 2
    while low < high {
        let mid = (low + high + 1) / 2
        if starts[mid] <= offset { low = mid } else { high = mid - 1 }
    }
    return low
}
