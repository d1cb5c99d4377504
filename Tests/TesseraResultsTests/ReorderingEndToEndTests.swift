import Foundation
import Testing
import Tessera
import TesseraResultsTestSupport
import TesseraTestSupport

// Reordering by drag, end to end: an SQLite file, a FetchedResultsController
// ordered by a position column, a ResultsDataSource with a reordering
// handler, a CollectionView dragged with begin/update/end. The handler
// writes the new order under performUserDrivenChange; the controller
// reports the commit from inside the handler (while the view is still
// ending the movement); the data source applies it once the item settled.

/// A row of `todo(id, grp, position, title)`, without its order columns
/// (the view does not show them, so rewriting them is no update).
struct DragTodo: FetchableRecord {
    var id: Int64
    var title: String

    init(row: Row) throws {
        id = row["id"].int64 ?? -1
        title = row["title"].string ?? ""
    }
}

/// Applies every report to a data source, as an app's delegate does, and
/// records whether the view was still ending a movement when it came.
final class DragDelegate: FetchedResultsControllerDelegate {
    var source: ResultsDataSource<FetchedResult<DragTodo>>?
    var plans: [AnimationPlan] = []
    var reports: [ChangeReport<DragTodo>] = []
    var duringMovement: [Bool] = []
    var errors: [any Error] = []

    func controller(_ controller: FetchedResultsController<DragTodo>, didChangeContentWith report: ChangeReport<DragTodo>) {
        reports.append(report)
        guard let source else { return }
        duringMovement.append(source.collectionView.indexPathForInteractivelyMovingItem != nil)
        do {
            plans.append(try source.apply(report))
        } catch {
            errors.append(error)
            source.reload(report.new)
        }
    }
}

@Suite("Reordering by drag, end to end")
struct ReorderingEndToEndTests {
    struct Fixture {
        let directory: URL
        let connection: Connection
        let other: Connection
        let controller: FetchedResultsController<DragTodo>
        let delegate: DragDelegate
        let source: ResultsDataSource<FetchedResult<DragTodo>>
        var view: CollectionView { source.collectionView }
        let sectioned: Bool
    }

    /// `todo` on a file with `counts[g]` rows in group `g`, a second
    /// connection on the same file, and the controller, data source and
    /// view, with the reordering handler that writes the order the view
    /// shows (and, when `concurrent` says so, lets the other connection
    /// commit first, inside the same window).
    static func makeFixture(counts: [Int], sectioned: Bool, concurrent: ((Connection) throws -> Void)? = nil) throws -> Fixture {
        let directory = try temporaryDirectory()
        let path = directory.appendingPathComponent("todo.sqlite").path
        let connection = try Connection(path: path)
        var id: Int64 = 1
        try connection.write { db in
            try db.execute("CREATE TABLE todo (id INTEGER PRIMARY KEY, grp INTEGER NOT NULL, position INTEGER NOT NULL, title TEXT NOT NULL)")
            for (group, count) in counts.enumerated() {
                for position in 0..<count {
                    try db.execute("INSERT INTO todo VALUES (?, ?, ?, ?)", [.integer(id), .integer(Int64(group)), .integer(Int64(position)), .text("todo \(id)")])
                    id += 1
                }
            }
        }
        let other = try Connection(path: path)
        let request = sectioned
            ? FetchRequest(table: "todo", sortKeys: [SortKey("grp"), SortKey("position")], sectionKey: "grp")
            : FetchRequest(table: "todo", sortKeys: [SortKey("position")])
        let controller = try FetchedResultsController<DragTodo>(connection: connection, request: request)
        try controller.performFetch()
        let layout = FlowLayout()
        layout.itemSize = Size(width: 60, height: 40)
        layout.headerReferenceSize = Size(width: 0, height: 20)
        let view = CollectionView(layout: layout, size: Size(width: 200, height: 600))
        let source = ResultsDataSource(collectionView: view, result: controller.result)
        let delegate = DragDelegate()
        delegate.source = source
        controller.delegate = delegate
        source.reorderingHandler = { [unowned controller] from, to, _ in
            try controller.performUserDrivenChange(.move(from: from, to: to)) {
                try concurrent?(other)
                let snapshot = controller.snapshot
                let shown = moved(grouped(snapshot), from: from, to: to)
                try connection.write { db in
                    for section in Set([from.section, to.section]) {
                        let group = sectioned ? snapshot[section: section].value.int64 ?? 0 : 0
                        for (position, todo) in shown[section].enumerated() {
                            try db.execute("UPDATE todo SET grp = ?, position = ? WHERE id = ?", [.integer(group), .integer(Int64(position)), .integer(todo.id)])
                        }
                    }
                }
            }
        }
        return Fixture(directory: directory, connection: connection, other: other, controller: controller, delegate: delegate, source: source, sectioned: sectioned)
    }

