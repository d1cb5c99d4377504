#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// What a ``CollectionView`` tells about, and asks about, the user's
/// touches: highlight and selection (UIKit's `UICollectionViewDelegate`,
/// headless). Every method has a default: the `should…` methods answer
/// `true`, the `did…` methods do nothing.
///
/// A touch driven with ``CollectionView/beginTouch(at:)`` and
/// ``CollectionView/endTouch(selecting:)`` (or ``CollectionView/tapItem(at:)``)
/// calls them in UIKit's order: `shouldHighlight`, `didHighlight`; on
/// touch-up `shouldSelect` (or `shouldDeselect` for a selected item when
/// several can be selected), `didDeselect` for the item a single selection
/// gives up, `didSelect` (or `didDeselect`), then `didUnhighlight`.
/// ``CollectionView/selectItem(at:)`` and ``CollectionView/deselectItem(at:)``
/// call none of them, as in UIKit.
///
/// During an interactive movement
/// (``CollectionView/beginInteractiveMovementForItem(at:)``) the delegate
/// may also redirect the item's target index path.
public protocol CollectionViewDelegate: AnyObject {
    /// Whether a touch may highlight the item. `false` skips the whole
    /// touch: no highlight and no selection.
    func collectionView(_ collectionView: CollectionView, shouldHighlightItemAt indexPath: IndexPath) -> Bool
    /// The item is highlighted.
    func collectionView(_ collectionView: CollectionView, didHighlightItemAt indexPath: IndexPath)
    /// The item is no longer highlighted (its touch ended, or it was
    /// deleted by a batch update: then the index path is the one before).
    func collectionView(_ collectionView: CollectionView, didUnhighlightItemAt indexPath: IndexPath)
    /// Whether a touch may select the item.
    func collectionView(_ collectionView: CollectionView, shouldSelectItemAt indexPath: IndexPath) -> Bool
    /// A touch selected the item.
    func collectionView(_ collectionView: CollectionView, didSelectItemAt indexPath: IndexPath)
    /// Whether a touch may deselect the item (asked only when several items
    /// can be selected and the touched one is).
    func collectionView(_ collectionView: CollectionView, shouldDeselectItemAt indexPath: IndexPath) -> Bool
    /// The item was deselected: by a touch, by a touch selecting another
    /// item under single selection, or because a batch update deleted it
    /// (then the index path is the one before the update).
    func collectionView(_ collectionView: CollectionView, didDeselectItemAt indexPath: IndexPath)
    /// The index path the item being moved interactively takes, given the
    /// one the layout proposes (UIKit's
    /// `collectionView(_:targetIndexPathForMoveOfItemFromOriginalIndexPath:atCurrentIndexPath:toProposedIndexPath:)`).
    /// The proposal by default. An index path the item cannot take (out of
    /// range) keeps the current one.
    ///
    /// - Parameters:
    ///   - originalIndexPath: Where the item is in the data source.
    ///   - currentIndexPath: Where the view presents it now.
    ///   - proposedIndexPath: Where the layout proposes to present it.
    func collectionView(
        _ collectionView: CollectionView,
        targetIndexPathForMoveOfItemFromOriginalIndexPath originalIndexPath: IndexPath,
        atCurrentIndexPath currentIndexPath: IndexPath,
        toProposedIndexPath proposedIndexPath: IndexPath
    ) -> IndexPath
}

extension CollectionViewDelegate {
    /// `true`.
    public func collectionView(_ collectionView: CollectionView, shouldHighlightItemAt indexPath: IndexPath) -> Bool { true }
    /// Nothing.
    public func collectionView(_ collectionView: CollectionView, didHighlightItemAt indexPath: IndexPath) {}
    /// Nothing.
    public func collectionView(_ collectionView: CollectionView, didUnhighlightItemAt indexPath: IndexPath) {}
    /// `true`.
    public func collectionView(_ collectionView: CollectionView, shouldSelectItemAt indexPath: IndexPath) -> Bool { true }
    /// Nothing.
    public func collectionView(_ collectionView: CollectionView, didSelectItemAt indexPath: IndexPath) {}
    /// `true`.
    public func collectionView(_ collectionView: CollectionView, shouldDeselectItemAt indexPath: IndexPath) -> Bool { true }
    /// Nothing.
    public func collectionView(_ collectionView: CollectionView, didDeselectItemAt indexPath: IndexPath) {}
    /// The proposed index path.
    public func collectionView(
        _ collectionView: CollectionView,
        targetIndexPathForMoveOfItemFromOriginalIndexPath originalIndexPath: IndexPath,
        atCurrentIndexPath currentIndexPath: IndexPath,
        toProposedIndexPath proposedIndexPath: IndexPath
    ) -> IndexPath {
        proposedIndexPath
    }
}
