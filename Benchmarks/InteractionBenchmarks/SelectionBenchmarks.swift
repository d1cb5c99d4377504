// Selection remapped through a large batch: a 100,000-item FlowLayout in
// 4 sections with 10,000 items selected performs 10,000 update items
// (inserts, deletes, moves within and across sections) and returns its
// plan; the same batch with nothing selected shows the selection's share.

import Benchmark
import BenchmarkSupport
import Foundation
import TesseraDiff
import TesseraLayout
import TesseraView

/// Registers the Selection benchmarks.
func selectionBenchmarks() {
    let configuration = Benchmark.Configuration(
        metrics: [.wallClock, .mallocCountTotal],
        timeUnits: .microseconds,
        units: [.mallocCountTotal: .count],
        warmupIterations: 2,
        maxDuration: .seconds(4),
        maxIterations: 300
    )

    // Each iteration runs the batch and its inverse, so the fixture stays
    // the same: the batch deletes no selected item, so the inverse brings
    // every selected item back where it was. Both are measured: a batch
    // costs half an iteration.
    for selected in [10_000, 0] {
        let name = selected > 0
            ? "Selection: 10,000 selected items remapped through a 10,000-item batch on 100,000 items, and back, with the plans"
            : "Selection: the same 10,000-item batch on 100,000 items, and back, with nothing selected, with the plans"
        Benchmark(name, configuration: configuration) { (benchmark: Benchmark, fixture: SelectionFixture) in
            for _ in benchmark.scaledIterations {
                blackHole(try fixture.view.performBatchUpdates(fixture.batch))
                blackHole(try fixture.view.performBatchUpdates(fixture.inverse))
            }
            precondition(fixture.view.indexPathsForSelectedItems.count == selected)
        } setup: {
            let fixture = SelectionFixture()
            fixture.selectEveryTenth(upTo: selected)
            return fixture
        }
    }

    // One batch per iteration, the batch and its inverse in turn, so that
    // each sample is one batch with its plan and the percentiles are a
    // batch's own (both are 10,000 update items with 10,000 items selected).
    Benchmark("Selection: 10,000 selected items remapped through one 10,000-item batch on 100,000 items (the batch and its inverse in turn), with the plan", configuration: configuration) { (benchmark: Benchmark, fixture: SelectionFixture) in
        for _ in benchmark.scaledIterations {
            blackHole(try fixture.performNextBatch())
        }
        precondition(fixture.view.indexPathsForSelectedItems.count == 10_000)
    } setup: {
        let fixture = SelectionFixture()
        fixture.selectEveryTenth(upTo: 10_000)
        return fixture
    }
}

/// Item counts that never change: each batch keeps every section's count.
private final class SelectionCountsSource: CollectionViewDataSource {
    let counts: [Int]
    init(counts: [Int]) { self.counts = counts }
    func numberOfSections(in collectionView: CollectionView) -> Int { counts.count }
    func collectionView(_ collectionView: CollectionView, numberOfItemsInSection section: Int) -> Int { counts[section] }
}

/// 100,000 items in 4 sections of a FlowLayout (390×844, 90×90 items),
/// scrolled into the second section, with multiple selection, and a
/// batch of 10,000 update items and its inverse. In each section: 875
/// deletes, 875 inserts and 750 moves out (half within the section, half
/// to the next one), so every section keeps 25,000 items.
final class SelectionFixture {
    let view: CollectionView
    let batch: [UpdateItem]
    let inverse: [UpdateItem]
    private let source: SelectionCountsSource

    init() {
        let sections = 4
        let count = 25_000
        source = SelectionCountsSource(counts: Array(repeating: count, count: sections))
        let layout = FlowLayout()
        layout.itemSize = Size(width: 90, height: 90)
        view = CollectionView(layout: layout, size: Size(width: 390, height: 844))
        view.dataSource = source
        view.reloadData()
        view.allowsMultipleSelection = true
        _ = view.setBounds(Rect(x: 0, y: 700_000, width: 390, height: 844), animated: false)

        var generator = SplitMix64(seed: 0x5E1E_C7)
        let deletes = 875
        let moves = 750
        var batch: [UpdateItem] = []
        var inverse: [UpdateItem] = []
        var movesOut: [[(from: IndexPath, toSection: Int)]] = Array(repeating: [], count: sections)
        var incoming: [[IndexPath]] = Array(repeating: [], count: sections)
        for section in 0..<sections {
            // Deletes spare the selected items (every tenth); moves take any.
            let shuffled = (0..<count).shuffled(using: &generator)
            let deleted = Array(shuffled.lazy.filter { $0 % 10 != 0 }.prefix(deletes))
            let spared = Set(deleted)
            let old = deleted + shuffled.lazy.filter { !spared.contains($0) }.prefix(moves)
            for item in old.prefix(deletes) {
                batch.append(.deleteItem(at: IndexPath(item: item, section: section)))
                inverse.append(.insertItem(at: IndexPath(item: item, section: section)))
            }
            for (index, item) in old.dropFirst(deletes).enumerated() {
                movesOut[section].append((IndexPath(item: item, section: section), index % 2 == 0 ? section : (section + 1) % sections))
            }
        }
        for section in 0..<sections {
            for move in movesOut[section] { incoming[move.toSection].append(move.from) }
        }
        for section in 0..<sections {
            let new = Array((0..<count).shuffled(using: &generator).prefix(deletes + incoming[section].count))
            for item in new.prefix(deletes) {
                batch.append(.insertItem(at: IndexPath(item: item, section: section)))
                inverse.append(.deleteItem(at: IndexPath(item: item, section: section)))
            }
            for (from, item) in zip(incoming[section], new.dropFirst(deletes)) {
                let to = IndexPath(item: item, section: section)
                batch.append(.moveItem(from: from, to: to))
                inverse.append(.moveItem(from: to, to: from))
            }
        }
        precondition(batch.count == 10_000)
        self.batch = batch
        self.inverse = inverse
    }

    private var nextIsInverse = false

    /// Performs the batch, or its inverse when the batch was performed
    /// last, and returns the plan.
    func performNextBatch() throws -> AnimationPlan {
        defer { nextIsInverse.toggle() }
        return try view.performBatchUpdates(nextIsInverse ? inverse : batch)
    }

    /// Selects every tenth item, up to `limit` items (nothing for 0).
    func selectEveryTenth(upTo limit: Int) {
        view.allowsSelection = false
        view.allowsSelection = true
        var selected = 0
        for section in 0..<view.numberOfSections {
            for item in stride(from: 0, to: view.numberOfItems(inSection: section), by: 10) where selected < limit {
                try? view.selectItem(at: IndexPath(item: item, section: section))
                selected += 1
            }
        }
    }
}
