#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A vertical list, like a table view: full-width rows stacked in sections
/// with optional headers and footers.
///
/// Item width = content width − insets.left − insets.right. A header (if its
/// height is > 0) sits at `(insets.left, top, itemWidth, h)` when
/// ``insetSupplementaryViews`` is set, else at `(0, top, contentWidth, h)`;
/// then come the top inset, the items with ``interitemSpacing`` between
/// them, the footer like the header, and the bottom inset. The content is at
/// least as tall as the visible area unless ``hugContents`` is set, so a
/// change of the view's height invalidates it too.
///
/// The content is as wide as the view, and it encloses every frame (see
/// ``FrameStorageLayout``): when a section's insets are wider than the view,
/// its items have no width and sit at its left inset, past the view's
/// width, and the content grows across to them.
///
/// Frames live in flat arrays per section; rect queries run in O(log *n* + *k*).
open class ListLayout: FrameStorageLayout {
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

    var preparedWidth: Double?

    /// Creates a list layout.
    public init() {
        super.init(direction: .vertical)
    }

    /// Lays out the sections an invalidation context names and shifts the
    /// others (see ``FrameStorageLayout`` for which it keeps; a kept
    /// section's delegate answers are assumed unchanged).
    ///
    /// Bad heights, insets and spacings are recorded in
    /// ``CollectionViewLayout/layoutError`` and replaced by zero.
    ///
    /// - Complexity: O(*n*) for the *n* items of the sections laid out, plus
    ///   O(*s*) for the *s* sections; one allocation per section laid out,
    ///   none per item.
    open override func prepare() {
        let context = pendingInvalidation
        super.prepare()
        guard let environment = collectionView else {
            clearFrames()
            preparedWidth = nil
            return
        }
        let visible = visibleSize(in: environment)
        let width = visible.width
        let visibleHeight = visible.height
        let plan = sectionPlan(context: context, framesStillValid: preparedWidth == width, hasDelegate: delegate != nil, environment: environment)
        var (store, check) = beginPass(plan: plan, direction: .vertical)
        let itemHeight = check.length(self.itemHeight, section: nil, .property("itemHeight"))
        let interitemSpacing = check.length(self.interitemSpacing, section: nil, .property("interitemSpacing"))
        let headerHeight = check.length(self.headerHeight, section: nil, .property("headerHeight"))
        let footerHeight = check.length(self.footerHeight, section: nil, .property("footerHeight"))
        let sectionInsets = check.insets(self.sectionInsets, section: nil, .property("sectionInsets"))
        let delegate = self.delegate

        for section in plan.sectionsToLayOut {
            let count = check.count(environment.numberOfItems(inSection: section), section: section)
            store.beginSection(section, itemCount: count)
            let insets = delegate?.listLayout(self, insetsForSectionAt: section).map { check.insets($0, section: section, .sectionInset(section: section)) } ?? sectionInsets
            let spacing = delegate?.listLayout(self, interitemSpacingForSectionAt: section).map { check.length($0, section: section, .interitemSpacing(section: section)) } ?? interitemSpacing
            let header = delegate?.listLayout(self, heightForHeaderInSection: section).map { check.length($0, section: section, .headerSize(section: section)) } ?? headerHeight
            let footer = delegate?.listLayout(self, heightForFooterInSection: section).map { check.length($0, section: section, .footerSize(section: section)) } ?? footerHeight
            let itemWidth = Swift.max(0, width - insets.left - insets.right)
            let supplementaryX = insetSupplementaryViews ? insets.left : 0
            let supplementaryWidth = insetSupplementaryViews ? itemWidth : width
            // The section is laid out from its own origin.
            var top = 0.0

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
                bounds: Rect(x: 0, y: 0, width: width, height: top),
                header: headerFrame, footer: footerFrame, itemsAreBands: true, extent: top
            )
        }
        let top = endPass(store)
        naturalContentSize = Size(width: width, height: hugContents ? top : Swift.max(top, visibleHeight))
        preparedWidth = width
    }

    // MARK: Updates

    /// True when the width changes (items are as wide as the content) and,
    /// unless ``hugContents`` is set, when the height changes (the content
    /// is at least as tall as the visible area).
    open override func shouldInvalidateLayout(forBoundsChange newBounds: Rect) -> Bool {
        guard let environment = collectionView else { return true }
        let size = environment.bounds.size
        return newBounds.size.width != size.width || (!hugContents && newBounds.size.height != size.height)
    }

    /// Everything when the width changes; for a change of height alone, a
    /// context that names nothing: no section is laid out again, and the
    /// next ``prepare()`` only works the content height out anew.
    ///
    /// - Complexity: O(1).
    open override func invalidationContext(forBoundsChange newBounds: Rect) -> InvalidationContext {
        guard let environment = collectionView, newBounds.size.width == environment.bounds.size.width else { return .everything() }
        return InvalidationContext()
    }
}
