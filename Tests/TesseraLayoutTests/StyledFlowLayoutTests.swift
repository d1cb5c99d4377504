import Foundation
import Testing
import TesseraTestTraits
import TesseraLayout
import TesseraTestSupport

/// A styled flow delegate whose values come from dictionaries, for tests.
final class StyledFlowTableDelegate: StyledFlowLayoutDelegate {
    var styles: [IndexPath: StyledFlowLayout.ItemStyle] = [:]
    var defaultStyle = StyledFlowLayout.ItemStyle.flow(Size(width: 100, height: 50))
    var insets: [Int: EdgeInsets] = [:]
    var headerHeights: [Int: Double] = [:]
    var footerHeights: [Int: Double] = [:]
    var transforms: [Int: StyledFlowLayout.RowTransform] = [:]

    init(_ sections: [[StyledFlowLayout.ItemStyle]] = []) {
        for (section, styles) in sections.enumerated() {
            for (item, style) in styles.enumerated() { self.styles[IndexPath(item: item, section: section)] = style }
        }
    }

    func styledFlowLayout(_ layout: StyledFlowLayout, styleForItemAt indexPath: IndexPath) -> StyledFlowLayout.ItemStyle { styles[indexPath] ?? defaultStyle }
    func styledFlowLayout(_ layout: StyledFlowLayout, heightForHeaderInSection section: Int) -> Double? { headerHeights[section] }
    func styledFlowLayout(_ layout: StyledFlowLayout, heightForFooterInSection section: Int) -> Double? { footerHeights[section] }
    func styledFlowLayout(_ layout: StyledFlowLayout, insetsForSectionAt section: Int) -> EdgeInsets? { insets[section] }
    func styledFlowLayout(_ layout: StyledFlowLayout, rowTransformForSectionAt section: Int) -> StyledFlowLayout.RowTransform? { transforms[section] }
}

/// A prepared styled flow layout over `delegate`'s styles (one section per
/// array), 320 wide unless told.
private func makeStyled(
    _ delegate: StyledFlowTableDelegate,
    itemCounts: [Int],
    width: Double = 320,
    configure: (StyledFlowLayout) -> Void = { _ in }
) -> (layout: StyledFlowLayout, environment: StaticLayoutEnvironment) {
    prepared(StyledFlowLayout(), width: width, height: 480, itemCounts: itemCounts) {
        $0.delegate = delegate
        configure($0)
    }
}

/// The item frames of one section laid out from `styles`.
private func frames(
    _ styles: [StyledFlowLayout.ItemStyle],
    width: Double = 320,
    configure: (StyledFlowLayout) -> Void = { _ in }
) -> (frames: [Rect], layout: StyledFlowLayout) {
    let delegate = StyledFlowTableDelegate([styles])
    let (layout, environment) = makeStyled(delegate, itemCounts: [styles.count], width: width, configure: configure)
    return withExtendedLifetime((delegate, environment)) {
        (itemFrames(of: layout, itemCounts: [styles.count])[0], layout)
    }
}

private func flow(_ w: Double, _ h: Double) -> StyledFlowLayout.ItemStyle { .flow(Size(width: w, height: h)) }
private func span(_ h: Double, width: Double = 0) -> StyledFlowLayout.ItemStyle { .span(Size(width: width, height: h)) }

@Suite("StyledFlowLayout: worked examples", .cpuBound)
struct StyledFlowLayoutExampleTests {
    @Test("Flow items of the same height share a row while they fit, 8 apart")
    func sameHeightGrouping() {
        // 100 + 8 + 100 + 8 + 100 = 316 ≤ 320; a fourth would need 424.
        let (result, layout) = frames(Array(repeating: flow(100, 50), count: 4))
        #expect(result == [rect(0, 0, 100, 50), rect(108, 0, 100, 50), rect(216, 0, 100, 50), rect(0, 58, 100, 50)])
        #expect(layout.collectionViewContentSize == Size(width: 320, height: 108))
        #expect(layout.layoutError == nil)
    }

