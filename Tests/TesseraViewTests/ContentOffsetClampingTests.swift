import Foundation
import Testing
import TesseraDiff
import TesseraLayout
import TesseraTestSupport
import TesseraView
import TesseraTestTraits

/// `clampsContentOffset`: on (UIKit's way), a change pulls the offset into
/// the content; off, the offset stays where it was set, and the plan's
/// elements are those of that rectangle.
@Suite("Content offset clamping", .cpuBound)
struct ContentOffsetClampingTests {
    /// A list of 100 rows of 50 points, 400 × 800, scrolled to `offset`.
    static func view(clamps: Bool, offset: Point, source: RawCountsSource) -> CollectionView {
        let layout = ListLayout()
        layout.itemHeight = 50
        let view = CollectionView(layout: layout, size: Size(width: 400, height: 800))
        view.anchorsScrollPosition = false
        view.clampsContentOffset = clamps
        view.dataSource = source
        view.reloadData()
        view.setBounds(Rect(origin: offset, size: view.bounds.size), animated: false)
        return view
    }

    @Test("deletes at the end of a list scrolled to its bottom pull the offset up when clamping, and leave it when not")
    func deletesUnderTheBottom() throws {
        for clamps in [true, false] {
            let source = RawCountsSource(counts: [100])
            let view = Self.view(clamps: clamps, offset: Point(x: 0, y: 4_200), source: source)
            source.counts = [90]
            let plan = try view.performBatchUpdates((90..<100).map { .deleteItem(at: IndexPath(item: $0, section: 0)) })
            #expect(plan.contentOffsetBefore == Point(x: 0, y: 4_200))
            #expect(plan.contentSizeAfter.height == 4_500)
            let offset = clamps ? Point(x: 0, y: 3_700) : Point(x: 0, y: 4_200)
            #expect(plan.contentOffsetAfter == offset, "clamps: \(clamps)")
            #expect(view.bounds.origin == offset)
            // The plan: the rows of the rectangle before and after.
            let rows = Set(plan.elements.compactMap { ($0.indexPathBefore ?? $0.indexPathAfter).map { $0[1] } })
            #expect(rows == Set(clamps ? 74..<100 : 84..<100), "clamps: \(clamps): \(rows.sorted())")
        }
    }

    @Test("an offset past the content or to its right is kept through an update, a reload and a layout switch when not clamping")
    func offsetsOutsideTheContent() throws {
        let source = RawCountsSource(counts: [100])
        let far = Point(x: 200, y: 1_000_000)
        let view = Self.view(clamps: false, offset: far, source: source)
        source.counts = [101]
        let plan = try view.performBatchUpdates([.insertItem(at: IndexPath(item: 0, section: 0))])
        #expect(plan.contentOffsetAfter == far)
        #expect(plan.elements.isEmpty)
        view.reloadData()
        #expect(view.bounds.origin == far)
        let switched = view.setCollectionViewLayout(FlowLayout(), animated: false)
        #expect(switched.contentOffsetAfter == far)
        #expect(view.visibleElements.isEmpty)
    }
}
