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

    /// Creates a report.
    public init(changeset: Changeset, oldSnapshot: Snapshot<Section, Item>, newSnapshot: Snapshot<Section, Item>) {
        self.changeset = changeset
        self.oldSnapshot = oldSnapshot
        self.newSnapshot = newSnapshot
    }
}

extension SnapshotReport: Sendable where Section: Sendable, Item: Sendable {}
