import Foundation
import Testing
import TesseraDiff
import TesseraLayout
import TesseraTestSupport
import TesseraTestTraits

/// Layouts at the edges of their input: counts changed with no section
/// named, bad and absurd sizes, rounding, insets and headers that reach
/// past the content.
@Suite("Layouts at the edges: odd input, rounding, absurd sizes, insets and headers past the content", .cpuBound)
struct LayoutEdgeCaseTests {
    @Test("Counts changed with no section named still recompute from section 0 after merging a context that names a later section")
    func mergedContexts() {
        for layout in [FlowLayout(), ListLayout()] as [CollectionViewLayout] {
            let environment = StaticLayoutEnvironment(size: Size(width: 320, height: 480), itemCounts: [2, 2])
            layout.collectionView = environment
            layout.prepare()
            environment.itemCounts = [9, 2]
            layout.invalidateLayout(with: InvalidationContext(invalidateDataSourceCounts: true))
            let second = InvalidationContext()
            second.invalidateItems(at: [IndexPath(item: 0, section: 1)])
            layout.invalidateLayout(with: second)
            #expect(layout.pendingInvalidation?.firstSectionToRecompute == 0)
            layout.prepare()
            #expect(layout.layoutAttributesForItem(at: IndexPath(item: 8, section: 0)) != nil, "\(type(of: layout))")
        }
    }

    @Test("A bad value stays reported after incremental, empty and pinning prepares")
    func errorsPersist() {
        let delegate = TableDelegate()
        delegate.itemSizes[IndexPath(item: 0, section: 0)] = Size(width: -5, height: 10)
        let (layout, environment) = prepared(FlowLayout(), width: 300, height: 600, itemCounts: [3, 3]) {
            $0.delegate = delegate
            $0.sectionHeadersPinToVisibleBounds = true
            $0.headerReferenceSize = Size(width: 0, height: 10)
        }
        let expected = LayoutError(subject: .itemSize(IndexPath(item: 0, section: 0)), value: "-5×10")
        #expect(layout.layoutError == expected)
        layout.prepare()
        #expect(layout.layoutError == expected)
        let context = InvalidationContext()
        context.invalidateSections([1])
        layout.invalidateLayout(with: context)
        layout.prepare()
        #expect(layout.layoutError == expected)
        let scrolled = Rect(x: 0, y: 20, width: 300, height: 600)
        layout.invalidateLayout(with: layout.invalidationContext(forBoundsChange: scrolled))
        environment.bounds = scrolled
        layout.prepare()
        #expect(layout.layoutError == expected)
    }

    @Test("Odd input does not trap: negative sections, empty index paths, negative counts")
    func noTraps() {
        let (layout, environment) = prepared(FlowLayout(), width: 300, height: 600, itemCounts: [3, 3])
        let context = InvalidationContext()
        context.invalidateSections([-1])
        context.invalidateItems(at: [IndexPath()])
        layout.invalidateLayout(with: context)
        layout.prepare()
        #expect(layout.initialLayoutAttributesForAppearingItem(at: IndexPath()) == nil)
        environment.itemCounts = [-4, 3]
        layout.invalidateLayout()
        layout.prepare()
        #expect(layout.layoutError == LayoutError(subject: .itemCount(section: 0), value: "-4"))
        #expect(layout.layoutAttributesForItem(at: IndexPath(item: 0, section: 1)) != nil)
        let (list, listEnvironment) = prepared(ListLayout(), itemCounts: [1])
        listEnvironment.itemCounts = [-1]
        list.invalidateLayout()
        list.prepare()
        #expect(list.layoutError?.subject == .itemCount(section: 0))
    }

    @Test("A fresh layout with no sections has the container's fixed length")
    func emptyContentSize() {
        let (vertical, _) = prepared(FlowLayout(), width: 320, height: 480, itemCounts: [])
        #expect(vertical.collectionViewContentSize == Size(width: 320, height: 0))
        let (horizontal, _) = prepared(FlowLayout(), width: 320, height: 480, itemCounts: []) { $0.scrollDirection = .horizontal }
        #expect(horizontal.collectionViewContentSize == Size(width: 0, height: 480))
    }

