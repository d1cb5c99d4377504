import Foundation
import Testing
import TesseraTestTraits
import TesseraLayout
import TesseraTestSupport

/// A column layout delegate whose values come from dictionaries.
final class ColumnTableDelegate: ColumnLayoutDelegate {
    var ratios: [IndexPath: Size] = [:]
    var heights: [IndexPath: Double] = [:]
    var columnCounts: [Int: Int] = [:]
    var insets: [Int: EdgeInsets] = [:]
    var headerHeights: [Int: Double] = [:]
    var footerHeights: [Int: Double] = [:]

    func columnLayout(_ layout: ColumnLayout, aspectRatioForItemAt indexPath: IndexPath) -> Size? { ratios[indexPath] }
    func columnLayout(_ layout: ColumnLayout, heightForItemAt indexPath: IndexPath) -> Double? { heights[indexPath] }
    func columnLayout(_ layout: ColumnLayout, columnCountForSectionAt section: Int) -> Int? { columnCounts[section] }
    func columnLayout(_ layout: ColumnLayout, insetForSectionAt section: Int) -> EdgeInsets? { insets[section] }
    func columnLayout(_ layout: ColumnLayout, heightForHeaderInSection section: Int) -> Double? { headerHeights[section] }
    func columnLayout(_ layout: ColumnLayout, heightForFooterInSection section: Int) -> Double? { footerHeights[section] }
}

/// Items of one section with the given heights (exact heights from a delegate).
private func heightsDelegate(_ heights: [Double], section: Int = 0) -> ColumnTableDelegate {
    let delegate = ColumnTableDelegate()
    for (item, height) in heights.enumerated() { delegate.heights[IndexPath(item: item, section: section)] = height }
    return delegate
}

