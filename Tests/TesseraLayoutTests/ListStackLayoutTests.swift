import Foundation
import Testing
import TesseraTestTraits
import TesseraLayout
import TesseraTestSupport

/// A ``ListStackLayoutDelegate`` whose values come from dictionaries.
final class ListStackTableDelegate: ListStackLayoutDelegate {
    var itemSizes: [IndexPath: Size] = [:]
    var insets: [Int: EdgeInsets] = [:]
    var lineSpacings: [Int: Double] = [:]
    var interitemSpacings: [Int: Double] = [:]
    var headerLengths: [Int: Double] = [:]
    var footerLengths: [Int: Double] = [:]

    func clear() {
        itemSizes = [:]
        insets = [:]
        lineSpacings = [:]
        interitemSpacings = [:]
        headerLengths = [:]
        footerLengths = [:]
    }

    func listStackLayout(_ layout: ListStackLayout, sizeForItemAt indexPath: IndexPath) -> Size? { itemSizes[indexPath] }
    func listStackLayout(_ layout: ListStackLayout, insetForSectionAt section: Int) -> EdgeInsets? { insets[section] }
    func listStackLayout(_ layout: ListStackLayout, minimumLineSpacingForSectionAt section: Int) -> Double? { lineSpacings[section] }
    func listStackLayout(_ layout: ListStackLayout, minimumInteritemSpacingForSectionAt section: Int) -> Double? { interitemSpacings[section] }
    func listStackLayout(_ layout: ListStackLayout, lengthForHeaderInSection section: Int) -> Double? { headerLengths[section] }
    func listStackLayout(_ layout: ListStackLayout, lengthForFooterInSection section: Int) -> Double? { footerLengths[section] }
}

/// One section of a worked example.
private struct StackSection {
    var insets = EdgeInsets.zero
    var lineSpacing = 0.0
    var interitemSpacing = 0.0
    var header = 0.0
    var footer = 0.0
    var items: [Size]

    init(insets: EdgeInsets = .zero, lineSpacing: Double = 0, interitemSpacing: Double = 0, header: Double = 0, footer: Double = 0, _ items: [(Double, Double)]) {
        self.insets = insets
        self.lineSpacing = lineSpacing
        self.interitemSpacing = interitemSpacing
        self.header = header
        self.footer = footer
        self.items = items.map { Size(width: $0.0, height: $0.1) }
    }
}

/// A prepared layout over a static environment and a table delegate (kept
/// alive by the returned value, since the layout holds both weakly).
private struct Stack {
    let layout: ListStackLayout
    let environment: StaticLayoutEnvironment
    let delegate: ListStackTableDelegate

    init(
        _ sections: [StackSection],
        width: Double = 100,
        height: Double = 100,
        direction: ScrollDirection = .vertical,
        sticky: Bool = false,
        topInset: Double = 0,
        stretch: Bool = false,
        contentInset: EdgeInsets = .zero,
        configure: (ListStackLayout) -> Void = { _ in }
    ) {
        delegate = ListStackTableDelegate()
        for (index, section) in sections.enumerated() {
            delegate.insets[index] = section.insets
            delegate.lineSpacings[index] = section.lineSpacing
            delegate.interitemSpacings[index] = section.interitemSpacing
            delegate.headerLengths[index] = section.header
            delegate.footerLengths[index] = section.footer
            for (item, size) in section.items.enumerated() { delegate.itemSizes[IndexPath(item: item, section: index)] = size }
        }
        environment = StaticLayoutEnvironment(size: Size(width: width, height: height), itemCounts: sections.map(\.items.count), contentInset: contentInset)
        layout = ListStackLayout(scrollDirection: direction, stickyHeaders: sticky, topContentInset: topInset, stretchToEdge: stretch)
        layout.collectionView = environment
        layout.delegate = delegate
        configure(layout)
        layout.prepare()
    }

    func item(_ section: Int, _ item: Int) -> Rect? { layout.layoutAttributesForItem(at: IndexPath(item: item, section: section))?.frame }
    func header(_ section: Int) -> Rect? { layout.layoutAttributesForSupplementaryView(ofKind: ElementKind.sectionHeader, at: IndexPath(item: 0, section: section))?.frame }
    func footer(_ section: Int) -> Rect? { layout.layoutAttributesForSupplementaryView(ofKind: ElementKind.sectionFooter, at: IndexPath(item: 0, section: section))?.frame }

    /// Scrolls as a collection view does, and lays out again.
    func scroll(to offset: Double) {
        scrollListStack(layout, in: environment, to: offset)
    }
}

/// Scrolls `environment` to `offset` along `layout`'s direction as a
/// collection view does (invalidating what the layout asks for), and lays
/// out again.
private func scrollListStack(_ layout: ListStackLayout, in environment: StaticLayoutEnvironment, to offset: Double) {
    var bounds = environment.bounds
    if layout.scrollDirection == .vertical { bounds.origin.y = offset } else { bounds.origin.x = offset }
    if layout.shouldInvalidateLayout(forBoundsChange: bounds) {
        layout.invalidateLayout(with: layout.invalidationContext(forBoundsChange: bounds))
    }
    environment.bounds = bounds
    layout.prepare()
}

