#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// UIKit's `UICollectionViewFlowLayout`: items flow along lines that wrap,
/// in sections with optional headers and footers.
///
/// ```swift
/// let layout = FlowLayout()
/// layout.itemSize = Size(width: 120, height: 120)
/// layout.sectionInset = EdgeInsets(all: 10)
/// layout.collectionView = StaticLayoutEnvironment(size: Size(width: 390, height: 844), itemCounts: [100])
/// layout.prepare()
/// let visible = layout.layoutAttributesForElements(in: Rect(x: 0, y: 0, width: 390, height: 844))
/// ```
///
/// Vertically (horizontal mirrors it): a section stacks its header, top
/// inset, lines, bottom inset and footer, and sections abut. An item joins a
/// line when `used + minimumInteritemSpacing + width ≤ available`, the first
/// item of a line always being placed. Items are centered on their line's
/// scroll axis; a line is as tall as its tallest item, and lines are
/// `minimumLineSpacing` apart. Full lines follow ``fullLineAlignment``
/// (justified by default) and the last line ``lastLineAlignment`` (leading
/// by default). Headers and footers span the whole width.
///
/// The content encloses every frame (see ``FrameStorageLayout``): it is as
/// wide as the view and as tall as the sections, or wider where an item is.
/// An item wider than the space between its section's insets (taller, when
/// scrolling horizontally) sits alone on its line at the leading inset,
/// whatever the line's alignment, and the content grows across to its far
/// edge, so the overflow can be scrolled to. UIKit's flow layout lays such
/// an item out too, logging that its behaviour is not defined; its content
/// size is not grown for it. Pinned headers and footers stay between their
/// section's start and end, as in UIKit, so they stay within the content at
/// every content offset.
///
/// Frames live in flat arrays per section; attributes are made only for what a query
/// returns, and rect queries run in O(log *n* + *k*). Without a
/// ``delegate`` every item has ``itemSize``, so a section's items sit in
/// lines of one length and their frames follow from their indexes: the
/// layout keeps no frame for them, lays a section out in the time a line
/// takes whatever its number of items, and a query finds the lines it meets
/// by division.
open class FlowLayout: FrameStorageLayout {
    /// The scroll direction. Vertical by default.
    public var scrollDirection: ScrollDirection = .vertical { didSet { invalidateLayout() } }
    /// The size of every item, unless the delegate says otherwise. 50×50.
    public var itemSize = Size(width: 50, height: 50) { didSet { invalidateLayout() } }
    /// The spacing between lines. 10.
    public var minimumLineSpacing: Double = 10 { didSet { invalidateLayout() } }
    /// The spacing between items on a line. 10.
    public var minimumInteritemSpacing: Double = 10 { didSet { invalidateLayout() } }
    /// The insets of every section. Zero.
    public var sectionInset = EdgeInsets.zero { didSet { invalidateLayout() } }
    /// The size of every header (only its scroll-axis length is used; zero
    /// means no header). Zero.
    public var headerReferenceSize = Size.zero { didSet { invalidateLayout() } }
    /// The size of every footer (only its scroll-axis length is used; zero
    /// means no footer). Zero.
    public var footerReferenceSize = Size.zero { didSet { invalidateLayout() } }
    /// Whether headers stay at the top of the visible area while their
    /// section is visible.
    public var sectionHeadersPinToVisibleBounds = false { didSet { invalidateLayout() } }
    /// Whether footers stay at the bottom of the visible area while their
    /// section is visible.
    public var sectionFootersPinToVisibleBounds = false { didSet { invalidateLayout() } }
    /// How lines that another item did not fit after are aligned. Justified.
    public var fullLineAlignment = LineAlignment.justified { didSet { invalidateLayout() } }
    /// How the last line of a section is aligned. Leading.
    public var lastLineAlignment = LineAlignment.leading { didSet { invalidateLayout() } }
    /// Per-item and per-section values.
    public weak var delegate: (any FlowLayoutDelegate)? { didSet { invalidateLayout() } }
    /// The size items start at before their fitted size is known, as in UIKit;
    /// zero (the default) turns self-sizing off. When it is not zero the items
    /// size themselves: an item has the delegate's size (or this estimate)
    /// until a collection view delivers its fitted size (see the TesseraView
    /// article “Self-sizing items”), and its section is laid out again. A bad
    /// value is recorded as an error and turns self-sizing off.
    public var estimatedItemSize = Size.zero { didSet { invalidateLayout() } }