@Suite("ColumnLayout: worked examples", .cpuBound)
struct ColumnLayoutExampleTests {
    @Test("Defaults: two columns, 8-point spacings and insets, 50-point items, left to right")
    func grid() {
        let (layout, _) = prepared(ColumnLayout(), itemCounts: [5])
        // usable = 320 − 16 = 304; w = (304 − 8) / 2 = 148; columns at 8 and 164.
        #expect(itemFrames(of: layout, itemCounts: [5]) == [[
            rect(8, 8, 148, 50), rect(164, 8, 148, 50),
            rect(8, 66, 148, 50), rect(164, 66, 148, 50),
            rect(8, 124, 148, 50),
        ]])
        // Tallest column 174, plus the bottom inset; the content hugs the sections.
        #expect(layout.collectionViewContentSize == Size(width: 320, height: 182))
    }

    @Test("Column widths are rounded down to the pixel grid of screenScale")
    func pixelRounding() {
        for (scale, width) in [(2.0, 32.5), (1.0, 32.0), (4.0, 32.5)] {
            let (layout, _) = prepared(ColumnLayout(), width: 100, itemCounts: [3]) {
                $0.columnCount = 3
                $0.columnSpacing = 1
                $0.sectionInset = .zero
                $0.screenScale = scale
            }
            // (100 − 2) / 3 = 32.67.
            #expect(itemFrames(of: layout, itemCounts: [3]) == [[
                rect(0, 0, width, 50), rect(width + 1, 0, width, 50), rect(2 * (width + 1), 0, width, 50),
            ]], "scale \(scale)")
        }
    }

    @Test("Right to left: item i goes in column n − 1 − i % n, also with more columns than items")
    func rightToLeft() {
        let (layout, _) = prepared(ColumnLayout(), width: 300, itemCounts: [4, 2]) {
            $0.columnCount = 3
            $0.columnSpacing = 0
            $0.interitemSpacing = 0
            $0.sectionInset = .zero
            $0.itemRenderDirection = .rightToLeft
        }
        #expect(itemFrames(of: layout, itemCounts: [4, 2]) == [
            [rect(200, 0, 100, 50), rect(100, 0, 100, 50), rect(0, 0, 100, 50), rect(200, 50, 100, 50)],
            [rect(200, 100, 100, 50), rect(100, 100, 100, 50)],
        ])

        let (wide, _) = prepared(ColumnLayout(), width: 400, itemCounts: [2]) {
            $0.columnCount = 4
            $0.columnSpacing = 0
            $0.sectionInset = .zero
            $0.itemRenderDirection = .rightToLeft
        }
        #expect(itemFrames(of: wide, itemCounts: [2]) == [[rect(300, 0, 100, 50), rect(200, 0, 100, 50)]])
        #expect(wide.layoutAttributesForElements(in: rect(0, 0, 400, 100)).map(\.indexPath) == [IndexPath(item: 0, section: 0), IndexPath(item: 1, section: 0)])
    }

    @Test("Left to right ignores heights: a waterfall with fixed columns")
    func leftToRightWaterfall() {
        let delegate = heightsDelegate([100, 20, 30, 40])
        let (layout, _) = prepared(ColumnLayout(), width: 210, itemCounts: [4]) {
            $0.columnSpacing = 10
            $0.interitemSpacing = 10
            $0.sectionInset = .zero
            $0.delegate = delegate
        }
        #expect(itemFrames(of: layout, itemCounts: [4]) == [[
            rect(0, 0, 100, 100), rect(110, 0, 100, 20), rect(0, 110, 100, 30), rect(110, 30, 100, 40),
        ]])
        #expect(layout.collectionViewContentSize == Size(width: 210, height: 140))
    }

    @Test("Shortest first: the column with the highest bottom, leftmost on ties")
    func shortestFirst() {
        let delegate = heightsDelegate([100, 50, 30, 30, 10])
        let (layout, _) = prepared(ColumnLayout(), width: 210, itemCounts: [5]) {
            $0.columnSpacing = 10
            $0.interitemSpacing = 10
            $0.sectionInset = .zero
            $0.itemRenderDirection = .shortestFirst
            $0.delegate = delegate
        }
        #expect(itemFrames(of: layout, itemCounts: [5]) == [[
            rect(0, 0, 100, 100),   // both empty: leftmost
            rect(110, 0, 100, 50),  // column 1 is empty (0 < 100)
            rect(110, 60, 100, 30), // 50 < 100
            rect(110, 100, 100, 30), // 90 < 100
            rect(0, 110, 100, 10),  // 100 < 130
        ]])
        #expect(layout.collectionViewContentSize == Size(width: 210, height: 130))

        // Ties: equal bottoms go to the leftmost column, also in the middle.
        let ties = heightsDelegate([10, 5, 5, 5, 5, 7])
        let (tied, _) = prepared(ColumnLayout(), width: 300, itemCounts: [6]) {
            $0.columnCount = 3
            $0.columnSpacing = 0
            $0.interitemSpacing = 10
            $0.sectionInset = .zero
            $0.itemRenderDirection = .shortestFirst
            $0.delegate = ties
        }
        #expect(itemFrames(of: tied, itemCounts: [6]) == [[
            rect(0, 0, 100, 10), rect(100, 0, 100, 5), rect(200, 0, 100, 5),
            rect(100, 15, 100, 5), // columns 1 and 2 tie at 5: column 1
            rect(200, 15, 100, 5), // column 2 at 5
            rect(0, 20, 100, 7),   // column 0 (10) is below columns 1 and 2 (20)
        ]])

        // Zero-height items keep a column's bottom where it was: a used
        // column ties with an empty one and, leftmost, wins; its next item
        // is spaced below the first, so the empty column wins after that.
        let flat = heightsDelegate([0, 0, 0])
        let (zero, _) = prepared(ColumnLayout(), width: 200, itemCounts: [3]) {
            $0.columnSpacing = 0
            $0.interitemSpacing = 4
            $0.sectionInset = .zero
            $0.itemRenderDirection = .shortestFirst
            $0.delegate = flat
        }
        #expect(itemFrames(of: zero, itemCounts: [3]) == [[rect(0, 0, 100, 0), rect(0, 4, 100, 0), rect(100, 0, 100, 0)]])
    }

    @Test("Item heights: aspect ratio, exact height, both, or itemHeight (the spec's worked example)")
    func itemHeights() {
        let delegate = ColumnTableDelegate()
        let path = { (item: Int) in IndexPath(item: item, section: 0) }
        delegate.ratios[path(0)] = Size(width: 2, height: 1)          // 1:2 → 44
        delegate.heights[path(1)] = 50                                // exact → 50
        delegate.ratios[path(2)] = Size(width: 2, height: 1)          // 1:2 + 20 → 64
        delegate.heights[path(2)] = 20
        // item 3: neither → itemHeight (30)
        delegate.ratios[path(4)] = Size(width: 0, height: 1)          // a zero part: ignored → exact 12
        delegate.heights[path(4)] = 12
        delegate.ratios[path(5)] = Size(width: 3, height: 1)          // floor(88 / 3) = 29
        delegate.ratios[path(6)] = Size(width: 1, height: 0)          // ignored, no exact → itemHeight
        let (layout, _) = prepared(ColumnLayout(), width: 88, itemCounts: [7]) {
            $0.columnCount = 1
            $0.interitemSpacing = 0
            $0.sectionInset = .zero
            $0.itemHeight = 30
            $0.delegate = delegate
        }
        let heights = itemFrames(of: layout, itemCounts: [7])[0].map(\.size.height)
        #expect(heights == [44, 50, 64, 30, 12, 29, 30])
        #expect(itemFrames(of: layout, itemCounts: [7])[0].map(\.size.width) == Array(repeating: 88, count: 7))
        #expect(itemFrames(of: layout, itemCounts: [7])[0].map(\.origin.y) == [0, 44, 94, 158, 188, 200, 229])
    }

    @Test("Headers and footers span the width, or the inset width with insetSupplementaryViews")
    func supplementaryViews() {
        for inset in [false, true] {
            let (layout, _) = prepared(ColumnLayout(), itemCounts: [3, 1]) {
                $0.headerHeight = 20
                $0.footerHeight = 12
                $0.sectionInset = EdgeInsets(top: 5, left: 10, bottom: 7, right: 10)
                $0.insetSupplementaryViews = inset
            }
            let x: Double = inset ? 10 : 0
            let width: Double = inset ? 300 : 320
            func frame(_ kind: String, _ section: Int) -> Rect? {
                layout.layoutAttributesForSupplementaryView(ofKind: kind, at: IndexPath(item: 0, section: section))?.frame
            }
            // Section 0: header 0..20, inset to 25, rows at 25 and 83 (w = (300 − 8) / 2 = 146),
            // tallest column ends at 133, bottom inset to 140, footer 140..152.
            #expect(frame(ElementKind.sectionHeader, 0) == rect(x, 0, width, 20))
            #expect(frame(ElementKind.sectionFooter, 0) == rect(x, 140, width, 12))
            #expect(frame(ElementKind.sectionHeader, 1) == rect(x, 152, width, 20))
            #expect(itemFrames(of: layout, itemCounts: [3, 1]) == [
                [rect(10, 25, 146, 50), rect(164, 25, 146, 50), rect(10, 83, 146, 50)],
                [rect(10, 177, 146, 50)],
            ])
            #expect(frame(ElementKind.sectionFooter, 1) == rect(x, 234, width, 12))
            #expect(layout.collectionViewContentSize == Size(width: 320, height: 246))
            #expect(layout.layoutAttributesForSupplementaryView(ofKind: "other", at: IndexPath(item: 0, section: 0)) == nil)
            // A query returns the header and footer before the section's items.
            let hits = layout.layoutAttributesForElements(in: rect(0, 0, 320, 153))
            #expect(hits.map(\.indexPath) == [[0, 0], [0, 0], [0, 0], [0, 1], [0, 2], [1, 0]].map { IndexPath(indexes: $0) })
            #expect(hits.map(\.category) == [
                .supplementaryView(ElementKind.sectionHeader), .supplementaryView(ElementKind.sectionFooter),
                .cell, .cell, .cell, .supplementaryView(ElementKind.sectionHeader),
            ])
        }
    }

    @Test("Per-section column counts and insets from the delegate; a count below 1 means 1")
    func perSectionColumns() {
        let delegate = ColumnTableDelegate()
        delegate.columnCounts = [1: 3, 2: -4]
        delegate.insets = [2: .zero]
        let (layout, _) = prepared(ColumnLayout(), itemCounts: [2, 4, 2]) {
            $0.columnCount = 0
            $0.delegate = delegate
        }
        // Section 0: one column of 304. Section 1: (304 − 16) / 3 = 96. Section 2: one column of 320.
        #expect(itemFrames(of: layout, itemCounts: [2, 4, 2]) == [
            [rect(8, 8, 304, 50), rect(8, 66, 304, 50)],
            [rect(8, 132, 96, 50), rect(112, 132, 96, 50), rect(216, 132, 96, 50), rect(8, 190, 96, 50)],
            [rect(0, 248, 320, 50), rect(0, 306, 320, 50)],
        ])
        #expect(layout.layoutError == nil)
    }

    @Test("A huge column count costs nothing and gives zero-width columns")
    func hugeColumnCount() {
        let (layout, _) = prepared(ColumnLayout(), itemCounts: [3]) { $0.columnCount = .max }
        let frames = itemFrames(of: layout, itemCounts: [3])[0]
        #expect(frames.allSatisfy { $0.isFinite && $0.size.width == 0 })
        #expect(layout.layoutAttributesForElements(in: rect(0, 0, 320, 480)).isEmpty)
        #expect(layout.storageByteCount < 10_000)
    }

    @Test("A query in a waterfall finds a tall item that started above later, shorter ones")
    func waterfallQuery() {
        // Column 0: one 500-point item; column 1: ten 40-point items.
        let delegate = heightsDelegate([500] + Array(repeating: 40, count: 10))
        let (layout, _) = prepared(ColumnLayout(), width: 200, itemCounts: [11]) {
            $0.columnSpacing = 0
            $0.interitemSpacing = 0
            $0.sectionInset = .zero
            $0.itemRenderDirection = .shortestFirst
            $0.delegate = delegate
        }
        let hits = layout.layoutAttributesForElements(in: rect(0, 300, 200, 50))
        // Item 0 spans 0..500; column 1 items k = 1...10 span 40(k − 1)..40k: 8 (280..320), 9 (320..360).
        #expect(hits.map(\.indexPath.item) == [0, 8, 9])
        #expect(layout.layoutAttributesForElements(in: rect(100, 300, 100, 50)).map(\.indexPath.item) == [8, 9])
        #expect(layout.layoutAttributesForElements(in: rect(0, 300, 100, 50)).map(\.indexPath.item) == [0])
        // Touching edges only: nothing.
        #expect(layout.layoutAttributesForElements(in: rect(0, 500, 100, 50)).isEmpty)
        #expect(layout.layoutAttributesForElements(in: rect(0, 0, 0, 50)).isEmpty)
    }

    @Test("Only a width change invalidates")
    func invalidation() {
        let (layout, environment) = prepared(ColumnLayout(), itemCounts: [3])
        withExtendedLifetime(environment) {
            #expect(!layout.shouldInvalidateLayout(forBoundsChange: rect(0, 100, 320, 480)))
            #expect(!layout.shouldInvalidateLayout(forBoundsChange: rect(0, 0, 320, 300)))
            #expect(layout.shouldInvalidateLayout(forBoundsChange: rect(0, 0, 400, 480)))
        }
    }

    @Test("A new width lays everything out again")
    func widthChange() {
        let (layout, environment) = prepared(ColumnLayout(), itemCounts: [3])
        environment.bounds.size.width = 400
        layout.prepare()
        let (fresh, _) = prepared(ColumnLayout(), width: 400, itemCounts: [3])
        #expect(allElements(of: layout, itemCounts: [3]) == allElements(of: fresh, itemCounts: [3]))
        #expect(itemFrames(of: layout, itemCounts: [3])[0][1] == rect(204, 8, 188, 50))
    }

    @Test("Storage stays under 48 bytes per item")
    func memory() {
        let (layout, _) = prepared(ColumnLayout(), itemCounts: [50_000, 50_000]) { $0.itemRenderDirection = .shortestFirst }
        #expect(layout.storageByteCount <= 48 * 100_000, "\(layout.storageByteCount) bytes")
    }
}