    /// The ids of each group as a fresh query orders them.
    static func fresh(_ connection: Connection, sectioned: Bool) throws -> [[Int64]] {
        let rows = try connection.read { db in try db.rows("SELECT grp, id FROM todo ORDER BY \(sectioned ? "grp, " : "")position, id") }
        guard sectioned else { return [rows.compactMap { $0[1].int64 }] }
        var groups: [Int64: [Int64]] = [:]
        for row in rows { groups[row[0].int64 ?? -1, default: []].append(row[1].int64 ?? -1) }
        return groups.keys.sorted().map { groups[$0] ?? [] }
    }

    /// The ids the view shows, section by section, as its data source
    /// identifies them.
    static func shown(_ fixture: Fixture) -> [[Int64]] {
        fixture.view.itemCounts.enumerated().map { section, count in
            (0..<count).map { Int64(fixture.source.collectionView(fixture.view, itemIdentifierAt: IndexPath(item: $0, section: section)) ?? "") ?? -1 }
        }
    }

    /// Drags the item at `from` to the centre of the item at `over`, and
    /// ends the drag through the data source. Returns the index path the
    /// view presented it at when dropped, and the plans.
    static func drag(_ fixture: Fixture, from: IndexPath, over: IndexPath) throws -> (target: IndexPath, plans: [AnimationPlan]) {
        let view = fixture.view
        try view.beginInteractiveMovementForItem(at: from)
        let centre = try #require(view.collectionViewLayout.layoutAttributesForItem(at: over)).center
        try view.updateInteractiveMovementTargetPosition(centre)
        let target = try #require(view.indexPathForInteractivelyMovingItem)
        return (target, try fixture.source.endInteractiveMovement())
    }

    @Test("A drag written under performUserDrivenChange: the report comes while the view ends the movement, waits, and is applied after; the view shows a fresh query's order, the dragged item is not moved again and stays selected")
    func flatDrag() throws {
        let fixture = try Self.makeFixture(counts: [9], sectioned: false)
        defer { try? FileManager.default.removeItem(at: fixture.directory) }
        let view = fixture.view
        let from = IndexPath(item: 1, section: 0)
        try view.selectItem(at: from)
        #expect(fixture.source.collectionView(view, canMoveItemAt: from))
        let (target, plans) = try Self.drag(fixture, from: from, over: IndexPath(item: 6, section: 0))
        #expect(target != from)
        #expect(fixture.source.reorderingError == nil)
        // The report came from inside the handler, while the view was
        // ending the movement, and waited.
        #expect(fixture.delegate.duringMovement == [true])
        #expect(fixture.delegate.plans.count == 1 && fixture.delegate.plans[0].elements.isEmpty)
        #expect(plans.count == 2)
        #expect(!fixture.source.hasDeferredReports)
        let report = try #require(fixture.delegate.reports.last)
        #expect(report.changeset.itemMoves.isEmpty)
        // The report's plan does not move the dragged item (id 2).
        for element in plans[1].elements where element.category == .cell && element.itemID == "2" {
            #expect(element.disposition != .move && element.indexPathBefore == element.indexPathAfter)
        }
        let expected = try Self.fresh(fixture.connection, sectioned: false)
        #expect(Self.shown(fixture) == expected)
        #expect(fixture.source.result.isSameState(as: fixture.controller.result))
        #expect(expected[0][target.item] == 2)
        #expect(view.indexPathsForSelectedItems == [target])
        // Another drag works the same way.
        let again = try Self.drag(fixture, from: IndexPath(item: 8, section: 0), over: IndexPath(item: 0, section: 0))
        #expect(again.plans.count == 2)
        #expect(Self.shown(fixture) == (try Self.fresh(fixture.connection, sectioned: false)))
    }

