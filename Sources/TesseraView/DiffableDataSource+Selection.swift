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
    /// snapshot.
    ///
    /// - Complexity: O(*s*) for *s* selected items.
    public var selectedItemIDs: [Item.ID] {
        collectionView.indexPathsForSelectedItems.map { snapshot[$0].id }
    }

    /// Selects the item with an id, as ``CollectionView/selectItem(at:)``
    /// does at its index path (without telling the view's delegate).
    ///
    /// - Throws: ``SelectionError/unknownItemID(_:)`` when the snapshot has
    ///   no item with the id, and what ``CollectionView/selectItem(at:)``
    ///   throws; the selection is unchanged.
    /// - Complexity: O(*n*) for *n* items (the id is looked up in the
    ///   snapshot), plus O(*s*) for *s* selected items.
    public func selectItem(withID id: Item.ID) throws(SelectionError) {
        guard let indexPath = snapshot.indexPath(ofItemWithID: id) else { throw .unknownItemID("\(id)") }
        try collectionView.selectItem(at: indexPath)
    }

    /// Deselects the item with an id, as ``CollectionView/deselectItem(at:)``
    /// does at its index path (without telling the view's delegate).
    ///
    /// - Throws: ``SelectionError/unknownItemID(_:)`` when the snapshot has
    ///   no item with the id; the selection is unchanged.
    /// - Complexity: O(*n*) for *n* items, plus O(*s*) for *s* selected
    ///   items.
    public func deselectItem(withID id: Item.ID) throws(SelectionError) {
        guard let indexPath = snapshot.indexPath(ofItemWithID: id) else { throw .unknownItemID("\(id)") }
        try collectionView.deselectItem(at: indexPath)
    }
}
