import Foundation
import Testing
import TesseraDiff
import TesseraLayout
import TesseraTestSupport
import TesseraView

/// A movable data source over arrays of ids that runs a closure when the
/// view reads its counts (inside a batch update, a reload, or the end of a
/// movement).
private final class CountingSource: CollectionViewDataSource {
    var sections: [[Int]]
    /// Run once, at the next count the view reads, then cleared.
    var onCount: (() -> Void)?

    init(sections: [[Int]]) {
        self.sections = sections
    }

    func numberOfSections(in collectionView: CollectionView) -> Int { sections.count }
    func collectionView(_ collectionView: CollectionView, numberOfItemsInSection section: Int) -> Int {
        if let onCount {
            self.onCount = nil
            onCount()
        }
        return sections[section].count
    }
    func collectionView(_ collectionView: CollectionView, itemIdentifierAt indexPath: IndexPath) -> String? { "\(sections[indexPath[0]][indexPath[1]])" }
    func collectionView(_ collectionView: CollectionView, canMoveItemAt indexPath: IndexPath) -> Bool { true }
    func collectionView(_ collectionView: CollectionView, moveItemAt sourceIndexPath: IndexPath, to destinationIndexPath: IndexPath) {
        let item = sections[sourceIndexPath[0]].remove(at: sourceIndexPath[1])
        sections[destinationIndexPath[0]].insert(item, at: destinationIndexPath[1])
    }
}

/// A delegate that runs a closure when a batch update deleted a selected item.
private final class DeselectionDelegate: CollectionViewDelegate {
    var onDidDeselect: (IndexPath) -> Void = { _ in }
    func collectionView(_ collectionView: CollectionView, didDeselectItemAt indexPath: IndexPath) { onDidDeselect(indexPath) }
}

/// One view of a self-sizing grid over a diffable data source whose items
/// can be reordered. With `reentering`, every fitted size the view asks for
/// also makes a movement call (begin, update, end or cancel, at random),
/// which the view must refuse.
@MainActor
private final class ReentryWorld {
    let view: CollectionView
    let source: DiffableDataSource<TestSection, TestItem>
    /// The movement calls the fitted-size closure made, and what each threw.
    var attempts: [(operation: String, outcome: String)] = []
    /// Whether the last attempt came during a drag step.
    var attemptsDuringSteps = 0
    var inStep = false
    private var reentry: SplitMix64

    init(reentering: Bool, seed: UInt64) {
        reentry = SplitMix64(seed: seed ^ 0xA77E_3D7)
        let layout = FlowLayout()
        layout.itemSize = Size(width: 40, height: 40)
        layout.estimatedItemSize = Size(width: 40, height: 40)
        layout.minimumLineSpacing = 4
        layout.minimumInteritemSpacing = 4
        view = CollectionView(layout: layout, size: Size(width: 200, height: 240))
        source = DiffableDataSource<TestSection, TestItem>(collectionView: view)
        source.reorderingHandlers.canReorderItem = { _ in true }
        source.fittedSize = { [unowned self] item, _ in
            if reentering { self.reenter() }
            return Size(width: 40, height: Double(20 + (item.id * 7 + item.content * 13) % 50))
        }
    }

    /// One movement call from inside the view's sizing pass.
    private func reenter() {
        let operation: String
        let result: Result<Void, InteractiveMovementError>
        func run(_ body: () throws(InteractiveMovementError) -> Void) -> Result<Void, InteractiveMovementError> {
            do throws(InteractiveMovementError) {
                try body()
                return .success(())
            } catch {
                return .failure(error)
            }
        }
        switch Int.random(in: 0..<4, using: &reentry) {
        case 0:
            operation = "beginInteractiveMovementForItem(at:)"
            result = run { () throws(InteractiveMovementError) in try view.beginInteractiveMovementForItem(at: IndexPath(item: 0, section: 0)) }
        case 1:
            operation = "updateInteractiveMovementTargetPosition(_:)"
            result = run { () throws(InteractiveMovementError) in _ = try view.updateInteractiveMovementTargetPosition(Point(x: 20, y: 20)) }
        case 2:
            operation = "endInteractiveMovement()"
            result = run { () throws(InteractiveMovementError) in _ = try view.endInteractiveMovement() }
        default:
            operation = "cancelInteractiveMovement()"
            result = run { () throws(InteractiveMovementError) in _ = try view.cancelInteractiveMovement() }
        }
        if inStep { attemptsDuringSteps += 1 }
        switch result {
        case .success: attempts.append((operation, "succeeded"))
        case let .failure(error): attempts.append((operation, error == .updateInProgress(operation: operation) ? "refused" : "threw \(error)"))
        }
    }

