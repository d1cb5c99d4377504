import Foundation
import Testing
import TesseraTestTraits
import TesseraDiff
import TesseraLayout
import TesseraTestSupport
import TesseraView

/// A collection view fed random snapshots through one of the three batch
/// paths (a diffable data source, a changeset, a UIKit-safe batch update),
/// for the oracles of changes made while a plan plays.
final class CompositionScenario {
    enum Path: CaseIterable { case diffable, changeset, batchUpdate }

    let path: Path
    let delegate: AnyLayoutDelegate
    let view: CollectionView
    var snapshot = TestSnapshot()
    private var diffable: DiffableDataSource<TestSection, TestItem>?
    private let counts = CompositionCountsSource()
    private var nextID = 0

    init(kind: LayoutKind, path: Path, timing: AnimationTiming, using generator: inout SplitMix64) throws {
        self.path = path
        delegate = AnyLayoutDelegate.random(itemCounts: Array(repeating: 40, count: 8), using: &generator)
        let size = Int.random(in: 0..<4, using: &generator) == 0
            ? randomViewSize(using: &generator)
            : Size(width: Double(Int.random(in: 80...400, using: &generator)), height: Double(Int.random(in: 80...500, using: &generator)))
        view = CollectionView(
            layout: RandomLayoutSpec(kind: kind, seed: generator.next()).make(delegate: delegate), size: size,
            contentInset: randomContentInset(using: &generator)
        )
        view.animationTiming = timing
        var first = TestSnapshot()
        for _ in 0..<Int.random(in: 0...5, using: &generator) {
            first.appendSection(freshSection(), items: (0..<Int.random(in: 0...25, using: &generator)).map { _ in freshItem() })
        }
        if path == .diffable {
            let source = DiffableDataSource<TestSection, TestItem>(collectionView: view)
            diffable = source
            try source.apply(first, animated: false)
        } else {
            view.dataSource = counts
            counts.counts = first.itemCounts
            view.reloadData()
        }
        snapshot = first
    }

    private func freshItem() -> TestItem {
        nextID += 1
        return TestItem(id: nextID)
    }

    private func freshSection() -> TestSection {
        nextID += 1
        return TestSection(id: nextID)
    }

    /// The current snapshot with random section and item deletes, inserts,
    /// moves and content changes.
    func randomNextSnapshot(using generator: inout SplitMix64) -> TestSnapshot {
        func chance(_ percent: Int) -> Bool { Int.random(in: 0..<100, using: &generator) < percent }
        var sections: [(TestSection, [TestItem])] = (0..<snapshot.numberOfSections).map {
            (snapshot[section: $0], Array(snapshot.items(inSection: $0)))
        }
        let intensity = Int.random(in: 5...60, using: &generator)
        sections.removeAll { _ in chance(intensity / 6) }
        if sections.count > 1, chance(intensity / 2) {
            let moved = sections.remove(at: Int.random(in: 0..<sections.count, using: &generator))
            sections.insert(moved, at: Int.random(in: 0...sections.count, using: &generator))
        }
        if sections.count < 6, chance(intensity / 2) {
            sections.insert((freshSection(), (0..<Int.random(in: 0...5, using: &generator)).map { _ in freshItem() }), at: Int.random(in: 0...sections.count, using: &generator))
        }
        for s in sections.indices {
            sections[s].1.removeAll { _ in chance(intensity / 3) }
            for i in sections[s].1.indices where chance(intensity / 4) { sections[s].1[i].content += 1 }
        }
        if !sections.isEmpty {
            for _ in 0..<Int.random(in: 0...5, using: &generator) {
                let from = Int.random(in: 0..<sections.count, using: &generator)
                guard !sections[from].1.isEmpty else { continue }
                let item = sections[from].1.remove(at: Int.random(in: 0..<sections[from].1.count, using: &generator))
                let to = chance(60) ? from : Int.random(in: 0..<sections.count, using: &generator)
                sections[to].1.insert(item, at: Int.random(in: 0...sections[to].1.count, using: &generator))
            }
            for _ in 0..<Int.random(in: 0...6, using: &generator) {
                let to = Int.random(in: 0..<sections.count, using: &generator)
                sections[to].1.insert(freshItem(), at: Int.random(in: 0...sections[to].1.count, using: &generator))
            }
        }
        return TestSnapshot(sections)
    }

