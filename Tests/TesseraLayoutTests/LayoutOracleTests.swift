import Foundation
import Testing
import TesseraTestTraits
import TesseraLayout
import TesseraTestSupport

/// Random layouts whose every rect query is compared with a brute-force
/// filter over every element, and whose incremental invalidation is compared
/// with a fresh layout.
@Suite("Layout oracles", .tags(.oracle), .cpuBound)
struct LayoutOracleTests {
    /// Random per-section and per-item values for a delegate.
    static func randomDelegate(itemCounts: [Int], using generator: inout SplitMix64) -> TableDelegate {
        let delegate = TableDelegate()
        for (section, count) in itemCounts.enumerated() {
            if Bool.random(using: &generator) {
                delegate.insets[section] = .random(in: 0...20, using: &generator)
            }
            if Bool.random(using: &generator) { delegate.lineSpacings[section] = Double(Int.random(in: 0...12, using: &generator)) }
            if Bool.random(using: &generator) { delegate.interitemSpacings[section] = Double(Int.random(in: 0...12, using: &generator)) }
            if Bool.random(using: &generator) { delegate.headerSizes[section] = Size(width: 30, height: Double(Int.random(in: 0...40, using: &generator))) }
            if Bool.random(using: &generator) { delegate.footerSizes[section] = Size(width: 30, height: Double(Int.random(in: 0...40, using: &generator))) }
            for item in 0..<count where Int.random(in: 0..<3, using: &generator) > 0 {
                delegate.itemSizes[IndexPath(item: item, section: section)] = Size(
                    width: Double(Int.random(in: 0...160, using: &generator)) / 2,
                    height: Double(Int.random(in: 0...120, using: &generator)) / 2
                )
            }
        }
        return delegate
    }

    /// The rect-query oracle (``rectQueryViolations(of:elements:rects:inElementOrder:)``)
    /// over 30 random rects, with elements returned in the layout's own order.
    static func check(_ layout: CollectionViewLayout, itemCounts: [Int], seed: UInt64, round: Int, using generator: inout SplitMix64) {
        let elements = allElements(of: layout, itemCounts: itemCounts)
        let rects = randomQueryRects(count: 30, content: layout.collectionViewContentSize, elements: elements, using: &generator)
        let violations = rectQueryViolations(of: layout, elements: elements, rects: rects, inElementOrder: true)
        #expect(violations.isEmpty, "seed \(seed), round \(round): \(violations.prefix(3))")
    }

    @Test("FlowLayout rect queries equal a brute-force filter, vertical and horizontal, pinned or not")
    func flowQueries() {
        forEachSeededRound("LayoutOracleTests.flowQueries", seed: 0xF10A, rounds: 150) { round, seed, generator in
            let itemCounts = (0..<Int.random(in: 0...6, using: &generator)).map { _ in Int.random(in: 0...40, using: &generator) }
            let delegate = Self.randomDelegate(itemCounts: itemCounts, using: &generator)
            let environment = StaticLayoutEnvironment(size: Size(width: 320, height: 480), itemCounts: itemCounts)
            environment.bounds.origin.y = Double(Int.random(in: 0...300, using: &generator))
            let layout = FlowLayout()
            layout.collectionView = environment
            layout.delegate = delegate
            layout.scrollDirection = Bool.random(using: &generator) ? .vertical : .horizontal
            layout.sectionHeadersPinToVisibleBounds = Int.random(in: 0..<4, using: &generator) == 0
            layout.fullLineAlignment = LineAlignment.allCases.randomElement(using: &generator)!
            layout.lastLineAlignment = LineAlignment.allCases.randomElement(using: &generator)!
            layout.prepare()
            #expect(layout.layoutError == nil)
            Self.check(layout, itemCounts: itemCounts, seed: seed, round: round, using: &generator)
        }
    }

