import Foundation
import Testing
import TesseraDiff
import TesseraLayout
import TesseraTestSupport
import TesseraView

/// A vertical grid of 40-point items (self-sizing when `estimated`), in a
/// 200 × 240 viewport, over a diffable data source whose items can be
/// reordered and whose fitted height depends on the item's id.
@MainActor
private func makeInteractionView(sections: KeyValuePairs<Int, [Int]>, selfSizing: Bool = false, horizontal: Bool = false) -> (CollectionView, DiffableDataSource<TestSection, TestItem>) {
    let layout = FlowLayout()
    if horizontal { layout.scrollDirection = .horizontal }
    layout.itemSize = Size(width: 40, height: 40)
    if selfSizing { layout.estimatedItemSize = Size(width: 40, height: 40) }
    let view = CollectionView(layout: layout, size: Size(width: 200, height: 240))
    let source = DiffableDataSource<TestSection, TestItem>(collectionView: view)
    source.reorderingHandlers.canReorderItem = { _ in true }
    source.fittedSize = { item, _ in interactionFittedSize(of: item) }
    _ = try? source.apply(TestSnapshot(sections), animated: false)
    view.reloadData()
    return (view, source)
}

/// The fitted size of an item: its height grows with its id and content.
func interactionFittedSize(of item: TestItem) -> Size {
    Size(width: 40, height: Double(20 + (item.id * 7 + item.content * 13) % 50))
}

/// Ten items, item 2 selected, while item 0 is dragged to where item 5 is.
@MainActor
private func makeViewDraggingPastASelection() throws -> (CollectionView, DiffableDataSource<TestSection, TestItem>) {
    let (view, source) = makeInteractionView(sections: [0: Array(0..<10)])
    try view.selectItem(at: IndexPath(item: 2, section: 0))
    try view.beginInteractiveMovementForItem(at: IndexPath(item: 0, section: 0))
    let target = try #require(view.collectionViewLayout.layoutAttributesForItem(at: IndexPath(item: 5, section: 0)))
    try view.updateInteractiveMovementTargetPosition(target.center)
    return (view, source)
}

/// The ids of the items the view shows selected, read through the order
/// it presents.
@MainActor
private func selectedIDs(_ view: CollectionView, _ source: DiffableDataSource<TestSection, TestItem>) -> [Int] {
    view.indexPathsForSelectedItems.map { source.snapshot[view.dataSourceIndexPath(forPresentedIndexPath: $0)].id }.sorted()
}

@MainActor
@Suite("Drags, selection and sizing while the data, the layout or the direction change")
struct InteractionDuringChangesTests {
    @Test func fittedSizesDuringADragAreAskedForThePresentedItem() throws {
        // Two sections of one row; dragging item 0 of section 0 to the end
        // of section 1 presents section 1 with one item more than the
        // data source has there.
        let (view, source) = makeInteractionView(sections: [0: Array(0..<5), 1: Array(10..<14)], selfSizing: true)
        let moving = IndexPath(item: 0, section: 0)
        try view.beginInteractiveMovementForItem(at: moving)
        let last = try #require(view.collectionViewLayout.layoutAttributesForItem(at: IndexPath(item: 3, section: 1)))
        try view.updateInteractiveMovementTargetPosition(Point(x: last.frame.maxX + 20, y: last.center.y))
        let target = try #require(view.indexPathForInteractivelyMovingItem)
        #expect(target[0] == 1)
        // Every item the view presents has its own fitted size.
        for section in 0..<view.numberOfSections {
            for item in 0..<view.numberOfItems(inSection: section) {
                let presented = IndexPath(item: item, section: section)
                let data = view.dataSourceIndexPath(forPresentedIndexPath: presented)
                let frame = try #require(view.collectionViewLayout.layoutAttributesForItem(at: presented)).frame
                #expect(frame.size == interactionFittedSize(of: source.snapshot[data]), "\(presented)")
            }
        }
        // Asking again for every presented item sizes each as itself (the
        // last item of section 1 is one past the data source's end).
        let all = (0..<view.numberOfSections).flatMap { s in (0..<view.numberOfItems(inSection: s)).map { IndexPath(item: $0, section: s) } }
        try view.invalidateItemSizes(at: all)
        for presented in all {
            let data = view.dataSourceIndexPath(forPresentedIndexPath: presented)
            let frame = try #require(view.collectionViewLayout.layoutAttributesForItem(at: presented)).frame
            #expect(frame.size == interactionFittedSize(of: source.snapshot[data]), "\(presented)")
        }
    }

