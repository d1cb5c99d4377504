import Foundation
import Testing
import TesseraTestTraits
import TesseraDiff
import TesseraLayout
import TesseraTestSupport
import TesseraView

/// The same random scenario twice: one view left to right, and its mirror
/// image right to left (content inset's left and right swapped, bounds
/// mirrored across the content's width), both with the same transition
/// transforms.
private struct MirroredScenarios {
    let ltr: LayoutViewScenario
    let rtl: LayoutViewScenario

    init(kind: LayoutKind, symmetricInsets: Bool = false, using generator: inout SplitMix64) throws {
        var copy = generator
        ltr = try LayoutViewScenario(kind: kind, using: &generator)
        rtl = try LayoutViewScenario(kind: kind, using: &copy)
        let inset = ltr.view.contentInset
        if symmetricInsets {
            ltr.view.contentInset = EdgeInsets(top: inset.top, left: inset.left, bottom: inset.bottom, right: inset.left)
        }
        let ltrInset = ltr.view.contentInset
        rtl.view.contentInset = EdgeInsets(top: ltrInset.top, left: ltrInset.right, bottom: ltrInset.bottom, right: ltrInset.left)
        // Laid out again for the insets.
        ltr.view.reloadData()
        rtl.view.reloadData()
        var style = UpdateTransitionStyle()
        style.appearingTransform = .translation(Double(Int.random(in: -40...40, using: &generator)), Double(Int.random(in: -10...10, using: &generator)))
        style.disappearingTransform = Transform.rotation(Double(Int.random(in: -3...3, using: &generator)) / 10).concatenating(.translation(-12, 0))
        ltr.view.collectionViewLayout.updateTransitionStyle = style
        rtl.view.collectionViewLayout.updateTransitionStyle = style
        rtl.view.setLayoutDirection(.rightToLeft, animated: false)
        rtl.view.setBounds(mirroredBounds(ltr.view.bounds, width: ltr.view.contentSize.width), animated: false)
    }

    var description: String { "\(ltr.description); right to left: bounds \(rtl.view.bounds), inset \(rtl.view.contentInset)" }
}

private func mirroredBounds(_ bounds: Rect, width: Double) -> Rect {
    bounds.mirroredHorizontally(inWidth: width)
}

private func mirrored(_ attributes: LayoutAttributes, inWidth width: Double) -> LayoutAttributes {
    var result = attributes
    result.frame = attributes.frame.mirroredHorizontally(inWidth: width)
    result.transform = attributes.transform.mirroredHorizontally
    return result
}

private func isClose(_ a: Double, _ b: Double) -> Bool {
    abs(a - b) <= Swift.max(abs(a), abs(b), 1) * 1e-9
}

/// What keeps a right-to-left plan from being the mirror image of a
/// left-to-right one, or `nil`. Each frame of `expectedMirror` is mirrored
/// across the content width before or after the change (where an element
/// starts or ends at a frame of the state before, as one that moves, it is
/// in the content before; where it starts at a frame of the state after, as
/// an inserted one, in the content after), and `mirrorsAfter` says whether
/// the state after is mirrored at all (false after a transition to a layout
/// that does not flip).
private func mirrorDifference(_ rtl: AnimationPlan, of ltr: AnimationPlan, mirrorsBefore: Bool = true, mirrorsAfter: Bool = true) -> String? {
    guard rtl.contentSizeBefore == ltr.contentSizeBefore, rtl.contentSizeAfter == ltr.contentSizeAfter else {
        return "content sizes \(rtl.contentSizeBefore) → \(rtl.contentSizeAfter), expected \(ltr.contentSizeBefore) → \(ltr.contentSizeAfter)"
    }
    guard rtl.elements.count == ltr.elements.count else {
        return "\(rtl.elements.count) elements, expected \(ltr.elements.count): \(rtl.elements.prefix(3)) against \(ltr.elements.prefix(3))"
    }
    let before = ltr.contentSizeBefore.width
    let after = ltr.contentSizeAfter.width
    func candidates(_ attributes: LayoutAttributes) -> [LayoutAttributes] {
        var result: [LayoutAttributes] = []
        if mirrorsBefore { result.append(mirrored(attributes, inWidth: before)) }
        if mirrorsAfter { result.append(mirrored(attributes, inWidth: after)) }
        if !mirrorsBefore || !mirrorsAfter { result.append(attributes) }
        return result
    }
    for (index, (actual, expected)) in zip(rtl.elements, ltr.elements).enumerated() {
        guard actual.category == expected.category, actual.indexPathBefore == expected.indexPathBefore,
              actual.indexPathAfter == expected.indexPathAfter, actual.itemID == expected.itemID,
              actual.disposition == expected.disposition, actual.contentChanged == expected.contentChanged,
              actual.view == expected.view
        else { return "element \(index): \(actual), expected the mirror of \(expected)" }
        guard candidates(expected.from).contains(actual.from) else { return "element \(index) starts at \(actual.from), expected the mirror of \(expected.from)" }
        guard candidates(expected.to).contains(actual.to) else { return "element \(index) ends at \(actual.to), expected the mirror of \(expected.to)" }
    }
    return nil
}

