import Testing
import TesseraLayout

/// The TesseraLayout samples of README.md and the "Laying out a grid"
/// article, compiled with the import they state and run.
@Suite("TesseraLayout samples")
struct TesseraLayoutSamples: PrintingSamples {
    let transcript = Transcript()

    @Test("The README's grid sample returns the headers and items in the viewport")
    func readme() {
        // sample: README.md
        let environment = StaticLayoutEnvironment(size: Size(width: 390, height: 844), itemCounts: [12, 30])
        let layout = FlowLayout()
        layout.collectionView = environment        // held weakly, as UIKit does: keep it alive
        layout.itemSize = Size(width: 120, height: 120)
        layout.minimumInteritemSpacing = 5
        layout.minimumLineSpacing = 5
        layout.sectionInset = EdgeInsets(all: 5)
        layout.headerReferenceSize = Size(width: 0, height: 40)
        layout.prepare()

        let visible = layout.layoutAttributesForElements(in: environment.bounds)
        // headers, footers and items intersecting the viewport, sections ascending
        // end of sample
        #expect(visible.first?.category == .supplementaryView(ElementKind.sectionHeader))
        // Three items per line (120·3 + 5·2 = 370 ≤ 380): section 0's four
        // lines end at 545; section 1's lines start at 590, 715 and 840.
        #expect(visible.filter { $0.category == .cell }.map(\.indexPath) == (0..<12).map { IndexPath(item: $0, section: 0) } + (0..<9).map { IndexPath(item: $0, section: 1) })
        #expect(visible.map(\.indexPath.section) == visible.map(\.indexPath.section).sorted())
    }

    @Test("The article's grid lays out, queries and re-lays out as it says")
    func layingOutAGrid() {
        // sample: Sources/TesseraLayout/TesseraLayout.docc/LayingOutAGrid.md
        let environment = StaticLayoutEnvironment(size: Size(width: 390, height: 844), itemCounts: [12, 30])
        let layout = FlowLayout()
        layout.collectionView = environment
        layout.itemSize = Size(width: 120, height: 120)
        layout.minimumInteritemSpacing = 5
        layout.minimumLineSpacing = 5
        layout.sectionInset = EdgeInsets(all: 5)
        layout.headerReferenceSize = Size(width: 0, height: 40)
        layout.prepare()

        let contentSize = layout.collectionViewContentSize   // the scrollable size
        let visible = layout.layoutAttributesForElements(in: environment.bounds)
        for attributes in visible {
            print(attributes.category, attributes.indexPath, attributes.frame)
        }
        // end of sample
        // Section 0: a 40-point header, insets of 5 and 4 lines
        // (40 + 5 + 4·120 + 3·5 + 5 = 545); section 1: 10 lines
        // (40 + 5 + 10·120 + 9·5 + 5 = 1,295).
        #expect(contentSize == Size(width: 390, height: 545 + 1_295))
        #expect(transcript.lines.count == visible.count)
        #expect(transcript.lines.first == "\(visible[0].category) \(visible[0].indexPath) \(visible[0].frame)")
        #expect(layout.layoutAttributesForItem(at: IndexPath(item: 3, section: 0))?.frame == Rect(x: 5, y: 170, width: 120, height: 120))

        // sample: Sources/TesseraLayout/TesseraLayout.docc/LayingOutAGrid.md
        var wider = environment.bounds
        wider.size.width = 600                             // lines will re-wrap
        if layout.shouldInvalidateLayout(forBoundsChange: wider) {   // asked before the change
            layout.invalidateLayout(with: layout.invalidationContext(forBoundsChange: wider))
        }
        environment.bounds = wider
        environment.itemCounts[1] = 31                     // one more item in section 1
        let context = InvalidationContext(invalidateDataSourceCounts: true)
        context.invalidateSections([1])                    // recompute from section 1 on
        layout.invalidateLayout(with: context)
        layout.prepare()
        // end of sample
        // Four items a line at 600 wide (4·120 + 3·5 = 495 ≤ 590), spread
        // to fill it; section 1 has its 31st item.
        let gap: Double = 5 + (590 - 495) / 3
        #expect(layout.layoutAttributesForItem(at: IndexPath(item: 1, section: 0))?.frame.minX == 5 + 120 + gap)
        #expect(layout.layoutAttributesForItem(at: IndexPath(item: 30, section: 1)) != nil)
        #expect(layout.collectionViewContentSize.width == 600)
        #expect(layout.layoutError == nil)
    }
}