private func square(_ side: Double, count: Int) -> [(Double, Double)] { Array(repeating: (side, side), count: count) }

@Suite("ListStackLayout: worked examples", .cpuBound)
struct ListStackLayoutExampleTests {
    @Test("Items of consecutive sections share rows; a section with a larger inset pushes the next row down")
    func sectionsShareRows() {
        let stack = Stack([
            StackSection([(33, 33)]),
            StackSection(insets: EdgeInsets(all: 10), [(13, 50)]),
            StackSection([(33, 33)]),
            StackSection([(33, 33)]),
        ])
        #expect(stack.item(0, 0) == rect(0, 0, 33, 33))
        #expect(stack.item(1, 0) == rect(43, 10, 13, 50))
        #expect(stack.item(2, 0) == rect(66, 0, 33, 33))
        #expect(stack.item(3, 0) == rect(0, 70, 33, 33))
        #expect(stack.layout.collectionViewContentSize == Size(width: 100, height: 103))
        // Section 2 starts above section 1 (y 0 < 10): a query over the top
        // strip still finds it.
        let top = stack.layout.layoutAttributesForElements(in: rect(0, 0, 100, 5)).map { Array($0.indexPath) }
        #expect(top == [[0, 0], [2, 0]])
    }

    @Test("Six one-item sections with 1-point insets fill two rows of three")
    func sixSections() {
        let stack = Stack((0..<6).map { _ in StackSection(insets: EdgeInsets(all: 1), [(136, 136)]) }, width: 414, height: 736)
        #expect((0..<6).map { stack.item($0, 0) } == [
            rect(1, 1, 136, 136), rect(139, 1, 136, 136), rect(277, 1, 136, 136),
            rect(1, 139, 136, 136), rect(139, 139, 136, 136), rect(277, 139, 136, 136),
        ])
        #expect(stack.layout.collectionViewContentSize.height == 276)
    }

    @Test("A section that busts the row starts a new row at its own inset")
    func newlineAppliesSectionInset() {
        let stack = Stack([StackSection([(33, 33)]), StackSection(insets: EdgeInsets(top: 10, left: 10, bottom: 5, right: 5), [(85, 50)])])
        #expect(stack.item(1, 0) == rect(10, 43, 85, 50))
        #expect(stack.layout.collectionViewContentSize.height == 98)
    }

    @Test("A header forces a new row")
    func headerCausesNewline() {
        let stack = Stack([StackSection([(33, 33)]), StackSection(header: 10, [(33, 33)])])
        #expect(stack.item(1, 0) == rect(0, 43, 33, 33))
        #expect(stack.header(1) == rect(0, 33, 100, 10))
        #expect(stack.layout.collectionViewContentSize.height == 76)
    }

    @Test("The 1-point epsilon: an item ending 1 point past the edge stays on the row; 2 points wraps")
    func epsilon() {
        let within = Stack([StackSection([(50, 50), (51, 50)])])
        #expect(within.item(0, 1) == rect(50, 0, 51, 50))
        let beyond = Stack([StackSection([(50, 50), (52, 50)])])
        #expect(beyond.item(0, 1) == rect(0, 50, 52, 50))
        // The epsilon is measured against the trailing inset.
        let inset = Stack([StackSection(insets: EdgeInsets(top: 0, left: 0, bottom: 0, right: 10), [(45, 10), (46, 10), (47, 10)])])
        #expect(inset.item(0, 1) == rect(45, 0, 46, 10))
        #expect(inset.item(0, 2) == rect(0, 10, 47, 10))
        // An item wider than the section is capped to it.
        let wide = Stack([StackSection(insets: EdgeInsets(top: 0, left: 5, bottom: 0, right: 5), [(500, 10)])])
        #expect(wide.item(0, 0) == rect(5, 0, 90, 10))
    }

    @Test("Stretch to edge: an item ending within 1 point short of the edge is stretched; 2 points short is not")
    func stretchToEdge() {
        let within = Stack([StackSection(square(33, count: 3))], stretch: true)
        #expect(within.item(0, 2) == rect(66, 0, 34, 33))
        let beyond = Stack([StackSection([(33, 33), (65, 33)])], stretch: true)
        #expect(beyond.item(0, 1) == rect(33, 0, 65, 33))
        let off = Stack([StackSection(square(33, count: 3))], stretch: false)
        #expect(off.item(0, 2) == rect(66, 0, 33, 33))
    }

    @Test("Interitem spacing also separates sections on a row; half points snap to the screen scale")
    func halfPointSpacing() {
        let sections = (0..<3).map { _ in StackSection(interitemSpacing: 0.5, [(33, 33)]) }
        let two = Stack(sections)
        #expect(two.item(1, 0) == rect(33.5, 0, 33, 33))
        #expect(two.item(2, 0) == rect(67, 0, 33, 33))
        let one = Stack(sections) { $0.screenScale = 1 }
        #expect(one.item(1, 0) == rect(33, 0, 33, 33))
        let three = Stack(sections) { $0.screenScale = 3 }
        #expect(three.item(1, 0) == rect((100.5).rounded(.down) / 3, 0, 33, 33))
        // Sizes are ceiled to the grid, origins floored.
        let fractional = Stack([StackSection(insets: EdgeInsets(top: 0.3, left: 0, bottom: 0, right: 0), [(10.2, 10.1)])])
        #expect(fractional.item(0, 0) == rect(0, 0, 10.5, 10.5))
    }

    @Test("Headers, footers, line spacing and insets, vertically")
    func headersAndFooters() {
        let insets = EdgeInsets(top: 10, left: 10, bottom: 5, right: 5)
        let footers = Stack([
            StackSection(insets: insets, lineSpacing: 10, footer: 10, [(85, 10), (85, 20)]),
            StackSection(insets: insets, lineSpacing: 10, footer: 10, [(85, 30)]),
        ], height: 150)
        #expect(footers.item(0, 0) == rect(10, 10, 85, 10))
        #expect(footers.item(0, 1) == rect(10, 30, 85, 20))
        #expect(footers.footer(0) == rect(10, 50, 85, 10))
        #expect(footers.item(1, 0) == rect(10, 75, 85, 30))
        #expect(footers.footer(1) == rect(10, 105, 85, 10))
        #expect(footers.header(0) == nil)
        #expect(footers.layout.collectionViewContentSize.height == 120)

        let both = Stack([
            StackSection(insets: insets, lineSpacing: 10, header: 10, footer: 10, [(85, 10), (85, 20)]),
            StackSection(insets: insets, lineSpacing: 10, header: 10, footer: 10, [(85, 30)]),
        ], height: 150)
        #expect(both.header(0) == rect(10, 10, 85, 10))
        #expect(both.item(0, 1) == rect(10, 40, 85, 20))
        #expect(both.footer(0) == rect(10, 60, 85, 10))
        #expect(both.header(1) == rect(10, 85, 85, 10))
        #expect(both.item(1, 0) == rect(10, 95, 85, 30))
        #expect(both.footer(1) == rect(10, 125, 85, 10))
        #expect(both.layout.collectionViewContentSize.height == 140)
    }

    @Test("Horizontal: rows become columns; the footer goes after the trailing inset")
    func horizontal() {
        let stack = Stack([StackSection(square(33, count: 1)), StackSection(square(33, count: 1)), StackSection(square(33, count: 1))], direction: .horizontal)
        #expect(stack.item(1, 0) == rect(0, 33, 33, 33))
        #expect(stack.item(2, 0) == rect(0, 66, 33, 33))
        #expect(stack.layout.collectionViewContentSize == Size(width: 33, height: 100))

        let headers = Stack([StackSection(square(33, count: 1)), StackSection(header: 10, square(33, count: 1))], direction: .horizontal)
        #expect(headers.item(1, 0) == rect(43, 0, 33, 33))
        #expect(headers.header(1) == rect(33, 0, 10, 100))
        #expect(headers.layout.collectionViewContentSize.width == 76)

        let insets = EdgeInsets(top: 10, left: 10, bottom: 5, right: 5)
        let footers = Stack([StackSection(insets: insets, lineSpacing: 10, footer: 10, [(10, 40), (20, 40)])], direction: .horizontal)
        #expect(footers.item(0, 0) == rect(10, 10, 10, 40))
        #expect(footers.item(0, 1) == rect(10, 50, 20, 40))
        // Footer at max x of the bounds + the right inset.
        #expect(footers.footer(0) == rect(35, 10, 10, 85))
        #expect(footers.layout.collectionViewContentSize == Size(width: 50, height: 100))
    }

    @Test("The collection view's content inset narrows the container")
    func contentInset() {
        let stack = Stack([StackSection(header: 10, [(40, 10), (40, 20)])], contentInset: EdgeInsets(top: 0, left: 30, bottom: 0, right: 30))
        #expect(stack.header(0) == rect(0, 0, 40, 10))
        #expect(stack.item(0, 0) == rect(0, 10, 40, 10))
        #expect(stack.item(0, 1) == rect(0, 20, 40, 20))
        #expect(stack.layout.collectionViewContentSize == Size(width: 40, height: 40))
    }

    @Test("Empty sections have no header or footer unless showHeaderWhenEmpty is set")
    func emptySections() {
        let sections = [
            StackSection(header: 10, footer: 5, [(85, 10)]),
            StackSection(header: 20, footer: 5, []),
            StackSection(header: 20, [(85, 10), (85, 20)]),
        ]
        let hidden = Stack(sections)
        #expect(hidden.header(1) == nil)
        #expect(hidden.footer(1) == nil)
        #expect(hidden.header(0) == rect(0, 0, 100, 10))
        #expect(hidden.footer(0) == rect(0, 20, 100, 5))
        #expect(hidden.header(2) == rect(0, 25, 100, 20))
        #expect(hidden.item(2, 0) == rect(0, 45, 85, 10))
        #expect(hidden.item(2, 1) == rect(0, 55, 85, 20))
        #expect(!hidden.layout.layoutAttributesForElements(in: rect(0, 0, 100, 1000)).contains { $0.indexPath.first == 1 })

        let shown = Stack(sections) { $0.showHeaderWhenEmpty = true }
        // The empty section's header goes where the section before it ends.
        #expect(shown.header(1) == rect(0, 25, 100, 20))
        #expect(shown.footer(1) == rect(0, 45, 100, 5))
        #expect(shown.header(2) == rect(0, 50, 100, 20))
        #expect(shown.item(2, 0) == rect(0, 70, 85, 10))

        let allEmpty = Stack([StackSection(header: 10, []), StackSection(header: 20, []), StackSection(header: 30, [])], sticky: true) { $0.showHeaderWhenEmpty = true }
        #expect(allEmpty.header(0) == rect(0, 0, 100, 10))
        #expect(allEmpty.header(1) == rect(0, 10, 100, 20))
        #expect(allEmpty.header(2) == rect(0, 30, 100, 30))
    }

    @Test("No sections: zero content size; out-of-bounds queries are nil")
    func emptyAndOutOfBounds() {
        let empty = Stack([], sticky: true)
        #expect(empty.layout.collectionViewContentSize == .zero)
        #expect(empty.layout.layoutAttributesForElements(in: rect(0, 0, 100, 100)).isEmpty)
        let stack = Stack([StackSection([(33, 33), (65, 33)])], stretch: true)
        #expect(stack.item(4, 0) == nil)
        #expect(stack.item(0, 4) == nil)
        #expect(stack.header(0) == nil)
        #expect(stack.footer(0) == nil)
        #expect(stack.layout.layoutAttributesForSupplementaryView(ofKind: "Other", at: IndexPath(item: 0, section: 0)) == nil)
    }

    @Test("Sticky headers follow the offset, clamped by the next section; the last one by the end of the content")
    func stickyHeaders() {
        let stack = Stack([
            StackSection(header: 10, [(100, 10), (100, 20)]),
            StackSection(header: 10, [(100, 30), (100, 40), (100, 50)]),
        ], sticky: true, topInset: 10)
        // Resting: header 0 at 0, header 1 at 40; offset 0 + top inset 10.
        #expect(stack.header(0) == rect(0, 10, 100, 10))
        #expect(stack.header(1) == rect(0, 40, 100, 10))
        stack.scroll(to: 35)
        #expect(stack.header(0) == rect(0, 30, 100, 10))
        #expect(stack.header(1) == rect(0, 45, 100, 10))
        stack.layout.stickyHeaderYOffset = -10
        stack.layout.prepare()
        #expect(stack.header(0) == rect(0, 30, 100, 10))
        #expect(stack.header(1) == rect(0, 40, 100, 10))
        stack.layout.stickyHeaderYOffset = 10
        stack.layout.prepare()
        #expect(stack.header(0) == rect(0, 30, 100, 10))
        #expect(stack.header(1) == rect(0, 55, 100, 10))
        // Far past the content (an overscroll), the last header stops at
        // the end of the content, 170 − 10, where IGListKit's would follow
        // the offset to 1020, outside the content.
        stack.scroll(to: 1000)
        #expect(stack.header(1) == rect(0, 160, 100, 10))
        let query = stack.layout.layoutAttributesForElements(in: rect(0, 150, 100, 100))
        #expect(query.map(\.frame) == [rect(0, 160, 100, 10), rect(0, 120, 100, 50)])
        #expect(query.first?.zIndex == 1999)
        // Items are not sticky.
        #expect(stack.item(0, 0) == rect(0, 10, 100, 10))
    }

    @Test("A sticky header can stop outside its section, in the gap before the next one, and queries find it there")
    func stickyHeaderInGap() {
        let stack = Stack([
            StackSection(insets: EdgeInsets(top: 0, left: 0, bottom: 50, right: 0), header: 10, [(100, 20)]),
            StackSection(header: 10, [(100, 20)]),
        ], height: 40, sticky: true)
        // Section 0: header 0–10, item 10–30, bottom inset to 80; section 1's header rests at 80.
        #expect(stack.header(1) == rect(0, 80, 100, 10))
        stack.scroll(to: 60)
        #expect(stack.header(0) == rect(0, 60, 100, 10))
        #expect(stack.layout.layoutAttributesForElements(in: rect(0, 60, 100, 10)).map(\.frame) == [rect(0, 60, 100, 10)])
        stack.scroll(to: 75)
        #expect(stack.header(0) == rect(0, 70, 100, 10))
    }

    @Test("A sticky header moves above its resting place when the next section, on its row, starts higher")
    func stickyHeaderPulledUp() {
        let stack = Stack([
            StackSection(insets: EdgeInsets(top: 20, left: 0, bottom: 0, right: 0), header: 10, [(50, 30)]),
            StackSection([(50, 10)]),
        ], sticky: true)
        #expect(stack.item(0, 0) == rect(0, 30, 50, 30))
        #expect(stack.item(1, 0) == rect(50, 10, 50, 10))
        // At most the next section's start (10) minus its length.
        #expect(stack.header(0) == rect(0, 0, 100, 10))
        #expect(stack.layout.layoutAttributesForElements(in: rect(0, 0, 100, 5)).map(\.frame) == [rect(0, 0, 100, 10)])
        let plain = Stack([
            StackSection(insets: EdgeInsets(top: 20, left: 0, bottom: 0, right: 0), header: 10, [(50, 30)]),
            StackSection([(50, 10)]),
        ])
        #expect(plain.header(0) == rect(0, 20, 100, 10))
    }

    @Test("Horizontal sticky headers stick on x")
    func horizontalSticky() {
        let stack = Stack([
            StackSection(header: 10, [(20, 100), (20, 100)]),
            StackSection(header: 10, [(30, 100)]),
        ], direction: .horizontal, sticky: true)
        #expect(stack.header(0) == rect(0, 0, 10, 100))
        #expect(stack.header(1) == rect(50, 0, 10, 100))
        stack.scroll(to: 15)
        #expect(stack.header(0) == rect(15, 0, 10, 100))
        stack.scroll(to: 45)
        #expect(stack.header(0) == rect(40, 0, 10, 100))
        #expect(stack.header(1) == rect(50, 0, 10, 100))
        stack.scroll(to: 55)
        #expect(stack.header(1) == rect(55, 0, 10, 100))
    }

    @Test("z-indexes: items section·1000 + item, headers and footers section·1000 + 999")
    func zIndexes() {
        let stack = Stack([StackSection(header: 10, footer: 10, [(50, 10), (50, 10)]), StackSection(header: 10, [(50, 10)])])
        let all = stack.layout.layoutAttributesForElements(in: rect(0, 0, 100, 1000))
        #expect(all.map(\.zIndex) == [999, 999, 0, 1, 1999, 1000])
        #expect(all.map { Array($0.indexPath) } == [[0, 0], [0, 0], [0, 0], [0, 1], [1, 0], [1, 0]])
    }

    @Test("Rect queries count exactly the cells they meet")
    func queryCounts() {
        let stack = Stack([StackSection(Array(repeating: (100, 20), count: 1000))])
        #expect(stack.layout.layoutAttributesForElements(in: rect(0, 500, 100, 100)).count == 5)
        #expect(stack.layout.layoutAttributesForElements(in: rect(0, 0, 100, 1000)).count == 50)
        #expect(stack.layout.layoutAttributesForElements(in: rect(0, 250, 100, 100)).count == 6)
        #expect(stack.layout.layoutAttributesForElements(in: rect(0, 250, 100, 1)).count == 1)
    }

    @Test("Reloading with new data lays everything out again")
    func reload() {
        let insets = EdgeInsets(top: 10, left: 10, bottom: 5, right: 5)
        let stack = Stack([
            StackSection(insets: insets, lineSpacing: 10, header: 10, [(85, 10), (85, 20)]),
            StackSection(insets: insets, lineSpacing: 10, header: 10, [(85, 30)]),
            StackSection(insets: insets, lineSpacing: 10, header: 10, [(85, 60)]),
            StackSection(insets: insets, lineSpacing: 10, header: 10, [(85, 40)]),
        ], height: 400)
        let sizes: [[Double]] = [[30], [40], [30, 10], [10, 20]]
        stack.delegate.itemSizes = [:]
        for (section, heights) in sizes.enumerated() {
            for (item, height) in heights.enumerated() { stack.delegate.itemSizes[IndexPath(item: item, section: section)] = Size(width: 85, height: height) }
        }
        stack.environment.itemCounts = sizes.map(\.count)
        stack.layout.invalidateLayout()
        stack.layout.prepare()
        #expect(stack.layout.collectionViewContentSize.height == 260)
        #expect(stack.header(0) == rect(10, 10, 85, 10))
        #expect(stack.item(0, 0) == rect(10, 20, 85, 30))
        #expect(stack.header(1) == rect(10, 65, 85, 10))
        #expect(stack.item(1, 0) == rect(10, 75, 85, 40))
        #expect(stack.header(2) == rect(10, 130, 85, 10))
        #expect(stack.item(2, 0) == rect(10, 140, 85, 30))
        #expect(stack.item(2, 1) == rect(10, 180, 85, 10))
        #expect(stack.header(3) == rect(10, 205, 85, 10))
        #expect(stack.item(3, 0) == rect(10, 215, 85, 10))
        #expect(stack.item(3, 1) == rect(10, 235, 85, 20))
    }

    @Test("A narrower view re-wraps the rows")
    func boundsChange() {
        let stack = Stack((0..<3).map { _ in StackSection([(33, 33)]) })
        #expect(stack.layout.collectionViewContentSize.height == 33)
        let newBounds = rect(0, 0, 70, 100)
        #expect(stack.layout.shouldInvalidateLayout(forBoundsChange: newBounds))
        #expect(stack.layout.invalidationContext(forBoundsChange: newBounds).invalidateEverything)
        stack.layout.invalidateLayout(with: stack.layout.invalidationContext(forBoundsChange: newBounds))
        stack.environment.bounds = newBounds
        stack.layout.prepare()
        #expect(stack.layout.collectionViewContentSize.height == 66)
        #expect(stack.item(1, 0) == rect(33, 0, 33, 33))
        #expect(stack.item(2, 0) == rect(0, 33, 33, 33))
    }

    @Test("Bounds changes: a scroll invalidates only with sticky headers, and then only the headers")
    func invalidationOnScroll() {
        let sections = [StackSection(header: 10, [(100, 50)]), StackSection(header: 10, [(100, 50)])]
        let plain = Stack(sections)
        #expect(!plain.layout.shouldInvalidateLayout(forBoundsChange: rect(0, 30, 100, 100)))
        #expect(!plain.layout.shouldInvalidateLayout(forBoundsChange: rect(5, 0, 100, 100)))
        #expect(plain.layout.shouldInvalidateLayout(forBoundsChange: rect(0, 0, 100, 90)))

        let sticky = Stack(sections, sticky: true)
        #expect(sticky.layout.shouldInvalidateLayout(forBoundsChange: rect(0, 30, 100, 100)))
        // A change of x in a vertical layout is not a scroll along S.
        #expect(!sticky.layout.shouldInvalidateLayout(forBoundsChange: rect(5, 0, 100, 100)))
        let context = sticky.layout.invalidationContext(forBoundsChange: rect(0, 30, 100, 100))
        #expect(context.invalidatesOnlySupplementaryElements)
        #expect(context.firstSectionToRecompute == nil)
        #expect(context.invalidatedSupplementaryIndexPaths[ElementKind.sectionHeader] == [IndexPath(item: 0, section: 0), IndexPath(item: 0, section: 1)])
        #expect(sticky.layout.invalidationContext(forBoundsChange: rect(0, 30, 100, 90)).invalidateEverything)
    }
}

