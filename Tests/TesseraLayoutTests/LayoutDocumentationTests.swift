import Foundation
import Testing
import TesseraLayout

/// The "Laying out a grid" article and the README example, run as written.
@Suite("Layout documentation examples")
struct LayoutDocumentationTests {
    @Test("The grid example lays out, queries and re-lays out as the article says")
    func gridExample() {
        let environment = StaticLayoutEnvironment(size: Size(width: 390, height: 844), itemCounts: [12, 30])
        let layout = FlowLayout()
        layout.collectionView = environment
        layout.itemSize = Size(width: 120, height: 120)
        layout.minimumInteritemSpacing = 5
        layout.minimumLineSpacing = 5
        layout.sectionInset = EdgeInsets(all: 5)
        layout.headerReferenceSize = Size(width: 0, height: 40)
        layout.prepare()

        // Three items per line (120·3 + 5·2 = 370 ≤ 380); 4 lines in section 0.
        #expect(layout.layoutAttributesForItem(at: IndexPath(item: 3, section: 0))?.frame == Rect(x: 5, y: 170, width: 120, height: 120))
        let visible = layout.layoutAttributesForElements(in: environment.bounds)
        #expect(visible.first?.category == .supplementaryView(ElementKind.sectionHeader))
        // Section 1's lines start at 590, 715 and 840: three are visible.
        #expect(visible.filter { $0.category == .cell }.map(\.indexPath.item) == Array(0..<12) + Array(0..<9))

        var wider = environment.bounds
        wider.size.width = 600
        #expect(layout.shouldInvalidateLayout(forBoundsChange: wider))
        layout.invalidateLayout(with: layout.invalidationContext(forBoundsChange: wider))
        environment.bounds = wider
        environment.itemCounts[1] = 31
        let context = InvalidationContext(invalidateDataSourceCounts: true)
        context.invalidateSections([1])
        layout.invalidateLayout(with: context)
        layout.prepare()
        // Four per line at 600 wide (4·120 + 3·5 = 495 ≤ 590), justified;
        // item 30 of section 1 exists.
        let gap: Double = 5 + (590 - 495) / 3
        let secondX: Double = 5 + 120 + gap
        #expect(layout.layoutAttributesForItem(at: IndexPath(item: 1, section: 0))?.frame.minX == secondX)
        #expect(layout.layoutAttributesForItem(at: IndexPath(item: 30, section: 1)) != nil)
        #expect(layout.layoutError == nil)
    }

    @Test("Pinned footers stay at the bottom of the visible area, above their section's start")
    func pinnedFooters() {
        let environment = StaticLayoutEnvironment(size: Size(width: 100, height: 100), itemCounts: [4])
        let layout = FlowLayout()
        layout.collectionView = environment
        layout.itemSize = Size(width: 100, height: 50)
        layout.minimumLineSpacing = 0
        layout.footerReferenceSize = Size(width: 0, height: 20)
        layout.sectionFootersPinToVisibleBounds = true
        layout.prepare()
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
}
