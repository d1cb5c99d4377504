#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
public import TesseraLayout

extension DiffableDataSource {
    /// The layout's attributes with the size ``fittedSize`` gives for the
    /// item, or `nil` when it gives none (or is not set).
    public func collectionView(_ collectionView: CollectionView, preferredLayoutAttributesFitting layoutAttributes: LayoutAttributes) -> LayoutAttributes? {
        guard let fittedSize, let size = fittedSize(snapshot[layoutAttributes.indexPath], layoutAttributes) else { return nil }
        var preferred = layoutAttributes
        preferred.frame.size = size
        return preferred
    }
}
