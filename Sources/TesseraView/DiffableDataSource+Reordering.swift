#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif
public import TesseraDiff

extension DiffableDataSource {
    /// What a diffable data source does when the user reorders items (UIKit's
    /// `UICollectionViewDiffableDataSource.ReorderingHandlers`).
    public struct ReorderingHandlers {
        /// Whether an item may be moved. Reordering is off while it is `nil`
        /// (the default), as in UIKit.
        public var canReorderItem: ((Item) -> Bool)?
        /// Called when a movement ends at a new place, with the snapshot
        /// the data source now shows.
        public var didReorder: ((Snapshot<Section, Item>) -> Void)?

        /// Reordering off.
        public init(canReorderItem: ((Item) -> Bool)? = nil, didReorder: ((Snapshot<Section, Item>) -> Void)? = nil) {
            self.canReorderItem = canReorderItem
            self.didReorder = didReorder
        }
    }

    /// Whether ``reorderingHandlers`` let the item at `indexPath` move:
    /// `false` when ``ReorderingHandlers/canReorderItem`` is `nil` or the
    /// index path names no item.
    public func collectionView(_ collectionView: CollectionView, canMoveItemAt indexPath: IndexPath) -> Bool {
        guard let canReorder = reorderingHandlers.canReorderItem, indexPath.count == 2,
              indexPath[0] >= 0, indexPath[0] < snapshot.numberOfSections,
              indexPath[1] >= 0, indexPath[1] < snapshot.numberOfItems(inSection: indexPath[0])
        else { return false }
        return canReorder(snapshot[indexPath])
    }

    /// Moves the item in the snapshot (removed at `sourceIndexPath`, then
    /// inserted at `destinationIndexPath`) and calls
    /// ``ReorderingHandlers/didReorder`` with the new snapshot. Index paths
    /// that name no place leave the snapshot as it is.
    ///
    /// - Complexity: O(*n*) for the *n* items of the snapshot.
    public func collectionView(_ collectionView: CollectionView, moveItemAt sourceIndexPath: IndexPath, to destinationIndexPath: IndexPath) {
        guard sourceIndexPath.count == 2, destinationIndexPath.count == 2,
              sourceIndexPath[0] >= 0, sourceIndexPath[0] < snapshot.numberOfSections,
              sourceIndexPath[1] >= 0, sourceIndexPath[1] < snapshot.numberOfItems(inSection: sourceIndexPath[0]),
              destinationIndexPath[0] >= 0, destinationIndexPath[0] < snapshot.numberOfSections
        else { return }
        var moved = snapshot
        let item = moved.removeItem(at: sourceIndexPath)
        guard destinationIndexPath[1] >= 0, destinationIndexPath[1] <= moved.numberOfItems(inSection: destinationIndexPath[0]) else { return }
        moved.insertItem(item, at: destinationIndexPath)
        snapshot = moved
        reorderingHandlers.didReorder?(moved)
    }
}
