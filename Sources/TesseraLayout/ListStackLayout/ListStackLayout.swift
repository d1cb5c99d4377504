#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// IGListKit's `IGListCollectionViewLayout`: items of consecutive sections
/// flow on the same rows, with optional (sticky) headers and footers.
///
/// ```swift
/// let layout = ListStackLayout(stickyHeaders: true)
/// layout.itemSize = Size(width: 100, height: 44)
/// layout.headerLength = 30
/// layout.collectionView = StaticLayoutEnvironment(size: Size(width: 390, height: 844), itemCounts: [3, 5])
/// layout.prepare()
/// let visible = layout.layoutAttributesForElements(in: Rect(x: 0, y: 0, width: 390, height: 844))
/// ```
///
/// Vertically (horizontal mirrors it, S being the scroll axis and F the
/// fixed one), one running state crosses every section: the S of the current
/// row, the F of the next item, and the S of the next row. A section moves
/// both S values down by its header length and the F value right by its
/// leading inset; each item, capped to the width between the section's
/// insets, starts a new row when it would end more than 1 point past the
/// trailing inset (a 1-point epsilon), or when it is the first item of a
/// section with a header. A new row starts at the next row's S, at the
/// leading inset, after the line spacing unless it holds the section's first
/// item. So a section without a header continues the row the previous
/// section left off. With ``stretchToEdge``, an item that would end within
/// 1 point short of the section's width is stretched to it. Frames are
/// snapped to the pixel grid of ``screenScale``: origin floored, size ceiled.
///
/// A section's header sits just before its first item (or where the previous
/// section ends, for an empty section), its footer after the section's
/// bounds; both span the width between the insets. An empty section has no
/// header or footer unless ``showHeaderWhenEmpty`` is set. With
/// ``stickyHeaders`` a header stays at the top of the visible area (plus
/// ``topContentInset`` and ``stickyHeaderYOffset``) until the next section
/// pushes it away; the last section's header stops where the content ends.
/// Items have z-index `section · 1000 + item`, headers and footers
/// `section · 1000 + 999`.
///
/// The content encloses every frame (see ``FrameStorageLayout``), and that
/// is where Tessera deliberately differs from IGListKit, in three ways:
/// - The content size. IGListKit's content ends with the last section's
///   bounds (plus its trailing inset): an earlier section can reach further,
///   when a tall item sits on a row that later sections leave, and the
///   content would then cut it off. Here the content ends with the section
///   that reaches furthest (trailing inset included), and across it is as
///   wide as the container or, when IGListKit's 1-point epsilon, pixel
///   snapping or insets wider than the container put a frame past the
///   container's edge, as that frame.
/// - The last sticky header. IGListKit lets it follow the visible area
///   without limit, past the end of the content when
///   ``topContentInset`` plus ``stickyHeaderYOffset`` plus its length
///   exceed the visible length. Here it stops where the content ends, as
///   UIKit's flow layout stops a pinned header at the end of its section,
///   so at every content offset a collection view allows it stays within
///   the content.
/// - The content's origin. Pixel snapping floors the first row's origin,
///   so with a header length off the pixel grid (half a point at a screen
///   scale of 1, say) IGListKit puts the first header, resting or sticky,
///   a fraction of a point before the content's origin. Here no header
///   starts before the origin: it starts at 0, over its row by that
///   fraction.
///
/// The frames themselves are IGListKit's; whenever the last section reaches
/// furthest and nothing pokes out, so is the content size, and the last
/// header differs only once it would pass the end of the content.
///
/// Frames live in flat arrays per section; attributes are made only for what a query
/// returns, and rect queries run in O(log *n* + *k*).
open class ListStackLayout: FrameStorageLayout {
    /// The scroll direction.
    public let scrollDirection: ScrollDirection
    /// Whether headers stay at the top of the visible area while their
    /// section is visible.
    public let stickyHeaders: Bool
    /// The distance from the top of the visible area at which sticky headers
    /// stop (the height of a bar over the collection view, say).
    public let topContentInset: Double
    /// Whether an item that ends within 1 point short of its section's width
    /// is stretched to it.
    public let stretchToEdge: Bool

