import Foundation
import Testing
import TesseraDiff
import TesseraLayout
import TesseraTestSupport

/// Cases a review found, kept as tests.
@Suite("Layout regressions")
struct LayoutRegressionTests {
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
        let (layout, environment) = makeFlow(itemCounts: [3, 3]) {
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
        let (layout, environment) = makeFlow(itemCounts: [3, 3])
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
        let (list, listEnvironment) = makeList(itemCounts: [1])
        listEnvironment.itemCounts = [-1]
        list.invalidateLayout()
        list.prepare()
        #expect(list.layoutError?.subject == .itemCount(section: 0))
    }

    @Test("A fresh layout with no sections has the container's fixed length")
    func emptyContentSize() {
        let (vertical, _) = makeFlow(width: 320, height: 480, itemCounts: [])
        #expect(vertical.collectionViewContentSize == Size(width: 320, height: 0))
        let (horizontal, _) = makeFlow(width: 320, height: 480, itemCounts: []) { $0.scrollDirection = .horizontal }
        #expect(horizontal.collectionViewContentSize == Size(width: 0, height: 480))
    }

    @Test("Only the scroll-axis length of a header size is read, and checked")
    func headerAxis() {
        let (layout, environment) = makeFlow(itemCounts: [1]) { $0.headerReferenceSize = Size(width: -1, height: 30) }
        #expect(layout.layoutError == nil)
        #expect(layout.layoutAttributesForSupplementaryView(ofKind: ElementKind.sectionHeader, at: IndexPath(item: 0, section: 0))?.frame.height == 30)
        withExtendedLifetime(environment) {}
    }

    @Test("Shrinking the content releases storage")
    func storageShrinks() {
        let (layout, environment) = makeList(itemCounts: [100_000])
        let large = layout.storageByteCount
        environment.itemCounts = [10]
        layout.invalidateLayout()
        layout.prepare()
        #expect(layout.storageByteCount * 100 < large)
    }

    @Test("One item per line: rect queries still equal a brute-force filter")
    func singleItemLines() {
        let seed = testSeed(default: 0x51)
        var generator = SplitMix64(seed: seed)
        for round in 0..<50 {
            let itemCounts = (0..<Int.random(in: 1...4, using: &generator)).map { _ in Int.random(in: 0...30, using: &generator) }
            let delegate = TableDelegate()
            for (section, count) in itemCounts.enumerated() {
                for item in 0..<count {
                    delegate.itemSizes[IndexPath(item: item, section: section)] = Size(
                        width: Double(Int.random(in: 170...400, using: &generator)), height: Double(Int.random(in: 1...60, using: &generator))
                    )
                }
            }
            let (layout, environment) = makeFlow(width: 320, itemCounts: itemCounts) { $0.delegate = delegate }
            let elements = allElements(of: layout, itemCounts: itemCounts)
            for _ in 0..<20 {
                let rect = Rect(x: Double(Int.random(in: -20...300, using: &generator)), y: Double(Int.random(in: -20...2000, using: &generator)),
                                width: Double(Int.random(in: 1...200, using: &generator)), height: Double(Int.random(in: 1...600, using: &generator)))
                #expect(layout.layoutAttributesForElements(in: rect) == elements.filter { $0.frame.intersects(rect) }, "seed \(seed), round \(round)")
            }
            withExtendedLifetime(environment) {}
        }
    }

    @Test("The update transition style sets how elements appear and disappear")
    func transitionStyle() {
        let (layout, environment) = makeList(itemCounts: [2])
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
}
