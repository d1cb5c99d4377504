import Foundation
import TesseraLayout

/// The layouts whose items can size themselves.
public enum SelfSizingKind: String, CaseIterable, Sendable, CustomStringConvertible {
    case list, flow, column, listStack

    public var description: String { rawValue }
}

/// Random parameters of a self-sizing layout, and its sections' fitted
/// sizes (whole and half points, so that sums are exact).
public struct SelfSizingSpec: CustomStringConvertible {
    public let kind: SelfSizingKind
    public var counts: [Int]
    public var fitted: [[Size]]
    public let spacing: Double
    public let lineSpacing: Double
    public let insets: EdgeInsets
    public let header: Double
    public let footer: Double
    public let columns: Int
    public let estimate: Size

    public init(kind: SelfSizingKind, using generator: inout SplitMix64, maxSections: Int = 5, maxItems: Int = 40) {
        self.kind = kind
        func half(_ range: ClosedRange<Int>) -> Double { Double(Int.random(in: range, using: &generator)) / 2 }
        counts = (0..<Int.random(in: 0...maxSections, using: &generator)).map { _ in Int.random(in: 0...maxItems, using: &generator) }
        spacing = half(0...20)
        lineSpacing = half(0...20)
        insets = EdgeInsets(top: half(0...30), left: half(0...30), bottom: half(0...30), right: half(0...30))
        header = Bool.random(using: &generator) ? half(2...60) : 0
        footer = Bool.random(using: &generator) ? half(2...60) : 0
        columns = Int.random(in: 1...4, using: &generator)
        estimate = Size(width: half(20...200), height: half(20...160))
        fitted = []
        for count in counts {
            fitted.append((0..<count).map { _ in Self.randomSize(kind: kind, using: &generator) })
        }
    }

    /// A random fitted size for an item of `kind`.
    public static func randomSize(kind: SelfSizingKind, using generator: inout SplitMix64) -> Size {
        func half(_ range: ClosedRange<Int>) -> Double { Double(Int.random(in: range, using: &generator)) / 2 }
        switch kind {
        case .list, .column: return Size(width: half(0...400), height: half(0...200))
        case .flow, .listStack: return Size(width: half(2...300), height: half(2...200))
        }
    }

    public var description: String {
        "\(kind) counts \(counts) spacing \(spacing)/\(lineSpacing) insets \(insets) header \(header) footer \(footer) columns \(columns) estimate \(estimate)"
    }

    /// The layout, self-sizing (`delegate` nil) or given `delegate`'s sizes
    /// with self-sizing off.
    public func makeLayout(delegate: FittedSizeDelegate? = nil) -> FrameStorageLayout {
        let selfSizing = delegate == nil
        switch kind {
        case .list:
            let layout = ListLayout()
            layout.interitemSpacing = spacing
            layout.sectionInsets = insets
            layout.headerHeight = header
            layout.footerHeight = footer
            if selfSizing { layout.estimatedItemHeight = estimate.height } else { layout.delegate = delegate }
            return layout
        case .flow:
            let layout = FlowLayout()
            layout.minimumInteritemSpacing = spacing
            layout.minimumLineSpacing = lineSpacing
            layout.sectionInset = insets
            layout.headerReferenceSize = Size(width: 0, height: header)
            layout.footerReferenceSize = Size(width: 0, height: footer)
            if selfSizing { layout.estimatedItemSize = estimate } else { layout.delegate = delegate }
            return layout
        case .column:
            let layout = ColumnLayout()
            layout.columnCount = columns
            layout.interitemSpacing = spacing
            layout.sectionInset = insets
            layout.headerHeight = header
            layout.footerHeight = footer
            if selfSizing { layout.estimatedItemHeight = estimate.height } else { layout.delegate = delegate }
            return layout
        case .listStack:
            let layout = ListStackLayout()
            layout.minimumInteritemSpacing = spacing
            layout.minimumLineSpacing = lineSpacing
            layout.sectionInset = insets
            layout.headerLength = header
            layout.footerLength = footer
            if selfSizing { layout.estimatedItemSize = estimate } else { layout.delegate = delegate }
            return layout
        }
    }
}

/// A delegate for the four self-sizing layouts that gives every item the
/// size in ``sizes`` (self-sizing off: the oracle a self-sizing layout is
/// checked against).
public final class FittedSizeDelegate: ListLayoutDelegate, FlowLayoutDelegate, ColumnLayoutDelegate, ListStackLayoutDelegate {
    public var sizes: [[Size]]

    public init(sizes: [[Size]]) {
        self.sizes = sizes
    }

    public func listLayout(_ layout: ListLayout, heightForItemAt indexPath: IndexPath) -> Double? { sizes[indexPath[0]][indexPath[1]].height }
    public func flowLayout(_ layout: FlowLayout, sizeForItemAt indexPath: IndexPath) -> Size? { sizes[indexPath[0]][indexPath[1]] }
    public func columnLayout(_ layout: ColumnLayout, heightForItemAt indexPath: IndexPath) -> Double? { sizes[indexPath[0]][indexPath[1]].height }
    public func listStackLayout(_ layout: ListStackLayout, sizeForItemAt indexPath: IndexPath) -> Size? { sizes[indexPath[0]][indexPath[1]] }
}
