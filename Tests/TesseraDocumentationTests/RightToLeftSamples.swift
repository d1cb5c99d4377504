import Testing
import Tessera

// sample: Sources/TesseraView/TesseraView.docc/RightToLeft.md
final class ShelfLayout: CollectionViewLayout {
    private var frames: [Rect] = []

    override var flipsHorizontallyInOppositeLayoutDirection: Bool { true }

    override func prepare() {
        super.prepare()
        let count = collectionView.map { $0.numberOfSections > 0 ? $0.numberOfItems(inSection: 0) : 0 } ?? 0
        frames = (0..<count).map { Rect(x: Double($0) * 60, y: 0, width: 50, height: 50) }
    }

    override var collectionViewContentSize: Size { Size(width: Double(frames.count) * 60, height: 50) }

    override func layoutAttributesForElements(in rect: Rect) -> [LayoutAttributes] {
        let searched = flippedHorizontally(rect)   // the rect in the layout's own coordinates
        return frames.indices.filter { frames[$0].intersects(searched) }
            .map { flippedHorizontally(.cell(at: IndexPath(item: $0, section: 0), frame: frames[$0])) }
    }

    override func layoutAttributesForItem(at indexPath: IndexPath) -> LayoutAttributes? {
        guard indexPath.count == 2, indexPath[0] == 0, frames.indices.contains(indexPath[1]) else { return nil }
        return flippedHorizontally(.cell(at: indexPath, frame: frames[indexPath[1]]))
    }
}
// end of sample

/// The samples of the "Right-to-left layout" article, compiled with the
/// imports they state and run.
@Suite("Right-to-left samples")
struct RightToLeftSamples: PrintingSamples {
    let transcript = Transcript()

    struct Album: Identifiable, Equatable {
        var id: String
    }

    struct Photo: Identifiable, Equatable {
        var id: Int
    }

    @Test("A horizontal list set right to left before it loads starts at its right end, and changing the direction back plans every element's move")
    func settingTheDirection() throws {
        var snapshot = Snapshot<Album, Photo>()
        snapshot.appendSection(Album(id: "Holidays"), items: (1...10).map { Photo(id: $0) })

        // sample: Sources/TesseraView/TesseraView.docc/RightToLeft.md
        let layout = HorizontalListLayout()
        layout.itemWidth = 100
        layout.centerContent = false
        let view = CollectionView(layout: layout, size: Size(width: 300, height: 120))
        let source = DiffableDataSource<Album, Photo>(collectionView: view)   // keep `source`
        view.setLayoutDirection(.rightToLeft, animated: false)
        try source.apply(snapshot, animated: false)

        let first = view.visibleElements.first { $0.indexPath == IndexPath(item: 0, section: 0) }
        print(first?.frame.maxX == view.contentSize.width)   // true: the first photo is at the right end
        print(view.bounds.maxX == view.contentSize.width)    // true: and the view shows it
        // end of sample
        #expect(transcript.lines == ["true", "true"])
        #expect(view.contentSize.width == 10 * 100 + 9 * 8)
        #expect(view.bounds.origin.x == 1072 - 300)
        withExtendedLifetime(source) {}
        let printedBefore = transcript.lines.count

        // sample: Sources/TesseraView/TesseraView.docc/RightToLeft.md
        let plan = view.setLayoutDirection(.leftToRight)
        for element in plan.elements {
            print(element.indexPathAfter.map(Array.init) ?? [], element.from.frame.minX, "→", element.to.frame.minX)
        }
        // end of sample
        let printed = transcript.lines.dropFirst(printedBefore)
        #expect(printed.count == plan.elements.count)
        #expect(printed.first == "[0, 0] 972.0 → 0.0")
        #expect(view.bounds.origin.x == 0)
        #expect(plan.elements.allSatisfy { $0.to.frame == $0.from.frame.mirroredHorizontally(inWidth: 1072) })
    }

    @Test("A flow layout in a right-to-left static environment puts its first item at the right edge")
    func staticEnvironment() throws {
        // sample: Sources/TesseraView/TesseraView.docc/RightToLeft.md
        let environment = StaticLayoutEnvironment(size: Size(width: 320, height: 480), itemCounts: [3])
        environment.effectiveLayoutDirection = .rightToLeft
        let grid = FlowLayout()
        grid.itemSize = Size(width: 100, height: 100)
        grid.collectionView = environment
        grid.prepare()
        let frame = grid.layoutAttributesForItem(at: IndexPath(item: 0, section: 0))?.frame
        print(frame?.maxX == 320)   // true: the first item at the right edge
        // end of sample
        #expect(transcript.lines == ["true"])
        #expect(frame == Rect(x: 220, y: 0, width: 100, height: 100))
    }

    @Test("The article's shelf layout flips with the helpers: its frames and queries mirror right to left and its rect queries equal a filter")
    func shelfLayoutFlips() {
        let environment = StaticLayoutEnvironment(size: Size(width: 200, height: 50), itemCounts: [5])
        let shelf = ShelfLayout()
        shelf.collectionView = environment
        shelf.prepare()
        let leftToRight = (0..<5).compactMap { shelf.layoutAttributesForItem(at: IndexPath(item: $0, section: 0)) }
        environment.effectiveLayoutDirection = .rightToLeft
        #expect(shelf.isFlippedHorizontally)
        let rightToLeft = (0..<5).compactMap { shelf.layoutAttributesForItem(at: IndexPath(item: $0, section: 0)) }
        #expect(rightToLeft.map(\.frame) == leftToRight.map { $0.frame.mirroredHorizontally(inWidth: 300) })
        #expect(rightToLeft.first?.frame == Rect(x: 250, y: 0, width: 50, height: 50))
        for x in stride(from: -20.0, through: 320, by: 15) {
            let rect = Rect(x: x, y: 10, width: 45, height: 10)
            #expect(shelf.layoutAttributesForElements(in: rect) == rightToLeft.filter { $0.frame.intersects(rect) }, "rect \(rect)")
        }
    }
}
