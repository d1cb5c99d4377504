#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// Per-item and per-section values for a ``ColumnLayout``. Every method is
/// optional: return `nil` (the default) to use the layout's property.
///
/// An item's height comes from the first rule that applies: an aspect ratio
/// (both parts non-zero) gives `floor(columnWidth · ratio.height /
/// ratio.width)`, plus the exact height if that is also given; else the
/// exact height; else ``ColumnLayout/itemHeight``.
public protocol ColumnLayoutDelegate: AnyObject {
    /// The aspect ratio of an item, as a width and a height: `Size(width: 2,
    /// height: 1)` makes an item half as tall as its column is wide. A ratio
    /// with a zero part is ignored.
    func columnLayout(_ layout: ColumnLayout, aspectRatioForItemAt indexPath: IndexPath) -> Size?
    /// The exact height of an item; added to the ratio's height when the
    /// item also has an aspect ratio (a caption under an image, say).
    func columnLayout(_ layout: ColumnLayout, heightForItemAt indexPath: IndexPath) -> Double?
    /// The number of columns of a section; a value below 1 means 1.
    func columnLayout(_ layout: ColumnLayout, columnCountForSectionAt section: Int) -> Int?
    /// The insets of a section.
    func columnLayout(_ layout: ColumnLayout, insetForSectionAt section: Int) -> EdgeInsets?
    /// The height of a section's header (0: none).
    func columnLayout(_ layout: ColumnLayout, heightForHeaderInSection section: Int) -> Double?
    /// The height of a section's footer (0: none).
    func columnLayout(_ layout: ColumnLayout, heightForFooterInSection section: Int) -> Double?
}

extension ColumnLayoutDelegate {
    /// `nil`: no aspect ratio.
    public func columnLayout(_ layout: ColumnLayout, aspectRatioForItemAt indexPath: IndexPath) -> Size? { nil }
    /// `nil`: no exact height (the ratio's height, or ``ColumnLayout/itemHeight``).
    public func columnLayout(_ layout: ColumnLayout, heightForItemAt indexPath: IndexPath) -> Double? { nil }
    /// `nil`: the layout's ``ColumnLayout/columnCount``.
    public func columnLayout(_ layout: ColumnLayout, columnCountForSectionAt section: Int) -> Int? { nil }
    /// `nil`: the layout's ``ColumnLayout/sectionInset``.
    public func columnLayout(_ layout: ColumnLayout, insetForSectionAt section: Int) -> EdgeInsets? { nil }
    /// `nil`: the layout's ``ColumnLayout/headerHeight``.
    public func columnLayout(_ layout: ColumnLayout, heightForHeaderInSection section: Int) -> Double? { nil }
    /// `nil`: the layout's ``ColumnLayout/footerHeight``.
    public func columnLayout(_ layout: ColumnLayout, heightForFooterInSection section: Int) -> Double? { nil }
}

/// Which column a ``ColumnLayout`` puts each item in.
public enum ItemRenderDirection: String, Hashable, Codable, Sendable, CaseIterable {
    /// Item *i* goes in column `i % n`.
    case leftToRight
    /// Item *i* goes in column `n − 1 − i % n`.
    case rightToLeft
    /// Each item goes in the shortest column so far (the smallest bottom; the
    /// leftmost on ties): a waterfall.
    case shortestFirst
}
