// Benchmarks of TesseraView: performBatchUpdates end to end (validation, the
// layout's re-prepare, the update cycle and the plan) on a 1,000,000-item
// FlowLayout in a 390×844 viewport, next to the layout's own re-prepare.

import Benchmark
import BenchmarkSupport
import Foundation
import TesseraDiff
import TesseraLayout
import TesseraView

let benchmarks: @Sendable () -> Void = {
    sectionedBatchBenchmarks()
    let configuration = Benchmark.Configuration(
        metrics: [.wallClock, .mallocCountTotal],
        timeUnits: .microseconds,
        units: [.mallocCountTotal: .count],
        warmupIterations: 1,
        maxDuration: .seconds(3),
        maxIterations: 20
    )

    // The fixture is made once in setup and kept across samples, so these
    // measure the steady state of a view that has already run batches.
    Benchmark("FlowLayout 1M items: layout re-prepare alone (the floor)", configuration: configuration) { (benchmark: Benchmark, fixture: Fixture) in
        for _ in benchmark.scaledIterations {
            let context = InvalidationContext(invalidateDataSourceCounts: true)
            context.invalidateSections([0])
            fixture.view.collectionViewLayout.invalidateLayout(with: context)
            fixture.view.collectionViewLayout.prepare()
        }
    } setup: {
        Fixture()
    }

    Benchmark("FlowLayout 1M items: performBatchUpdates, 1 insert at the top", configuration: configuration) { (benchmark: Benchmark, fixture: Fixture) in
        for _ in benchmark.scaledIterations {
            fixture.source.counts[0] += 1
            let plan = try fixture.view.performBatchUpdates([.insertItem(at: IndexPath(item: 0, section: 0))])
            precondition(plan.elements.count < 200, "plan of \(plan.elements.count) elements")
            blackHole(plan)
        }
    } setup: {
        Fixture()
    }

    Benchmark("FlowLayout 1M items: performBatchUpdates, 10,000 mixed changes", configuration: configuration) { (benchmark: Benchmark, fixture: Fixture) in
        for _ in benchmark.scaledIterations {
            let batch = mixedBatch(counts: fixture.source.counts, using: &fixture.generator)
            fixture.source.counts = batch.countsAfter
            benchmark.startMeasurement()
            let plan = try fixture.view.performBatchUpdates(batch.items)
            benchmark.stopMeasurement()
            precondition(plan.elements.count < 400, "plan of \(plan.elements.count) elements")
            blackHole(plan)
        }
    } setup: {
        Fixture()
    }

    // A fresh view for every sample: the first batch also allocates the
    // layout's second set of frame buffers.
    Benchmark("FlowLayout 1M items: first performBatchUpdates on a fresh view, 1 insert at the top", configuration: configuration) { benchmark in
        let fixture = Fixture()
        for _ in benchmark.scaledIterations {
            fixture.source.counts[0] += 1
            benchmark.startMeasurement()
            let plan = try fixture.view.performBatchUpdates([.insertItem(at: IndexPath(item: 0, section: 0))])
            benchmark.stopMeasurement()
            blackHole(plan)
        }
    }
}

/// Counts only: what the view needs from a data source.
final class CountsSource: CollectionViewDataSource {
    var counts: [Int]
    init(counts: [Int]) { self.counts = counts }
    func numberOfSections(in collectionView: CollectionView) -> Int { counts.count }
    func collectionView(_ collectionView: CollectionView, numberOfItemsInSection section: Int) -> Int { counts[section] }
}

/// A 1,000,000-item flow layout (10 sections), prepared, scrolled to the
/// middle of the first section.
final class Fixture {
    let source = CountsSource(counts: Array(repeating: 100_000, count: 10))
    let view: CollectionView
    var generator = SplitMix64(seed: 7)

    init() {
        let layout = FlowLayout()
        layout.itemSize = Size(width: 120, height: 120)
        layout.sectionInset = EdgeInsets(all: 5)
        view = CollectionView(layout: layout, size: Size(width: 390, height: 844))
        view.dataSource = source
        view.reloadData()
        view.setBounds(Rect(x: 0, y: 20_000, width: 390, height: 844), animated: false)
    }
}

/// 10,000 deletes, inserts and moves spread over the sections, with the
/// counts after them.
func mixedBatch(counts: [Int], using generator: inout SplitMix64) -> (items: [UpdateItem], countsAfter: [Int]) {
    var items: [UpdateItem] = []
    var after = counts
    for section in counts.indices {
        var deletes = Set<Int>()
        while deletes.count < 400 { deletes.insert(Int.random(in: 0..<counts[section], using: &generator)) }
        var remaining = counts[section] - deletes.count
        var inserts = Set<Int>()
        let insertCount = 400
        while inserts.count < insertCount { inserts.insert(Int.random(in: 0..<(remaining + insertCount), using: &generator)) }
        remaining += insertCount
        let survivors = (0..<counts[section]).filter { !deletes.contains($0) }
        var moveSources = Set<Int>()
        while moveSources.count < 200 { moveSources.insert(survivors[Int.random(in: 0..<survivors.count, using: &generator)]) }
        var moveTargets = Set<Int>()
        while moveTargets.count < 200 {
            let target = Int.random(in: 0..<remaining, using: &generator)
            if !inserts.contains(target) { moveTargets.insert(target) }
        }
        items += deletes.sorted().map { .deleteItem(at: IndexPath(item: $0, section: section)) }
        items += inserts.sorted().map { .insertItem(at: IndexPath(item: $0, section: section)) }
        items += zip(moveSources.sorted(), moveTargets.sorted().shuffled(using: &generator)).map {
            .moveItem(from: IndexPath(item: $0, section: section), to: IndexPath(item: $1, section: section))
        }
        after[section] = remaining
    }
    return (items, after)
}
