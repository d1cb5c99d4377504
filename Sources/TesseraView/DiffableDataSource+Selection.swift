#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import TesseraDiff

extension DiffableDataSource {
    /// The ids of the selected items, in index path order.
    ///
    /// The selection follows ids by itself: ``apply(_:animated:)``
    /// performs the diff as a batch update, and the collection view moves
    /// its selection with the batch's moves, so an item stays selected
    /// wherever it goes and leaves the selection when its id leaves the
    /// snapshot. During an interactive movement the view's index paths
    /// name the order it presents; each is read through
    /// ``CollectionView/dataSourceIndexPath(forPresentedIndexPath:)``.
    ///
    /// - Complexity: O(*s*) for *s* selected items.
    public var selectedItemIDs: [Item.ID] {
        collectionView.indexPathsForSelectedItems.map { snapshot[collectionView.dataSourceIndexPath(forPresentedIndexPath: $0)].id }
    }

    /// Selects the item with an id, as ``CollectionView/selectItem(at:)``
    /// does at its index path (without telling the view's delegate; during
    /// an interactive movement, at the index path the view presents it at).
    ///
    /// - Throws: ``SelectionError/unknownItemID(_:)`` when the snapshot has
    ///   no item with the id, and what ``CollectionView/selectItem(at:)``
    ///   throws; the selection is unchanged.
    /// - Complexity: O(*n*) for *n* items (the id is looked up in the
    ///   snapshot), plus O(*s*) for *s* selected items.
    public func selectItem(withID id: Item.ID) throws(SelectionError) {
        guard let indexPath = snapshot.indexPath(ofItemWithID: id) else { throw .unknownItemID("\(id)") }
        try collectionView.selectItem(at: collectionView.presentedIndexPath(forDataSourceIndexPath: indexPath))
    }

    /// Deselects the item with an id, as ``CollectionView/deselectItem(at:)``
    /// does at its index path (without telling the view's delegate; during
    /// an interactive movement, at the index path the view presents it at).
    ///
    /// - Throws: ``SelectionError/unknownItemID(_:)`` when the snapshot has
    ///   no item with the id; the selection is unchanged.
    /// - Complexity: O(*n*) for *n* items, plus O(*s*) for *s* selected
    ///   items.
    public func deselectItem(withID id: Item.ID) throws(SelectionError) {
        guard let indexPath = snapshot.indexPath(ofItemWithID: id) else { throw .unknownItemID("\(id)") }
        try collectionView.deselectItem(at: collectionView.presentedIndexPath(forDataSourceIndexPath: indexPath))
    }
}

extension DiffableDataSource {
    /// Where an item the diff deletes is inserted again (it left a deleted
    /// section or entered an inserted one), by id: the inserted items'
    /// index paths are gathered on the first call.
    ///
    /// - Complexity: O(*i*) once for *i* inserted items (with those of
    ///   inserted sections), then O(1) a call.
    static func reinsertedIndexPath(
        old: Snapshot<Section, Item>,
        new: Snapshot<Section, Item>,
        changeset: Changeset
    ) -> (IndexPath) -> IndexPath? {
        var inserted: [Item.ID: IndexPath]?
        return { path in
            guard path.count == 2, path[0] < old.numberOfSections, path[1] < old.numberOfItems(inSection: path[0]) else { return nil }
            if inserted == nil {
                var paths: [Item.ID: IndexPath] = [:]
                for path in changeset.itemInserts { paths[new[path].id] = path }
                for section in changeset.sectionInserts {
                    for item in 0..<new.numberOfItems(inSection: section) {
                        let path = IndexPath(item: item, section: section)
                        paths[new[path].id] = path
                    }
                }
                inserted = paths
            }
            return inserted?[old[path].id]
        }
    }
}