@Suite("ListStackLayout: oracles", .tags(.oracle), .cpuBound)
struct ListStackLayoutOracleTests {
    /// Random sections: insets, spacings, header and footer lengths and item
    /// sizes (some fractional, some wider than the view), some empty.
    static func randomDelegate(itemCounts: [Int], width: Double, using generator: inout SplitMix64) -> ListStackTableDelegate {
        let delegate = ListStackTableDelegate()
        for (section, count) in itemCounts.enumerated() {
            if Bool.random(using: &generator) {
                delegate.insets[section] = EdgeInsets(
                    top: Double(Int.random(in: 0...20, using: &generator)), left: Double(Int.random(in: 0...20, using: &generator)),
                    bottom: Double(Int.random(in: 0...20, using: &generator)), right: Double(Int.random(in: 0...20, using: &generator)) / 2
                )
            }
            if Bool.random(using: &generator) { delegate.lineSpacings[section] = Double(Int.random(in: 0...12, using: &generator)) }
            if Bool.random(using: &generator) { delegate.interitemSpacings[section] = Double(Int.random(in: 0...6, using: &generator)) / 2 }
            if Bool.random(using: &generator) { delegate.headerLengths[section] = Double(Int.random(in: 0...40, using: &generator)) }
            if Bool.random(using: &generator) { delegate.footerLengths[section] = Double(Int.random(in: 0...30, using: &generator)) }
            for item in 0..<count where Int.random(in: 0..<4, using: &generator) > 0 {
                delegate.itemSizes[IndexPath(item: item, section: section)] = Size(
                    width: Double(Int.random(in: 0...Int(width * 3) / 2, using: &generator)) / 3,
                    height: Double(Int.random(in: 0...150, using: &generator)) / 3
                )
            }
        }
        return delegate
    }

