import Foundation
import Testing
import Tessera
import TesseraResultsTestSupport
import TesseraTestSupport
import TesseraTestTraits

// User-driven changes (performUserDrivenChange): a seeded oracle over an
// SQLite table ordered by a position column, flat and sectioned, eager and
// lazy, fed to a ResultsDataSource; the same for MutableResultsController;
// and the cases one by one (agreement, rollback, a concurrent commit, bad
// input, a slow report consumer).

/// A row of `card(id, grp, position, title)`, compared on every column.
struct DeckCard: FetchableRecord {
    var id: Int64
    var grp: Int64
    var position: Int64
    var title: String

    init(row: Row) throws {
        id = row["id"].int64 ?? -1
        grp = row["grp"].int64 ?? -1
        position = row["position"].int64 ?? -1
        title = row["title"].string ?? ""
    }

    /// A card from the values of `SELECT id, grp, position, title`.
    init(values: [DatabaseValue]) {
        id = values[0].int64 ?? -1
        grp = values[1].int64 ?? -1
        position = values[2].int64 ?? -1
        title = values[3].string ?? ""
    }
}

/// An element of a MutableResultsController ordered by `position`.
struct DeckChip: Identifiable, Equatable, Sendable {
    var id: Int64
    var grp: Int64
    var position: Int64
    var title: String
}

/// A snapshot with a user-driven change applied, done here by hand as the
/// view does it (the oracle of the controllers' own application).
func applyingByHand<S, I>(_ change: UserDrivenChange<I>, to snapshot: Snapshot<S, I>) -> Snapshot<S, I> {
    var sections = (0..<snapshot.numberOfSections).map { (snapshot[section: $0], Array(snapshot.items(inSection: $0))) }
    switch change {
    case let .move(from, to):
        let item = sections[from.section].1.remove(at: from.item)
        sections[to.section].1.insert(item, at: to.item)
    case let .update(at, item):
        sections[at.section].1[at.item] = item
    }
    return Snapshot(sections)
}

/// The items of each section.
func grouped<S, I>(_ snapshot: Snapshot<S, I>) -> [[I]] {
    (0..<snapshot.numberOfSections).map { Array(snapshot.items(inSection: $0)) }
}

/// A valid move in a result with these section counts (a section to take
/// from must hold an item).
func randomMove(counts: [Int], sectioned: Bool, using generator: inout SplitMix64) -> (from: IndexPath, to: IndexPath)? {
    let nonEmpty = counts.indices.filter { counts[$0] > 0 }
    guard let s = nonEmpty.randomElement(using: &generator) else { return nil }
    let from = IndexPath(item: Int.random(in: 0..<counts[s], using: &generator), section: s)
    return (from, randomDestination(counts: counts, from: from, sectioned: sectioned, using: &generator))
}

/// A valid destination for the item at `from`.
func randomDestination(counts: [Int], from: IndexPath, sectioned: Bool, using generator: inout SplitMix64) -> IndexPath {
    let t = sectioned ? Int.random(in: 0..<counts.count, using: &generator) : from.section
    let limit = counts[t] - (t == from.section ? 1 : 0)
    return IndexPath(item: Int.random(in: 0...limit, using: &generator), section: t)
}

/// Moves an item in sections of items, as UIKit's moveItem(at:to:) does.
func moved<I>(_ sections: [[I]], from: IndexPath, to: IndexPath) -> [[I]] {
    var sections = sections
    let item = sections[from.section].remove(at: from.item)
    sections[to.section].insert(item, at: to.item)
    return sections
}

@Suite("User-driven changes", .cpuBound)
struct UserDrivenChangeTests {
    static let schema = "CREATE TABLE card (id INTEGER PRIMARY KEY, grp INTEGER NOT NULL, position INTEGER NOT NULL, title TEXT NOT NULL)"

    static func request(sectioned: Bool, lazy: Bool) -> FetchRequest {
        var request = sectioned
            ? FetchRequest(table: "card", sortKeys: [SortKey("grp"), SortKey("position")], sectionKey: "grp")
            : FetchRequest(table: "card", sortKeys: [SortKey("position")])
        if lazy { request.fetchBatchSize = 5 }
        return request
    }

    /// The rows as the request orders them, grouped as it sections them.
    static func fresh(_ connection: Connection, sectioned: Bool) throws -> [[DeckCard]] {
        let cards = try connection.read { db in
            try db.rows("SELECT id, grp, position, title FROM card ORDER BY \(sectioned ? "grp, " : "")position, id").map { DeckCard(values: $0) }
        }
        guard sectioned else { return cards.isEmpty ? [] : [cards] }
        var sections: [[DeckCard]] = []
        for card in cards {
            if let last = sections.last?.last, last.grp == card.grp { sections[sections.count - 1].append(card) } else { sections.append([card]) }
        }
        return sections
    }

