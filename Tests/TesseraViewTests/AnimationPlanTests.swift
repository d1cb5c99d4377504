import Foundation
import Testing
import TesseraDiff
import TesseraLayout
import TesseraTestSupport
import TesseraView
import TesseraTestTraits

/// A list view of 40-point rows, 320×200 (five rows visible), with a data
/// source showing `snapshot`.
func makeListView(_ snapshot: TestSnapshot, anchoring: Bool = true) throws -> (CollectionView, DiffableDataSource<TestSection, TestItem>) {
    let layout = ListLayout()
    layout.itemHeight = 40
    layout.hugContents = true
    let view = CollectionView(layout: layout, size: Size(width: 320, height: 200))
    view.anchorsScrollPosition = anchoring
    let source = DiffableDataSource<TestSection, TestItem>(collectionView: view)
    try source.apply(snapshot, animated: false)
    return (view, source)
}

private func element(_ plan: AnimationPlan, itemID: Int) -> AnimationPlan.Element? {
    plan.elements.first { $0.itemID == "\(itemID)" }
}

@Suite("Animation plans: named cases", .cpuBound)
struct AnimationPlanTests {
    @Test("Insert at the top without anchoring: the new row fades in and visible rows shift down")
    func insertAtTopShifts() throws {
        let (view, source) = try makeListView(TestSnapshot([0: Array(1...10)]), anchoring: false)
        let plan = try source.apply(TestSnapshot([0: [0] + Array(1...10)]))
        let inserted = try #require(element(plan, itemID: 0))
        #expect(inserted.disposition == .insert && inserted.from.alpha == 0 && inserted.to.frame == Rect(x: 0, y: 0, width: 320, height: 40))
        let first = try #require(element(plan, itemID: 1))
        #expect(first.disposition == .shift && first.from.frame.minY == 0 && first.to.frame.minY == 40)
        // Row 5 (y 160..200) shifts out of view: it is in the plan, ending below.
        let leaving = try #require(element(plan, itemID: 5))
        #expect(leaving.disposition == .shift && leaving.to.frame.minY == 200 && leaving.indexPathAfter == IndexPath(item: 5, section: 0))
        #expect(plan.contentOffsetAfter == .zero)
        #expect(view.itemCounts == [11])
    }

    @Test("Insert above the viewport with anchoring: the offset moves so visible rows stay on screen")
    func insertAboveAnchored() throws {
        let (view, source) = try makeListView(TestSnapshot([0: Array(1...20)]))
        view.setBounds(Rect(x: 0, y: 200, width: 320, height: 200), animated: false)
        let plan = try source.apply(TestSnapshot([0: [0] + Array(1...20)]))
        #expect(plan.contentOffsetBefore.y == 200 && plan.contentOffsetAfter.y == 240)
        // Row 6 was first fully visible at y 200 (screen 0); it is now at 240 (screen 0 again).
        let anchor = try #require(element(plan, itemID: 6))
        #expect(anchor.from.frame.minY - plan.contentOffsetBefore.y == anchor.to.frame.minY - plan.contentOffsetAfter.y)
        #expect(element(plan, itemID: 0) == nil)
    }

    @Test("Delete: the row fades out where it was, the rows below shift up")
    func deleteFades() throws {
        let (_, source) = try makeListView(TestSnapshot([0: Array(1...10)]))
        let plan = try source.apply(TestSnapshot([0: [1, 3, 4, 5, 6, 7]]))
        let deleted = try #require(element(plan, itemID: 2))
        #expect(deleted.disposition == .delete && deleted.to.alpha == 0 && deleted.to.frame == deleted.from.frame)
        #expect(element(plan, itemID: 3)?.disposition == .shift)
        #expect(element(plan, itemID: 1)?.disposition == .unchanged)
        #expect(plan.recycledViews.contains(deleted.view))
    }

    @Test("Move within a section and across sections")
    func moves() throws {
        let (_, source) = try makeListView(TestSnapshot([0: [1, 2], 1: [3, 4]]))
        let plan = try source.apply(TestSnapshot([0: [2, 4], 1: [1, 3]]))
        let moved = plan.elements.filter { $0.disposition == .move }.compactMap(\.itemID).sorted()
        // 1 and 4 cross sections; 2 and 3 stay in theirs (their LIS).
        #expect(moved == ["1", "4"])
        for element in plan.elements where element.disposition == .move {
            #expect(element.indexPathBefore != nil && element.indexPathAfter != nil && element.from.alpha == 1)
        }
    }