    /// A random layout over a random environment.
    static func randomLayout(using generator: inout SplitMix64) -> (ListStackLayout, StaticLayoutEnvironment, ListStackTableDelegate, [Int]) {
        let itemCounts = (0..<Int.random(in: 0...8, using: &generator)).map { _ in Int.random(in: 0...25, using: &generator) }
        let direction: ScrollDirection = Bool.random(using: &generator) ? .vertical : .horizontal
        let size = Size(width: Double(Int.random(in: 120...360, using: &generator)), height: Double(Int.random(in: 120...480, using: &generator)))
        let fixed = direction == .vertical ? size.width : size.height
        let delegate = randomDelegate(itemCounts: itemCounts, width: fixed, using: &generator)
        let environment = StaticLayoutEnvironment(size: size, itemCounts: itemCounts)
        let layout = ListStackLayout(
            scrollDirection: direction,
            stickyHeaders: Bool.random(using: &generator),
            topContentInset: Double(Int.random(in: 0...20, using: &generator)),
            stretchToEdge: Bool.random(using: &generator)
        )
        layout.showHeaderWhenEmpty = Bool.random(using: &generator)
        layout.stickyHeaderYOffset = Double(Int.random(in: -10...10, using: &generator))
        layout.screenScale = [1, 2, 3].randomElement(using: &generator)!
        layout.collectionView = environment
        layout.delegate = delegate
        return (layout, environment, delegate, itemCounts)
    }