    /// What must be the same in both worlds after every step.
    var state: String {
        let visible = view.visibleElements.map { "\($0.category) \(Array($0.indexPath)) \($0.frame)" }
        let moving = view.indexPathForInteractivelyMovingItem.map { Array($0) } ?? []
        let shown = view.layoutAttributesForInteractivelyMovingItem.map { "\($0.frame)" } ?? "-"
        return "counts \(view.itemCounts) bounds \(view.bounds) moving \(moving) at \(shown) items \(source.snapshot.allItems.map(\.id)) visible \(visible)"
    }
}

@MainActor
@Suite("Interactive movement during an update")
struct InteractiveMovementReentryTests {
    @Test("Seeded: movement calls made from the data source while the view sizes items (in snapshots applied, scrolls and drag steps) throw updateInProgress and change nothing: the view matches a twin that never made them, step for step")
    func refusedFromSizingPasses() throws {
        let seed = testSeed(default: 0x12E_E7E5)
        var refused = 0
        var duringSteps = 0
        for round in 0..<30 {
            let roundSeed = seed &+ UInt64(round)
            let subject = ReentryWorld(reentering: true, seed: roundSeed)
            let twin = ReentryWorld(reentering: false, seed: roundSeed)
            var chain = RandomSnapshotChain(seed: roundSeed)
            var generator = SplitMix64(seed: roundSeed)
            let first = chain.start(maxSections: 3, maxItems: 16)
            _ = try subject.source.apply(first, animated: false)
            _ = try twin.source.apply(first, animated: false)
            for step in 0..<40 {
                let context = "seed \(seed), round \(round), step \(step)"
                let roll = Int.random(in: 0..<100, using: &generator)
                let moving = twin.view.indexPathForInteractivelyMovingItem != nil
                var description = ""
                func both<T: Equatable>(_ body: (ReentryWorld) throws -> T) -> (T?, T?) {
                    (try? body(subject), try? body(twin))
                }
                let plans: (AnimationPlan?, AnimationPlan?)
                if roll < 35 {
                    let next = chain.next(after: twin.source.snapshot, maxSections: 3)
                    description = "apply \(next.numberOfItems) items"
                    plans = both { try $0.source.apply(next) }
                } else if roll < 50 {
                    let content = twin.view.contentSize
                    let y = Double(Int.random(in: 0...Int(max(content.height - 240, 0)), using: &generator))
                    description = "scroll to \(y)"
                    plans = both { $0.view.setBounds(Rect(x: 0, y: y, width: 200, height: 240)) }
                } else if !moving {
                    let counts = twin.view.itemCounts
                    let sections = counts.indices.filter { counts[$0] > 0 }
                    guard let section = sections.randomElement(using: &generator) else { continue }
                    let path = IndexPath(item: Int.random(in: 0..<counts[section], using: &generator), section: section)
                    description = "begin at \(Array(path))"
                    let began = both { try $0.view.beginInteractiveMovementForItem(at: path) == () }
                    #expect(began.0 == began.1, "\(context), \(description)")
                    plans = (nil, nil)
                } else if roll < 85 {
                    let content = twin.view.contentSize
                    let position = Point(x: Double.random(in: 0...max(content.width, 1), using: &generator), y: Double.random(in: 0...max(content.height, 1), using: &generator))
                    description = "step to \(position)"
                    subject.inStep = true
                    plans = both { try $0.view.updateInteractiveMovementTargetPosition(position) }
                    subject.inStep = false
                } else if roll < 93 {
                    description = "end"
                    subject.inStep = true
                    plans = both { try $0.view.endInteractiveMovement() }
                    subject.inStep = false
                } else {
                    description = "cancel"
                    subject.inStep = true
                    plans = both { try $0.view.cancelInteractiveMovement() }
                    subject.inStep = false
                }
                #expect(plans.0 == plans.1, "\(context), \(description): the plans differ")
                #expect(subject.state == twin.state, "\(context), \(description)")
                let wrong = subject.attempts.filter { $0.outcome != "refused" }
                #expect(wrong.isEmpty, "\(context), \(description): \(wrong.prefix(3))")
                refused += subject.attempts.count - wrong.count
                duringSteps += subject.attemptsDuringSteps
                subject.attempts = []
                subject.attemptsDuringSteps = 0
                if subject.state != twin.state || !wrong.isEmpty { break }
            }
        }
        #expect(refused > 200 && duringSteps > 10, "seed \(seed): \(refused) calls refused, \(duringSteps) of them during drag steps")
    }