    /// Shows `new` through the scenario's path, at `time` or, when `time`
    /// is `nil`, through the calls without a time.
    func show(_ new: TestSnapshot, animated: Bool, at time: Double?) throws -> [AnimationPlan] {
        defer { snapshot = new }
        switch path {
        case .diffable:
            guard let diffable else { return [] }
            if let time { return [try diffable.apply(new, animated: animated, at: time)] }
            return [try diffable.apply(new, animated: animated)]
        case .changeset:
            let changeset = try diff(from: snapshot, to: new)
            counts.counts = new.itemCounts
            if let time { return [try view.performBatchUpdates(changeset, animated: animated, at: time)] }
            return [try view.performBatchUpdates(changeset, animated: animated)]
        case .batchUpdate:
            let batch = BatchUpdate(try diff(from: snapshot, to: new))
            counts.counts = new.itemCounts
            if let time { return try view.performBatchUpdates(batch, animated: animated, at: time) }
            return try view.performBatchUpdates(batch, animated: animated)
        }
    }

    /// Random bounds: sometimes a new size, and an offset the content allows.
    func randomBounds(using generator: inout SplitMix64) -> Rect {
        var size = view.bounds.size
        if Int.random(in: 0..<3, using: &generator) == 0 {
            size = Size(width: Double(Int.random(in: 40...400, using: &generator)), height: Double(Int.random(in: 40...500, using: &generator)))
        }
        let content = view.contentSize
        let inset = view.contentInset
        let maxX = Swift.max(-inset.left, content.width + inset.right - size.width)
        let maxY = Swift.max(-inset.top, content.height + inset.bottom - size.height)
        return Rect(
            origin: Point(
                x: Double.random(in: -inset.left...maxX, using: &generator).rounded(.down),
                y: Double.random(in: -inset.top...maxY, using: &generator).rounded(.down)
            ),
            size: size
        )
    }
}

final class CompositionCountsSource: CollectionViewDataSource {
    var counts: [Int] = []
    func numberOfSections(in collectionView: CollectionView) -> Int { counts.count }
    func collectionView(_ collectionView: CollectionView, numberOfItemsInSection section: Int) -> Int { counts[section] }
}

/// Everything a plan made at `time` must satisfy, against the plan that
/// played then (when one did) and against a fresh query of the layout.
func compositionViolations(
    of plan: AnimationPlan,
    at time: Double,
    playing: PlayingPlan?,
    offsetBefore: Point,
    view: CollectionView
) -> [String] {
    var problems: [String] = []
    var byView: [ViewIdentity: AnimationPlan.Element] = [:]
    for element in plan.elements {
        if byView.updateValue(element, forKey: element.view) != nil { problems.append("\(element.view) shows two elements") }
        switch element.disposition {
        case .insert where element.indexPathBefore != nil, .delete where element.indexPathAfter != nil:
            problems.append("\(element.disposition) \(element.category) with index paths \(element.indexPathBefore.map(Array.init) ?? []) → \(element.indexPathAfter.map(Array.init) ?? [])")
        case .unchanged:
            var start = element.from
            start.indexPath = element.to.indexPath
            if start != element.to { problems.append("unchanged \(element.category) at \(element.indexPathAfter.map(Array.init) ?? []) goes from \(element.from) to \(element.to)") }
        default:
            break
        }
    }
    // What is shown after is exactly what the layout shows at rest now.
    let recycled = Set(plan.recycledViews)
    var resting: [ElementKey: LayoutAttributes] = [:]
    for attributes in view.visibleElements { resting[ElementKey(attributes)] = attributes }
    let shown = plan.elements.filter { !recycled.contains($0.view) }
    if shown.count != resting.count { problems.append("\(shown.count) elements shown after, the layout shows \(resting.count)") }
    for element in shown {
        guard let path = element.indexPathAfter, let end = resting[ElementKey(category: element.category, indexPath: path)] else {
            problems.append("\(element.category) at \(element.indexPathAfter.map(Array.init) ?? []) shown after is not visible at rest")
            continue
        }
        if element.to != end { problems.append("\(element.category) at \(Array(path)) ends at \(element.to), rests at \(end)") }
    }
    if plan.contentOffsetAfter != view.bounds.origin { problems.append("offset after \(plan.contentOffsetAfter), bounds \(view.bounds.origin)") }
    guard let playing, playing.isPlaying(at: time) else {
        if plan.contentOffsetBefore != offsetBefore { problems.append("offset before \(plan.contentOffsetBefore), was at rest at \(offsetBefore)") }
        return problems
    }
    // Every element of the playing plan is in the new one, with its view,
    // starting where it is at `time`; leaving ones keep their end.
    let current = playing.attributes(at: time)
    let oldLeaving = Set(playing.plan.recycledViews)
    for (index, old) in playing.plan.elements.enumerated() {
        guard let new = byView[old.view] else {
            problems.append("\(old.category) at \(old.indexPathAfter.map(Array.init) ?? []) with \(old.view) playing at \(time) is not in the new plan")
            continue
        }
        if new.category != old.category || new.indexPathBefore != old.indexPathAfter {
            problems.append("\(old.view) shows \(old.category) \(old.indexPathAfter.map(Array.init) ?? []) then \(new.category) \(new.indexPathBefore.map(Array.init) ?? [])")
        }
        if new.from != current[index] { problems.append("\(old.category) with \(old.view) starts at \(new.from), is at \(current[index]) (\(new.disposition))") }
        if oldLeaving.contains(old.view), recycled.contains(new.view), new.to != old.to {
            problems.append("leaving \(old.category) with \(old.view) now ends at \(new.to), was going to \(old.to)")
        }
    }
    let offset = playing.contentOffset(at: time)
    if plan.contentOffsetBefore != offset { problems.append("offset before \(plan.contentOffsetBefore), playing at \(offset)") }
    return problems
}

