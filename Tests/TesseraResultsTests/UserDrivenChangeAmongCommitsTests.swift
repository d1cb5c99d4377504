import Foundation
import Testing
import Tessera
import TesseraResultsTestSupport
import TesseraTestSupport
import TesseraTestTraits

// User-driven changes under pressure: reports made while `write` runs
// (the delegate is called from inside it), other connections' commits
// before and after the write, several changes declared before a data
// source applies the first report, report sequences that merge, lazy and
// sectioned results, rollbacks and writes that throw, an actor-isolated
// controller. Every report must replay from the state the view shows
// (the result before it, with the declared change) to a fresh query.

/// Records every report with what the controller said while it was made.
final class UserChangeLog: FetchedResultsControllerDelegate {
    var reports: [ChangeReport<DeckCard>] = []
    /// Whether each report was made inside `performUserDrivenChange`.
    var insideChange: [Bool] = []
    weak var controller: FetchedResultsController<DeckCard>?
    var errors: [ResultsError] = []

    func controller(_ controller: FetchedResultsController<DeckCard>, didChangeContentWith report: ChangeReport<DeckCard>) {
        reports.append(report)
        insideChange.append(controller.isPerformingUserDrivenChange)
    }

    func controller(_ controller: FetchedResultsController<DeckCard>, didFailWith error: ResultsError) { errors.append(error) }
}

struct WriteFailed: Error {}

@Suite("User-driven changes among other commits: the delegate, report sequences, actor homes, moves the view did not make")
struct UserDrivenChangeAmongCommitsTests {
    /// Replays reports on the state the view shows: each user-driven one
    /// from its result before the change with the change applied by hand.
    /// Returns the state reached, or records an issue naming the report.
    ///
    /// A lazily fetched result reads its records as they are now, so
    /// there only sections and ids are compared (`byID`).
    static func replay(_ reports: [ChangeReport<DeckCard>], from start: Snapshot<ResultSection, DeckCard>, byID: Bool = false, seed: UInt64) throws -> Snapshot<ResultSection, DeckCard> {
        func same(_ a: Snapshot<ResultSection, DeckCard>, _ b: Snapshot<ResultSection, DeckCard>) -> Bool {
            guard byID else { return a == b }
            return a.sections == b.sections && grouped(a).map { $0.map(\.id) } == grouped(b).map { $0.map(\.id) }
        }
        var shown = start
        for (index, report) in reports.enumerated() {
            if let base = report.resultBeforeUserDrivenChange, let change = report.userDrivenChange {
                #expect(same(base.snapshot, shown), "report \(index) starts from another state before the change (seed \(seed))")
                shown = applyingByHand(change, to: shown)
            }
            #expect(same(report.oldSnapshot, shown), "report \(index) does not start from the state shown (seed \(seed))")
            shown = try shown.applying(report.changeset, takingValuesFrom: report.newSnapshot)
            #expect(same(shown, report.newSnapshot), "report \(index) does not replay to its result (seed \(seed))")
        }
        return shown
    }

