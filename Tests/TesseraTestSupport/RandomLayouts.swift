import Foundation
import TesseraLayout

/// The layouts Tessera ships.
public enum LayoutKind: String, CaseIterable, Sendable, CustomStringConvertible {
    case flow, styledFlow, list, horizontalList, listStack, column

    public var description: String { rawValue }
}

/// Random lengths for the oracles: mostly ordinary, often zero or far
/// beyond any view the oracles use, so that no configuration a layout
/// accepts is left out.
public struct RandomLengths {
    /// The longest view side ``randomViewSize(using:)`` gives.
    public static let longestViewSide = 700

    /// A length: one time in ten 0; one time in six between 0 and
    /// `beyond` (well past ``longestViewSide`` by default); otherwise between
    /// `ordinary.lowerBound` and `ordinary.upperBound`. Whole or half points.
    public static func length(_ ordinary: ClosedRange<Int>, beyond: Int = 2 * longestViewSide, using generator: inout SplitMix64) -> Double {
        switch Int.random(in: 0..<30, using: &generator) {
        case 0..<3: return 0
        case 3..<8: return Double(Int.random(in: 0...2 * beyond, using: &generator)) / 2
        default: return Double(Int.random(in: 2 * ordinary.lowerBound...2 * ordinary.upperBound, using: &generator)) / 2
        }
    }

    /// Section insets: each side a ``length(_:beyond:using:)`` of up to 20,
    /// or beyond the view.
    public static func insets(using generator: inout SplitMix64) -> EdgeInsets {
        EdgeInsets(
            top: length(0...20, using: &generator), left: length(0...20, using: &generator),
            bottom: length(0...20, using: &generator), right: length(0...20, using: &generator)
        )
    }

    /// An item size: each side a ``length(_:beyond:using:)`` of 1 to 80, or
    /// zero, or beyond the view.
    public static func itemSize(using generator: inout SplitMix64) -> Size {
        Size(width: length(1...80, using: &generator), height: length(1...80, using: &generator))
    }

    /// A column count: usually 1 to 4, sometimes far more than fit.
    public static func columnCount(using generator: inout SplitMix64) -> Int {
        Int.random(in: 0..<5, using: &generator) == 0 ? Int.random(in: 5...300, using: &generator) : Int.random(in: 1...4, using: &generator)
    }
}

