#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif
public import TesseraResults
public import TesseraView

extension SectionedResult {
    /// The index path of the first item with an id, or `nil`, found by
    /// reading every item in order.
    ///
    /// - Complexity: O(*n*) reads for *n* items.
    public func indexPath(ofItemWithID id: Item.ID) -> IndexPath? {
        for section in 0..<numberOfSections {
            for item in 0..<numberOfItems(inSection: section) {
                let indexPath = IndexPath(item: item, section: section)
                if self.item(at: indexPath)?.id == id { return indexPath }
            }
        }
        return nil
    }
}

extension FetchedResult {
    /// The index path of the record with an id, or `nil`
    /// (``indexPath(ofRecordWithID:)``).
    ///
    /// - Complexity: O(*n*); a lazy result reads the records it does not
    ///   keep, a batch at a time, until it finds the id.
    public func indexPath(ofItemWithID id: Record.ID) -> IndexPath? {
        indexPath(ofRecordWithID: id)
    }
}

extension ResultsDataSource {
    /// The ids of the selected items (for a ``FetchedResultsController``,
    /// its records' keys), in index path order. A lazily fetched record
    /// that can no longer be read is left out.
    ///
    /// The selection follows ids by itself: ``apply(_:animated:)``
    /// performs each report's changeset as a batch update, and the
    /// collection view moves its selection with the batch's moves, so a
    /// record stays selected wherever it goes and leaves the selection
    /// when it leaves the result. ``reload(_:)`` keeps the selected index
    /// paths that still name an item, as ``CollectionView/reloadData()``
    /// does.
    ///
    /// - Complexity: O(*s*) reads for *s* selected items (O(*s* log *n*)
    ///   for a ``FetchedResult``).
    public var selectedItemIDs: [Item.ID] {
        collectionView.indexPathsForSelectedItems.compactMap { indexPath in
            guard Self.holds(result, indexPath) else { return nil }
            return result.item(at: indexPath)?.id
        }
    }

    /// Selects the item with an id, as ``CollectionView/selectItem(at:)``
    /// does at its index path (without telling the view's delegate).
    ///
    /// - Throws: ``SelectionError/unknownItemID(_:)`` when ``result`` has
    ///   no item with the id, and what ``CollectionView/selectItem(at:)``
    ///   throws; the selection is unchanged.
    /// - Complexity: the result's
    ///   ``SectionedResult/indexPath(ofItemWithID:)`` (O(*n*)), plus O(*s*)
    ///   for *s* selected items.
    public func selectItem(withID id: Item.ID) throws(SelectionError) {
        guard let indexPath = result.indexPath(ofItemWithID: id) else { throw .unknownItemID("\(id)") }
        try collectionView.selectItem(at: indexPath)
    }

    /// Deselects the item with an id, as
    /// ``CollectionView/deselectItem(at:)`` does at its index path (without
    /// telling the view's delegate).
    ///
    /// - Throws: ``SelectionError/unknownItemID(_:)`` when ``result`` has
    ///   no item with the id; the selection is unchanged.
    /// - Complexity: the result's
    ///   ``SectionedResult/indexPath(ofItemWithID:)`` (O(*n*)), plus O(*s*)
    ///   for *s* selected items.
    public func deselectItem(withID id: Item.ID) throws(SelectionError) {
        guard let indexPath = result.indexPath(ofItemWithID: id) else { throw .unknownItemID("\(id)") }
        try collectionView.deselectItem(at: indexPath)
    }
}