    @Test func aBatchThatCancelsADragPutsTheSelectionBackInTheDataSourcesOrder() throws {
        let (view, source) = try makeViewDraggingPastASelection()
        #expect(view.indexPathForInteractivelyMovingItem == IndexPath(item: 5, section: 0))
        #expect(selectedIDs(view, source) == [2])
        // The data source did not change: an empty batch cancels the drag.
        let plan = try view.performBatchUpdates([])
        #expect(view.indexPathForInteractivelyMovingItem == nil)
        #expect(view.indexPathsForSelectedItems == [IndexPath(item: 2, section: 0)])
        #expect(source.selectedItemIDs == [2])
        let selectedInPlan = plan.elements.filter { $0.category == .cell && $0.isSelected }.compactMap(\.itemID)
        #expect(selectedInPlan == ["2"])
    }

    @Test func reloadDataDuringADragPutsTheSelectionBackInTheDataSourcesOrder() throws {
        let (view, source) = try makeViewDraggingPastASelection()
        view.reloadData()
        #expect(view.indexPathsForSelectedItems == [IndexPath(item: 2, section: 0)])
        #expect(source.selectedItemIDs == [2])
    }

    @Test func selectionByIDDuringADragNamesThePresentedItems() throws {
        let (view, source) = makeInteractionView(sections: [0: Array(0..<10)])
        try source.selectItem(withID: 2)
        try view.beginInteractiveMovementForItem(at: IndexPath(item: 0, section: 0))
        let target = try #require(view.collectionViewLayout.layoutAttributesForItem(at: IndexPath(item: 5, section: 0)))
        try view.updateInteractiveMovementTargetPosition(target.center)
        // Item 2 is presented at [0, 1] now.
        #expect(view.indexPathsForSelectedItems == [IndexPath(item: 1, section: 0)])
        #expect(source.selectedItemIDs == [2])
        view.allowsMultipleSelection = true
        try source.selectItem(withID: 7)
        #expect(view.isItemSelected(at: IndexPath(item: 7, section: 0)))
        #expect(source.selectedItemIDs == [2, 7])
        try source.deselectItem(withID: 2)
        #expect(source.selectedItemIDs == [7])
        try view.endInteractiveMovement()
        #expect(source.selectedItemIDs == [7])
    }


    @Test func aDirectionChangeThatMovesTheOffsetSizesTheItemsItBringsIntoView() throws {
        // A grid pushed up past its bottom edge (a bounce) until no item
        // shows: the direction change pulls the offset back, and the last
        // rows, never sized, come into view.
        let (view, source) = makeInteractionView(sections: [0: Array(0..<40)], selfSizing: true)
        view.setBounds(Rect(x: 0, y: view.contentSize.height + 10, width: 200, height: 240), animated: false)
        let plan = view.setLayoutDirection(.rightToLeft)
        #expect(view.bounds.maxY <= view.contentSize.height + 1e-9)
        for attributes in view.visibleElements where attributes.category == .cell {
            #expect(attributes.size == interactionFittedSize(of: source.snapshot[attributes.indexPath]), "\(attributes.indexPath)")
        }
        for element in plan.elements where element.category == .cell && element.to.frame.intersects(view.bounds) {
            let path = try #require(element.indexPathAfter)
            #expect(element.to.size == interactionFittedSize(of: source.snapshot[path]), "plan \(path)")
        }
    }

