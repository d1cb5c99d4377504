#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif
import Synchronization
public import TesseraDiff
import TesseraSQLite

/// One state of a result, shared by the controller and the reports that
/// name it. Its records are chunked, so the next state shares every chunk
/// a commit did not touch.
final class _ResultState<Record: FetchableRecord>: Sendable {
    let sections: [ResultSection]
    /// Flat offsets where each section starts, then the record count.
    let sectionStarts: [Int]
    let records: _ChunkedArray<Record>
    private let materialized = Mutex<Snapshot<ResultSection, Record>?>(nil)

    init(sections: [ResultSection], sectionStarts: [Int], records: _ChunkedArray<Record>) {
        self.sections = sections
        self.sectionStarts = sectionStarts
        self.records = records
    }

    static var empty: _ResultState { _ResultState(sections: [], sectionStarts: [0], records: _ChunkedArray()) }

    /// The state as a snapshot, made on first use and kept.
    var snapshot: Snapshot<ResultSection, Record> {
        materialized.withLock { cached in
            if let cached { return cached }
            let snapshot = Snapshot(sections: sections, flatItems: records.joined(), sectionStarts: sectionStarts)
            cached = snapshot
            return snapshot
        }
    }

    /// The section holding a flat offset.
    ///
    /// - Complexity: O(log *s*).
    func section(ofFlatOffset offset: Int) -> Int {
        var low = 0
        var high = sections.count - 1
        while low < high {
            let mid = (low + high + 1) / 2
            if sectionStarts[mid] <= offset { low = mid } else { high = mid - 1 }
        }
        return low
    }
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
    public var count: Int { state.records.count }
    /// The number of records in a section.
    ///
    /// - Precondition: `section` is in `0..<numberOfSections`.
    /// - Complexity: O(1).
    public func numberOfRecords(inSection section: Int) -> Int {
        state.sectionStarts[section + 1] - state.sectionStarts[section]
    }

    /// The record at an index path.
    ///
    /// - Precondition: the index path is in the result.
    /// - Complexity: O(log *n*).
    public subscript(indexPath: IndexPath) -> Record {
        precondition(indexPath.section >= 0 && indexPath.section < numberOfSections, "section \(indexPath.section) is out of range (\(numberOfSections) sections)")
        precondition(indexPath.item >= 0 && indexPath.item < numberOfRecords(inSection: indexPath.section), "item \(indexPath.item) is out of range in section \(indexPath.section)")
        return state.records[state.sectionStarts[indexPath.section] + indexPath.item]
    }

    /// The index path of the record with an id, or `nil`.
    ///
    /// - Complexity: O(*n*).
    public func indexPath(ofRecordWithID id: Record.ID) -> IndexPath? {
        var offset = 0
        for chunk in state.records.chunks {
            if let k = chunk.firstIndex(where: { $0.id == id }) {
                let flat = offset + k
                let section = state.section(ofFlatOffset: flat)
                return IndexPath(item: flat - state.sectionStarts[section], section: section)
            }
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

    /// Creates a report.
    public init(changeset: Changeset, old: FetchedResult<Record>, new: FetchedResult<Record>) {
        self.changeset = changeset
        self.old = old
        self.new = new
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
            merge: { earlier, later in ChangeReport(changeset: Changeset(), old: earlier.old, new: later.new) },
            resolve: { merged in
                ChangeReport(changeset: exactDiff(from: merged.oldSnapshot, to: merged.newSnapshot), old: merged.old, new: merged.new)
            }
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
