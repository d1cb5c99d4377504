#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// What a ``CollectionView`` asks of the object that reacts to the user
/// (UIKit's `UICollectionViewDelegate`, headless). Every method has a
/// default implementation.
public protocol CollectionViewDelegate: AnyObject {
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