@Suite("Changes made while a plan plays", .tags(.oracle), .cpuBound)
struct AnimationCompositionOracleTests {
    static let timings: [AnimationTiming] = [.linear, .easeInOut, .spring(dampingRatio: 0.45, response: 0.2)]

    /// A time into the playing plan (its start, a point between, its very
    /// end, after it) or after the last change when nothing plays.
    static func randomTime(for view: CollectionView, using generator: inout SplitMix64) -> (time: Double, label: String) {
        let last = view.lastChangeTime ?? 0
        guard let playing = view.playingPlan else { return (last + Double.random(in: 0...0.5, using: &generator), "at rest") }
        switch Int.random(in: 0..<6, using: &generator) {
        case 0: return (playing.startTime, "at the start")
        case 1: return (playing.endTime, "at the end")
        case 2: return (playing.endTime + Double.random(in: 0...0.2, using: &generator), "after the end")
        default: return (playing.startTime + Double.random(in: 0..<playing.plan.duration, using: &generator), "mid-way")
        }
    }

    @Test("Every change made while a plan plays starts each element where it is at that time, leaving elements keep going, views stay with their elements, and everything ends at rest in the layout", arguments: LayoutKind.allCases)
    func chainsCompose(kind: LayoutKind) throws {
        var composed = 0
        var continued = 0
        var returned = 0
        let seed = testSeed(default: 0xC0_4905_E)
        try forEachSeededRound("AnimationCompositionOracleTests.chainsCompose", seed: seed, rounds: 36) { round, seed, generator in
            let path = CompositionScenario.Path.allCases[round % 3]
            let timing = Self.timings[(round / 3) % 3]
            let scenario = try CompositionScenario(kind: kind, path: path, timing: timing, using: &generator)
            let view = scenario.view
            for step in 0..<Int.random(in: 2...6, using: &generator) {
                let (time, when) = Self.randomTime(for: view, using: &generator)
                let playing = view.playingPlan
                let offsetBefore = view.bounds.origin
                let animated = Int.random(in: 0..<10, using: &generator) != 0
                let plans: [AnimationPlan]
                let change: String
                switch Int.random(in: 0..<10, using: &generator) {
                case 0:
                    change = "bounds"
                    plans = [try view.setBounds(scenario.randomBounds(using: &generator), animated: animated, at: time)]
                case 1:
                    let next = LayoutKind.allCases.randomElement(using: &generator) ?? kind
                    change = "transition to \(next)"
                    plans = [try view.setCollectionViewLayout(RandomLayoutSpec(kind: next, seed: generator.next()).make(delegate: scenario.delegate), animated: animated, at: time)]
                default:
                    change = "batch"
                    plans = try scenario.show(scenario.randomNextSnapshot(using: &generator), animated: animated, at: time)
                }
                let label = "seed \(seed), round \(round), step \(step), \(path), \(timing), \(change) \(when) (\(time)), animated \(animated)"
                if playing?.isPlaying(at: time) == true {
                    composed += 1
                    let leaving = Set(playing?.plan.recycledViews ?? [])
                    continued += plans.first?.elements.count(where: { leaving.contains($0.view) }) ?? 0
                    let recycled = Set(plans.first?.recycledViews ?? [])
                    returned += plans.first?.elements.count(where: { leaving.contains($0.view) && !recycled.contains($0.view) }) ?? 0
                }
                // The passes of one batch update are made at the same time:
                // each composes with the one before.
                var previous = playing
                var offset = offsetBefore
                for (pass, plan) in plans.enumerated() {
                    let problems = compositionViolations(of: plan, at: time, playing: previous, offsetBefore: offset, view: view)
                    #expect(problems.isEmpty, "\(label), pass \(pass): \(problems.prefix(4))")
                    previous = plan.duration > 0 ? PlayingPlan(plan: plan, startTime: time) : nil
                    offset = plan.contentOffsetAfter
                }
                #expect(view.lastChangeTime == time, "\(label)")
                if let last = plans.last {
                    #expect(view.playingPlan?.plan == (last.duration > 0 ? last : nil), "\(label)")
                    #expect(view.isAnimating(at: time) == animated, "\(label)")
                }
            }
        }
        #expect(composed > 30 && continued > 0 && returned > 0, "seed \(seed): \(composed) changes composed, \(continued) leaving elements continued, \(returned) of them shown again")
    }

