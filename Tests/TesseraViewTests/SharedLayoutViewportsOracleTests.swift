import Foundation
import Testing
import TesseraTestTraits
import TesseraDiff
import TesseraLayout
import TesseraTestSupport
@testable import TesseraView

/// One view whose layout several viewports share
/// (`performBatchUpdates(_:animated:viewports:)`, as the live list's
/// clients of one layout and size share one) against a private view per
/// viewport: over seeded random changes, every viewport's plan must be the
/// one its private view makes, view identities aside.
@Suite("One layout, many viewports: each viewport's plan is its own view's", .cpuBound)
struct SharedLayoutViewportsOracleTests {
    /// What the views show: sections of items, with content that changes.
    final class Model: CollectionViewDataSource {
        var sections: [(section: TestSection, items: [TestItem])] = []

        var snapshot: TestSnapshot {
            var snapshot = TestSnapshot()
            for (section, items) in sections { snapshot.appendSection(section, items: items) }
            return snapshot
        }

        func numberOfSections(in collectionView: CollectionView) -> Int { sections.count }

        func collectionView(_ collectionView: CollectionView, numberOfItemsInSection section: Int) -> Int {
            sections[section].items.count
        }

        func collectionView(_ collectionView: CollectionView, itemIdentifierAt indexPath: IndexPath) -> String? {
            String(sections[indexPath[0]].items[indexPath[1]].id)
        }
    }

    /// The plan with its view identities left out (the shared view names
    /// none).
    static func withoutViews(_ plan: AnimationPlan) -> AnimationPlan {
        var plan = plan
        let placeholder = ViewIdentity(reuseIdentifier: "", instance: -1)
        for index in plan.elements.indices { plan.elements[index].view = placeholder }
        plan.dequeuedViews = []
        plan.recycledViews = []
        return plan
    }

    /// A random change of the sections: items inserted, deleted, moved
    /// (also across sections) and changed, sections inserted, deleted,
    /// moved and changed.
    static func edit(_ sections: inout [(section: TestSection, items: [TestItem])], nextID: inout Int, using generator: inout SplitMix64) {
        for _ in 0..<Int.random(in: 1...4, using: &generator) {
            let nonEmpty = sections.indices.filter { !sections[$0].items.isEmpty }
            switch Int.random(in: 0..<10, using: &generator) {
            case 0...1 where !sections.isEmpty:
                let s = Int.random(in: 0..<sections.count, using: &generator)
                nextID += 1
                sections[s].items.insert(TestItem(id: nextID), at: Int.random(in: 0...sections[s].items.count, using: &generator))
            case 2...3 where !nonEmpty.isEmpty:
                let s = nonEmpty.randomElement(using: &generator)!
                sections[s].items.remove(at: Int.random(in: 0..<sections[s].items.count, using: &generator))
            case 4 where !nonEmpty.isEmpty:
                let s = nonEmpty.randomElement(using: &generator)!
                let item = sections[s].items.remove(at: Int.random(in: 0..<sections[s].items.count, using: &generator))
                let t = Int.random(in: 0..<sections.count, using: &generator)
                sections[t].items.insert(item, at: Int.random(in: 0...sections[t].items.count, using: &generator))
            case 5...6 where !nonEmpty.isEmpty:
                let s = nonEmpty.randomElement(using: &generator)!
                let i = Int.random(in: 0..<sections[s].items.count, using: &generator)
                sections[s].items[i].content += 1
            case 7:
                nextID += 1
                let items = (0..<Int.random(in: 0...6, using: &generator)).map { _ in
                    nextID += 1
                    return TestItem(id: nextID)
                }
                sections.insert((TestSection(id: nextID), items), at: Int.random(in: 0...sections.count, using: &generator))
            case 8 where !sections.isEmpty:
                sections.remove(at: Int.random(in: 0..<sections.count, using: &generator))
            case 9 where sections.count > 1:
                let section = sections.remove(at: Int.random(in: 0..<sections.count, using: &generator))
                sections.insert(section, at: Int.random(in: 0...sections.count, using: &generator))
            default:
                if !sections.isEmpty { sections[Int.random(in: 0..<sections.count, using: &generator)].section.content += 1 }
            }
        }
    }

