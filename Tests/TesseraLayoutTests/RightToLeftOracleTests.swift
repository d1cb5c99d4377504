import Foundation
import Testing
import TesseraTestTraits
import TesseraLayout
import TesseraTestSupport

/// A built-in layout of random settings laid out twice from the same spec:
/// left to right, and right to left with the content inset's left and right
/// sides swapped (the mirror image of the same view).
private struct MirroredPair {
    let spec: RandomLayoutSpec
    let counts: [Int]
    /// Held here: layouts hold their delegates weakly.
    let delegate: AnyLayoutDelegate?
    let ltr: CollectionViewLayout
    let rtl: CollectionViewLayout
    let ltrEnvironment: StaticLayoutEnvironment
    let rtlEnvironment: StaticLayoutEnvironment

    init(kind: LayoutKind, using generator: inout SplitMix64) {
        counts = randomItemCounts(using: &generator)
        delegate = Bool.random(using: &generator) ? AnyLayoutDelegate.random(itemCounts: counts, using: &generator) : nil
        spec = RandomLayoutSpec(kind: kind, seed: generator.next())
        let size = randomViewSize(using: &generator)
        let inset = randomContentInset(using: &generator)
        ltrEnvironment = StaticLayoutEnvironment(size: size, itemCounts: counts, contentInset: inset)
        rtlEnvironment = StaticLayoutEnvironment(
            size: size, itemCounts: counts,
            contentInset: EdgeInsets(top: inset.top, left: inset.right, bottom: inset.bottom, right: inset.left)
        )
        rtlEnvironment.effectiveLayoutDirection = .rightToLeft
        // Half the layouts have no delegate at all.
        ltr = spec.make(delegate: delegate ?? AnyLayoutDelegate())
        rtl = spec.make(delegate: delegate ?? AnyLayoutDelegate())
        if delegate == nil { detachDelegate(from: ltr); detachDelegate(from: rtl) }
        ltr.collectionView = ltrEnvironment
        rtl.collectionView = rtlEnvironment
        ltr.prepare()
        rtl.prepare()
    }

    /// Scrolls the left-to-right layout to `offset` and the right-to-left one
    /// to the mirrored offset, as a collection view does (invalidating for
    /// the bounds change when the layout asks, then preparing).
    func scroll(to offset: Point) {
        let size = ltrEnvironment.bounds.size
        let ltrBounds = Rect(origin: offset, size: size)
        let rtlBounds = ltrBounds.mirroredHorizontally(inWidth: ltr.collectionViewContentSize.width)
        for (layout, environment, bounds) in [(ltr, ltrEnvironment, ltrBounds), (rtl, rtlEnvironment, rtlBounds)] {
            if layout.shouldInvalidateLayout(forBoundsChange: bounds) {
                layout.invalidateLayout(with: layout.invalidationContext(forBoundsChange: bounds))
            }
            environment.bounds = bounds
            layout.prepare()
        }
    }

    var description: String { "\(spec), counts \(counts), size \(ltrEnvironment.bounds.size), inset \(ltrEnvironment.contentInset)" }
}

/// Attributes mirrored across `width`: the frame (`x' = width − maxX`) and
/// the transform.
func mirrored(_ attributes: LayoutAttributes, inWidth width: Double) -> LayoutAttributes {
    var result = attributes
    result.frame = attributes.frame.mirroredHorizontally(inWidth: width)
    result.transform = attributes.transform.mirroredHorizontally
    return result
}

