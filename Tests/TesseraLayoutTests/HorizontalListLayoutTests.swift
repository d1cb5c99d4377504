import Foundation
import Testing
import TesseraTestTraits
import TesseraLayout
import TesseraTestSupport

/// A horizontal list delegate whose values come from dictionaries.
final class HorizontalTableDelegate: HorizontalListLayoutDelegate {
    var widths: [IndexPath: Double] = [:]
    var insets: [Int: EdgeInsets] = [:]

    func horizontalListLayout(_ layout: HorizontalListLayout, widthForItemAt indexPath: IndexPath) -> Double? { widths[indexPath] }
    func horizontalListLayout(_ layout: HorizontalListLayout, insetsForSectionAt section: Int) -> EdgeInsets? { insets[section] }
}

@Suite("HorizontalListLayout: worked examples", .cpuBound)
struct HorizontalListLayoutExampleTests {
    @Test("Defaults: 100-point items 8 apart, as tall as the view")
    func defaults() {
        let (layout, _) = prepared(HorizontalListLayout(), height: 100, itemCounts: [5])
        // 5 · 100 + 4 · 8 = 532 > 320: not centered.
        #expect(itemFrames(of: layout, itemCounts: [5]) == [[
            rect(0, 0, 100, 100), rect(108, 0, 100, 100), rect(216, 0, 100, 100), rect(324, 0, 100, 100), rect(432, 0, 100, 100),
        ]])
        #expect(layout.collectionViewContentSize == Size(width: 532, height: 100))
    }

    @Test("Sections follow each other, each inside its insets; items lose the vertical insets")
    func sections() {
        let (layout, _) = prepared(HorizontalListLayout(), height: 100, itemCounts: [2, 1]) {
            $0.itemWidth = 50
            $0.sectionInsets = EdgeInsets(top: 10, left: 5, bottom: 20, right: 5)
            $0.centerContent = false
        }
        // Section 0: 5, items at 5 and 63, ends at 113 + 5 = 118; section 1: item at 123, ends at 178.
        #expect(itemFrames(of: layout, itemCounts: [2, 1]) == [
            [rect(5, 10, 50, 70), rect(63, 10, 50, 70)],
            [rect(123, 10, 50, 70)],
        ])
        #expect(layout.collectionViewContentSize == Size(width: 178, height: 100))
    }

    @Test("Content narrower than the view is centered, and the content is as wide as the view")
    func centered() {
        let (layout, _) = prepared(HorizontalListLayout(), height: 100, itemCounts: [2, 1]) {
            $0.itemWidth = 50
            $0.sectionInsets = EdgeInsets(top: 10, left: 5, bottom: 20, right: 5)
        }
        // Row 178 wide in 320: moved right by 71.
        #expect(itemFrames(of: layout, itemCounts: [2, 1]) == [
            [rect(76, 10, 50, 70), rect(134, 10, 50, 70)],
            [rect(194, 10, 50, 70)],
        ])
        #expect(layout.collectionViewContentSize == Size(width: 320, height: 100))
        #expect(layout.layoutAttributesForElements(in: rect(0, 0, 100, 100)).map(\.indexPath) == [IndexPath(item: 0, section: 0)])
        #expect(layout.layoutAttributesForElements(in: rect(0, 0, 76, 100)).isEmpty)
    }

    @Test("Content exactly as wide as the view, or wider, is not moved")
    func wideContent() {
        for count in [3, 4] {
            let (layout, _) = prepared(HorizontalListLayout(), width: 316, height: 100, itemCounts: [count])
            #expect(itemFrames(of: layout, itemCounts: [count])[0].first == rect(0, 0, 100, 100), "\(count) items")
            #expect(layout.collectionViewContentSize.width == Double(count) * 108 - 8)
        }
    }

    @Test("Per-item widths and per-section insets from the delegate; the content inset shrinks the height")
    func delegateValues() {
        let delegate = HorizontalTableDelegate()
        delegate.widths = [IndexPath(item: 1, section: 0): 30, IndexPath(item: 0, section: 1): 0]
        delegate.insets = [1: EdgeInsets(top: 4, left: 12, bottom: 6, right: 0)]
        let (layout, _) = prepared(
            HorizontalListLayout(),
            width: 400, height: 120, itemCounts: [2, 2],
            contentInset: EdgeInsets(top: 10, left: 0, bottom: 10, right: 0)
        ) {
            $0.itemSpacing = 2
            $0.delegate = delegate
            $0.centerContent = false
        }
        // View height 100. Section 0: 0..100, 102..132. Section 1: 144, 146..246.
        #expect(itemFrames(of: layout, itemCounts: [2, 2]) == [
            [rect(0, 0, 100, 100), rect(102, 0, 30, 100)],
            [rect(144, 4, 0, 90), rect(146, 4, 100, 90)],
        ])
        #expect(layout.collectionViewContentSize == Size(width: 246, height: 100))
        // An empty item is never returned.
        #expect(layout.layoutAttributesForElements(in: rect(140, 0, 10, 100)).map(\.indexPath) == [IndexPath(item: 1, section: 1)])
    }

    @Test("Insets taller than the view give zero-height items, not negative ones")
    func tallInsets() {
        let (layout, _) = prepared(HorizontalListLayout(), height: 10, itemCounts: [1]) { $0.sectionInsets = EdgeInsets(top: 8, left: 0, bottom: 8, right: 0) }
        #expect(itemFrames(of: layout, itemCounts: [1])[0][0].size.height == 0)
        #expect(layout.layoutError == nil)
    }

    @Test("A change of the view's size invalidates; scrolling does not")
    func invalidation() {
        let (layout, environment) = prepared(HorizontalListLayout(), height: 100, itemCounts: [8])
        withExtendedLifetime(environment) {
            #expect(!layout.shouldInvalidateLayout(forBoundsChange: rect(300, 0, 320, 100)))
            #expect(layout.shouldInvalidateLayout(forBoundsChange: rect(0, 0, 320, 120)))
            #expect(layout.shouldInvalidateLayout(forBoundsChange: rect(0, 0, 400, 100)))
        }
    }

    @Test("A new view size lays everything out again")
    func sizeChange() {
        let (layout, environment) = prepared(HorizontalListLayout(), height: 100, itemCounts: [2])
        environment.bounds.size = Size(width: 500, height: 60)
        layout.prepare()
        #expect(itemFrames(of: layout, itemCounts: [2]) == [[rect(146, 0, 100, 60), rect(254, 0, 100, 60)]])
    }
}