    @Test func anItemThatAChangesetMovesAndChangesIsSizedAgain() throws {
        let (view, source) = makeInteractionView(sections: [0: Array(0..<6)], selfSizing: true)
        var next = source.snapshot
        let moved = next.removeItem(at: IndexPath(item: 1, section: 0))
        next.insertItem(TestItem(id: moved.id, content: moved.content + 1), at: IndexPath(item: 4, section: 0))
        let plan = try source.apply(next)
        let element = try #require(plan.elements.first { $0.itemID == "\(moved.id)" })
        #expect(element.disposition == .move && element.contentChanged)
        let expected = interactionFittedSize(of: TestItem(id: moved.id, content: moved.content + 1))
        #expect(expected != interactionFittedSize(of: moved))
        #expect(element.to.size == expected)
        #expect(view.collectionViewLayout.layoutAttributesForItem(at: IndexPath(item: 4, section: 0))?.size == expected)
    }

    @Test func aDidSelectThatMovesTheTouchedItemStillEndsItsHighlight() throws {
        let (view, source) = makeInteractionView(sections: [0: Array(0..<10)])
        final class MoveToTop: CollectionViewDelegate {
            var apply: (IndexPath) -> Void = { _ in }
            var unhighlighted: [IndexPath] = []
            func collectionView(_ collectionView: CollectionView, didSelectItemAt indexPath: IndexPath) { apply(indexPath) }
            func collectionView(_ collectionView: CollectionView, didUnhighlightItemAt indexPath: IndexPath) { unhighlighted.append(indexPath) }
        }
        let delegate = MoveToTop()
        delegate.apply = { path in
            var next = source.snapshot
            let item = next.removeItem(at: path)
            next.insertItem(item, at: IndexPath(item: 0, section: 0))
            _ = try? source.apply(next)
        }
        view.delegate = delegate
        try view.tapItem(at: IndexPath(item: 5, section: 0))
        #expect(source.selectedItemIDs == [5])
        #expect(view.indexPathsForSelectedItems == [IndexPath(item: 0, section: 0)])
        #expect(view.indexPathsForHighlightedItems == [])
        #expect(delegate.unhighlighted == [IndexPath(item: 0, section: 0)])
    }

    @Test func aDataSourceThatAppliesItsReorderedSnapshotWhenTheDragEndsKeepsTheMove() throws {
        let (view, source) = makeInteractionView(sections: [0: Array(0..<10)], selfSizing: true)
        // Persisting the new order, then showing it again: an empty batch
        // while the view is ending the movement.
        source.reorderingHandlers.didReorder = { snapshot in _ = try? source.apply(snapshot) }
        try view.selectItem(at: IndexPath(item: 1, section: 0))
        try view.beginInteractiveMovementForItem(at: IndexPath(item: 1, section: 0))
        let target = try #require(view.collectionViewLayout.layoutAttributesForItem(at: IndexPath(item: 6, section: 0)))
        try view.updateInteractiveMovementTargetPosition(target.center)
        #expect(view.indexPathForInteractivelyMovingItem == IndexPath(item: 6, section: 0))
        try view.endInteractiveMovement()
        #expect(source.snapshot.items(inSection: 0).map(\.id) == [0, 2, 3, 4, 5, 6, 1, 7, 8, 9])
        #expect(source.selectedItemIDs == [1])
        #expect(view.indexPathsForSelectedItems == [IndexPath(item: 6, section: 0)])
        for attributes in view.visibleElements where attributes.category == .cell {
            #expect(attributes.size == interactionFittedSize(of: source.snapshot[attributes.indexPath]), "\(attributes.indexPath)")
        }
    }

