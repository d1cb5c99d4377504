#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// A vertical list, like a table view: full-width rows stacked in sections
/// with optional headers and footers.
///
/// Item width = content width − insets.left − insets.right. A header (if its
/// height is > 0) sits at `(insets.left, top, itemWidth, h)` when
/// ``insetSupplementaryViews`` is set, else at `(0, top, contentWidth, h)`;
/// then come the top inset, the items with ``interitemSpacing`` between
/// them, the footer like the header, and the bottom inset. The content is at
/// least as tall as the visible area unless ``hugContents`` is set.
///
/// Frames live in flat arrays; rect queries run in O(log *n* + *k*).
open class ListLayout: CollectionViewLayout {
    /// The height of every item, unless the delegate says otherwise. 36.
    public var itemHeight: Double = 36 { didSet { invalidateLayout() } }
    /// The spacing between items. 0.
    public var interitemSpacing: Double = 0 { didSet { invalidateLayout() } }
    /// The height of every header (0: none). 0.
    public var headerHeight: Double = 0 { didSet { invalidateLayout() } }
    /// The height of every footer (0: none). 0.
    public var footerHeight: Double = 0 { didSet { invalidateLayout() } }
    /// The insets of every section. Zero.
    public var sectionInsets = EdgeInsets.zero { didSet { invalidateLayout() } }
    /// Whether headers and footers are inset like the items. False.
    public var insetSupplementaryViews = false { didSet { invalidateLayout() } }
    /// Whether the content is exactly as tall as the sections, even when
    /// shorter than the visible area. False.
    public var hugContents = false { didSet { invalidateLayout() } }
    /// Per-item and per-section values.
    public weak var delegate: (any ListLayoutDelegate)? { didSet { invalidateLayout() } }

    var store = _FrameStore()
    /// The stores kept around batch updates.
    var buffers = _UpdateBuffers()
    var contentSize = Size.zero
    var preparedWidth: Double?

    /// Creates a list layout.
    public override init() {
        super.init()
    }

    /// Lays out every section, or only those from the first section an
    /// invalidation context names.
    ///
    /// Bad heights, insets and spacings are recorded in
    /// ``CollectionViewLayout/layoutError`` and replaced by zero.
    ///
    /// - Complexity: O(*n* + *s*) for the items and sections laid out; no
    ///   allocation per item.
    open override func prepare() {
        let context = pendingInvalidation
        super.prepare()
        guard let environment = collectionView else {
            store = _FrameStore()
            contentSize = .zero
            preparedWidth = nil
            return
        }
        let width = Swift.max(0, environment.bounds.size.width - environment.contentInset.left - environment.contentInset.right)
        let visibleHeight = Swift.max(0, environment.bounds.size.height - environment.contentInset.top - environment.contentInset.bottom)
        let sectionCount = environment.numberOfSections
        var first = store.numberOfSections
        if preparedWidth != width {
            first = 0
        } else if let context {
            first = Swift.min(context.firstSectionToRecompute ?? store.numberOfSections, store.numberOfSections)
        }
        first = Swift.min(first, sectionCount)
        buffers.takeSpare(for: &self.store, keepingSections: first)
        // Lay out into a local store: inout access to a local has no dynamic
        // exclusivity checks, which a stored property pays per item.
        var store = self.store
        self.store = _FrameStore()
        defer { self.store = store }
        if first == 0 {
            var total = 0
            for section in 0..<sectionCount { total += Swift.max(0, environment.numberOfItems(inSection: section)) }
            store.removeAll(reservingItems: total)
        } else {
            store.truncate(toSections: first)
        }
        for kept in store.sectionErrors { recordError(kept.error) }
        var sectionErrors: [(section: Int, error: LayoutError)] = []
        let check = _ValueCheck { [unowned self] error, section in
            recordError(error)
            if let section { sectionErrors.append((section, error)) }
        }
        let itemHeight = check.length(self.itemHeight, section: nil, .property("itemHeight"))
        let interitemSpacing = check.length(self.interitemSpacing, section: nil, .property("interitemSpacing"))
        let headerHeight = check.length(self.headerHeight, section: nil, .property("headerHeight"))
        let footerHeight = check.length(self.footerHeight, section: nil, .property("footerHeight"))
        let sectionInsets = check.insets(self.sectionInsets, section: nil, .property("sectionInsets"))
        let delegate = self.delegate

        var top = first > 0 ? store.sectionBounds[first - 1].maxY : 0
        for section in first..<sectionCount {
            let count = check.count(environment.numberOfItems(inSection: section), section: section)
            let insets = delegate?.listLayout(self, insetsForSectionAt: section).map { check.insets($0, section: section, .sectionInset(section: section)) } ?? sectionInsets
            let spacing = delegate?.listLayout(self, interitemSpacingForSectionAt: section).map { check.length($0, section: section, .interitemSpacing(section: section)) } ?? interitemSpacing
            let header = delegate?.listLayout(self, heightForHeaderInSection: section).map { check.length($0, section: section, .headerSize(section: section)) } ?? headerHeight
            let footer = delegate?.listLayout(self, heightForFooterInSection: section).map { check.length($0, section: section, .footerSize(section: section)) } ?? footerHeight
            let itemWidth = Swift.max(0, width - insets.left - insets.right)
            let supplementaryX = insetSupplementaryViews ? insets.left : 0
            let supplementaryWidth = insetSupplementaryViews ? itemWidth : width
            let sectionTop = top

            var headerFrame: Rect?
            if header > 0 {
                headerFrame = Rect(x: supplementaryX, y: top, width: supplementaryWidth, height: header)
                top += header
            }
            top += insets.top
            for item in 0..<count {
                var height = itemHeight
                if let delegate {
                    let path = IndexPath(item: item, section: section)
                    if let custom = delegate.listLayout(self, heightForItemAt: path) {
                        height = check.length(custom, section: section, .itemSize(path))
                    }
                }
                if item > 0 { top += spacing }
                store.itemFrames.append(Rect(x: insets.left, y: top, width: itemWidth, height: height))
                top += height
            }
            var footerFrame: Rect?
            if footer > 0 {
                footerFrame = Rect(x: supplementaryX, y: top, width: supplementaryWidth, height: footer)
                top += footer
            }
            top += insets.bottom
            store.endSection(
                bounds: Rect(x: 0, y: sectionTop, width: width, height: top - sectionTop),
                header: headerFrame, footer: footerFrame, itemsAreBands: true
            )
        }
        contentSize = Size(width: width, height: hugContents ? top : Swift.max(top, visibleHeight))
        preparedWidth = width
        store.sectionErrors += sectionErrors
        store.checkInvariants()
    }