    static func check(_ layout: ListStackLayout, itemCounts: [Int], seed: UInt64, round: Int, using generator: inout SplitMix64) {
        let elements = allElements(of: layout, itemCounts: itemCounts)
        #expect(elements.allSatisfy { $0.frame.isFinite && $0.frame.size.width >= 0 && $0.frame.size.height >= 0 }, "seed \(seed), round \(round)")
        LayoutOracleTests.check(layout, itemCounts: itemCounts, seed: seed, round: round, using: &generator)
    }

    @Test("Rect queries equal a brute-force filter: both directions, sticky or not, at random offsets")
    func queries() {
        forEachSeededRound("ListStackLayoutOracleTests.queries", seed: 0x1157_57AC, rounds: 200) { round, seed, generator in
            let (layout, environment, _, itemCounts) = Self.randomLayout(using: &generator)
            layout.prepare()
            #expect(layout.layoutError == nil, "seed \(seed), round \(round)")
            Self.check(layout, itemCounts: itemCounts, seed: seed, round: round, using: &generator)
            // Scroll (sticky headers move) and check again.
            let content = layout.collectionViewContentSize
            let extent = Int(layout.scrollDirection == .vertical ? content.height : content.width)
            scrollListStack(layout, in: environment, to: Double(Int.random(in: -20...extent + 50, using: &generator)))
            Self.check(layout, itemCounts: itemCounts, seed: seed, round: round, using: &generator)
        }
    }