    @Test("An item that exactly fits the remaining width joins the row")
    func exactFit() {
        let (result, _) = frames([flow(100, 50), flow(100, 50), flow(104, 50)])
        #expect(result == [rect(0, 0, 100, 50), rect(108, 0, 100, 50), rect(216, 0, 104, 50)])
    }

    @Test("A flow item of a different height starts a new row even with room to spare")
    func differentHeights() {
        let (result, layout) = frames([flow(100, 50), flow(100, 60), flow(100, 60), flow(50, 50)])
        #expect(result == [rect(0, 0, 100, 50), rect(0, 58, 100, 60), rect(108, 58, 100, 60), rect(0, 126, 50, 50)])
        #expect(layout.collectionViewContentSize.height == 176)
    }

    @Test("An item wider than the content width is scaled down, keeping its aspect ratio")
    func overwide() {
        let (result, _) = frames([flow(640, 100), flow(100, 50)])
        // Scaled to 320×50; the next item has the same height but no room.
        #expect(result == [rect(0, 0, 320, 50), rect(0, 58, 100, 50)])
        // With insets the content width is 300.
        let (inset, _) = frames([flow(600, 100)]) { $0.sectionInset = EdgeInsets(top: 0, left: 10, bottom: 0, right: 10) }
        #expect(inset == [rect(10, 0, 300, 50)])
    }

    @Test("A span item fills the content width on a row of its own; only its height is read")
    func spanFillsWidth() {
        let (result, _) = frames([span(40, width: 20), span(30, width: 999), flow(100, 50)]) {
            $0.sectionInset = EdgeInsets(top: 4, left: 10, bottom: 0, right: 20)
        }
        #expect(result == [rect(10, 4, 290, 40), rect(10, 52, 290, 30), rect(10, 90, 100, 50)])
    }

    static let spanGroup: [StyledFlowLayout.ItemStyle] = [flow(100, 50), span(40), span(40), flow(100, 50), flow(100, 50)]

    @Test("Span groups: spacing before, between and after spans")
    func spanSpacings() {
        let (result, layout) = frames(Self.spanGroup) {
            $0.interspanSpacing = 4
            $0.spanGroupSpacingBefore = 20
            $0.spanGroupSpacingAfter = 30
        }
        // 0..50 flow; +20 → span 70..110; +4 → span 114..154; +30 → flows at 184.
        #expect(result == [rect(0, 0, 100, 50), rect(0, 70, 320, 40), rect(0, 114, 320, 40), rect(0, 184, 100, 50), rect(108, 184, 100, 50)])
        #expect(layout.collectionViewContentSize.height == 234)
    }

    @Test("Each span spacing falls back to interitemSpacing when nil")
    func spanSpacingFallback() {
        let (result, _) = frames(Self.spanGroup)
        #expect(result == [rect(0, 0, 100, 50), rect(0, 58, 320, 40), rect(0, 106, 320, 40), rect(0, 154, 100, 50), rect(108, 154, 100, 50)])
        // Only one of them set: the others fall back.
        let (before, _) = frames(Self.spanGroup) { $0.spanGroupSpacingBefore = 0 }
        #expect(before.map(\.minY) == [0, 50, 98, 146, 146])
        let (between, _) = frames(Self.spanGroup) { $0.interspanSpacing = 0 }
        #expect(between.map(\.minY) == [0, 58, 98, 146, 146])
        let (after, _) = frames(Self.spanGroup) { $0.spanGroupSpacingAfter = 0 }
        #expect(after.map(\.minY) == [0, 58, 106, 146, 146])
        // A changed interitemSpacing moves every fallback with it.
        let (wide, _) = frames(Self.spanGroup) { $0.interitemSpacing = 2 }
        #expect(wide.map(\.minY) == [0, 52, 94, 136, 136])
        #expect(wide[4].minX == 102)
    }