/// Whether the right-to-left offset is the left-to-right one mirrored (the
/// origin of the mirrored visible rect).
private func offsetIsMirrored(_ rtl: Point, of ltr: Point, width: Double, boundsWidth: Double) -> Bool {
    isClose(rtl.x, width - (ltr.x + boundsWidth)) && rtl.y == ltr.y
}

@Suite("Right-to-left plan oracles", .tags(.oracle), .cpuBound)
struct RightToLeftPlanOracleTests {
    @Test("Right to left, every batch update, scroll and resize gives the left-to-right plan with every frame and transform mirrored, and the mirrored content offsets", arguments: LayoutKind.allCases)
    func plansAreMirrored(kind: LayoutKind) throws {
        let seed = testSeed(default: 0x5254_4C50) ^ UInt64(LayoutKind.allCases.firstIndex(of: kind)!)
        var generator = SplitMix64(seed: seed)
        var widthChanges = 0
        var shared = 0
        for round in 0..<30 {
            let scenarios = try MirroredScenarios(kind: kind, using: &generator)
            let ltr = scenarios.ltr.view
            let rtl = scenarios.rtl.view
            for step in 0..<8 {
                let label = "seed \(seed), round \(round), step \(step), \(scenarios.description)"
                let ltrPlan: AnimationPlan
                let rtlPlan: AnimationPlan
                let boundsWidthBefore = ltr.bounds.size.width
                switch Int.random(in: 0..<4, using: &generator) {
                case 0, 1:
                    // A pair of snapshots that share items: shown unanimated,
                    // the first, then the second through a batch update of
                    // moves, shifts, reloads, inserts and deletes.
                    let ltrPair = scenarios.ltr.pairs.next()
                    let rtlPair = scenarios.rtl.pairs.next()
                    try scenarios.ltr.source.apply(ltrPair.old, animated: false)
                    try scenarios.rtl.source.apply(rtlPair.old, animated: false)
                    rtl.setBounds(mirroredBounds(ltr.bounds, width: ltr.contentSize.width), animated: false)
                    ltrPlan = try scenarios.ltr.source.apply(ltrPair.new)
                    rtlPlan = try scenarios.rtl.source.apply(rtlPair.new)
                    shared += ltrPlan.elements.filter { $0.indexPathBefore != nil && $0.indexPathAfter != nil }.count
                case 2:
                    let range = scenarios.ltr.offsetRange()
                    let offset = Point(
                        x: Double.random(in: range.x, using: &generator).rounded(.down),
                        y: Double.random(in: range.y, using: &generator).rounded(.down)
                    )
                    let bounds = Rect(origin: offset, size: ltr.bounds.size)
                    ltrPlan = ltr.setBounds(bounds)
                    rtlPlan = rtl.setBounds(mirroredBounds(bounds, width: ltr.contentSize.width))
                default:
                    let bounds = Rect(origin: ltr.bounds.origin, size: randomViewSize(using: &generator))
                    ltrPlan = ltr.setBounds(bounds)
                    // The content width follows from the size alone.
                    rtlPlan = rtl.setBounds(mirroredBounds(bounds, width: ltr.contentSize.width))
                }
                if ltrPlan.contentSizeBefore.width != ltrPlan.contentSizeAfter.width { widthChanges += 1 }
                if let difference = mirrorDifference(rtlPlan, of: ltrPlan) { Issue.record("\(label): \(difference)") }
                #expect(offsetIsMirrored(rtlPlan.contentOffsetBefore, of: ltrPlan.contentOffsetBefore, width: ltrPlan.contentSizeBefore.width, boundsWidth: boundsWidthBefore), "\(label)")
                #expect(offsetIsMirrored(rtl.bounds.origin, of: ltr.bounds.origin, width: ltr.contentSize.width, boundsWidth: ltr.bounds.size.width), "\(label): offsets \(rtl.bounds.origin) and \(ltr.bounds.origin)")
                // Keep the views exact mirrors for the next step.
                rtl.setBounds(mirroredBounds(ltr.bounds, width: ltr.contentSize.width), animated: false)
            }
        }
        #expect(widthChanges > 0 || kind != .horizontalList, "seed \(seed): no step changed the content's width")
        #expect(shared > 100, "seed \(seed): only \(shared) elements lived through a batch update")
    }