    @Test("Only the scroll-axis length of a header size is read, and checked")
    func headerAxis() {
        let (layout, environment) = prepared(FlowLayout(), width: 300, height: 600, itemCounts: [1]) { $0.headerReferenceSize = Size(width: -1, height: 30) }
        #expect(layout.layoutError == nil)
        #expect(layout.layoutAttributesForSupplementaryView(ofKind: ElementKind.sectionHeader, at: IndexPath(item: 0, section: 0))?.frame.height == 30)
        withExtendedLifetime(environment) {}
    }

    @Test("Shrinking the content releases storage")
    func storageShrinks() {
        let (layout, environment) = prepared(ListLayout(), itemCounts: [100_000])
        let large = layout.storageByteCount
        environment.itemCounts = [10]
        layout.invalidateLayout()
        layout.prepare()
        #expect(layout.storageByteCount * 100 < large)
    }

    @Test("One item per line: rect queries still equal a brute-force filter")
    func singleItemLines() {
        forEachSeededRound("LayoutEdgeCaseTests.singleItemLines", seed: 0x51, rounds: 50) { round, seed, generator in
            let itemCounts = (0..<Int.random(in: 1...4, using: &generator)).map { _ in Int.random(in: 0...30, using: &generator) }
            let delegate = TableDelegate()
            for (section, count) in itemCounts.enumerated() {
                for item in 0..<count {
                    delegate.itemSizes[IndexPath(item: item, section: section)] = Size(
                        width: Double(Int.random(in: 170...400, using: &generator)), height: Double(Int.random(in: 1...60, using: &generator))
                    )
                }
            }
            let (layout, environment) = prepared(FlowLayout(), width: 320, height: 600, itemCounts: itemCounts) { $0.delegate = delegate }
            LayoutOracleTests.check(layout, itemCounts: itemCounts, seed: seed, round: round, using: &generator)
            withExtendedLifetime(environment) {}
        }
    }

    @Test("The update transition style sets how elements appear and disappear")
    func transitionStyle() {
        let (layout, environment) = prepared(ListLayout(), itemCounts: [2])
        layout.updateTransitionStyle.appearingAlpha = 0.5
        layout.updateTransitionStyle.appearingTransform = .scale(0.1, 0.1)
        layout._beginBatchUpdate([.insertItem(at: IndexPath(item: 2, section: 0))])
        environment.itemCounts = [3]
        layout.invalidateLayout()
        layout.prepare()
        let start = layout.initialLayoutAttributesForAppearingItem(at: IndexPath(item: 2, section: 0))
        #expect(start?.alpha == 0.5 && start?.transform == .scale(0.1, 0.1))
        layout.finalizeCollectionViewUpdates()
    }

    /// Sizes whose sums land a rounding apart depending on the order of the
    /// arithmetic: section 0 has one item, section 1 six.
    static let roundingLengths: [[Double]] = [[2.13], [0.89, 1.88, 2.81, 1.92, 0.45, 2.25]]

    /// A delegate whose items are 100 wide and as long as `roundingLengths`.
    static func roundingDelegate() -> TableDelegate {
        let delegate = TableDelegate()
        for (section, lengths) in roundingLengths.enumerated() {
            for (item, length) in lengths.enumerated() {
                delegate.itemSizes[IndexPath(item: item, section: section)] = Size(width: 100, height: length)
            }
        }
        return delegate
    }