    /// The app's write of an order the user made: each row of the given
    /// sections gets its section's group and its place as position.
    static func rewrite(_ db: Database, _ sections: [[DeckCard]], groups: [Int64], only affected: Set<Int>, sectioned: Bool) throws {
        for s in affected.sorted() {
            for (k, card) in sections[s].enumerated() {
                let grp = sectioned ? groups[s] : card.grp
                guard card.grp != grp || card.position != Int64(k) else { continue }
                try db.execute("UPDATE card SET grp = ?, position = ? WHERE id = ?", [.integer(grp), .integer(Int64(k)), .integer(card.id)])
            }
        }
    }

    /// Other changes that keep the order of the rows that stay: a title
    /// updated, a row inserted at the end of a group, a row deleted; never
    /// touching `spared`.
    static func otherChanges(_ db: Database, spared: Int64?, nextID: inout Int64, using generator: inout SplitMix64) throws {
        let ids = try db.rows("SELECT id FROM card").compactMap { $0[0].int64 }.filter { $0 != spared }
        for _ in 0..<Int.random(in: 1...3, using: &generator) {
            switch Int.random(in: 0..<3, using: &generator) {
            case 0:
                guard let id = ids.randomElement(using: &generator) else { continue }
                try db.execute("UPDATE card SET title = ? WHERE id = ?", [.text("edited \(Int.random(in: 0..<1000, using: &generator))"), .integer(id)])
            case 1:
                let grp = Int64.random(in: 0..<5, using: &generator)
                try db.execute("INSERT INTO card VALUES (?, ?, (SELECT coalesce(max(position), 0) + 1 FROM card), ?)", [.integer(nextID), .integer(grp), .text("new \(nextID)")])
                nextID += 1
            default:
                guard let id = ids.randomElement(using: &generator) else { continue }
                try db.execute("DELETE FROM card WHERE id = ?", [.integer(id)])
            }
        }
    }

    static func makeView() -> CollectionView {
        let layout = FlowLayout()
        layout.itemSize = Size(width: 60, height: 40)
        layout.headerReferenceSize = Size(width: 0, height: 20)
        return CollectionView(layout: layout, size: Size(width: 200, height: 300))
    }