    /// Runs `rounds` random changes through a shared view and private
    /// views with the given layouts and viewports, comparing every plan.
    ///
    /// - Parameters:
    ///   - makeLayout: A new layout, the same each call.
    ///   - size: The shared view's size.
    ///   - viewportSize: The size of viewport `index` (the layout must lay
    ///     it out as the shared size).
    static func check(
        label: String, seed: UInt64, rounds: Int, viewportCount: Int, anchors: Bool, clamps: Bool, inset: EdgeInsets,
        makeLayout: () -> CollectionViewLayout, size: Size, viewportSize: (Int) -> Size
    ) throws {
        var generator = SplitMix64(seed: seed)
        var nextID = 0
        var sections: [(section: TestSection, items: [TestItem])] = (0..<Int.random(in: 0...12, using: &generator)).map { _ in
            nextID += 1
            let section = TestSection(id: nextID)
            let items = (0..<Int.random(in: 0...30, using: &generator)).map { _ in
                nextID += 1
                return TestItem(id: nextID)
            }
            return (section, items)
        }
        let model = Model()
        model.sections = sections
        func makeView(size: Size) -> CollectionView {
            let view = CollectionView(layout: makeLayout(), size: size, contentInset: inset)
            view.anchorsScrollPosition = anchors
            view.clampsContentOffset = clamps
            view.dataSource = model
            view.reloadData()
            return view
        }
        let shared = makeView(size: size)
        let views = (0..<viewportCount).map { makeView(size: viewportSize($0)) }
        for view in views {
            let content = view.contentSize
            let origin = Point(
                x: Double(Int.random(in: -20...Int(max(0, content.width)) + 20, using: &generator)),
                y: Double(Int.random(in: -20...Int(max(0, content.height)) + 20, using: &generator))
            )
            view.setBounds(Rect(origin: origin, size: view.bounds.size), animated: false)
        }
        for round in 0..<rounds {
            let old = model.snapshot
            edit(&sections, nextID: &nextID, using: &generator)
            model.sections = sections
            let changeset = try diff(from: old, to: model.snapshot)
            let viewports = views.map(\.bounds)
            let plans = try shared.performBatchUpdates(changeset, animated: true, viewports: viewports)
            #expect(plans.count == views.count)
            for (index, view) in views.enumerated() {
                let expected = withoutViews(try view.performBatchUpdates(changeset, animated: true))
                #expect(plans[index] == expected, "\(label) seed \(seed), round \(round), viewport \(index) \(viewports[index]): \(changeset)")
                #expect(shared.layoutAttributesForElements(inViewport: view.bounds) == view.visibleElements, "\(label) seed \(seed), round \(round), viewport \(index): the elements after")
            }
            #expect(shared.contentSize == views.first?.contentSize ?? shared.contentSize)
        }
    }

    @Test("Every layout kind, random settings, viewports of the view's size at random places", arguments: LayoutKind.allCases)
    func everyLayout(kind: LayoutKind) throws {
        let base = testSeed(default: 0x5A7E)
        print("SharedLayoutViewportsOracleTests seed \(base) (TESSERA_SEED replays it)")
        for round in 0..<oracleRounds(24, minimum: 6) {
            var generator = SplitMix64(seed: base &+ UInt64(round) &* 7919 &+ UInt64(LayoutKind.allCases.firstIndex(of: kind)!) &* 104_729)
            let spec = RandomLayoutSpec(kind: kind, seed: generator.next())
            let size = randomViewSize(using: &generator)
            let inset = randomContentInset(using: &generator)
            let anchors = Bool.random(using: &generator)
            let clamps = Bool.random(using: &generator)
            try Self.check(
                label: "\(spec), anchors \(anchors), clamps \(clamps)", seed: generator.next(), rounds: 12, viewportCount: 4,
                anchors: anchors, clamps: clamps, inset: inset,
                makeLayout: {
                    let layout = spec.make(delegate: AnyLayoutDelegate())
                    detachDelegate(from: layout)
                    return layout
                },
                size: size, viewportSize: { _ in size }
            )
        }
    }

    @Test("The live list's layouts: viewports of one width and several heights (pinned headers in the grid)")
    func liveListLayouts() throws {
        let base = testSeed(default: 0x11FE)
        print("SharedLayoutViewportsOracleTests seed \(base) (TESSERA_SEED replays it)")
        let heights: [Double] = [640, 300, 900, 844]
        for round in 0..<oracleRounds(16, minimum: 4) {
            let seed = base &+ UInt64(round)
            try Self.check(
                label: "flow, pinned headers", seed: seed, rounds: 12, viewportCount: 4, anchors: false, clamps: false, inset: .zero,
                makeLayout: {
                    let layout = FlowLayout()
                    layout.itemSize = Size(width: 120, height: 150)
                    layout.minimumInteritemSpacing = 8
                    layout.minimumLineSpacing = 8
                    layout.sectionInset = EdgeInsets(all: 8)
                    layout.headerReferenceSize = Size(width: 0, height: 40)
                    layout.sectionHeadersPinToVisibleBounds = true
                    return layout
                },
                size: Size(width: 500, height: 640), viewportSize: { Size(width: 500, height: heights[$0]) }
            )
            try Self.check(
                label: "columns", seed: seed, rounds: 12, viewportCount: 4, anchors: false, clamps: false, inset: .zero,
                makeLayout: {
                    let layout = ColumnLayout()
                    layout.columnCount = 3
                    layout.itemHeight = 180
                    layout.headerHeight = 40
                    return layout
                },
                size: Size(width: 700, height: 640), viewportSize: { Size(width: 700, height: heights[$0]) }
            )
        }
    }
}
