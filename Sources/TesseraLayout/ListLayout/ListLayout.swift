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
    /// The height items start at before their fitted height is known; 0 (the
    /// default) turns self-sizing off. When it is above 0 the items size
    /// themselves: an item is as tall as the delegate says (or this estimate)
    /// until a collection view delivers its fitted height (see the TesseraView
    /// article “Self-sizing items”), and a change of one item's height costs
    /// O(log *n*) for the *n* items of its section. A negative, NaN or infinite
    /// value is recorded as an error and turns self-sizing off.
    public var estimatedItemHeight: Double = 0 { didSet { invalidateLayout() } }

    var preparedWidth: Double?

    package override var isSelfSizing: Bool { estimatedItemHeight > 0 && LayoutValue.isValidLength(estimatedItemHeight) }

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
    /// With ``estimatedItemHeight`` set, a context that names only items
    /// (as one made for a preferred size does) sets their heights in place:
    /// their sections are not laid out again.
    ///
    /// - Complexity: O(*n*) for the *n* items of the sections laid out, plus
    ///   O(*s*) for the *s* sections; one allocation per section laid out,
    ///   none per item. O(*k* log *m* + *s*) for a context that names only
    ///   *k* items of self-sizing sections of *m* items.
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
        if let context, preparedWidth == width, resizeInPlace(context, environment: environment) {
            let top = store.layOutOrigins()
            naturalContentSize = Size(width: width, height: hugContents ? top : Swift.max(top, visibleHeight))
            settleSizingAdjustments()
            return
        }
        if !LayoutValue.isValidLength(estimatedItemHeight) {
            recordError(LayoutError(subject: .property("estimatedItemHeight"), value: "\(estimatedItemHeight)"))
        }
        let selfSizing = isSelfSizing
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
            store.beginSection(section, itemCount: selfSizing ? 0 : count)
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
            if selfSizing {
                let fitted = fittedSizes.sizes(inSection: section)
                var heights = [Double](repeating: estimatedItemHeight, count: count)
                for item in 0..<count {
                    if let delegate, let custom = delegate.listLayout(self, heightForItemAt: IndexPath(item: item, section: section)) {
                        heights[item] = check.length(custom, section: section, .itemSize(IndexPath(item: item, section: section)))
                    }
                    if let fitted, let size = fitted[item] { heights[item] = size.height }
                }
                store.endSection(sizedList: _SizedList(
                    heights: heights, x: insets.left, width: itemWidth, firstS: top, spacing: spacing, header: headerFrame,
                    footerX: supplementaryX, footerWidth: supplementaryWidth, footerHeight: footer, bottomInset: insets.bottom, boundsWidth: width
                ))
                continue
            }
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
        settleSizingAdjustments()
    }

    /// Applies a context that names only items of self-sizing sections (as
    /// contexts for preferred sizes do) by setting their heights in place,
    /// without laying their sections out again. Returns `false`, changing
    /// nothing, when the context names anything else.
    ///
    /// - Complexity: O(*k* log *m* + *s*) for *k* items named, *m* items in
    ///   their sections and *s* sections.
    private func resizeInPlace(_ context: InvalidationContext, environment: any LayoutEnvironment) -> Bool {
        guard isSelfSizing, !context.invalidateEverything, !context.invalidateDataSourceCounts, !context.namesSectionsDirectly,
              context.updateIndexMapping == nil, context.invalidatedSupplementaryIndexPaths.isEmpty,
              context.invalidatedDecorationIndexPaths.isEmpty, !context.invalidatedItemIndexPaths.isEmpty,
              environment.numberOfSections == store.numberOfSections
        else { return false }
        var heights: [(IndexPath, Double)] = []
        heights.reserveCapacity(context.invalidatedItemIndexPaths.count)
        for path in context.invalidatedItemIndexPaths {
            guard path.count == 2, path[0] < store.numberOfSections, store.sizedLists[path[0]] != nil,
                  path[1] >= 0, path[1] < store.itemCount(inSection: path[0]),
                  environment.numberOfItems(inSection: path[0]) == store.itemCount(inSection: path[0])
            else { return false }
            var height = estimatedItemHeight
            if let fitted = fittedSizes[path] {
                height = fitted.height
            } else if let custom = delegate?.listLayout(self, heightForItemAt: path) {
                // A bad height makes the section be laid out again, which
                // records it.
                guard LayoutValue.isValidLength(custom) else { return false }
                height = custom
            }
            heights.append((path, height))
        }
        for (path, height) in heights { _ = store.setSizedItemHeight(height, at: path) }
        for section in store.sections where !section.errors.isEmpty {
            for error in section.errors { recordError(error) }
        }
        return true
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