    package override var isSelfSizing: Bool { estimatedItemSize != .zero && estimatedItemSize.isValid }

    /// The z-index of pinned headers and footers, so they cover the items
    /// that scroll under them.
    public static let pinnedSupplementaryZIndex = 10

    var preparedFixedLength: Double?
    var isPrepared = false

    /// Creates a flow layout with UIKit's defaults.
    public init() {
        super.init(direction: .vertical)
    }

    // MARK: Preparing

    /// Lays out the sections an invalidation context names and shifts the
    /// others (see ``FrameStorageLayout`` for which it keeps; a kept
    /// section's delegate answers are assumed unchanged). A context that
    /// names only supplementary
    /// views (pinning after a scroll) recomputes nothing: pinned positions
    /// are found at query time.
    ///
    /// Bad sizes, insets and spacings are recorded in
    /// ``CollectionViewLayout/layoutError`` and replaced by zero.
    ///
    /// - Complexity: O(*n*) for the *n* items of the sections laid out
    ///   (without a delegate, O(*p*) per section for *p* items a line), plus
    ///   O(*s*) for the *s* sections; one allocation per section laid out,
    ///   none per item.
    open override func prepare() {
        let context = pendingInvalidation
        super.prepare()
        guard let environment = collectionView else {
            clearFrames()
            isPrepared = false
            return
        }
        let direction = scrollDirection
        let fixedLength = direction.fLength(visibleSize(in: environment))
        let stillValid = isPrepared && preparedFixedLength == fixedLength && store.direction == direction
        let plan = sectionPlan(context: context, framesStillValid: stillValid, hasDelegate: delegate != nil, environment: environment)
        var (store, check) = beginPass(plan: plan, direction: direction)
        let itemSize = check.size(self.itemSize, section: nil, .property("itemSize"))
        let lineSpacing = check.length(minimumLineSpacing, section: nil, .property("minimumLineSpacing"))
        let interitemSpacing = check.length(minimumInteritemSpacing, section: nil, .property("minimumInteritemSpacing"))
        let sectionInset = check.insets(self.sectionInset, section: nil, .property("sectionInset"))
        let headerLengthDefault = check.length(direction.sLength(headerReferenceSize), section: nil, .property("headerReferenceSize"))
        let footerLengthDefault = check.length(direction.sLength(footerReferenceSize), section: nil, .property("footerReferenceSize"))
        let delegate = self.delegate
        let selfSizing = isSelfSizing
        let baseSize = selfSizing ? estimatedItemSize : itemSize
        if estimatedItemSize != .zero && !estimatedItemSize.isValid {
            recordError(LayoutError(subject: .property("estimatedItemSize"), value: "\(estimatedItemSize)"))
        }

        for section in plan.sectionsToLayOut {
            let count = check.count(environment.numberOfItems(inSection: section), section: section)
            store.beginSection(section, itemCount: count)
            let fitted = selfSizing ? fittedSizes.sizes(inSection: section) : nil
            let inset = delegate?.flowLayout(self, insetForSectionAt: section).map { check.insets($0, section: section, .sectionInset(section: section)) } ?? sectionInset
            let lines = delegate?.flowLayout(self, minimumLineSpacingForSectionAt: section).map { check.length($0, section: section, .lineSpacing(section: section)) } ?? lineSpacing
            let interitem = delegate?.flowLayout(self, minimumInteritemSpacingForSectionAt: section).map { check.length($0, section: section, .interitemSpacing(section: section)) } ?? interitemSpacing
            let headerLength = delegate?.flowLayout(self, referenceSizeForHeaderInSection: section).map { check.length(direction.sLength($0), section: section, .headerSize(section: section)) } ?? headerLengthDefault
            let footerLength = delegate?.flowLayout(self, referenceSizeForFooterInSection: section).map { check.length(direction.sLength($0), section: section, .footerSize(section: section)) } ?? footerLengthDefault
            let (sLeading, sTrailing, fLeading, fTrailing) = direction.split(inset)
            // The section is laid out from its own origin.
            var s = 0.0

            var headerFrame: Rect?
            if headerLength > 0 {
                headerFrame = direction.rect(s: s, f: 0, sLength: headerLength, fLength: fixedLength)
                s += headerLength
            }
            s += sLeading

            if delegate == nil && !selfSizing {
                // Every item has one size: the lines give the frames.
                let uniform = _Line.uniformLines(
                    count: count, itemSize: itemSize, direction: direction, firstS: s, fLeading: fLeading,
                    available: fixedLength - fLeading - fTrailing, interitem: interitem, lineSpacing: lines,
                    fullLineAlignment: fullLineAlignment, lastLineAlignment: lastLineAlignment
                )
                s = uniform.endS ?? s
                s += sTrailing
                var footerFrame: Rect?
                if footerLength > 0 {
                    footerFrame = direction.rect(s: s, f: 0, sLength: footerLength, fLength: fixedLength)
                    s += footerLength
                }
                store.endSection(
                    bounds: direction.rect(s: 0, f: 0, sLength: s, fLength: fixedLength),
                    header: headerFrame, footer: footerFrame, lines: uniform, extent: s
                )
                continue
            }

            var line = _Line(start: store.itemFrames.count, s: s, fLeading: fLeading, available: fixedLength - fLeading - fTrailing, interitem: interitem)
            var everyLineSingle = true
            for item in 0..<count {
                var size = baseSize
                if let delegate {
                    let path = IndexPath(item: item, section: section)
                    if let custom = delegate.flowLayout(self, sizeForItemAt: path) {
                        size = check.size(custom, section: section, .itemSize(path))
                    }
                }
                if let fitted, let fittedSize = fitted[item] { size = fittedSize }
                let width = direction.fLength(size)
                if line.count > 0 && line.used + interitem + width > line.available + 1e-9 {
                    everyLineSingle = everyLineSingle && line.count == 1
                    line.close(in: &store, alignment: fullLineAlignment)
                    line = _Line(start: store.itemFrames.count, s: line.s + line.length + lines, fLeading: fLeading, available: line.available, interitem: interitem)
                }
                line.append(width: width, length: direction.sLength(size), to: &store)
            }
            if line.count > 0 {
                everyLineSingle = everyLineSingle && line.count == 1
                line.close(in: &store, alignment: lastLineAlignment)
                s = line.s + line.length
            }
            s += sTrailing

            var footerFrame: Rect?
            if footerLength > 0 {
                footerFrame = direction.rect(s: s, f: 0, sLength: footerLength, fLength: fixedLength)
                s += footerLength
            }
            store.endSection(
                bounds: direction.rect(s: 0, f: 0, sLength: s, fLength: fixedLength),
                header: headerFrame,
                footer: footerFrame,
                itemsAreBands: everyLineSingle,
                extent: s
            )
        }
        let s = endPass(store)
        naturalContentSize = direction == .vertical
            ? Size(width: fixedLength, height: s)
            : Size(width: s, height: fixedLength)
        preparedFixedLength = fixedLength
        isPrepared = true
        settleSizingAdjustments()
    }