    /// Whether a section with no items still shows its header and footer.
    /// False.
    public var showHeaderWhenEmpty = false { didSet { invalidateLayout() } }
    /// A further adjustment of where sticky headers stop, along the scroll
    /// axis. 0. Changing it recomputes nothing: sticky positions are found
    /// at query time.
    public var stickyHeaderYOffset: Double = 0 {
        didSet {
            guard stickyHeaderYOffset != oldValue else { return }
            invalidateLayout(with: stickyHeaderContext(meeting: boundsInDevelopmentDirection))
        }
    }
    /// The screen scale whose pixel grid item frames are snapped to. 2.
    public var screenScale: Double = 2 { didSet { invalidateLayout() } }
    /// The size of every item, unless the delegate says otherwise. 50×50.
    public var itemSize = Size(width: 50, height: 50) { didSet { invalidateLayout() } }
    /// The insets of every section. Zero.
    public var sectionInset = EdgeInsets.zero { didSet { invalidateLayout() } }
    /// The spacing between the rows of a section. 0.
    public var minimumLineSpacing: Double = 0 { didSet { invalidateLayout() } }
    /// The spacing after each item on its row. 0.
    public var minimumInteritemSpacing: Double = 0 { didSet { invalidateLayout() } }
    /// The length of every header along the scroll axis (0: none). 0.
    public var headerLength: Double = 0 { didSet { invalidateLayout() } }
    /// The length of every footer along the scroll axis (0: none). 0.
    public var footerLength: Double = 0 { didSet { invalidateLayout() } }
    /// Per-item and per-section values.
    public weak var delegate: (any ListStackLayoutDelegate)? { didSet { invalidateLayout() } }
    /// The size items start at before their fitted size is known; zero (the
    /// default) turns self-sizing off. When it is not zero the items size
    /// themselves: an item has the delegate's size (or this estimate, in place
    /// of ``itemSize``) until a collection view delivers its fitted size (see
    /// the TesseraView article “Self-sizing items”), and the sections from its
    /// own on are laid out again where their rows move. A bad value is recorded
    /// as an error and turns self-sizing off.
    public var estimatedItemSize = Size.zero { didSet { invalidateLayout() } }

    package override var isSelfSizing: Bool { estimatedItemSize != .zero && estimatedItemSize.isValid }

    /// Per section: its bounds and the row state after it.
    var sectionStates: [_ListStackSectionState] = []
    var preparedFixedLength: Double?
    var preparedScale: Double?
    var isPrepared = false

    /// Creates a layout, with IGListKit's parameters.
    ///
    /// - Parameters:
    ///   - scrollDirection: The scroll direction.
    ///   - stickyHeaders: Whether headers stick to the top of the visible area.
    ///   - topContentInset: Where sticky headers stop, from the top of the
    ///     visible area.
    ///   - stretchToEdge: Whether items that end within 1 point short of the
    ///     section's width are stretched to it.
    public init(
        scrollDirection: ScrollDirection = .vertical,
        stickyHeaders: Bool = false,
        topContentInset: Double = 0,
        stretchToEdge: Bool = false
    ) {
        self.scrollDirection = scrollDirection
        self.stickyHeaders = stickyHeaders
        self.topContentInset = topContentInset
        self.stretchToEdge = stretchToEdge
        super.init(direction: scrollDirection)
    }

    // MARK: Preparing