    @Test("A transition between a flipping and a non-flipping layout, right to left, mirrors the flipping side only", arguments: LayoutKind.allCases)
    func transitionsMirrorTheFlippingSide(kind: LayoutKind) throws {
        let seed = testSeed(default: 0x7A_4E51) ^ UInt64(LayoutKind.allCases.firstIndex(of: kind)!)
        var generator = SplitMix64(seed: seed)
        for round in 0..<30 {
            let scenarios = try MirroredScenarios(kind: kind, symmetricInsets: true, using: &generator)
            let ltr = scenarios.ltr.view
            let rtl = scenarios.rtl.view
            let label = "seed \(seed), round \(round), \(scenarios.description)"
            let itemSize = Size(width: Double(Int.random(in: 10...120, using: &generator)), height: 30)
            func nonFlipping() -> FlowLayout {
                let layout = NonFlippingFlowLayout()
                layout.itemSize = itemSize
                return layout
            }
            let away = (ltr: ltr.setCollectionViewLayout(nonFlipping()), rtl: rtl.setCollectionViewLayout(nonFlipping()))
            if let difference = mirrorDifference(away.rtl, of: away.ltr, mirrorsAfter: false) { Issue.record("\(label), to a layout that does not flip: \(difference)") }
            #expect(isClose(rtl.bounds.origin.x, ltr.bounds.origin.x), "\(label): offsets \(rtl.bounds.origin) and \(ltr.bounds.origin)")
            let back = (ltr: ltr.setCollectionViewLayout(scenarios.ltr.spec.make(delegate: scenarios.ltr.delegate)), rtl: rtl.setCollectionViewLayout(scenarios.rtl.spec.make(delegate: scenarios.rtl.delegate)))
            if let difference = mirrorDifference(back.rtl, of: back.ltr, mirrorsBefore: false) { Issue.record("\(label), back to the flipping layout: \(difference)") }
        }
    }

    @Test("Changing the direction mirrors every element in place and keeps the offset's distance from the leading edge; a horizontal list starts at its right end")
    func changingDirection() throws {
        let source = TestCountsSource(counts: [10])
        let layout = HorizontalListLayout()
        layout.itemWidth = 40
        layout.itemSpacing = 0
        let view = CollectionView(layout: layout, size: Size(width: 100, height: 50))
        view.dataSource = source
        view.reloadData()
        let before = view.visibleElements
        #expect(before.map(\.indexPath.item) == [0, 1, 2])
        let plan = view.setLayoutDirection(.rightToLeft)
        #expect(view.effectiveLayoutDirection == .rightToLeft)
        #expect(plan.contentOffsetBefore == Point(x: 0, y: 0))
        #expect(plan.contentOffsetAfter == Point(x: 300, y: 0))
        // The start of the list, on the right.
        #expect(view.visibleElements.map(\.indexPath.item) == [0, 1, 2])
        #expect(view.visibleElements.map(\.frame.minX) == [360, 320, 280])
        for element in plan.elements where element.indexPathAfter.map({ $0.item < 3 }) == true {
            #expect(element.to.frame == element.from.frame.mirroredHorizontally(inWidth: 400), "\(element)")
        }
        // Setting the same direction again changes nothing.
        let same = view.setLayoutDirection(.rightToLeft)
        #expect(same.elements.allSatisfy { $0.from == $0.to } && same.contentOffsetAfter == same.contentOffsetBefore)

        // A view set right to left before it loads starts at its right end;
        // an insertion at the start without an anchor keeps the right end.
        let other = CollectionView(layout: HorizontalListLayout(), size: Size(width: 100, height: 50))
        other.anchorsScrollPosition = false
        (other.collectionViewLayout as! HorizontalListLayout).itemWidth = 40
        (other.collectionViewLayout as! HorizontalListLayout).itemSpacing = 0
        other.setLayoutDirection(.rightToLeft, animated: false)
        let counts = TestCountsSource(counts: [10])
        other.dataSource = counts
        other.reloadData()
        #expect(other.bounds.origin.x == 300)
        counts.counts = [11]
        try other.performBatchUpdates([.insertItem(at: IndexPath(item: 0, section: 0))])
        #expect(other.bounds.origin.x == 340)
        #expect(other.visibleElements.first?.indexPath.item == 0)

        // A list narrower than the view rests against the right edge.
        let short = CollectionView(layout: HorizontalListLayout(), size: Size(width: 100, height: 50))
        (short.collectionViewLayout as! HorizontalListLayout).centerContent = false
        (short.collectionViewLayout as! HorizontalListLayout).itemWidth = 40
        (short.collectionViewLayout as! HorizontalListLayout).itemSpacing = 0
        let one = TestCountsSource(counts: [1])
        short.dataSource = one
        short.setLayoutDirection(.rightToLeft, animated: false)
        short.reloadData()
        #expect(short.contentSize.width == 40)
        #expect(short.bounds.origin.x == -60)
        #expect(short.visibleElements.map(\.frame) == [Rect(x: 0, y: 0, width: 40, height: 50)])
    }
}

/// A flow layout that keeps its frames in either direction.
private final class NonFlippingFlowLayout: FlowLayout {
    override var flipsHorizontallyInOppositeLayoutDirection: Bool { false }
}
