// Benchmarks of self-sizing items: one fitted-size change above the visible
// area of a 1,000,000-item self-sizing ListLayout, delivered through
// CollectionView.invalidateItemSizes(at:) to its AnimationPlan, and the
// first prepare of that list.

import Benchmark
import Foundation
import TesseraDiff
import TesseraLayout
import TesseraView

/// Registers the SelfSizing benchmarks.
func selfSizingBenchmarks() {
    let configuration = Benchmark.Configuration(
        metrics: [.wallClock, .mallocCountTotal],
        timeUnits: .microseconds,
        units: [.mallocCountTotal: .count],
        warmupIterations: 2,
        maxDuration: .seconds(3),
        maxIterations: 1_000
    )

    // Each iteration changes the fitted height of one item 1,000 to 1,499
    // items above the first visible one, and delivers it: the layout sets
    // one height in place, the content offset moves by the change, and the
    // plan covers the visible rows.
    Benchmark("Self-sizing: one size change above the viewport, 1M-item ListLayout", configuration: configuration) { (benchmark: Benchmark, fixture: SelfSizingFixture) in
        for iteration in benchmark.scaledIterations {
            let path = IndexPath(item: fixture.firstVisible - 1_000 - iteration % 500, section: 0)
            fixture.source.toggle(path.item)
            blackHole(try fixture.view.invalidateItemSizes(at: [path], animated: false))
        }
    } setup: {
        SelfSizingFixture()
    }

    Benchmark("Self-sizing: first prepare of a 1M-item self-sizing ListLayout, with the visible rows sized", configuration: configuration) { (benchmark: Benchmark) in
        let source = SelfSizingSource(count: 1_000_000)
        for _ in benchmark.scaledIterations {
            let layout = ListLayout()
            layout.estimatedItemHeight = 44
            let view = CollectionView(layout: layout, size: Size(width: 390, height: 844))
            view.dataSource = source
            benchmark.startMeasurement()
            view.reloadData()
            benchmark.stopMeasurement()
            blackHole(view)
        }
    }
}

/// Fitted heights for a list: 30 to 54 points by item, and a few items
/// whose height toggles.
final class SelfSizingSource: CollectionViewDataSource {
    let count: Int
    private var toggled = Set<Int>()

    init(count: Int) {
        self.count = count
    }

    func toggle(_ item: Int) {
        if toggled.remove(item) == nil { toggled.insert(item) }
    }

    func numberOfSections(in collectionView: CollectionView) -> Int { 1 }
    func collectionView(_ collectionView: CollectionView, numberOfItemsInSection section: Int) -> Int { count }
    func collectionView(_ collectionView: CollectionView, preferredLayoutAttributesFitting layoutAttributes: LayoutAttributes) -> LayoutAttributes? {
        let item = layoutAttributesItem(layoutAttributes)
        var preferred = layoutAttributes
        preferred.frame.size.height = Double(30 + item % 7 * 4) + (toggled.contains(item) ? 60 : 0)
        return preferred
    }

    private func layoutAttributesItem(_ attributes: LayoutAttributes) -> Int { attributes.indexPath[1] }
}

/// One section of 1,000,000 self-sizing items in a ListLayout (44-point
/// estimate, 390×844), prepared and scrolled to the middle.
final class SelfSizingFixture {
    let source = SelfSizingSource(count: 1_000_000)
    let view: CollectionView
    let firstVisible: Int

    init() {
        let layout = ListLayout()
        layout.estimatedItemHeight = 44
        view = CollectionView(layout: layout, size: Size(width: 390, height: 844))
        view.dataSource = source
        view.reloadData()
        _ = view.setBounds(Rect(x: 0, y: view.contentSize.height / 2, width: 390, height: 844), animated: false)
        firstVisible = view.visibleElements.first { $0.category == .cell }?.indexPath[1] ?? 500_000
    }
}
