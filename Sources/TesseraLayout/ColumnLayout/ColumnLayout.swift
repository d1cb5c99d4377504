#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A vertical grid of equal-width columns, or a waterfall when items differ
/// in height.
///
/// ```swift
/// let layout = ColumnLayout()
/// layout.columnCount = 3
/// layout.itemRenderDirection = .shortestFirst
/// layout.delegate = photos   // aspect ratios per item
/// layout.collectionView = StaticLayoutEnvironment(size: Size(width: 390, height: 844), itemCounts: [500])
/// layout.prepare()
/// ```
///
/// A section stacks its header, top inset, columns, bottom inset and
/// footer, and sections abut. With `n = max(columnCount, 1)` and `usable =
/// width − inset.left − inset.right`, every column is `w = (usable − (n − 1)
/// · columnSpacing) / n` wide, rounded down to the pixel grid of
/// ``screenScale``, and column *i* starts at `inset.left + i · (w +
/// columnSpacing)`. An item's column comes from ``itemRenderDirection``;
/// it goes at its column's current bottom (plus ``interitemSpacing`` unless
/// it is the column's first item). The section ends at its tallest column
/// plus the bottom inset, then the footer.
///
/// An item is ``itemHeight`` tall unless the delegate gives an aspect ratio
/// (`floor(w · ratio.height / ratio.width)`, plus the exact height when one
/// is also given) or an exact height.
///
/// Headers and footers span the whole width, or the width between the
/// insets with ``insetSupplementaryViews``.
///
/// The content is as wide as the view and as tall as the sections, and it
/// encloses every frame (see ``FrameStorageLayout``): with more columns than
/// fit (their width is then 0, and they still stand ``columnSpacing``
/// apart) or insets wider than the view, columns start past the view's
/// width, and the content grows across to the last of them.
///
/// Frames live in a flat array per section. Because a waterfall's item bottoms are not
/// in item order, each section also keeps its items grouped by column (4
/// bytes per item): within a column, items are stacked, so both their tops
/// and bottoms ascend, and rect queries binary-search each column the rect
/// meets. Rect queries run in O(log *n* + *c* log *n* + *k* log *k*) for
/// the *c* columns the rect meets and *k* elements returned.
open class ColumnLayout: FrameStorageLayout {
    /// The number of columns of every section, unless the delegate says
    /// otherwise; a value below 1 means 1. 2.
    public var columnCount: Int = 2 { didSet { invalidateLayout() } }
    /// The horizontal spacing between columns. 8.
    public var columnSpacing: Double = 8 { didSet { invalidateLayout() } }
    /// The vertical spacing between the items of a column. 8.
    public var interitemSpacing: Double = 8 { didSet { invalidateLayout() } }
    /// The insets of every section. 8 on every side.
    public var sectionInset = EdgeInsets(all: 8) { didSet { invalidateLayout() } }
    /// The height of every item the delegate gives neither an aspect ratio
    /// nor a height for. 50.
    public var itemHeight: Double = 50 { didSet { invalidateLayout() } }
    /// Which column each item goes in. Left to right.
    public var itemRenderDirection = ItemRenderDirection.leftToRight { didSet { invalidateLayout() } }
    /// The height of every header (0: none). 0.
    public var headerHeight: Double = 0 { didSet { invalidateLayout() } }
    /// The height of every footer (0: none). 0.
    public var footerHeight: Double = 0 { didSet { invalidateLayout() } }
    /// Whether headers and footers are inset like the columns. False.
    public var insetSupplementaryViews = false { didSet { invalidateLayout() } }
    /// The screen scale whose pixel grid column widths are rounded down to.
    /// 2.
    public var screenScale: Double = 2 { didSet { invalidateLayout() } }
    /// Per-item and per-section values.
    public weak var delegate: (any ColumnLayoutDelegate)? { didSet { invalidateLayout() } }
    /// The height items start at before their fitted height is known; 0 (the
    /// default) turns self-sizing off. When it is above 0 the items size
    /// themselves: an item is as tall as the delegate says (or this estimate,
    /// in place of ``itemHeight``) until a collection view delivers its fitted
    /// height (see the TesseraView article “Self-sizing items”), and its
    /// section is laid out again. A bad value is recorded as an error and turns
    /// self-sizing off.
    public var estimatedItemHeight: Double = 0 { didSet { invalidateLayout() } }