    @Test("A chain in which each change comes at or after the end of the plan before gives the plans of the calls without a time", arguments: LayoutKind.allCases)
    func changesAfterTheEndEqualTheUntimedCalls(kind: LayoutKind) throws {
        try forEachSeededRound("AnimationCompositionOracleTests.changesAfterTheEndEqualTheUntimedCalls", seed: 0xAF7E_12E4D, rounds: 24) { round, seed, generator in
            let path = CompositionScenario.Path.allCases[round % 3]
            let timing = Self.timings[(round / 3) % 3]
            var twinGenerator = generator
            let timed = try CompositionScenario(kind: kind, path: path, timing: timing, using: &generator)
            let untimed = try CompositionScenario(kind: kind, path: path, timing: timing, using: &twinGenerator)
            var time = Double(Int.random(in: -5...5, using: &generator))
            for step in 0..<Int.random(in: 2...6, using: &generator) {
                if let playing = timed.view.playingPlan {
                    time = playing.endTime + (Bool.random(using: &generator) ? 0 : Double.random(in: 0...1, using: &generator))
                }
                let label = "seed \(seed), round \(round), step \(step), \(path), \(timing), time \(time)"
                switch Int.random(in: 0..<8, using: &generator) {
                case 0:
                    let bounds = timed.randomBounds(using: &generator)
                    #expect(try timed.view.setBounds(bounds, at: time) == untimed.view.setBounds(bounds), "\(label)")
                case 1:
                    let spec = RandomLayoutSpec(kind: LayoutKind.allCases.randomElement(using: &generator) ?? kind, seed: generator.next())
                    let a = try timed.view.setCollectionViewLayout(spec.make(delegate: timed.delegate), at: time)
                    let b = untimed.view.setCollectionViewLayout(spec.make(delegate: untimed.delegate))
                    #expect(a == b, "\(label)")
                default:
                    let next = timed.randomNextSnapshot(using: &generator)
                    _ = untimed.randomNextSnapshot(using: &twinGenerator)
                    #expect(try timed.show(next, animated: true, at: time) == untimed.show(next, animated: true, at: nil), "\(label)")
                }
                twinGenerator = generator
            }
        }
    }