    @Test("After every user-driven move, update, disagreeing or rolled-back write, and concurrent commit, the shown state plus the declared change plus each report equals a fresh query; an agreed move is never reported as a move", arguments: [
        (false, false), (true, false), (false, true), (true, true),
    ])
    func oracle(sectioned: Bool, lazy: Bool) throws {
        let seed = testSeed(default: 0x05E2_D41E) &+ (sectioned ? 1 : 0) &+ (lazy ? 2 : 0)
        var generator = SplitMix64(seed: seed)
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("cards.sqlite").path
        let connection = try Connection(path: path)
        let other = try Connection(path: path)
        var nextID: Int64 = 1
        try connection.write { db in
            try db.execute(Self.schema)
            for position in 0..<24 {
                try db.execute("INSERT INTO card VALUES (?, ?, ?, ?)", [.integer(nextID), .integer(Int64.random(in: 0..<3, using: &generator)), .integer(Int64(position)), .text("card \(nextID)")])
                nextID += 1
            }
        }
        let controller = try FetchedResultsController<DeckCard>(connection: connection, request: Self.request(sectioned: sectioned, lazy: lazy))
        let log = ReportLog<DeckCard>()
        controller.delegate = log
        try controller.performFetch()
        let view = Self.makeView()
        let source = ResultsDataSource(collectionView: view, result: controller.result)
        var shown = controller.snapshot
        var taken = 0
        var coverage = (userDriven: 0, agreed: 0, crossSection: 0, correcting: 0)

        for step in 0..<160 {
            let context = "seed \(seed), step \(step)"
            #expect(grouped(shown).map { $0.map(\.id) } == grouped(controller.snapshot).map { $0.map(\.id) }, "\(context): shown before")
            let current = controller.snapshot
            let counts = (0..<current.numberOfSections).map { current.numberOfItems(inSection: $0) }
            let groups = current.sections.map { $0.value.int64 ?? -1 }
            var agreedMove: (id: Int64, shown: Snapshot<ResultSection, DeckCard>)?
            var agreedUpdate: IndexPath?
            // What the view shows from now on, whatever is reported.
            var declared: UserDrivenChange<DeckCard>?
            let kind = Int.random(in: 0..<100, using: &generator)
            switch kind {
            case 0..<62:
                // A user-driven move: written as the user made it, with
                // other changes, elsewhere, or not at all.
                guard let (from, to) = randomMove(counts: counts, sectioned: sectioned, using: &generator) else { continue }
                let id = current[from].id
                let mode = Int.random(in: 0..<100, using: &generator)
                var written = moved(grouped(current), from: from, to: to)
                if (40..<55).contains(mode) {
                    // The database disagrees.
                    written = moved(grouped(current), from: from, to: randomDestination(counts: counts, from: from, sectioned: sectioned, using: &generator))
                }
                let affected = Set([from.section, to.section]).union(written.indices.filter { s in written[s].contains { $0.id == id } })
                let concurrent = mode < 40 && Int.random(in: 0..<4, using: &generator) == 0
                let together = mode < 40 && Int.random(in: 0..<2, using: &generator) == 0
                if concurrent {
                    try other.write { db in try Self.otherChanges(db, spared: id, nextID: &nextID, using: &generator) }
                }
                declared = .move(from: from, to: to)
                do {
                    try controller.performUserDrivenChange(.move(from: from, to: to)) {
                        try connection.write { db in
                            try Self.rewrite(db, written, groups: groups, only: affected, sectioned: sectioned)
                            if together { try Self.otherChanges(db, spared: id, nextID: &nextID, using: &generator) }
                            if mode >= 55 && mode < 85 { throw Rollback() }
                        }
                        if mode >= 85 { throw Rollback() }   // the write fails before it starts
                    }
                    if mode < 40 { agreedMove = (id, applyingByHand(.move(from: from, to: to), to: current)) }
                } catch is Rollback {
                    #expect(mode >= 55, "\(context)")
                }
            case 62..<70:
                // A title edited in place.
                guard let s = counts.indices.filter({ counts[$0] > 0 }).randomElement(using: &generator) else { continue }
                let at = IndexPath(item: Int.random(in: 0..<counts[s], using: &generator), section: s)
                var edited = current[at]
                edited.title = "typed \(step)"
                let agrees = Int.random(in: 0..<3, using: &generator) > 0
                do {
                    try controller.performUserDrivenChange(.update(at: at, to: edited)) {
                        try connection.write { db in
                            try db.execute("UPDATE card SET title = ? WHERE id = ?", [.text(agrees ? edited.title : "stored \(step)"), .integer(edited.id)])
                        }
                    }
                    #expect(!lazy, "\(context): a lazy result takes no update")
                    declared = .update(at: at, to: edited)
                    if agrees { agreedUpdate = at }
                } catch let error as UserDrivenChangeError {
                    guard case .unsupported = error, lazy else {
                        Issue.record("\(context): \(error)")
                        continue
                    }
                }
            case 70..<76:
                // Bad input: nothing runs, nothing is reported.
                var ran = false
                let bad = IndexPath(item: counts.first.map { $0 + 1 } ?? 0, section: 0)
                do {
                    try controller.performUserDrivenChange(.move(from: bad, to: IndexPath(item: 0, section: 0))) { ran = true }
                    Issue.record("\(context): an out-of-range move was taken")
                } catch let error as UserDrivenChangeError {
                    guard case .indexPathOutOfRange(bad, .source, counts) = error else { Issue.record("\(context): \(error)"); break }
                }
                #expect(!ran && log.reports.count == taken && !controller.isPerformingUserDrivenChange, "\(context)")
                if let (from, to) = randomMove(counts: counts, sectioned: sectioned, using: &generator) {
                    var inner: (any Error)?
                    try controller.performUserDrivenChange(.move(from: from, to: to)) {
                        do { try controller.performUserDrivenChange(.move(from: from, to: to)) {} } catch { inner = error }
                    }
                    #expect(inner as? UserDrivenChangeError == .nested, "\(context)")
                    declared = .move(from: from, to: to)
                }
            default:
                // Changes the view does not show yet, from either connection,
                // reorders included.
                let writer = Bool.random(using: &generator) ? connection : other
                try writer.write { db in
                    try Self.otherChanges(db, spared: nil, nextID: &nextID, using: &generator)
                    let ids = try db.rows("SELECT id FROM card").compactMap { $0[0].int64 }
                    if ids.count >= 2, let a = ids.randomElement(using: &generator), let b = ids.randomElement(using: &generator) {
                        try db.execute("UPDATE card SET position = (SELECT position FROM card WHERE id = ?) + 1 WHERE id = ?", [.integer(b), .integer(a)])
                    }
                }
                try controller.checkForExternalChanges()
            }
            #expect(!controller.isPerformingUserDrivenChange, "\(context)")

            let shownBeforeChange = shown
            if let declared { shown = applyingByHand(declared, to: shown) }
            for report in log.reports[taken...] {
                if let base = report.resultBeforeUserDrivenChange {
                    #expect(declared != nil && report.userDrivenChange != nil, "\(context): a user-driven report without a declared change")
                    #expect(grouped(base.snapshot).map { $0.map(\.id) } == grouped(shownBeforeChange).map { $0.map(\.id) }, "\(context): the change starts from what was shown")
                }
                #expect(grouped(report.oldSnapshot).map { $0.map(\.id) } == grouped(shown).map { $0.map(\.id) }, "\(context): the report starts from what is shown")
                if !lazy { #expect(report.oldSnapshot == shown, "\(context)") }
                shown = try shown.applying(report.changeset, takingValuesFrom: report.newSnapshot)
                try source.apply(report)
            }
            let userDriven = log.reports[taken...].filter { $0.userDrivenChange != nil }
            #expect(userDriven.count <= 1, "\(context): one report starts from the shown state")
            if agreedMove != nil { coverage.agreed += userDriven.count }
            coverage.userDriven += userDriven.count
            coverage.crossSection += userDriven.filter { if case let .move(from, to) = $0.userDrivenChange, from.section != to.section { true } else { false } }.count
            coverage.correcting += userDriven.filter { !$0.changeset.itemMoves.isEmpty }.count
            if let (id, before) = agreedMove, let report = userDriven.first {
                for move in report.changeset.itemMoves { #expect(before[move.from].id != id, "\(context): the moved row is reported as moved") }
                for path in report.changeset.itemDeletes { #expect(before[path].id != id, "\(context): the moved row is reported as deleted") }
            }
            if let at = agreedUpdate, let report = userDriven.first {
                #expect(!report.changeset.itemUpdates.contains { $0.from == at }, "\(context): the edit is reported again")
            }
            taken = log.reports.count
            let truth = try Self.fresh(connection, sectioned: sectioned)
            #expect(grouped(shown) == truth, "\(context): shown state")
            #expect(grouped(controller.snapshot) == truth, "\(context): controller")
            #expect(grouped(source.result.snapshot) == truth, "\(context): data source")
            #expect(view.itemCounts == truth.map(\.count), "\(context): view counts")
            #expect(log.errors.isEmpty, "\(context): \(log.errors)")
        }
        // The walk reached the cases it is for.
        #expect(coverage.agreed >= 20 && coverage.correcting >= 10 && (!sectioned || coverage.crossSection >= 10), "seed \(seed): \(coverage)")
    }

    @Test("MutableResultsController: after every user-driven move, agreeing or not, with other edits or a failed write, the shown state plus the declared change plus each report equals the content", arguments: [false, true])
    func mutableOracle(sectioned: Bool) throws {
        let seed = testSeed(default: 0x3A7E_C41B) &+ (sectioned ? 1 : 0)
        var generator = SplitMix64(seed: seed)
        let controller = MutableResultsController<Int64, DeckChip>(
            sectionKey: { sectioned ? $0.grp : 0 }, sectionOrder: { $0 < $1 }, itemOrder: { $0.position < $1.position }
        )
        final class Log: MutableResultsControllerDelegate {
            var reports: [SnapshotReport<KeyedSection<Int64>, DeckChip>] = []
            func controller(_ controller: MutableResultsController<Int64, DeckChip>, didChangeContentWith report: SnapshotReport<KeyedSection<Int64>, DeckChip>) { reports.append(report) }
        }
        let log = Log()
        controller.delegate = log
        var model: [Int64: DeckChip] = [:]
        var nextID: Int64 = 1
        for position in 0..<20 {
            model[nextID] = DeckChip(id: nextID, grp: Int64.random(in: 0..<3, using: &generator), position: Int64(position), title: "chip \(nextID)")
            nextID += 1
        }
        try controller.insert(contentsOf: model.values.sorted { $0.id < $1.id })
        func truth() -> [[DeckChip]] {
            let sorted = model.values.sorted { ($0.position, $0.id) < ($1.position, $1.id) }
            guard sectioned else { return sorted.isEmpty ? [] : [sorted] }
            return Set(sorted.map(\.grp)).sorted().map { g in sorted.filter { $0.grp == g } }
        }
        /// Stores an order: each element of the affected sections gets its
        /// section's group and a position after every other.
        func store(_ sections: [[DeckChip]], groups: [Int64], affected: Set<Int>) {
            var next = (model.values.map(\.position).max() ?? 0) + 1
            for s in affected.sorted() {
                for chip in sections[s] {
                    var chip = model[chip.id] ?? chip
                    chip.grp = sectioned ? groups[s] : chip.grp
                    chip.position = next
                    next += 1
                    model[chip.id] = chip
                    controller.didUpdate(chip)
                }
            }
        }
        func otherEdits(spared: Int64) throws {
            for _ in 0..<Int.random(in: 1...3, using: &generator) {
                let ids = model.keys.filter { $0 != spared }.sorted()
                switch Int.random(in: 0..<3, using: &generator) {
                case 0:
                    guard let id = ids.randomElement(using: &generator), var chip = model[id] else { continue }
                    chip.title = "edited \(Int.random(in: 0..<1000, using: &generator))"
                    model[id] = chip
                    controller.didUpdate(chip)
                case 1:
                    let chip = DeckChip(id: nextID, grp: Int64.random(in: 0..<5, using: &generator), position: (model.values.map(\.position).max() ?? 0) + 1, title: "new")
                    nextID += 1
                    model[chip.id] = chip
                    try controller.insert(chip)
                default:
                    guard let id = ids.randomElement(using: &generator) else { continue }
                    model[id] = nil
                    controller.delete(id: id)
                }
            }
        }
        let view = Self.makeView()
        let source = ResultsDataSource(collectionView: view, result: controller.snapshot)
        var shown = controller.snapshot
        var taken = log.reports.count
        struct Failed: Error {}
        for step in 0..<200 {
            let context = "seed \(seed), step \(step)"
            let current = controller.snapshot
            let counts = current.itemCounts
            let groups = current.sections.map(\.key)
            guard let (from, to) = randomMove(counts: counts, sectioned: sectioned, using: &generator) else { break }
            let id = current[from].id
            let mode = Int.random(in: 0..<100, using: &generator)
            var written = moved(grouped(current), from: from, to: to)
            if (50..<65).contains(mode) {
                written = moved(grouped(current), from: from, to: randomDestination(counts: counts, from: from, sectioned: sectioned, using: &generator))
            }
            let affected: Set<Int> = [from.section, to.section]
            let shownBeforeChange = shown
            shown = applyingByHand(.move(from: from, to: to), to: shown)
            do {
                try controller.performUserDrivenChange(.move(from: from, to: to)) {
                    if mode >= 85 { throw Failed() }
                    store(written, groups: groups, affected: affected)
                    if mode < 50 || (65..<85).contains(mode), Bool.random(using: &generator) { try otherEdits(spared: id) }
                    if (65..<85).contains(mode) { throw Failed() }   // fails after its edits
                }
            } catch is Failed {
                #expect(mode >= 65, "\(context)")
            }
            let agreed = mode < 50 ? applyingByHand(.move(from: from, to: to), to: current) : nil
            for report in log.reports[taken...] {
                if let base = report.snapshotBeforeUserDrivenChange {
                    #expect(report.userDrivenChange != nil && base == shownBeforeChange, "\(context): the change starts from what was shown")
                }
                #expect(report.oldSnapshot == shown, "\(context): the report starts from what is shown")
                shown = try shown.applying(report.changeset, takingValuesFrom: report.newSnapshot)
                try source.apply(report)
                if let agreed, report.userDrivenChange != nil {
                    for move in report.changeset.itemMoves { #expect(agreed[move.from].id != id, "\(context): the moved element is reported as moved") }
                    for path in report.changeset.itemDeletes { #expect(agreed[path].id != id, "\(context): the moved element is reported as deleted") }
                }
            }
            taken = log.reports.count
            #expect(grouped(shown) == truth(), "\(context): shown state")
            #expect(grouped(controller.snapshot) == truth(), "\(context): controller")
            #expect(grouped(source.result) == truth(), "\(context): data source")
            #expect(view.itemCounts == truth().map(\.count), "\(context): view counts")
        }
    }
}

@Suite("User-driven changes, case by case")
struct UserDrivenChangeCaseTests {
    /// `card` with cards 1…6 in group 0 at positions 0…5, in memory, and a
    /// controller ordered by position that reports to `log`.
    static func makeCards() throws -> (Connection, FetchedResultsController<DeckCard>, ReportLog<DeckCard>) {
        let connection = try Connection(path: ":memory:")
        try connection.write { db in
            try db.execute(UserDrivenChangeTests.schema)
            for id in 1...6 { try db.execute("INSERT INTO card VALUES (?, 0, ?, ?)", [.integer(Int64(id)), .integer(Int64(id - 1)), .text("card \(id)")]) }
        }
        let controller = try FetchedResultsController<DeckCard>(connection: connection, request: UserDrivenChangeTests.request(sectioned: false, lazy: false))
        let log = ReportLog<DeckCard>()
        controller.delegate = log
        try controller.performFetch()
        return (connection, controller, log)
    }

    /// Writes an order of ids as positions 0, 1, ….
    static func writeOrder(_ ids: [Int64], _ db: Database) throws {
        for (k, id) in ids.enumerated() { try db.execute("UPDATE card SET position = ? WHERE id = ?", [.integer(Int64(k)), .integer(id)]) }
    }

    static func ids(_ controller: FetchedResultsController<DeckCard>) -> [Int64] { controller.snapshot.allItems.map(\.id) }

    @Test("An agreed move with another row's title changed and a row inserted by a trigger in the same commit reports the update and the insert, and no move")
    func agreedMoveKeepsOtherChanges() throws {
        let (connection, controller, log) = try Self.makeCards()
        try connection.write { db in
            try db.execute("CREATE TRIGGER audit AFTER UPDATE OF position ON card WHEN NEW.id = 3 BEGIN INSERT INTO card VALUES (100, 0, 100, 'trigger'); END")
        }
        let view = UserDrivenChangeTests.makeView()
        let source = ResultsDataSource(collectionView: view, result: controller.result)
        // The user drags card 3 (item 2) to item 4.
        try controller.performUserDrivenChange(.move(from: IndexPath(item: 2, section: 0), to: IndexPath(item: 4, section: 0))) {
            try connection.write { db in
                try Self.writeOrder([1, 2, 4, 5, 3, 6], db)
                try db.execute("UPDATE card SET title = 'renamed' WHERE id = 6")
            }
        }
        #expect(log.reports.count == 1)
        let report = try #require(log.reports.first)
        #expect(report.changeset.itemMoves.isEmpty && report.changeset.itemDeletes.isEmpty)
        #expect(report.changeset.itemInserts == [IndexPath(item: 6, section: 0)])
        #expect(report.changeset.itemUpdates.contains { $0.from == IndexPath(item: 5, section: 0) })
        #expect(report.oldSnapshot.allItems.map(\.id) == [1, 2, 4, 5, 3, 6])
        #expect(report.resultBeforeUserDrivenChange?.snapshot.allItems.map(\.id) == [1, 2, 3, 4, 5, 6])
        let plan = try source.apply(report)
        #expect(!plan.elements.contains { $0.category == .cell && $0.indexPathBefore != nil && $0.indexPathAfter != nil && $0.indexPathBefore != $0.indexPathAfter && $0.itemID == "3" })
        #expect(source.result.snapshot.allItems.map(\.id) == [1, 2, 4, 5, 3, 6, 100])
    }

    @Test("A rolled-back write reports the move back; a write that puts the row elsewhere reports the way there")
    func rollbackAndDisagreement() throws {
        let (connection, controller, log) = try Self.makeCards()
        #expect(throws: Rollback.self) {
            try controller.performUserDrivenChange(.move(from: IndexPath(item: 0, section: 0), to: IndexPath(item: 3, section: 0))) {
                try connection.write { db in
                    try Self.writeOrder([2, 3, 4, 1, 5, 6], db)
                    throw Rollback()
                }
            }
        }
        let back = try #require(log.reports.last)
        #expect(log.reports.count == 1)
        #expect(back.oldSnapshot.allItems.map(\.id) == [2, 3, 4, 1, 5, 6])
        #expect(back.newSnapshot.allItems.map(\.id) == [1, 2, 3, 4, 5, 6])
        #expect(back.changeset.itemMoves.count == 1)
        #expect(Self.ids(controller) == [1, 2, 3, 4, 5, 6])

        // Declared: card 1 to item 3; written: card 1 to item 1.
        try controller.performUserDrivenChange(.move(from: IndexPath(item: 0, section: 0), to: IndexPath(item: 3, section: 0))) {
            try connection.write { db in try Self.writeOrder([2, 1, 3, 4, 5, 6], db) }
        }
        let report = try #require(log.reports.last)
        #expect(log.reports.count == 2)
        let replayed = try report.oldSnapshot.applying(report.changeset, takingValuesFrom: report.newSnapshot)
        #expect(report.oldSnapshot.allItems.map(\.id) == [2, 3, 4, 1, 5, 6])
        #expect(replayed.allItems.map(\.id) == [2, 1, 3, 4, 5, 6])
    }

    @Test("A write that agrees and changes nothing else reports an empty changeset that moves a data source to the new result without a batch")
    func agreedMoveAlone() throws {
        let (connection, controller, log) = try Self.makeCards()
        let view = UserDrivenChangeTests.makeView()
        let source = ResultsDataSource(collectionView: view, result: controller.result)
        try controller.performUserDrivenChange(.move(from: IndexPath(item: 5, section: 0), to: IndexPath(item: 0, section: 0))) {
            try connection.write { db in try Self.writeOrder([6, 1, 2, 3, 4, 5], db) }
        }
        let report = try #require(log.reports.last)
        // Positions were rewritten: those rows' content changed, nothing moved.
        #expect(report.changeset.itemMoves.isEmpty && report.changeset.itemInserts.isEmpty && report.changeset.itemDeletes.isEmpty)
        try source.apply(report)
        #expect(source.result.isSameState(as: controller.result))
    }

    @Test("Bad input — a source or destination out of range, an update with another id, a nested change, a change inside an editing batch — throws a typed error and changes nothing")
    func badInput() throws {
        let (_, controller, log) = try Self.makeCards()
        let before = controller.result
        var ran = false
        let cases: [(UserDrivenChange<DeckCard>, UserDrivenChangeError)] = [
            (.move(from: IndexPath(item: 6, section: 0), to: IndexPath(item: 0, section: 0)), .indexPathOutOfRange(IndexPath(item: 6, section: 0), role: .source, itemCounts: [6])),
            (.move(from: IndexPath(item: 0, section: 0), to: IndexPath(item: 6, section: 0)), .indexPathOutOfRange(IndexPath(item: 6, section: 0), role: .destination, itemCounts: [6])),
            (.move(from: IndexPath(item: 0, section: 0), to: IndexPath(item: 0, section: 1)), .indexPathOutOfRange(IndexPath(item: 0, section: 1), role: .destination, itemCounts: [6])),
            (.move(from: IndexPath(item: -1, section: 0), to: IndexPath(item: 0, section: 0)), .indexPathOutOfRange(IndexPath(item: -1, section: 0), role: .source, itemCounts: [6])),
            (.update(at: IndexPath(item: 0, section: 0), to: controller.snapshot[IndexPath(item: 1, section: 0)]), .updateChangesIdentity(IndexPath(item: 0, section: 0))),
            (.update(at: IndexPath(item: 9, section: 0), to: controller.snapshot[IndexPath(item: 1, section: 0)]), .indexPathOutOfRange(IndexPath(item: 9, section: 0), role: .updated, itemCounts: [6])),
        ]
        for (change, expected) in cases {
            #expect(throws: expected) { try controller.performUserDrivenChange(change) { ran = true } }
        }
        #expect(!ran && log.reports.isEmpty && controller.result.isSameState(as: before) && !controller.isPerformingUserDrivenChange)

        let mutable = MutableResultsController<Int64, DeckChip>(sectionKey: { $0.grp }, sectionOrder: { $0 < $1 }, itemOrder: { $0.position < $1.position })
        try mutable.insert(contentsOf: (1...3).map { DeckChip(id: $0, grp: 0, position: $0, title: "") })
        let snapshot = mutable.snapshot
        mutable.beginEditing()
        #expect(throws: UserDrivenChangeError.editingInProgress) { try mutable.performUserDrivenChange(.move(from: IndexPath(item: 0, section: 0), to: IndexPath(item: 1, section: 0))) {} }
        mutable.endEditing()
        var inner: (any Error)?
        try mutable.performUserDrivenChange(.move(from: IndexPath(item: 0, section: 0), to: IndexPath(item: 0, section: 0))) {
            do { try mutable.performUserDrivenChange(.move(from: IndexPath(item: 0, section: 0), to: IndexPath(item: 1, section: 0))) {} } catch { inner = error }
        }
        #expect(inner as? UserDrivenChangeError == .nested)
        #expect(mutable.snapshot == snapshot && !mutable.isPerformingUserDrivenChange)
    }

    @Test("A report sequence that falls behind never merges a user-driven report into the one before it: replayed in order, with the declared change where a report says, it ends at the result")
    func slowConsumer() async throws {
        let (connection, controller, _) = try Self.makeCards()
        let initial = controller.snapshot
        var iterator = controller.reports(bufferLimit: 1).makeAsyncIterator()
        try connection.write { db in try db.execute("UPDATE card SET title = 'a' WHERE id = 1") }
        try connection.write { db in try db.execute("UPDATE card SET title = 'b' WHERE id = 2") }
        try controller.performUserDrivenChange(.move(from: IndexPath(item: 0, section: 0), to: IndexPath(item: 2, section: 0))) {
            try connection.write { db in try Self.writeOrder([2, 3, 1, 4, 5, 6], db) }
        }
        try connection.write { db in try db.execute("UPDATE card SET title = 'c' WHERE id = 6") }
        var shown = initial
        for _ in 0..<2 {
            let report = try #require(await iterator.next())
            if let base = report.resultBeforeUserDrivenChange, let change = report.userDrivenChange {
                #expect(base.snapshot == shown)
                shown = applyingByHand(change, to: shown)
            }
            #expect(report.oldSnapshot == shown)
            shown = try shown.applying(report.changeset, takingValuesFrom: report.newSnapshot)
        }
        #expect(shown == controller.snapshot)
    }
}

/// A note changed in place, as class elements are.
final class Note: Identifiable, Equatable, @unchecked Sendable {
    let id: Int
    var text: String
    init(id: Int, text: String) {
        self.id = id
        self.text = text
    }
    static func == (lhs: Note, rhs: Note) -> Bool { lhs === rhs }
}

extension UserDrivenChangeCaseTests {
    @Test("MutableResultsController: an edit in place the user made is not reported; another element changed in place in the same batch is")
    func mutableUpdateInPlace() throws {
        let notes = [Note(id: 1, text: "a"), Note(id: 2, text: "b")]
        let controller = MutableResultsController<Int, Note>(sectionKey: { _ in 0 }, sectionOrder: { $0 < $1 }, itemOrder: { $0.id < $1.id })
        try controller.insert(contentsOf: notes)
        final class Log: MutableResultsControllerDelegate {
            var reports: [SnapshotReport<KeyedSection<Int>, Note>] = []
            func controller(_ controller: MutableResultsController<Int, Note>, didChangeContentWith report: SnapshotReport<KeyedSection<Int>, Note>) { reports.append(report) }
        }
        let log = Log()
        controller.delegate = log
        try controller.performUserDrivenChange(.update(at: IndexPath(item: 0, section: 0), to: notes[0])) {
            notes[0].text = "typed"
            controller.didUpdate(notes[0])
            notes[1].text = "synced"
            controller.didUpdate(notes[1])
        }
        let report = try #require(log.reports.first)
        #expect(log.reports.count == 1)
        #expect(report.changeset.itemUpdates.map(\.from) == [IndexPath(item: 1, section: 0)])
    }
}

/// An actor that owns a controller, as an app's list model does.
actor CardList {
    let connection: Connection
    let controller: FetchedResultsController<DeckCard>
    let log = ReportLog<DeckCard>()

    init(path: String) throws {
        connection = try Connection(path: path)
        controller = try FetchedResultsController<DeckCard>(connection: connection, request: UserDrivenChangeTests.request(sectioned: false, lazy: false))
    }

    func open() throws {
        controller.delegate = log
        try controller.performFetch()
    }

    /// Moves a card as the user did, written on `writer`; returns the
    /// reports' changesets and the result's ids.
    func move(from: Int, to: Int, order: [Int64], writer: Connection?) throws -> (changesets: [Changeset], ids: [Int64], old: [Int64]?) {
        try controller.performUserDrivenChange(.move(from: IndexPath(item: from, section: 0), to: IndexPath(item: to, section: 0))) {
            try (writer ?? connection).write { db in try UserDrivenChangeCaseTests.writeOrder(order, db) }
        }
        return (log.reports.map(\.changeset), controller.snapshot.allItems.map(\.id), log.reports.last?.oldSnapshot.allItems.map(\.id))
    }
}

extension UserDrivenChangeCaseTests {
    @Test("A controller on an actor takes a user-driven write made there, and one made on another connection inside the write, as agreed moves")
    func actorHomeAndOtherConnection() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("cards.sqlite").path
        let setup = try Connection(path: path)
        try setup.write { db in
            try db.execute(UserDrivenChangeTests.schema)
            for id in 1...4 { try db.execute("INSERT INTO card VALUES (?, 0, ?, ?)", [.integer(Int64(id)), .integer(Int64(id - 1)), .text("card \(id)")]) }
        }
        let list = try CardList(path: path)
        try await list.open()
        let first = try await list.move(from: 0, to: 3, order: [2, 3, 4, 1], writer: nil)
        #expect(first.changesets.count == 1 && first.changesets.allSatisfy { $0.itemMoves.isEmpty })
        #expect(first.ids == [2, 3, 4, 1] && first.old == [2, 3, 4, 1])
        let second = try await list.move(from: 3, to: 0, order: [1, 2, 3, 4], writer: setup)
        #expect(second.changesets.count == 2 && second.changesets.allSatisfy { $0.itemMoves.isEmpty })
        #expect(second.ids == [1, 2, 3, 4] && second.old == [1, 2, 3, 4])
    }
}
