#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
public import TesseraDiff

/// One change to a sectioned result of a ``MutableResultsController`` or a
/// ``RelationalResultsController``: the changeset in UIKit's index spaces
/// and the snapshots before and after (copy-on-write values, cheap to keep).
///
/// The changeset is exactly `diff(from: oldSnapshot, to: newSnapshot)`, so
/// `oldSnapshot.applying(changeset, takingValuesFrom: newSnapshot)` gives
/// `newSnapshot`. The one addition: class elements of a
/// ``MutableResultsController`` changed in place and passed to
/// ``MutableResultsController/didUpdate(_:)`` are item updates, which the
/// diff cannot see (both snapshots hold the same, changed, object).
public struct SnapshotReport<Section: Identifiable & Equatable, Item: Identifiable & Equatable> {
    /// The changes, in UIKit's index spaces.
    public var changeset: Changeset
    /// The result before.
    public var oldSnapshot: Snapshot<Section, Item>
    /// The result after.
    public var newSnapshot: Snapshot<Section, Item>
    /// Elements reports merged under load updated in place (see
    /// ``merging``): the merged changeset adds their updates.
    var carriedInPlaceUpdates: [Item] = []

    /// The change the view already showed when this report was made,
    /// declared with
    /// ``MutableResultsController/performUserDrivenChange(_:write:)``, or
    /// `nil`. When set, ``oldSnapshot`` is
    /// ``snapshotBeforeUserDrivenChange`` with this change applied — the
    /// state the view shows — and the changeset goes from there.
    public internal(set) var userDrivenChange: UserDrivenChange<Item>?
    /// The controller's snapshot before the user-driven change (the
    /// previous report's ``newSnapshot``), or `nil` when the report follows
    /// no user-driven change.
    public internal(set) var snapshotBeforeUserDrivenChange: Snapshot<Section, Item>?

    /// Creates a report.
    public init(changeset: Changeset, oldSnapshot: Snapshot<Section, Item>, newSnapshot: Snapshot<Section, Item>) {
        self.changeset = changeset
        self.oldSnapshot = oldSnapshot
        self.newSnapshot = newSnapshot
    }

    /// The elements this report updates although they compare equal before
    /// and after (objects changed in place), and those it carries.
    ///
    /// - Complexity: O(*u*) for *u* updates.
    var inPlaceUpdates: [Item] {
        carriedInPlaceUpdates + changeset.itemUpdates.compactMap { update in
            let element = newSnapshot[update.to]
            return oldSnapshot[update.from] == element ? element : nil
        }
    }
}

extension SnapshotReport {
    /// Adds item updates for elements with the given ids that stay, in
    /// sections that stay: where the diff would put them had it seen their
    /// old content.
    ///
    /// - Complexity: O(*n* + *s*).
    static func addUpdates(for ids: Set<Item.ID>, from old: Snapshot<Section, Item>, to new: Snapshot<Section, Item>, to changeset: inout Changeset) {
        var newPaths: [Item.ID: IndexPath] = [:]
        for t in 0..<new.numberOfSections where old.index(ofSectionWithID: new[section: t].id) != nil {
            for (i, element) in new.items(inSection: t).enumerated() where ids.contains(element.id) {
                newPaths[element.id] = IndexPath(item: i, section: t)
            }
        }
        guard !newPaths.isEmpty else { return }
        let present = Set(changeset.itemUpdates.map(\.from))
        for s in 0..<old.numberOfSections where new.index(ofSectionWithID: old[section: s].id) != nil {
            for (offset, element) in old.items(inSection: s).enumerated() {
                guard let to = newPaths[element.id] else { continue }
                let from = IndexPath(item: offset, section: s)
                if !present.contains(from) { changeset.itemUpdates.append(Move(from: from, to: to)) }
            }
        }
        changeset.itemUpdates.sort { $0.from < $1.from }
    }
}

extension SnapshotReport where Section: Sendable, Item: Sendable {
    /// Reports merged under load go from the first one's old snapshot to
    /// the last one's new snapshot; the changeset is diffed when the merged
    /// report is taken, with the updates of elements changed in place that
    /// the merged reports carried.
    static var merging: _ReportMerging<SnapshotReport> {
        _ReportMerging(
            merge: { earlier, later in
                var merged = SnapshotReport(changeset: Changeset(), oldSnapshot: earlier.oldSnapshot, newSnapshot: later.newSnapshot)
                merged.carriedInPlaceUpdates = earlier.inPlaceUpdates + later.inPlaceUpdates
                merged.userDrivenChange = earlier.userDrivenChange
                merged.snapshotBeforeUserDrivenChange = earlier.snapshotBeforeUserDrivenChange
                return merged
            },
            resolve: { merged in
                var changeset = exactDiff(from: merged.oldSnapshot, to: merged.newSnapshot)
                let ids = Set(merged.carriedInPlaceUpdates.map(\.id))
                if !ids.isEmpty { addUpdates(for: ids, from: merged.oldSnapshot, to: merged.newSnapshot, to: &changeset) }
                var resolved = SnapshotReport(changeset: changeset, oldSnapshot: merged.oldSnapshot, newSnapshot: merged.newSnapshot)
                resolved.userDrivenChange = merged.userDrivenChange
                resolved.snapshotBeforeUserDrivenChange = merged.snapshotBeforeUserDrivenChange
                return resolved
            },
            startsUserDrivenStep: { $0.snapshotBeforeUserDrivenChange != nil }
        )
    }
}

extension SnapshotReport: Sendable where Section: Sendable, Item: Sendable {}
