import Foundation
import Testing
import TesseraTestTraits
import TesseraDiff
import TesseraLayout
import TesseraTestSupport
import TesseraView

/// A collection view of many sections that a chain of small random edits
/// (one to three item or section changes each) updates through batches, for
/// the oracles of layouts that lay out only the sections a batch changes.
///
/// The delegate's values follow the items and sections (each has values of
/// its own, from a random palette), as a real delegate's do: an item that
/// moves takes its size along, so a layout that kept a section a batch
/// changes would be caught.
final class SectionEditScenario {
    let spec: RandomLayoutSpec
    let delegate: AnyLayoutDelegate?
    private let palette: AnyLayoutDelegate
    private var generator: SplitMix64
    let view: CollectionView
    let source: DiffableDataSource<TestSection, TestItem>
    private(set) var sections: [(section: TestSection, items: [TestItem])] = []
    private var nextID = 0

    init(kind: LayoutKind, withDelegate: Bool, using generator: inout SplitMix64) throws {
        var id = 0
        var sections: [(section: TestSection, items: [TestItem])] = []
        for _ in 0..<Int.random(in: 0...24, using: &generator) {
            let section = TestSection(id: Self.fresh(&id))
            let items = (0..<Int.random(in: 0...30, using: &generator)).map { _ in TestItem(id: Self.fresh(&id)) }
            sections.append((section, items))
        }
        self.sections = sections
        nextID = id
        // Values for every item and section: each picks its own from these.
        palette = AnyLayoutDelegate.random(itemCounts: Array(repeating: 48, count: 32), using: &generator)
        self.generator = SplitMix64(seed: generator.next())
        let delegate = AnyLayoutDelegate()
        self.delegate = withDelegate ? delegate : nil
        spec = RandomLayoutSpec(kind: kind, seed: generator.next())
        let layout = spec.make(delegate: delegate)
        if !withDelegate { detachDelegate(from: layout) }
        view = CollectionView(layout: layout, size: randomViewSize(using: &generator), contentInset: randomContentInset(using: &generator))
        source = DiffableDataSource(collectionView: view)
        rekeyDelegate()
        try source.apply(snapshot, animated: false)
        // Somewhere in the middle, so that pinned and sticky headers stick.
        let content = view.contentSize
        view.setBounds(Rect(x: 0, y: (content.height / 2).rounded(.down), width: view.bounds.size.width, height: view.bounds.size.height))
    }

    private static func fresh(_ id: inout Int) -> Int {
        id += 1
        return id
    }

    var snapshot: TestSnapshot {
        var snapshot = TestSnapshot()
        for (section, items) in sections { snapshot.appendSection(section, items: items) }
        return snapshot
    }

    /// One to three random edits, shown through one batch update; returns
    /// what they were.
    @discardableResult
    func edit(using generator: inout SplitMix64) throws -> [String] {
        var done: [String] = []
        for _ in 0..<Int.random(in: 1...3, using: &generator) {
            let nonEmpty = sections.indices.filter { !sections[$0].items.isEmpty }
            switch Int.random(in: 0..<10, using: &generator) {
            case 0...1 where !sections.isEmpty:
                let s = Int.random(in: 0..<sections.count, using: &generator)
                let i = Int.random(in: 0...sections[s].items.count, using: &generator)
                if sections[s].items.count < 48 { sections[s].items.insert(TestItem(id: Self.fresh(&nextID)), at: i) }
                done.append("insert item \(i) in section \(s)")
            case 2 where !nonEmpty.isEmpty:
                let s = nonEmpty.randomElement(using: &generator)!
                let i = Int.random(in: 0..<sections[s].items.count, using: &generator)
                sections[s].items.remove(at: i)
                done.append("delete item \(i) of section \(s)")
            case 3 where !nonEmpty.isEmpty:
                let s = nonEmpty.randomElement(using: &generator)!
                let item = sections[s].items.remove(at: Int.random(in: 0..<sections[s].items.count, using: &generator))
                let to = Int.random(in: 0...sections[s].items.count, using: &generator)
                sections[s].items.insert(item, at: to)
                done.append("move an item within section \(s) to \(to)")
            case 4 where !nonEmpty.isEmpty:
                let s = nonEmpty.randomElement(using: &generator)!
                let item = sections[s].items.remove(at: Int.random(in: 0..<sections[s].items.count, using: &generator))
                let t = Int.random(in: 0..<sections.count, using: &generator)
                let to = Int.random(in: 0...sections[t].items.count, using: &generator)
                sections[t].items.insert(item, at: to)
                done.append("move an item from section \(s) to \(to) of section \(t)")
            case 5 where !nonEmpty.isEmpty:
                let s = nonEmpty.randomElement(using: &generator)!
                let i = Int.random(in: 0..<sections[s].items.count, using: &generator)
                sections[s].items[i].content += 1
                done.append("reload item \(i) of section \(s)")
            case 6 where sections.count < 32:
                let s = Int.random(in: 0...sections.count, using: &generator)
                sections.insert((TestSection(id: Self.fresh(&nextID)), (0..<Int.random(in: 0...6, using: &generator)).map { _ in TestItem(id: Self.fresh(&nextID)) }), at: s)
                done.append("insert section \(s)")
            case 7 where !sections.isEmpty:
                let s = Int.random(in: 0..<sections.count, using: &generator)
                sections.remove(at: s)
                done.append("delete section \(s)")
            case 8 where !sections.isEmpty:
                let moved = sections.remove(at: Int.random(in: 0..<sections.count, using: &generator))
                let s = Int.random(in: 0...sections.count, using: &generator)
                sections.insert(moved, at: s)
                done.append("move a section to \(s)")
            case 9 where !sections.isEmpty:
                let s = Int.random(in: 0..<sections.count, using: &generator)
                sections[s].section.content += 1
                done.append("reload section \(s)")
            default:
                continue
            }
        }
        rekeyDelegate()
        try source.apply(snapshot)
        return done
    }

