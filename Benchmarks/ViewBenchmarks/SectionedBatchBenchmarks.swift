// Benchmarks of one-row batches on a 1,000,000-item FlowLayout in 1,024
// sections (390×844, 90×90 items, headers), through
// CollectionView.performBatchUpdates from a changeset to an AnimationPlan:
// what a batch costs when it touches one section.

import Benchmark
import Foundation
import TesseraDiff
import TesseraLayout
import TesseraView

func sectionedBatchBenchmarks() {
    let configuration = Benchmark.Configuration(
        metrics: [.wallClock, .mallocCountTotal],
        timeUnits: .microseconds,
        units: [.mallocCountTotal: .count],
        warmupIterations: 2,
        maxDuration: .seconds(3),
        maxIterations: 200
    )

    // Each iteration runs a change and its inverse, so the fixture stays the
    // same size across samples; both are measured.
    Benchmark("FlowLayout 1M items in 1,024 sections: one-row insert, then delete, in the middle section", configuration: configuration) { (benchmark: Benchmark, fixture: SectionedFixture) in
        let section = 512
        for _ in benchmark.scaledIterations {
            let item = IndexPath(item: 300, section: section)
            fixture.source.counts[section] += 1
            blackHole(try fixture.view.performBatchUpdates(Changeset(itemInserts: [item])))
            fixture.source.counts[section] -= 1
            blackHole(try fixture.view.performBatchUpdates(Changeset(itemDeletes: [item])))
        }
    } setup: {
        SectionedFixture()
    }

    Benchmark("FlowLayout 1M items in 1,024 sections: one-row move within the middle section, and back", configuration: configuration) { (benchmark: Benchmark, fixture: SectionedFixture) in
        let section = 512
        for _ in benchmark.scaledIterations {
            let from = IndexPath(item: 100, section: section)
            let to = IndexPath(item: 900, section: section)
            blackHole(try fixture.view.performBatchUpdates(Changeset(itemMoves: [Move(from: from, to: to)])))
            blackHole(try fixture.view.performBatchUpdates(Changeset(itemMoves: [Move(from: to, to: from)])))
        }
    } setup: {
        SectionedFixture()
    }

    Benchmark("FlowLayout 1M items in 1,024 sections: one-row move across sections (100 → 900), and back", configuration: configuration) { (benchmark: Benchmark, fixture: SectionedFixture) in
        for _ in benchmark.scaledIterations {
            let from = IndexPath(item: 10, section: 100)
            let to = IndexPath(item: 20, section: 900)
            fixture.source.counts[100] -= 1
            fixture.source.counts[900] += 1
            blackHole(try fixture.view.performBatchUpdates(Changeset(itemMoves: [Move(from: from, to: to)])))
            fixture.source.counts[100] += 1
            fixture.source.counts[900] -= 1
            blackHole(try fixture.view.performBatchUpdates(Changeset(itemMoves: [Move(from: to, to: from)])))
        }
    } setup: {
        SectionedFixture()
    }
}

/// 1,000,000 items in 1,024 sections (976 or 977 items each) in a
/// FlowLayout with headers, prepared and scrolled into section 512.
final class SectionedFixture {
    let source: CountsSource
    let view: CollectionView

    init() {
        let sections = 1_024
        source = CountsSource(counts: (0..<sections).map { 1_000_000 / sections + ($0 < 1_000_000 % sections ? 1 : 0) })
        let layout = FlowLayout()
        layout.itemSize = Size(width: 90, height: 90)
        layout.headerReferenceSize = Size(width: 390, height: 40)
        view = CollectionView(layout: layout, size: Size(width: 390, height: 844))
        view.dataSource = source
        view.reloadData()
        let middle = layout.layoutAttributesForSupplementaryView(ofKind: ElementKind.sectionHeader, at: IndexPath(item: 0, section: 512))?.frame.minY ?? 0
        _ = view.setBounds(Rect(x: 0, y: middle + 2_000, width: 390, height: 844), animated: false)
    }
}
