#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif
public import TesseraDiff
import TesseraLayout

/// A data source driven by snapshots, like UIKit's diffable data source:
/// apply a new snapshot and the collection view performs the difference.
///
/// ```swift
/// let source = DiffableDataSource<Album, Photo>(collectionView: view)
/// var snapshot = Snapshot<Album, Photo>()
/// snapshot.appendSection(holidays, items: photos)
/// try source.apply(snapshot, animated: false)
/// // later
/// let plan = try source.apply(changedSnapshot)
/// ```
///
/// The collection view holds its data source weakly and the data source
/// holds the view: keep the data source. Not thread-safe.
public final class DiffableDataSource<Section: Identifiable & Equatable, Item: Identifiable & Equatable>: CollectionViewDataSource {
    /// The snapshot the collection view shows.
    public internal(set) var snapshot = Snapshot<Section, Item>()
    /// The collection view it feeds. Held strongly (the view holds its data
    /// source weakly), so keeping the data source keeps both.
    public let collectionView: CollectionView
    /// The reuse identifier of an item's view. `"Cell"` unless set.
    public var reuseIdentifier: (IndexPath, Item) -> String = { _, _ in "Cell" }
    /// Whether and how the user may reorder items by dragging them
    /// (``CollectionView/beginInteractiveMovementForItem(at:)``). Off until
    /// ``ReorderingHandlers/canReorderItem`` is set.
    public var reorderingHandlers = ReorderingHandlers()

    /// The size that fits an item's content, given the attributes the layout
    /// gave it, for a layout whose items size themselves (see
    /// <doc:SelfSizing>); `nil` keeps the item's size. Unset, every item
    /// keeps its size.
    public var fittedSize: ((Item, LayoutAttributes) -> Size?)?

    /// Creates a data source and makes it the collection view's.
    public init(collectionView: CollectionView) {
        self.collectionView = collectionView
        collectionView.dataSource = self
    }

    /// Shows a snapshot: diffs it against the current one and performs the
    /// changes in one batch (item updates that stay in place are reloads;
    /// an item that moves and changes is a move marked
    /// ``AnimationPlan/Element/contentChanged``).
    ///
    /// On an error nothing changes: the data source keeps its snapshot and
    /// the view is as it was.
    ///
    /// - Throws: ``DiffError`` for duplicate ids; ``BatchValidationError``
    ///   if the view's counts disagree with the current snapshot.
    /// - Complexity: the diff, plus what ``CollectionView/performBatchUpdates(_:animated:)``
    ///   costs.
    @discardableResult
    public func apply(_ newSnapshot: Snapshot<Section, Item>, animated: Bool = true) throws -> AnimationPlan {
        try apply(newSnapshot, animated: animated, time: nil)
    }

    /// Shows a snapshot at a time (see ``apply(_:animated:at:)``), or as
    /// ``apply(_:animated:)`` does when `time` is `nil`.
    func apply(_ newSnapshot: Snapshot<Section, Item>, animated: Bool, time: Double?) throws -> AnimationPlan {
        try collectionView.reportingSelectionAfterwards {
            if let time { try collectionView.checkTime(time) }
            let old = snapshot
            let changeset = try diff(from: old, to: newSnapshot)
            let (items, contentChanged) = CollectionView.updateItems(for: changeset)
            snapshot = newSnapshot
            do {
                var plan = try collectionView.carryingSelection(by: Self.reinsertedIndexPath(old: old, new: newSnapshot, changeset: changeset)) {
                    try collectionView.forgettingFittedSizes(ofItemsChangedBy: changeset) {
                        try collectionView.performBatchUpdates(items, animated: animated, time: time) { path in
                            "\(old[path].id)"
                        }
                    }
                }
                CollectionView.markContentChanged(&plan, contentChanged)
                if time != nil { collectionView.updatePlayingPlan(plan) }
                return plan
            } catch {
                snapshot = old
                throw error
            }
        }
    }

    /// The number of sections of the snapshot.
    public func numberOfSections(in collectionView: CollectionView) -> Int { snapshot.numberOfSections }

    /// The number of items in a section of the snapshot.
    public func collectionView(_ collectionView: CollectionView, numberOfItemsInSection section: Int) -> Int {
        snapshot.numberOfItems(inSection: section)
    }

    /// ``reuseIdentifier`` for the item.
    public func collectionView(_ collectionView: CollectionView, reuseIdentifierForItemAt indexPath: IndexPath) -> String {
        reuseIdentifier(indexPath, snapshot[indexPath])
    }

    /// The item's id, as text.
    public func collectionView(_ collectionView: CollectionView, itemIdentifierAt indexPath: IndexPath) -> String? {
        "\(snapshot[indexPath].id)"
    }
}

@available(*, unavailable)
extension DiffableDataSource: Sendable {}
