import Foundation
import Testing
import TesseraDiff
import TesseraLayout
import TesseraTestSupport
import TesseraView
import TesseraTestTraits

@Suite("View scenarios", .cpuBound)
struct ViewScenarioTests {
    /// A flow view with 100×100 items (three per 320-point line) and
    /// 30-point headers.
    func makeFlowView(_ snapshot: TestSnapshot, pinned: Bool = false) throws -> (CollectionView, DiffableDataSource<TestSection, TestItem>) {
        let layout = FlowLayout()
        layout.itemSize = Size(width: 100, height: 100)
        layout.headerReferenceSize = Size(width: 0, height: 30)
        layout.sectionHeadersPinToVisibleBounds = pinned
        let view = CollectionView(layout: layout, size: Size(width: 320, height: 300))
        let source = DiffableDataSource<TestSection, TestItem>(collectionView: view)
        try source.apply(snapshot, animated: false)
        return (view, source)
    }

    @Test("The article's example: inserting at the top of a flow inserts one and shifts the rest along the lines")
    func articleExample() throws {
        let (_, source) = try makeFlowView(TestSnapshot([0: Array(1...8)]))
        let plan = try source.apply(TestSnapshot([0: [0] + Array(1...8)]))
        let byID = Dictionary(uniqueKeysWithValues: plan.elements.compactMap { element in element.itemID.map { ($0, element) } })
        #expect(byID["0"]?.disposition == .insert)
        // Item 3 wraps from the end of line 1 to the start of line 2.
        #expect(byID["3"]?.disposition == .shift)
        #expect(byID["3"]?.from.frame.minY == 30 && byID["3"]?.to.frame.minY == 140 && byID["3"]?.to.frame.minX == 0)
        #expect(plan.elements.filter { $0.category == .cell && $0.disposition == .unchanged }.isEmpty)
        #expect(plan.elements.contains { $0.category == .supplementaryView(ElementKind.sectionHeader) && $0.disposition == .unchanged })
    }

    @Test("Scrolling with pinned headers: only the header moves")
    func pinnedScroll() throws {
        let (view, _) = try makeFlowView(TestSnapshot([0: Array(1...30)]), pinned: true)
        let plan = view.setBounds(Rect(x: 0, y: 50, width: 320, height: 300))
        let moving = plan.elements.filter { $0.from.frame != $0.to.frame }
        #expect(moving.count == 1 && moving.first?.category == .supplementaryView(ElementKind.sectionHeader))
        #expect(moving.first?.to.frame.minY == 50)
        #expect(plan.contentOffsetAfter.y == 50)
    }

    @Test("A layout transition moves every visible element from its old frame to its new one")
    func transition() throws {
        let (view, _) = try makeFlowView(TestSnapshot([0: [1, 2, 3, 4]]))
        let list = ListLayout()
        list.itemHeight = 50
        list.headerHeight = 30
        let plan = view.setCollectionViewLayout(list)
        let cells = plan.elements.filter { $0.category == .cell }
        #expect(cells.count == 4)
        #expect(cells.allSatisfy { $0.to.frame.width == 320 && $0.to.frame.height == 50 })
        #expect(cells.first { $0.indexPathAfter == IndexPath(item: 0, section: 0) }?.disposition == .shift)
        #expect(view.collectionViewLayout === list)
    }

    @Test("A changeset with a section moved while items move inside it is performed in one batch (Tessera's rules)")
    func sectionMoveWithItemChanges() throws {
        let (view, source) = try makeFlowView(TestSnapshot([10: [1, 2, 3], 20: [4, 5]]))
        let plan = try source.apply(TestSnapshot([20: [4, 1, 5], 10: [2, 3, 6]]))
        #expect(view.itemCounts == [3, 3])
        #expect(plan.elements.contains { $0.itemID == "6" && $0.disposition == .insert })
        #expect(plan.elements.contains { $0.itemID == "1" && $0.disposition == .move })
    }

    @Test("A failed apply keeps the data source's snapshot and the view unchanged")
    func failedApply() throws {
        let (view, source) = try makeFlowView(TestSnapshot([0: [1, 2]]))
        let before = source.snapshot
        #expect(throws: DiffError.self) { try source.apply(TestSnapshot([0: [1, 1]])) }
        #expect(source.snapshot == before && view.itemCounts == [2])
    }

    @Test("A UIKit-safe BatchUpdate runs as one plan per pass: the move, then the follow-up reload")
    func batchUpdatePasses() throws {
        let source = TestCountsSource(counts: [3])
        let layout = ListLayout()
        let view = CollectionView(layout: layout, size: Size(width: 320, height: 300))
        view.dataSource = source
        view.reloadData()
        let from = IndexPath(item: 0, section: 0)
        let to = IndexPath(item: 2, section: 0)
        let batch = BatchUpdate(Changeset(itemMoves: [Move(from: from, to: to)], itemUpdates: [Move(from: from, to: to)]), policy: .moveThenReload)
        let plans = try view.performBatchUpdates(batch)
        #expect(plans.count == 2)
        #expect(plans[0].elements.first { $0.indexPathBefore == from }?.disposition == .move)
        #expect(plans[1].elements.first { $0.indexPathAfter == to }?.disposition == .reload)
    }

    @Test("Headers of an inserted section are inserts, those of a deleted one deletes")
    func supplementaryInsertAndDelete() throws {
        let (_, source) = try makeFlowView(TestSnapshot([0: [1], 1: [2]]))
        let plan = try source.apply(TestSnapshot([0: [1], 2: [3]]))
        let headers = plan.elements.filter { $0.category == .supplementaryView(ElementKind.sectionHeader) }
        #expect(headers.contains { $0.indexPathBefore == IndexPath(item: 0, section: 1) && $0.disposition == .delete })
        #expect(headers.contains { $0.indexPathAfter == IndexPath(item: 0, section: 1) && $0.disposition == .insert })
    }
}

/// A data source with counts only.
final class TestCountsSource: CollectionViewDataSource {
    var counts: [Int]
    init(counts: [Int]) { self.counts = counts }
    func numberOfSections(in collectionView: CollectionView) -> Int { counts.count }
    func collectionView(_ collectionView: CollectionView, numberOfItemsInSection section: Int) -> Int { counts[section] }
}
