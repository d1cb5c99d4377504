/// Two snapshots to measure, from wherever they came.
package struct BenchInput: Sendable {
    /// What the snapshots are, for the report's header.
    package var label: String
    /// The snapshot before the change.
    package var old: SnapshotDocument.DocumentSnapshot
    /// The snapshot after the change.
    package var new: SnapshotDocument.DocumentSnapshot

    /// Creates an input.
    package init(label: String, old: SnapshotDocument.DocumentSnapshot, new: SnapshotDocument.DocumentSnapshot) {
        self.label = label
        self.old = old
        self.new = new
    }
}
