import Foundation
import Testing
import TesseraLayout
import TesseraTestSupport
import TesseraTestTraits

@Suite("ListLayout: worked examples", .cpuBound)
struct ListLayoutExampleTests {
    @Test("Rows stack with spacing, full width between the insets")
    func rows() {
        let (layout, _) = prepared(ListLayout(), itemCounts: [3]) {
            $0.itemHeight = 40
            $0.interitemSpacing = 2
            $0.sectionInsets = EdgeInsets(top: 8, left: 16, bottom: 4, right: 16)
        }
        #expect(itemFrames(of: layout, itemCounts: [3]) == [[rect(16, 8, 288, 40), rect(16, 50, 288, 40), rect(16, 92, 288, 40)]])
        // The content is at least as tall as the visible area.
        #expect(layout.collectionViewContentSize == Size(width: 320, height: 480))
    }

    @Test("Headers and footers span the width, or the inset width with insetSupplementaryViews")
    func supplementaryViews() {
        for inset in [false, true] {
            let (layout, _) = prepared(ListLayout(), itemCounts: [1, 2]) {
                $0.itemHeight = 30
                $0.headerHeight = 20
                $0.footerHeight = 10
                $0.sectionInsets = EdgeInsets(top: 5, left: 10, bottom: 5, right: 10)
                $0.insetSupplementaryViews = inset
                $0.hugContents = true
            }
            let x: Double = inset ? 10 : 0
            let width: Double = inset ? 300 : 320
            func frame(_ kind: String, _ section: Int) -> Rect? {
                layout.layoutAttributesForSupplementaryView(ofKind: kind, at: IndexPath(item: 0, section: section))?.frame
            }
            // Section 0: header 0..20, inset to 25, item 25..55, footer 55..65, inset to 70.
            #expect(frame(ElementKind.sectionHeader, 0) == rect(x, 0, width, 20))
            #expect(frame(ElementKind.sectionFooter, 0) == rect(x, 55, width, 10))
            #expect(frame(ElementKind.sectionHeader, 1) == rect(x, 70, width, 20))
            #expect(itemFrames(of: layout, itemCounts: [1, 2]) == [[rect(10, 25, 300, 30)], [rect(10, 95, 300, 30), rect(10, 125, 300, 30)]])
            #expect(frame(ElementKind.sectionFooter, 1) == rect(x, 155, width, 10))
            #expect(layout.collectionViewContentSize == Size(width: 320, height: 170))
        }
    }

    @Test("Per-item heights and per-section spacing from the delegate")
    func delegateValues() {
        let delegate = TableDelegate()
        delegate.itemSizes = [IndexPath(item: 1, section: 0): Size(width: 0, height: 100)]
        delegate.interitemSpacings = [0: 5]
        let (layout, _) = prepared(ListLayout(), itemCounts: [3]) { $0.delegate = delegate }
        #expect(itemFrames(of: layout, itemCounts: [3]) == [[rect(0, 0, 320, 36), rect(0, 41, 320, 100), rect(0, 146, 320, 36)]])
    }

    @Test("A scroll does not invalidate; a width change does, and a height change unless the list hugs its contents")
    func invalidation() {
        let (layout, environment) = prepared(ListLayout(), itemCounts: [3])
        withExtendedLifetime(environment) {
            #expect(!layout.shouldInvalidateLayout(forBoundsChange: rect(0, 100, 320, 480)))
            #expect(layout.shouldInvalidateLayout(forBoundsChange: rect(0, 0, 320, 300)))
            #expect(layout.shouldInvalidateLayout(forBoundsChange: rect(0, 0, 400, 480)))
            // A height change names no section: nothing is laid out again.
            #expect(layout.invalidationContext(forBoundsChange: rect(0, 0, 320, 300)).firstSectionToRecompute == nil)
            #expect(layout.invalidationContext(forBoundsChange: rect(0, 0, 400, 480)).invalidateEverything)
            layout.hugContents = true
            #expect(!layout.shouldInvalidateLayout(forBoundsChange: rect(0, 0, 320, 300)))
            #expect(layout.shouldInvalidateLayout(forBoundsChange: rect(0, 0, 400, 480)))
        }
    }
}