    @Test func aBatchDuringADragThatDeletesItemsOnlyTheOrderBeforeItShowedMakesAPlan() throws {
        // Four 40-point items a row, rows 50 points apart: section 1 starts
        // on the fifth row, in view. Dragging its fifth item to the top of
        // section 0 pushes section 1's first row out of view.
        let (view, source) = makeInteractionView(sections: [0: Array(0..<16), 1: Array(100..<108)])
        try view.beginInteractiveMovementForItem(at: IndexPath(item: 4, section: 1))
        let top = try #require(view.collectionViewLayout.layoutAttributesForItem(at: IndexPath(item: 0, section: 0)))
        try view.updateInteractiveMovementTargetPosition(top.center)
        #expect(view.indexPathForInteractivelyMovingItem == IndexPath(item: 0, section: 0))
        let shown = Set(view.visibleElements.map(\.indexPath))
        #expect(!shown.contains(IndexPath(item: 3, section: 1)))
        // The data source deletes every item of section 1 but the dragged one.
        let next = TestSnapshot([0: Array(0..<16), 1: [104]])
        let plan = try source.apply(next)
        #expect(view.indexPathForInteractivelyMovingItem == nil)
        #expect(source.snapshot.items(inSection: 1).map(\.id) == [104])
        #expect(Set(plan.elements.map(\.view)).count == plan.elements.count)
        // Every item the plan shows after is the data source's.
        for element in plan.elements where element.category == .cell {
            guard let path = element.indexPathAfter else { continue }
            #expect(element.itemID == "\(source.snapshot[path].id)")
        }
    }

    @Test(arguments: [LayoutDirection.leftToRight, .rightToLeft])
    func resizingAnItemBeforeTheVisibleAreaOfAHorizontalRowKeepsTheVisibleItemsOnScreen(direction: LayoutDirection) throws {
        // One row of 40-point items, 10 apart; item 2 is far out of view
        // on the leading side when the view shows items 20 to 23.
        let (layout, view, source) = makeHorizontalRow(direction)
        let item20 = try #require(layout.layoutAttributesForItem(at: IndexPath(item: 20, section: 0)))
        view.setBounds(Rect(x: item20.frame.midX - 100, y: 0, width: 200, height: 40), animated: false)
        func onScreen() -> [IndexPath: Double] {
            Dictionary(uniqueKeysWithValues: view.visibleElements.filter { $0.category == .cell }.map { ($0.indexPath, $0.frame.minX - view.bounds.origin.x) })
        }
        let before = onScreen()
        source.fitted[0][2] = Size(width: 100, height: 40)
        try view.invalidateItemSizes(at: [IndexPath(item: 2, section: 0)], animated: false)
        #expect(layout.layoutAttributesForItem(at: IndexPath(item: 2, section: 0))?.size == Size(width: 100, height: 40))
        #expect(onScreen() == before, "\(direction)")
    }

    @Test func aDidDeselectThatAppliesASnapshotAtTheSameTimeLeavesItsPlanPlaying() throws {
        let (view, source) = makeInteractionView(sections: [0: Array(0..<10)])
        final class Reapply: CollectionViewDelegate {
            var onDeselect: () -> Void = {}
            func collectionView(_ collectionView: CollectionView, didDeselectItemAt indexPath: IndexPath) { onDeselect() }
        }
        let delegate = Reapply()
        view.delegate = delegate
        var nested: AnimationPlan?
        delegate.onDeselect = {
            // The app answers a deleted selection by removing item 9 too.
            var next = source.snapshot
            _ = next.removeItem(at: IndexPath(item: next.numberOfItems(inSection: 0) - 1, section: 0))
            nested = try? source.apply(next, at: 1.0)
        }
        try source.selectItem(withID: 3)
        _ = try source.apply(TestSnapshot([0: Array(0..<10)]), at: 0.9)
        // Deleting the selected item 3 at 1.0: the delegate hears of it and
        // applies another snapshot at the same time.
        let outer = try source.apply(TestSnapshot([0: [0, 1, 2, 4, 5, 6, 7, 8, 9]]), at: 1.0)
        let inner = try #require(nested)
        #expect(source.snapshot.items(inSection: 0).map(\.id) == [0, 1, 2, 4, 5, 6, 7, 8])
        #expect(outer.elements.count > 0)
        // The plan playing is the last one made, and its views are the ones shown.
        #expect(view.playingPlan?.plan == inner)
        let views = view.playingPlan.map { Set($0.plan.elements.filter { $0.indexPathAfter != nil && $0.disposition != .delete }.map(\.view)) }
        #expect(views?.count == view.visibleElements.count)
    }

