import Foundation
import Testing
import TesseraTestTraits
import TesseraDiff
import TesseraLayout
import TesseraTestSupport
import TesseraView

/// A collection view showing random snapshots through a built-in layout of
/// random settings, for the oracles that follow a layout through batch
/// updates and bounds changes.
final class LayoutViewScenario {
    let spec: RandomLayoutSpec
    let delegate: AnyLayoutDelegate
    let view: CollectionView
    let source: DiffableDataSource<TestSection, TestItem>
    var pairs: RandomSnapshotPairs

    init(kind: LayoutKind, using generator: inout SplitMix64) throws {
        pairs = RandomSnapshotPairs(seed: generator.next(), maxSections: 6, maxItems: 60)
        // Values for every index path a snapshot can have.
        delegate = AnyLayoutDelegate.random(itemCounts: Array(repeating: 60, count: 8), using: &generator)
        spec = RandomLayoutSpec(kind: kind, seed: generator.next())
        view = CollectionView(
            layout: spec.make(delegate: delegate), size: randomViewSize(using: &generator),
            contentInset: randomContentInset(using: &generator)
        )
        source = DiffableDataSource(collectionView: view)
        try source.apply(pairs.next().old, animated: false)
    }

    /// Shows a new random snapshot through a batch update.
    @discardableResult
    func applyRandomSnapshot() throws -> AnimationPlan {
        try source.apply(pairs.next().new)
    }

    /// The range of content offsets the view allows for its content now.
    func offsetRange() -> (x: ClosedRange<Double>, y: ClosedRange<Double>) {
        let content = view.contentSize
        let inset = view.contentInset
        let size = view.bounds.size
        let maxX = Swift.max(-inset.left, content.width + inset.right - size.width)
        let maxY = Swift.max(-inset.top, content.height + inset.bottom - size.height)
        return (-inset.left...maxX, -inset.top...maxY)
    }

    /// Resizes the view, then scrolls it to a random offset it allows.
    func resizeAndScroll(using generator: inout SplitMix64) {
        view.setBounds(Rect(origin: view.bounds.origin, size: randomViewSize(using: &generator)))
        let range = offsetRange()
        let offset = Point(
            x: Double.random(in: range.x, using: &generator).rounded(.down),
            y: Double.random(in: range.y, using: &generator).rounded(.down)
        )
        view.setBounds(Rect(origin: offset, size: view.bounds.size))
    }

    var description: String { "\(spec), counts \(view.itemCounts), bounds \(view.bounds), inset \(view.contentInset)" }
}

@Suite("Layout oracles through a collection view", .tags(.oracle), .cpuBound)
struct LayoutViewOracleTests {
    @Test("After every batch update and bounds change, every element stays within the content size at every allowed offset, and rect queries equal a brute-force filter", arguments: LayoutKind.allCases)
    func contentEnclosesEveryElement(kind: LayoutKind) throws {
        try forEachSeededRound("LayoutViewOracleTests.contentEnclosesEveryElement", seed: 0xB0_0D5, rounds: 40) { round, seed, generator in
            let scenario = try LayoutViewScenario(kind: kind, using: &generator)
            let view = scenario.view
            for step in 0..<8 {
                if Bool.random(using: &generator) {
                    try scenario.applyRandomSnapshot()
                } else {
                    scenario.resizeAndScroll(using: &generator)
                }
                let layout = view.collectionViewLayout
                #expect(layout.layoutError == nil, "seed \(seed), round \(round), step \(step)")
                // Scrolled through the view to its first and last offsets and
                // one between (pinned and sticky headers follow the offset).
                let offsets = allowedContentOffsets(content: view.contentSize, size: view.bounds.size, contentInset: view.contentInset, random: 1, using: &generator)
                for offset in offsets {
                    view.setBounds(Rect(origin: offset, size: view.bounds.size))
                    let elements = everyElement(of: layout, itemCounts: view.itemCounts)
                    let rects = [view.bounds] + randomQueryRects(count: 3, content: view.contentSize, elements: elements, using: &generator)
                    let violations = contentAndQueryViolations(of: layout, itemCounts: view.itemCounts, elements: elements, rects: rects)
                    #expect(violations.isEmpty, "seed \(seed), round \(round), step \(step), \(scenario.description), content \(view.contentSize): \(violations.prefix(3))")
                }
            }
        }
    }

    @Test("After any bounds change, a layout equals a fresh one prepared at the new bounds", arguments: LayoutKind.allCases)
    func boundsChangeEqualsFreshLayout(kind: LayoutKind) throws {
        try forEachSeededRound("LayoutViewOracleTests.boundsChangeEqualsFreshLayout", seed: 0xB0_0D5_C4A6, rounds: 40) { round, seed, generator in
            let scenario = try LayoutViewScenario(kind: kind, using: &generator)
            for step in 0..<10 {
                switch Int.random(in: 0..<4, using: &generator) {
                case 0:
                    try scenario.applyRandomSnapshot()
                case 1:
                    // A change of height or width alone.
                    var size = scenario.view.bounds.size
                    let other = randomViewSize(using: &generator)
                    if Bool.random(using: &generator) { size.height = other.height } else { size.width = other.width }
                    scenario.view.setBounds(Rect(origin: scenario.view.bounds.origin, size: size))
                default:
                    scenario.resizeAndScroll(using: &generator)
                }
                let view = scenario.view
                let fresh = scenario.spec.make(delegate: scenario.delegate)
                let environment = StaticLayoutEnvironment(size: view.bounds.size, itemCounts: view.itemCounts, contentInset: view.contentInset)
                environment.bounds = view.bounds
                fresh.collectionView = environment
                fresh.prepare()
                let actual = LayoutState(of: view.collectionViewLayout, itemCounts: view.itemCounts)
                let expected = LayoutState(of: fresh, itemCounts: view.itemCounts)
                #expect(actual == expected, "seed \(seed), round \(round), step \(step), \(scenario.description): \(actual.difference(from: expected))")
            }
        }
    }