@Suite("Right-to-left layout oracles", .tags(.oracle), .cpuBound)
struct RightToLeftOracleTests {
    @Test("Right to left, every element's frame is the left-to-right frame mirrored across the content's width, at every offset (pinned and sticky headers included), the content size is the same, and rect queries equal a brute-force filter and the mirrored left-to-right query", arguments: LayoutKind.allCases)
    func everyFrameIsMirrored(kind: LayoutKind) {
        let seed = testSeed(default: 0x52_544C) ^ UInt64(LayoutKind.allCases.firstIndex(of: kind)!)
        var generator = SplitMix64(seed: seed)
        for round in 0..<60 {
            let pair = MirroredPair(kind: kind, using: &generator)
            let context = "seed \(seed), round \(round), \(pair.description)"
            #expect(pair.rtl.isFlippedHorizontally && !pair.ltr.isFlippedHorizontally, "\(context)")
            let content = pair.ltr.collectionViewContentSize
            let offsets = allowedContentOffsets(
                content: content, size: pair.ltrEnvironment.bounds.size, contentInset: pair.ltrEnvironment.contentInset,
                random: 2, using: &generator
            )
            for offset in offsets {
                pair.scroll(to: offset)
                let at = "\(context), offset \(offset)"
                #expect(pair.rtl.collectionViewContentSize == pair.ltr.collectionViewContentSize, "\(at)")
                let width = pair.ltr.collectionViewContentSize.width
                let ltrElements = everyElement(of: pair.ltr, itemCounts: pair.counts)
                let rtlElements = everyElement(of: pair.rtl, itemCounts: pair.counts)
                let expected = ltrElements.map { mirrored($0, inWidth: width) }
                if rtlElements != expected {
                    let first = zip(rtlElements, expected).first { $0 != $1 }
                    Issue.record("\(at): \(rtlElements.count) elements against \(expected.count), first difference \(String(describing: first))")
                }
                let rects = randomQueryRects(count: 12, content: content, elements: rtlElements, using: &generator)
                let violations = rectQueryViolations(of: pair.rtl, elements: rtlElements, rects: rects, inElementOrder: false)
                #expect(violations.isEmpty, "\(at): \(violations.prefix(3))")
                for rect in rects {
                    // Equal, but for an element that only touches the rect
                    // within a rounding (mirroring the rect rounds): each
                    // side is exact in its own coordinates.
                    let queried = pair.rtl.layoutAttributesForElements(in: rect)
                    let mirroredQuery = pair.ltr.layoutAttributesForElements(in: rect.mirroredHorizontally(inWidth: width)).map { mirrored($0, inWidth: width) }
                    let touching = { (attributes: LayoutAttributes) in touches(attributes.frame, rect, width: width) }
                    #expect(queried.filter { !touching($0) } == mirroredQuery.filter { !touching($0) }, "\(at), rect \(rect)")
                    #expect(Set(queried.map(ElementKey.init)).symmetricDifference(mirroredQuery.map(ElementKey.init)).count <= queried.filter(touching).count + mirroredQuery.filter(touching).count, "\(at), rect \(rect)")
                }
            }
        }
    }

    @Test("A layout that does not flip returns the same frames in either direction")
    func nonFlippingLayoutIsUnchanged() {
        forEachSeededRound("RightToLeftOracleTests.nonFlippingLayoutIsUnchanged", seed: 0xF1_1B, rounds: 20) { round, seed, generator in
            let frames = (0..<Int.random(in: 0...20, using: &generator)).map { _ in
                Rect(
                    x: Double(Int.random(in: 0...300, using: &generator)), y: Double(Int.random(in: 0...600, using: &generator)),
                    width: Double(Int.random(in: 1...80, using: &generator)), height: Double(Int.random(in: 1...80, using: &generator))
                )
            }
            let environment = StaticLayoutEnvironment(size: Size(width: 320, height: 480), itemCounts: [frames.count])
            let layout = FixedFramesLayout(frames: frames)
            layout.collectionView = environment
            layout.prepare()
            let before = everyElement(of: layout, itemCounts: [frames.count])
            environment.effectiveLayoutDirection = .rightToLeft
            #expect(!layout.isFlippedHorizontally, "seed \(seed), round \(round)")
            #expect(everyElement(of: layout, itemCounts: [frames.count]) == before, "seed \(seed), round \(round)")
            #expect(layout.flippedHorizontally(frames.first ?? .zero) == (frames.first ?? .zero), "seed \(seed), round \(round)")
        }
    }

