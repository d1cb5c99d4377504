import Foundation
import Testing
import TesseraDiff
import TesseraLayout
import TesseraTestSupport
import TesseraView
import TesseraTestTraits

/// A data source whose items have fitted sizes, recording what the view
/// asks.
final class FittedSizeSource: CollectionViewDataSource {
    var counts: [Int]
    var fitted: [[Size]]
    /// Sizes given instead of the fitted ones (bad ones, say).
    var overrides: [IndexPath: Size] = [:]
    /// Every item asked about, in order.
    var asked: [IndexPath] = []

    init(counts: [Int], fitted: [[Size]]) {
        self.counts = counts
        self.fitted = fitted
    }

    func numberOfSections(in collectionView: CollectionView) -> Int { counts.count }
    func collectionView(_ collectionView: CollectionView, numberOfItemsInSection section: Int) -> Int { counts[section] }
    func collectionView(_ collectionView: CollectionView, preferredLayoutAttributesFitting layoutAttributes: LayoutAttributes) -> LayoutAttributes? {
        let path = layoutAttributesFor(layoutAttributes)
        asked.append(path)
        var preferred = layoutAttributes
        preferred.frame.size = overrides[path] ?? fitted[path[0]][path[1]]
        return preferred
    }

    private func layoutAttributesFor(_ attributes: LayoutAttributes) -> IndexPath { attributes.indexPath }

    /// Takes what was asked since the last call.
    func takeAsked() -> [IndexPath] {
        defer { asked = [] }
        return asked
    }
}

@Suite("Self-sizing collection view", .cpuBound)
struct SelfSizingViewTests {
    /// Scrolls from the top to the end of the content, one step at most a
    /// visible height, checking that no call asks about an item twice.
    static func scrollThrough(_ view: CollectionView, source: FittedSizeSource, comment: Comment) {
        var y = 0.0
        var steps = 0
        while steps < 100_000 {
            view.setBounds(Rect(x: 0, y: y, width: view.bounds.size.width, height: view.bounds.size.height), animated: false)
            let asked = source.takeAsked()
            #expect(Set(asked).count == asked.count, "\(comment): an item was asked about twice in one call")
            if view.bounds.maxY >= view.contentSize.height { break }
            y = view.bounds.origin.y + Swift.max(1, view.bounds.size.height * 0.8)
            steps += 1
        }
    }

    static func makeView(_ spec: SelfSizingSpec, size: Size) -> (CollectionView, FittedSizeSource) {
        let view = CollectionView(layout: spec.makeLayout(), size: size)
        let source = FittedSizeSource(counts: spec.counts, fitted: spec.fitted)
        view.dataSource = source
        view.reloadData()
        return (view, source)
    }

    /// Compares the view's layout with a fresh one given the fitted sizes.
    static func expectSettled(_ view: CollectionView, _ spec: SelfSizingSpec, fitted: [[Size]], comment: Comment, using generator: inout SplitMix64) {
        let layout = view.collectionViewLayout
        let delegate = FittedSizeDelegate(sizes: fitted)
        let fresh = spec.makeLayout(delegate: delegate)
        let environment = StaticLayoutEnvironment(size: view.bounds.size, itemCounts: spec.counts)
        fresh.collectionView = environment
        fresh.prepare()
        let elements = allElements(of: layout, itemCounts: spec.counts)
        #expect(elements == allElements(of: fresh, itemCounts: spec.counts), comment)
        #expect(view.contentSize == fresh.collectionViewContentSize, comment)
        let rects = randomQueryRects(count: 12, content: view.contentSize, elements: elements, using: &generator)
        let violations = rectQueryViolations(of: layout, elements: elements, rects: rects, inElementOrder: true)
        #expect(violations.isEmpty, "\(comment): \(violations.prefix(3))")
    }

