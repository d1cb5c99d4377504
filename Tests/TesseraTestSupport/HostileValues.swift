import Foundation
import TesseraLayout

/// One number a layout reads, from its properties or its delegate: how to
/// put a value there, which values are hostile to it, and what the layout's
/// error must name.
public struct ValueSite: CustomStringConvertible {
    /// What kind of number the layout reads there.
    public enum Kind: Sendable {
        /// A size, inset, spacing or length: finite, not negative, at most 10¹².
        case length
        /// An offset: finite, at most 10¹² either way.
        case offset
        /// A scale: finite, above zero, at most 10¹².
        case scale

        /// Values that break the rule: NaN, both infinities, beyond the
        /// limit, and (where the sign matters) negative or zero.
        public var hostileValues: [Double] {
            switch self {
            case .length: [.nan, .infinity, -.infinity, -1, -1e-9, 1e13]
            case .offset: [.nan, .infinity, -.infinity, 1e13, -1e13]
            case .scale: [.nan, .infinity, -.infinity, -1, 0, 1e13]
            }
        }
    }

    public var name: String
    public var kind: Kind
    public var subject: LayoutError.Subject
    public var apply: (CollectionViewLayout, AnyLayoutDelegate, Double) -> Void

    public var description: String { name }

    /// Every number a built-in layout of `kind` reads: its properties, and
    /// its delegate's values for `section` and for the item at `path` (in
    /// `section`).
    public static func all(for kind: LayoutKind, section: Int, path: IndexPath) -> [ValueSite] {
        func property<L: CollectionViewLayout>(_ type: L.Type, _ name: String, _ kind: Kind = .length, _ set: @escaping (L, Double) -> Void) -> ValueSite {
            ValueSite(name: "property \(name)", kind: kind, subject: .property(name)) { layout, _, value in
                if let layout = layout as? L { set(layout, value) }
            }
        }
        func delegate(_ name: String, _ subject: LayoutError.Subject, _ set: @escaping (AnyLayoutDelegate, Double) -> Void) -> ValueSite {
            ValueSite(name: "delegate \(name)", kind: .length, subject: subject) { _, delegate, value in set(delegate, value) }
        }
        let itemWidth = delegate("item width at \(Array(path))", .itemSize(path)) { $0.itemSizes[path] = Size(width: $1, height: 10) }
        let itemHeight = delegate("item height at \(Array(path))", .itemSize(path)) { $0.itemSizes[path] = Size(width: 10, height: $1) }
        let insets = [
            delegate("top inset of section \(section)", .sectionInset(section: section)) { $0.insets[section] = EdgeInsets(top: $1) },
            delegate("left inset of section \(section)", .sectionInset(section: section)) { $0.insets[section] = EdgeInsets(left: $1) },
            delegate("bottom inset of section \(section)", .sectionInset(section: section)) { $0.insets[section] = EdgeInsets(bottom: $1) },
            delegate("right inset of section \(section)", .sectionInset(section: section)) { $0.insets[section] = EdgeInsets(right: $1) },
        ]
        let lineSpacing = delegate("line spacing of section \(section)", .lineSpacing(section: section)) { $0.lineSpacings[section] = $1 }
        let interitemSpacing = delegate("interitem spacing of section \(section)", .interitemSpacing(section: section)) { $0.interitemSpacings[section] = $1 }
        let header = delegate("header of section \(section)", .headerSize(section: section)) { $0.headerSizes[section] = Size(width: 10, height: $1) }
        let footer = delegate("footer of section \(section)", .footerSize(section: section)) { $0.footerSizes[section] = Size(width: 10, height: $1) }
        switch kind {
        case .flow:
            return [itemWidth, itemHeight, lineSpacing, interitemSpacing, header, footer] + insets + [
                property(FlowLayout.self, "itemSize") { $0.itemSize = Size(width: $1, height: 10) },
                property(FlowLayout.self, "minimumLineSpacing") { $0.minimumLineSpacing = $1 },
                property(FlowLayout.self, "minimumInteritemSpacing") { $0.minimumInteritemSpacing = $1 },
                property(FlowLayout.self, "sectionInset") { $0.sectionInset = EdgeInsets(left: $1) },
                property(FlowLayout.self, "headerReferenceSize") { $0.headerReferenceSize = Size(width: $1, height: $1) },
                property(FlowLayout.self, "footerReferenceSize") { $0.footerReferenceSize = Size(width: $1, height: $1) },
            ]
        case .styledFlow:
            return [itemWidth, itemHeight, header, footer] + insets + [
                delegate("span item width at \(Array(path))", .itemSize(path)) { $0.itemSizes[path] = Size(width: $1, height: 10); $0.spanItems.insert(path) },
                delegate("span item height at \(Array(path))", .itemSize(path)) { $0.itemSizes[path] = Size(width: 10, height: $1); $0.spanItems.insert(path) },
                property(StyledFlowLayout.self, "interitemSpacing") { $0.interitemSpacing = $1 },
                property(StyledFlowLayout.self, "interspanSpacing") { $0.interspanSpacing = $1 },
                property(StyledFlowLayout.self, "spanGroupSpacingBefore") { $0.spanGroupSpacingBefore = $1 },
                property(StyledFlowLayout.self, "spanGroupSpacingAfter") { $0.spanGroupSpacingAfter = $1 },
                property(StyledFlowLayout.self, "defaultItemStyle") { $0.defaultItemStyle = .flow(Size(width: 10, height: $1)) },
                property(StyledFlowLayout.self, "sectionInset") { $0.sectionInset = EdgeInsets(bottom: $1) },
                property(StyledFlowLayout.self, "headerHeight") { $0.headerHeight = $1 },
                property(StyledFlowLayout.self, "footerHeight") { $0.footerHeight = $1 },
            ]
        case .list:
            return [itemHeight, interitemSpacing, header, footer] + insets + [
                property(ListLayout.self, "itemHeight") { $0.itemHeight = $1 },
                property(ListLayout.self, "interitemSpacing") { $0.interitemSpacing = $1 },
                property(ListLayout.self, "headerHeight") { $0.headerHeight = $1 },
                property(ListLayout.self, "footerHeight") { $0.footerHeight = $1 },
                property(ListLayout.self, "sectionInsets") { $0.sectionInsets = EdgeInsets(top: $1) },
            ]
        case .horizontalList:
            return [itemWidth] + insets + [
                property(HorizontalListLayout.self, "itemWidth") { $0.itemWidth = $1 },
                property(HorizontalListLayout.self, "itemSpacing") { $0.itemSpacing = $1 },
                property(HorizontalListLayout.self, "sectionInsets") { $0.sectionInsets = EdgeInsets(right: $1) },
            ]
        case .listStack:
            return [itemWidth, itemHeight, lineSpacing, interitemSpacing, header, footer] + insets + [
                property(ListStackLayout.self, "itemSize") { $0.itemSize = Size(width: 10, height: $1) },
                property(ListStackLayout.self, "minimumLineSpacing") { $0.minimumLineSpacing = $1 },
                property(ListStackLayout.self, "minimumInteritemSpacing") { $0.minimumInteritemSpacing = $1 },
                property(ListStackLayout.self, "sectionInset") { $0.sectionInset = EdgeInsets(top: $1) },
                property(ListStackLayout.self, "headerLength") { $0.headerLength = $1 },
                property(ListStackLayout.self, "footerLength") { $0.footerLength = $1 },
                property(ListStackLayout.self, "screenScale", .scale) { $0.screenScale = $1 },
                property(ListStackLayout.self, "stickyHeaderYOffset", .offset) { $0.stickyHeaderYOffset = $1 },
            ]
        case .column:
            return [itemHeight, header, footer] + insets + [
                delegate("aspect ratio width at \(Array(path))", .itemSize(path)) { $0.aspectRatios[path] = Size(width: $1, height: 1) },
                delegate("aspect ratio height at \(Array(path))", .itemSize(path)) { $0.aspectRatios[path] = Size(width: 1, height: $1) },
                property(ColumnLayout.self, "columnSpacing") { $0.columnSpacing = $1 },
                property(ColumnLayout.self, "interitemSpacing") { $0.interitemSpacing = $1 },
                property(ColumnLayout.self, "sectionInset") { $0.sectionInset = EdgeInsets(left: $1) },
                property(ColumnLayout.self, "itemHeight") { $0.itemHeight = $1 },
                property(ColumnLayout.self, "headerHeight") { $0.headerHeight = $1 },
                property(ColumnLayout.self, "footerHeight") { $0.footerHeight = $1 },
                property(ColumnLayout.self, "screenScale", .scale) { $0.screenScale = $1 },
            ]
        }
    }
}

/// Whether every frame of a prepared layout, and its content size, is
/// finite.
public func everyFrameIsFinite(_ layout: CollectionViewLayout, itemCounts: [Int]) -> Bool {
    let content = layout.collectionViewContentSize
    return content.width.isFinite && content.height.isFinite
        && allElements(of: layout, itemCounts: itemCounts).allSatisfy { $0.frame.isFinite }
}
