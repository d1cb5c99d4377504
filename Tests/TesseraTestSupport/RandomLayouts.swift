import Foundation
import TesseraLayout

/// The layouts Tessera ships.
public enum LayoutKind: String, CaseIterable, Sendable, CustomStringConvertible {
    case flow, styledFlow, list, horizontalList, listStack, column

    public var description: String { rawValue }
}

/// A built-in layout with random settings, made the same way every time
/// from its own seed: the oracles compare a layout that lived through
/// changes with a fresh one made from the same spec.
///
/// Settings stay within what every oracle may assume: insets up to 20,
/// spacings up to 12, headers and footers up to 40, items up to 80 on each
/// side, and (for sticky headers) offsets up to 10, so that in a view at
/// least ``minimumViewLength`` long (less a content inset of up to 10 on
/// each side) every item fits between its section's insets.
public struct RandomLayoutSpec: Sendable, CustomStringConvertible {
    /// The shortest side of a view the settings fit in.
    public static let minimumViewLength = 150.0

    public var kind: LayoutKind
    public var seed: UInt64

    public init(kind: LayoutKind, seed: UInt64) {
        self.kind = kind
        self.seed = seed
    }

    public var description: String { "\(kind) layout with settings seed \(seed)" }

    /// A new layout of this spec, reading `delegate`.
    public func make(delegate: AnyLayoutDelegate) -> CollectionViewLayout {
        var generator = SplitMix64(seed: seed)
        func value(_ range: ClosedRange<Int>) -> Double { Double(Int.random(in: range, using: &generator)) }
        func insets() -> EdgeInsets { EdgeInsets(top: value(0...20), left: value(0...20), bottom: value(0...20), right: value(0...20)) }
        func chance() -> Bool { Bool.random(using: &generator) }
        switch kind {
        case .flow:
            let layout = FlowLayout()
            layout.scrollDirection = chance() ? .vertical : .horizontal
            layout.itemSize = Size(width: value(1...80), height: value(1...80))
            layout.minimumLineSpacing = value(0...12)
            layout.minimumInteritemSpacing = value(0...12)
            layout.sectionInset = insets()
            layout.headerReferenceSize = chance() ? Size(width: value(0...40), height: value(0...40)) : .zero
            layout.footerReferenceSize = chance() ? Size(width: value(0...40), height: value(0...40)) : .zero
            layout.sectionHeadersPinToVisibleBounds = chance()
            layout.sectionFootersPinToVisibleBounds = chance()
            layout.fullLineAlignment = LineAlignment.allCases.randomElement(using: &generator)!
            layout.lastLineAlignment = LineAlignment.allCases.randomElement(using: &generator)!
            layout.delegate = delegate
            return layout
        case .styledFlow:
            let layout = StyledFlowLayout()
            layout.interitemSpacing = value(0...12)
            layout.interspanSpacing = chance() ? value(0...12) : nil
            layout.spanGroupSpacingBefore = chance() ? value(0...12) : nil
            layout.spanGroupSpacingAfter = chance() ? value(0...12) : nil
            layout.defaultItemStyle = .flow(Size(width: value(1...80), height: 40))
            layout.rowTransform = [.none, .center, .fill(maxScale: value(1...3))].randomElement(using: &generator)!
            layout.sectionInset = insets()
            layout.headerHeight = chance() ? value(0...40) : 0
            layout.footerHeight = chance() ? value(0...40) : 0
            layout.insetSupplementaryViews = chance()
            layout.delegate = delegate
            return layout
        case .list:
            let layout = ListLayout()
            layout.itemHeight = value(0...60)
            layout.interitemSpacing = value(0...12)
            layout.headerHeight = chance() ? value(0...40) : 0
            layout.footerHeight = chance() ? value(0...40) : 0
            layout.sectionInsets = insets()
            layout.insetSupplementaryViews = chance()
            layout.hugContents = chance()
            layout.delegate = delegate
            return layout
        case .horizontalList:
            let layout = HorizontalListLayout()
            layout.itemWidth = value(0...80)
            layout.itemSpacing = value(0...12)
            layout.sectionInsets = insets()
            layout.centerContent = chance()
            layout.delegate = delegate
            return layout
        case .listStack:
            let layout = ListStackLayout(
                scrollDirection: chance() ? .vertical : .horizontal,
                stickyHeaders: chance(),
                topContentInset: value(0...10),
                stretchToEdge: chance()
            )
            layout.showHeaderWhenEmpty = chance()
            layout.stickyHeaderYOffset = value(0...10)
            layout.itemSize = Size(width: value(0...80), height: value(0...80))
            layout.sectionInset = insets()
            layout.minimumLineSpacing = value(0...12)
            layout.minimumInteritemSpacing = value(0...12)
            layout.headerLength = chance() ? value(0...40) : 0
            layout.footerLength = chance() ? value(0...40) : 0
            layout.delegate = delegate
            return layout
        case .column:
            let layout = ColumnLayout()
            layout.columnCount = Int.random(in: 1...4, using: &generator)
            layout.columnSpacing = value(0...12)
            layout.interitemSpacing = value(0...12)
            layout.sectionInset = insets()
            layout.itemHeight = value(0...60)
            layout.itemRenderDirection = ItemRenderDirection.allCases.randomElement(using: &generator)!
            layout.headerHeight = chance() ? value(0...40) : 0
            layout.footerHeight = chance() ? value(0...40) : 0
            layout.insetSupplementaryViews = chance()
            layout.screenScale = value(1...3)
            layout.delegate = delegate
            return layout
        }
    }
}

/// A random viewport size whose sides are at least
/// ``RandomLayoutSpec/minimumViewLength``.
public func randomViewSize(using generator: inout SplitMix64) -> Size {
    Size(width: Double(Int.random(in: 150...500, using: &generator)), height: Double(Int.random(in: 150...700, using: &generator)))
}

/// A random content inset of up to 10 on each side.
public func randomContentInset(using generator: inout SplitMix64) -> EdgeInsets {
    func value() -> Double { Double(Int.random(in: 0...10, using: &generator)) }
    return EdgeInsets(top: value(), left: value(), bottom: value(), right: value())
}

/// Random item counts: up to `maxSections` sections of up to `maxItems`
/// items, empty ones included.
public func randomItemCounts(maxSections: Int = 6, maxItems: Int = 30, using generator: inout SplitMix64) -> [Int] {
    (0..<Int.random(in: 0...maxSections, using: &generator)).map { _ in Int.random(in: 0...maxItems, using: &generator) }
}
