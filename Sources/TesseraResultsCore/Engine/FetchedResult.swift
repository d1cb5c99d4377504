#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif
public import TesseraDiff

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

/// A fetched result at one moment: its sections and records, read in
/// O(log *n*) without copying. Reports carry the result before and after
/// each change; a copy costs nothing, and ``snapshot`` turns it into a
/// ``Snapshot`` when you need one (the first call copies the records,
/// later calls reuse it).
public struct FetchedResult<Record: FetchableRecord>: Sendable {
    let state: _ResultState<Record>

    init(_ state: _ResultState<Record>) {
        self.state = state
    }

    /// An empty result.
    public init() {
        self.init(.empty)
    }

    /// The sections, in order.
    public var sections: [ResultSection] { state.sections }
    /// The number of sections.
    public var numberOfSections: Int { state.sections.count }
    /// The number of records in every section.
    public var count: Int { state.count }
    /// The number of records in a section.
    ///
    /// - Precondition: `section` is in `0..<numberOfSections`.
    /// - Complexity: O(1).
    public func numberOfRecords(inSection section: Int) -> Int {
        state.sectionStarts[section + 1] - state.sectionStarts[section]
    }

    /// The record at an index path.
    ///
    /// A lazily fetched result (``FetchRequest/fetchBatchSize``) reads it
    /// from the store, with the batch around it, unless it is kept; use
    /// ``record(at:)`` to handle a failed read.
    ///
    /// - Precondition: the index path is in the result, and a lazy result
    ///   can read its record.
    /// - Complexity: O(log *n*), plus a batch read when lazy and not kept.
    public subscript(indexPath: IndexPath) -> Record {
        do throws(ResultsError) { return try record(at: indexPath) } catch {
            preconditionFailure("the record at \(indexPath) could not be read: \(error)")
        }
    }

    /// The record at an index path, reading it from the store when the
    /// result is lazy and does not keep it (see
    /// ``FetchRequest/fetchBatchSize``).
    ///
    /// - Precondition: the index path is in the result.
    /// - Throws: ``ResultsError``: the store's failure, a record that fails
    ///   to decode, or ``ResultsError/recordUnavailable(key:)``.
    /// - Complexity: O(log *n*), plus a batch read when lazy and not kept.
    public func record(at indexPath: IndexPath) throws(ResultsError) -> Record {
        precondition(indexPath.section >= 0 && indexPath.section < numberOfSections, "section \(indexPath.section) is out of range (\(numberOfSections) sections)")
        precondition(indexPath.item >= 0 && indexPath.item < numberOfRecords(inSection: indexPath.section), "item \(indexPath.item) is out of range in section \(indexPath.section)")
        return try state.record(atFlat: state.sectionStarts[indexPath.section] + indexPath.item)
    }

    /// Whether records are read from the store when asked for (the request
    /// has a ``FetchRequest/fetchBatchSize``).
    public var isLazy: Bool { state.isLazy }

    /// The index path of the record with an id, or `nil`.
    ///
    /// - Complexity: O(*n*); a lazy result reads the records it does not
    ///   keep, a batch at a time, until it finds the id.
    public func indexPath(ofRecordWithID id: Record.ID) -> IndexPath? {
        func path(_ flat: Int) -> IndexPath {
            let section = state.section(ofFlatOffset: flat)
            return IndexPath(item: flat - state.sectionStarts[section], section: section)
        }
        if let faults = state.faults, let keys = state.keys {
            var start = 0
            while start < keys.count {
                let end = Swift.min(keys.count, start + Swift.max(faults.batchSize, 256))
                guard let records = try? faults.records(in: start..<end, keys: keys) else { return nil }
                if let k = records.firstIndex(where: { $0.id == id }) { return path(start + k) }
                start = end
            }
            return nil
        }
        var offset = 0
        for chunk in state.records.chunks {
            if let k = chunk.firstIndex(where: { $0.id == id }) { return path(offset + k) }
            offset += chunk.count
        }
        return nil
    }

    /// The result as a snapshot.
    ///
    /// - Complexity: O(*n*) the first time for a state, O(1) after.
    public var snapshot: Snapshot<ResultSection, Record> { state.snapshot }
}

/// One committed transaction's change to a result: the changeset, and the
/// results before and after (cheap to keep: they share storage with the
/// controller).
public struct ChangeReport<Record: FetchableRecord>: Sendable {
    /// The changes, in UIKit's index spaces.
    public var changeset: Changeset
    /// The result before.
    public var old: FetchedResult<Record>
    /// The result after.
    public var new: FetchedResult<Record>

    /// The keys of the records the report counts as updated, in a lazy
    /// result (see ``FetchRequest/fetchBatchSize``): what merging reports
    /// needs, since a lazy result keeps no record to compare.
    var updatedKeys: Set<DatabaseValue> = []

    /// The change the view already showed when this report was made,
    /// declared with
    /// ``FetchedResultsController/performUserDrivenChange(_:isolation:write:)``,
    /// or `nil`. When set, ``old`` is ``resultBeforeUserDrivenChange`` with
    /// this change applied — the state the view shows — and the changeset
    /// goes from there.
    public internal(set) var userDrivenChange: UserDrivenChange<Record>?
    /// The controller's result before the user-driven change (the previous
    /// report's ``new``), or `nil` when the report follows no user-driven
    /// change.
    public internal(set) var resultBeforeUserDrivenChange: FetchedResult<Record>?