    @Test("A built-in layout told not to flip keeps its frames right to left; one developed right to left flips left to right and not right to left")
    func developmentDirectionDecides() {
        let counts = [7, 3]
        let reference = FlowLayout()
        reference.itemSize = Size(width: 50, height: 30)
        let referenceEnvironment = StaticLayoutEnvironment(size: Size(width: 320, height: 480), itemCounts: counts)
        reference.collectionView = referenceEnvironment
        reference.prepare()
        let frames = allElements(of: reference, itemCounts: counts)
        let width = reference.collectionViewContentSize.width

        for direction in LayoutDirection.allCases {
            let environment = StaticLayoutEnvironment(size: Size(width: 320, height: 480), itemCounts: counts)
            environment.effectiveLayoutDirection = direction
            let fixed = NonFlippingFlowLayout()
            let rtlDeveloped = RightToLeftFlowLayout()
            for layout in [fixed, rtlDeveloped] as [FlowLayout] {
                layout.itemSize = Size(width: 50, height: 30)
                layout.collectionView = environment
                layout.prepare()
            }
            #expect(allElements(of: fixed, itemCounts: counts) == frames, "\(direction)")
            let expected = direction == .leftToRight ? frames.map { mirrored($0, inWidth: width) } : frames
            #expect(allElements(of: rtlDeveloped, itemCounts: counts) == expected, "\(direction)")
        }
    }

    @Test("Flipped, a content offset maps to the origin of the mirrored visible rect and back, and transition transforms are mirrored")
    func offsetsAndTransformsMirror() {
        let environment = StaticLayoutEnvironment(size: Size(width: 100, height: 50), itemCounts: [10])
        let layout = HorizontalListLayout()
        layout.itemWidth = 40
        layout.itemSpacing = 0
        layout.collectionView = environment
        layout.prepare()
        #expect(layout.collectionViewContentSize.width == 400)
        #expect(layout.flippedContentOffset(Point(x: 30, y: 0)) == Point(x: 30, y: 0))
        environment.effectiveLayoutDirection = .rightToLeft
        // The start of the list, at offset 0 left to right, is at 300 right
        // to left: the visible rect [0, 100] mirrors to [300, 400].
        #expect(layout.flippedContentOffset(Point(x: 0, y: 0)) == Point(x: 300, y: 0))
        #expect(layout.flippedContentOffset(layout.flippedContentOffset(Point(x: 30, y: 0))) == Point(x: 30, y: 0))
        #expect(layout.layoutAttributesForItem(at: IndexPath(item: 0, section: 0))?.frame == Rect(x: 360, y: 0, width: 40, height: 50))
        #expect(Transform.translation(20, 5).mirroredHorizontally == Transform.translation(-20, 5))
        #expect(Transform.rotation(0.5).mirroredHorizontally.concatenating(Transform.rotation(0.5)).apply(to: Point(x: 1, y: 0)).x.isApproximately(1))
    }
}

/// Whether a frame's left or right edge lies within a rounding of the
/// rect's right or left edge (in content `width` wide).
private func touches(_ frame: Rect, _ rect: Rect, width: Double) -> Bool {
    let tolerance = Swift.max(abs(width), abs(rect.maxX), 1) * 1e-9
    return abs(frame.maxX - rect.minX) <= tolerance || abs(frame.minX - rect.maxX) <= tolerance
}

extension Double {
    fileprivate func isApproximately(_ other: Double) -> Bool { abs(self - other) < 1e-12 }
}

/// A layout of fixed frames that does not flip (the base class's default).
private final class FixedFramesLayout: CollectionViewLayout {
    let frames: [Rect]

    init(frames: [Rect]) {
        self.frames = frames
        super.init()
    }

    override var collectionViewContentSize: Size {
        Size(width: frames.map(\.maxX).max() ?? 0, height: frames.map(\.maxY).max() ?? 0)
    }

    override func layoutAttributesForElements(in rect: Rect) -> [LayoutAttributes] {
        frames.indices.filter { frames[$0].intersects(rect) }.map { .cell(at: IndexPath(item: $0, section: 0), frame: frames[$0]) }
    }

    override func layoutAttributesForItem(at indexPath: IndexPath) -> LayoutAttributes? {
        guard indexPath.count == 2, indexPath[0] == 0, frames.indices.contains(indexPath[1]) else { return nil }
        return .cell(at: indexPath, frame: frames[indexPath[1]])
    }
}

/// A flow layout that keeps its frames in either direction.
private final class NonFlippingFlowLayout: FlowLayout {
    override var flipsHorizontallyInOppositeLayoutDirection: Bool { false }
}

/// A flow layout designed right to left: its frames are mirrored when the
/// environment runs left to right.
private final class RightToLeftFlowLayout: FlowLayout {
    override var developmentLayoutDirection: LayoutDirection { .rightToLeft }
}