    @Test("Seeded: agreed, disagreeing, rolled-back, throwing, empty and double writes, with other connections' commits before and after, declared before the data source applied the reports before; every report replays from the state shown to a fresh query, and the data source ends at it", .cpuBound, arguments: [
        (false, false), (true, false), (false, true), (true, true),
    ])
    func seededOracle(sectioned: Bool, lazy: Bool) throws {
        let seed = testSeed(default: 0x2EB1_E3D0) &+ (sectioned ? 1 : 0) &+ (lazy ? 2 : 0)
        var generator = SplitMix64(seed: seed)
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("cards.sqlite").path
        let connection = try Connection(path: path)
        var nextID: Int64 = 1
        try connection.write { db in
            try db.execute(UserDrivenChangeTests.schema)
            for _ in 0..<14 {
                try db.execute("INSERT INTO card VALUES (?, ?, ?, ?)", [.integer(nextID), .integer(Int64.random(in: 0..<3, using: &generator)), .integer(nextID), .text("card \(nextID)")])
                nextID += 1
            }
        }
        let other = try Connection(path: path)
        let controller = try FetchedResultsController<DeckCard>(connection: connection, request: UserDrivenChangeTests.request(sectioned: sectioned, lazy: lazy))
        let log = UserChangeLog()
        controller.delegate = log
        try controller.performFetch()
        let source = ResultsDataSource(collectionView: UserDrivenChangeTests.makeView(), result: controller.result)
        var shown = controller.snapshot
        var applied = 0

        for step in 0..<40 {
            let snapshot = controller.snapshot
            let counts = (0..<snapshot.numberOfSections).map { snapshot.numberOfItems(inSection: $0) }
            guard let (from, to) = randomMove(counts: counts, sectioned: sectioned, using: &generator) else { break }
            let groups = (0..<snapshot.numberOfSections).map { snapshot[section: $0].value.int64 ?? 0 }
            let reordered = moved(grouped(snapshot), from: from, to: to)
            let affected: Set<Int> = [from.section, to.section]
            let dragged = snapshot.item(at: from)?.id
            let action = Int.random(in: 0..<8, using: &generator)
            let before = log.reports.count
            let context = "step \(step), action \(action), move \(Array(from)) → \(Array(to)) (seed \(seed))"
            do {
                try controller.performUserDrivenChange(.move(from: from, to: to)) {
                    switch action {
                    case 0: // agreed
                        try connection.write { db in try UserDrivenChangeTests.rewrite(db, reordered, groups: groups, only: affected, sectioned: sectioned) }
                    case 1: // another connection commits first, inside the write
                        try other.write { db in try UserDrivenChangeTests.otherChanges(db, spared: dragged, nextID: &nextID, using: &generator) }
                        try connection.write { db in try UserDrivenChangeTests.rewrite(db, reordered, groups: groups, only: affected, sectioned: sectioned) }
                    case 2: // another connection commits after the write, inside it
                        try connection.write { db in try UserDrivenChangeTests.rewrite(db, reordered, groups: groups, only: affected, sectioned: sectioned) }
                        try other.write { db in try UserDrivenChangeTests.otherChanges(db, spared: dragged, nextID: &nextID, using: &generator) }
                    case 3: // the database puts it elsewhere
                        let elsewhere = randomDestination(counts: counts, from: from, sectioned: sectioned, using: &generator)
                        let written = moved(grouped(snapshot), from: from, to: elsewhere)
                        try connection.write { db in try UserDrivenChangeTests.rewrite(db, written, groups: groups, only: [from.section, elsewhere.section], sectioned: sectioned) }
                    case 4: // rolled back
                        try connection.write { db in
                            try UserDrivenChangeTests.rewrite(db, reordered, groups: groups, only: affected, sectioned: sectioned)
                            throw Rollback()
                        }
                    case 5: // committed, then the write throws
                        try connection.write { db in try UserDrivenChangeTests.rewrite(db, reordered, groups: groups, only: affected, sectioned: sectioned) }
                        throw WriteFailed()
                    case 6: // nothing written
                        break
                    default: // two commits
                        try connection.write { db in try UserDrivenChangeTests.rewrite(db, reordered, groups: groups, only: affected, sectioned: sectioned) }
                        try connection.write { db in try UserDrivenChangeTests.otherChanges(db, spared: dragged, nextID: &nextID, using: &generator) }
                    }
                }
            } catch is Rollback {
                #expect(action == 4, "\(context)")
            } catch is WriteFailed {
                #expect(action == 5, "\(context)")
            }
            _ = try controller.checkForExternalChanges()
            #expect(log.errors.isEmpty, "\(context)")
            let made = Array(log.reports[before...])
            // The first report after the declaration follows it, and is made
            // inside performUserDrivenChange.
            if let first = made.first {
                #expect(first.userDrivenChange != nil, "\(context)")
                // A report after a commit is made inside; the way back when
                // nothing committed is made once the change is over.
                if [0, 1, 2, 5, 7].contains(action) { #expect(log.insideChange[before], "\(context)") }
            }
            #expect(made.dropFirst().allSatisfy { $0.userDrivenChange == nil }, "\(context)")
            // An agreed move is not reported as a move of the dragged item.
            if [0, 1, 2, 5, 7].contains(action), let first = made.first {
                #expect(!first.changeset.itemMoves.contains { $0.from == to }, "\(context): \(first.changeset)")
            }
            shown = try Self.replay(made, from: shown, byID: lazy, seed: seed)
            let fresh = try UserDrivenChangeTests.fresh(connection, sectioned: sectioned)
            #expect(grouped(shown).map { $0.map(\.id) } == fresh.map { $0.map(\.id) }.filter { sectioned || !$0.isEmpty } || fresh.isEmpty, "\(context)")
            // The data source applies the reports now, or later with the
            // next step's (declared before it applied these).
            if Bool.random(using: &generator) || step == 39 {
                for report in log.reports[applied...] { try source.apply(report) }
                applied = log.reports.count
                #expect(source.result.isSameState(as: controller.result), "\(context)")
                #expect(source.collectionView.itemCounts == (0..<controller.result.numberOfSections).map { controller.result.numberOfItems(inSection: $0) }, "\(context)")
            }
        }
    }

    @Test("The delegate hears a commit made on the controller's connection from inside write, from the state shown, and one made on another connection after write returns, still inside performUserDrivenChange; a nested declaration from the delegate throws")
    func reentrantDelegate() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("cards.sqlite").path
        let connection = try Connection(path: path)
        try connection.write { db in
            try db.execute(UserDrivenChangeTests.schema)
            for id in 1...5 { try db.execute("INSERT INTO card VALUES (?, 0, ?, ?)", [.integer(Int64(id)), .integer(Int64(id)), .text("card \(id)")]) }
        }
        let other = try Connection(path: path)
        let controller = try FetchedResultsController<DeckCard>(connection: connection, request: UserDrivenChangeTests.request(sectioned: false, lazy: false))
        let log = UserChangeLog()
        controller.delegate = log
        try controller.performFetch()

        var seenInsideWrite = 0
        try controller.performUserDrivenChange(.move(from: IndexPath(item: 0, section: 0), to: IndexPath(item: 4, section: 0))) {
            try connection.write { db in try UserDrivenChangeCaseTests.writeOrder([2, 3, 4, 5, 1], db) }
            seenInsideWrite = log.reports.count
            #expect(throws: UserDrivenChangeError.nested) {
                try controller.performUserDrivenChange(.move(from: IndexPath(item: 0, section: 0), to: IndexPath(item: 1, section: 0))) {}
            }
        }
        #expect(seenInsideWrite == 1)
        #expect(log.reports[0].oldSnapshot.allItems.map(\.id) == [2, 3, 4, 5, 1])