    @Test("ListLayout rect queries equal a brute-force filter")
    func listQueries() {
        forEachSeededRound("LayoutOracleTests.listQueries", seed: 0x1157, rounds: 150) { round, seed, generator in
            let itemCounts = (0..<Int.random(in: 0...6, using: &generator)).map { _ in Int.random(in: 0...40, using: &generator) }
            let delegate = Self.randomDelegate(itemCounts: itemCounts, using: &generator)
            let environment = StaticLayoutEnvironment(size: Size(width: 320, height: 480), itemCounts: itemCounts)
            let layout = ListLayout()
            layout.collectionView = environment
            layout.delegate = delegate
            layout.insetSupplementaryViews = Bool.random(using: &generator)
            layout.prepare()
            Self.check(layout, itemCounts: itemCounts, seed: seed, round: round, using: &generator)
        }
    }

    @Test("After a context naming a section, flow and list layouts equal a full re-prepare")
    func incrementalInvalidation() {
        forEachSeededRound("LayoutOracleTests.incrementalInvalidation", seed: 0x1A7A, rounds: 100) { round, seed, generator in
            var itemCounts = (0..<Int.random(in: 1...6, using: &generator)).map { _ in Int.random(in: 0...30, using: &generator) }
            let delegate = Self.randomDelegate(itemCounts: itemCounts, using: &generator)
            let environment = StaticLayoutEnvironment(size: Size(width: 320, height: 480), itemCounts: itemCounts)
            let flow = FlowLayout()
            let list = ListLayout()
            for layout in [flow, list] as [CollectionViewLayout] { layout.collectionView = environment }
            flow.delegate = delegate
            list.delegate = delegate
            flow.prepare()
            list.prepare()

            // Change a section's count and sizes, then name only that section.
            let section = Int.random(in: 0..<itemCounts.count, using: &generator)
            itemCounts[section] = Int.random(in: 0...30, using: &generator)
            environment.itemCounts = itemCounts
            for item in 0..<itemCounts[section] {
                delegate.itemSizes[IndexPath(item: item, section: section)] = Size(width: Double(Int.random(in: 10...90, using: &generator)), height: Double(Int.random(in: 10...60, using: &generator)))
            }
            delegate.headerSizes[section] = Size(width: 0, height: Double(Int.random(in: 0...30, using: &generator)))
            let split = Bool.random(using: &generator)
            let laterSection = Int.random(in: section..<itemCounts.count, using: &generator)
            for layout in [flow, list] as [CollectionViewLayout] {
                if split {
                    // Counts changed somewhere, merged with a context naming a later section.
                    layout.invalidateLayout(with: InvalidationContext(invalidateDataSourceCounts: true))
                    let items = InvalidationContext()
                    items.invalidateItems(at: [IndexPath(item: 0, section: laterSection)])
                    layout.invalidateLayout(with: items)
                } else {
                    let context = InvalidationContext(invalidateDataSourceCounts: true)
                    context.invalidateSections([section])
                    layout.invalidateLayout(with: context)
                }
                layout.prepare()
            }
            let freshFlow = FlowLayout()
            let freshList = ListLayout()
            freshFlow.collectionView = environment
            freshList.collectionView = environment
            freshFlow.delegate = delegate
            freshList.delegate = delegate
            freshFlow.prepare()
            freshList.prepare()
            #expect(allElements(of: flow, itemCounts: itemCounts) == allElements(of: freshFlow, itemCounts: itemCounts), "seed \(seed), round \(round)")
            #expect(allElements(of: list, itemCounts: itemCounts) == allElements(of: freshList, itemCounts: itemCounts), "seed \(seed), round \(round)")
            #expect(flow.collectionViewContentSize == freshFlow.collectionViewContentSize)
            #expect(list.collectionViewContentSize == freshList.collectionViewContentSize)
            Self.check(flow, itemCounts: itemCounts, seed: seed, round: round, using: &generator)
        }
    }