    package override var isSelfSizing: Bool { estimatedItemHeight > 0 && LayoutValue.isValidLength(estimatedItemHeight) }

    var preparedWidth: Double?

    /// Creates a column layout: two columns, 8-point spacings and insets.
    public init() {
        super.init(direction: .vertical)
    }

    // MARK: Preparing

    /// Lays out the sections an invalidation context names and shifts the
    /// others (see ``FrameStorageLayout`` for which it keeps: a section's
    /// frames depend only on where the section before it ends, and a kept
    /// section's delegate answers are assumed unchanged).
    ///
    /// Bad heights, ratios, insets, spacings and scales are recorded in
    /// ``CollectionViewLayout/layoutError`` and replaced by zero (a bad
    /// ratio is ignored; a bad scale means no rounding beyond whole points).
    ///
    /// - Complexity: O(*n* + *c* + *s*) for the *n* items, *c* used columns
    ///   and *s* sections laid out, O(*n* log *c*) with
    ///   ``ItemRenderDirection/shortestFirst``; no allocation per item.
    open override func prepare() {
        let context = pendingInvalidation
        super.prepare()
        guard let environment = collectionView else {
            clearFrames()
            preparedWidth = nil
            return
        }
        let width = visibleSize(in: environment).width
        let plan = sectionPlan(context: context, framesStillValid: preparedWidth == width, hasDelegate: delegate != nil, environment: environment)
        var (store, check) = beginPass(plan: plan, direction: .vertical)
        let selfSizing = isSelfSizing
        if !LayoutValue.isValidLength(estimatedItemHeight) {
            recordError(LayoutError(subject: .property("estimatedItemHeight"), value: "\(estimatedItemHeight)"))
        }
        let itemHeight = selfSizing ? estimatedItemHeight : check.length(self.itemHeight, section: nil, .property("itemHeight"))
        let columnSpacing = check.length(self.columnSpacing, section: nil, .property("columnSpacing"))
        let interitemSpacing = check.length(self.interitemSpacing, section: nil, .property("interitemSpacing"))
        let headerHeight = check.length(self.headerHeight, section: nil, .property("headerHeight"))
        let footerHeight = check.length(self.footerHeight, section: nil, .property("footerHeight"))
        let sectionInset = check.insets(self.sectionInset, section: nil, .property("sectionInset"))
        let scale = check.scale(self.screenScale, section: nil, .property("screenScale"))
        let renderDirection = itemRenderDirection
        let delegate = self.delegate

        // Scratch buffers, reused across sections.
        var itemColumns: [Int32] = []
        var bottoms: [Double] = []
        var columnItems: [Int] = []
        var heap: [_ColumnBottom] = []

        for section in plan.sectionsToLayOut {
            let count = check.count(environment.numberOfItems(inSection: section), section: section)
            store.beginSection(section, itemCount: count)
            let fitted = selfSizing ? fittedSizes.sizes(inSection: section) : nil
            let insets = delegate?.columnLayout(self, insetForSectionAt: section).map { check.insets($0, section: section, .sectionInset(section: section)) } ?? sectionInset
            let header = delegate?.columnLayout(self, heightForHeaderInSection: section).map { check.length($0, section: section, .headerSize(section: section)) } ?? headerHeight
            let footer = delegate?.columnLayout(self, heightForFooterInSection: section).map { check.length($0, section: section, .footerSize(section: section)) } ?? footerHeight
            let n = Swift.max(delegate?.columnLayout(self, columnCountForSectionAt: section) ?? columnCount, 1)
            let usable = Swift.max(0, width - insets.left - insets.right)
            let rawWidth = (usable - Double(n - 1) * columnSpacing) / Double(n)
            let columnWidth = Swift.max(0, (rawWidth * scale).rounded(.down) / scale)
            let stride = columnWidth + columnSpacing
            // Only the first `min(n, count)` columns can hold items (the last
            // ones, right to left): a huge column count costs nothing.
            let used = Swift.min(n, count)
            let offset = renderDirection == .rightToLeft ? n - used : 0
            let supplementaryX = insetSupplementaryViews ? insets.left : 0
            let supplementaryWidth = insetSupplementaryViews ? usable : width
            // The section is laid out from its own origin.
            var top = 0.0

            var headerFrame: Rect?
            if header > 0 {
                headerFrame = Rect(x: supplementaryX, y: top, width: supplementaryWidth, height: header)
                top += header
            }
            top += insets.top

            itemColumns.removeAll(keepingCapacity: true)
            bottoms.removeAll(keepingCapacity: true)
            bottoms.append(contentsOf: repeatElement(top, count: used))
            columnItems.removeAll(keepingCapacity: true)
            columnItems.append(contentsOf: repeatElement(0, count: used))
            if renderDirection == .shortestFirst {
                // Equal bottoms in column order: already a heap.
                heap.removeAll(keepingCapacity: true)
                for column in 0..<used { heap.append(_ColumnBottom(bottom: top, column: column)) }
            }
            for item in 0..<count {
                var height = itemHeight
                if let delegate {
                    let path = IndexPath(item: item, section: section)
                    var ratioHeight: Double?
                    if let ratio = delegate.columnLayout(self, aspectRatioForItemAt: path) {
                        let checked = check.size(ratio, section: section, .itemSize(path))
                        if checked.width != 0 && checked.height != 0 {
                            ratioHeight = (columnWidth * checked.height / checked.width).rounded(.down)
                        }
                    }
                    let exact = delegate.columnLayout(self, heightForItemAt: path).map { check.length($0, section: section, .itemSize(path)) }
                    if let ratioHeight {
                        // A huge ratio can overflow to infinity.
                        height = check.length(ratioHeight + (exact ?? 0), section: section, .itemSize(path))
                    } else if let exact {
                        height = exact
                    }
                }
                if let fitted, let size = fitted[item] { height = size.height }
                let local: Int
                switch renderDirection {
                case .leftToRight: local = item % n
                case .rightToLeft: local = n - 1 - item % n - offset
                case .shortestFirst: local = heap[0].column
                }
                let y = columnItems[local] == 0 ? bottoms[local] : bottoms[local] + interitemSpacing
                let x = insets.left + Double(local + offset) * stride
                store.itemFrames.append(Rect(x: x, y: y, width: columnWidth, height: height))
                bottoms[local] = y + height
                columnItems[local] += 1
                itemColumns.append(Int32(truncatingIfNeeded: local))
                if renderDirection == .shortestFirst {
                    heap[0].bottom = y + height
                    _ColumnBottom.siftDown(&heap)
                }
            }
            let columns = _ColumnSection(
                x0: insets.left, stride: stride, columnWidth: columnWidth, columnOffset: offset,
                itemColumns: itemColumns, columnItems: &columnItems
            )
            var end = top
            for bottom in bottoms { end = Swift.max(end, bottom) }
            top = end + insets.bottom
            var footerFrame: Rect?
            if footer > 0 {
                footerFrame = Rect(x: supplementaryX, y: top, width: supplementaryWidth, height: footer)
                top += footer
            }
            let frames = store.endSection(
                bounds: Rect(x: 0, y: 0, width: width, height: top),
                header: headerFrame, footer: footerFrame, itemsAreBands: false, extent: top, columns: columns
            )
            columns.checkInvariants(frames)
        }
        let top = endPass(store)
        naturalContentSize = Size(width: width, height: top)
        preparedWidth = width
        settleSizingAdjustments()
    }