    // MARK: Queries

    /// The attributes of a section's header or footer (kinds
    /// ``ElementKind/sectionHeader`` and ``ElementKind/sectionFooter``, index
    /// path `[section, 0]`), pinned where pinning is on, mirrored when the
    /// layout is flipped (pinning reads the bounds mirrored); `nil` when the
    /// section has none.
    ///
    /// - Complexity: O(1).
    open override func layoutAttributesForSupplementaryView(ofKind kind: String, at indexPath: IndexPath) -> LayoutAttributes? {
        guard indexPath.count >= 1 else { return nil }
        return supplementaryAttributes(ofKind: kind, section: indexPath[0]).map(flippedHorizontally)
    }

    private func supplementaryAttributes(ofKind kind: String, section: Int) -> LayoutAttributes? {
        guard section >= 0 && section < store.numberOfSections else { return nil }
        let path = IndexPath(item: 0, section: section)
        let direction = store.direction
        let bounds = store.sectionBounds(section)
        switch kind {
        case ElementKind.sectionHeader:
            guard var frame = store.headerFrame(section) else { return nil }
            var attributes = LayoutAttributes.supplementaryView(ofKind: kind, at: path, frame: frame)
            if sectionHeadersPinToVisibleBounds, collectionView != nil {
                let visibleStart = direction.s(boundsInDevelopmentDirection.origin) + direction.split(contentInsetInDevelopmentDirection).sLeading
                let length = direction.sLength(frame.size)
                let pinned = Swift.max(direction.minS(frame), Swift.min(visibleStart, direction.maxS(bounds) - length))
                frame = moved(frame, toS: pinned)
                attributes.frame = frame
                attributes.zIndex = Self.pinnedSupplementaryZIndex
            }
            return attributes
        case ElementKind.sectionFooter:
            guard var frame = store.footerFrame(section) else { return nil }
            var attributes = LayoutAttributes.supplementaryView(ofKind: kind, at: path, frame: frame)
            if sectionFootersPinToVisibleBounds, collectionView != nil {
                let visible = boundsInDevelopmentDirection
                let visibleEnd = direction.s(visible.origin) + direction.sLength(visible.size)
                    - direction.split(contentInsetInDevelopmentDirection).sTrailing
                let length = direction.sLength(frame.size)
                let floor = direction.minS(bounds) + (store.sections[section].header.map { direction.sLength($0.size) } ?? 0)
                let pinned = Swift.min(direction.minS(frame), Swift.max(visibleEnd - length, floor))
                frame = moved(frame, toS: pinned)
                attributes.frame = frame
                attributes.zIndex = Self.pinnedSupplementaryZIndex
            }
            return attributes
        default:
            return nil
        }
    }

