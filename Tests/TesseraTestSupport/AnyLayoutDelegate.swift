import Foundation
import TesseraLayout

/// One delegate for every built-in layout, its values from tables: what a
/// layout does not find in a table comes from its own properties.
///
/// Each layout reads the tables its own way: an item size is a flow, stack
/// or styled item's size, a list item's height, a horizontal list item's
/// width and a column item's exact height; a header or footer size's height
/// is its length along the scroll axis.
public final class AnyLayoutDelegate {
    public var itemSizes: [IndexPath: Size] = [:]
    /// Items a ``StyledFlowLayout`` makes span rows.
    public var spanItems: Set<IndexPath> = []
    /// A ``ColumnLayout`` item's aspect ratio.
    public var aspectRatios: [IndexPath: Size] = [:]
    public var insets: [Int: EdgeInsets] = [:]
    public var lineSpacings: [Int: Double] = [:]
    public var interitemSpacings: [Int: Double] = [:]
    public var headerSizes: [Int: Size] = [:]
    public var footerSizes: [Int: Size] = [:]
    public var columnCounts: [Int: Int] = [:]

    public init() {}

    /// Random values for some sections and items, from the ranges the
    /// oracles use (``RandomLengths``): items, insets, spacings, headers and
    /// footers zero, ordinary or far beyond any view, and column counts far
    /// past what fits.
    public static func random(itemCounts: [Int], using generator: inout SplitMix64) -> AnyLayoutDelegate {
        let delegate = AnyLayoutDelegate()
        func length(_ ordinary: ClosedRange<Int>) -> Double { RandomLengths.length(ordinary, using: &generator) }
        for (section, count) in itemCounts.enumerated() {
            if Bool.random(using: &generator) { delegate.insets[section] = RandomLengths.insets(using: &generator) }
            if Bool.random(using: &generator) { delegate.lineSpacings[section] = length(0...12) }
            if Bool.random(using: &generator) { delegate.interitemSpacings[section] = length(0...12) }
            if Bool.random(using: &generator) { delegate.headerSizes[section] = Size(width: length(0...40), height: length(0...40)) }
            if Bool.random(using: &generator) { delegate.footerSizes[section] = Size(width: length(0...40), height: length(0...40)) }
            if Bool.random(using: &generator) { delegate.columnCounts[section] = RandomLengths.columnCount(using: &generator) }
            for item in 0..<count {
                let path = IndexPath(item: item, section: section)
                if Int.random(in: 0..<3, using: &generator) > 0 {
                    // A few equal heights so flow rows fill.
                    delegate.itemSizes[path] = Size(width: length(0...80), height: Bool.random(using: &generator) ? 40 : length(0...60))
                }
                if Int.random(in: 0..<8, using: &generator) == 0 { delegate.spanItems.insert(path) }
                if Int.random(in: 0..<3, using: &generator) == 0 {
                    delegate.aspectRatios[path] = Size(width: Double(Int.random(in: 0...4, using: &generator)), height: Double(Int.random(in: 0...4, using: &generator)))
                }
            }
        }
        return delegate
    }
}

extension AnyLayoutDelegate: FlowLayoutDelegate {
    public func flowLayout(_ layout: FlowLayout, sizeForItemAt indexPath: IndexPath) -> Size? { itemSizes[indexPath] }
    public func flowLayout(_ layout: FlowLayout, insetForSectionAt section: Int) -> EdgeInsets? { insets[section] }
    public func flowLayout(_ layout: FlowLayout, minimumLineSpacingForSectionAt section: Int) -> Double? { lineSpacings[section] }
    public func flowLayout(_ layout: FlowLayout, minimumInteritemSpacingForSectionAt section: Int) -> Double? { interitemSpacings[section] }
    /// The height as the length along either scroll axis (a flow layout reads only that).
    public func flowLayout(_ layout: FlowLayout, referenceSizeForHeaderInSection section: Int) -> Size? {
        headerSizes[section].map { Size(width: $0.height, height: $0.height) }
    }
    public func flowLayout(_ layout: FlowLayout, referenceSizeForFooterInSection section: Int) -> Size? {
        footerSizes[section].map { Size(width: $0.height, height: $0.height) }
    }
}