    @Test func aTargetDelegateThatRunsABatchEndsTheDragInsteadOfBringingItBack() throws {
        let (view, source) = makeInteractionView(sections: [0: Array(0..<10)])
        final class Inserting: CollectionViewDelegate {
            var insert: () -> Void = {}
            func collectionView(_ collectionView: CollectionView, targetIndexPathForMoveOfItemFromOriginalIndexPath originalIndexPath: IndexPath, atCurrentIndexPath currentIndexPath: IndexPath, toProposedIndexPath proposedIndexPath: IndexPath) -> IndexPath {
                insert()
                return proposedIndexPath
            }
        }
        let delegate = Inserting()
        delegate.insert = {
            // New data arrives while the user drags: a new first item.
            var next = source.snapshot
            next.insertItem(TestItem(id: 50), at: IndexPath(item: 0, section: 0))
            _ = try? source.apply(next)
        }
        view.delegate = delegate
        try source.selectItem(withID: 2)
        try view.beginInteractiveMovementForItem(at: IndexPath(item: 0, section: 0))
        let target = try #require(view.collectionViewLayout.layoutAttributesForItem(at: IndexPath(item: 5, section: 0)))
        #expect(throws: InteractiveMovementError.self) { try view.updateInteractiveMovementTargetPosition(target.center) }
        #expect(view.indexPathForInteractivelyMovingItem == nil)
        #expect(view.itemCounts == [11])
        #expect(source.selectedItemIDs == [2])
        // The view goes on as usual.
        #expect(throws: InteractiveMovementError.self) { try view.endInteractiveMovement() }
        try view.beginInteractiveMovementForItem(at: IndexPath(item: 1, section: 0))
        delegate.insert = {}
        try view.updateInteractiveMovementTargetPosition(target.center)
        try view.endInteractiveMovement()
        #expect(view.itemCounts == [11])
        #expect(source.snapshot.items(inSection: 0).map(\.id) == [50, 1, 2, 3, 4, 0, 5, 6, 7, 8, 9])
    }