    // MARK: Queries

    /// Every header, footer and item whose frame intersects `rect` (elements
    /// that only touch it are left out), in order: sections ascending, and in
    /// each section its header and footer, then its items ascending.
    ///
    /// Sections are found by binary search; in each, every column the rect
    /// meets is binary-searched for its first item that ends below the
    /// rect's top, and walked while items start above its bottom. When the
    /// layout is flipped, the search runs on the mirrored rect and the
    /// frames returned are mirrored.
    ///
    /// - Complexity: O(log *s* + *c* log *n* + *k* log *k*) for *s*
    ///   sections, the *c* columns of the met sections that the rect meets,
    ///   and *k* elements returned.
    open override func layoutAttributesForElements(in rect: Rect) -> [LayoutAttributes] {
        guard !rect.isEmpty else { return [] }
        var result: [LayoutAttributes] = []
        var hits: [Int] = []
        let store = self.store
        // Flipped, the search runs on the mirrored rect (widened) and every
        // frame found is mirrored back and tested against `rect`.
        let width = flipWidth
        let searched = width.map { Self.searchRect(mirroring: rect, inWidth: $0) } ?? rect
        func returned(_ frame: Rect) -> Rect? {
            guard let width else { return frame.intersects(rect) ? frame : nil }
            let mirrored = frame.mirroredHorizontally(inWidth: width)
            return mirrored.intersects(rect) ? mirrored : nil
        }
        for section in store.sections(meeting: searched) {
            let path = IndexPath(item: 0, section: section)
            if let frame = store.headerFrame(section).flatMap(returned) {
                result.append(.supplementaryView(ofKind: ElementKind.sectionHeader, at: path, frame: frame))
            }
            if let frame = store.footerFrame(section).flatMap(returned) {
                result.append(.supplementaryView(ofKind: ElementKind.sectionFooter, at: path, frame: frame))
            }
            let frames = store.sections[section]
            guard let columns = frames.columns else { continue }
            hits.removeAll(keepingCapacity: true)
            columns.items(meeting: searched, frames: frames, origin: store.sectionOrigin[section], into: &hits)
            if hits.count > 1 { hits.sort() }
            for item in hits {
                let frame = store.placed(frames.itemFrames[item], section: section)
                if width == nil {
                    result.append(.cell(at: IndexPath(item: item, section: section), frame: frame))
                } else if let frame = returned(frame) {
                    result.append(.cell(at: IndexPath(item: item, section: section), frame: frame))
                }
            }
        }
        return result
    }