    @Test("Reload: the row gets new content where it is")
    func reload() throws {
        let (_, source) = try makeListView(TestSnapshot([0: [1, 2, 3]]))
        var new = TestSnapshot([0: [1, 2, 3]])
        new[IndexPath(item: 1, section: 0)].content = 7
        let plan = try source.apply(new)
        let reloaded = try #require(element(plan, itemID: 2))
        #expect(reloaded.disposition == .reload && reloaded.contentChanged && reloaded.from.frame == reloaded.to.frame)
        #expect(plan.elements.filter { $0.disposition != .unchanged }.count == 1)
    }

    @Test("Section insert, delete and move")
    func sections() throws {
        let (_, source) = try makeListView(TestSnapshot([0: [1], 1: [2], 2: [3]]))
        let plan = try source.apply(TestSnapshot([2: [3], 0: [1], 3: [4]]))
        #expect(element(plan, itemID: 2)?.disposition == .delete)
        #expect(element(plan, itemID: 4)?.disposition == .insert)
        let moved = plan.elements.filter { $0.disposition == .move }
        #expect(moved.count == 1)
    }

    @Test("An update that scrolls the visible range: the offset is clamped to the shorter content")
    func updateScrolls() throws {
        let (view, source) = try makeListView(TestSnapshot([0: Array(1...20)]), anchoring: false)
        view.setBounds(Rect(x: 0, y: 600, width: 320, height: 200), animated: false)
        let plan = try source.apply(TestSnapshot([0: Array(1...8)]))
        #expect(plan.contentSizeAfter.height == 320)
        #expect(plan.contentOffsetAfter.y == 120)
        let visibleAfter = Set(plan.elements.compactMap(\.indexPathAfter).map(\.item))
        #expect(visibleAfter.isSuperset(of: [3, 4, 5, 6, 7]))
    }

    @Test("An invalid batch throws and leaves counts, layout and offset unchanged")
    func invalidBatch() throws {
        let (view, _) = try makeListView(TestSnapshot([0: Array(1...10)]))
        view.setBounds(Rect(x: 0, y: 40, width: 320, height: 200), animated: false)
        let visible = view.visibleElements
        let counts = view.itemCounts
        #expect(throws: BatchValidationError.self) {
            try view.performBatchUpdates([.deleteItem(at: IndexPath(item: 30, section: 0))])
        }
        #expect(view.itemCounts == counts && view.bounds.origin.y == 40 && view.visibleElements == visible)
    }

    @Test("Views are reused: a view recycled by one plan is dequeued by a later one")
    func viewReuse() throws {
        let (view, source) = try makeListView(TestSnapshot([0: Array(1...10)]))
        let scrolled = view.setBounds(Rect(x: 0, y: 200, width: 320, height: 200))
        #expect(!scrolled.recycledViews.isEmpty)
        let back = view.setBounds(Rect(x: 0, y: 0, width: 320, height: 200))
        #expect(!back.dequeuedViews.isEmpty && Set(back.dequeuedViews).isSubset(of: Set(scrolled.recycledViews)))
        _ = source
    }

    @Test("A plan interpolates along its timing and round-trips through JSON")
    func interpolationAndCoding() throws {
        let (_, source) = try makeListView(TestSnapshot([0: [1, 2, 3]]), anchoring: false)
        let plan = try source.apply(TestSnapshot([0: [0, 1, 2, 3]]))
        let halfway = plan.attributes(at: 0.5)
        let index = try #require(plan.elements.firstIndex { $0.itemID == "1" })
        #expect(halfway[index].frame.minY == 20)
        #expect(plan.attributes(at: 1).map(\.frame) == plan.elements.map(\.to.frame))
        let data = try JSONEncoder().encode(plan)
        #expect(try JSONDecoder().decode(AnimationPlan.self, from: data) == plan)
    }

    @Test("Spring timing ends exactly at 1 and overshoots when underdamped")
    func springTiming() {
        let spring = AnimationTiming.spring(dampingRatio: 0.4, response: 0.3)
        let samples = (0...100).map { spring.fraction(at: Double($0) / 100, duration: 0.6) }
        #expect(samples.first == 0 && samples.last == 1 && samples.contains { $0 > 1 })
        #expect(AnimationTiming.easeInOut.fraction(at: 0.5, duration: 1) == 0.5)
        #expect(AnimationTiming.spring(dampingRatio: 1, response: 0.3).fraction(at: 0.5, duration: 0.6) < 1)
    }
}