    @Test("After a context naming a section, the layout equals a fresh prepare")
    func incrementalInvalidation() {
        forEachSeededRound("ListStackLayoutOracleTests.incrementalInvalidation", seed: 0x1157_1A7A, rounds: 150) { round, seed, generator in
            var (layout, environment, delegate, itemCounts) = Self.randomLayout(using: &generator)
            guard !itemCounts.isEmpty else { return }
            layout.prepare()

            // Change a section's count, sizes and header, then name it (or a
            // merged context whose first section is it).
            let section = Int.random(in: 0..<itemCounts.count, using: &generator)
            if Bool.random(using: &generator) {
                itemCounts[section] = Int.random(in: 0...25, using: &generator)
            } else {
                itemCounts.removeLast(Int.random(in: 0...(itemCounts.count - 1 - section), using: &generator))
                itemCounts += (0..<Int.random(in: 0...2, using: &generator)).map { _ in Int.random(in: 0...10, using: &generator) }
            }
            environment.itemCounts = itemCounts
            for item in 0..<(itemCounts.count > section ? itemCounts[section] : 0) {
                delegate.itemSizes[IndexPath(item: item, section: section)] = Size(width: Double(Int.random(in: 10...90, using: &generator)), height: Double(Int.random(in: 10...60, using: &generator)))
            }
            delegate.headerLengths[section] = Double(Int.random(in: 0...30, using: &generator))
            delegate.insets[section] = EdgeInsets(top: Double(Int.random(in: 0...20, using: &generator)), left: 3, bottom: 1, right: 2)
            if Bool.random(using: &generator) {
                layout.invalidateLayout(with: InvalidationContext(invalidateDataSourceCounts: true))
                let later = InvalidationContext()
                later.invalidateItems(at: [IndexPath(item: 0, section: section + Int.random(in: 0...2, using: &generator))])
                layout.invalidateLayout(with: later)
                let sectionContext = InvalidationContext(invalidateDataSourceCounts: true)
                sectionContext.invalidateSections([section])
                layout.invalidateLayout(with: sectionContext)
            } else {
                let context = InvalidationContext(invalidateDataSourceCounts: true)
                context.invalidateSections([section])
                layout.invalidateLayout(with: context)
            }
            layout.prepare()

            let fresh = ListStackLayout(
                scrollDirection: layout.scrollDirection, stickyHeaders: layout.stickyHeaders,
                topContentInset: layout.topContentInset, stretchToEdge: layout.stretchToEdge
            )
            fresh.showHeaderWhenEmpty = layout.showHeaderWhenEmpty
            fresh.stickyHeaderYOffset = layout.stickyHeaderYOffset
            fresh.screenScale = layout.screenScale
            fresh.collectionView = environment
            fresh.delegate = delegate
            fresh.prepare()
            #expect(allElements(of: layout, itemCounts: itemCounts) == allElements(of: fresh, itemCounts: itemCounts), "seed \(seed), round \(round)")
            #expect(layout.collectionViewContentSize == fresh.collectionViewContentSize, "seed \(seed), round \(round)")
            Self.check(layout, itemCounts: itemCounts, seed: seed, round: round, using: &generator)

            // A scroll's context recomputes nothing and changes no frame.
            let before = allElements(of: layout, itemCounts: itemCounts).filter { $0.category == .cell }
            layout.invalidateLayout(with: layout.invalidationContext(forBoundsChange: environment.bounds.offsetBy(dx: 0, dy: 7)))
            layout.prepare()
            #expect(allElements(of: layout, itemCounts: itemCounts).filter { $0.category == .cell } == before)
        }
    }

