import Foundation
import Testing
import TesseraDiff
import TesseraLayout
import TesseraTestSupport
import TesseraView

/// One view of a self-sizing grid under multiple selection, over a diffable
/// data source. With `reentering`, every fitted size the view asks for also
/// makes a selection call (selecting or deselecting the item being sized by
/// id, selecting an index path, beginning or ending a touch), which the view
/// must refuse.
@MainActor
private final class SelectionReentryWorld {
    let view: CollectionView
    let source: DiffableDataSource<TestSection, TestItem>
    /// The selection calls the fitted-size closure made, and what each threw.
    var attempts: [(operation: String, outcome: String)] = []
    private var reentry: SplitMix64

    init(reentering: Bool, seed: UInt64) {
        reentry = SplitMix64(seed: seed ^ 0x5E1E_C7ED)
        let layout = FlowLayout()
        layout.itemSize = Size(width: 40, height: 40)
        layout.estimatedItemSize = Size(width: 40, height: 40)
        layout.minimumLineSpacing = 4
        layout.minimumInteritemSpacing = 4
        view = CollectionView(layout: layout, size: Size(width: 200, height: 240))
        view.allowsMultipleSelection = true
        source = DiffableDataSource<TestSection, TestItem>(collectionView: view)
        source.fittedSize = { [unowned self] item, _ in
            if reentering { self.reenter(sizing: item) }
            return Size(width: 40, height: Double(20 + (item.id * 7 + item.content * 13) % 50))
        }
    }

    /// One selection call from inside the view's sizing pass.
    private func reenter(sizing item: TestItem) {
        func run(_ operation: String, _ body: () throws(SelectionError) -> Void) {
            do throws(SelectionError) {
                try body()
                attempts.append((operation, "succeeded"))
            } catch {
                attempts.append((operation, error == .updateInProgress(operation: operation) ? "refused" : "threw \(error)"))
            }
        }
        let counts = view.itemCounts
        let path = counts.indices.first { counts[$0] > 0 }.map { IndexPath(item: 0, section: $0) } ?? IndexPath(item: 0, section: 0)
        switch Int.random(in: 0..<5, using: &reentry) {
        case 0: run("selectItem(at:)") { () throws(SelectionError) in try source.selectItem(withID: item.id) }
        case 1: run("deselectItem(at:)") { () throws(SelectionError) in try source.deselectItem(withID: item.id) }
        case 2: run("selectItem(at:)") { () throws(SelectionError) in try view.selectItem(at: path) }
        case 3: run("beginTouch(at:)") { () throws(SelectionError) in try view.beginTouch(at: path) }
        default: run("endTouch(selecting:)") { () throws(SelectionError) in try view.endTouch() }
        }
    }

    /// What must be the same in both worlds after every step.
    var state: String {
        let visible = view.visibleItemStates.map { "\(Array($0.indexPath)) \($0.isSelected) \($0.isHighlighted)" }
        return "counts \(view.itemCounts) bounds \(view.bounds) selected \(source.selectedItemIDs.sorted()) at \(view.indexPathsForSelectedItems.map { Array($0) }) items \(source.snapshot.allItems.map(\.id)) visible \(visible)"
    }
}

@MainActor
@Suite("Selection during an update")
struct SelectionReentryTests {
    @Test("Seeded: selection calls made from the data source while the view sizes items (in snapshots applied, scrolls and reloads) throw updateInProgress and change nothing: the selection and the plans match a twin that never made them, step for step")
    func refusedFromSizingPasses() throws {
        let seed = testSeed(default: 0x5E1_2E5)
        var refused = 0
        for round in 0..<30 {
            let roundSeed = seed &+ UInt64(round)
            let subject = SelectionReentryWorld(reentering: true, seed: roundSeed)
            let twin = SelectionReentryWorld(reentering: false, seed: roundSeed)
            var chain = RandomSnapshotChain(seed: roundSeed)
            var generator = SplitMix64(seed: roundSeed)
            let first = chain.start(maxSections: 3, maxItems: 16)
            _ = try subject.source.apply(first, animated: false)
            _ = try twin.source.apply(first, animated: false)
            for step in 0..<40 {
                let context = "seed \(seed), round \(round), step \(step)"
                let roll = Int.random(in: 0..<100, using: &generator)
                let items = twin.source.snapshot.allItems
                var description = ""
                var plans: (AnimationPlan?, AnimationPlan?) = (nil, nil)
                if roll < 40 {
                    let next = chain.next(after: twin.source.snapshot, maxSections: 3)
                    description = "apply \(next.numberOfItems) items"
                    plans = (try? subject.source.apply(next), try? twin.source.apply(next))
                } else if roll < 55 {
                    let content = twin.view.contentSize
                    let y = Double(Int.random(in: 0...Int(max(content.height - 240, 0)), using: &generator))
                    description = "scroll to \(y)"
                    plans = (subject.view.setBounds(Rect(x: 0, y: y, width: 200, height: 240)), twin.view.setBounds(Rect(x: 0, y: y, width: 200, height: 240)))
                } else if roll < 65 {
                    description = "reload"
                    subject.view.reloadData()
                    twin.view.reloadData()
                } else if let item = items.randomElement(using: &generator) {
                    let select = roll < 90
                    description = "\(select ? "select" : "deselect") \(item.id)"
                    for world in [subject, twin] {
                        if select { try world.source.selectItem(withID: item.id) } else { try world.source.deselectItem(withID: item.id) }
                    }
                }
                #expect(plans.0 == plans.1, "\(context), \(description): the plans differ")
                #expect(subject.state == twin.state, "\(context), \(description)")
                let wrong = subject.attempts.filter { $0.outcome != "refused" }
                #expect(wrong.isEmpty, "\(context), \(description): \(wrong.prefix(3))")
                refused += subject.attempts.count - wrong.count
                subject.attempts = []
                if subject.state != twin.state || !wrong.isEmpty { break }
            }
        }
        #expect(refused > 200, "seed \(seed): only \(refused) calls refused")
    }

    @Test("An item selected by id while a batch update sizes it would be selected in the wrong place: the call is refused, and selecting it after the update selects it")
    func insertedItemSelectedAfterTheBatch() throws {
        let layout = FlowLayout()
        layout.itemSize = Size(width: 40, height: 40)
        layout.estimatedItemSize = Size(width: 40, height: 40)
        let view = CollectionView(layout: layout, size: Size(width: 200, height: 240))
        let source = DiffableDataSource<TestSection, TestItem>(collectionView: view)
        var selectDuringSizing: Int?
        var refusal: SelectionError?
        source.fittedSize = { item, _ in
            if item.id == selectDuringSizing {
                selectDuringSizing = nil
                do throws(SelectionError) { try source.selectItem(withID: item.id) } catch { refusal = error }
            }
            return Size(width: 40, height: 40)
        }
        _ = try source.apply(TestSnapshot([0: Array(1...5)]), animated: false)
        selectDuringSizing = 100
        _ = try source.apply(TestSnapshot([0: [100] + Array(1...5)]))
        #expect(refusal == .updateInProgress(operation: "selectItem(at:)"))
        #expect(source.selectedItemIDs == [])
        try source.selectItem(withID: 100)
        #expect(source.selectedItemIDs == [100])
        #expect(view.indexPathsForSelectedItems == [IndexPath(item: 0, section: 0)])
        #expect("\(SelectionError.updateInProgress(operation: "selectItem(at:)"))".contains("selectItem(at:)"))
    }
}
