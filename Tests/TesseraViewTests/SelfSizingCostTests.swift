import Foundation
import Testing
import TesseraDiff
import TesseraLayout
import TesseraTestSupport
import TesseraView

/// Fitted heights by item, changed by the test, for sections of given counts.
private final class HeightSource: CollectionViewDataSource {
    var counts: [Int]
    var heights: [IndexPath: Double] = [:]

    init(counts: [Int]) {
        self.counts = counts
    }

    func height(at path: IndexPath) -> Double { heights[path] ?? Double(20 + (path[0] * 31 + path[1] * 7) % 40) }

    func numberOfSections(in collectionView: CollectionView) -> Int { counts.count }
    func collectionView(_ collectionView: CollectionView, numberOfItemsInSection section: Int) -> Int { counts[section] }
    func collectionView(_ collectionView: CollectionView, preferredLayoutAttributesFitting layoutAttributes: LayoutAttributes) -> LayoutAttributes? {
        var fitted = layoutAttributes
        fitted.frame.size.height = height(at: layoutAttributes.indexPath)
        return fitted
    }
}

/// A list layout delegate that answers nothing and counts what it is asked:
/// laying a section out asks for its insets and for every item's height.
private final class CountingListDelegate: ListLayoutDelegate {
    var itemHeights = 0
    var sectionInsets = 0
    func listLayout(_ layout: ListLayout, heightForItemAt indexPath: IndexPath) -> Double? {
        itemHeights += 1
        return nil
    }
    func listLayout(_ layout: ListLayout, insetsForSectionAt section: Int) -> EdgeInsets? {
        sectionInsets += 1
        return nil
    }
}

@MainActor
@Suite("Self-sizing cost")
struct SelfSizingCostTests {
    @Test("Seeded: in a self-sizing ListLayout, resizing items lays no section out again (the delegate is asked nothing) and gives a fresh layout's frames; only what was resized costs")
    func listResizesInPlace() throws {
        try forEachSeededRound("SelfSizingCostTests.listResizesInPlace", seed: 0xC057_5123, rounds: 20) { round, seed, generator in
            let counts = (0..<Int.random(in: 1...4, using: &generator)).map { _ in Int.random(in: 1...3_000, using: &generator) }
            let source = HeightSource(counts: counts)
            let delegate = CountingListDelegate()
            let layout = ListLayout()
            layout.estimatedItemHeight = 44
            layout.interitemSpacing = 2
            layout.delegate = delegate
            let view = CollectionView(layout: layout, size: Size(width: 320, height: 480))
            view.dataSource = source
            view.reloadData()
            let content = view.contentSize.height
            _ = view.setBounds(Rect(x: 0, y: Double.random(in: 0...max(content - 480, 0), using: &generator).rounded(), width: 320, height: 480), animated: false)
            // Every item the test resizes has been sized once (a fitted size
            // the layout keeps), as an item scrolled past has.
            var named: [IndexPath] = []
            for _ in 0..<Int.random(in: 1...8, using: &generator) {
                let section = Int.random(in: 0..<counts.count, using: &generator)
                named.append(IndexPath(item: Int.random(in: 0..<counts[section], using: &generator), section: section))
            }
            try view.invalidateItemSizes(at: named, animated: false)
            let comment = Comment(rawValue: "seed \(seed), round \(round): counts \(counts), items \(named.map { Array($0) })")
            delegate.itemHeights = 0
            delegate.sectionInsets = 0
            for path in named { source.heights[path] = Double(Int.random(in: 1...120, using: &generator)) }
            try view.invalidateItemSizes(at: named, animated: false)
            #expect(delegate.sectionInsets == 0, comment)
            #expect(delegate.itemHeights == 0, comment)
            // The frames equal a fresh layout's given the same fitted sizes.
            for path in named {
                let frame = try #require(layout.layoutAttributesForItem(at: path)?.frame, comment)
                #expect(frame.height == source.height(at: path), comment)
            }
            let fresh = ListLayout()
            fresh.interitemSpacing = 2
            let heights = source
            final class Fixed: ListLayoutDelegate {
                let source: HeightSource
                let sized: Set<IndexPath>
                init(_ source: HeightSource, sized: Set<IndexPath>) {
                    self.source = source
                    self.sized = sized
                }
                func listLayout(_ layout: ListLayout, heightForItemAt indexPath: IndexPath) -> Double? { sized.contains(indexPath) ? source.height(at: indexPath) : 44 }
            }
            var sized = Set<IndexPath>()
            for section in counts.indices {
                for item in 0..<counts[section] where !layout.needsPreferredLayoutAttributes(forItemAt: IndexPath(item: item, section: section)) {
                    sized.insert(IndexPath(item: item, section: section))
                }
            }
            let fixed = Fixed(heights, sized: sized)
            fresh.delegate = fixed
            let environment = StaticLayoutEnvironment(size: view.bounds.size, itemCounts: counts)
            environment.bounds = view.bounds
            fresh.collectionView = environment
            fresh.prepare()
            #expect(fresh.collectionViewContentSize == layout.collectionViewContentSize, comment)
            let probe = Rect(x: 0, y: 0, width: 320, height: layout.collectionViewContentSize.height)
            let mine = layout.layoutAttributesForElements(in: probe).map { "\($0.indexPath) \($0.frame)" }
            let theirs = fresh.layoutAttributesForElements(in: probe).map { "\($0.indexPath) \($0.frame)" }
            #expect(mine == theirs, comment)
        }
    }
}
