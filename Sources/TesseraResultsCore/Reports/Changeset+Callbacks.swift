#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import TesseraDiff

extension Changeset {
    /// Walks the changes in Core Data's callback order: section deletes,
    /// inserts, moves and updates, then item deletes, inserts, moves and
    /// updates. Updates and moves pass both positions; deletes pass only
    /// the old one, inserts only the new one.
    ///
    /// - Complexity: O(*k*) in the number of changes.
    func forEachChange(
        section: (_ oldIndex: Int?, _ type: ResultsChangeType, _ newIndex: Int?) -> Void,
        item: (_ oldIndexPath: IndexPath?, _ type: ResultsChangeType, _ newIndexPath: IndexPath?) -> Void
    ) {
        for s in sectionDeletes { section(s, .delete, nil) }
        for t in sectionInserts { section(nil, .insert, t) }
        for move in sectionMoves { section(move.from, .move, move.to) }
        for update in sectionUpdates { section(update.from, .update, update.to) }
        for path in itemDeletes { item(path, .delete, nil) }
        for path in itemInserts { item(nil, .insert, path) }
        for move in itemMoves { item(move.from, .move, move.to) }
        for update in itemUpdates { item(update.from, .update, update.to) }
    }
}
