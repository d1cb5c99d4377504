import Foundation
import Testing
import TesseraTestTraits
import TesseraDiff
import TesseraLayout
import TesseraTestSupport
import TesseraView

@Suite("Animation plans: properties", .tags(.oracle), .cpuBound)
struct AnimationPlanPropertyTests {
    static func makeLayout(flow: Bool, using generator: inout SplitMix64) -> CollectionViewLayout {
        if flow {
            let layout = FlowLayout()
            layout.itemSize = Size(width: Double(Int.random(in: 40...150, using: &generator)), height: Double(Int.random(in: 20...80, using: &generator)))
            layout.headerReferenceSize = Size(width: 0, height: Double([0, 20].randomElement(using: &generator)!))
            layout.sectionHeadersPinToVisibleBounds = Bool.random(using: &generator)
            return layout
        }
        let layout = ListLayout()
        layout.itemHeight = Double(Int.random(in: 20...60, using: &generator))
        layout.headerHeight = Double([0, 24].randomElement(using: &generator)!)
        layout.footerHeight = Double([0, 12].randomElement(using: &generator)!)
        return layout
    }

    static func plan(flow: Bool, seed: UInt64, old: TestSnapshot, new: TestSnapshot, offset: Double, anchoring: Bool) throws -> (AnimationPlan, before: [LayoutAttributes], after: [LayoutAttributes], view: CollectionView) {
        var generator = SplitMix64(seed: seed)
        let view = CollectionView(layout: makeLayout(flow: flow, using: &generator), size: Size(width: 320, height: 240))
        view.anchorsScrollPosition = anchoring
        let source = DiffableDataSource<TestSection, TestItem>(collectionView: view)
        try source.apply(old, animated: false)
        view.setBounds(Rect(x: 0, y: min(offset, max(0, view.contentSize.height - 240)), width: 320, height: 240), animated: false)
        let before = view.visibleElements
        let plan = try source.apply(new)
        return (plan, before, view.visibleElements, view)
    }

    @Test("Plans over random snapshot pairs: to matches the new layout, from matches the old, no duplicates, nothing invisible, deterministic")
    func randomPlans() throws {
        let seed = testSeed(default: 0xA17A)
        var pairs = RandomSnapshotPairs(seed: seed, maxSections: 6, maxItems: 60)
        var generator = SplitMix64(seed: seed ^ 0xFFFF)
        for round in 0..<600 {
            let (old, new) = pairs.next()
            let flow = Bool.random(using: &generator)
            let offset = Double(Int.random(in: 0...400, using: &generator))
            let anchoring = Bool.random(using: &generator)
            let layoutSeed = generator.next()
            let comment = Comment(rawValue: "seed \(seed), round \(round), flow \(flow), offset \(offset): \(old) → \(new)")
            let (plan, before, after, view) = try Self.plan(flow: flow, seed: layoutSeed, old: old, new: new, offset: offset, anchoring: anchoring)

            // Every element visible after ends at the new layout's attributes.
            var afterByKey: [String: LayoutAttributes] = [:]
            for attributes in after { afterByKey["\(attributes.category)\(Array(attributes.indexPath))"] = attributes }
            var beforeByKey: [String: LayoutAttributes] = [:]
            for attributes in before { beforeByKey["\(attributes.category)\(Array(attributes.indexPath))"] = attributes }
            var seenAfter = Set<String>()
            var seenBefore = Set<String>()
            for element in plan.elements {
                let afterKey = element.indexPathAfter.map { "\(element.category)\(Array($0))" }
                let beforeKey = element.indexPathBefore.map { "\(element.category)\(Array($0))" }
                if let afterKey, let expected = afterByKey[afterKey] {
                    #expect(element.to == expected, comment)
                    #expect(seenAfter.insert(afterKey).inserted, "twice after: \(afterKey); \(comment)")
                }
                if let beforeKey, let expected = beforeByKey[beforeKey] {
                    #expect(element.from == expected, "from of \(beforeKey); \(comment)")
                    #expect(seenBefore.insert(beforeKey).inserted, "twice before: \(beforeKey); \(comment)")
                }
                // Nothing outside both visible sets.
                let visibleAfter = afterKey.map { afterByKey[$0] != nil } ?? false
                let visibleBefore = beforeKey.map { beforeByKey[$0] != nil } ?? false
                #expect(visibleAfter || visibleBefore, "invisible element \(element); \(comment)")
                // Disappearing deleted elements end where they were, faded.
                if element.disposition == .delete {
                    #expect(element.to.frame == element.from.frame && element.to.alpha == 0, comment)
                }
                if element.disposition == .insert {
                    #expect(element.from.alpha == 0, comment)
                }
            }
            #expect(seenAfter.count == after.count, comment)
            #expect(seenBefore.count == before.count, comment)
            #expect(view.itemCounts == new.itemCounts, comment)

            // The same inputs give the same plan, byte for byte.
            let again = try Self.plan(flow: flow, seed: layoutSeed, old: old, new: new, offset: offset, anchoring: anchoring).0
            let encoder = JSONEncoder()
            encoder.outputFormatting = .sortedKeys
            #expect(try encoder.encode(again) == encoder.encode(plan), comment)
        }
    }
}