@Suite("ColumnLayout: bad values", .cpuBound)
struct ColumnLayoutErrorTests {
    @Test("A bad exact height, ratio, or a ratio that overflows names the index path", arguments: badNumbers)
    func badItem(value: Double) {
        let path = IndexPath(item: 2, section: 1)
        let cases: [ColumnTableDelegate] = [
            { let d = ColumnTableDelegate(); d.heights[path] = value; return d }(),
            { let d = ColumnTableDelegate(); d.ratios[path] = Size(width: value, height: 1); return d }(),
            { let d = ColumnTableDelegate(); d.ratios[path] = Size(width: 1, height: value); return d }(),
            { let d = ColumnTableDelegate(); d.ratios[path] = Size(width: 1, height: 1); d.heights[path] = value; return d }(),
            { let d = ColumnTableDelegate(); d.ratios[path] = Size(width: 1e-300, height: 1e300); return d }(),
        ]
        for (index, delegate) in cases.enumerated() {
            let (layout, environment) = prepared(ColumnLayout(), itemCounts: [3, 4]) {
                $0.delegate = delegate
                $0.itemRenderDirection = .shortestFirst
            }
            #expect(layout.layoutError?.subject == .itemSize(path), "case \(index)")
            #expect(allFinite(layout, environment.itemCounts), "case \(index)")
        }
    }