    @Test("A span first in its section has no spacing before it")
    func leadingSpan() {
        let (result, _) = frames([span(40), flow(100, 50)]) { $0.spanGroupSpacingBefore = 20 }
        #expect(result == [rect(0, 0, 320, 40), rect(0, 48, 100, 50)])
    }

    @Test("Center shifts every flow row, the last one too, to the middle")
    func center() {
        let (result, _) = frames(Array(repeating: flow(100, 50), count: 4) + [span(20)]) { $0.rowTransform = .center }
        // Row 0 is 316 wide: shifted by 2. Row 1 is 100 wide: shifted by 110.
        #expect(result == [rect(2, 0, 100, 50), rect(110, 0, 100, 50), rect(218, 0, 100, 50), rect(110, 58, 100, 50), rect(0, 116, 320, 20)])
        let (last, _) = frames([flow(100, 50)]) {
            $0.rowTransform = .center
            $0.sectionInset = EdgeInsets(top: 0, left: 20, bottom: 0, right: 0)
        }
        // Content width 300: (300 − 100) / 2 = 100 after the 20 inset.
        #expect(last == [rect(120, 0, 100, 50)])
    }

    @Test("Fill scales a row's items by contentWidth / rowWidth (gaps counted, not scaled), growing the row")
    func fill() {
        let styles = [flow(76, 50), flow(76, 50), flow(100, 20), span(10)]
        let (result, layout) = frames(styles) { $0.rowTransform = .fill(maxScale: 2) }
        // Row 0: 76 + 8 + 76 = 160, s = 2: 152×100 items at x 0 and 160.
        // Row 1 at 100 + 8: 100 wide, s = 3.2 capped at 2: 200×40.
        // The span row is not transformed.
        #expect(result == [rect(0, 0, 152, 100), rect(160, 0, 152, 100), rect(0, 108, 200, 40), rect(0, 156, 320, 10)])
        #expect(layout.collectionViewContentSize.height == 166)
        // An uncapped fill: row 1 scales by 3.2 to 320×64.
        let (uncapped, _) = frames(styles) { $0.rowTransform = .fill(maxScale: .greatestFiniteMagnitude) }
        #expect(uncapped == [rect(0, 0, 152, 100), rect(160, 0, 152, 100), rect(0, 108, 320, 64), rect(0, 180, 320, 10)])
    }

    @Test("Fill caps the scale at maxScale; a maxScale of 1 or less leaves the rows as they are")
    func fillCap() {
        let styles = [flow(76, 50), flow(76, 50), flow(100, 20)]
        let (capped, _) = frames(styles) { $0.rowTransform = .fill(maxScale: 1.5) }
        #expect(capped == [rect(0, 0, 114, 75), rect(122, 0, 114, 75), rect(0, 83, 150, 30)])
        for maxScale in [0, 0.5, 1] {
            let (none, layout) = frames(styles) { $0.rowTransform = .fill(maxScale: maxScale) }
            #expect(none == [rect(0, 0, 76, 50), rect(84, 0, 76, 50), rect(0, 58, 100, 20)])
            #expect(layout.layoutError == nil)
        }
        // With insets, the filled row starts at the left inset.
        let (inset, _) = frames([flow(30, 10)]) {
            $0.rowTransform = .fill(maxScale: 10)
            $0.sectionInset = EdgeInsets(top: 0, left: 10, bottom: 0, right: 10)
        }
        #expect(inset == [rect(10, 0, 300, 100)])
    }

    @Test("The delegate's transform for a section overrides the layout's")
    func perSectionTransform() {
        let delegate = StyledFlowTableDelegate([[flow(100, 50)], [flow(100, 50)]])
        delegate.transforms[1] = .center
        let (layout, environment) = makeStyled(delegate, itemCounts: [1, 1]) { $0.rowTransform = .fill(maxScale: 2) }
        withExtendedLifetime(environment) {
            #expect(itemFrames(of: layout, itemCounts: [1, 1]) == [[rect(0, 0, 200, 100)], [rect(110, 100, 100, 50)]])
        }
    }