    @Test("Incremental prepare from a section on a shared row equals a fresh prepare")
    func incrementalOnSharedRow() {
        let stack = Stack([StackSection([(33, 33)]), StackSection(insets: EdgeInsets(all: 10), [(13, 50)]), StackSection([(33, 33)]), StackSection([(33, 33)])])
        stack.delegate.itemSizes[IndexPath(item: 0, section: 2)] = Size(width: 20, height: 80)
        let context = InvalidationContext()
        context.invalidateItems(at: [IndexPath(item: 0, section: 2)])
        stack.layout.invalidateLayout(with: context)
        stack.layout.prepare()
        #expect(stack.item(2, 0) == rect(66, 0, 20, 80))
        #expect(stack.item(3, 0) == rect(0, 80, 33, 33))
        #expect(stack.layout.collectionViewContentSize.height == 113)
    }
}

@Suite("ListStackLayout: bad values", .cpuBound)
struct ListStackLayoutErrorTests {
    @Test("Bad delegate values name the index path or section; frames stay finite", arguments: badNumbers)
    func badDelegateValues(value: Double) {
        let cases: [((ListStackTableDelegate) -> Void, LayoutError.Subject)] = [
            ({ $0.itemSizes[IndexPath(item: 2, section: 1)] = Size(width: value, height: 10) }, .itemSize(IndexPath(item: 2, section: 1))),
            ({ $0.itemSizes[IndexPath(item: 2, section: 1)] = Size(width: 10, height: value) }, .itemSize(IndexPath(item: 2, section: 1))),
            ({ $0.insets[1] = EdgeInsets(top: 0, left: value, bottom: 0, right: 0) }, .sectionInset(section: 1)),
            ({ $0.lineSpacings[1] = value }, .lineSpacing(section: 1)),
            ({ $0.interitemSpacings[1] = value }, .interitemSpacing(section: 1)),
            ({ $0.headerLengths[1] = value }, .headerSize(section: 1)),
            ({ $0.footerLengths[1] = value }, .footerSize(section: 1)),
        ]
        for (configure, subject) in cases {
            let delegate = ListStackTableDelegate()
            configure(delegate)
            let environment = StaticLayoutEnvironment(size: Size(width: 100, height: 100), itemCounts: [3, 4])
            for sticky in [false, true] {
                let layout = ListStackLayout(stickyHeaders: sticky)
                layout.collectionView = environment
                layout.delegate = delegate
                layout.prepare()
                #expect(layout.layoutError?.subject == subject, "\(subject)")
                #expect(allFinite(layout, environment.itemCounts), "\(subject)")
                // An incremental prepare of a later section still reports it.
                let context = InvalidationContext()
                context.invalidateSections([1])
                layout.invalidateLayout(with: context)
                layout.prepare()
                #expect(layout.layoutError?.subject == subject, "\(subject), incremental")
            }
        }
    }