    @Test("Bad section values name the section", arguments: badNumbers)
    func badSection(value: Double) {
        let cases: [(ColumnTableDelegate, LayoutError.Subject)] = [
            ({ let d = ColumnTableDelegate(); d.insets[1] = EdgeInsets(top: 0, left: value, bottom: 0, right: 0); return d }(), .sectionInset(section: 1)),
            ({ let d = ColumnTableDelegate(); d.headerHeights[1] = value; return d }(), .headerSize(section: 1)),
            ({ let d = ColumnTableDelegate(); d.footerHeights[1] = value; return d }(), .footerSize(section: 1)),
        ]
        for (delegate, subject) in cases {
            let (layout, environment) = prepared(ColumnLayout(), itemCounts: [2, 5]) { $0.delegate = delegate }
            #expect(layout.layoutError?.subject == subject, "\(subject)")
            #expect(allFinite(layout, environment.itemCounts))
        }
    }

    @Test("Bad layout properties are named", arguments: badNumbers)
    func badProperty(value: Double) {
        let setters: [(String, (ColumnLayout) -> Void)] = [
            ("itemHeight", { $0.itemHeight = value }),
            ("columnSpacing", { $0.columnSpacing = value }),
            ("interitemSpacing", { $0.interitemSpacing = value }),
            ("headerHeight", { $0.headerHeight = value }),
            ("footerHeight", { $0.footerHeight = value }),
            ("sectionInset", { $0.sectionInset = EdgeInsets(top: value) }),
            ("screenScale", { $0.screenScale = value }),
        ]
        for (name, set) in setters {
            let (layout, environment) = prepared(ColumnLayout(), itemCounts: [3], configure: set)
            #expect(layout.layoutError?.subject == .property(name), "\(name)")
            if name != "sectionInset" { #expect(layout.layoutError?.value == "\(value)", "\(name)") }
            #expect(allFinite(layout, environment.itemCounts), "\(name)")
        }
        let (zeroScale, environment) = prepared(ColumnLayout(), itemCounts: [3]) { $0.screenScale = 0 }
        #expect(zeroScale.layoutError?.subject == .property("screenScale"))
        #expect(allFinite(zeroScale, environment.itemCounts))
    }

    @Test("A negative item count is reported and read as zero")
    func badCount() {
        let (layout, _) = prepared(ColumnLayout(), itemCounts: [2, -3, 1])
        #expect(layout.layoutError?.subject == .itemCount(section: 1))
        #expect(layout.layoutAttributesForItem(at: IndexPath(item: 0, section: 2)) != nil)
    }

    @Test("Errors of sections kept by an incremental prepare are still reported")
    func keptErrors() {
        let delegate = ColumnTableDelegate()
        delegate.heights[IndexPath(item: 0, section: 0)] = -5
        let (layout, environment) = prepared(ColumnLayout(), itemCounts: [2, 2]) { $0.delegate = delegate }
        #expect(layout.layoutError?.subject == .itemSize(IndexPath(item: 0, section: 0)))
        let context = InvalidationContext()
        context.invalidateSections([1])
        layout.invalidateLayout(with: context)
        withExtendedLifetime(environment) { layout.prepare() }
        #expect(layout.layoutError?.subject == .itemSize(IndexPath(item: 0, section: 0)))
    }
}

@Suite("ColumnLayout: oracles", .tags(.oracle), .cpuBound)
struct ColumnLayoutOracleTests {
    static func randomDelegate(itemCounts: [Int], using generator: inout SplitMix64) -> ColumnTableDelegate {
        let delegate = ColumnTableDelegate()
        for (section, count) in itemCounts.enumerated() {
            if Bool.random(using: &generator) {
                delegate.insets[section] = .random(in: 0...20, using: &generator)
            }
            if Bool.random(using: &generator) { delegate.columnCounts[section] = Int.random(in: -1...6, using: &generator) }
            if Bool.random(using: &generator) { delegate.headerHeights[section] = Double(Int.random(in: 0...40, using: &generator)) }
            if Bool.random(using: &generator) { delegate.footerHeights[section] = Double(Int.random(in: 0...40, using: &generator)) }
            for item in 0..<count {
                let path = IndexPath(item: item, section: section)
                switch Int.random(in: 0..<4, using: &generator) {
                case 0: break
                case 1: delegate.heights[path] = Double(Int.random(in: 0...240, using: &generator)) / 2
                case 2: delegate.ratios[path] = Size(width: Double(Int.random(in: 0...4, using: &generator)), height: Double(Int.random(in: 0...6, using: &generator)))
                default:
                    delegate.ratios[path] = Size(width: Double(Int.random(in: 1...4, using: &generator)), height: Double(Int.random(in: 1...6, using: &generator)))
                    delegate.heights[path] = Double(Int.random(in: 0...40, using: &generator))
                }
            }
        }
        return delegate
    }