extension AnyLayoutDelegate: ListLayoutDelegate {
    public func listLayout(_ layout: ListLayout, heightForItemAt indexPath: IndexPath) -> Double? { itemSizes[indexPath]?.height }
    public func listLayout(_ layout: ListLayout, interitemSpacingForSectionAt section: Int) -> Double? { interitemSpacings[section] }
    public func listLayout(_ layout: ListLayout, insetsForSectionAt section: Int) -> EdgeInsets? { insets[section] }
    public func listLayout(_ layout: ListLayout, heightForHeaderInSection section: Int) -> Double? { headerSizes[section]?.height }
    public func listLayout(_ layout: ListLayout, heightForFooterInSection section: Int) -> Double? { footerSizes[section]?.height }
}

extension AnyLayoutDelegate: HorizontalListLayoutDelegate {
    public func horizontalListLayout(_ layout: HorizontalListLayout, widthForItemAt indexPath: IndexPath) -> Double? { itemSizes[indexPath]?.width }
    public func horizontalListLayout(_ layout: HorizontalListLayout, insetsForSectionAt section: Int) -> EdgeInsets? { insets[section] }
}

extension AnyLayoutDelegate: ListStackLayoutDelegate {
    public func listStackLayout(_ layout: ListStackLayout, sizeForItemAt indexPath: IndexPath) -> Size? { itemSizes[indexPath] }
    public func listStackLayout(_ layout: ListStackLayout, insetForSectionAt section: Int) -> EdgeInsets? { insets[section] }
    public func listStackLayout(_ layout: ListStackLayout, minimumLineSpacingForSectionAt section: Int) -> Double? { lineSpacings[section] }
    public func listStackLayout(_ layout: ListStackLayout, minimumInteritemSpacingForSectionAt section: Int) -> Double? { interitemSpacings[section] }
    public func listStackLayout(_ layout: ListStackLayout, lengthForHeaderInSection section: Int) -> Double? { headerSizes[section]?.height }
    public func listStackLayout(_ layout: ListStackLayout, lengthForFooterInSection section: Int) -> Double? { footerSizes[section]?.height }
}

extension AnyLayoutDelegate: StyledFlowLayoutDelegate {
    /// A span item's size, or a flow item's; the layout's default style
    /// for an item with no size.
    public func styledFlowLayout(_ layout: StyledFlowLayout, styleForItemAt indexPath: IndexPath) -> StyledFlowLayout.ItemStyle {
        guard let size = itemSizes[indexPath] else { return layout.defaultItemStyle }
        return spanItems.contains(indexPath) ? .span(size) : .flow(size)
    }
    public func styledFlowLayout(_ layout: StyledFlowLayout, heightForHeaderInSection section: Int) -> Double? { headerSizes[section]?.height }
    public func styledFlowLayout(_ layout: StyledFlowLayout, heightForFooterInSection section: Int) -> Double? { footerSizes[section]?.height }
    public func styledFlowLayout(_ layout: StyledFlowLayout, insetsForSectionAt section: Int) -> EdgeInsets? { insets[section] }
}

extension AnyLayoutDelegate: ColumnLayoutDelegate {
    public func columnLayout(_ layout: ColumnLayout, aspectRatioForItemAt indexPath: IndexPath) -> Size? { aspectRatios[indexPath] }
    public func columnLayout(_ layout: ColumnLayout, heightForItemAt indexPath: IndexPath) -> Double? { itemSizes[indexPath]?.height }
    public func columnLayout(_ layout: ColumnLayout, columnCountForSectionAt section: Int) -> Int? { columnCounts[section] }
    public func columnLayout(_ layout: ColumnLayout, insetForSectionAt section: Int) -> EdgeInsets? { insets[section] }
    public func columnLayout(_ layout: ColumnLayout, heightForHeaderInSection section: Int) -> Double? { headerSizes[section]?.height }
    public func columnLayout(_ layout: ColumnLayout, heightForFooterInSection section: Int) -> Double? { footerSizes[section]?.height }
}