    @Test("Bad layout properties and a negative item count are reported; frames stay finite")
    func badProperties() {
        let environment = StaticLayoutEnvironment(size: Size(width: 100, height: 100), itemCounts: [3, -2])
        let counted = ListStackLayout()
        counted.collectionView = environment
        counted.prepare()
        #expect(counted.layoutError?.subject == .itemCount(section: 1))
        #expect(allFinite(counted, [3, 0]))

        environment.itemCounts = [3, 2]
        let properties: [((ListStackLayout) -> Void, String)] = [
            ({ $0.itemSize = Size(width: .nan, height: 1) }, "itemSize"),
            ({ $0.sectionInset = EdgeInsets(top: -1, left: 0, bottom: 0, right: 0) }, "sectionInset"),
            ({ $0.minimumLineSpacing = .infinity }, "minimumLineSpacing"),
            ({ $0.minimumInteritemSpacing = -3 }, "minimumInteritemSpacing"),
            ({ $0.headerLength = .nan }, "headerLength"),
            ({ $0.footerLength = -1 }, "footerLength"),
            ({ $0.screenScale = 0 }, "screenScale"),
            ({ $0.stickyHeaderYOffset = .nan }, "stickyHeaderYOffset"),
        ]
        for (configure, name) in properties {
            let layout = ListStackLayout(stickyHeaders: true)
            layout.collectionView = environment
            configure(layout)
            layout.prepare()
            #expect(layout.layoutError?.subject == .property(name))
            #expect(allFinite(layout, environment.itemCounts), "\(name)")
        }
        let inset = ListStackLayout(stickyHeaders: true, topContentInset: .nan)
        inset.collectionView = environment
        inset.headerLength = 10
        inset.prepare()
        #expect(inset.layoutError?.subject == .property("topContentInset"))
        #expect(allFinite(inset, environment.itemCounts))
    }
}