    static func randomLayout(itemCounts: [Int], delegate: ColumnTableDelegate, environment: StaticLayoutEnvironment, using generator: inout SplitMix64) -> ColumnLayout {
        let layout = ColumnLayout()
        layout.collectionView = environment
        layout.delegate = delegate
        layout.columnCount = Int.random(in: 0...5, using: &generator)
        layout.columnSpacing = Double(Int.random(in: 0...12, using: &generator))
        layout.interitemSpacing = Double(Int.random(in: 0...12, using: &generator))
        layout.itemRenderDirection = ItemRenderDirection.allCases.randomElement(using: &generator)!
        layout.insetSupplementaryViews = Bool.random(using: &generator)
        layout.headerHeight = Double(Int.random(in: 0...1, using: &generator) * 24)
        layout.screenScale = [1, 2, 3].randomElement(using: &generator)!
        return layout
    }

    /// The frames a straightforward model gives: per section, columns as an
    /// array of bottoms, shortest found by a linear scan.
    static func modelFrames(_ layout: ColumnLayout, itemCounts: [Int], width: Double) -> [[Rect]] {
        var top = 0.0
        var result: [[Rect]] = []
        let delegate = layout.delegate
        for (section, count) in itemCounts.enumerated() {
            let insets = delegate?.columnLayout(layout, insetForSectionAt: section) ?? layout.sectionInset
            let n = max(delegate?.columnLayout(layout, columnCountForSectionAt: section) ?? layout.columnCount, 1)
            let header = delegate?.columnLayout(layout, heightForHeaderInSection: section) ?? layout.headerHeight
            let footer = delegate?.columnLayout(layout, heightForFooterInSection: section) ?? layout.footerHeight
            let usable = max(0, width - insets.left - insets.right)
            let w = max(0, ((usable - Double(n - 1) * layout.columnSpacing) / Double(n) * layout.screenScale).rounded(.down) / layout.screenScale)
            top += header + insets.top
            var bottoms = Array(repeating: top, count: n)
            var used = Array(repeating: false, count: n)
            var frames: [Rect] = []
            for item in 0..<count {
                let path = IndexPath(item: item, section: section)
                var height = layout.itemHeight
                let exact = delegate?.columnLayout(layout, heightForItemAt: path)
                if let ratio = delegate?.columnLayout(layout, aspectRatioForItemAt: path), ratio.width != 0, ratio.height != 0 {
                    height = (w * ratio.height / ratio.width).rounded(.down) + (exact ?? 0)
                } else if let exact {
                    height = exact
                }
                let column: Int
                switch layout.itemRenderDirection {
                case .leftToRight: column = item % n
                case .rightToLeft: column = n - 1 - item % n
                case .shortestFirst: column = bottoms.indices.min { bottoms[$0] < bottoms[$1] }!
                }
                let y = used[column] ? bottoms[column] + layout.interitemSpacing : bottoms[column]
                frames.append(Rect(x: insets.left + Double(column) * (w + layout.columnSpacing), y: y, width: w, height: height))
                bottoms[column] = y + height
                used[column] = true
            }
            top = (bottoms.max() ?? top) + insets.bottom + footer
            result.append(frames)
        }
        return result
    }

