import TesseraDiff

/// The changes between two snapshots of records, with the diff's own error.
///
/// - Throws: ``ResultsError/diff(_:)`` when ids repeat in either snapshot.
/// - Complexity: as ``TesseraDiff/diff(from:to:)``.
func recordDiff<Section, Item>(from old: Snapshot<Section, Item>, to new: Snapshot<Section, Item>) throws(ResultsError) -> Changeset {
    do {
        return try diff(from: old, to: new)
    } catch let error as DiffError {
        throw .diff(error)
    } catch {
        preconditionFailure("diff(from:to:) throws only DiffError, not \(error)")
    }
}