    @Test("A change at a time that is not finite or goes backwards is an AnimationClockError and leaves the view, its data source and the plan playing as they were")
    func badTimesAreRefused() throws {
        var generator = SplitMix64(seed: testSeed(default: 0xBAD_71E))
        let scenario = try CompositionScenario(kind: .flow, path: .diffable, timing: .easeInOut, using: &generator)
        let view = scenario.view
        let source = try #require(view.dataSource as? DiffableDataSource<TestSection, TestItem>)
        _ = try scenario.show(scenario.randomNextSnapshot(using: &generator), animated: true, at: 10)
        let playing = view.playingPlan
        let bounds = view.bounds
        let counts = view.itemCounts
        let snapshot = source.snapshot
        let layout = view.collectionViewLayout
        let next = scenario.randomNextSnapshot(using: &generator)
        for time in [Double.nan, .infinity, -.infinity, 9.999, -1] {
            let expected: AnimationClockError = time.isFinite ? .timeWentBackwards(time: time, lastTime: 10) : .nonFiniteTime(time)
            func check(_ error: any Error, _ call: String) {
                if let error = error as? AnimationClockError, case .nonFiniteTime = error, time.isNaN { return }
                #expect(error as? AnimationClockError == expected, "\(call) at \(time): \(error)")
            }
            do { _ = try source.apply(next, at: time); Issue.record("apply at \(time) succeeded") } catch { check(error, "apply") }
            do { _ = try view.performBatchUpdates([UpdateItem](), at: time); Issue.record("items at \(time) succeeded") } catch { check(error, "items") }
            do { _ = try view.performBatchUpdates(Changeset(), at: time); Issue.record("changeset at \(time) succeeded") } catch { check(error, "changeset") }
            do { _ = try view.performBatchUpdates(BatchUpdate(Changeset()), at: time); Issue.record("batch at \(time) succeeded") } catch { check(error, "batch") }
            do { _ = try view.setBounds(Rect(x: 0, y: 50, width: 10, height: 10), at: time); Issue.record("bounds at \(time) succeeded") } catch { check(error, "bounds") }
            do { _ = try view.setCollectionViewLayout(ListLayout(), at: time); Issue.record("layout at \(time) succeeded") } catch { check(error, "layout") }
            #expect(view.playingPlan == playing && view.lastChangeTime == 10 && view.bounds == bounds && view.itemCounts == counts)
            #expect(source.snapshot == snapshot && view.collectionViewLayout === layout)
        }
        #expect(AnimationClockError.timeWentBackwards(time: 1, lastTime: 2).description == "the time of a change must not go backwards: 1.0 is before the last change's 2.0")
    }

    @Test("A batch refused mid-way through a plan leaves the views of its leaving elements out of reuse: the next change equals the one made without the refused batch")
    func refusedBatchKeepsViewsReserved() throws {
        try forEachSeededRound("AnimationCompositionOracleTests.refusedBatchKeepsViewsReserved", seed: 0x5EF_05ED, rounds: 20) { round, seed, generator in
            var twinGenerator = generator
            let a = try CompositionScenario(kind: .list, path: .changeset, timing: .linear, using: &generator)
            let b = try CompositionScenario(kind: .list, path: .changeset, timing: .linear, using: &twinGenerator)
            let first = a.randomNextSnapshot(using: &generator)
            _ = b.randomNextSnapshot(using: &twinGenerator)
            #expect(try a.show(first, animated: true, at: 0) == b.show(first, animated: true, at: 0))
            // Counts that disagree with the batch.
            let countsBefore = a.view.itemCounts
            #expect(throws: BatchValidationError.self) { try a.view.performBatchUpdates([.insertItem(at: IndexPath(item: 0, section: 0))], at: 0.1) }
            #expect(a.view.itemCounts == countsBefore && a.view.lastChangeTime == 0)
            let second = a.randomNextSnapshot(using: &generator)
            _ = b.randomNextSnapshot(using: &twinGenerator)
            #expect(try a.show(second, animated: true, at: 0.1) == b.show(second, animated: true, at: 0.1), "seed \(seed), round \(round)")
        }
    }

    @Test("A change made without a time treats the plan playing as finished")
    func untimedChangeEndsThePlayingPlan() throws {
        var generator = SplitMix64(seed: testSeed(default: 0x0_1D))
        let scenario = try CompositionScenario(kind: .flow, path: .diffable, timing: .linear, using: &generator)
        _ = try scenario.show(scenario.randomNextSnapshot(using: &generator), animated: true, at: 1)
        #expect(scenario.view.playingPlan?.startTime == 1 && scenario.view.isAnimating(at: 1.1))
        _ = try scenario.show(scenario.randomNextSnapshot(using: &generator), animated: true, at: nil)
        #expect(scenario.view.playingPlan == nil && !scenario.view.isAnimating(at: 1.1) && scenario.view.lastChangeTime == 1)
        _ = try scenario.show(scenario.randomNextSnapshot(using: &generator), animated: false, at: 2)
        #expect(scenario.view.playingPlan == nil && scenario.view.lastChangeTime == 2)
    }
}