    @Test("A custom transform gets the row relative to its leading inset and top, and the content width")
    func custom() {
        // Right-aligns the row and pushes it 10 down, which makes the row 10 taller.
        let rightAligned = StyledFlowLayout.RowTransform.custom { row, contentWidth in
            let shift = contentWidth - (row.last?.maxX ?? 0)
            return row.map { $0.offsetBy(dx: shift, dy: 10) }
        }
        let (result, layout) = frames([flow(100, 50), flow(100, 50), flow(60, 30)]) {
            $0.rowTransform = rightAligned
            $0.sectionInset = EdgeInsets(top: 5, left: 10, bottom: 0, right: 10)
        }
        // Row 0 (208 wide) moves by 300 − 208 = 92 from the 10 inset; it is
        // 60 tall, so row 1 starts at 5 + 60 + 8 = 73 (+10).
        #expect(result == [rect(102, 15, 100, 50), rect(210, 15, 100, 50), rect(250, 83, 60, 30)])
        #expect(layout.collectionViewContentSize.height == 113)
        #expect(layout.layoutError == nil)
        // The identity gives what .none gives.
        let (identity, _) = frames([flow(100, 50), flow(100, 50), flow(60, 30)]) { $0.rowTransform = .custom { row, _ in row } }
        #expect(identity == [rect(0, 0, 100, 50), rect(108, 0, 100, 50), rect(0, 58, 60, 30)])
    }

    @Test("A custom transform may move items into the leading inset and past the trailing edge; the content grows to enclose them")
    func customWithinContent() {
        // Every item 10 left of its place (into the 10 inset) and 200 wider.
        let (result, layout) = frames([flow(100, 50), flow(100, 50)]) {
            $0.rowTransform = .custom { row, _ in row.map { Rect(x: $0.minX - 10, y: 0, width: $0.width + 200, height: $0.height) } }
            $0.sectionInset = EdgeInsets(top: 0, left: 10, bottom: 0, right: 10)
        }
        #expect(result == [rect(0, 0, 300, 50), rect(108, 0, 300, 50)])
        #expect(layout.layoutError == nil)
        #expect(layout.collectionViewContentSize == Size(width: 408, height: 50))
        #expect(elementsOutsideContent(of: layout, itemCounts: [2]).isEmpty)
    }

    @Test("A custom transform that breaks its contract is an error; its row falls back to .none")
    func badCustom() {
        let transforms: [(StyledFlowLayout.RowTransform, String)] = [
            (.custom { row, _ in Array(row.dropLast()) }, "1 frames for 2 items"),
            (.custom { row, _ in row.map { _ in Rect(x: .nan, y: 0, width: 1, height: 1) } }, "the frame \(Rect(x: .nan, y: 0, width: 1, height: 1))"),
            (.custom { row, _ in row.map { Rect(x: $0.minX, y: -1, width: 1, height: 1) } }, "the frame \(Rect(x: 0, y: -1, width: 1, height: 1))"),
            (.custom { row, _ in row.map { Rect(x: $0.minX, y: 0, width: -1, height: 1) } }, "the frame \(Rect(x: 0, y: 0, width: -1, height: 1))"),
            // Before the content's leading edge (the section has no inset).
            (.custom { row, _ in row.map { Rect(x: $0.minX - 1, y: 0, width: 1, height: 1) } }, "the frame \(Rect(x: -1, y: 0, width: 1, height: 1))"),
        ]
        for (transform, value) in transforms {
            let delegate = StyledFlowTableDelegate([[flow(10, 10)], [flow(100, 50), flow(100, 50), flow(60, 30)]])
            delegate.transforms[1] = transform
            let (layout, environment) = makeStyled(delegate, itemCounts: [1, 3])
            withExtendedLifetime(environment) {
                #expect(layout.layoutError == LayoutError(subject: .property("rowTransform of section 1, row of items 0...1"), value: value))
                #expect(itemFrames(of: layout, itemCounts: [1, 3])[1] == [rect(0, 10, 100, 50), rect(108, 10, 100, 50), rect(0, 68, 60, 30)])
            }
        }
    }