@Suite("HorizontalListLayout: bad values and oracles", .tags(.oracle), .cpuBound)
struct HorizontalListLayoutOracleTests {
    @Test("Bad widths name the index path; bad insets the section; bad properties their name", arguments: badNumbers)
    func badValues(value: Double) {
        let path = IndexPath(item: 1, section: 1)
        let widths = HorizontalTableDelegate()
        widths.widths[path] = value
        let (layout, environment) = prepared(HorizontalListLayout(), height: 100, itemCounts: [2, 3]) { $0.delegate = widths }
        #expect(layout.layoutError?.subject == .itemSize(path))
        #expect(allFinite(layout, environment.itemCounts))

        let insets = HorizontalTableDelegate()
        insets.insets[1] = EdgeInsets(top: value)
        let (inset, _) = prepared(HorizontalListLayout(), height: 100, itemCounts: [2, 3]) { $0.delegate = insets }
        #expect(inset.layoutError?.subject == .sectionInset(section: 1))
        #expect(allFinite(inset, environment.itemCounts))

        let setters: [(String, (HorizontalListLayout) -> Void)] = [
            ("itemWidth", { $0.itemWidth = value }),
            ("itemSpacing", { $0.itemSpacing = value }),
            ("sectionInsets", { $0.sectionInsets = EdgeInsets(left: value) }),
        ]
        for (name, set) in setters {
            let (layout, _) = prepared(HorizontalListLayout(), height: 100, itemCounts: [3], configure: set)
            #expect(layout.layoutError?.subject == .property(name), "\(name)")
            #expect(allFinite(layout, [3]), "\(name)")
        }
    }

