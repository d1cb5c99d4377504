#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import TesseraDiff

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