        try controller.performUserDrivenChange(.move(from: IndexPath(item: 4, section: 0), to: IndexPath(item: 0, section: 0))) {
            try other.write { db in try UserDrivenChangeCaseTests.writeOrder([1, 2, 3, 4, 5], db) }
            seenInsideWrite = log.reports.count
        }
        #expect(seenInsideWrite == 1)
        #expect(log.reports.count == 2 && log.insideChange == [true, true])
        #expect(log.reports[1].oldSnapshot.allItems.map(\.id) == [1, 2, 3, 4, 5])
        #expect(log.reports[1].changeset.itemMoves.isEmpty)
        #expect(controller.snapshot.allItems.map(\.id) == [1, 2, 3, 4, 5])
    }

    @Test("A report sequence that falls behind across two user-driven changes and other commits: merged reports replay from the state shown to the result")
    func sequenceMergesAcrossChanges() async throws {
        let (connection, controller, _) = try UserDrivenChangeCaseTests.makeCards()
        let initial = controller.snapshot
        var iterator = controller.reports(bufferLimit: 1).makeAsyncIterator()
        try controller.performUserDrivenChange(.move(from: IndexPath(item: 0, section: 0), to: IndexPath(item: 2, section: 0))) {
            try connection.write { db in try UserDrivenChangeCaseTests.writeOrder([2, 3, 1, 4, 5, 6], db) }
        }
        try connection.write { db in try db.execute("UPDATE card SET title = 'x' WHERE id = 5") }
        try controller.performUserDrivenChange(.move(from: IndexPath(item: 5, section: 0), to: IndexPath(item: 0, section: 0))) {
            try connection.write { db in try UserDrivenChangeCaseTests.writeOrder([6, 2, 3, 1, 4, 5], db) }
        }
        try connection.write { db in try db.execute("DELETE FROM card WHERE id = 4") }
        var reports: [ChangeReport<DeckCard>] = []
        while reports.last.map({ !$0.new.isSameState(as: controller.result) }) ?? true {
            reports.append(try #require(await iterator.next()))
        }
        let end = try Self.replay(reports, from: initial, seed: 0)
        #expect(end == controller.snapshot)
        #expect(reports.filter { $0.userDrivenChange != nil }.count == 2)
    }
}