    @Test("After random bounds changes and a scroll through, every item is sized and every frame equals a fresh layout given the fitted sizes", arguments: SelfSizingKind.allCases)
    func scrollingSizesEverything(kind: SelfSizingKind) {
        let seed = testSeed(default: 0x51_2E5)
        var generator = SplitMix64(seed: seed ^ UInt64(kind.rawValue.count))
        for round in 0..<30 {
            let spec = SelfSizingSpec(kind: kind, using: &generator)
            let comment = Comment(rawValue: "seed \(seed), round \(round): \(spec)")
            let (view, source) = Self.makeView(spec, size: Size(width: Double(Int.random(in: 160...500, using: &generator)), height: Double(Int.random(in: 120...700, using: &generator))))
            #expect(view.sizingError == nil, comment)
            let askedByReload = source.takeAsked()
            #expect(Set(askedByReload).count == askedByReload.count, "\(comment): an item was asked about twice in one call")
            for _ in 0..<Int.random(in: 0...6, using: &generator) {
                var size = view.bounds.size
                if Int.random(in: 0..<3, using: &generator) == 0 { size.width = Double(Int.random(in: 160...500, using: &generator)) }
                let y = Double.random(in: 0...Swift.max(0, view.contentSize.height), using: &generator).rounded(.down)
                view.setBounds(Rect(x: 0, y: y, width: size.width, height: size.height), animated: false)
                let asked = source.takeAsked()
                #expect(Set(asked).count == asked.count, "\(comment): an item was asked about twice in one call")
            }
            Self.scrollThrough(view, source: source, comment: comment)
            for (section, count) in spec.counts.enumerated() {
                for item in 0..<count {
                    #expect(!view.collectionViewLayout.needsPreferredLayoutAttributes(forItemAt: IndexPath(item: item, section: section)), "\(comment): item \(item) of section \(section) never sized")
                }
            }
            Self.expectSettled(view, spec, fitted: spec.fitted, comment: comment, using: &generator)
        }
    }

