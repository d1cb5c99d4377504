import Foundation
import Testing
import TesseraLayout
import TesseraTestSupport
import TesseraTestTraits

/// A layout of fixed item frames in one section, with the base class's
/// movement hooks.
private final class FixedFramesLayout: CollectionViewLayout {
    let frames: [Rect]

    init(frames: [Rect]) {
        self.frames = frames
    }

    override var collectionViewContentSize: Size { Size(width: 400, height: 400) }

    override func layoutAttributesForElements(in rect: Rect) -> [LayoutAttributes] {
        frames.indices.filter { frames[$0].intersects(rect) }.map { .cell(at: IndexPath(item: $0, section: 0), frame: frames[$0]) }
    }

    override func layoutAttributesForItem(at indexPath: IndexPath) -> LayoutAttributes? {
        indexPath.count == 2 && indexPath[0] == 0 && frames.indices.contains(indexPath[1]) ? .cell(at: indexPath, frame: frames[indexPath[1]]) : nil
    }
}

/// The distance from a point to the nearest point of a rectangle.
private func distance(_ point: Point, _ rect: Rect) -> Double {
    let dx = Swift.max(rect.minX - point.x, 0, point.x - rect.maxX)
    let dy = Swift.max(rect.minY - point.y, 0, point.y - rect.maxY)
    return (dx * dx + dy * dy).squareRoot()
}

@Suite("Interactive movement in layouts", .cpuBound)
struct InteractiveMovementLayoutTests {
    @Test("A position inside an item targets the lowest index path whose frame contains it, as a brute-force search over every frame finds; any other position targets an item at the least distance from it pulled into the content", arguments: LayoutKind.allCases)
    func targetMatchesBruteForce(kind: LayoutKind) {
        let seed = testSeed(default: 0x7A46E7) &+ UInt64(LayoutKind.allCases.firstIndex(of: kind)!)
        var generator = SplitMix64(seed: seed)
        var inside = 0
        for round in 0..<40 {
            let counts = (0..<Int.random(in: 1...5, using: &generator)).map { _ in Int.random(in: 0...40, using: &generator) }
            let delegate = AnyLayoutDelegate.random(itemCounts: Array(repeating: 40, count: 5), using: &generator)
            let spec = RandomLayoutSpec(kind: kind, seed: generator.next())
            let layout = spec.make(delegate: delegate)
            let environment = StaticLayoutEnvironment(size: randomViewSize(using: &generator), itemCounts: counts, contentInset: randomContentInset(using: &generator))
            layout.collectionView = environment
            layout.prepare()
            let content = layout.collectionViewContentSize
            // Scrolled somewhere: pinned and sticky headers follow.
            environment.bounds.origin = Point(x: Double.random(in: 0...Swift.max(0, content.width), using: &generator).rounded(), y: Double.random(in: 0...Swift.max(0, content.height), using: &generator).rounded())
            let items = everyElement(of: layout, itemCounts: counts).filter { $0.category == .cell && !$0.frame.isEmpty }
            let previous = IndexPath(item: 0, section: 0)
            let context = "seed \(seed), round \(round), \(spec), counts \(counts)"
            // Inside items.
            for attributes in items.shuffled(using: &generator).prefix(15) {
                let frame = attributes.frame
                let point = Point(
                    x: Swift.min(frame.minX + Double.random(in: 0..<1, using: &generator) * frame.width, frame.maxX.nextDown),
                    y: Swift.min(frame.minY + Double.random(in: 0..<1, using: &generator) * frame.height, frame.maxY.nextDown)
                )
                guard frame.contains(point) else { continue }
                inside += 1
                let expected = items.filter { $0.frame.contains(point) }.map(\.indexPath).min()
                let target = layout.targetIndexPath(forInteractivelyMovingItem: previous, withPosition: point)
                #expect(target == expected, "\(context): \(point) in \(frame)")
            }
            // Anywhere, inside the content or well outside it.
            for _ in 0..<10 {
                let point = Point(
                    x: Double.random(in: -300...content.width + 300, using: &generator).rounded(),
                    y: Double.random(in: -300...content.height + 300, using: &generator).rounded()
                )
                let target = layout.targetIndexPath(forInteractivelyMovingItem: previous, withPosition: point)
                guard !items.isEmpty else {
                    #expect(target == previous, "\(context): \(point) with no item")
                    continue
                }
                let clamped = Point(x: Swift.min(Swift.max(point.x, 0), content.width), y: Swift.min(Swift.max(point.y, 0), content.height))
                let nearest = items.map { distance(clamped, $0.frame) }.min()!
                let frame = layout.layoutAttributesForItem(at: target)?.frame
                let containing = items.filter { $0.frame.contains(point) }.map(\.indexPath).min()
                if let containing {
                    #expect(target == containing, "\(context): \(point)")
                } else {
                    #expect(frame.map { distance(clamped, $0) } == nearest, "\(context): \(point) → \(target) at \(String(describing: frame)), nearest distance \(nearest)")
                }
            }
            #expect(layout.targetIndexPath(forInteractivelyMovingItem: previous, withPosition: Point(x: .nan, y: 0)) == previous, "\(context)")
        }
        #expect(inside > 100, "seed \(seed)")
    }