    /// Lays out the sections an invalidation context names (see
    /// ``FrameStorageLayout`` for which those are), each from the row state
    /// (row S, next item's F, next row's S) and bounds the section before it
    /// ends with, so the result equals a full prepare. Sections share rows,
    /// so a section is kept only when it starts from the very row state it
    /// started from before: a batch that changes a section's extent lays
    /// out the sections after it again (unlike the other layouts, which shift
    /// them). A context that names only
    /// supplementary views (sticky headers after a scroll) recomputes
    /// nothing: sticky positions are found at query time.
    ///
    /// Bad sizes, insets, spacings and lengths are recorded in
    /// ``CollectionViewLayout/layoutError`` and replaced by zero; a bad
    /// ``screenScale`` is replaced by 1, and a ``topContentInset`` or
    /// ``stickyHeaderYOffset`` that is not finite or beyond
    /// ``LayoutValue/maximumLength`` either way by 0 (``LayoutValue``).
    ///
    /// - Complexity: O(*n* + *s*) for the *n* items laid out and the *s*
    ///   sections; no allocation per item.
    open override func prepare() {
        let context = pendingInvalidation
        super.prepare()
        guard let environment = collectionView else {
            store = _FrameStore(direction: scrollDirection, stacksSections: false)
            store.layOutOrigins()
            sectionStates = []
            naturalContentSize = .zero
            isPrepared = false
            return
        }
        let direction = scrollDirection
        let fixedLength = direction.fLength(visibleSize(in: environment))
        var scale = screenScale
        if !LayoutValue.isValidScale(scale) {
            recordError(LayoutError(subject: .property("screenScale"), value: "\(scale)"))
            scale = 1
        }
        if !LayoutValue.isValidOffset(topContentInset) { recordError(LayoutError(subject: .property("topContentInset"), value: "\(topContentInset)")) }
        if !LayoutValue.isValidOffset(stickyHeaderYOffset) { recordError(LayoutError(subject: .property("stickyHeaderYOffset"), value: "\(stickyHeaderYOffset)")) }
        let sectionCount = environment.numberOfSections
        let stillValid = isPrepared && preparedFixedLength == fixedLength && preparedScale == scale
            && store.direction == direction && sectionStates.count == store.numberOfSections
        let plan = sectionPlan(context: context, framesStillValid: stillValid, hasDelegate: delegate != nil, environment: environment)
        var (store, check) = beginPass(plan: plan, direction: direction, stacksSections: false)
        let oldStates = self.sectionStates
        var states: [_ListStackSectionState] = []
        states.reserveCapacity(sectionCount)
        let selfSizing = isSelfSizing
        if estimatedItemSize != .zero && !estimatedItemSize.isValid {
            recordError(LayoutError(subject: .property("estimatedItemSize"), value: "\(estimatedItemSize)"))
        }
        let itemSize = selfSizing ? estimatedItemSize : check.size(self.itemSize, section: nil, .property("itemSize"))
        let lineSpacingDefault = check.length(minimumLineSpacing, section: nil, .property("minimumLineSpacing"))
        let interitemSpacingDefault = check.length(minimumInteritemSpacing, section: nil, .property("minimumInteritemSpacing"))
        let sectionInset = check.insets(self.sectionInset, section: nil, .property("sectionInset"))
        let headerLengthDefault = check.length(headerLength, section: nil, .property("headerLength"))
        let footerLengthDefault = check.length(footerLength, section: nil, .property("footerLength"))
        let delegate = self.delegate

        var cursor = _ListStackCursor()
        // The union of the section's elements so far; before a section's
        // first item, the bounds of the section before it (where an empty
        // section's header goes).
        var rolling = Rect.zero
        for section in 0..<sectionCount {
            // Sections share rows: a section the plan keeps keeps its frames
            // only when it starts from the very row state it started from
            // before; otherwise it is laid out again.
            let source = plan.kept[section]
            if source >= 0 {
                let entryCursor = source > 0 ? oldStates[source - 1].end : _ListStackCursor()
                let entryRolling = source > 0 ? oldStates[source - 1].bounds : Rect.zero
                if entryCursor == cursor && entryRolling == rolling {
                    let kept = oldStates[source]
                    cursor = kept.end
                    rolling = kept.bounds
                    let contentEnd = Swift.max(states.last?.contentEnd ?? 0, kept.sectionEnd)
                    states.append(_ListStackSectionState(bounds: kept.bounds, sectionEnd: kept.sectionEnd, contentEnd: contentEnd, end: kept.end))
                    continue
                }
            }
            let count = check.count(environment.numberOfItems(inSection: section), section: section)
            store.beginSection(section, itemCount: count)
            let fitted = selfSizing ? fittedSizes.sizes(inSection: section) : nil
            let inset = delegate?.listStackLayout(self, insetForSectionAt: section).map { check.insets($0, section: section, .sectionInset(section: section)) } ?? sectionInset
            let lineSpacing = delegate?.listStackLayout(self, minimumLineSpacingForSectionAt: section).map { check.length($0, section: section, .lineSpacing(section: section)) } ?? lineSpacingDefault
            let interitem = delegate?.listStackLayout(self, minimumInteritemSpacingForSectionAt: section).map { check.length($0, section: section, .interitemSpacing(section: section)) } ?? interitemSpacingDefault
            let headerValue = delegate?.listStackLayout(self, lengthForHeaderInSection: section).map { check.length($0, section: section, .headerSize(section: section)) } ?? headerLengthDefault
            let footerValue = delegate?.listStackLayout(self, lengthForFooterInSection: section).map { check.length($0, section: section, .footerSize(section: section)) } ?? footerLengthDefault
            let hidden = count == 0 && !showHeaderWhenEmpty
            let headerLen = hidden ? 0 : headerValue
            let footerLen = hidden ? 0 : footerValue
            let (sLeading, sTrailing, fLeading, fTrailing) = direction.split(inset)
            let padF = Swift.max(0, fixedLength - fLeading - fTrailing)
            let maxF = fixedLength - fTrailing

            cursor.itemS += headerLen
            cursor.nextRowS += headerLen
            cursor.itemF += fLeading

            let firstBand = 0
            var row = _ListStackRow(start: store.itemFrames.count, minS: 0, maxS: 0)
            for item in 0..<count {
                var size = itemSize
                if let delegate {
                    let path = IndexPath(item: item, section: section)
                    if let custom = delegate.listStackLayout(self, sizeForItemAt: path) {
                        size = check.size(custom, section: section, .itemSize(path))
                    }
                }
                if let fitted, let fittedSize = fitted[item] { size = fittedSize }
                var lengthF = Swift.min(direction.fLength(size), padF)
                let newline = cursor.itemF + lengthF > maxF + 1 || (item == 0 && headerLen > 0)
                if newline {
                    cursor.itemS = cursor.nextRowS
                    cursor.itemF = fLeading
                    if item > 0 { cursor.itemS += lineSpacing }
                }
                if stretchToEdge {
                    let distance = padF - (cursor.itemF + lengthF)
                    if distance > 0 && distance <= 1 { lengthF = padF - cursor.itemF }
                }
                let frame = Self.snapped(
                    direction.rect(s: cursor.itemS + sLeading, f: cursor.itemF, sLength: direction.sLength(size), fLength: lengthF),
                    scale: scale
                )
                let flat = store.itemFrames.count
                store.itemFrames.append(frame)
                if item > 0 && newline {
                    row.close(in: &store, firstBand: firstBand)
                    row = _ListStackRow(start: flat, minS: direction.minS(frame), maxS: direction.maxS(frame))
                } else if item == 0 {
                    row = _ListStackRow(start: flat, minS: direction.minS(frame), maxS: direction.maxS(frame))
                } else {
                    row.add(minS: direction.minS(frame), maxS: direction.maxS(frame))
                }
                cursor.nextRowS = Swift.max(direction.maxS(frame) - sLeading, cursor.nextRowS)
                cursor.itemF += lengthF + interitem
                rolling = item == 0 ? frame : rolling.union(frame)
            }
            if count > 0 { row.close(in: &store, firstBand: firstBand) }

            // Snapping floors the first row's S, which can put a header that
            // starts the content a fraction of a point before its origin:
            // it starts at the origin instead.
            let headerS = count == 0 ? direction.maxS(rolling) : Swift.max(0, direction.minS(rolling) - headerLen)
            let header = direction.rect(s: headerS, f: fLeading, sLength: headerLen, fLength: padF)
            if count == 0 { rolling = header }
            let footerS = direction.maxS(rolling) + (direction == .horizontal ? sTrailing : 0)
            let footer = direction.rect(s: footerS, f: fLeading, sLength: footerLen, fLength: padF)
            if headerLen > 0 { rolling = rolling.union(header) }
            if footerLen > 0 { rolling = rolling.union(footer) }

            cursor.itemF += fTrailing
            cursor.nextRowS = Swift.max(cursor.nextRowS, direction.maxS(rolling) + sTrailing)
            store.endSection(
                bounds: rolling,
                header: headerLen > 0 && padF > 0 ? header : nil,
                footer: footerLen > 0 && padF > 0 ? footer : nil,
                itemsAreBands: false,
                extent: 0
            )
            // IGListKit ends the content at the last section; an earlier
            // section can reach further (a tall item on a row that later
            // sections leave), so the content ends where the furthest does.
            // Across, the content grows to any frame past the container's
            // edge (FrameStorageLayout).
            let sectionEnd = direction.maxS(rolling) + sTrailing
            let contentEnd = Swift.max(states.last?.contentEnd ?? 0, sectionEnd)
            states.append(_ListStackSectionState(bounds: rolling, sectionEnd: sectionEnd, contentEnd: contentEnd, end: cursor))
        }
        endPass(store)
        sectionStates = states
        Self.indexSections(in: &self.store, states: states, stickyHeaders: stickyHeaders)
        if let last = states.last {
            let end = last.contentEnd
            naturalContentSize = direction == .vertical
                ? Size(width: fixedLength, height: end)
                : Size(width: end, height: fixedLength)
        } else {
            naturalContentSize = .zero
        }
        preparedFixedLength = fixedLength
        preparedScale = scale
        isPrepared = true
        settleSizingAdjustments()
    }