    @Test("A rect starting a rounding before an element's end still finds it, in every layout")
    func roundingAtSectionEnds() {
        let counts = Self.roundingLengths.map(\.count)
        let delegate = Self.roundingDelegate()
        let (flow, flowEnvironment) = prepared(FlowLayout(), width: 100, height: 600, itemCounts: counts) {
            $0.delegate = delegate
            $0.minimumLineSpacing = 0
        }
        let (list, listEnvironment) = prepared(ListLayout(), width: 100, itemCounts: counts) { $0.delegate = delegate }
        for layout in [flow, list] as [CollectionViewLayout] {
            let target = IndexPath(item: 5, section: 1)
            let frame = layout.layoutAttributesForItem(at: target)!.frame
            let rect = Rect(x: 0, y: frame.maxY.nextDown, width: 100, height: 1)
            #expect(layout.layoutAttributesForElements(in: rect).map(\.indexPath).contains(target), "\(type(of: layout)) at \(rect)")
        }
        withExtendedLifetime((flowEnvironment, listEnvironment)) {}
    }

    @Test("Appending a section after rounding-prone ones lays it out exactly as a fresh layout does")
    func incrementalAfterRounding() {
        var counts = Self.roundingLengths.map(\.count)
        let delegate = Self.roundingDelegate()
        let (list, environment) = prepared(ListLayout(), width: 100, itemCounts: counts) { $0.delegate = delegate }
        counts.append(1)
        environment.itemCounts = counts
        let context = InvalidationContext(invalidateDataSourceCounts: true)
        context.invalidateSections([2])
        list.invalidateLayout(with: context)
        list.prepare()
        let (fresh, freshEnvironment) = prepared(ListLayout(), width: 100, itemCounts: counts) { $0.delegate = delegate }
        #expect(allElements(of: list, itemCounts: counts) == allElements(of: fresh, itemCounts: counts))
        #expect(list.collectionViewContentSize == fresh.collectionViewContentSize)
        withExtendedLifetime(freshEnvironment) {}
    }

    @Test("A context naming only a header makes a layout that does not pin recompute it")
    func supplementaryContext() {
        let delegate = TableDelegate()
        delegate.headerSizes[1] = Size(width: 0, height: 10)
        let (list, environment) = prepared(ListLayout(), itemCounts: [2, 2]) { $0.delegate = delegate }
        delegate.headerSizes[1] = Size(width: 0, height: 40)
        let context = InvalidationContext()
        context.invalidateSupplementaryElements(ofKind: ElementKind.sectionHeader, at: [IndexPath(item: 0, section: 1)])
        list.invalidateLayout(with: context)
        list.prepare()
        #expect(list.layoutAttributesForSupplementaryView(ofKind: ElementKind.sectionHeader, at: IndexPath(item: 0, section: 1))?.frame.height == 40)
        // A pinning layout's own scroll context still recomputes nothing.
        let (flow, flowEnvironment) = prepared(FlowLayout(), width: 300, height: 600, itemCounts: [3, 3]) {
            $0.headerReferenceSize = Size(width: 0, height: 20)
            $0.sectionHeadersPinToVisibleBounds = true
        }
        let scroll = flow.invalidationContext(forBoundsChange: Rect(x: 0, y: 30, width: 300, height: 600))
        #expect(scroll.invalidatesPositionsOnly && scroll.firstSectionToRecompute == nil)
        withExtendedLifetime((environment, flowEnvironment)) {}
    }

    @Test("A finite but absurd size is an error, and frames stay finite")
    func absurdSizes() {
        let (list, environment) = prepared(ListLayout(), itemCounts: [2, 1]) { $0.itemHeight = 1e308 }
        #expect(list.layoutError?.subject == .property("itemHeight"))
        #expect(allElements(of: list, itemCounts: [2, 1]).allSatisfy { $0.frame.isFinite })
        #expect(list.collectionViewContentSize.height.isFinite)
        withExtendedLifetime(environment) {}
    }

