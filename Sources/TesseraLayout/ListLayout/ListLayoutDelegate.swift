#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// Per-item and per-section values for a ``ListLayout``. Every method is
/// optional: return `nil` (the default) to use the layout's property.
public protocol ListLayoutDelegate: AnyObject {
    /// The height of an item.
    func listLayout(_ layout: ListLayout, heightForItemAt indexPath: IndexPath) -> Double?
    /// The spacing between the items of a section.
    func listLayout(_ layout: ListLayout, interitemSpacingForSectionAt section: Int) -> Double?
    /// The insets of a section.
    func listLayout(_ layout: ListLayout, insetsForSectionAt section: Int) -> EdgeInsets?
    /// The height of a section's header (0: none).
    func listLayout(_ layout: ListLayout, heightForHeaderInSection section: Int) -> Double?
    /// The height of a section's footer (0: none).
    func listLayout(_ layout: ListLayout, heightForFooterInSection section: Int) -> Double?
}

extension ListLayoutDelegate {
    /// `nil`: the layout's ``ListLayout/itemHeight``.
    public func listLayout(_ layout: ListLayout, heightForItemAt indexPath: IndexPath) -> Double? { nil }
    /// `nil`: the layout's ``ListLayout/interitemSpacing``.
    public func listLayout(_ layout: ListLayout, interitemSpacingForSectionAt section: Int) -> Double? { nil }
    /// `nil`: the layout's ``ListLayout/sectionInsets``.
    public func listLayout(_ layout: ListLayout, insetsForSectionAt section: Int) -> EdgeInsets? { nil }
    /// `nil`: the layout's ``ListLayout/headerHeight``.
    public func listLayout(_ layout: ListLayout, heightForHeaderInSection section: Int) -> Double? { nil }
    /// `nil`: the layout's ``ListLayout/footerHeight``.
    public func listLayout(_ layout: ListLayout, heightForFooterInSection section: Int) -> Double? { nil }
}