    /// A frame snapped to the pixel grid as IGListKit does: origin floored,
    /// size ceiled, at `scale`.
    static func snapped(_ rect: Rect, scale: Double) -> Rect {
        Rect(
            x: (rect.origin.x * scale).rounded(.down) / scale,
            y: (rect.origin.y * scale).rounded(.down) / scale,
            width: (rect.size.width * scale).rounded(.up) / scale,
            height: (rect.size.height * scale).rounded(.up) / scale
        )
    }

    // MARK: Updates

    /// Where an appearing item starts (as ``FrameStorageLayout`` decides),
    /// with the item's z-index.
    open override func initialLayoutAttributesForAppearingItem(at itemIndexPath: IndexPath) -> LayoutAttributes? {
        guard itemIndexPath.count == 2, var attributes = super.initialLayoutAttributesForAppearingItem(at: itemIndexPath) else { return nil }
        attributes.zIndex = Self.zIndex(section: itemIndexPath[0], item: itemIndexPath[1])
        return attributes
    }

    /// Where an appearing header or footer starts (as ``FrameStorageLayout``
    /// decides), with the supplementary z-index.
    open override func initialLayoutAttributesForAppearingSupplementaryElement(ofKind elementKind: String, at elementIndexPath: IndexPath) -> LayoutAttributes? {
        guard !elementIndexPath.isEmpty,
              var attributes = super.initialLayoutAttributesForAppearingSupplementaryElement(ofKind: elementKind, at: elementIndexPath)
        else { return nil }
        attributes.zIndex = Self.supplementaryZIndex(section: elementIndexPath[0])
        return attributes
    }

