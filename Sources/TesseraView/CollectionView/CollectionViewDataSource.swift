#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif
public import TesseraLayout

/// What a ``CollectionView`` shows: its counts, and the kinds of view for its
/// elements (UIKit's `UICollectionViewDataSource`, headless).
///
/// During ``CollectionView/performBatchUpdates(_:animated:)`` the data
/// source already answers for the state after the update, as in UIKit.
public protocol CollectionViewDataSource: AnyObject {
    /// The number of sections.
    func numberOfSections(in collectionView: CollectionView) -> Int
    /// The number of items in a section.
    func collectionView(_ collectionView: CollectionView, numberOfItemsInSection section: Int) -> Int
    /// The reuse identifier of an item's view. `"Cell"` by default.
    func collectionView(_ collectionView: CollectionView, reuseIdentifierForItemAt indexPath: IndexPath) -> String
    /// The reuse identifier of a supplementary view. Its kind by default.
    func collectionView(_ collectionView: CollectionView, reuseIdentifierForSupplementaryElementOfKind kind: String, at indexPath: IndexPath) -> String
    /// The id of the item at an index path, for plans. `nil` by default.
    func collectionView(_ collectionView: CollectionView, itemIdentifierAt indexPath: IndexPath) -> String?
    /// Whether the item at an index path may be moved interactively
    /// (``CollectionView/beginInteractiveMovementForItem(at:)``). `false` by
    /// default, as in UIKit.
    func collectionView(_ collectionView: CollectionView, canMoveItemAt indexPath: IndexPath) -> Bool
    /// Moves an item, when an interactive movement ends at another index
    /// path than the one it began at: afterwards the data source must
    /// answer for the order with the item removed from `sourceIndexPath`
    /// (in the order before the move) and inserted at
    /// `destinationIndexPath` (in the order after it), as in UIKit. Nothing
    /// by default.
    func collectionView(_ collectionView: CollectionView, moveItemAt sourceIndexPath: IndexPath, to destinationIndexPath: IndexPath)
    /// The attributes an item prefers, given those the layout gave it: its
    /// fitted size, for a layout whose items size themselves (UIKit's
    /// `preferredLayoutAttributesFitting(_:)`, asked of the data source
    /// since there are no cells). Only the size is read. `nil` by default:
    /// the item keeps the size the layout gave it.
    ///
    /// The view asks when an item becomes visible without a fitted size
    /// (see <doc:SelfSizing>), and for the items passed to
    /// ``CollectionView/invalidateItemSizes(at:animated:)``.
    func collectionView(_ collectionView: CollectionView, preferredLayoutAttributesFitting layoutAttributes: LayoutAttributes) -> LayoutAttributes?
}

extension CollectionViewDataSource {
    /// `"Cell"`.
    public func collectionView(_ collectionView: CollectionView, reuseIdentifierForItemAt indexPath: IndexPath) -> String { "Cell" }
    /// The kind.
    public func collectionView(_ collectionView: CollectionView, reuseIdentifierForSupplementaryElementOfKind kind: String, at indexPath: IndexPath) -> String { kind }
    /// `nil`.
    public func collectionView(_ collectionView: CollectionView, itemIdentifierAt indexPath: IndexPath) -> String? { nil }
    /// `false`, as in UIKit.
    public func collectionView(_ collectionView: CollectionView, canMoveItemAt indexPath: IndexPath) -> Bool { false }
    /// Nothing.
    public func collectionView(_ collectionView: CollectionView, moveItemAt sourceIndexPath: IndexPath, to destinationIndexPath: IndexPath) {}
    /// `nil`: the item keeps the size the layout gave it.
    public func collectionView(_ collectionView: CollectionView, preferredLayoutAttributesFitting layoutAttributes: LayoutAttributes) -> LayoutAttributes? { nil }
}