    @Test("Headers, insets and footers stack; sections abut")
    func supplementaryViews() {
        for inset in [false, true] {
            let delegate = StyledFlowTableDelegate([[flow(100, 50)], [span(30)]])
            delegate.footerHeights[1] = 0
            let (layout, environment) = makeStyled(delegate, itemCounts: [1, 1]) {
                $0.headerHeight = 20
                $0.footerHeight = 10
                $0.sectionInset = EdgeInsets(top: 5, left: 10, bottom: 5, right: 10)
                $0.insetSupplementaryViews = inset
            }
            func frame(_ kind: String, _ section: Int) -> Rect? {
                layout.layoutAttributesForSupplementaryView(ofKind: kind, at: IndexPath(item: 0, section: section))?.frame
            }
            let x: Double = inset ? 10 : 0
            let width: Double = inset ? 300 : 320
            withExtendedLifetime(environment) {
                // Section 0: header 0..20, inset to 25, row 25..75, inset to 80, footer 80..90.
                #expect(frame(ElementKind.sectionHeader, 0) == rect(x, 0, width, 20))
                #expect(frame(ElementKind.sectionFooter, 0) == rect(x, 80, width, 10))
                #expect(frame(ElementKind.sectionHeader, 1) == rect(x, 90, width, 20))
                #expect(frame(ElementKind.sectionFooter, 1) == nil)
                #expect(itemFrames(of: layout, itemCounts: [1, 1]) == [[rect(10, 25, 100, 50)], [rect(10, 115, 300, 30)]])
                #expect(layout.collectionViewContentSize == Size(width: 320, height: 150))
                #expect(layout.layoutAttributesForSupplementaryView(ofKind: "Other", at: IndexPath(item: 0, section: 0)) == nil)
                #expect(layout.layoutAttributesForItem(at: IndexPath(item: 1, section: 0)) == nil)
            }
        }
    }

    @Test("With no delegate every item has the default style")
    func noDelegate() {
        let environment = StaticLayoutEnvironment(size: Size(width: 200, height: 480), itemCounts: [4])
        let layout = StyledFlowLayout()
        layout.collectionView = environment
        layout.prepare()
        // 60 + 8 + 60 + 8 + 60 = 196 ≤ 200.
        #expect(itemFrames(of: layout, itemCounts: [4]) == [[rect(0, 0, 60, 60), rect(68, 0, 60, 60), rect(136, 0, 60, 60), rect(0, 68, 60, 60)]])
    }

    @Test("Only a width change invalidates")
    func invalidation() {
        let delegate = StyledFlowTableDelegate()
        let (layout, environment) = makeStyled(delegate, itemCounts: [3])
        withExtendedLifetime(environment) {
            #expect(!layout.shouldInvalidateLayout(forBoundsChange: rect(0, 100, 320, 480)))
            #expect(!layout.shouldInvalidateLayout(forBoundsChange: rect(0, 0, 320, 300)))
            #expect(layout.shouldInvalidateLayout(forBoundsChange: rect(0, 0, 400, 480)))
        }
        // After a width change, a prepare with no context re-wraps.
        environment.bounds.size.width = 216
        layout.invalidateLayout(with: layout.invalidationContext(forBoundsChange: environment.bounds))
        layout.prepare()
        #expect(itemFrames(of: layout, itemCounts: [3])[0] == [rect(0, 0, 100, 50), rect(108, 0, 100, 50), rect(0, 58, 100, 50)])
    }
}

