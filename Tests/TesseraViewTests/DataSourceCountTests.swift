import Foundation
import Testing
import TesseraDiff
import TesseraLayout
import TesseraTestSupport
import TesseraView
import TesseraTestTraits

/// A data source whose number of sections can be anything, negative
/// included.
final class RawCountsSource: CollectionViewDataSource {
    var sectionCount: Int
    var counts: [Int]
    init(sectionCount: Int? = nil, counts: [Int]) {
        self.sectionCount = sectionCount ?? counts.count
        self.counts = counts
    }
    func numberOfSections(in collectionView: CollectionView) -> Int { sectionCount }
    func collectionView(_ collectionView: CollectionView, numberOfItemsInSection section: Int) -> Int { counts[section] }
}

@Suite("Data source counts", .cpuBound)
struct DataSourceCountTests {
    /// A view of `layout`, 320 × 300, loaded from a source of two sections
    /// of 2 and 3 items.
    static func makeLoadedView(_ layout: CollectionViewLayout) -> (source: RawCountsSource, view: CollectionView) {
        let source = RawCountsSource(counts: [2, 3])
        let view = CollectionView(layout: layout, size: Size(width: 320, height: 300))
        view.dataSource = source
        view.reloadData()
        return (source, view)
    }

    @Test("reloadData rejects a negative count from the data source and keeps the view as it was")
    func reloadRejectsNegativeCounts() throws {
        let (source, view) = Self.makeLoadedView(FlowLayout())
        let elements = view.visibleElements
        let cases: [(sectionCount: Int, counts: [Int], expected: BatchValidationError)] = [
            (-1, [], .negativeSectionCount(count: -1, space: .after)),
            (Int.min, [], .negativeSectionCount(count: Int.min, space: .after)),
            (2, [4, -1], .negativeItemCount(section: 1, count: -1, space: .after)),
        ]
        for (sectionCount, counts, expected) in cases {
            source.sectionCount = sectionCount
            source.counts = counts
            view.reloadData()
            #expect(view.dataSourceError == expected)
            #expect(view.itemCounts == [2, 3])
            #expect(view.visibleElements == elements)
        }
    }

    @Test("performBatchUpdates rejects a negative count from the data source and keeps the view as it was")
    func batchRejectsNegativeCounts() throws {
        let (source, view) = Self.makeLoadedView(ListLayout())
        let elements = view.visibleElements
        let cases: [(sectionCount: Int, counts: [Int], items: [UpdateItem], expected: BatchValidationError)] = [
            (-1, [], [], .negativeSectionCount(count: -1, space: .after)),
            (-2, [], [.deleteSection(0), .deleteSection(1)], .negativeSectionCount(count: -2, space: .after)),
            (2, [-1, 3], [], .negativeItemCount(section: 0, count: -1, space: .after)),
            (2, [2, -1], [.deleteItem(at: IndexPath(item: 0, section: 1))], .negativeItemCount(section: 1, count: -1, space: .after)),
        ]
        for (sectionCount, counts, items, expected) in cases {
            source.sectionCount = sectionCount
            source.counts = counts
            #expect(throws: expected) { try view.performBatchUpdates(items) }
            #expect(view.itemCounts == [2, 3])
            #expect(view.visibleElements == elements)
        }
    }
}
