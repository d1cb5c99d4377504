import Foundation
import Testing
import TesseraDiff
import TesseraLayout
import TesseraTestSupport
import TesseraView
import TesseraTestTraits

/// Everything a refused call must leave as it was.
private struct ViewState: Equatable {
    var counts: [Int]
    var bounds: Rect
    var visible: [String]
    var moving: IndexPath?
    var original: IndexPath?
    var sections: [[Int]]

    init(_ view: CollectionView, _ source: MovableSource) {
        counts = view.itemCounts
        bounds = view.bounds
        visible = view.visibleElements.map { "\($0.category) \($0.indexPath) \($0.frame)" }
        moving = view.indexPathForInteractivelyMovingItem
        original = view.originalIndexPathForInteractivelyMovingItem
        sections = source.sections
    }
}

/// A delegate that keeps the moving item out of section 1.
private final class StayOutOfSectionOne: CollectionViewDelegate {
    func collectionView(
        _ collectionView: CollectionView,
        targetIndexPathForMoveOfItemFromOriginalIndexPath originalIndexPath: IndexPath,
        atCurrentIndexPath currentIndexPath: IndexPath,
        toProposedIndexPath proposedIndexPath: IndexPath
    ) -> IndexPath {
        proposedIndexPath[0] == 1 ? currentIndexPath : proposedIndexPath
    }
}

/// A list layout that records the movement contexts the view asks for.
private final class RecordingListLayout: ListLayout {
    var calls: [String] = []

    override func invalidationContext(
        forInteractivelyMovingItems targetIndexPaths: [IndexPath],
        withTargetPosition targetPosition: Point,
        previousIndexPaths: [IndexPath],
        previousPosition: Point
    ) -> InvalidationContext {
        calls.append("step \(previousIndexPaths) → \(targetIndexPaths) at (\(targetPosition.x), \(targetPosition.y))")
        return super.invalidationContext(forInteractivelyMovingItems: targetIndexPaths, withTargetPosition: targetPosition, previousIndexPaths: previousIndexPaths, previousPosition: previousPosition)
    }

    override func invalidationContextForEndingInteractiveMovementOfItems(toFinalIndexPaths indexPaths: [IndexPath], previousIndexPaths: [IndexPath], movementCancelled: Bool) -> InvalidationContext {
        calls.append("\(movementCancelled ? "cancel" : "end") \(previousIndexPaths) → \(indexPaths)")
        return super.invalidationContextForEndingInteractiveMovementOfItems(toFinalIndexPaths: indexPaths, previousIndexPaths: previousIndexPaths, movementCancelled: movementCancelled)
    }
}

@Suite("Interactive movement", .cpuBound)
struct InteractiveMovementTests {
    /// A list 300 wide and `height` tall, shown by a diffable data source:
    /// items 0 to 4 in section 0, items 5 to 7 in section 1.
    static func makeTwoSectionList(height: Double) throws -> (view: CollectionView, source: DiffableDataSource<TestSection, TestItem>) {
        let view = CollectionView(layout: ListLayout(), size: Size(width: 300, height: height))
        let source = DiffableDataSource<TestSection, TestItem>(collectionView: view)
        var snapshot = Snapshot<TestSection, TestItem>()
        snapshot.appendSection(TestSection(id: 0), items: (0..<5).map { TestItem(id: $0) })
        snapshot.appendSection(TestSection(id: 1), items: (5..<8).map { TestItem(id: $0) })
        try source.apply(snapshot, animated: false)
        return (view, source)
    }