/// A list whose controller, data source and view live on an actor.
actor DraggableList {
    let connection: Connection
    let controller: FetchedResultsController<DragTodo>
    let delegate = DragDelegate()
    var source: ResultsDataSource<FetchedResult<DragTodo>>?

    init(path: String) throws {
        connection = try Connection(path: path)
        controller = try FetchedResultsController<DragTodo>(connection: connection, request: FetchRequest(table: "todo", sortKeys: [SortKey("position")]))
    }

    /// Shows the list and lets its items be dragged.
    func open() throws {
        try controller.performFetch()
        let layout = FlowLayout()
        layout.itemSize = Size(width: 60, height: 40)
        let source = ResultsDataSource(collectionView: CollectionView(layout: layout, size: Size(width: 200, height: 400)), result: controller.result)
        delegate.source = source
        controller.delegate = delegate
        let controller = controller
        let connection = connection
        source.reorderingHandler = { from, to, _ in
            var ids = controller.snapshot.allItems.map(\.id)
            ids.insert(ids.remove(at: from.item), at: to.item)
            try controller.performUserDrivenChange(.move(from: from, to: to)) {
                try connection.write { db in
                    for (position, id) in ids.enumerated() { try db.execute("UPDATE todo SET position = ? WHERE id = ?", [.integer(Int64(position)), .integer(id)]) }
                }
            }
        }
        self.source = source
    }

    /// Drags the item at `from` over the item at `over`; returns the ids
    /// shown, the ids in the database's order and the number of plans.
    func drag(from: Int, over: Int) throws -> (shown: [Int64], stored: [Int64], plans: Int) {
        guard let source else { return ([], [], 0) }
        let view = source.collectionView
        try view.beginInteractiveMovementForItem(at: IndexPath(item: from, section: 0))
        if let centre = view.collectionViewLayout.layoutAttributesForItem(at: IndexPath(item: over, section: 0))?.center {
            try view.updateInteractiveMovementTargetPosition(centre)
        }
        let plans = try source.endInteractiveMovement()
        let shown = (0..<view.itemCounts[0]).map { Int64(source.collectionView(view, itemIdentifierAt: IndexPath(item: $0, section: 0)) ?? "") ?? -1 }
        let stored = try connection.read { db in try db.rows("SELECT id FROM todo ORDER BY position").compactMap { $0[0].int64 } }
        return (shown, stored, plans.count)
    }
}

extension UserDrivenChangeAmongCommitsTests {
    @Test("An actor-isolated controller with its data source: a drag is written, reported from inside the handler, and applied once the item settled")
    func actorIsolatedDrag() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("todo.sqlite").path
        let setup = try Connection(path: path)
        try setup.write { db in
            try db.execute("CREATE TABLE todo (id INTEGER PRIMARY KEY, grp INTEGER NOT NULL, position INTEGER NOT NULL, title TEXT NOT NULL)")
            for id in 1...6 { try db.execute("INSERT INTO todo VALUES (?, 0, ?, ?)", [.integer(Int64(id)), .integer(Int64(id)), .text("todo \(id)")]) }
        }
        let list = try DraggableList(path: path)
        try await list.open()
        let result = try await list.drag(from: 0, over: 4)
        #expect(result.plans == 2)
        #expect(result.shown == result.stored)
        #expect(result.shown != [1, 2, 3, 4, 5, 6])
    }
}

extension UserDrivenChangeAmongCommitsTests {
    /// The item each cell's view shows in a plan, by view.
    static func itemsByView(_ plan: AnimationPlan) -> [ViewIdentity: String] {
        var shown: [ViewIdentity: String] = [:]
        for element in plan.elements where element.category == .cell && element.indexPathAfter != nil {
            shown[element.view] = element.itemID
        }
        return shown
    }

    @Test("A user-driven move the view did not make (declared by a button, not a drag) still moves the cells' views (and the selection) with their items when a data source applies its report, without animation")
    func moveMadeElsewhereMovesViews() throws {
        for (from, to) in [(IndexPath(item: 0, section: 0), IndexPath(item: 3, section: 0)), (IndexPath(item: 4, section: 0), IndexPath(item: 1, section: 0))] {
            // Records without the position column: rewriting it is no update.
            let (connection, _, _) = try UserDrivenChangeCaseTests.makeCards()
            let controller = try FetchedResultsController<DragTodo>(connection: connection, request: FetchRequest(table: "card", sortKeys: [SortKey("position")]))
            let log = ReportLog<DragTodo>()
            controller.delegate = log
            try controller.performFetch()
            let view = UserDrivenChangeTests.makeView()
            let source = ResultsDataSource(collectionView: view, result: controller.result)
            let before = Self.itemsByView(try view.performBatchUpdates([], animated: false))
            try view.selectItem(at: from)
            let selectedID = try #require(controller.snapshot.item(at: from)?.id)
            var ids = controller.snapshot.allItems.map(\.id)
            ids.insert(ids.remove(at: from.item), at: to.item)
            try controller.performUserDrivenChange(.move(from: from, to: to)) {
                try connection.write { db in try UserDrivenChangeCaseTests.writeOrder(ids, db) }
            }
            let plan = try source.apply(try #require(log.reports.last))
            // Every view still shows the item it showed, unless the plan
            // says its content changed.
            for element in plan.elements where element.category == .cell && element.indexPathAfter != nil && !element.contentChanged && element.disposition != .insert {
                #expect(before[element.view] == element.itemID, "move \(Array(from)) → \(Array(to)): view \(element.view) showed \(before[element.view] ?? "nothing"), now \(element.itemID ?? "nothing") without a content change")
            }
            #expect(!plan.elements.contains { $0.category == .cell && $0.disposition == .move })
            // The moved item keeps its selection.
            #expect(view.indexPathsForSelectedItems == [try #require(source.result.indexPath(ofItemWithID: selectedID))])
        }
    }
}
