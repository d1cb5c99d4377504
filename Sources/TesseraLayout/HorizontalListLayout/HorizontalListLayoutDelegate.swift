#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// Per-item and per-section values for a ``HorizontalListLayout``. Every
/// method is optional: return `nil` (the default) to use the layout's
/// property.
public protocol HorizontalListLayoutDelegate: AnyObject {
    /// The width of an item.
    func horizontalListLayout(_ layout: HorizontalListLayout, widthForItemAt indexPath: IndexPath) -> Double?
    /// The insets of a section.
    func horizontalListLayout(_ layout: HorizontalListLayout, insetsForSectionAt section: Int) -> EdgeInsets?
}

extension HorizontalListLayoutDelegate {
    /// `nil`: the layout's ``HorizontalListLayout/itemWidth``.
    public func horizontalListLayout(_ layout: HorizontalListLayout, widthForItemAt indexPath: IndexPath) -> Double? { nil }
    /// `nil`: the layout's ``HorizontalListLayout/sectionInsets``.
    public func horizontalListLayout(_ layout: HorizontalListLayout, insetsForSectionAt section: Int) -> EdgeInsets? { nil }
}
