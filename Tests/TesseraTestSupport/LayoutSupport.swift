import Foundation
import TesseraLayout

/// A delegate for flow and list layouts whose per-item and per-section values
/// come from dictionaries, for tests.
public final class TableDelegate: FlowLayoutDelegate, ListLayoutDelegate {
    public var itemSizes: [IndexPath: Size] = [:]
    public var insets: [Int: EdgeInsets] = [:]
    public var lineSpacings: [Int: Double] = [:]
    public var interitemSpacings: [Int: Double] = [:]
    public var headerSizes: [Int: Size] = [:]
    public var footerSizes: [Int: Size] = [:]

    public init() {}

    public func flowLayout(_ layout: FlowLayout, sizeForItemAt indexPath: IndexPath) -> Size? { itemSizes[indexPath] }
    public func flowLayout(_ layout: FlowLayout, insetForSectionAt section: Int) -> EdgeInsets? { insets[section] }
    public func flowLayout(_ layout: FlowLayout, minimumLineSpacingForSectionAt section: Int) -> Double? { lineSpacings[section] }
    public func flowLayout(_ layout: FlowLayout, minimumInteritemSpacingForSectionAt section: Int) -> Double? { interitemSpacings[section] }
    public func flowLayout(_ layout: FlowLayout, referenceSizeForHeaderInSection section: Int) -> Size? { headerSizes[section] }
    public func flowLayout(_ layout: FlowLayout, referenceSizeForFooterInSection section: Int) -> Size? { footerSizes[section] }

    public func listLayout(_ layout: ListLayout, heightForItemAt indexPath: IndexPath) -> Double? { itemSizes[indexPath]?.height }
    public func listLayout(_ layout: ListLayout, interitemSpacingForSectionAt section: Int) -> Double? { interitemSpacings[section] }
    public func listLayout(_ layout: ListLayout, insetsForSectionAt section: Int) -> EdgeInsets? { insets[section] }
    public func listLayout(_ layout: ListLayout, heightForHeaderInSection section: Int) -> Double? { headerSizes[section]?.height }
    public func listLayout(_ layout: ListLayout, heightForFooterInSection section: Int) -> Double? { footerSizes[section]?.height }
}

/// Every element of a prepared layout, made one by one through the layout's
/// per-element methods: the brute-force side of the rect-query oracle.
public func allElements(of layout: CollectionViewLayout, itemCounts: [Int]) -> [LayoutAttributes] {
    var result: [LayoutAttributes] = []
    for (section, count) in itemCounts.enumerated() {
        let path = IndexPath(item: 0, section: section)
        for kind in [ElementKind.sectionHeader, ElementKind.sectionFooter] {
            if let attributes = layout.layoutAttributesForSupplementaryView(ofKind: kind, at: path) { result.append(attributes) }
        }
        for item in 0..<count {
            if let attributes = layout.layoutAttributesForItem(at: IndexPath(item: item, section: section)) { result.append(attributes) }
        }
    }
    return result
}

/// The frames of the items of a prepared layout, section by section.
public func itemFrames(of layout: CollectionViewLayout, itemCounts: [Int]) -> [[Rect]] {
    itemCounts.enumerated().map { section, count in
        (0..<count).map { layout.layoutAttributesForItem(at: IndexPath(item: $0, section: section))?.frame ?? Rect(x: .nan, y: .nan, width: .nan, height: .nan) }
    }
}