    @Test func aSnapshotAppliedAtATimeDuringADragStartsEachItemWhereThePlanPlayingHasIt() throws {
        let (view, source) = makeInteractionView(sections: [0: Array(0..<40)])
        try view.beginInteractiveMovementForItem(at: IndexPath(item: 0, section: 0))
        let target = try #require(view.collectionViewLayout.layoutAttributesForItem(at: IndexPath(item: 5, section: 0)))
        try view.updateInteractiveMovementTargetPosition(target.center)
        // A scroll plays while the user drags; new data arrives during it.
        try view.setBounds(Rect(x: 0, y: 30, width: 200, height: 240), at: 0)
        let playing = try #require(view.playingPlan)
        var shown: [String: Rect] = [:]
        for (element, attributes) in zip(playing.plan.elements, playing.attributes(at: 0.1)) where element.category == .cell {
            shown[try #require(element.itemID)] = attributes.frame
        }
        let plan = try source.apply(TestSnapshot([0: Array(0..<41)]), at: 0.1)
        #expect(view.indexPathForInteractivelyMovingItem == nil)
        var checked = 0
        for element in plan.elements where element.category == .cell && element.indexPathBefore != nil {
            guard let id = element.itemID, let frame = shown[id] else { continue }
            #expect(element.from.frame == frame, "item \(id)")
            checked += 1
        }
        #expect(checked > 10)
    }

    @Test(arguments: [0, 1, 2, 5])
    func resizingAVisibleItemOfAHorizontalRowRightToLeftMirrorsLeftToRight(offsetInItems: Int) throws {
        // The screen position of every visible item after a visible item
        // grows: right to left, the mirror image of left to right.
        func run(_ direction: LayoutDirection) throws -> [IndexPath: (minX: Double, maxX: Double)] {
            let (layout, view, source) = makeHorizontalRow(direction)
            let item = try #require(layout.layoutAttributesForItem(at: IndexPath(item: 20, section: 0)))
            // Item 20 at the leading edge of the view, moved by `offsetInItems` × 7 points.
            let leadingX = direction == .leftToRight ? item.frame.minX : item.frame.maxX - 200
            let shift = Double(offsetInItems * 7) * (direction == .leftToRight ? -1 : 1)
            view.setBounds(Rect(x: leadingX + shift, y: 0, width: 200, height: 40), animated: false)
            let first = try #require(view.visibleElements.filter { $0.category == .cell }.map(\.indexPath).min())
            source.fitted[0][first[1]] = Size(width: 100, height: 40)
            source.fitted[0][first[1] + 1] = Size(width: 70, height: 40)
            try view.invalidateItemSizes(at: [first, IndexPath(item: first[1] + 1, section: 0)], animated: false)
            var result: [IndexPath: (minX: Double, maxX: Double)] = [:]
            for attributes in view.visibleElements where attributes.category == .cell {
                let minX = attributes.frame.minX - view.bounds.origin.x
                let maxX = attributes.frame.maxX - view.bounds.origin.x
                result[attributes.indexPath] = direction == .leftToRight ? (minX, maxX) : (200 - maxX, 200 - minX)
            }
            return result
        }
        let ltr = try run(.leftToRight)
        let rtl = try run(.rightToLeft)
        #expect(Set(ltr.keys) == Set(rtl.keys))
        for (path, frame) in ltr {
            #expect(rtl[path]?.minX == frame.minX && rtl[path]?.maxX == frame.maxX, "\(path): \(frame) left to right, \(String(describing: rtl[path])) right to left mirrored")
        }
    }

    @Test func aCanMoveHandlerThatChangesTheDataRefusesTheMovementInsteadOfDraggingAnotherItem() throws {
        let (view, source) = makeInteractionView(sections: [0: Array(0..<10)])
        var asked: [Int] = []
        source.reorderingHandlers.canReorderItem = { item in
            asked.append(item.id)
            // New data arrives while the view asks: the last items go away.
            if source.snapshot.numberOfItems(inSection: 0) == 10 { _ = try? source.apply(TestSnapshot([0: Array(0..<5)])) }
            return true
        }
        #expect(throws: InteractiveMovementError.itemCannotMove(IndexPath(item: 8, section: 0))) {
            try view.beginInteractiveMovementForItem(at: IndexPath(item: 8, section: 0))
        }
        #expect(asked == [8])
        #expect(view.indexPathForInteractivelyMovingItem == nil)
        #expect(view.itemCounts == [5])
        // Asked again, with nothing changing, it begins.
        try view.beginInteractiveMovementForItem(at: IndexPath(item: 4, section: 0))
        #expect(view.indexPathForInteractivelyMovingItem == IndexPath(item: 4, section: 0))
    }

