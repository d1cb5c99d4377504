#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// Per-item and per-section values for a ``ListStackLayout``, as
/// IGListKit's layout reads them from `UICollectionViewDelegateFlowLayout`.
/// Every method is optional: return `nil` (the default) to use the layout's
/// property.
public protocol ListStackLayoutDelegate: AnyObject {
    /// The size of an item. Its length on the fixed axis is capped at the
    /// section's width between its insets.
    func listStackLayout(_ layout: ListStackLayout, sizeForItemAt indexPath: IndexPath) -> Size?
    /// The insets of a section.
    func listStackLayout(_ layout: ListStackLayout, insetForSectionAt section: Int) -> EdgeInsets?
    /// The spacing between the rows of a section.
    func listStackLayout(_ layout: ListStackLayout, minimumLineSpacingForSectionAt section: Int) -> Double?
    /// The spacing after each item of a section on its row.
    func listStackLayout(_ layout: ListStackLayout, minimumInteritemSpacingForSectionAt section: Int) -> Double?
    /// The length of a section's header along the scroll axis (0: none).
    func listStackLayout(_ layout: ListStackLayout, lengthForHeaderInSection section: Int) -> Double?
    /// The length of a section's footer along the scroll axis (0: none).
    func listStackLayout(_ layout: ListStackLayout, lengthForFooterInSection section: Int) -> Double?
}

extension ListStackLayoutDelegate {
    /// `nil`: the layout's ``ListStackLayout/itemSize``.
    public func listStackLayout(_ layout: ListStackLayout, sizeForItemAt indexPath: IndexPath) -> Size? { nil }
    /// `nil`: the layout's ``ListStackLayout/sectionInset``.
    public func listStackLayout(_ layout: ListStackLayout, insetForSectionAt section: Int) -> EdgeInsets? { nil }
    /// `nil`: the layout's ``ListStackLayout/minimumLineSpacing``.
    public func listStackLayout(_ layout: ListStackLayout, minimumLineSpacingForSectionAt section: Int) -> Double? { nil }
    /// `nil`: the layout's ``ListStackLayout/minimumInteritemSpacing``.
    public func listStackLayout(_ layout: ListStackLayout, minimumInteritemSpacingForSectionAt section: Int) -> Double? { nil }
    /// `nil`: the layout's ``ListStackLayout/headerLength``.
    public func listStackLayout(_ layout: ListStackLayout, lengthForHeaderInSection section: Int) -> Double? { nil }
    /// `nil`: the layout's ``ListStackLayout/footerLength``.
    public func listStackLayout(_ layout: ListStackLayout, lengthForFooterInSection section: Int) -> Double? { nil }
}
