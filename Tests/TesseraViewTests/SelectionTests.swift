import Foundation
import Testing
import TesseraDiff
import TesseraLayout
import TesseraTestSupport
import TesseraView
import TesseraTestTraits

@Suite("Selection and highlight", .cpuBound)
struct SelectionTests {
    /// A view showing sections of 10 and 5 items through a diffable data
    /// source, with a recording delegate.
    private static func makeView() throws -> (CollectionView, DiffableDataSource<TestSection, TestItem>, RecordingSelectionDelegate) {
        let view = makeSelectionTestView()
        let source = DiffableDataSource<TestSection, TestItem>(collectionView: view)
        try source.apply(TestSnapshot([100: Array(0..<10), 200: Array(10..<15)]), animated: false)
        let delegate = RecordingSelectionDelegate()
        view.delegate = delegate
        return (view, source, delegate)
    }

    private static func path(_ section: Int, _ item: Int) -> IndexPath { IndexPath(item: item, section: section) }

    @Test("A tap calls shouldHighlight, didHighlight, shouldSelect, didSelect, didUnhighlight in order; the item is highlighted only while touched")
    func tapOrder() throws {
        let (view, _, delegate) = try Self.makeView()
        #expect(try view.beginTouch(at: Self.path(0, 3)))
        #expect(view.indexPathsForHighlightedItems == [Self.path(0, 3)])
        #expect(view.visibleItemStates.first { $0.indexPath == Self.path(0, 3) }?.isHighlighted == true)
        #expect(delegate.calls == [.shouldHighlight(Self.path(0, 3)), .didHighlight(Self.path(0, 3))])
        #expect(try view.endTouch())
        #expect(delegate.calls == [
            .shouldHighlight(Self.path(0, 3)), .didHighlight(Self.path(0, 3)),
            .shouldSelect(Self.path(0, 3)), .didSelect(Self.path(0, 3)), .didUnhighlight(Self.path(0, 3)),
        ])
        #expect(view.indexPathsForHighlightedItems.isEmpty)
        #expect(view.indexPathsForSelectedItems == [Self.path(0, 3)])
    }

    @Test("Under single selection, tapping another item deselects the first: shouldSelect, didDeselect of the old, didSelect of the new")
    func singleSelectionTap() throws {
        let (view, _, delegate) = try Self.makeView()
        try view.tapItem(at: Self.path(0, 1))
        delegate.calls = []
        try view.tapItem(at: Self.path(1, 2))
        #expect(delegate.calls == [
            .shouldHighlight(Self.path(1, 2)), .didHighlight(Self.path(1, 2)),
            .shouldSelect(Self.path(1, 2)), .didDeselect(Self.path(0, 1)), .didSelect(Self.path(1, 2)),
            .didUnhighlight(Self.path(1, 2)),
        ])
        #expect(view.indexPathsForSelectedItems == [Self.path(1, 2)])
        // Tapping the selected item again selects it again, as UIKit does.
        delegate.calls = []
        #expect(try view.tapItem(at: Self.path(1, 2)) == false)
        #expect(delegate.calls.contains(.didSelect(Self.path(1, 2))))
        #expect(view.indexPathsForSelectedItems == [Self.path(1, 2)])
    }

    @Test("Under multiple selection, tapping a selected item asks shouldDeselect and deselects it; others stay")
    func multipleSelectionTap() throws {
        let (view, _, delegate) = try Self.makeView()
        view.allowsMultipleSelection = true
        try view.tapItem(at: Self.path(0, 1))
        try view.tapItem(at: Self.path(1, 0))
        #expect(view.indexPathsForSelectedItems == [Self.path(0, 1), Self.path(1, 0)])
        delegate.calls = []
        try view.tapItem(at: Self.path(0, 1))
        #expect(delegate.calls == [
            .shouldHighlight(Self.path(0, 1)), .didHighlight(Self.path(0, 1)),
            .shouldDeselect(Self.path(0, 1)), .didDeselect(Self.path(0, 1)), .didUnhighlight(Self.path(0, 1)),
        ])
        #expect(view.indexPathsForSelectedItems == [Self.path(1, 0)])
        delegate.allowsDeselect = false
        try view.tapItem(at: Self.path(1, 0))
        #expect(view.indexPathsForSelectedItems == [Self.path(1, 0)])
    }

    @Test("shouldSelect false leaves the selection alone but still ends the highlight; shouldHighlight false skips the whole selection")
    func delegateRefusals() throws {
        let (view, _, delegate) = try Self.makeView()
        delegate.allowsSelect = false
        #expect(try view.tapItem(at: Self.path(0, 2)) == false)
        #expect(delegate.calls == [.shouldHighlight(Self.path(0, 2)), .didHighlight(Self.path(0, 2)), .shouldSelect(Self.path(0, 2)), .didUnhighlight(Self.path(0, 2))])
        #expect(view.indexPathsForSelectedItems.isEmpty)
        delegate.calls = []
        delegate.allowsSelect = true
        delegate.allowsHighlight = false
        #expect(try view.beginTouch(at: Self.path(0, 2)) == false)
        #expect(view.indexPathsForHighlightedItems.isEmpty)
        #expect(try view.endTouch() == false)
        #expect(delegate.calls == [.shouldHighlight(Self.path(0, 2))])
        #expect(view.indexPathsForSelectedItems.isEmpty)
    }

    @Test("A cancelled touch only ends the highlight")
    func cancelledTouch() throws {
        let (view, _, delegate) = try Self.makeView()
        try view.beginTouch(at: Self.path(1, 4))
        #expect(try view.endTouch(selecting: false) == false)
        #expect(delegate.calls == [.shouldHighlight(Self.path(1, 4)), .didHighlight(Self.path(1, 4)), .didUnhighlight(Self.path(1, 4))])
        #expect(view.indexPathsForSelectedItems.isEmpty)
    }

    @Test("selectItem and deselectItem in code do not call the delegate; single selection keeps one item")
    func programmaticSelection() throws {
        let (view, _, delegate) = try Self.makeView()
        try view.selectItem(at: Self.path(0, 0))
        try view.selectItem(at: Self.path(0, 5))
        #expect(view.indexPathsForSelectedItems == [Self.path(0, 5)])
        view.allowsMultipleSelection = true
        try view.selectItem(at: Self.path(1, 1))
        try view.selectItem(at: Self.path(0, 1))
        try view.selectItem(at: Self.path(0, 1))
        #expect(view.indexPathsForSelectedItems == [Self.path(0, 1), Self.path(0, 5), Self.path(1, 1)])
        #expect(view.isItemSelected(at: Self.path(0, 5)))
        try view.deselectItem(at: Self.path(0, 5))
        try view.deselectItem(at: Self.path(0, 7))
        #expect(view.indexPathsForSelectedItems == [Self.path(0, 1), Self.path(1, 1)])
        #expect(delegate.calls.isEmpty)
    }

    @Test("Index paths out of range, selection not allowed and touches out of order are errors that name them, and change nothing")
    func badInput() throws {
        let (view, source, delegate) = try Self.makeView()
        view.allowsMultipleSelection = true
        try view.selectItem(at: Self.path(0, 1))
        let cases: [(IndexPath, SelectionError)] = [
            (Self.path(0, 10), .indexPathOutOfRange(indexPath: Self.path(0, 10), numberOfSections: 2, numberOfItems: 10)),
            (Self.path(1, -1), .indexPathOutOfRange(indexPath: Self.path(1, -1), numberOfSections: 2, numberOfItems: 5)),
            (Self.path(2, 0), .indexPathOutOfRange(indexPath: Self.path(2, 0), numberOfSections: 2, numberOfItems: nil)),
            (IndexPath(index: 0), .indexPathOutOfRange(indexPath: IndexPath(index: 0), numberOfSections: 2, numberOfItems: nil)),
        ]
        for (path, error) in cases {
            #expect(throws: error) { try view.selectItem(at: path) }
            #expect(throws: error) { try view.deselectItem(at: path) }
            #expect(throws: error) { try view.beginTouch(at: path) }
            #expect(throws: error) { try view.tapItem(at: path) }
        }
        #expect("\(SelectionError.indexPathOutOfRange(indexPath: Self.path(0, 10), numberOfSections: 2, numberOfItems: 10))".contains("[0, 10]"))
        #expect(throws: SelectionError.noTouchInProgress) { try view.endTouch() }
        try view.beginTouch(at: Self.path(0, 2))
        #expect(throws: SelectionError.touchInProgress(touchedIndexPath: Self.path(0, 2))) { try view.beginTouch(at: Self.path(0, 3)) }
        try view.endTouch(selecting: false)
        #expect(throws: SelectionError.unknownItemID("99")) { try source.selectItem(withID: 99) }
        #expect(throws: SelectionError.unknownItemID("99")) { try source.deselectItem(withID: 99) }
        #expect(view.indexPathsForSelectedItems == [Self.path(0, 1)])
        #expect(view.indexPathsForHighlightedItems.isEmpty)

        delegate.calls = []
        view.allowsSelection = false
        #expect(view.indexPathsForSelectedItems.isEmpty, "turning selection off deselects everything")
        #expect(throws: SelectionError.selectionNotAllowed(indexPath: Self.path(0, 1))) { try view.selectItem(at: Self.path(0, 1)) }
        #expect(throws: SelectionError.selectionNotAllowed(indexPath: Self.path(0, 1))) { try view.tapItem(at: Self.path(0, 1)) }
        #expect(throws: SelectionError.selectionNotAllowed(indexPath: Self.path(0, 1))) { try source.selectItem(withID: 1) }
        #expect(view.indexPathsForSelectedItems.isEmpty)
        #expect(delegate.calls.isEmpty)
    }

    @Test("A batch update moves the selection with its items, keeps reloaded items selected, and tells the delegate about the deleted ones after the update, at their old index paths")
    func batchUpdate() throws {
        let view = makeSelectionTestView()
        final class Source: CollectionViewDataSource {
            var counts = [10, 5]
            func numberOfSections(in collectionView: CollectionView) -> Int { counts.count }
            func collectionView(_ collectionView: CollectionView, numberOfItemsInSection section: Int) -> Int { counts[section] }
        }
        let source = Source()
        view.dataSource = source
        view.reloadData()
        final class Watcher: CollectionViewDelegate {
            var seen: [(IndexPath, [IndexPath], [Int])] = []
            func collectionView(_ collectionView: CollectionView, didDeselectItemAt indexPath: IndexPath) {
                seen.append((indexPath, collectionView.indexPathsForSelectedItems, collectionView.itemCounts))
            }
        }
        let watcher = Watcher()
        view.delegate = watcher
        view.allowsMultipleSelection = true
        for path in [Self.path(0, 1), Self.path(0, 4), Self.path(0, 6), Self.path(1, 0), Self.path(1, 3)] { try view.selectItem(at: path) }
        source.counts = [5, 7]
        let plan = try view.performBatchUpdates([
            .deleteItem(at: Self.path(0, 0)), .deleteItem(at: Self.path(0, 1)),
            .moveItem(from: Self.path(0, 4), to: Self.path(0, 0)),
            .reloadItem(at: Self.path(0, 6)),
            .deleteItem(at: Self.path(1, 3)),
            .moveSection(0, to: 1),
        ])
        // Old section 1 becomes section 0, loses item 3 and gains item 4 of
        // old section 0 at its start: its item 0 goes to [0, 1]. Old
        // section 0 becomes section 1 with items 2, 3, 5, 6, 7, 8, 9: the
        // reloaded item 6 goes to [1, 3].
        #expect(view.indexPathsForSelectedItems == [Self.path(0, 0), Self.path(0, 1), Self.path(1, 3)])
        #expect(watcher.seen.map(\.0) == [Self.path(0, 1), Self.path(1, 3)])
        #expect(watcher.seen.allSatisfy { $0.1 == view.indexPathsForSelectedItems && $0.2 == [5, 7] }, "the update is applied first")
        for element in plan.elements where element.category == .cell {
            if let after = element.indexPathAfter {
                #expect(element.isSelected == view.isItemSelected(at: after))
            } else {
                #expect(element.isSelected == [Self.path(0, 1), Self.path(1, 3)].contains(element.indexPathBefore!))
            }
        }
    }

    @Test("Bounds changes and layout transitions keep the selection and show it in their plans; reloadData keeps the index paths still in range")
    func boundsTransitionsAndReload() throws {
        let (view, source, _) = try Self.makeView()
        view.allowsMultipleSelection = true
        try view.selectItem(at: Self.path(0, 0))
        try view.selectItem(at: Self.path(1, 4))
        let scrolled = view.setBounds(Rect(origin: Point(x: 0, y: 40), size: view.bounds.size))
        let list = ListLayout()
        let transition = view.setCollectionViewLayout(list)
        for plan in [scrolled, transition] {
            let selectedCells = plan.elements.filter { $0.category == .cell && $0.isSelected }.compactMap(\.indexPathAfter)
            let expected = plan.elements.filter { $0.category == .cell }.compactMap(\.indexPathAfter).filter { view.isItemSelected(at: $0) }
            #expect(selectedCells == expected)
            #expect(!selectedCells.isEmpty)
        }
        #expect(view.indexPathsForSelectedItems == [Self.path(0, 0), Self.path(1, 4)])
        // reloadData: the section of 5 shrinks to 2, so [1, 4] names no item.
        try view.beginTouch(at: Self.path(0, 0))
        try source.apply(TestSnapshot([100: Array(0..<10), 200: [10, 11]]), animated: false)
        #expect(view.indexPathsForSelectedItems == [Self.path(0, 0)])
        view.reloadData()
        #expect(view.indexPathsForSelectedItems == [Self.path(0, 0)])
        #expect(view.indexPathsForHighlightedItems.isEmpty, "reloadData ends the highlight")
        #expect(try view.endTouch() == false, "and cancels the touch")
        #expect(view.indexPathsForSelectedItems == [Self.path(0, 0)])
    }

    @Test("A highlighted item deleted by a batch loses its highlight, the delegate hears didUnhighlight, and the touch ends without a selection")
    func highlightedItemDeleted() throws {
        let (view, source, delegate) = try Self.makeView()
        try view.beginTouch(at: Self.path(0, 3))
        delegate.calls = []
        try source.apply(TestSnapshot([100: [0, 1, 2, 4, 5, 6, 7, 8, 9], 200: Array(10..<15)]))
        #expect(view.indexPathsForHighlightedItems.isEmpty)
        #expect(delegate.calls == [.didUnhighlight(Self.path(0, 3))])
        delegate.calls = []
        #expect(try view.endTouch() == false)
        #expect(delegate.calls.isEmpty)
        #expect(view.indexPathsForSelectedItems.isEmpty)
    }

    @Test("A plan's element states round-trip through JSON; false states are not encoded, so a plan without them decodes")
    func codable() throws {
        let (view, source, _) = try Self.makeView()
        try view.selectItem(at: Self.path(0, 2))
        try view.beginTouch(at: Self.path(0, 4))
        let plan = try source.apply(TestSnapshot([100: [2, 0, 1, 3, 4, 5, 6, 7, 8, 9], 200: Array(10..<15)]))
        #expect(plan.elements.contains { $0.isSelected && $0.indexPathAfter == Self.path(0, 0) })
        #expect(plan.elements.contains { $0.isHighlighted && $0.indexPathAfter == Self.path(0, 4) })
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let data = try encoder.encode(plan)
        #expect(try JSONDecoder().decode(AnimationPlan.self, from: data) == plan)
        let text = String(decoding: data, as: UTF8.self)
        #expect(text.components(separatedBy: "\"isSelected\":true").count == 2)
        #expect(!text.contains("false,\"view\"") && !text.contains("\"isSelected\":false"))

        // A plan encoded before these states existed: the command's golden
        // output, kept in the repository.
        let fixture = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("TesseraCommandTests/Fixtures/diff/expected/photos-flow-json.txt")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: fixture)) as? [String: Any])
        let oldPlanData = try JSONSerialization.data(withJSONObject: try #require(object["plan"]), options: [.sortedKeys])
        #expect(!String(decoding: oldPlanData, as: UTF8.self).contains("isSelected"))
        let oldPlan = try JSONDecoder().decode(AnimationPlan.self, from: oldPlanData)
        #expect(!oldPlan.elements.isEmpty)
        #expect(oldPlan.elements.allSatisfy { !$0.isSelected && !$0.isHighlighted })
        #expect(try JSONDecoder().decode(AnimationPlan.self, from: encoder.encode(oldPlan)) == oldPlan)
    }
}
