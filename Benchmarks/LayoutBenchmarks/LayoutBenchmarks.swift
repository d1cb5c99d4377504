// Benchmarks of TesseraLayout's layouts (FlowLayout, ListLayout and the
// rest of the family): prepare(), memory
// per item, one viewport query in the middle of the content, and a sweep of
// 1,000 viewport queries from top to bottom. Viewport 390×844.

import Benchmark
import Foundation
import TesseraLayout

let benchmarks: @Sendable () -> Void = {
    for (items, sections) in [(10_000, 10), (100_000, 10), (1_000_000, 10), (1_000_000, 1_000)] {
        registerLayoutBenchmarks(kind: .flow, items: items, sections: sections)
        registerLayoutBenchmarks(kind: .list, items: items, sections: sections)
    }
    // The layout family, beside FlowLayout's figures above.
    for (items, sections) in [(100_000, 10), (1_000_000, 10)] {
        for kind in [LayoutKind.columnGrid, .waterfall, .styledFlow, .horizontalList, .listStack] {
            registerLayoutBenchmarks(kind: kind, items: items, sections: sections)
        }
    }
}

enum LayoutKind: String {
    case flow = "FlowLayout"
    case list = "ListLayout"
    case columnGrid = "ColumnLayout grid"
    case waterfall = "ColumnLayout waterfall shortest-first"
    case styledFlow = "StyledFlowLayout"
    case horizontalList = "HorizontalListLayout"
    case listStack = "ListStackLayout"

    func make() -> CollectionViewLayout {
        switch self {
        case .columnGrid:
            let layout = ColumnLayout()
            layout.columnCount = 3
            return layout
        case .waterfall:
            let layout = ColumnLayout()
            layout.columnCount = 3
            layout.itemRenderDirection = .shortestFirst
            layout.delegate = waterfallHeights
            return layout
        case .styledFlow:
            let layout = StyledFlowLayout()
            layout.defaultItemStyle = .flow(Size(width: 120, height: 120))
            return layout
        case .horizontalList:
            return HorizontalListLayout()
        case .listStack:
            let layout = ListStackLayout(scrollDirection: .vertical, stickyHeaders: false, topContentInset: 0, stretchToEdge: false)
            layout.itemSize = Size(width: 120, height: 120)
            return layout
        case .flow:
            let layout = FlowLayout()
            layout.itemSize = Size(width: 120, height: 120)
            layout.headerReferenceSize = Size(width: 0, height: 40)
            layout.sectionInset = EdgeInsets(all: 5)
            return layout
        case .list:
            let layout = ListLayout()
            layout.itemHeight = 44
            layout.headerHeight = 28
            return layout
        }
    }

    func storageByteCount(_ layout: CollectionViewLayout) -> Int {
        switch layout {
        case let layout as FlowLayout: return layout.storageByteCount
        case let layout as ListLayout: return layout.storageByteCount
        case let layout as ColumnLayout: return layout.storageByteCount
        case let layout as StyledFlowLayout: return layout.storageByteCount
        case let layout as HorizontalListLayout: return layout.storageByteCount
        case let layout as ListStackLayout: return layout.storageByteCount
        default: return 0
        }
    }
}

/// Item heights that vary, for a waterfall.
final class WaterfallHeights: ColumnLayoutDelegate {
    func columnLayout(_ layout: ColumnLayout, heightForItemAt indexPath: IndexPath) -> Double? {
        Double(60 + (indexPath.item &* 7_919) % 120)
    }
}

nonisolated(unsafe) let waterfallHeights = WaterfallHeights()

let viewport = Size(width: 390, height: 844)

/// The configuration of one size: fewer iterations for larger inputs;
/// nanoseconds for single queries.
func configuration(items: Int) -> Benchmark.Configuration {
    .init(
        metrics: [.wallClock, .mallocCountTotal],
        timeUnits: items == 1 ? .nanoseconds : .microseconds,
        units: [.mallocCountTotal: .count],
        warmupIterations: 2,
        maxDuration: .seconds(2),
        maxIterations: items >= 1_000_000 ? 30 : items == 1 ? 10_000 : 300
    )
}

func registerLayoutBenchmarks(kind: LayoutKind, items: Int, sections: Int) {
    let label = "\(kind.rawValue) \(items / 1_000)k items \(sections) sections"
    let counts = Array(repeating: items / sections, count: sections)

    Benchmark("\(label) prepare", configuration: configuration(items: items)) { benchmark, environment in
        for _ in benchmark.scaledIterations {
            let layout = kind.make()
            layout.collectionView = environment
            layout.prepare()
            blackHole(layout)
        }
    } setup: {
        StaticLayoutEnvironment(size: viewport, itemCounts: counts)
    }

    Benchmark("\(label) one viewport query", configuration: configuration(items: 1)) { (benchmark: Benchmark, state: (CollectionViewLayout, Rect)) in
        let (layout, rect) = state
        for _ in benchmark.scaledIterations {
            blackHole(layout.layoutAttributesForElements(in: rect))
        }
    } setup: {
        let (layout, environment) = prepared(kind: kind, counts: counts)
        let content = layout.collectionViewContentSize
        let rect = kind == .horizontalList
            ? Rect(origin: Point(x: content.width / 2, y: 0), size: viewport)
            : Rect(origin: Point(x: 0, y: content.height / 2), size: viewport)
        let found = layout.layoutAttributesForElements(in: rect)
        precondition(!found.isEmpty, "\(label): the middle viewport shows nothing")
        printMemory(label: label, kind: kind, layout: layout, items: items)
        withExtendedLifetime(environment) {}
        return (layout, rect)
    }

    Benchmark("\(label) scroll sweep of 1000 queries", configuration: configuration(items: items)) { (benchmark: Benchmark, state: (CollectionViewLayout, Double)) in
        let (layout, step) = state
        for _ in benchmark.scaledIterations {
            var total = 0
            for index in 0..<1_000 {
                // A negative step sweeps horizontally (for a horizontal list).
                let rect = step < 0
                    ? Rect(x: Double(index) * -step, y: 0, width: viewport.width, height: viewport.height)
                    : Rect(x: 0, y: Double(index) * step, width: viewport.width, height: viewport.height)
                total &+= layout.layoutAttributesForElements(in: rect).count
            }
            blackHole(total)
        }
    } setup: {
        let (layout, _) = prepared(kind: kind, counts: counts)
        let content = layout.collectionViewContentSize
        let step = kind == .horizontalList ? -max(0, content.width - viewport.width) / 999 : max(0, content.height - viewport.height) / 999
        return (layout, step)
    }
}

/// Environments must outlive their layouts (a layout holds its environment
/// weakly, as UIKit's layouts do), so prepared ones are kept here.
nonisolated(unsafe) var keptEnvironments: [StaticLayoutEnvironment] = []

func prepared(kind: LayoutKind, counts: [Int]) -> (CollectionViewLayout, StaticLayoutEnvironment) {
    let environment = StaticLayoutEnvironment(size: viewport, itemCounts: counts)
    keptEnvironments.append(environment)
    let layout = kind.make()
    layout.collectionView = environment
    layout.prepare()
    precondition(layout.layoutError == nil, "layout error: \(String(describing: layout.layoutError))")
    return (layout, environment)
}

/// Prints the frame storage per item once per layout and size.
func printMemory(label: String, kind: LayoutKind, layout: CollectionViewLayout, items: Int) {
    let bytes = kind.storageByteCount(layout)
    let perItem = Double(bytes) / Double(items)
    FileHandle.standardError.write(Data("memory \(label): \(bytes) bytes, \(String(format: "%.1f", perItem)) bytes per item\n".utf8))
}