    @Test("Resizing items above the visible area keeps the first visible item where it is on screen, and the content as large as a fresh layout's", arguments: SelfSizingKind.allCases)
    func anchoring(kind: SelfSizingKind) throws {
        let seed = testSeed(default: 0xA4C4_0000)
        var generator = SplitMix64(seed: seed ^ UInt64(kind.rawValue.count))
        var checked = 0
        for round in 0..<30 {
            var spec = SelfSizingSpec(kind: kind, using: &generator, maxSections: 4, maxItems: 60)
            let (view, source) = Self.makeView(spec, size: Size(width: 360, height: 320))
            let comment = Comment(rawValue: "seed \(seed), round \(round): \(spec)")
            Self.scrollThrough(view, source: source, comment: comment)
            for _ in 0..<4 {
                view.setBounds(Rect(x: 0, y: (view.contentSize.height / 2 - 160).rounded(.down), width: 360, height: 320), animated: false)
                _ = source.takeAsked()
                let layout = view.collectionViewLayout
                guard let first = view.visibleElements.first(where: { $0.category == .cell }) else { break }
                let above = allElements(of: layout, itemCounts: spec.counts).filter { $0.category == .cell && $0.frame.minY < first.frame.minY }
                guard !above.isEmpty else { break }
                let targets = (0..<Int.random(in: 1...3, using: &generator)).map { _ in above.randomElement(using: &generator)!.indexPath }
                for path in targets { spec.fitted[path[0]][path[1]] = SelfSizingSpec.randomSize(kind: kind, using: &generator) }
                source.fitted = spec.fitted
                let onScreen = first.frame.minY - view.bounds.origin.y
                let plan = try view.invalidateItemSizes(at: targets, animated: false)
                let moved = try #require(layout.layoutAttributesForItem(at: first.indexPath))
                let maxOffset = view.contentSize.height - view.bounds.size.height
                if view.bounds.origin.y > 0 && view.bounds.origin.y < maxOffset {
                    #expect(moved.frame.minY - view.bounds.origin.y == onScreen, "\(comment): targets \(targets.map { Array($0) })")
                    checked += 1
                }
                #expect(plan.contentOffsetAfter == view.bounds.origin, comment)
                #expect(plan.contentSizeAfter == view.contentSize, comment)
                for element in plan.elements where element.category == .cell {
                    if let path = element.indexPathAfter { #expect(element.to == layout.layoutAttributesForItem(at: path), comment) }
                }
                Self.expectSettled(view, spec, fitted: spec.fitted, comment: comment, using: &generator)
            }
        }
        #expect(checked >= 20, "seed \(seed): only \(checked) resizes were checked")
    }

    @Test("A ListLayout's content height is the sum of its fitted heights, spacings and insets after resizes above the visible area")
    func listContentIsTheSum() throws {
        var generator = SplitMix64(seed: testSeed(default: 0x5077))
        let counts = [200, 0, 150]
        var fitted = counts.map { count in (0..<count).map { _ in Size(width: 0, height: Double(Int.random(in: 0...160, using: &generator)) / 2) } }
        let layout = ListLayout()
        layout.estimatedItemHeight = 44
        layout.interitemSpacing = 2
        layout.sectionInsets = EdgeInsets(top: 5, left: 0, bottom: 7, right: 0)
        let view = CollectionView(layout: layout, size: Size(width: 320, height: 400))
        let source = FittedSizeSource(counts: counts, fitted: fitted)
        view.dataSource = source
        view.reloadData()
        Self.scrollThrough(view, source: source, comment: "list sum")
        func sum() -> Double {
            fitted.reduce(0) { total, heights in
                total + 12 + heights.reduce(0) { $0 + $1.height } + Double(Swift.max(0, heights.count - 1)) * 2
            }
        }
        #expect(view.contentSize.height == sum())
        view.setBounds(Rect(x: 0, y: 3_000, width: 320, height: 400), animated: false)
        for _ in 0..<50 {
            let first = try #require(view.visibleElements.first { $0.category == .cell })
            let path = IndexPath(item: Int.random(in: 0..<first.indexPath[1], using: &generator), section: first.indexPath[0])
            fitted[path[0]][path[1]].height = Double(Int.random(in: 0...160, using: &generator)) / 2
            source.fitted = fitted
            let onScreen = first.frame.minY - view.bounds.origin.y
            try view.invalidateItemSizes(at: [path])
            #expect(view.contentSize.height == sum())
            #expect(try #require(layout.layoutAttributesForItem(at: first.indexPath)).frame.minY - view.bounds.origin.y == onScreen)
        }
    }

    @Test("A NaN, infinite or negative fitted size is a typed error naming the item, and changes nothing")
    func badSizes() throws {
        var generator = SplitMix64(seed: 3)
        var spec = SelfSizingSpec(kind: .list, using: &generator)
        spec.counts = [30]
        spec.fitted = [(0..<30).map { _ in Size(width: 0, height: 50) }]
        let (view, source) = Self.makeView(spec, size: Size(width: 320, height: 400))
        let layout = view.collectionViewLayout
        let path = IndexPath(item: 2, section: 0)
        for bad in [Size(width: 10, height: .nan), Size(width: 10, height: .infinity), Size(width: 10, height: -1)] {
            source.overrides[path] = bad
            let before = allElements(of: layout, itemCounts: spec.counts)
            let bounds = view.bounds
            #expect {
                try view.invalidateItemSizes(at: [IndexPath(item: 0, section: 0), path])
            } throws: { error in
                guard case let .invalidSize(indexPath, _) = error as? SelfSizingError else { return false }
                return indexPath == path
            }
            #expect(allElements(of: layout, itemCounts: spec.counts) == before)
            #expect(view.bounds == bounds)
        }
        #expect(throws: SelfSizingError.itemNotFound(IndexPath(item: 30, section: 0))) {
            try view.invalidateItemSizes(at: [IndexPath(item: 30, section: 0)])
        }

