#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif
public import TesseraResults
import TesseraDiff
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

extension ResultsDataSource {
    /// Where an item a changeset deletes is inserted again (it left a
    /// deleted section or entered an inserted one), by id: the inserted
    /// items' ids are read on the first call.
    ///
    /// - Complexity: O(*i*) reads once for *i* inserted items (with those
    ///   of inserted sections), then one read a call.
    static func reinsertedIndexPath(before: Result, after: Result, changeset: Changeset) -> (IndexPath) -> IndexPath? {
        var inserted: [Item.ID: IndexPath]?
        return { path in
            guard holds(before, path), let id = before.item(at: path)?.id else { return nil }
            if inserted == nil {
                var paths: [Item.ID: IndexPath] = [:]
                func note(_ path: IndexPath) {
                    if holds(after, path), let item = after.item(at: path) { paths[item.id] = path }
                }
                for path in changeset.itemInserts { note(path) }
                for section in changeset.sectionInserts where section >= 0 && section < after.numberOfSections {
                    for item in 0..<after.numberOfItems(inSection: section) { note(IndexPath(item: item, section: section)) }
                }
                inserted = paths
            }
            return inserted?[id]
        }
    }
}
