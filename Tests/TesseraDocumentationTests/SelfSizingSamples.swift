import Testing
import Tessera

/// The "Self-sizing items" article's samples, compiled with `import Tessera`
/// and run.
enum SelfSizingSampleTypes {
    // sample: Sources/TesseraView/TesseraView.docc/SelfSizing.md
    final class Messages: CollectionViewDataSource {
        var texts: [String]

        init(texts: [String]) {
            self.texts = texts
        }

        func numberOfSections(in collectionView: CollectionView) -> Int { 1 }

        func collectionView(_ collectionView: CollectionView, numberOfItemsInSection section: Int) -> Int {
            texts.count
        }

        func collectionView(_ collectionView: CollectionView, preferredLayoutAttributesFitting layoutAttributes: LayoutAttributes) -> LayoutAttributes? {
            // 40 characters a line, 20 points a line, 16 points of padding.
            let lines = max(1, (texts[layoutAttributes.indexPath.item].count + 39) / 40)
            var fitted = layoutAttributes
            fitted.frame.size.height = Double(lines * 20 + 16)
            return fitted
        }
    }
    // end of sample

    // sample: Sources/TesseraView/TesseraView.docc/SelfSizing.md
    /// One column of rows, each 40 points until its fitted height is known.
    final class RowsLayout: CollectionViewLayout {
        private var fitted: [Int: Double] = [:]
        private var tops: [Double] = []
        private var heights: [Double] = []

        override func prepare() {
            super.prepare()
            let count = collectionView.map { $0.numberOfSections > 0 ? $0.numberOfItems(inSection: 0) : 0 } ?? 0
            heights = (0..<count).map { fitted[$0] ?? 40 }
            tops = []
            var top = 0.0
            for height in heights {
                tops.append(top)
                top += height
            }
        }

        override var collectionViewContentSize: Size {
            Size(width: collectionView?.bounds.size.width ?? 0, height: (tops.last ?? 0) + (heights.last ?? 0))
        }

        override func layoutAttributesForItem(at indexPath: IndexPath) -> LayoutAttributes? {
            guard indexPath.count == 2, indexPath.section == 0, indexPath.item >= 0, indexPath.item < tops.count else { return nil }
            let width = collectionView?.bounds.size.width ?? 0
            return .cell(at: indexPath, frame: Rect(x: 0, y: tops[indexPath.item], width: width, height: heights[indexPath.item]))
        }

        override func layoutAttributesForElements(in rect: Rect) -> [LayoutAttributes] {
            tops.indices.compactMap { layoutAttributesForItem(at: IndexPath(item: $0, section: 0)) }
                .filter { $0.frame.intersects(rect) }
        }

        override func needsPreferredLayoutAttributes(forItemAt indexPath: IndexPath) -> Bool {
            fitted[indexPath.item] == nil
        }

        override func shouldInvalidateLayout(forPreferredLayoutAttributes preferredAttributes: LayoutAttributes, withOriginalAttributes originalAttributes: LayoutAttributes) -> Bool {
            fitted[preferredAttributes.indexPath.item] != preferredAttributes.size.height
        }

        override func invalidationContext(forPreferredLayoutAttributes preferredAttributes: LayoutAttributes, withOriginalAttributes originalAttributes: LayoutAttributes) -> InvalidationContext {
            let context = super.invalidationContext(forPreferredLayoutAttributes: preferredAttributes, withOriginalAttributes: originalAttributes)
            fitted[preferredAttributes.indexPath.item] = preferredAttributes.size.height
            let delta = preferredAttributes.size.height - originalAttributes.size.height
            context.contentSizeAdjustment = Size(width: 0, height: delta)
            // A row above the visible area moves everything on screen: follow it.
            if let visible = collectionView?.bounds, originalAttributes.frame.minY < visible.minY {
                context.contentOffsetAdjustment = Point(x: 0, y: delta)
            }
            return context
        }
    }
    // end of sample
}

@Suite("Self-sizing samples")
struct SelfSizingSamples: PrintingSamples {
    typealias Messages = SelfSizingSampleTypes.Messages
    typealias RowsLayout = SelfSizingSampleTypes.RowsLayout
    let transcript = Transcript()

    @Test("The list sample sizes the visible rows at reloadData, leaves the others at the estimate, and resizes a row later with a plan")
    func list() throws {
        // sample: Sources/TesseraView/TesseraView.docc/SelfSizing.md
        let layout = ListLayout()
        layout.estimatedItemHeight = 44
        let view = CollectionView(layout: layout, size: Size(width: 390, height: 844))
        let messages = Messages(texts: (0..<1_000).map { String(repeating: "word ", count: $0 % 30) })
        view.dataSource = messages
        view.reloadData()   // every row starts at 44 points; the visible ones are sized
        // end of sample
        let visible = view.visibleElements.filter { $0.category == .cell }
        #expect(!visible.isEmpty)
        for attributes in visible {
            let lines = max(1, (messages.texts[attributes.indexPath.item].count + 39) / 40)
            #expect(attributes.frame.height == Double(lines * 20 + 16))
            #expect(!layout.needsPreferredLayoutAttributes(forItemAt: attributes.indexPath))
        }
        #expect(layout.layoutAttributesForItem(at: IndexPath(item: 900, section: 0))?.frame.height == 44)
        let heightBefore = try #require(layout.layoutAttributesForItem(at: IndexPath(item: 3, section: 0))).frame.height

        // sample: Sources/TesseraView/TesseraView.docc/SelfSizing.md
        messages.texts[3] += " and now a much longer text than the one it had before"
        let plan = try view.invalidateItemSizes(at: [IndexPath(item: 3, section: 0)])
        // end of sample
        let element = try #require(plan.elements.first { $0.indexPathAfter == IndexPath(item: 3, section: 0) })
        #expect(element.from.frame.height == heightBefore)
        #expect(element.to.frame.height > heightBefore)
        #expect(element.to == layout.layoutAttributesForItem(at: IndexPath(item: 3, section: 0)))

        // sample: Sources/TesseraView/TesseraView.docc/SelfSizing.md
        do {
            try view.invalidateItemSizes(at: [IndexPath(item: 5_000, section: 0)])
        } catch {
            print(error)   // no item at index path [0, 5000] to size
        }
        // end of sample
        #expect(transcript.lines == ["no item at index path [0, 5000] to size"])
    }

    @Test("The custom layout sample sizes its rows through the view and keeps the first visible row in place when a row above changes")
    func customLayout() throws {
        let messages = Messages(texts: (0..<200).map { String(repeating: "x", count: $0 % 90) })
        let layout = RowsLayout()
        let view = CollectionView(layout: layout, size: Size(width: 320, height: 400))
        view.dataSource = messages
        view.reloadData()
        #expect(layout.layoutAttributesForItem(at: IndexPath(item: 0, section: 0))?.frame.height == 36)
        #expect(layout.layoutAttributesForItem(at: IndexPath(item: 150, section: 0))?.frame.height == 40)
        view.setBounds(Rect(x: 0, y: 2_000, width: 320, height: 400), animated: false)
        let first = try #require(view.visibleElements.first)
        let onScreen = first.frame.minY - view.bounds.origin.y
        messages.texts[10] += String(repeating: "y", count: 200)
        try view.invalidateItemSizes(at: [IndexPath(item: 10, section: 0)])
        let moved = try #require(layout.layoutAttributesForItem(at: first.indexPath))
        #expect(moved.frame.minY - view.bounds.origin.y == onScreen)
    }
}
