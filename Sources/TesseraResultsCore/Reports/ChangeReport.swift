#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
public import TesseraDiff

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