    @Test("Every built-in layout's elements lie within its content size at every allowed offset, and its rect queries equal a brute-force filter, whatever its sizes, insets and view", arguments: LayoutKind.allCases)
    func contentEnclosesEveryElement(kind: LayoutKind) {
        forEachSeededRound("LayoutOracleTests.contentEnclosesEveryElement", seed: 0xC0_17E7, rounds: 300) { round, seed, generator in
            let itemCounts = randomItemCounts(using: &generator)
            let delegate = AnyLayoutDelegate.random(itemCounts: itemCounts, using: &generator)
            let spec = RandomLayoutSpec(kind: kind, seed: generator.next())
            let environment = StaticLayoutEnvironment(
                size: randomViewSize(using: &generator), itemCounts: itemCounts,
                contentInset: randomContentInset(using: &generator)
            )
            let layout = spec.make(delegate: delegate)
            layout.collectionView = environment
            layout.prepare()
            #expect(layout.layoutError == nil, "seed \(seed), round \(round), \(spec): \(String(describing: layout.layoutError))")
            // Anywhere a collection view can scroll to (sticky and pinned
            // headers follow the offset), its first and last offsets included.
            let content = layout.collectionViewContentSize
            let offsets = allowedContentOffsets(content: content, size: environment.bounds.size, contentInset: environment.contentInset, using: &generator)
            for offset in offsets {
                let bounds = Rect(origin: offset, size: environment.bounds.size)
                if layout.shouldInvalidateLayout(forBoundsChange: bounds) {
                    layout.invalidateLayout(with: layout.invalidationContext(forBoundsChange: bounds))
                }
                environment.bounds = bounds
                layout.prepare()
                let elements = everyElement(of: layout, itemCounts: itemCounts)
                let rects = [bounds] + randomQueryRects(count: 6, content: layout.collectionViewContentSize, elements: elements, using: &generator)
                let violations = contentAndQueryViolations(of: layout, itemCounts: itemCounts, elements: elements, rects: rects)
                #expect(violations.isEmpty, "seed \(seed), round \(round), \(spec), counts \(itemCounts), view \(environment.bounds), inset \(environment.contentInset), content \(layout.collectionViewContentSize): \(violations.prefix(3))")
            }
        }
    }

    @Test("Every built-in layout names each hostile value it reads, where it read it, and lays out finite frames", arguments: LayoutKind.allCases)
    func hostileValues(kind: LayoutKind) {
        var sites = 0
        forEachSeededRound("LayoutOracleTests.hostileValues", seed: 0x4057_11E, rounds: 4) { round, seed, generator in
            // At least one section with an item to name.
            var itemCounts = randomItemCounts(using: &generator)
            if itemCounts.allSatisfy({ $0 == 0 }) { itemCounts.append(Int.random(in: 1...10, using: &generator)) }
            let section = itemCounts.indices.filter { itemCounts[$0] > 0 }.randomElement(using: &generator)!
            let path = IndexPath(item: Int.random(in: 0..<itemCounts[section], using: &generator), section: section)
            let spec = RandomLayoutSpec(kind: kind, seed: generator.next())
            for site in ValueSite.all(for: kind, section: section, path: path) {
                sites += 1
                for value in site.kind.hostileValues {
                    let delegate = AnyLayoutDelegate.random(itemCounts: itemCounts, using: &generator)
                    let layout = spec.make(delegate: delegate)
                    site.apply(layout, delegate, value)
                    let environment = StaticLayoutEnvironment(size: randomViewSize(using: &generator), itemCounts: itemCounts)
                    layout.collectionView = environment
                    layout.prepare()
                    let label = "seed \(seed), round \(round), \(spec), \(site) = \(value), counts \(itemCounts)"
                    #expect(layout.layoutError?.subject == site.subject, "\(label): \(String(describing: layout.layoutError))")
                    #expect(everyFrameIsFinite(layout, itemCounts: itemCounts), "\(label)")
                    // The value is not kept: fixed, it lays out cleanly.
                    site.apply(layout, delegate, 1)
                    layout.invalidateLayout()
                    layout.prepare()
                    #expect(layout.layoutError == nil, "\(label), then 1: \(String(describing: layout.layoutError))")
                }
            }
        }
        #expect(sites > 0)
    }
}