    // MARK: Invalidation

    /// True only when the width changes (columns change width).
    open override func shouldInvalidateLayout(forBoundsChange newBounds: Rect) -> Bool {
        guard let environment = collectionView else { return true }
        return newBounds.size.width != environment.bounds.size.width
    }
}

/// A column's bottom while a ``ItemRenderDirection/shortestFirst`` section
/// is laid out: a min-heap of columns, smallest bottom first, leftmost on
/// ties.
struct _ColumnBottom {
    var bottom: Double
    var column: Int

    /// Whether `self` is picked before `other`.
    func precedes(_ other: _ColumnBottom) -> Bool {
        bottom < other.bottom || (bottom == other.bottom && column < other.column)
    }

    /// Restores the heap after its root grew.
    ///
    /// - Complexity: O(log *c*) for *c* columns.
    static func siftDown(_ heap: inout [_ColumnBottom]) {
        var parent = 0
        let count = heap.count
        while true {
            let left = 2 * parent + 1
            guard left < count else { return }
            var child = left
            if left + 1 < count && heap[left + 1].precedes(heap[left]) { child = left + 1 }
            guard heap[child].precedes(heap[parent]) else { return }
            heap.swapAt(child, parent)
            parent = child
        }
    }
}

/// The items of one section of a ``ColumnLayout`` grouped by column, for
/// rect queries where item bottoms do not follow item order (a waterfall).
///
/// Within a column the items are stacked with non-negative spacing, so both
/// their tops and their bottoms ascend in item order: each column is a
/// sorted run that a query can binary-search. Per item the index keeps one
/// `Int32` (the item's index in its section, grouped by column); per used
/// column one `Int32` (where its run starts); and 32 bytes of column
/// geometry.
struct _ColumnSection: Sendable {
    /// Column `j` of the index (column `j + columnOffset` of the section)
    /// spans `x0 + (j + columnOffset) · stride` to that plus `columnWidth`.
    var x0: Double
    var stride: Double
    var columnWidth: Double
    var columnOffset: Int
    /// Per used column: where its run starts in `order`.
    var columnStart: [Int32] = []
    /// The section's item indices, grouped by column, ascending within each
    /// column.
    var order: [Int32] = []