    @Test("ListStackLayout's content encloses an earlier section that reaches past the last one, and an item past the trailing edge")
    func listStackContentEnclosesEarlierSections() {
        let delegate = AnyLayoutDelegate()
        delegate.itemSizes[IndexPath(item: 0, section: 0)] = Size(width: 50, height: 100)
        delegate.itemSizes[IndexPath(item: 0, section: 1)] = Size(width: 50, height: 10)
        let layout = ListStackLayout()
        layout.delegate = delegate
        let environment = StaticLayoutEnvironment(size: Size(width: 100, height: 300), itemCounts: [1, 1])
        layout.collectionView = environment
        layout.prepare()
        // The sections share a row: IGListKit's content ends with the last
        // section, at 10.
        #expect(layout.layoutAttributesForItem(at: IndexPath(item: 0, section: 0))?.frame == Rect(x: 0, y: 0, width: 50, height: 100))
        #expect(layout.layoutAttributesForItem(at: IndexPath(item: 0, section: 1))?.frame == Rect(x: 50, y: 0, width: 50, height: 10))
        #expect(layout.collectionViewContentSize == Size(width: 100, height: 100))

        // IGListKit's 1-point epsilon keeps an item that ends past the edge
        // on its row, with its frame; the content grows to enclose it.
        delegate.itemSizes[IndexPath(item: 0, section: 1)] = Size(width: 51, height: 10)
        layout.invalidateLayout()
        layout.prepare()
        #expect(layout.layoutAttributesForItem(at: IndexPath(item: 0, section: 1))?.frame == Rect(x: 50, y: 0, width: 51, height: 10))
        #expect(layout.collectionViewContentSize == Size(width: 101, height: 100))
        withExtendedLifetime(environment) {}
    }

    // MARK: The content encloses every frame

    @Test("A FlowLayout item wider (vertical) or taller (horizontal) than the space between the section insets starts its line at the leading inset, and the content grows across to enclose it")
    func flowOversizeItemGrowsContent() {
        for direction in [ScrollDirection.vertical, .horizontal] {
            let delegate = TableDelegate()
            delegate.itemSizes[IndexPath(item: 0, section: 0)] = direction == .vertical ? Size(width: 400, height: 50) : Size(width: 50, height: 400)
            let (layout, environment) = prepared(FlowLayout(), width: 300, height: 300, itemCounts: [2]) {
                $0.scrollDirection = direction
                $0.delegate = delegate
                $0.sectionInset = EdgeInsets(top: 10, left: 20, bottom: 10, right: 20)
            }
            let frames = itemFrames(of: layout, itemCounts: [2])[0]
            if direction == .vertical {
                // 400 > 300 − 20 − 20: the item stays at the left inset, and
                // the content is as wide as the item's right edge.
                #expect(frames == [Rect(x: 20, y: 10, width: 400, height: 50), Rect(x: 20, y: 70, width: 50, height: 50)])
                #expect(layout.collectionViewContentSize == Size(width: 420, height: 130))
            } else {
                #expect(frames == [Rect(x: 20, y: 10, width: 50, height: 400), Rect(x: 80, y: 10, width: 50, height: 50)])
                #expect(layout.collectionViewContentSize == Size(width: 150, height: 410))
            }
            #expect(layout.layoutError == nil)
            #expect(elementsOutsideContent(of: layout, itemCounts: [2]).isEmpty, "\(direction)")
            withExtendedLifetime(environment) {}
        }
    }

    @Test("A ColumnLayout with more columns than fit in the width grows its content across to the last column")
    func columnOverflowGrowsContent() {
        // (100 − 8 − 8 − 5 · 20) / 6 < 0: every column is 0 wide, 20 apart,
        // and the sixth starts at 8 + 5 · 20 = 108.
        let (layout, environment) = prepared(ColumnLayout(), width: 100, itemCounts: [6]) {
            $0.columnCount = 6
            $0.columnSpacing = 20
        }
        #expect(layout.layoutAttributesForItem(at: IndexPath(item: 5, section: 0))?.frame == Rect(x: 108, y: 8, width: 0, height: 50))
        #expect(layout.collectionViewContentSize == Size(width: 108, height: 66))
        #expect(layout.layoutError == nil)
        #expect(elementsOutsideContent(of: layout, itemCounts: [6]).isEmpty)
        withExtendedLifetime(environment) {}
    }

