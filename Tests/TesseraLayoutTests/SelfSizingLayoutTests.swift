import Foundation
import Testing
import TesseraLayout
import TesseraTestSupport
import TesseraTestTraits

/// Self-sizing layouts driven through the preferred-attributes hooks, as a
/// collection view drives them, checked against a fresh layout given the
/// fitted sizes through its delegate.
@Suite("Self-sizing layouts", .cpuBound)
struct SelfSizingLayoutTests {
    /// Delivers every item's fitted size in random batches (one context
    /// merged per batch, then a pass), with passes that invalidate
    /// everything in between.
    static func deliverAll(_ spec: SelfSizingSpec, to layout: CollectionViewLayout, using generator: inout SplitMix64) {
        var paths: [IndexPath] = []
        for (section, count) in spec.counts.enumerated() { for item in 0..<count { paths.append(IndexPath(item: item, section: section)) } }
        paths.shuffle(using: &generator)
        var start = 0
        while start < paths.count {
            let end = Swift.min(paths.count, start + Int.random(in: 1...12, using: &generator))
            var context: InvalidationContext?
            for path in paths[start..<end] {
                guard let original = layout.layoutAttributesForItem(at: path) else { continue }
                var preferred = original
                preferred.frame.size = spec.fitted[path[0]][path[1]]
                guard layout.shouldInvalidateLayout(forPreferredLayoutAttributes: preferred, withOriginalAttributes: original) else { continue }
                let made = layout.invalidationContext(forPreferredLayoutAttributes: preferred, withOriginalAttributes: original)
                if let context { context.merge(made) } else { context = made }
            }
            if let context {
                layout.invalidateLayout(with: context)
                layout.prepare()
            }
            if Int.random(in: 0..<8, using: &generator) == 0 {
                layout.invalidateLayout()
                layout.prepare()
            }
            start = end
        }
    }