    @Test("A commit from another connection in the same window is animated by the report of the drag's write, and the dragged item is not moved again")
    func concurrentCommitIsAnimated() throws {
        let fixture = try Self.makeFixture(counts: [8], sectioned: false) { other in
            try other.write { db in
                try db.execute("INSERT INTO todo VALUES (100, 0, -1, 'from elsewhere')")
                try db.execute("UPDATE todo SET title = 'renamed' WHERE id = 7")
            }
        }
        defer { try? FileManager.default.removeItem(at: fixture.directory) }
        let (_, plans) = try Self.drag(fixture, from: IndexPath(item: 0, section: 0), over: IndexPath(item: 4, section: 0))
        #expect(plans.count == 2)
        let plan = plans[1]
        #expect(plan.elements.contains { $0.category == .cell && $0.itemID == "100" && $0.disposition == .insert })
        #expect(plan.elements.contains { $0.category == .cell && $0.itemID == "7" && $0.contentChanged })
        #expect(!plan.elements.contains { $0.category == .cell && $0.itemID == "1" && $0.disposition == .move })
        #expect(Self.shown(fixture) == (try Self.fresh(fixture.connection, sectioned: false)))
        #expect(fixture.delegate.errors.isEmpty)
    }

    @Test("A drag across sections changes the counts; the view ends showing a fresh query's groups, and selected items stay selected")
    func sectionedDrag() throws {
        let fixture = try Self.makeFixture(counts: [4, 3, 5], sectioned: true)
        defer { try? FileManager.default.removeItem(at: fixture.directory) }
        fixture.view.allowsMultipleSelection = true
        try fixture.view.selectItem(at: IndexPath(item: 1, section: 0))
        try fixture.view.selectItem(at: IndexPath(item: 0, section: 1))
        let (target, plans) = try Self.drag(fixture, from: IndexPath(item: 1, section: 0), over: IndexPath(item: 2, section: 2))
        #expect(target.section == 2)
        // The dragged item and the other selected one (id 5) keep their selection.
        #expect(Set(fixture.view.indexPathsForSelectedItems) == [target, IndexPath(item: 0, section: 1)])
        #expect(plans.count == 2)
        let expected = try Self.fresh(fixture.connection, sectioned: true)
        #expect(expected.map(\.count) == [3, 3, 6])
        #expect(fixture.view.itemCounts == [3, 3, 6])
        #expect(Self.shown(fixture) == expected)
        #expect(!plans[1].elements.contains { $0.category == .cell && $0.itemID == "2" && $0.disposition == .move })
        #expect(fixture.delegate.errors.isEmpty)
    }

    @Test("A handler that throws before declaring the move, or a write that rolls back, takes the item back where the result has it")
    func failedWriteMovesBack() throws {
        struct Refused: Error {}
        let fixture = try Self.makeFixture(counts: [6], sectioned: false)
        defer { try? FileManager.default.removeItem(at: fixture.directory) }
        let before = Self.shown(fixture)
        fixture.source.reorderingHandler = { _, _, _ in throw Refused() }
        let refused = try Self.drag(fixture, from: IndexPath(item: 0, section: 0), over: IndexPath(item: 4, section: 0))
        #expect(fixture.source.reorderingError is Refused)
        #expect(refused.plans.count == 2)
        #expect(refused.plans[1].elements.contains { $0.category == .cell && $0.itemID == "1" && $0.disposition == .move })
        #expect(Self.shown(fixture) == before)

        let controller = fixture.controller
        let connection = fixture.connection
        fixture.source.reorderingHandler = { from, to, _ in
            try controller.performUserDrivenChange(.move(from: from, to: to)) {
                try connection.write { db in
                    try db.execute("UPDATE todo SET position = 99 WHERE id = 1")
                    throw Refused()
                }
            }
        }
        let rolledBack = try Self.drag(fixture, from: IndexPath(item: 0, section: 0), over: IndexPath(item: 4, section: 0))
        #expect(fixture.source.reorderingError is Refused)
        #expect(rolledBack.plans.count == 2)
        #expect(rolledBack.plans[1].elements.contains { $0.category == .cell && $0.itemID == "1" && $0.disposition == .move })
        #expect(Self.shown(fixture) == before)
        #expect(fixture.delegate.errors.isEmpty)
        #expect(!fixture.source.hasDeferredReports)
    }