    @Test("A movement begun while the view reads the data source's counts, in a batch update, a reload or the end of a drag, is refused; the drag begun afterwards ends in the data source's order with the move applied")
    func refusedWhileReadingCounts() throws {
        let source = CountingSource(sections: [Array(0..<10), Array(10..<16)])
        let layout = ListLayout()
        layout.itemHeight = 60
        let view = CollectionView(layout: layout, size: Size(width: 300, height: 400))
        view.dataSource = source
        view.reloadData()
        var outcomes: [InteractiveMovementError?] = []
        func beginFromCount(at path: IndexPath) {
            source.onCount = {
                do throws(InteractiveMovementError) {
                    try view.beginInteractiveMovementForItem(at: path)
                    outcomes.append(nil)
                } catch {
                    outcomes.append(error)
                }
            }
        }
        let refusal = InteractiveMovementError.updateInProgress(operation: "beginInteractiveMovementForItem(at:)")

        // In a batch update that deletes the item the call names.
        beginFromCount(at: IndexPath(item: 9, section: 0))
        source.sections[0].removeLast(5)
        try view.performBatchUpdates((5..<10).map { .deleteItem(at: IndexPath(item: $0, section: 0)) })
        #expect(outcomes == [refusal])
        #expect(view.indexPathForInteractivelyMovingItem == nil)
        #expect(view.itemCounts == [5, 6])

        // In a reload.
        beginFromCount(at: IndexPath(item: 0, section: 0))
        view.reloadData()
        #expect(outcomes == [refusal, refusal])
        #expect(view.indexPathForInteractivelyMovingItem == nil)

        // When the drag ends and the view reads the counts after the move.
        try view.beginInteractiveMovementForItem(at: IndexPath(item: 0, section: 0))
        try view.updateInteractiveMovementTargetPosition(Point(x: 150, y: 6 * 60 + 30))
        let target = try #require(view.indexPathForInteractivelyMovingItem)
        #expect(target[0] == 1)
        var expected = source.sections
        expected[1].insert(expected[0].removeFirst(), at: target[1])
        beginFromCount(at: IndexPath(item: 1, section: 0))
        try view.endInteractiveMovement()
        #expect(outcomes == [refusal, refusal, refusal])
        #expect(view.indexPathForInteractivelyMovingItem == nil)
        #expect(source.sections == expected)
        #expect(view.itemCounts == [4, 7])
        #expect("\(refusal)".contains("beginInteractiveMovementForItem(at:)"))
    }

    @Test("The delegate hears about deleted selected items after the batch update returns, and may begin a movement from there")
    func allowedAfterTheBatch() throws {
        let source = CountingSource(sections: [Array(0..<10)])
        let layout = ListLayout()
        layout.itemHeight = 60
        let view = CollectionView(layout: layout, size: Size(width: 300, height: 400))
        view.dataSource = source
        view.reloadData()
        let delegate = DeselectionDelegate()
        view.delegate = delegate
        var began: [IndexPath] = []
        delegate.onDidDeselect = { path in
            // The item is gone: drag the one now in its place.
            if (try? view.beginInteractiveMovementForItem(at: path)) != nil { began.append(path) }
        }
        try view.selectItem(at: IndexPath(item: 3, section: 0))
        source.sections[0].remove(at: 3)
        try view.performBatchUpdates([.deleteItem(at: IndexPath(item: 3, section: 0))])
        #expect(began == [IndexPath(item: 3, section: 0)])
        #expect(view.originalIndexPathForInteractivelyMovingItem == IndexPath(item: 3, section: 0))
        try view.updateInteractiveMovementTargetPosition(Point(x: 150, y: 30))
        try view.endInteractiveMovement()
        #expect(source.sections == [[4, 0, 1, 2, 5, 6, 7, 8, 9]])
    }
}