    /// The bytes the arrays reserve.
    var byteCount: Int {
        (columnStart.capacity + order.capacity) * MemoryLayout<Int32>.stride
    }

    /// Groups a section's items from the column of each: a counting sort,
    /// stable, so each column's items stay in item order.
    ///
    /// - Complexity: O(*n* + *c*) for *n* items and *c* columns.
    init(x0: Double, stride: Double, columnWidth: Double, columnOffset: Int, itemColumns: [Int32], columnItems: inout [Int]) {
        self.x0 = x0
        self.stride = stride
        self.columnWidth = columnWidth
        self.columnOffset = columnOffset
        // Turn the per-column counts into where each column's run starts.
        columnStart.reserveCapacity(columnItems.count)
        var start = 0
        for column in columnItems.indices {
            let count = columnItems[column]
            columnStart.append(Int32(truncatingIfNeeded: start))
            columnItems[column] = start
            start += count
        }
        order = Array(repeating: 0, count: itemColumns.count)
        for (item, column) in itemColumns.enumerated() {
            let column = Int(column)
            order[columnItems[column]] = Int32(truncatingIfNeeded: item)
            columnItems[column] += 1
        }
    }

    /// Appends to `hits` the index of every item of the section whose frame
    /// (local `frames`, at `origin`) intersects `rect`, column by column
    /// (not in item order).
    ///
    /// - Complexity: O(log *c* + *m* log *n* + *k*) for the *m* columns the
    ///   rect meets and *k* items visited.
    func items(meeting rect: Rect, frames: _SectionFrames, origin: Double, into hits: inout [Int]) {
        guard columnWidth > 0 else { return }
        let itemFrames = frames.itemFrames
        let low = _FrameStore.widened(rect.minY, down: true)
        let high = _FrameStore.widened(rect.maxY, down: false)
        func columnX(_ index: Int) -> Double {
            x0 + Double(index + columnOffset) * stride
        }
        func placed(_ item: Int32) -> Rect { itemFrames[Int(item)].offsetBy(dx: 0, dy: origin) }
        // The first column that ends right of the rect's left edge.
        var lower = 0
        var upper = columnStart.count
        while lower < upper {
            let mid = (lower + upper) / 2
            if columnX(mid) + columnWidth > _FrameStore.widened(rect.minX, down: true) { upper = mid } else { lower = mid + 1 }
        }
        var column = lower
        while column < columnStart.count && columnX(column) < _FrameStore.widened(rect.maxX, down: false) {
            let runStart = Int(columnStart[column])
            let runEnd = column + 1 < columnStart.count ? Int(columnStart[column + 1]) : order.count
            // The first item of the run that ends below the rect's top.
            var first = runStart
            var last = runEnd
            while first < last {
                let mid = (first + last) / 2
                if placed(order[mid]).maxY > low { last = mid } else { first = mid + 1 }
            }
            while first < runEnd {
                let frame = placed(order[first])
                guard frame.minY < high else { break }
                if frame.intersects(rect) { hits.append(Int(order[first])) }
                first += 1
            }
            column += 1
        }
    }

    /// Checks that the index covers the section's items and that each
    /// column's tops and bottoms ascend. Compiled in with
    /// `TESSERA_INTERNAL_CHECKS`.
    func checkInvariants(_ frames: _SectionFrames) {
        #if TESSERA_INTERNAL_CHECKS
        precondition(order.count == frames.itemCount, "column index items out of step")
        for column in columnStart.indices {
            let runEnd = column + 1 < columnStart.count ? Int(columnStart[column + 1]) : order.count
            var previous: Rect?
            for entry in Int(columnStart[column])..<runEnd {
                let frame = frames.itemFrames[Int(order[entry])]
                if let previous {
                    precondition(frame.minY >= previous.minY && frame.maxY >= previous.maxY, "column \(column) not ascending")
                }
                previous = frame
            }
        }
        #endif
    }
}