    @Test("Without a reordering handler no item can be moved; the view's own endInteractiveMovement leaves the reports waiting for applyDeferredReports")
    func noHandlerAndDirectEnd() throws {
        let fixture = try Self.makeFixture(counts: [5], sectioned: false)
        defer { try? FileManager.default.removeItem(at: fixture.directory) }
        let handler = fixture.source.reorderingHandler
        fixture.source.reorderingHandler = nil
        #expect(!fixture.source.collectionView(fixture.view, canMoveItemAt: IndexPath(item: 0, section: 0)))
        #expect(throws: InteractiveMovementError.itemCannotMove(IndexPath(item: 0, section: 0))) {
            try fixture.view.beginInteractiveMovementForItem(at: IndexPath(item: 0, section: 0))
        }
        fixture.source.reorderingHandler = handler
        try fixture.view.beginInteractiveMovementForItem(at: IndexPath(item: 0, section: 0))
        try fixture.view.updateInteractiveMovementTargetPosition(try #require(fixture.view.collectionViewLayout.layoutAttributesForItem(at: IndexPath(item: 3, section: 0))).center)
        try fixture.view.endInteractiveMovement()
        #expect(fixture.source.hasDeferredReports)
        // The view already shows the order written.
        #expect(Self.shown(fixture) == (try Self.fresh(fixture.connection, sectioned: false)))
        let plans = try fixture.source.applyDeferredReports()
        #expect(plans.count == 1)
        #expect(!fixture.source.hasDeferredReports)
        #expect(Self.shown(fixture) == (try Self.fresh(fixture.connection, sectioned: false)))
        #expect(fixture.source.result.isSameState(as: fixture.controller.result))
    }
}

extension ReorderingEndToEndTests {
    @Test("Reports read from a report sequence come after the drag ended: the data source shows the drop meanwhile, refuses another drag, and takes the report without moving the item again; the view ends at a fresh query")
    func reportSequenceConsumer() async throws {
        let fixture = try Self.makeFixture(counts: [4, 4], sectioned: true)
        defer { try? FileManager.default.removeItem(at: fixture.directory) }
        fixture.controller.delegate = nil
        var reports = fixture.controller.reports(bufferLimit: 8).makeAsyncIterator()
        let (target, plans) = try Self.drag(fixture, from: IndexPath(item: 0, section: 0), over: IndexPath(item: 1, section: 1))
        #expect(target.section == 1)
        #expect(plans.count == 1)
        #expect(fixture.source.hasDeferredReports)
        #expect(fixture.view.itemCounts == [3, 5])
        #expect(!fixture.source.collectionView(fixture.view, canMoveItemAt: IndexPath(item: 0, section: 0)))
        let expected = try Self.fresh(fixture.connection, sectioned: true)
        #expect(Self.shown(fixture) == expected)
        let report = try #require(await reports.next())
        #expect(report.userDrivenChange != nil)
        let plan = try fixture.source.apply(report)
        #expect(!plan.elements.contains { $0.category == .cell && $0.itemID == "1" && $0.disposition == .move })
        #expect(!fixture.source.hasDeferredReports)
        #expect(Self.shown(fixture) == expected)
        #expect(fixture.source.result.isSameState(as: fixture.controller.result))
    }
}

extension ReorderingEndToEndTests {
    @Test("A drag that empties a section: the report deletes the section the view emptied, and the view ends at a fresh query; the handler is given the dragged item's id")
    func dragEmptiesSection() throws {
        let fixture = try Self.makeFixture(counts: [1, 3], sectioned: true)
        defer { try? FileManager.default.removeItem(at: fixture.directory) }
        let write = try #require(fixture.source.reorderingHandler)
        var given: [Int64?] = []
        fixture.source.reorderingHandler = { from, to, id in
            given.append(id)
            try write(from, to, id)
        }
        let (target, plans) = try Self.drag(fixture, from: IndexPath(item: 0, section: 0), over: IndexPath(item: 1, section: 1))
        #expect(target.section == 1)
        #expect(given == [1])
        #expect(plans.count == 2)
        let report = try #require(fixture.delegate.reports.last)
        #expect(report.changeset.sectionDeletes == [0])
        let expected = try Self.fresh(fixture.connection, sectioned: true)
        #expect(fixture.view.itemCounts == [4])
        #expect(Self.shown(fixture) == expected)
        #expect(fixture.delegate.errors.isEmpty)
    }