    static func randomDelegate(itemCounts: [Int], using generator: inout SplitMix64) -> HorizontalTableDelegate {
        let delegate = HorizontalTableDelegate()
        for (section, count) in itemCounts.enumerated() {
            if Bool.random(using: &generator) {
                delegate.insets[section] = .random(in: 0...20, using: &generator)
            }
            for item in 0..<count where Int.random(in: 0..<3, using: &generator) == 0 {
                delegate.widths[IndexPath(item: item, section: section)] = Double(Int.random(in: 0...200, using: &generator)) / 2
            }
        }
        return delegate
    }

    static func randomLayout(delegate: HorizontalTableDelegate, environment: StaticLayoutEnvironment, using generator: inout SplitMix64) -> HorizontalListLayout {
        let layout = HorizontalListLayout()
        layout.collectionView = environment
        layout.delegate = delegate
        layout.itemWidth = Double(Int.random(in: 0...120, using: &generator))
        layout.itemSpacing = Double(Int.random(in: 0...10, using: &generator))
        layout.centerContent = Int.random(in: 0..<4, using: &generator) > 0
        return layout
    }

    /// Few items (often centered) or many.
    static func randomCounts(using generator: inout SplitMix64) -> [Int] {
        let most = Bool.random(using: &generator) ? 3 : 30
        return (0..<Int.random(in: 0...5, using: &generator)).map { _ in Int.random(in: 0...most, using: &generator) }
    }

    @Test("Rect queries equal a brute-force filter, centered or not")
    func queries() {
        forEachSeededRound("HorizontalListLayoutOracleTests.queries", seed: 0x4012_1157, rounds: 200) { round, seed, generator in
            let itemCounts = Self.randomCounts(using: &generator)
            let delegate = Self.randomDelegate(itemCounts: itemCounts, using: &generator)
            let environment = StaticLayoutEnvironment(
                size: Size(width: Double(Int.random(in: 0...500, using: &generator)), height: Double(Int.random(in: 0...150, using: &generator))),
                itemCounts: itemCounts
            )
            let layout = Self.randomLayout(delegate: delegate, environment: environment, using: &generator)
            layout.prepare()
            #expect(layout.layoutError == nil, "seed \(seed), round \(round)")
            LayoutOracleTests.check(layout, itemCounts: itemCounts, seed: seed, round: round, using: &generator)
        }
    }

    @Test("After a context naming a section, the layout equals a fresh prepare, also when centering starts or stops")
    func incrementalInvalidation() {
        forEachSeededRound("HorizontalListLayoutOracleTests.incrementalInvalidation", seed: 0x4012_1A7A, rounds: 200) { round, seed, generator in
            var itemCounts = Self.randomCounts(using: &generator)
            if itemCounts.isEmpty { itemCounts = [1] }
            let delegate = Self.randomDelegate(itemCounts: itemCounts, using: &generator)
            let environment = StaticLayoutEnvironment(size: Size(width: 320, height: 100), itemCounts: itemCounts)
            let layout = Self.randomLayout(delegate: delegate, environment: environment, using: &generator)
            layout.prepare()

            let section = Int.random(in: 0..<itemCounts.count, using: &generator)
            itemCounts[section] = Int.random(in: 0...(Bool.random(using: &generator) ? 2 : 20), using: &generator)
            environment.itemCounts = itemCounts
            for item in 0..<itemCounts[section] {
                delegate.widths[IndexPath(item: item, section: section)] = Double(Int.random(in: 0...120, using: &generator))
            }
            delegate.insets[section] = EdgeInsets(all: Double(Int.random(in: 0...10, using: &generator)))
            let context = InvalidationContext(invalidateDataSourceCounts: true)
            context.invalidateSections([section])
            layout.invalidateLayout(with: context)
            layout.prepare()

            let fresh = HorizontalListLayout()
            fresh.collectionView = environment
            fresh.delegate = delegate
            fresh.itemWidth = layout.itemWidth
            fresh.itemSpacing = layout.itemSpacing
            fresh.centerContent = layout.centerContent
            fresh.prepare()
            #expect(allElements(of: layout, itemCounts: itemCounts) == allElements(of: fresh, itemCounts: itemCounts), "seed \(seed), round \(round)")
            #expect(layout.collectionViewContentSize == fresh.collectionViewContentSize, "seed \(seed), round \(round)")
            LayoutOracleTests.check(layout, itemCounts: itemCounts, seed: seed, round: round, using: &generator)
        }
    }
}