@Suite("StyledFlowLayout: bad values", .cpuBound)
struct StyledFlowLayoutErrorTests {
    @Test("A bad item size names the index path and reads as zero", arguments: badNumbers)
    func badItemSize(value: Double) {
        for style in [flow(10, value), span(value), flow(value, 10), span(10, width: value)] {
            let delegate = StyledFlowTableDelegate([[flow(10, 10)], [flow(10, 10), style, flow(10, 10)]])
            let (layout, environment) = makeStyled(delegate, itemCounts: [1, 3])
            #expect(layout.layoutError?.subject == .itemSize(IndexPath(item: 1, section: 1)))
            #expect(LayoutErrorTests.allFramesFinite(layout, environment.itemCounts))
            let size = layout.layoutAttributesForItem(at: IndexPath(item: 1, section: 1))?.frame.size
            #expect(size == (style.isSpan ? Size(width: 320, height: 0) : .zero))
        }
    }

    @Test("Bad layout-wide values name the property", arguments: badNumbers)
    func badProperties(value: Double) {
        let cases: [((StyledFlowLayout) -> Void, String)] = [
            ({ $0.interitemSpacing = value }, "interitemSpacing"),
            ({ $0.interspanSpacing = value }, "interspanSpacing"),
            ({ $0.spanGroupSpacingBefore = value }, "spanGroupSpacingBefore"),
            ({ $0.spanGroupSpacingAfter = value }, "spanGroupSpacingAfter"),
            ({ $0.headerHeight = value }, "headerHeight"),
            ({ $0.footerHeight = value }, "footerHeight"),
            ({ $0.sectionInset = EdgeInsets(top: 0, left: 0, bottom: value, right: 0) }, "sectionInset"),
            ({ $0.rowTransform = .fill(maxScale: value) }, "rowTransform"),
            ({ $0.delegate = nil; $0.defaultItemStyle = .flow(Size(width: value, height: 1)) }, "defaultItemStyle"),
        ]
        for (configure, name) in cases {
            let delegate = StyledFlowTableDelegate([[flow(10, 10), span(20), span(20), flow(10, 10)]])
            let (layout, environment) = makeStyled(delegate, itemCounts: [4], configure: configure)
            #expect(layout.layoutError?.subject == .property(name), "\(name)")
            #expect(LayoutErrorTests.allFramesFinite(layout, environment.itemCounts), "\(name)")
        }
    }

    @Test("Bad section values name the section", arguments: badNumbers)
    func badSectionValues(value: Double) {
        let cases: [((StyledFlowTableDelegate) -> Void, LayoutError.Subject)] = [
            ({ $0.insets[1] = EdgeInsets(top: 0, left: value, bottom: 0, right: 0) }, .sectionInset(section: 1)),
            ({ $0.headerHeights[1] = value }, .headerSize(section: 1)),
            ({ $0.footerHeights[1] = value }, .footerSize(section: 1)),
            ({ $0.transforms[1] = .fill(maxScale: value) }, .property("rowTransform of section 1")),
        ]
        for (configure, subject) in cases {
            let delegate = StyledFlowTableDelegate([[flow(10, 10)], [flow(10, 10), flow(10, 10)]])
            configure(delegate)
            let (layout, environment) = makeStyled(delegate, itemCounts: [1, 2])
            #expect(layout.layoutError?.subject == subject)
            #expect(LayoutErrorTests.allFramesFinite(layout, environment.itemCounts))
            // A re-layout of later sections still reports the error of the kept section…
            layout.invalidateLayout(with: { let c = InvalidationContext(); c.invalidateSections([2]); return c }())
            environment.itemCounts.append(1)
            layout.prepare()
            #expect(layout.layoutError?.subject == subject)
        }
    }