    @Test("A MutableResultsController behind the data source: the handler's edits under performUserDrivenChange are reported when it returns, wait, and are applied once the item settled, without moving it again")
    func mutableControllerDrag() throws {
        final class Relay: MutableResultsControllerDelegate {
            var source: ResultsDataSource<Snapshot<KeyedSection<Int64>, DeckChip>>?
            var errors: [any Error] = []
            func controller(_ controller: MutableResultsController<Int64, DeckChip>, didChangeContentWith report: SnapshotReport<KeyedSection<Int64>, DeckChip>) {
                do { try source?.apply(report) } catch { errors.append(error) }
            }
        }
        let controller = MutableResultsController<Int64, DeckChip>(sectionKey: { $0.grp }, sectionOrder: { $0 < $1 }, itemOrder: { $0.position < $1.position })
        try controller.insert(contentsOf: (1...7).map { DeckChip(id: Int64($0), grp: 0, position: Int64($0), title: "chip \($0)") })
        let layout = FlowLayout()
        layout.itemSize = Size(width: 60, height: 40)
        let source = ResultsDataSource(collectionView: CollectionView(layout: layout, size: Size(width: 200, height: 400)), result: controller.snapshot)
        let relay = Relay()
        relay.source = source
        controller.delegate = relay
        source.reorderingHandler = { from, to, _ in
            var chips = Array(controller.snapshot.items(inSection: from.section))
            chips.insert(chips.remove(at: from.item), at: to.item)
            try controller.performUserDrivenChange(.move(from: from, to: to)) {
                for (position, chip) in chips.enumerated() where chip.position != Int64(position) {
                    var moved = chip
                    moved.position = Int64(position)
                    controller.didUpdate(moved)
                }
            }
        }
        let view = source.collectionView
        try view.beginInteractiveMovementForItem(at: IndexPath(item: 5, section: 0))
        try view.updateInteractiveMovementTargetPosition(try #require(view.collectionViewLayout.layoutAttributesForItem(at: IndexPath(item: 1, section: 0))).center)
        let plans = try source.endInteractiveMovement()
        #expect(plans.count == 2)
        #expect(relay.errors.isEmpty)
        #expect(!plans[1].elements.contains { $0.category == .cell && $0.itemID == "6" && $0.disposition == .move })
        #expect(source.result == controller.currentSnapshot)
        let shown = (0..<view.itemCounts[0]).map { source.collectionView(view, itemIdentifierAt: IndexPath(item: $0, section: 0)) ?? "" }
        #expect(shown == controller.currentSnapshot.allItems.map { "\($0.id)" })
        #expect(shown != (1...7).map { "\($0)" })
    }
}

extension ReorderingEndToEndTests {
    @Test("A selected item that another connection's commit, seen with the drag's write, takes out of its deleted section into another keeps its selection, as with a report that follows no user-driven change")
    func reinsertedItemKeepsSelection() throws {
        let fixture = try Self.makeFixture(counts: [1, 3, 2], sectioned: true) { other in
            try other.write { db in try db.execute("UPDATE todo SET grp = 2, position = 99 WHERE id = 1") }
        }
        defer { try? FileManager.default.removeItem(at: fixture.directory) }
        try fixture.view.selectItem(at: IndexPath(item: 0, section: 0))
        let (_, plans) = try Self.drag(fixture, from: IndexPath(item: 0, section: 1), over: IndexPath(item: 2, section: 1))
        #expect(plans.count == 2)
        let expected = try Self.fresh(fixture.connection, sectioned: true)
        #expect(Self.shown(fixture) == expected)
        let place = try #require(fixture.source.result.indexPath(ofItemWithID: 1))
        #expect(fixture.view.indexPathsForSelectedItems == [place])
    }
}