    @Test("A list that is not hugging its contents grows and shrinks with the view's height")
    func listFollowsHeight() throws {
        let source = TestCountsSource(counts: [1])
        let layout = ListLayout()
        let view = CollectionView(layout: layout, size: Size(width: 100, height: 300))
        view.dataSource = source
        view.reloadData()
        #expect(view.contentSize == Size(width: 100, height: 300))
        view.setBounds(Rect(x: 0, y: 0, width: 100, height: 500))
        #expect(view.contentSize == Size(width: 100, height: 500))
        view.setBounds(Rect(x: 0, y: 0, width: 100, height: 200))
        #expect(view.contentSize == Size(width: 100, height: 200))
        let hugging = ListLayout()
        hugging.hugContents = true
        let huggingView = CollectionView(layout: hugging, size: Size(width: 100, height: 300))
        huggingView.dataSource = source
        huggingView.reloadData()
        huggingView.setBounds(Rect(x: 0, y: 0, width: 100, height: 500))
        #expect(huggingView.contentSize == Size(width: 100, height: 36))
    }

    @Test("Plan elements name only elements that existed before and exist after, as headers and footers come and go", arguments: LayoutKind.allCases)
    func planIndexPathsNameRealElements(kind: LayoutKind) throws {
        var appeared = 0
        var disappeared = 0
        let seed = testSeed(default: 0x91A4_5EC7)
        try forEachSeededRound("LayoutViewOracleTests.planIndexPathsNameRealElements", seed: seed, rounds: 30) { round, seed, generator in
            let scenario = try LayoutViewScenario(kind: kind, using: &generator)
            let view = scenario.view
            for step in 0..<8 {
                // Headers and footers come and go: some sections gain or
                // lose them, with or without a reload of the section.
                for section in 0..<8 where Int.random(in: 0..<3, using: &generator) == 0 {
                    scenario.delegate.headerSizes[section] = Size(width: 20, height: Bool.random(using: &generator) ? 0 : 20)
                    scenario.delegate.footerSizes[section] = Size(width: 20, height: Bool.random(using: &generator) ? 0 : 15)
                }
                let before = Set(everyElement(of: view.collectionViewLayout, itemCounts: view.itemCounts).map(ElementKey.init))
                let plan: AnimationPlan
                if Bool.random(using: &generator), !view.itemCounts.isEmpty {
                    let section = Int.random(in: 0..<view.itemCounts.count, using: &generator)
                    plan = try view.performBatchUpdates([.reloadSection(section)])
                } else {
                    plan = try scenario.applyRandomSnapshot()
                }
                let after = Set(everyElement(of: view.collectionViewLayout, itemCounts: view.itemCounts).map(ElementKey.init))
                let label = "seed \(seed), round \(round), step \(step), \(scenario.description)"
                for element in plan.elements {
                    if let path = element.indexPathBefore {
                        #expect(before.contains(ElementKey(category: element.category, indexPath: path)), "\(label): \(element.category) before at \(Array(path)) did not exist (\(element.disposition))")
                    }
                    if let path = element.indexPathAfter {
                        #expect(after.contains(ElementKey(category: element.category, indexPath: path)), "\(label): \(element.category) after at \(Array(path)) does not exist (\(element.disposition))")
                    }
                    if element.disposition == .insert { #expect(element.indexPathBefore == nil, "\(label): \(element)") }
                    if element.disposition == .delete { #expect(element.indexPathAfter == nil, "\(label): \(element)") }
                    if element.category != .cell {
                        if element.indexPathBefore == nil { appeared += 1 }
                        if element.indexPathAfter == nil { disappeared += 1 }
                    }
                }
            }
        }
        // A horizontal list has no headers or footers.
        #expect(kind == .horizontalList || (appeared > 0 && disappeared > 0), "seed \(seed): \(appeared) headers or footers appeared, \(disappeared) disappeared")
    }

    @Test("A header given to a reloaded section is inserted, and one taken away is deleted")
    func headerComesAndGoesWithReload() throws {
        let delegate = AnyLayoutDelegate()
        let layout = FlowLayout()
        layout.delegate = delegate
        let source = TestCountsSource(counts: [2])
        let view = CollectionView(layout: layout, size: Size(width: 320, height: 300))
        view.dataSource = source
        view.reloadData()
        let header = ElementCategory.supplementaryView(ElementKind.sectionHeader)
        delegate.headerSizes[0] = Size(width: 0, height: 30)
        let gained = try view.performBatchUpdates([.reloadSection(0)])
        let appearing = gained.elements.first { $0.category == header }
        #expect(appearing?.indexPathBefore == nil)
        #expect(appearing?.indexPathAfter == IndexPath(item: 0, section: 0))
        #expect(appearing?.disposition == .insert)
        #expect(appearing?.from.alpha == 0)
        delegate.headerSizes[0] = nil
        let lost = try view.performBatchUpdates([.reloadSection(0)])
        let disappearing = lost.elements.first { $0.category == header }
        #expect(disappearing?.indexPathBefore == IndexPath(item: 0, section: 0))
        #expect(disappearing?.indexPathAfter == nil)
        #expect(disappearing?.disposition == .delete)
        #expect(disappearing?.to.alpha == 0)
    }
}