/// A built-in layout with random settings, made the same way every time
/// from its own seed: the oracles compare a layout that lived through
/// changes with a fresh one made from the same spec.
///
/// The settings avoid nothing a layout accepts: items, headers, footers,
/// spacings and insets are zero, ordinary (insets up to 20, spacings up to
/// 12, headers and footers up to 40, items up to 80 on each side) or far
/// larger than any view (``RandomLengths``); column counts run far past
/// what fits; sticky header offsets are large either way. Views run from
/// 0×0 up (``randomViewSize(using:)``).
public struct RandomLayoutSpec: Sendable, CustomStringConvertible {
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
        func length(_ ordinary: ClosedRange<Int>) -> Double { RandomLengths.length(ordinary, using: &generator) }
        func insets() -> EdgeInsets { RandomLengths.insets(using: &generator) }
        func itemSize() -> Size { RandomLengths.itemSize(using: &generator) }
        func offset() -> Double {
            Int.random(in: 0..<4, using: &generator) == 0 ? Double(Int.random(in: -1500...1500, using: &generator)) : Double(Int.random(in: -10...10, using: &generator))
        }
        func chance() -> Bool { Bool.random(using: &generator) }
        switch kind {
        case .flow:
            let layout = FlowLayout()
            layout.scrollDirection = chance() ? .vertical : .horizontal
            layout.itemSize = itemSize()
            layout.minimumLineSpacing = length(0...12)
            layout.minimumInteritemSpacing = length(0...12)
            layout.sectionInset = insets()
            layout.headerReferenceSize = chance() ? Size(width: length(0...40), height: length(0...40)) : .zero
            layout.footerReferenceSize = chance() ? Size(width: length(0...40), height: length(0...40)) : .zero
            layout.sectionHeadersPinToVisibleBounds = chance()
            layout.sectionFootersPinToVisibleBounds = chance()
            layout.fullLineAlignment = LineAlignment.allCases.randomElement(using: &generator)!
            layout.lastLineAlignment = LineAlignment.allCases.randomElement(using: &generator)!
            layout.delegate = delegate
            return layout
        case .styledFlow:
            let layout = StyledFlowLayout()
            layout.interitemSpacing = length(0...12)
            layout.interspanSpacing = chance() ? length(0...12) : nil
            layout.spanGroupSpacingBefore = chance() ? length(0...12) : nil
            layout.spanGroupSpacingAfter = chance() ? length(0...12) : nil
            layout.defaultItemStyle = .flow(Size(width: length(1...80), height: 40))
            // A custom transform that staggers rows and moves and widens
            // items, as far past the trailing edge as it likes.
            let shift = length(0...20)
            let widening = length(0...40)
            let stagger = length(0...6)
            let custom = StyledFlowLayout.RowTransform.custom { row, _ in
                row.enumerated().map { index, frame in
                    Rect(x: frame.minX + shift, y: Double(index % 3) * stagger, width: frame.width + widening, height: frame.height)
                }
            }
            layout.rowTransform = [.none, .center, .fill(maxScale: length(1...3)), custom].randomElement(using: &generator)!
            layout.sectionInset = insets()
            layout.headerHeight = chance() ? length(0...40) : 0
            layout.footerHeight = chance() ? length(0...40) : 0
            layout.insetSupplementaryViews = chance()
            layout.delegate = delegate
            return layout
        case .list:
            let layout = ListLayout()
            layout.itemHeight = length(0...60)
            layout.interitemSpacing = length(0...12)
            layout.headerHeight = chance() ? length(0...40) : 0
            layout.footerHeight = chance() ? length(0...40) : 0
            layout.sectionInsets = insets()
            layout.insetSupplementaryViews = chance()
            layout.hugContents = chance()
            layout.delegate = delegate
            return layout
        case .horizontalList:
            let layout = HorizontalListLayout()
            layout.itemWidth = length(0...80)
            layout.itemSpacing = length(0...12)
            layout.sectionInsets = insets()
            layout.centerContent = chance()
            layout.delegate = delegate
            return layout
        case .listStack:
            let layout = ListStackLayout(
                scrollDirection: chance() ? .vertical : .horizontal,
                stickyHeaders: chance(),
                topContentInset: offset(),
                stretchToEdge: chance()
            )
            layout.showHeaderWhenEmpty = chance()
            layout.stickyHeaderYOffset = offset()
            layout.screenScale = Double(Int.random(in: 1...3, using: &generator))
            layout.itemSize = itemSize()
            layout.sectionInset = insets()
            layout.minimumLineSpacing = length(0...12)
            layout.minimumInteritemSpacing = length(0...12)
            layout.headerLength = chance() ? length(0...40) : 0
            layout.footerLength = chance() ? length(0...40) : 0
            layout.delegate = delegate
            return layout
        case .column:
            let layout = ColumnLayout()
            layout.columnCount = RandomLengths.columnCount(using: &generator)
            layout.columnSpacing = length(0...12)
            layout.interitemSpacing = length(0...12)
            layout.sectionInset = insets()
            layout.itemHeight = length(0...60)
            layout.itemRenderDirection = ItemRenderDirection.allCases.randomElement(using: &generator)!
            layout.headerHeight = chance() ? length(0...40) : 0
            layout.footerHeight = chance() ? length(0...40) : 0
            layout.insetSupplementaryViews = chance()
            layout.screenScale = Double(Int.random(in: 1...3, using: &generator))
            layout.delegate = delegate
            return layout
        }
    }
}

/// A random viewport size: one time in ten tiny (each side 0 to 2 points),
/// one time in ten small (1 to 60), otherwise 150 to 500 wide and 150 to
/// ``RandomLengths/longestViewSide`` tall.
public func randomViewSize(using generator: inout SplitMix64) -> Size {
    switch Int.random(in: 0..<10, using: &generator) {
    case 0: return Size(width: Double(Int.random(in: 0...2, using: &generator)), height: Double(Int.random(in: 0...2, using: &generator)))
    case 1: return Size(width: Double(Int.random(in: 1...60, using: &generator)), height: Double(Int.random(in: 1...60, using: &generator)))
    default:
        return Size(
            width: Double(Int.random(in: 150...500, using: &generator)),
            height: Double(Int.random(in: 150...RandomLengths.longestViewSide, using: &generator))
        )
    }
}

/// A random content inset: each side usually up to 10, sometimes up to 300
/// (more than a small view: nothing is left visible).
public func randomContentInset(using generator: inout SplitMix64) -> EdgeInsets {
    func value() -> Double {
        Int.random(in: 0..<8, using: &generator) == 0 ? Double(Int.random(in: 0...300, using: &generator)) : Double(Int.random(in: 0...10, using: &generator))
    }
    return EdgeInsets(top: value(), left: value(), bottom: value(), right: value())
}

/// Random item counts: up to `maxSections` sections of up to `maxItems`
/// items, empty ones included.
public func randomItemCounts(maxSections: Int = 6, maxItems: Int = 30, using generator: inout SplitMix64) -> [Int] {
    (0..<Int.random(in: 0...maxSections, using: &generator)).map { _ in Int.random(in: 0...maxItems, using: &generator) }
}