    @Test("The view asks the layout for a context at every step and at the end, with the index paths and positions of the movement")
    func layoutContexts() throws {
        let layout = RecordingListLayout()
        layout.itemHeight = 60
        layout.interitemSpacing = 0
        let view = CollectionView(layout: layout, size: Size(width: 300, height: 400))
        let source = MovableSource(sections: [Array(0..<10)])
        view.dataSource = source
        view.reloadData()
        try view.beginInteractiveMovementForItem(at: IndexPath(item: 1, section: 0))
        try view.updateInteractiveMovementTargetPosition(Point(x: 10, y: 190))
        try view.updateInteractiveMovementTargetPosition(Point(x: 20, y: 200))
        try view.endInteractiveMovement()
        try view.beginInteractiveMovementForItem(at: IndexPath(item: 0, section: 0))
        try view.updateInteractiveMovementTargetPosition(Point(x: 10, y: 70))
        try view.cancelInteractiveMovement()
        #expect(layout.calls == [
            "step [[0, 1]] → [[0, 3]] at (10.0, 190.0)",
            "step [[0, 3]] → [[0, 3]] at (20.0, 200.0)",
            "end [[0, 1]] → [[0, 3]]",
            "step [[0, 0]] → [[0, 1]] at (10.0, 70.0)",
            "cancel [[0, 0]] → [[0, 0]]",
        ])
        #expect(source.sections[0] == [0, 2, 3, 1, 4, 5, 6, 7, 8, 9])
    }

    /// A list of 60-point rows in two sections, in a 300×400 view.
    static func makeView(_ sections: [[Int]] = [Array(0..<10), Array(10..<15)]) -> (CollectionView, MovableSource) {
        let layout = ListLayout()
        layout.itemHeight = 60
        layout.interitemSpacing = 0
        let view = CollectionView(layout: layout, size: Size(width: 300, height: 400))
        let source = MovableSource(sections: sections)
        view.dataSource = source
        view.reloadData()
        return (view, source)
    }

    @Test("Refused calls throw a typed error and leave the view, its layout, the data source and the movement as they were")
    func refusedCallsChangeNothing() throws {
        let (view, source) = Self.makeView()
        source.canMove = { $0 != IndexPath(item: 3, section: 0) }
        func expectRefused(_ expected: InteractiveMovementError, _ call: () throws(InteractiveMovementError) -> Void, sourceLocation: SourceLocation = #_sourceLocation) {
            let state = ViewState(view, source)
            #expect(throws: expected, sourceLocation: sourceLocation) { try call() }
            #expect(ViewState(view, source) == state, sourceLocation: sourceLocation)
        }
        let counts = view.itemCounts
        expectRefused(.noMovementInProgress(operation: "updateInteractiveMovementTargetPosition(_:)")) { () throws(InteractiveMovementError) in try view.updateInteractiveMovementTargetPosition(Point(x: 10, y: 10)) }
        expectRefused(.noMovementInProgress(operation: "endInteractiveMovement()")) { () throws(InteractiveMovementError) in try view.endInteractiveMovement() }
        expectRefused(.noMovementInProgress(operation: "cancelInteractiveMovement()")) { () throws(InteractiveMovementError) in try view.cancelInteractiveMovement() }
        for path in [IndexPath(item: 10, section: 0), IndexPath(item: -1, section: 0), IndexPath(item: 0, section: 2), IndexPath(index: 0), IndexPath()] {
            expectRefused(.indexPathOutOfRange(path, itemCounts: counts)) { () throws(InteractiveMovementError) in try view.beginInteractiveMovementForItem(at: path) }
        }
        expectRefused(.itemCannotMove(IndexPath(item: 3, section: 0))) { () throws(InteractiveMovementError) in try view.beginInteractiveMovementForItem(at: IndexPath(item: 3, section: 0)) }

        try view.beginInteractiveMovementForItem(at: IndexPath(item: 1, section: 0))
        try view.updateInteractiveMovementTargetPosition(Point(x: 150, y: 250))
        #expect(view.indexPathForInteractivelyMovingItem == IndexPath(item: 4, section: 0))
        expectRefused(.movementInProgress(IndexPath(item: 1, section: 0))) { () throws(InteractiveMovementError) in try view.beginInteractiveMovementForItem(at: IndexPath(item: 0, section: 0)) }
        for point in [Point(x: .nan, y: 10), Point(x: 10, y: .infinity), Point(x: -.infinity, y: .nan)] {
            // NaN equals nothing, so the case is matched by its pattern.
            let state = ViewState(view, source)
            #expect {
                try view.updateInteractiveMovementTargetPosition(point)
            } throws: { error in
                guard case let .positionNotFinite(reported) = error as? InteractiveMovementError else { return false }
                return reported.x.isNaN == point.x.isNaN && reported.y.isNaN == point.y.isNaN
            }
            #expect(ViewState(view, source) == state)
        }
        try view.endInteractiveMovement()
        #expect(source.sections[0] == [0, 2, 3, 4, 1, 5, 6, 7, 8, 9])
    }

    @Test("Without a data source, beginning is refused; the default data source refuses every item, as UIKit")
    func dataSourceRefuses() {
        final class Plain: CollectionViewDataSource {
            func numberOfSections(in collectionView: CollectionView) -> Int { 1 }
            func collectionView(_ collectionView: CollectionView, numberOfItemsInSection section: Int) -> Int { 3 }
        }
        let plain = Plain()
        let view = CollectionView(layout: ListLayout(), size: Size(width: 300, height: 400))
        view.dataSource = plain
        view.reloadData()
        #expect(throws: InteractiveMovementError.itemCannotMove(IndexPath(item: 0, section: 0))) { try view.beginInteractiveMovementForItem(at: IndexPath(item: 0, section: 0)) }
        view.dataSource = nil
        #expect(throws: InteractiveMovementError.noDataSource) { try view.beginInteractiveMovementForItem(at: IndexPath(item: 0, section: 0)) }
        withExtendedLifetime(plain) {}
    }

    @Test("A move into another section presents the counts moved, asks the data source nothing until the end, then moves the item once")
    func crossSectionMove() throws {
        let (view, source) = Self.makeView()
        try view.beginInteractiveMovementForItem(at: IndexPath(item: 0, section: 0))
        // Row 11 is item 1 of section 1.
        let plan = try view.updateInteractiveMovementTargetPosition(Point(x: 150, y: 11 * 60 + 30))
        #expect(view.indexPathForInteractivelyMovingItem == IndexPath(item: 1, section: 1))
        #expect(view.itemCounts == [9, 6])
        #expect(source.moves.isEmpty)
        #expect(view.dataSourceIndexPath(forPresentedIndexPath: IndexPath(item: 1, section: 1)) == IndexPath(item: 0, section: 0))
        #expect(view.dataSourceIndexPath(forPresentedIndexPath: IndexPath(item: 0, section: 0)) == IndexPath(item: 1, section: 0))
        #expect(view.presentedIndexPath(forDataSourceIndexPath: IndexPath(item: 1, section: 1)) == IndexPath(item: 2, section: 1))
        // The item follows the position, centred on it, and stays in the plan off screen.
        let moving = plan.elements.first { $0.indexPathAfter == IndexPath(item: 1, section: 1) }
        #expect(moving?.to.center == Point(x: 150, y: 11 * 60 + 30))
        #expect(moving?.itemID == "0")
        let ended = try view.endInteractiveMovement()
        #expect(source.moves.count == 1)
        #expect(source.moves.first?.from == IndexPath(item: 0, section: 0))
        #expect(source.moves.first?.to == IndexPath(item: 1, section: 1))
        #expect(source.sections == [Array(1..<10), [10, 0, 11, 12, 13, 14]])
        #expect(view.itemCounts == [9, 6])
        let settled = ended.elements.first { $0.itemID == "0" }
        #expect(settled?.to.frame == Rect(x: 0, y: 600, width: 300, height: 60))
    }

    @Test("Ending where the movement began does not call moveItemAt, as UIKit")
    func endInPlace() throws {
        let (view, source) = Self.makeView()
        try view.beginInteractiveMovementForItem(at: IndexPath(item: 2, section: 0))
        try view.updateInteractiveMovementTargetPosition(Point(x: 150, y: 300))
        try view.updateInteractiveMovementTargetPosition(Point(x: 150, y: 150))
        #expect(view.indexPathForInteractivelyMovingItem == IndexPath(item: 2, section: 0))
        try view.endInteractiveMovement()
        #expect(source.moves.isEmpty)
    }

    @Test("The delegate can change the target the layout proposes")
    func delegateChoosesTarget() throws {
        let (view, source) = Self.makeView()
        let delegate = StayOutOfSectionOne()
        view.delegate = delegate
        try view.beginInteractiveMovementForItem(at: IndexPath(item: 8, section: 0))
        try view.updateInteractiveMovementTargetPosition(Point(x: 150, y: 11 * 60 + 30))
        #expect(view.indexPathForInteractivelyMovingItem == IndexPath(item: 8, section: 0))
        try view.updateInteractiveMovementTargetPosition(Point(x: 150, y: 9 * 60 + 30))
        #expect(view.indexPathForInteractivelyMovingItem == IndexPath(item: 9, section: 0))
        try view.cancelInteractiveMovement()
        withExtendedLifetime((delegate, source)) {}
    }

    @Test("A data source whose counts disagree after the move makes ending throw; the view reloads from it and the movement is over")
    func countsMismatchReloads() throws {
        let (view, source) = Self.makeView()
        source.losesAnItemOnMove = true
        try view.beginInteractiveMovementForItem(at: IndexPath(item: 0, section: 0))
        try view.updateInteractiveMovementTargetPosition(Point(x: 150, y: 11 * 60 + 30))
        #expect(throws: InteractiveMovementError.dataSourceCountsMismatch(expected: [9, 6], actual: [8, 6])) { try view.endInteractiveMovement() }
        #expect(view.indexPathForInteractivelyMovingItem == nil)
        #expect(view.itemCounts == [8, 6])
        #expect(view.contentSize.height == 14 * 60)
    }

    @Test("reloadData and a batch update during a movement cancel it first, with no plan; the batch's plan starts from the data source's order")
    func reloadAndBatchCancel() throws {
        let (view, source) = Self.makeView()
        try view.beginInteractiveMovementForItem(at: IndexPath(item: 0, section: 0))
        try view.updateInteractiveMovementTargetPosition(Point(x: 150, y: 3 * 60 + 30))
        view.reloadData()
        #expect(view.indexPathForInteractivelyMovingItem == nil)
        #expect(view.layoutAttributesForInteractivelyMovingItem == nil)
        #expect(view.visibleElements.first?.frame == Rect(x: 0, y: 0, width: 300, height: 60))

        try view.beginInteractiveMovementForItem(at: IndexPath(item: 0, section: 0))
        try view.updateInteractiveMovementTargetPosition(Point(x: 150, y: 11 * 60 + 30))
        #expect(view.itemCounts == [9, 6])
        source.sections[0].insert(100, at: 0)
        let plan = try view.performBatchUpdates([.insertItem(at: IndexPath(item: 0, section: 0))])
        #expect(view.indexPathForInteractivelyMovingItem == nil)
        #expect(view.itemCounts == [11, 5])
        #expect(source.moves.isEmpty)
        // Item 0 was back at row 0 before the insert, and goes to row 1.
        let first = plan.elements.first { $0.itemID == "0" }
        #expect(first?.indexPathBefore == IndexPath(item: 0, section: 0))
        #expect(first?.to.frame == Rect(x: 0, y: 60, width: 300, height: 60))
        #expect(throws: InteractiveMovementError.noMovementInProgress(operation: "endInteractiveMovement()")) { try view.endInteractiveMovement() }
    }

    @Test("Scrolling and changing layouts during a drag keep it: items carry the ids of the presented order, and the moving item stays where it was shown")
    func boundsChangeDuringDrag() throws {
        let (view, source) = try Self.makeTwoSectionList(height: 100)
        source.reorderingHandlers.canReorderItem = { _ in true }
        try view.beginInteractiveMovementForItem(at: IndexPath(item: 0, section: 0))
        // Past the last row (7 rows of 36 points once the item has left section 0).
        let position = Point(x: 100, y: 7 * 36 + 30)
        try view.updateInteractiveMovementTargetPosition(position)
        try view.updateInteractiveMovementTargetPosition(position)
        #expect(view.indexPathForInteractivelyMovingItem == IndexPath(item: 3, section: 1))
        let shown = try #require(view.layoutAttributesForInteractivelyMovingItem)
        // The data source has 3 items in section 1; the view presents 4.
        let scrolled = view.setBounds(Rect(x: 0, y: 200, width: 300, height: 100))
        for element in scrolled.elements where element.category == .cell {
            let path = try #require(element.indexPathAfter)
            #expect(element.itemID == "\(source.snapshot[view.dataSourceIndexPath(forPresentedIndexPath: path)].id)")
        }
        let moving = try #require(scrolled.elements.first { $0.itemID == "0" })
        #expect(moving.from.frame == shown.frame)
        #expect(moving.to.frame == shown.frame)
        let layout = ListLayout()
        layout.itemHeight = 20
        let transition = view.setCollectionViewLayout(layout)
        let carried = try #require(transition.elements.first { $0.itemID == "0" })
        #expect(carried.to.center == position)
        #expect(carried.to.size == Size(width: 300, height: 20))
        try view.endInteractiveMovement()
        #expect(source.snapshot.items(inSection: 1).map(\.id) == [5, 6, 7, 0])
    }

    @Test("DiffableDataSource reorders only when canReorderItem allows it, moves the item in its snapshot and reports it")
    func diffableReordering() throws {
        let (view, source) = try Self.makeTwoSectionList(height: 400)
        #expect(throws: InteractiveMovementError.itemCannotMove(IndexPath(item: 0, section: 0))) { try view.beginInteractiveMovementForItem(at: IndexPath(item: 0, section: 0)) }
        var reported: Snapshot<TestSection, TestItem>?
        source.reorderingHandlers = .init(canReorderItem: { $0.id != 4 }, didReorder: { reported = $0 })
        #expect(throws: InteractiveMovementError.itemCannotMove(IndexPath(item: 4, section: 0))) { try view.beginInteractiveMovementForItem(at: IndexPath(item: 4, section: 0)) }
        try view.beginInteractiveMovementForItem(at: IndexPath(item: 1, section: 0))
        // ListLayout's default rows are 36 points: row 6 is item 1 of section 1.
        let plan = try view.updateInteractiveMovementTargetPosition(Point(x: 100, y: 6 * 36 + 18))
        #expect(view.indexPathForInteractivelyMovingItem == IndexPath(item: 1, section: 1))
        #expect(plan.elements.first { $0.indexPathAfter == IndexPath(item: 1, section: 1) }?.itemID == "1")
        try view.endInteractiveMovement()
        #expect(source.snapshot.items(inSection: 0).map(\.id) == [0, 2, 3, 4])
        #expect(source.snapshot.items(inSection: 1).map(\.id) == [5, 1, 6, 7])
        #expect(reported == source.snapshot)
        // The next snapshot diffs against the reordered one.
        var next = source.snapshot
        next.appendItems([TestItem(id: 9)], toSection: 1)
        try source.apply(next)
        #expect(view.itemCounts == [4, 5])
    }
}