    private func moved(_ frame: Rect, toS s: Double) -> Rect {
        store.direction == .vertical
            ? Rect(x: frame.origin.x, y: s, width: frame.size.width, height: frame.size.height)
            : Rect(x: s, y: frame.origin.y, width: frame.size.width, height: frame.size.height)
    }

    // MARK: Invalidation

    /// True when the fixed-axis length changes (lines re-wrap), and on any
    /// change when headers or footers are pinned.
    open override func shouldInvalidateLayout(forBoundsChange newBounds: Rect) -> Bool {
        guard let environment = collectionView else { return true }
        let direction = scrollDirection
        if direction.fLength(newBounds.size) != direction.fLength(environment.bounds.size) { return true }
        return (sectionHeadersPinToVisibleBounds || sectionFootersPinToVisibleBounds) && newBounds != environment.bounds
    }

    /// Everything when the fixed-axis length changes; otherwise (pinning)
    /// only the headers and footers of the sections that meet the old or the
    /// new bounds.
    ///
    /// - Complexity: O(log *s* + *r*) for *r* sections visible before or after.
    open override func invalidationContext(forBoundsChange newBounds: Rect) -> InvalidationContext {
        guard let environment = collectionView,
              scrollDirection.fLength(newBounds.size) == scrollDirection.fLength(environment.bounds.size)
        else { return .everything() }
        let context = InvalidationContext()
        context.invalidatesPositionsOnly = true
        let sections = store.sections(meeting: flippedHorizontally(environment.bounds.union(newBounds))).map { IndexPath(item: 0, section: $0) }
        if sectionHeadersPinToVisibleBounds {
            context.invalidateSupplementaryElements(ofKind: ElementKind.sectionHeader, at: sections.filter { store.sections[$0[0]].header != nil })
        }
        if sectionFootersPinToVisibleBounds {
            context.invalidateSupplementaryElements(ofKind: ElementKind.sectionFooter, at: sections.filter { store.sections[$0[0]].footer != nil })
        }
        return context
    }
}

/// One line of a flow section while it is being filled.
struct _Line {
    let start: Int
    let s: Double
    let fLeading: Double
    let available: Double
    let interitem: Double
    var count = 0
    var used = 0.0
    var length = 0.0