    private var itemValues: [Int: IndexPath] = [:]
    private var sectionValues: [Int: Int] = [:]

    /// Gives each item and section its own values (new ones pick theirs
    /// from the palette) at the index paths where they are now.
    private func rekeyDelegate() {
        guard let delegate else { return }
        delegate.itemSizes = [:]
        delegate.spanItems = []
        delegate.aspectRatios = [:]
        delegate.insets = [:]
        delegate.lineSpacings = [:]
        delegate.interitemSpacings = [:]
        delegate.headerSizes = [:]
        delegate.footerSizes = [:]
        delegate.columnCounts = [:]
        for (s, entry) in sections.enumerated() {
            let own = sectionValues[entry.section.id] ?? Int.random(in: 0..<32, using: &generator)
            sectionValues[entry.section.id] = own
            delegate.insets[s] = palette.insets[own]
            delegate.lineSpacings[s] = palette.lineSpacings[own]
            delegate.interitemSpacings[s] = palette.interitemSpacings[own]
            delegate.headerSizes[s] = palette.headerSizes[own]
            delegate.footerSizes[s] = palette.footerSizes[own]
            delegate.columnCounts[s] = palette.columnCounts[own]
            for (i, item) in entry.items.enumerated() {
                let path = IndexPath(item: i, section: s)
                let own = itemValues[item.id] ?? IndexPath(item: Int.random(in: 0..<48, using: &generator), section: Int.random(in: 0..<32, using: &generator))
                itemValues[item.id] = own
                delegate.itemSizes[path] = palette.itemSizes[own]
                if palette.spanItems.contains(own) { delegate.spanItems.insert(path) }
                delegate.aspectRatios[path] = palette.aspectRatios[own]
            }
        }
    }

    var description: String { "\(spec)\(delegate == nil ? " without a delegate" : ""), counts \(view.itemCounts), bounds \(view.bounds)" }
}

@Suite("Batch updates lay out only the sections they change", .tags(.oracle), .cpuBound)
struct IncrementalLayoutOracleTests {
    @Test(
        "After every batch of random item and section edits, a layout equals a fresh one prepared on the same state, and rect queries equal a brute-force filter",
        arguments: LayoutKind.allCases, [false, true]
    )
    func batchEqualsFreshLayout(kind: LayoutKind, withDelegate: Bool) throws {
        try forEachSeededRound("IncrementalLayoutOracleTests.batchEqualsFreshLayout", seed: 0x5EC7_1045, rounds: 25) { round, seed, generator in
            let scenario = try SectionEditScenario(kind: kind, withDelegate: withDelegate, using: &generator)
            let view = scenario.view
            for step in 0..<12 {
                let edits = try scenario.edit(using: &generator)
                let label = "seed \(seed), round \(round), step \(step), \(edits), \(scenario.description)"
                let fresh = scenario.spec.make(delegate: scenario.delegate ?? AnyLayoutDelegate())
                if scenario.delegate == nil { detachDelegate(from: fresh) }
                let environment = StaticLayoutEnvironment(size: view.bounds.size, itemCounts: view.itemCounts, contentInset: view.contentInset)
                environment.bounds = view.bounds
                fresh.collectionView = environment
                fresh.prepare()
                let layout = view.collectionViewLayout
                let actual = LayoutState(of: layout, itemCounts: view.itemCounts)
                let expected = LayoutState(of: fresh, itemCounts: view.itemCounts)
                #expect(actual == expected, "\(label): \(actual.difference(from: expected))")
                let elements = everyElement(of: layout, itemCounts: view.itemCounts)
                let rects = [view.bounds] + randomQueryRects(count: 4, content: view.contentSize, elements: elements, using: &generator)
                let violations = rectQueryViolations(of: layout, elements: elements, rects: rects, inElementOrder: false)
                #expect(violations.isEmpty, "\(label): \(violations.prefix(3))")
                withExtendedLifetime(environment) {}
            }
        }
    }
}