    @Test("Rect queries equal a brute-force filter, in every render direction")
    func queries() {
        forEachSeededRound("ColumnLayoutOracleTests.queries", seed: 0xC01_0A5, rounds: 200) { round, seed, generator in
            let itemCounts = (0..<Int.random(in: 0...6, using: &generator)).map { _ in Int.random(in: 0...60, using: &generator) }
            let delegate = Self.randomDelegate(itemCounts: itemCounts, using: &generator)
            let environment = StaticLayoutEnvironment(size: Size(width: Double(Int.random(in: 0...400, using: &generator)), height: 480), itemCounts: itemCounts)
            let layout = Self.randomLayout(itemCounts: itemCounts, delegate: delegate, environment: environment, using: &generator)
            layout.prepare()
            #expect(layout.layoutError == nil, "seed \(seed), round \(round)")
            #expect(itemFrames(of: layout, itemCounts: itemCounts) == Self.modelFrames(layout, itemCounts: itemCounts, width: environment.bounds.size.width),
                    "seed \(seed), round \(round): frames differ from the model")
            LayoutOracleTests.check(layout, itemCounts: itemCounts, seed: seed, round: round, using: &generator)
        }
    }

    @Test("After a context naming a section, the layout equals a fresh prepare")
    func incrementalInvalidation() {
        forEachSeededRound("ColumnLayoutOracleTests.incrementalInvalidation", seed: 0xC01_1A7, rounds: 150) { round, seed, generator in
            var itemCounts = (0..<Int.random(in: 1...6, using: &generator)).map { _ in Int.random(in: 0...40, using: &generator) }
            let delegate = Self.randomDelegate(itemCounts: itemCounts, using: &generator)
            let environment = StaticLayoutEnvironment(size: Size(width: 320, height: 480), itemCounts: itemCounts)
            let layout = Self.randomLayout(itemCounts: itemCounts, delegate: delegate, environment: environment, using: &generator)
            layout.prepare()

            // Change a section's count, heights, header and columns, then name only that section.
            let section = Int.random(in: 0..<itemCounts.count, using: &generator)
            itemCounts[section] = Int.random(in: 0...40, using: &generator)
            environment.itemCounts = itemCounts
            for item in 0..<itemCounts[section] {
                delegate.heights[IndexPath(item: item, section: section)] = Double(Int.random(in: 0...90, using: &generator))
            }
            delegate.headerHeights[section] = Double(Int.random(in: 0...30, using: &generator))
            delegate.columnCounts[section] = Int.random(in: 1...4, using: &generator)
            let laterSection = Int.random(in: section..<itemCounts.count, using: &generator)
            if Bool.random(using: &generator) {
                layout.invalidateLayout(with: InvalidationContext(invalidateDataSourceCounts: true))
                let items = InvalidationContext()
                items.invalidateItems(at: [IndexPath(item: 0, section: laterSection)])
                layout.invalidateLayout(with: items)
            } else {
                let context = InvalidationContext(invalidateDataSourceCounts: true)
                context.invalidateSections([section, laterSection])
                layout.invalidateLayout(with: context)
            }
            layout.prepare()

            let fresh = ColumnLayout()
            fresh.collectionView = environment
            fresh.delegate = delegate
            fresh.columnCount = layout.columnCount
            fresh.columnSpacing = layout.columnSpacing
            fresh.interitemSpacing = layout.interitemSpacing
            fresh.itemRenderDirection = layout.itemRenderDirection
            fresh.insetSupplementaryViews = layout.insetSupplementaryViews
            fresh.headerHeight = layout.headerHeight
            fresh.screenScale = layout.screenScale
            fresh.prepare()
            #expect(allElements(of: layout, itemCounts: itemCounts) == allElements(of: fresh, itemCounts: itemCounts), "seed \(seed), round \(round)")
            #expect(layout.collectionViewContentSize == fresh.collectionViewContentSize, "seed \(seed), round \(round)")
            LayoutOracleTests.check(layout, itemCounts: itemCounts, seed: seed, round: round, using: &generator)
        }
    }
}