    @Test("Fitted sizes delivered through the hooks give the frames of a fresh layout given those sizes, and rect queries equal a brute-force filter", arguments: SelfSizingKind.allCases)
    func settlesToFreshLayout(kind: SelfSizingKind) {
        let seed = testSeed(default: 0x5E1F_5123)
        var generator = SplitMix64(seed: seed ^ UInt64(kind.rawValue.count))
        for round in 0..<60 {
            let spec = SelfSizingSpec(kind: kind, using: &generator)
            let comment = Comment(rawValue: "seed \(seed), round \(round): \(spec)")
            let size = Size(width: Double(Int.random(in: 120...600, using: &generator)), height: Double(Int.random(in: 100...900, using: &generator)))
            let environment = StaticLayoutEnvironment(size: size, itemCounts: spec.counts)
            let layout = spec.makeLayout()
            layout.collectionView = environment
            layout.prepare()
            for (section, count) in spec.counts.enumerated() {
                for item in 0..<count { #expect(layout.needsPreferredLayoutAttributes(forItemAt: IndexPath(item: item, section: section)), comment) }
            }
            Self.deliverAll(spec, to: layout, using: &generator)

            let delegate = FittedSizeDelegate(sizes: spec.fitted)
            let fresh = spec.makeLayout(delegate: delegate)
            fresh.collectionView = environment
            fresh.prepare()
            let elements = allElements(of: layout, itemCounts: spec.counts)
            #expect(elements == allElements(of: fresh, itemCounts: spec.counts), comment)
            #expect(layout.collectionViewContentSize == fresh.collectionViewContentSize, comment)
            #expect(layout.layoutError == nil, comment)
            for (section, count) in spec.counts.enumerated() {
                for item in 0..<count { #expect(!layout.needsPreferredLayoutAttributes(forItemAt: IndexPath(item: item, section: section)), comment) }
            }
            let rects = randomQueryRects(count: 20, content: layout.collectionViewContentSize, elements: elements, using: &generator)
            let violations = rectQueryViolations(of: layout, elements: elements, rects: rects, inElementOrder: true)
            #expect(violations.isEmpty, "\(comment): \(violations.prefix(3))")
        }
    }

    @Test("A resize above the first visible item fills in an offset adjustment that keeps that item where it is on screen", arguments: SelfSizingKind.allCases)
    func adjustmentKeepsAnchor(kind: SelfSizingKind) {
        let seed = testSeed(default: 0xA2C4)
        var generator = SplitMix64(seed: seed ^ UInt64(kind.rawValue.count))
        var checked = 0
        for round in 0..<60 {
            var spec = SelfSizingSpec(kind: kind, using: &generator, maxSections: 4, maxItems: 60)
            guard spec.counts.reduce(0, +) > 0 else { continue }
            let environment = StaticLayoutEnvironment(size: Size(width: 360, height: 300), itemCounts: spec.counts)
            let layout = spec.makeLayout()
            layout.collectionView = environment
            layout.prepare()
            Self.deliverAll(spec, to: layout, using: &generator)
            environment.bounds.origin.y = (layout.collectionViewContentSize.height / 2).rounded(.down)
            guard let first = layout.layoutAttributesForElements(in: environment.bounds).first(where: { $0.category == .cell }) else { continue }
            let above = allElements(of: layout, itemCounts: spec.counts).filter { $0.category == .cell && $0.frame.minY < first.frame.minY }
            guard let target = above.randomElement(using: &generator) else { continue }
            let comment = Comment(rawValue: "seed \(seed), round \(round), item \(Array(target.indexPath)): \(spec)")
            var preferred = target
            preferred.frame.size = SelfSizingSpec.randomSize(kind: kind, using: &generator)
            spec.fitted[target.indexPath[0]][target.indexPath[1]] = preferred.frame.size
            let sizeBefore = layout.collectionViewContentSize
            guard layout.shouldInvalidateLayout(forPreferredLayoutAttributes: preferred, withOriginalAttributes: target) else { continue }
            let context = layout.invalidationContext(forPreferredLayoutAttributes: preferred, withOriginalAttributes: target)
            layout.invalidateLayout(with: context)
            layout.prepare()
            let moved = layout.layoutAttributesForItem(at: first.indexPath)!
            #expect(moved.frame.minY - context.contentOffsetAdjustment.y == first.frame.minY, comment)
            let sizeAfter = layout.collectionViewContentSize
            #expect(context.contentSizeAdjustment == Size(width: sizeAfter.width - sizeBefore.width, height: sizeAfter.height - sizeBefore.height), comment)
            checked += 1
        }
        #expect(checked >= 20, "seed \(seed): only \(checked) rounds had an item above the visible area")
    }

    @Test("The base class keeps UIKit's defaults: no invalidation for preferred attributes, and a context naming the element")
    func baseDefaults() {
        let layout = CollectionViewLayout()
        let attributes = LayoutAttributes.cell(at: IndexPath(item: 3, section: 1), frame: Rect(x: 0, y: 0, width: 10, height: 10))
        var preferred = attributes
        preferred.frame.size = Size(width: 10, height: 40)
        #expect(!layout.needsPreferredLayoutAttributes(forItemAt: attributes.indexPath))
        #expect(!layout.shouldInvalidateLayout(forPreferredLayoutAttributes: preferred, withOriginalAttributes: attributes))
        let context = layout.invalidationContext(forPreferredLayoutAttributes: preferred, withOriginalAttributes: attributes)
        #expect(context.invalidatedItemIndexPaths == [attributes.indexPath])
        #expect(!context.invalidateEverything && !context.invalidateDataSourceCounts)
        #expect(context.contentOffsetAdjustment == .zero && context.contentSizeAdjustment == .zero)
    }

    @Test("Without an estimated size no item needs sizing and preferred sizes are ignored", arguments: SelfSizingKind.allCases)
    func offWithoutEstimate(kind: SelfSizingKind) {
        var generator = SplitMix64(seed: 7)
        let spec = SelfSizingSpec(kind: kind, using: &generator)
        let delegate = FittedSizeDelegate(sizes: spec.fitted)
        let layout = spec.makeLayout(delegate: delegate)
        let environment = StaticLayoutEnvironment(size: Size(width: 320, height: 480), itemCounts: spec.counts)
        layout.collectionView = environment
        layout.prepare()
        for (section, count) in spec.counts.enumerated() where count > 0 {
            let path = IndexPath(item: 0, section: section)
            let original = layout.layoutAttributesForItem(at: path)!
            var preferred = original
            preferred.frame.size = Size(width: 1, height: 1)
            #expect(!layout.needsPreferredLayoutAttributes(forItemAt: path))
            #expect(!layout.shouldInvalidateLayout(forPreferredLayoutAttributes: preferred, withOriginalAttributes: original))
        }
    }

    @Test("Bad preferred sizes (NaN, infinite, negative) are refused by the hooks and change nothing", arguments: SelfSizingKind.allCases)
    func badPreferredSizes(kind: SelfSizingKind) {
        var generator = SplitMix64(seed: 11)
        var spec = SelfSizingSpec(kind: kind, using: &generator)
        spec.counts = [5]
        spec.fitted = [(0..<5).map { _ in Size(width: 40, height: 40) }]
        let layout = spec.makeLayout()
        let environment = StaticLayoutEnvironment(size: Size(width: 320, height: 480), itemCounts: spec.counts)
        layout.collectionView = environment
        layout.prepare()
        let before = allElements(of: layout, itemCounts: spec.counts)
        let original = layout.layoutAttributesForItem(at: IndexPath(item: 2, section: 0))!
        for bad in [Size(width: .nan, height: 10), Size(width: 10, height: .infinity), Size(width: 10, height: -4)] {
            var preferred = original
            preferred.frame.size = bad
            #expect(!layout.shouldInvalidateLayout(forPreferredLayoutAttributes: preferred, withOriginalAttributes: original))
        }
        #expect(allElements(of: layout, itemCounts: spec.counts) == before)
        #expect(layout.needsPreferredLayoutAttributes(forItemAt: original.indexPath))
    }
}