    /// Creates a report.
    public init(changeset: Changeset, old: FetchedResult<Record>, new: FetchedResult<Record>) {
        self.changeset = changeset
        self.old = old
        self.new = new
    }

    init(changeset: Changeset, old: FetchedResult<Record>, new: FetchedResult<Record>, updatedKeys: Set<DatabaseValue>) {
        self.init(changeset: changeset, old: old, new: new)
        self.updatedKeys = updatedKeys
    }

    /// The result before, as a snapshot.
    ///
    /// - Complexity: O(*n*) on first use (see ``FetchedResult/snapshot``).
    public var oldSnapshot: Snapshot<ResultSection, Record> { old.snapshot }
    /// The result after, as a snapshot.
    ///
    /// - Complexity: O(*n*) on first use (see ``FetchedResult/snapshot``).
    public var newSnapshot: Snapshot<ResultSection, Record> { new.snapshot }
}

extension ChangeReport {
    /// Reports merged under load go from the first one's old result to the
    /// last one's new result; the changeset is diffed when the merged report
    /// is taken.
    static var merging: _ReportMerging<ChangeReport> {
        _ReportMerging(
            merge: { earlier, later in
                var merged = ChangeReport(changeset: Changeset(), old: earlier.old, new: later.new, updatedKeys: earlier.updatedKeys.union(later.updatedKeys))
                merged.userDrivenChange = earlier.userDrivenChange
                merged.resultBeforeUserDrivenChange = earlier.resultBeforeUserDrivenChange
                return merged
            },
            resolve: { merged in
                var resolved: ChangeReport
                if merged.old.state.isLazy || merged.new.state.isLazy {
                    // A lazy result may no longer be able to read its old
                    // records: diff the keys, or reload every section.
                    let changeset = (try? lazyDiff(from: merged.old.state, to: merged.new.state, updated: merged.updatedKeys))
                        ?? reloadChangeset(from: merged.old.state, to: merged.new.state)
                    resolved = ChangeReport(changeset: changeset, old: merged.old, new: merged.new, updatedKeys: merged.updatedKeys)
                } else {
                    resolved = ChangeReport(changeset: exactDiff(from: merged.oldSnapshot, to: merged.newSnapshot), old: merged.old, new: merged.new)
                }
                resolved.userDrivenChange = merged.userDrivenChange
                resolved.resultBeforeUserDrivenChange = merged.resultBeforeUserDrivenChange
                return resolved
            },
            startsUserDrivenStep: { $0.resultBeforeUserDrivenChange != nil }
        )
    }
}

/// The changeset between two results a controller produced. Should a
/// record type's ids repeat where the keys do not (an `id` that is not the
/// key), no diff exists: then every old section goes and every new one
/// comes, a batch a list can always apply.
func exactDiff<Section, Item>(from old: Snapshot<Section, Item>, to new: Snapshot<Section, Item>) -> Changeset {
    do {
        return try diff(from: old, to: new)
    } catch {
        var changeset = Changeset()
        changeset.sectionDeletes = Array(0..<old.numberOfSections)
        changeset.sectionInserts = Array(0..<new.numberOfSections)
        return changeset
    }
}

/// A changeset that deletes every old section and inserts every new one:
/// what a list can always apply, for two results that cannot be diffed.
func reloadChangeset<Record>(from old: _ResultState<Record>, to new: _ResultState<Record>) -> Changeset {
    var changeset = Changeset()
    changeset.sectionDeletes = Array(0..<old.sections.count)
    changeset.sectionInserts = Array(0..<new.sections.count)
    return changeset
}

/// A lazy result's row in a diff: its key, and whether its record counts
/// as changed (a row of the state after a change that the change updated).
struct _KeyedRow: Identifiable, Equatable {
    var id: DatabaseValue
    var changed: Bool
}

/// The changeset between two lazy results, by key: rows whose key is in
/// `updated` (and in both) are updates.
///
/// - Throws: ``ResultsError/diff(_:)`` when a key repeats.
/// - Complexity: O(*n*) and O(*m* log *m*) for *m* moved rows (the diff).
func lazyDiff<Record>(from old: _ResultState<Record>, to new: _ResultState<Record>, updated: Set<DatabaseValue>) throws(ResultsError) -> Changeset {
    // A state whose keys failed to load has nothing to diff.
    guard old.isLazy, new.isLazy, let oldKeys = old.keys, let newKeys = new.keys else { return reloadChangeset(from: old, to: new) }
    func snapshot(_ state: _ResultState<Record>, keys: _KeyColumn, marking: Bool) -> Snapshot<ResultSection, _KeyedRow> {
        var rows: [_KeyedRow] = []
        rows.reserveCapacity(keys.count)
        for index in 0..<keys.count {
            let key = keys[index]
            rows.append(_KeyedRow(id: key, changed: marking && updated.contains(key)))
        }
        return Snapshot(sections: state.sections, flatItems: rows, sectionStarts: state.sectionStarts)
    }
    return try recordDiff(from: snapshot(old, keys: oldKeys, marking: false), to: snapshot(new, keys: newKeys, marking: !updated.isEmpty))
}
