#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif
public import TesseraDiff

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

    /// Reads the records at `indexPaths` that a lazy result does not keep,
    /// exactly those and not the batches around them, and keeps them, so
    /// that ``record(at:)`` then reads nothing for them: for a caller about
    /// to read records scattered over the list (the items of many
    /// viewports), which one at a time would each read a batch of
    /// ``FetchRequest/fetchBatchSize`` rows.
    ///
    /// It takes at most half as many distinct records as the result keeps
    /// (eight batches, and at least 4,096; the index paths past them are
    /// ignored), and those it keeps already go last in its eviction order,
    /// so that everything asked for is still kept when the caller reads it;
    /// prefetch a larger set in parts. An eager result, and a lazy one
    /// whose keys are still loading, read nothing. Index
    /// paths outside the result are ignored.
    ///
    /// - Returns: How many records it asked the store for.
    /// - Throws: ``ResultsError``: the store's failure, or a record that
    ///   fails to decode; a row gone from the store is skipped (its
    ///   ``record(at:)`` throws ``ResultsError/recordUnavailable(key:)``).
    /// - Complexity: O(*k* log *n*) for *k* index paths, plus one store
    ///   read per ``FetchRequest/fetchBatchSize`` records not kept.
    @discardableResult
    public func prefetchRecords(at indexPaths: some Sequence<IndexPath>) throws(ResultsError) -> Int {
        let starts = state.sectionStarts
        let sections = starts.count - 1
        return try state.prefetch(indexPaths.lazy.compactMap { path -> Int? in
            guard path.count == 2, path.section >= 0, path.section < sections, path.item >= 0,
                  path.item < starts[path.section + 1] - starts[path.section] else { return nil }
            return starts[path.section] + path.item
        })
    }

    /// Whether records are read from the store when asked for (the request
    /// has a ``FetchRequest/fetchBatchSize``).
    public var isLazy: Bool { state.isLazy }

    /// The key (the request's key column) of the record at an index path,
    /// without reading the record: a lazy result keeps every row's key once
    /// they are loaded (see ``FetchRequest/fetchBatchSize``). `nil` for a
    /// result that keeps its records instead (read the record), and while
    /// a lazy result's keys are still loading (it does not wait for them).
    ///
    /// - Precondition: the index path is in the result.
    public func key(at indexPath: IndexPath) -> DatabaseValue? {
        precondition(indexPath.section >= 0 && indexPath.section < numberOfSections, "section \(indexPath.section) is out of range (\(numberOfSections) sections)")
        precondition(indexPath.item >= 0 && indexPath.item < numberOfRecords(inSection: indexPath.section), "item \(indexPath.item) is out of range in section \(indexPath.section)")
        return state.keysIfLoaded?[state.sectionStarts[indexPath.section] + indexPath.item]
    }

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
