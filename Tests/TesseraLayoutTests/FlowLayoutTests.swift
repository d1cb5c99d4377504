import Foundation
import Testing
import TesseraLayout
import TesseraTestSupport
import TesseraTestTraits

@Suite("FlowLayout: worked examples", .cpuBound)
struct FlowLayoutExampleTests {
    @Test("Full lines are justified and the last line is left-aligned")
    func justifiedAndLastLine() {
        let (layout, _) = prepared(FlowLayout(), width: 300, height: 600, itemCounts: [7]) { $0.itemSize = Size(width: 80, height: 50) }
        // 3 fit on a 300-wide line (80+10+80+10+80 = 260); gaps widen to 30.
        #expect(itemFrames(of: layout, itemCounts: [7]) == [[
            rect(0, 0, 80, 50), rect(110, 0, 80, 50), rect(220, 0, 80, 50),
            rect(0, 60, 80, 50), rect(110, 60, 80, 50), rect(220, 60, 80, 50),
            rect(0, 120, 80, 50),
        ]])
        #expect(layout.collectionViewContentSize == Size(width: 300, height: 170))
        #expect(layout.layoutError == nil)
    }

    @Test("A full line with one item is centered")
    func oneItemFullLineCentered() {
        let delegate = sectionZeroDelegate([Size(width: 200, height: 50), Size(width: 200, height: 50), Size(width: 50, height: 50)])
        let (layout, _) = prepared(FlowLayout(), width: 300, height: 600, itemCounts: [3]) { $0.delegate = delegate }
        #expect(itemFrames(of: layout, itemCounts: [3]) == [[rect(50, 0, 200, 50), rect(0, 60, 200, 50), rect(210, 60, 50, 50)]])
    }

    @Test("Items of different heights are centered on their line")
    func differentHeightsCentered() {
        let delegate = sectionZeroDelegate([Size(width: 100, height: 40), Size(width: 100, height: 80), Size(width: 100, height: 20)])
        let (layout, _) = prepared(FlowLayout(), width: 300, height: 600, itemCounts: [3]) { $0.delegate = delegate }
        // Two per line (210 ≤ 300 < 320); the full line is justified (gap 100).
        #expect(itemFrames(of: layout, itemCounts: [3]) == [[rect(0, 20, 100, 40), rect(200, 0, 100, 80), rect(0, 90, 100, 20)]])
        #expect(layout.collectionViewContentSize.height == 110)
    }

    @Test("Headers, footers and section insets, including an empty section")
    func headersFootersInsets() {
        let (layout, _) = prepared(FlowLayout(), width: 320, height: 600, itemCounts: [3, 0]) {
            $0.headerReferenceSize = Size(width: 0, height: 44)
            $0.footerReferenceSize = Size(width: 0, height: 30)
            $0.sectionInset = EdgeInsets(top: 10, left: 20, bottom: 5, right: 20)
        }
        #expect(itemFrames(of: layout, itemCounts: [3, 0]) == [[rect(20, 54, 50, 50), rect(80, 54, 50, 50), rect(140, 54, 50, 50)], []])
        let header = { (section: Int) in layout.layoutAttributesForSupplementaryView(ofKind: ElementKind.sectionHeader, at: IndexPath(item: 0, section: section))?.frame }
        let footer = { (section: Int) in layout.layoutAttributesForSupplementaryView(ofKind: ElementKind.sectionFooter, at: IndexPath(item: 0, section: section))?.frame }
        #expect(header(0) == rect(0, 0, 320, 44))
        #expect(footer(0) == rect(0, 109, 320, 30))
        #expect(header(1) == rect(0, 139, 320, 44))
        #expect(footer(1) == rect(0, 198, 320, 30))
        #expect(layout.collectionViewContentSize == Size(width: 320, height: 228))
    }

    @Test("No header or footer view when its height is zero")
    func noZeroHeightSupplementary() {
        let (layout, _) = prepared(FlowLayout(), width: 300, height: 600, itemCounts: [2])
        #expect(layout.layoutAttributesForSupplementaryView(ofKind: ElementKind.sectionHeader, at: IndexPath(item: 0, section: 0)) == nil)
        #expect(layout.layoutAttributesForElements(in: rect(0, 0, 300, 600)).allSatisfy { $0.category == .cell })
    }

    @Test("Horizontal scrolling mirrors the vertical layout")
    func horizontal() {
        let (layout, _) = prepared(FlowLayout(), width: 600, height: 200, itemCounts: [3]) {
            $0.scrollDirection = .horizontal
            $0.itemSize = Size(width: 50, height: 80)
        }
        // Lines are columns: 2 items of 80 fit in 200; the full column is justified.
        #expect(itemFrames(of: layout, itemCounts: [3]) == [[rect(0, 0, 50, 80), rect(0, 120, 50, 80), rect(60, 0, 50, 80)]])
        #expect(layout.collectionViewContentSize == Size(width: 110, height: 200))
    }

    @Test("Line alignment options: centered and trailing last lines, leading full lines")
    func alignmentOptions() {
        let (centered, _) = prepared(FlowLayout(), width: 300, height: 600, itemCounts: [4]) {
            $0.itemSize = Size(width: 80, height: 50)
            $0.lastLineAlignment = .center
            $0.fullLineAlignment = .leading
        }
        #expect(itemFrames(of: centered, itemCounts: [4]) == [[rect(0, 0, 80, 50), rect(90, 0, 80, 50), rect(180, 0, 80, 50), rect(110, 60, 80, 50)]])
        let (trailing, _) = prepared(FlowLayout(), width: 300, height: 600, itemCounts: [4]) {
            $0.itemSize = Size(width: 80, height: 50)
            $0.lastLineAlignment = .trailing
        }
        #expect(itemFrames(of: trailing, itemCounts: [4])[0][3] == rect(220, 60, 80, 50))
    }

    @Test("Pinned headers follow the content offset and stop at their section's end")
    func pinnedHeaders() {
        let (layout, environment) = prepared(FlowLayout(), width: 100, height: 100, itemCounts: [2, 2]) {
            $0.itemSize = Size(width: 100, height: 50)
            $0.minimumLineSpacing = 0
            $0.headerReferenceSize = Size(width: 0, height: 20)
            $0.sectionHeadersPinToVisibleBounds = true
        }
        func headerY(_ section: Int) -> Double? {
            layout.layoutAttributesForSupplementaryView(ofKind: ElementKind.sectionHeader, at: IndexPath(item: 0, section: section))?.frame.minY
        }
        // Section 0 spans 0..<120, section 1 spans 120..<240.
        let expectations: [(offset: Double, header0: Double, header1: Double)] = [
            (0, 0, 120), (50, 50, 120), (110, 100, 120), (130, 100, 130), (300, 100, 220),
        ]
        for (offset, header0, header1) in expectations {
            let bounds = Rect(x: 0, y: offset, width: 100, height: 100)
            #expect(layout.shouldInvalidateLayout(forBoundsChange: bounds) == (offset != environment.bounds.minY))
            environment.bounds = bounds
            #expect(headerY(0) == header0, "offset \(offset)")
            #expect(headerY(1) == header1, "offset \(offset)")
            let visible = layout.layoutAttributesForElements(in: bounds)
            // Past the content's end (240) nothing is visible.
            #expect(offset >= 240 ? visible.isEmpty : visible.contains { $0.category == .supplementaryView(ElementKind.sectionHeader) && $0.frame.minY == (offset < 120 ? header0 : header1) })
        }
        let context = layout.invalidationContext(forBoundsChange: Rect(x: 0, y: 10, width: 100, height: 100))
        #expect(context.invalidatesOnlySupplementaryElements)
    }

    @Test("Pinned footers stay at the bottom of the visible area, above their section's start")
    func pinnedFooters() {
        let (layout, environment) = prepared(FlowLayout(), width: 100, height: 100, itemCounts: [4]) {
            $0.itemSize = Size(width: 100, height: 50)
            $0.minimumLineSpacing = 0
            $0.footerReferenceSize = Size(width: 0, height: 20)
            $0.sectionFootersPinToVisibleBounds = true
        }
        // Items 0..<200, footer naturally at 200..<220.
        func footerY() -> Double? {
            layout.layoutAttributesForSupplementaryView(ofKind: ElementKind.sectionFooter, at: IndexPath(item: 0, section: 0))?.frame.minY
        }
        #expect(footerY() == 80)
        environment.bounds.origin.y = 60
        #expect(footerY() == 140)
        environment.bounds.origin.y = 150
        #expect(footerY() == 200)
    }

    @Test("A change of width re-wraps the lines; a scroll without pinning does not invalidate")
    func boundsChangeRewraps() {
        let (layout, environment) = prepared(FlowLayout(), width: 300, height: 600, itemCounts: [3]) { $0.itemSize = Size(width: 80, height: 50) }
        #expect(!layout.shouldInvalidateLayout(forBoundsChange: Rect(x: 0, y: 40, width: 300, height: 600)))
        let narrower = Rect(x: 0, y: 0, width: 200, height: 600)
        #expect(layout.shouldInvalidateLayout(forBoundsChange: narrower))
        environment.bounds = narrower
        layout.invalidateLayout(with: layout.invalidationContext(forBoundsChange: narrower))
        layout.prepare()
        // Two fit on 200 (170); justified gap 40.
        #expect(itemFrames(of: layout, itemCounts: [3]) == [[rect(0, 0, 80, 50), rect(120, 0, 80, 50), rect(0, 60, 80, 50)]])
    }

    @Test("An item wider than the line is placed alone at the line's start, and the content grows across to enclose it")
    func tooWideItem() {
        let delegate = TableDelegate()
        delegate.itemSizes = [IndexPath(item: 0, section: 0): Size(width: 400, height: 50)]
        let (layout, _) = prepared(FlowLayout(), width: 300, height: 600, itemCounts: [2]) { $0.delegate = delegate }
        // Not centered on the 300-wide line (at −50, before the content's
        // origin): at the leading inset, in content 400 wide.
        #expect(itemFrames(of: layout, itemCounts: [2]) == [[rect(0, 0, 400, 50), rect(0, 60, 50, 50)]])
        #expect(layout.collectionViewContentSize == Size(width: 400, height: 110))
    }
}

/// A delegate that gives the items of section 0 `sizes`, in order.
private func sectionZeroDelegate(_ sizes: [Size]) -> TableDelegate {
    let delegate = TableDelegate()
    for (item, size) in sizes.enumerated() {
        delegate.itemSizes[IndexPath(item: item, section: 0)] = size
    }
    return delegate
}