    /// The row state kept per section counts in ``storageByteCount`` (about
    /// 56 bytes per section).
    override var additionalStorageByteCount: Int {
        sectionStates.capacity * MemoryLayout<_ListStackSectionState>.stride
    }

    // MARK: Queries

    /// Every header, footer and item whose frame intersects `rect` (elements
    /// that only touch it are left out), sticky headers where they stick, in
    /// order: sections ascending, and in each section its header and footer,
    /// then its items ascending. When the layout is flipped, the search runs
    /// on the mirrored rect and the frames returned are mirrored.
    ///
    /// - Complexity: O(log *n* + *k*) for *k* elements returned.
    open override func layoutAttributesForElements(in rect: Rect) -> [LayoutAttributes] {
        var result: [LayoutAttributes] = []
        // Flipped, the search runs on the mirrored rect and every frame
        // found is mirrored back and tested against `rect`.
        let width = flipWidth
        let searched = width.map { Self.searchRect(mirroring: rect, inWidth: $0) } ?? rect
        store.forEachSection(meeting: searched) { section in
            for kind in Self.headerAndFooter {
                if var attributes = supplementaryAttributes(ofKind: kind, section: section) {
                    if let width { attributes.frame = attributes.frame.mirroredHorizontally(inWidth: width) }
                    if attributes.frame.intersects(rect) { result.append(attributes) }
                }
            }
        } item: { section, item, frame in
            let frame = width.map { frame.mirroredHorizontally(inWidth: $0) } ?? frame
            guard width == nil || frame.intersects(rect) else { return }
            var attributes = LayoutAttributes.cell(at: IndexPath(item: item, section: section), frame: frame)
            attributes.zIndex = Self.zIndex(section: section, item: item)
            result.append(attributes)
        }
        return result
    }

    /// The attributes of an item, or `nil` when there is no such item.
    ///
    /// - Complexity: O(1).
    open override func layoutAttributesForItem(at indexPath: IndexPath) -> LayoutAttributes? {
        guard let frame = store.itemFrame(at: indexPath) else { return nil }
        var attributes = LayoutAttributes.cell(at: indexPath, frame: flippedHorizontally(frame))
        attributes.zIndex = Self.zIndex(section: indexPath[0], item: indexPath[1])
        return attributes
    }

    /// The attributes of a section's header or footer (kinds
    /// ``ElementKind/sectionHeader`` and ``ElementKind/sectionFooter``, index
    /// path `[section, 0]`), the header where it sticks when headers are
    /// sticky (read from the bounds mirrored when the layout is flipped),
    /// mirrored when the layout is flipped; `nil` when the section has none.
    ///
    /// - Complexity: O(1).
    open override func layoutAttributesForSupplementaryView(ofKind kind: String, at indexPath: IndexPath) -> LayoutAttributes? {
        guard indexPath.count >= 1 else { return nil }
        return supplementaryAttributes(ofKind: kind, section: indexPath[0]).map(flippedHorizontally)
    }

