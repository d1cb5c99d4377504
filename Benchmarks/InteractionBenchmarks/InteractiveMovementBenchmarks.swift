import Benchmark
import Foundation
import TesseraDiff
import TesseraLayout
import TesseraView

/// Registers the InteractiveMovement benchmarks.
func interactiveMovementBenchmarks() {
    let configuration = Benchmark.Configuration(
        metrics: [.wallClock, .mallocCountTotal],
        timeUnits: .microseconds,
        units: [.mallocCountTotal: .count],
        warmupIterations: 2,
        maxDuration: .seconds(3),
        maxIterations: 1_000
    )

    // Each iteration is one drag update whose position lands on another
    // visible item than the last one, so the target changes every step and
    // the other items make room; the plan is part of the measure.
    Benchmark("Interactive movement: one drag update in a 1M-item FlowLayout", configuration: configuration) { (benchmark: Benchmark, fixture: MovementFixture) in
        for _ in benchmark.scaledIterations {
            blackHole(try fixture.view.updateInteractiveMovementTargetPosition(fixture.nextPosition()))
        }
    } setup: {
        try MovementFixture()
    }

    // The same drag with a FlowLayoutDelegate giving every item its size:
    // the layout keeps every frame and lays the section out again on each
    // step, so a step costs the section's million items.
    Benchmark("Interactive movement: one drag update in a 1M-item FlowLayout with a delegate", configuration: configuration) { (benchmark: Benchmark, fixture: MovementFixture) in
        for _ in benchmark.scaledIterations {
            blackHole(try fixture.view.updateInteractiveMovementTargetPosition(fixture.nextPosition()))
        }
    } setup: {
        try MovementFixture(withDelegate: true)
    }
}

/// One section of 1,000,000 items in a FlowLayout (390×844, 90×90 items,
/// four to a line), without a delegate unless asked, with item 5 being
/// dragged.
final class MovementFixture {
    /// Every item's size, asked item by item.
    final class Sizes: FlowLayoutDelegate {
        func flowLayout(_ layout: FlowLayout, sizeForItemAt indexPath: IndexPath) -> Size? { Size(width: 90, height: 90) }
    }

    /// Counts only; every item may move.
    final class Source: CollectionViewDataSource {
        var count = 1_000_000
        func numberOfSections(in collectionView: CollectionView) -> Int { 1 }
        func collectionView(_ collectionView: CollectionView, numberOfItemsInSection section: Int) -> Int { count }
        func collectionView(_ collectionView: CollectionView, canMoveItemAt indexPath: IndexPath) -> Bool { true }
    }

    let source = Source()
    let sizes = Sizes()
    let view: CollectionView
    private var step = 0
    /// Centres of visible items, visited in turn.
    private let positions: [Point]

    init(withDelegate: Bool = false) throws {
        let layout = FlowLayout()
        layout.itemSize = Size(width: 90, height: 90)
        if withDelegate { layout.delegate = sizes }
        view = CollectionView(layout: layout, size: Size(width: 390, height: 844))
        view.dataSource = source
        view.reloadData()
        try view.beginInteractiveMovementForItem(at: IndexPath(item: 5, section: 0))
        // Items 2, 13, 22, 31 (and back), each on another line.
        positions = [2, 13, 22, 31].compactMap { layout.layoutAttributesForItem(at: IndexPath(item: $0, section: 0))?.center }
    }

    func nextPosition() -> Point {
        step += 1
        return positions[step % positions.count]
    }
}