    @Test("A bad fill scale falls back to .none for that section")
    func badMaxScaleFallsBack() {
        let (result, layout) = frames([flow(100, 50)]) { $0.rowTransform = .fill(maxScale: .nan) }
        #expect(result == [rect(0, 0, 100, 50)])
        #expect(layout.layoutError?.description.contains("rowTransform") == true)
    }

    @Test("A negative item count names the section")
    func negativeCount() {
        let delegate = StyledFlowTableDelegate()
        let (layout, environment) = makeStyled(delegate, itemCounts: [2, -3])
        #expect(layout.layoutError?.subject == .itemCount(section: 1))
        #expect(LayoutErrorTests.allFramesFinite(layout, [2, 0]))
        withExtendedLifetime(environment) {}
    }
}

@Suite("StyledFlowLayout: oracles", .tags(.oracle), .cpuBound)
struct StyledFlowLayoutOracleTests {
    static func randomStyle(using generator: inout SplitMix64) -> StyledFlowLayout.ItemStyle {
        let heights: [Double] = [0, 20, 40, 40, 40, 60, 90]
        let height = heights[Int.random(in: 0..<heights.count, using: &generator)]
        let width = Double(Int.random(in: 0...200, using: &generator)) + (Int.random(in: 0..<10, using: &generator) == 0 ? 400 : 0)
        return Int.random(in: 0..<5, using: &generator) == 0 ? .span(Size(width: width, height: height / 2)) : .flow(Size(width: width / 2, height: height))
    }

    static func randomTransform(using generator: inout SplitMix64) -> StyledFlowLayout.RowTransform {
        switch Int.random(in: 0..<5, using: &generator) {
        case 0: .none
        case 1: .center
        case 2: .fill(maxScale: Double(Int.random(in: 0...8, using: &generator)) / 2)
        case 3: .fill(maxScale: .greatestFiniteMagnitude)
        default:
            // Staggers the row: each item 6 lower and 4 narrower than the one before.
            .custom { row, _ in
                row.enumerated().map { index, frame in
                    Rect(x: frame.minX, y: Double(index % 3) * 6, width: max(0, frame.width - 4), height: frame.height)
                }
            }
        }
    }

    static func randomDelegate(itemCounts: [Int], using generator: inout SplitMix64) -> StyledFlowTableDelegate {
        let delegate = StyledFlowTableDelegate()
        for (section, count) in itemCounts.enumerated() {
            for item in 0..<count { delegate.styles[IndexPath(item: item, section: section)] = randomStyle(using: &generator) }
            if Bool.random(using: &generator) {
                delegate.insets[section] = .random(in: 0...20, using: &generator)
            }
            if Bool.random(using: &generator) { delegate.headerHeights[section] = Double(Int.random(in: 0...40, using: &generator)) }
            if Bool.random(using: &generator) { delegate.footerHeights[section] = Double(Int.random(in: 0...40, using: &generator)) }
            if Bool.random(using: &generator) { delegate.transforms[section] = randomTransform(using: &generator) }
        }
        return delegate
    }

    static func configure(_ layout: StyledFlowLayout, using generator: inout SplitMix64) {
        layout.interitemSpacing = Double(Int.random(in: 0...12, using: &generator))
        if Bool.random(using: &generator) { layout.interspanSpacing = Double(Int.random(in: 0...12, using: &generator)) }
        if Bool.random(using: &generator) { layout.spanGroupSpacingBefore = Double(Int.random(in: 0...30, using: &generator)) }
        if Bool.random(using: &generator) { layout.spanGroupSpacingAfter = Double(Int.random(in: 0...30, using: &generator)) }
        layout.rowTransform = randomTransform(using: &generator)
        layout.insetSupplementaryViews = Bool.random(using: &generator)
        layout.headerHeight = Double(Int.random(in: 0...1, using: &generator) * 24)
    }