    private func supplementaryAttributes(ofKind kind: String, section: Int) -> LayoutAttributes? {
        guard section >= 0 && section < store.numberOfSections && section < sectionStates.count else { return nil }
        let path = IndexPath(item: 0, section: section)
        let frame: Rect
        switch kind {
        case ElementKind.sectionHeader:
            guard let resting = store.headerFrame(section) else { return nil }
            frame = stickyHeaders ? stuck(resting, section: section) : resting
        case ElementKind.sectionFooter:
            guard let resting = store.footerFrame(section) else { return nil }
            frame = resting
        default:
            return nil
        }
        var attributes = LayoutAttributes.supplementaryView(ofKind: kind, at: path, frame: frame)
        attributes.zIndex = Self.supplementaryZIndex(section: section)
        return attributes
    }

    /// A header moved to where it sticks: at the top of the visible area
    /// (plus the top content inset and the sticky offset), but not before
    /// its section's start nor past the next section's start minus its own
    /// length (IGListKit's rule) or, for the last section, past the end of
    /// the content minus its own length, and never before the content's
    /// origin (so it stays within the content).
    private func stuck(_ header: Rect, section: Int) -> Rect {
        let direction = store.direction
        let offset = collectionView == nil ? 0 : direction.s(boundsInDevelopmentDirection.origin)
        let top = offset + (LayoutValue.isValidOffset(topContentInset) ? topContentInset : 0)
            + (LayoutValue.isValidOffset(stickyHeaderYOffset) ? stickyHeaderYOffset : 0)
        let stop = section + 1 < sectionStates.count
            ? direction.minS(sectionStates[section + 1].bounds)
            : sectionStates[section].contentEnd
        let s = Swift.max(0, Swift.min(Swift.max(direction.minS(sectionStates[section].bounds), top), stop - direction.sLength(header.size)))
        return direction == .vertical
            ? Rect(x: header.origin.x, y: s, width: header.size.width, height: header.size.height)
            : Rect(x: s, y: header.origin.y, width: header.size.width, height: header.size.height)
    }

    /// The z-index of an item: `section · 1000 + item`.
    static func zIndex(section: Int, item: Int) -> Int { section &* 1000 &+ item }

    /// The z-index of a header or footer: `section · 1000 + 999`.
    static func supplementaryZIndex(section: Int) -> Int { section &* 1000 &+ 999 }

    // MARK: Invalidation

    /// True when the size changes; on a change of the scroll-axis origin
    /// (a scroll) only when headers are sticky.
    open override func shouldInvalidateLayout(forBoundsChange newBounds: Rect) -> Bool {
        guard let environment = collectionView else { return true }
        let old = environment.bounds
        if newBounds.size != old.size { return true }
        if scrollDirection.minS(newBounds) != scrollDirection.minS(old) { return stickyHeaders }
        return false
    }

    /// Everything when the size changes; otherwise (a scroll) only the
    /// headers of the sections that may show in the old or the new bounds,
    /// when headers are sticky, which recomputes nothing.
    ///
    /// - Complexity: O(log *s* + *r*) for *r* sections visible before or after.
    open override func invalidationContext(forBoundsChange newBounds: Rect) -> InvalidationContext {
        guard let environment = collectionView, newBounds.size == environment.bounds.size else { return .everything() }
        return stickyHeaderContext(meeting: flippedHorizontally(environment.bounds.union(newBounds)))
    }

    /// A context naming the headers whose sticky frames may meet `rect`
    /// (nothing when headers are not sticky).
    private func stickyHeaderContext(meeting rect: Rect) -> InvalidationContext {
        let context = InvalidationContext()
        context.invalidatesPositionsOnly = true
        guard stickyHeaders else { return context }
        var sections = Array(store.sections(meeting: rect))
        let last = store.numberOfSections - 1
        if last >= 0 && sections.last != last { sections.append(last) }
        let paths = sections.filter { store.sections[$0].header != nil }.map { IndexPath(item: 0, section: $0) }
        context.invalidateSupplementaryElements(ofKind: ElementKind.sectionHeader, at: paths)
        return context
    }
}