    /// The size of the laid-out content.
    open override var collectionViewContentSize: Size { contentSize }

    // MARK: Updates

    package override func _captureStateBeforeUpdate() {
        buffers.capture(store)
    }

    /// An inserted item starts at its final frame with alpha 0; an item that
    /// moves or shifts starts where it was before the update (as UIKit's flow
    /// layout does).
    open override func initialLayoutAttributesForAppearingItem(at itemIndexPath: IndexPath) -> LayoutAttributes? {
        super.initialLayoutAttributesForAppearingItem(at: itemIndexPath)
            ?? buffers.previousItem(at: itemIndexPath, mapping: updateIndexMapping)
    }

    /// A header or footer of an inserted section starts at its final frame
    /// with alpha 0; any other starts where it was before the update.
    open override func initialLayoutAttributesForAppearingSupplementaryElement(ofKind elementKind: String, at elementIndexPath: IndexPath) -> LayoutAttributes? {
        super.initialLayoutAttributesForAppearingSupplementaryElement(ofKind: elementKind, at: elementIndexPath)
            ?? buffers.previousSupplementary(ofKind: elementKind, at: elementIndexPath, mapping: updateIndexMapping)
    }

    /// Forgets the update; the store before it becomes the spare buffers.
    open override func finalizeCollectionViewUpdates() {
        super.finalizeCollectionViewUpdates()
        buffers.finish()
    }

    /// The bytes the layout's frame storage reserves: what a prepared layout
    /// costs in memory beyond the object itself. After its first batch
    /// update a layout also keeps the previous frames' buffers for reuse
    /// (``spareStorageByteCount``).
    public var storageByteCount: Int { store.byteCount }

    /// The bytes of the spare frame buffers kept for the next batch update.
    public var spareStorageByteCount: Int { buffers.spareByteCount }

    /// Every header, footer and item whose frame intersects `rect`, in order:
    /// sections ascending, and in each section its header and footer, then
    /// its items ascending.
    ///
    /// - Complexity: O(log *n* + *k*) for *k* elements returned.
    open override func layoutAttributesForElements(in rect: Rect) -> [LayoutAttributes] {
        var result: [LayoutAttributes] = []
        store.forEachSection(meeting: rect) { section in
            let path = IndexPath(item: 0, section: section)
            if let frame = store.headerFrames[section], frame.intersects(rect) {
                result.append(.supplementaryView(ofKind: ElementKind.sectionHeader, at: path, frame: frame))
            }
            if let frame = store.footerFrames[section], frame.intersects(rect) {
                result.append(.supplementaryView(ofKind: ElementKind.sectionFooter, at: path, frame: frame))
            }
        } item: { section, item, frame in
            result.append(.cell(at: IndexPath(item: item, section: section), frame: frame))
        }
        return result
    }

    /// The attributes of an item, or `nil` when there is no such item.
    ///
    /// - Complexity: O(1).
    open override func layoutAttributesForItem(at indexPath: IndexPath) -> LayoutAttributes? {
        store.itemFrame(at: indexPath).map { .cell(at: indexPath, frame: $0) }
    }

    /// The attributes of a section's header or footer (index path
    /// `[section, 0]`), or `nil` when the section has none.
    ///
    /// - Complexity: O(1).
    open override func layoutAttributesForSupplementaryView(ofKind kind: String, at indexPath: IndexPath) -> LayoutAttributes? {
        guard indexPath.count >= 1, indexPath[0] >= 0, indexPath[0] < store.numberOfSections else { return nil }
        let section = indexPath[0]
        let path = IndexPath(item: 0, section: section)
        switch kind {
        case ElementKind.sectionHeader: return store.headerFrames[section].map { .supplementaryView(ofKind: kind, at: path, frame: $0) }
        case ElementKind.sectionFooter: return store.footerFrames[section].map { .supplementaryView(ofKind: kind, at: path, frame: $0) }
        default: return nil
        }
    }

    /// True only when the width changes.
    open override func shouldInvalidateLayout(forBoundsChange newBounds: Rect) -> Bool {
        guard let environment = collectionView else { return true }
        return newBounds.size.width != environment.bounds.size.width
    }
}
