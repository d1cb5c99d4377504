import Foundation
import Testing
import TesseraTestTraits
import TesseraLayout
import TesseraTestSupport

/// A ``FlowLayout`` without a delegate keeps no frames: its sections are
/// lines of one item size whose frames follow from an item's index. A flow
/// layout whose delegate answers nothing lays the same items out one by one
/// and keeps every frame; the two must agree on everything.
@Suite("Flow layouts of one item size", .tags(.oracle), .cpuBound)
struct UniformFlowOracleTests {
    @Test("A flow layout without a delegate gives every frame, the content size and every rect query that one laying items out one by one gives, and its rect queries equal a brute-force filter")
    func uniformLinesEqualItemByItem() {
        forEachSeededRound("UniformFlowOracleTests.uniformLinesEqualItemByItem", seed: 0x0F10_11FE, rounds: 300) { round, seed, generator in
            let spec = RandomLayoutSpec(kind: .flow, seed: generator.next())
            let silent = AnyLayoutDelegate()
            let itemByItem = spec.make(delegate: silent)
            let uniform = spec.make(delegate: silent) as! FlowLayout
            uniform.delegate = nil
            // Sections from empty to a few hundred items: many full lines,
            // a last line full or not.
            let itemCounts = (0..<Int.random(in: 0...6, using: &generator)).map { _ in
                Int.random(in: 0..<4, using: &generator) == 0 ? Int.random(in: 100...400, using: &generator) : Int.random(in: 0...40, using: &generator)
            }
            let environment = StaticLayoutEnvironment(size: randomViewSize(using: &generator), itemCounts: itemCounts, contentInset: randomContentInset(using: &generator))
            itemByItem.collectionView = environment
            itemByItem.prepare()
            let content = itemByItem.collectionViewContentSize
            environment.bounds.origin = allowedContentOffsets(content: content, size: environment.bounds.size, contentInset: environment.contentInset, random: 1, using: &generator)[2]
            itemByItem.prepare()
            uniform.collectionView = environment
            uniform.prepare()
            let label = "seed \(seed), round \(round), \(spec), counts \(itemCounts), bounds \(environment.bounds)"

            let expected = LayoutState(of: itemByItem, itemCounts: itemCounts)
            let actual = LayoutState(of: uniform, itemCounts: itemCounts)
            #expect(actual == expected, "\(label): \(actual.difference(from: expected))")
            #expect(uniform.layoutError == itemByItem.layoutError, "\(label)")

            let elements = allElements(of: uniform, itemCounts: itemCounts)
            let rects = [environment.bounds] + randomQueryRects(count: 20, content: uniform.collectionViewContentSize, elements: elements, using: &generator)
            for rect in rects {
                #expect(uniform.layoutAttributesForElements(in: rect) == itemByItem.layoutAttributesForElements(in: rect), "\(label), query over \(rect)")
            }
            let violations = rectQueryViolations(of: uniform, elements: elements, rects: rects, inElementOrder: true)
            #expect(violations.isEmpty, "\(label): \(violations.prefix(3))")
            withExtendedLifetime(environment) {}
        }
    }

    @Test("A flow layout without a delegate keeps a few bytes a section, not a frame an item")
    func uniformLinesKeepNoFrames() {
        let environment = StaticLayoutEnvironment(size: Size(width: 390, height: 844), itemCounts: Array(repeating: 1_000, count: 10))
        let layout = FlowLayout()
        layout.itemSize = Size(width: 90, height: 90)
        layout.collectionView = environment
        layout.prepare()
        #expect(layout.storageByteCount < 10 * 1_000)
        let frame = layout.layoutAttributesForItem(at: IndexPath(item: 999, section: 9))?.frame
        // Four items to a line, 100 points apart: each section is 250 lines
        // (24,990 points), and the item starts the section's last line.
        #expect(frame?.minY == Double(9 * 24_990 + 249 * 100))
        withExtendedLifetime(environment) {}
    }
}