        // In an automatic pass: the item keeps its estimate, the others are sized.
        source.overrides = [IndexPath(item: 1, section: 0): Size(width: 0, height: -3)]
        view.reloadData()
        guard case let .invalidSize(indexPath, _) = try #require(view.sizingError) else { Issue.record("no error"); return }
        #expect(indexPath == IndexPath(item: 1, section: 0))
        #expect(layout.layoutAttributesForItem(at: indexPath)?.frame.height == spec.estimate.height)
        #expect(layout.layoutAttributesForItem(at: IndexPath(item: 0, section: 0))?.frame.height == 50)
        #expect(layout.needsPreferredLayoutAttributes(forItemAt: indexPath))
    }

    @Test("A batch update asks only about inserted and reloaded items; the others keep their fitted sizes", arguments: SelfSizingKind.allCases)
    func batchUpdates(kind: SelfSizingKind) throws {
        var generator = SplitMix64(seed: testSeed(default: 0xBA7C) ^ UInt64(kind.rawValue.count))
        var spec = SelfSizingSpec(kind: kind, using: &generator)
        spec.counts = [12, 8]
        spec.fitted = spec.counts.map { count in (0..<count).map { _ in SelfSizingSpec.randomSize(kind: kind, using: &generator) } }
        let (view, source) = Self.makeView(spec, size: Size(width: 400, height: 5_000))
        _ = source.takeAsked()
        // Insert item 0 of section 1 and reload item 3 of section 0.
        spec.counts[1] += 1
        spec.fitted[1].insert(SelfSizingSpec.randomSize(kind: kind, using: &generator), at: 0)
        spec.fitted[0][3] = SelfSizingSpec.randomSize(kind: kind, using: &generator)
        source.counts = spec.counts
        source.fitted = spec.fitted
        let plan = try view.performBatchUpdates([.insertItem(at: IndexPath(item: 0, section: 1)), .reloadItem(at: IndexPath(item: 3, section: 0))])
        #expect(Set(source.takeAsked()) == [IndexPath(item: 0, section: 1), IndexPath(item: 3, section: 0)])
        Self.expectSettled(view, spec, fitted: spec.fitted, comment: "\(kind) batch", using: &generator)
        for element in plan.elements where element.category == .cell {
            if let path = element.indexPathAfter { #expect(element.to == view.collectionViewLayout.layoutAttributesForItem(at: path)) }
        }
    }

    @Test("A DiffableDataSource sizes items with its fittedSize closure; an item whose content changes is asked about again")
    func diffableDataSource() throws {
        let layout = ListLayout()
        layout.estimatedItemHeight = 44
        let view = CollectionView(layout: layout, size: Size(width: 320, height: 2_000))
        let source = DiffableDataSource<TestSection, TestItem>(collectionView: view)
        var asked: [Int] = []
        source.fittedSize = { item, attributes in
            asked.append(item.id)
            return Size(width: attributes.size.width, height: Double(20 + item.content))
        }
        var snapshot = TestSnapshot()
        snapshot.appendSection(TestSection(id: 0), items: (0..<10).map { TestItem(id: $0, content: $0) })
        try source.apply(snapshot, animated: false)
        #expect(Set(asked) == Set(0..<10))
        for item in 0..<10 { #expect(layout.layoutAttributesForItem(at: IndexPath(item: item, section: 0))?.frame.height == Double(20 + item)) }
        asked = []
        var changed = snapshot
        changed[IndexPath(item: 4, section: 0)] = TestItem(id: 4, content: 80)
        try source.apply(changed)
        #expect(asked == [4])
        #expect(layout.layoutAttributesForItem(at: IndexPath(item: 4, section: 0))?.frame.height == 100)
    }

    @Test("A layout transition sizes the new layout's visible items, and the plan ends at their fitted frames")
    func transition() throws {
        var generator = SplitMix64(seed: testSeed(default: 0x7A45))
        let list = SelfSizingSpec(kind: .list, using: &generator, maxSections: 3, maxItems: 30)
        let (view, source) = Self.makeView(list, size: Size(width: 360, height: 600))
        var flowSpec = SelfSizingSpec(kind: .flow, using: &generator)
        flowSpec.counts = list.counts
        flowSpec.fitted = list.counts.map { count in (0..<count).map { _ in SelfSizingSpec.randomSize(kind: .flow, using: &generator) } }
        source.fitted = flowSpec.fitted
        _ = source.takeAsked()
        let flow = flowSpec.makeLayout()
        let plan = view.setCollectionViewLayout(flow, animated: false)
        let asked = source.takeAsked()
        #expect(Set(asked).count == asked.count)
        for attributes in view.visibleElements where attributes.category == .cell {
            #expect(!flow.needsPreferredLayoutAttributes(forItemAt: attributes.indexPath))
            #expect(attributes.size == flowSpec.fitted[attributes.indexPath[0]][attributes.indexPath[1]])
        }
        for element in plan.elements where element.category == .cell {
            if let path = element.indexPathAfter, let now = flow.layoutAttributesForItem(at: path), now.frame.intersects(view.bounds) {
                #expect(element.to == now)
            }
        }
    }

    @Test("A horizontal FlowLayout moves the offset along x when an item before the visible area changes width")
    func horizontalFlowAnchoring() throws {
        let layout = FlowLayout()
        layout.scrollDirection = .horizontal
        layout.estimatedItemSize = Size(width: 60, height: 60)
        let count = 400
        var generator = SplitMix64(seed: testSeed(default: 0x40F1))
        var fitted = [(0..<count).map { _ in Size(width: Double(Int.random(in: 10...120, using: &generator)), height: 100) }]
        let source = FittedSizeSource(counts: [count], fitted: fitted)
        let view = CollectionView(layout: layout, size: Size(width: 400, height: 300))
        view.dataSource = source
        view.reloadData()
        var x = 0.0
        while view.bounds.maxX < view.contentSize.width {
            view.setBounds(Rect(x: x, y: 0, width: 400, height: 300), animated: false)
            x = view.bounds.minX + 300
        }
        view.setBounds(Rect(x: (view.contentSize.width / 2).rounded(.down), y: 0, width: 400, height: 300), animated: false)
        for _ in 0..<20 {
            let first = try #require(view.visibleElements.first { $0.category == .cell })
            let before = (0..<count).filter { layout.layoutAttributesForItem(at: IndexPath(item: $0, section: 0))!.frame.minX < first.frame.minX - 200 }
            let item = try #require(before.randomElement(using: &generator))
            fitted[0][item].width = Double(Int.random(in: 10...120, using: &generator))
            source.fitted = fitted
            let onScreen = first.frame.minX - view.bounds.origin.x
            try view.invalidateItemSizes(at: [IndexPath(item: item, section: 0)])
            #expect(try #require(layout.layoutAttributesForItem(at: first.indexPath)).frame.minX - view.bounds.origin.x == onScreen)
            #expect(view.bounds.origin.y == 0)
        }
    }

    @Test("Items a shrinking item brings into view start where they were, below the visible area")
    func appearingItemsStartWhereTheyWere() throws {
        let layout = ListLayout()
        layout.estimatedItemHeight = 40
        let source = FittedSizeSource(counts: [100], fitted: [Array(repeating: Size(width: 0, height: 50), count: 100)])
        let view = CollectionView(layout: layout, size: Size(width: 320, height: 400))
        view.dataSource = source
        view.reloadData()
        Self.scrollThrough(view, source: source, comment: "shrink")
        view.setBounds(Rect(x: 0, y: 0, width: 320, height: 400), animated: false)
        source.fitted[0][2] = Size(width: 0, height: 10)
        let plan = try view.invalidateItemSizes(at: [IndexPath(item: 2, section: 0)])
        let appearing = plan.elements.filter { $0.indexPathBefore.map { $0[1] >= 8 } ?? false }
        #expect(!appearing.isEmpty)
        for element in appearing {
            #expect(element.from.frame.minY == element.to.frame.minY + 40)
            #expect(element.from.alpha == 1)
        }
    }
}