    init(start: Int, s: Double, fLeading: Double, available: Double, interitem: Double) {
        self.start = start
        self.s = s
        self.fLeading = fLeading
        self.available = available
        self.interitem = interitem
    }

    /// Appends an item with a provisional frame (its size is kept; its
    /// position is set when the line closes).
    mutating func append(width: Double, length itemLength: Double, to store: inout _FrameStore) {
        used = count == 0 ? width : used + interitem + width
        length = Swift.max(length, itemLength)
        count += 1
        store.itemFrames.append(store.direction.rect(s: s, f: 0, sLength: itemLength, fLength: width))
    }

    /// Places the line's items across the line and centers them on it, and
    /// records the line as a band. A line wider than the space it has (a
    /// single item wider than it) starts at the leading inset, whatever the
    /// alignment.
    func close(in store: inout _FrameStore, alignment: LineAlignment) {
        let direction = store.direction
        let end = start + count
        var (f, gap) = Self.placement(count: count, used: used, available: available, fLeading: fLeading, interitem: interitem, alignment: alignment)
        for index in start..<end {
            let size = store.itemFrames[index].size
            let itemLength = direction.sLength(size)
            let width = direction.fLength(size)
            store.itemFrames[index] = direction.rect(s: s + (length - itemLength) / 2, f: f, sLength: itemLength, fLength: width)
            f += width + gap
        }
        store.addBand(start: start, minS: s, maxS: s + length)
    }

    /// Where the first of a line's `count` items starts across it, and the
    /// gap between items, for items that take `used` of `available` (a
    /// line wider than it starts at the leading inset).
    static func placement(count: Int, used: Double, available: Double, fLeading: Double, interitem: Double, alignment: LineAlignment) -> (f: Double, gap: Double) {
        let free = Swift.max(0, available - used)
        switch alignment {
        case .justified where count == 1: return (fLeading + free / 2, interitem)
        case .justified: return (fLeading, interitem + free / Double(count - 1))
        case .leading: return (fLeading, interitem)
        case .center: return (fLeading + free / 2, interitem)
        case .trailing: return (fLeading + free, interitem)
        }
    }

    /// The lines of a section of `count` items of one size: as many items
    /// on a line as fit (one at least), found, and placed across the line,
    /// with the arithmetic that appending and closing lines item by item
    /// uses, so that both give the same frames.
    ///
    /// - Complexity: O(*p*) for *p* items on a line (at most `count`).
    static func uniformLines(
        count: Int, itemSize: Size, direction: ScrollDirection, firstS: Double, fLeading: Double,
        available: Double, interitem: Double, lineSpacing: Double,
        fullLineAlignment: LineAlignment, lastLineAlignment: LineAlignment
    ) -> _UniformLines {
        let width = direction.fLength(itemSize)
        let length = direction.sLength(itemSize)
        // used[j]: the length the first j + 1 items of a line take.
        var used: [Double] = []
        if count > 0 {
            used.append(width)
            while used.count < count, !(used[used.count - 1] + interitem + width > available + 1e-9) {
                used.append(used[used.count - 1] + interitem + width)
            }
        }
        let perLine = Swift.max(used.count, 1)
        let lineCount = count == 0 ? 0 : (count - 1) / perLine + 1
        func positions(_ items: Int, _ alignment: LineAlignment) -> [Double] {
            guard items > 0 else { return [] }
            var (f, gap) = placement(count: items, used: used[items - 1], available: available, fLeading: fLeading, interitem: interitem, alignment: alignment)
            var result: [Double] = []
            result.reserveCapacity(items)
            for _ in 0..<items {
                result.append(f)
                f += width + gap
            }
            return result
        }
        return _UniformLines(
            direction: direction, count: count, perLine: perLine, firstS: firstS, pitch: length + lineSpacing,
            sLength: length, fLength: width,
            fullLineF: lineCount > 1 ? positions(perLine, fullLineAlignment) : [],
            lastLineF: lineCount > 0 ? positions(count - (lineCount - 1) * perLine, lastLineAlignment) : []
        )
    }
}