    @Test func aShouldSelectThatChangesTheDataSelectsTheTouchedItemWhereItIsNow() throws {
        let (view, source) = makeInteractionView(sections: [0: Array(0..<10)])
        let delegate = DataChangingDelegate()
        view.delegate = delegate
        // New data arrives while the delegate is asked: two items before the touched one.
        delegate.onShouldSelect = { _ = try? source.apply(TestSnapshot([0: [50, 51] + Array(0..<10)])) }
        try view.tapItem(at: IndexPath(item: 9, section: 0))
        #expect(source.selectedItemIDs == [9])
        #expect(view.indexPathsForSelectedItems == [IndexPath(item: 11, section: 0)])
        #expect(view.indexPathsForHighlightedItems == [])
        // Deleted while asked: nothing is selected.
        try view.deselectItem(at: IndexPath(item: 11, section: 0))
        delegate.onShouldSelect = { _ = try? source.apply(TestSnapshot([0: Array(0..<5)])) }
        try view.tapItem(at: IndexPath(item: 8, section: 0))
        #expect(view.indexPathsForSelectedItems == [])
        #expect(source.selectedItemIDs == [])
    }

    @Test func aShouldHighlightThatChangesTheDataHighlightsNothing() throws {
        let (view, source) = makeInteractionView(sections: [0: Array(0..<10)])
        let delegate = DataChangingDelegate()
        view.delegate = delegate
        delegate.onShouldHighlight = { _ = try? source.apply(TestSnapshot([0: Array(0..<5)])) }
        #expect(try view.beginTouch(at: IndexPath(item: 8, section: 0)) == false)
        #expect(view.indexPathsForHighlightedItems == [])
        #expect(try view.endTouch() == false)
        #expect(view.indexPathsForSelectedItems == [])
    }

    @Test func aDataSourceThatReloadsWhenTheDragEndsKeepsTheMove() throws {
        let (view, source) = makeInteractionView(sections: [0: Array(0..<10)])
        source.reorderingHandlers.didReorder = { _ in view.reloadData() }
        try view.selectItem(at: IndexPath(item: 1, section: 0))
        try view.beginInteractiveMovementForItem(at: IndexPath(item: 1, section: 0))
        let target = try #require(view.collectionViewLayout.layoutAttributesForItem(at: IndexPath(item: 6, section: 0)))
        try view.updateInteractiveMovementTargetPosition(target.center)
        let plan = try view.endInteractiveMovement()
        #expect(view.indexPathForInteractivelyMovingItem == nil)
        #expect(source.snapshot.items(inSection: 0).map(\.id) == [0, 2, 3, 4, 5, 6, 1, 7, 8, 9])
        #expect(source.selectedItemIDs == [1])
        #expect(plan.elements.allSatisfy { $0.indexPathBefore == $0.indexPathAfter })
        for element in plan.elements where element.category == .cell {
            #expect(element.itemID == "\(source.snapshot[try #require(element.indexPathAfter)].id)")
        }
    }
}

/// A delegate that says yes to selecting and highlighting, after running
/// what the test gives it (which may change the data while it is asked).
private final class DataChangingDelegate: CollectionViewDelegate {
    var onShouldSelect: () -> Void = {}
    var onShouldHighlight: () -> Void = {}

    func collectionView(_ collectionView: CollectionView, shouldSelectItemAt indexPath: IndexPath) -> Bool {
        onShouldSelect()
        return true
    }

    func collectionView(_ collectionView: CollectionView, shouldHighlightItemAt indexPath: IndexPath) -> Bool {
        onShouldHighlight()
        return true
    }
}

/// One horizontal row of fifty self-sizing items, 40 points square and 10
/// apart, in a view 200 wide and 40 tall, laid out in `direction`.
@MainActor
private func makeHorizontalRow(_ direction: LayoutDirection) -> (layout: FlowLayout, view: CollectionView, source: FittedSizeSource) {
    let layout = FlowLayout()
    layout.scrollDirection = .horizontal
    layout.itemSize = Size(width: 40, height: 40)
    layout.estimatedItemSize = Size(width: 40, height: 40)
    let view = CollectionView(layout: layout, size: Size(width: 200, height: 40))
    let source = FittedSizeSource(counts: [50], fitted: [Array(repeating: Size(width: 40, height: 40), count: 50)])
    view.dataSource = source
    view.reloadData()
    view.setLayoutDirection(direction, animated: false)
    return (layout, view, source)
}