    @Test("The base class targets the item containing the position, else keeps the previous index path")
    func baseClassTarget() {
        let layout = FixedFramesLayout(frames: [Rect(x: 0, y: 0, width: 50, height: 50), Rect(x: 100, y: 0, width: 50, height: 50)])
        let previous = IndexPath(item: 0, section: 0)
        #expect(layout.targetIndexPath(forInteractivelyMovingItem: previous, withPosition: Point(x: 120, y: 10)) == IndexPath(item: 1, section: 0))
        #expect(layout.targetIndexPath(forInteractivelyMovingItem: previous, withPosition: Point(x: 75, y: 10)) == previous)
        #expect(layout.targetIndexPath(forInteractivelyMovingItem: IndexPath(item: 1, section: 0), withPosition: Point(x: 150, y: 10)) == IndexPath(item: 1, section: 0))
        #expect(layout.targetIndexPath(forInteractivelyMovingItem: previous, withPosition: Point(x: .infinity, y: 10)) == previous)
    }

    @Test("The moving item's attributes are its own, centred on the position, above every other element")
    func movingItemAttributes() {
        let layout = FixedFramesLayout(frames: [Rect(x: 0, y: 0, width: 50, height: 30)])
        let attributes = layout.layoutAttributesForInteractivelyMovingItem(at: IndexPath(item: 0, section: 0), withTargetPosition: Point(x: 200, y: 100))
        #expect(attributes?.frame == Rect(x: 175, y: 85, width: 50, height: 30))
        #expect(attributes?.zIndex == CollectionViewLayout.interactivelyMovingItemZIndex)
        #expect(layout.layoutAttributesForInteractivelyMovingItem(at: IndexPath(item: 3, section: 0), withTargetPosition: .zero) == nil)
    }

    @Test("The movement contexts carry the target position and index paths, and name the items only when the index path changes")
    func movementContexts() {
        let layout = FixedFramesLayout(frames: [])
        let a = IndexPath(item: 1, section: 0)
        let b = IndexPath(item: 4, section: 2)
        let step = layout.invalidationContext(forInteractivelyMovingItems: [b], withTargetPosition: Point(x: 3, y: 4), previousIndexPaths: [a], previousPosition: .zero)
        #expect(step.interactiveMovementTarget == Point(x: 3, y: 4))
        #expect(step.previousIndexPathsForInteractivelyMovingItems == [a])
        #expect(step.targetIndexPathsForInteractivelyMovingItems == [b])
        #expect(step.invalidatedSections == [0, 2])
        let still = layout.invalidationContext(forInteractivelyMovingItems: [a], withTargetPosition: .zero, previousIndexPaths: [a], previousPosition: .zero)
        #expect(still.invalidatedSections.isEmpty)
        let end = layout.invalidationContextForEndingInteractiveMovementOfItems(toFinalIndexPaths: [b], previousIndexPaths: [a], movementCancelled: false)
        #expect(end.targetIndexPathsForInteractivelyMovingItems == [b])
        #expect(end.invalidatedSections == [0, 2])
        let cancel = layout.invalidationContextForEndingInteractiveMovementOfItems(toFinalIndexPaths: [a], previousIndexPaths: [a], movementCancelled: true)
        #expect(cancel.invalidatedSections.isEmpty)
        let merged = InvalidationContext()
        merged.merge(step)
        #expect(merged.targetIndexPathsForInteractivelyMovingItems == [b])
        #expect(InvalidationContext().targetIndexPathsForInteractivelyMovingItems == nil)
    }
}