    @Test("A HorizontalListLayout whose insets are taller than the view grows its content down to its zero-height items")
    func horizontalListTallInsetsGrowContent() {
        let (layout, environment) = prepared(HorizontalListLayout(), width: 320, height: 10, itemCounts: [1]) {
            $0.sectionInsets = EdgeInsets(top: 30, left: 0, bottom: 8, right: 0)
        }
        // Centered: (320 − 100) / 2 = 110.
        #expect(layout.layoutAttributesForItem(at: IndexPath(item: 0, section: 0))?.frame == Rect(x: 110, y: 30, width: 100, height: 0))
        #expect(layout.collectionViewContentSize == Size(width: 320, height: 30))
        #expect(layout.layoutError == nil)
        #expect(elementsOutsideContent(of: layout, itemCounts: [1]).isEmpty)
        withExtendedLifetime(environment) {}
    }

    @Test("A sticky ListStackLayout header whose top content inset and length exceed the visible height stops at the end of the content")
    func stickyHeaderStopsAtContentEnd() {
        let layout = ListStackLayout(stickyHeaders: true, topContentInset: 80)
        layout.headerLength = 40
        layout.itemSize = Size(width: 100, height: 50)
        let environment = StaticLayoutEnvironment(size: Size(width: 100, height: 100), itemCounts: [10])
        layout.collectionView = environment
        layout.prepare()
        // Header 0–40, items 40–540.
        #expect(layout.collectionViewContentSize == Size(width: 100, height: 540))
        let header = { layout.layoutAttributesForSupplementaryView(ofKind: ElementKind.sectionHeader, at: IndexPath(item: 0, section: 0))?.frame }
        // Every offset a collection view allows, 0 to 540 − 100.
        for offset in stride(from: 0.0, through: 440, by: 10) {
            let bounds = Rect(x: 0, y: offset, width: 100, height: 100)
            if layout.shouldInvalidateLayout(forBoundsChange: bounds) {
                layout.invalidateLayout(with: layout.invalidationContext(forBoundsChange: bounds))
            }
            environment.bounds = bounds
            layout.prepare()
            #expect(elementsOutsideContent(of: layout, itemCounts: [10]).isEmpty, "offset \(offset)")
            #expect(layout.layoutAttributesForElements(in: Rect(x: 0, y: 0, width: 100, height: 540)).contains { $0.category != .cell }, "offset \(offset)")
        }
        // At the last offset IGListKit would put it at 440 + 80 = 520, past
        // the content's end at 540; it stops at 540 − 40.
        #expect(header() == Rect(x: 0, y: 500, width: 100, height: 40))
    }

    @Test("A ListStackLayout header whose length is off the pixel grid starts at the content's origin, not a fraction of a point before it")
    func listStackHeaderOffPixelGrid() {
        for sticky in [false, true] {
            let layout = ListStackLayout(stickyHeaders: sticky)
            layout.screenScale = 1
            layout.headerLength = 27.5
            layout.itemSize = Size(width: 100, height: 50)
            let environment = StaticLayoutEnvironment(size: Size(width: 100, height: 300), itemCounts: [1])
            layout.collectionView = environment
            layout.prepare()
            // The item snaps down to 27; IGListKit's header would start at
            // 27 − 27.5 = −0.5.
            #expect(layout.layoutAttributesForItem(at: IndexPath(item: 0, section: 0))?.frame == Rect(x: 0, y: 27, width: 100, height: 50))
            #expect(layout.layoutAttributesForSupplementaryView(ofKind: ElementKind.sectionHeader, at: IndexPath(item: 0, section: 0))?.frame
                == Rect(x: 0, y: 0, width: 100, height: 27.5))
            #expect(layout.collectionViewContentSize == Size(width: 100, height: 77))
            #expect(elementsOutsideContent(of: layout, itemCounts: [1]).isEmpty, "sticky: \(sticky)")
            withExtendedLifetime(environment) {}
        }
    }
}
