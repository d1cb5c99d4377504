#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// Per-item and per-section values for a ``FlowLayout``, as UIKit's
/// `UICollectionViewDelegateFlowLayout`. Every method is optional: return
/// `nil` (the default) to use the layout's property.
public protocol FlowLayoutDelegate: AnyObject {
    /// The size of an item.
    func flowLayout(_ layout: FlowLayout, sizeForItemAt indexPath: IndexPath) -> Size?
    /// The insets of a section.
    func flowLayout(_ layout: FlowLayout, insetForSectionAt section: Int) -> EdgeInsets?
    /// The spacing between lines of a section.
    func flowLayout(_ layout: FlowLayout, minimumLineSpacingForSectionAt section: Int) -> Double?
    /// The spacing between items on a line of a section.
    func flowLayout(_ layout: FlowLayout, minimumInteritemSpacingForSectionAt section: Int) -> Double?
    /// The size of a section's header (only its scroll-axis length is used).
    func flowLayout(_ layout: FlowLayout, referenceSizeForHeaderInSection section: Int) -> Size?
    /// The size of a section's footer (only its scroll-axis length is used).
    func flowLayout(_ layout: FlowLayout, referenceSizeForFooterInSection section: Int) -> Size?
}

extension FlowLayoutDelegate {
    /// `nil`: the layout's ``FlowLayout/itemSize``.
    public func flowLayout(_ layout: FlowLayout, sizeForItemAt indexPath: IndexPath) -> Size? { nil }
    /// `nil`: the layout's ``FlowLayout/sectionInset``.
    public func flowLayout(_ layout: FlowLayout, insetForSectionAt section: Int) -> EdgeInsets? { nil }
    /// `nil`: the layout's ``FlowLayout/minimumLineSpacing``.
    public func flowLayout(_ layout: FlowLayout, minimumLineSpacingForSectionAt section: Int) -> Double? { nil }
    /// `nil`: the layout's ``FlowLayout/minimumInteritemSpacing``.
    public func flowLayout(_ layout: FlowLayout, minimumInteritemSpacingForSectionAt section: Int) -> Double? { nil }
    /// `nil`: the layout's ``FlowLayout/headerReferenceSize``.
    public func flowLayout(_ layout: FlowLayout, referenceSizeForHeaderInSection section: Int) -> Size? { nil }
    /// `nil`: the layout's ``FlowLayout/footerReferenceSize``.
    public func flowLayout(_ layout: FlowLayout, referenceSizeForFooterInSection section: Int) -> Size? { nil }
}

/// How the items of a line are placed across the line.
public enum LineAlignment: String, Hashable, Codable, Sendable, CaseIterable {
    /// First item at the leading inset, last item at the trailing inset,
    /// equal gaps between; a line with a single item is centered.
    case justified
    /// From the leading inset, with exactly the interitem spacing between.
    case leading
    /// Centered, with exactly the interitem spacing between.
    case center
    /// Against the trailing inset, with exactly the interitem spacing between.
    case trailing
}