    @Test("StyledFlowLayout rect queries equal a brute-force filter")
    func queries() {
        forEachSeededRound("StyledFlowLayoutOracleTests.queries", seed: 0x57F1, rounds: 150) { round, seed, generator in
            let itemCounts = (0..<Int.random(in: 0...6, using: &generator)).map { _ in Int.random(in: 0...40, using: &generator) }
            let delegate = Self.randomDelegate(itemCounts: itemCounts, using: &generator)
            let environment = StaticLayoutEnvironment(size: Size(width: Double(Int.random(in: 200...400, using: &generator)), height: 480), itemCounts: itemCounts)
            let layout = StyledFlowLayout()
            layout.collectionView = environment
            layout.delegate = delegate
            Self.configure(layout, using: &generator)
            layout.prepare()
            #expect(layout.layoutError == nil, "seed \(seed), round \(round)")
            #expect(LayoutErrorTests.allFramesFinite(layout, itemCounts), "seed \(seed), round \(round)")
            LayoutOracleTests.check(layout, itemCounts: itemCounts, seed: seed, round: round, using: &generator)
        }
    }

    @Test("After a context naming a section, StyledFlowLayout equals a fresh prepare")
    func incrementalInvalidation() {
        forEachSeededRound("StyledFlowLayoutOracleTests.incrementalInvalidation", seed: 0x57F2, rounds: 100) { round, seed, generator in
            var itemCounts = (0..<Int.random(in: 1...6, using: &generator)).map { _ in Int.random(in: 0...30, using: &generator) }
            let delegate = Self.randomDelegate(itemCounts: itemCounts, using: &generator)
            let environment = StaticLayoutEnvironment(size: Size(width: 320, height: 480), itemCounts: itemCounts)
            let layout = StyledFlowLayout()
            layout.collectionView = environment
            layout.delegate = delegate
            Self.configure(layout, using: &generator)
            layout.prepare()

            // Change a section's count, styles and header, then name only that section.
            let section = Int.random(in: 0..<itemCounts.count, using: &generator)
            itemCounts[section] = Int.random(in: 0...30, using: &generator)
            environment.itemCounts = itemCounts
            for item in 0..<itemCounts[section] {
                delegate.styles[IndexPath(item: item, section: section)] = Self.randomStyle(using: &generator)
            }
            delegate.headerHeights[section] = Double(Int.random(in: 0...30, using: &generator))
            delegate.transforms[section] = Self.randomTransform(using: &generator)
            if Bool.random(using: &generator) {
                // Counts changed somewhere, merged with a context naming a later section.
                layout.invalidateLayout(with: InvalidationContext(invalidateDataSourceCounts: true))
                let items = InvalidationContext()
                items.invalidateItems(at: [IndexPath(item: 0, section: Int.random(in: section..<itemCounts.count, using: &generator))])
                layout.invalidateLayout(with: items)
            } else {
                let context = InvalidationContext(invalidateDataSourceCounts: true)
                context.invalidateSections([section])
                layout.invalidateLayout(with: context)
            }
            layout.prepare()

            let fresh = StyledFlowLayout()
            fresh.collectionView = environment
            fresh.delegate = delegate
            fresh.interitemSpacing = layout.interitemSpacing
            fresh.interspanSpacing = layout.interspanSpacing
            fresh.spanGroupSpacingBefore = layout.spanGroupSpacingBefore
            fresh.spanGroupSpacingAfter = layout.spanGroupSpacingAfter
            fresh.rowTransform = layout.rowTransform
            fresh.insetSupplementaryViews = layout.insetSupplementaryViews
            fresh.headerHeight = layout.headerHeight
            fresh.prepare()
            #expect(allElements(of: layout, itemCounts: itemCounts) == allElements(of: fresh, itemCounts: itemCounts), "seed \(seed), round \(round)")
            #expect(layout.collectionViewContentSize == fresh.collectionViewContentSize, "seed \(seed), round \(round)")
            LayoutOracleTests.check(layout, itemCounts: itemCounts, seed: seed, round: round, using: &generator)
        }
    }
}
