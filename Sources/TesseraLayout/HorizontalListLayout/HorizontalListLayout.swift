#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A single horizontally scrolling row of items, across every section.
///
/// ```swift
/// let layout = HorizontalListLayout()
/// layout.itemWidth = 120
/// layout.sectionInsets = EdgeInsets(top: 8, left: 16, bottom: 8, right: 16)
/// layout.collectionView = StaticLayoutEnvironment(size: Size(width: 390, height: 160), itemCounts: [20])
/// layout.prepare()
/// ```
///
/// A section starts after its left inset; its items follow left to right,
/// ``itemSpacing`` apart, and its right inset ends it; sections abut. Every
/// item is as tall as the view (the bounds less the content inset) minus
/// its section's top and bottom insets, and starts at the top inset. When
/// ``centerContent`` is set and the content is narrower than the view, the
/// content is moved right by half the difference and the content is as
/// wide as the view.
///
/// Right to left (see ``CollectionViewLayout/isFlippedHorizontally``) the
/// frames are mirrored across the content's width: the first item is at
/// the right end, and a collection view starts scrolled there.
///
/// The content encloses every frame (see ``FrameStorageLayout``): when a
/// section's insets are taller than the view, its items have no height and
/// sit at its top inset, below the view, and the content grows down to
/// them.
///
/// Frames live in a flat array per section; items are in x order, so rect queries run
/// in O(log *n* + *k*).
open class HorizontalListLayout: FrameStorageLayout {
    /// The width of every item, unless the delegate says otherwise. 100.
    public var itemWidth: Double = 100 { didSet { invalidateLayout() } }
    /// The spacing between the items of a section. 8.
    public var itemSpacing: Double = 8 { didSet { invalidateLayout() } }
    /// The insets of every section. Zero.
    public var sectionInsets = EdgeInsets.zero { didSet { invalidateLayout() } }
    /// Whether content narrower than the view is centered in it. True.
    public var centerContent = true { didSet { invalidateLayout() } }
    /// Per-item and per-section values.
    public weak var delegate: (any HorizontalListLayoutDelegate)? { didSet { invalidateLayout() } }

    var preparedSize: Size?
    /// How far the frames were moved right to center them (0: not moved).
    var centeringOffset = 0.0

    /// Creates a horizontal list layout.
    public init() {
        super.init(direction: .horizontal)
    }

    // MARK: Preparing

    /// Lays out every section, or only those an invalidation context names
    /// (see ``FrameStorageLayout``). Centering moves the sections' origins,
    /// not their frames, so centered content is laid out no more than any
    /// other.
    ///
    /// Bad widths, insets and spacings are recorded in
    /// ``CollectionViewLayout/layoutError`` and replaced by zero.
    ///
    /// - Complexity: O(*n*) for the *n* items of the sections laid out,
    ///   plus O(*s*) for the *s* sections; no allocation per item.
    open override func prepare() {
        let context = pendingInvalidation
        super.prepare()
        guard let environment = collectionView else {
            clearFrames(direction: .horizontal)
            preparedSize = nil
            centeringOffset = 0
            return
        }
        let viewSize = visibleSize(in: environment)
        let plan = sectionPlan(context: context, framesStillValid: preparedSize == viewSize, hasDelegate: delegate != nil, environment: environment)
        var (store, check) = beginPass(plan: plan, direction: .horizontal)
        let itemWidth = check.length(self.itemWidth, section: nil, .property("itemWidth"))
        let itemSpacing = check.length(self.itemSpacing, section: nil, .property("itemSpacing"))
        let sectionInsets = check.insets(self.sectionInsets, section: nil, .property("sectionInsets"))
        let delegate = self.delegate

        for section in plan.sectionsToLayOut {
            let count = check.count(environment.numberOfItems(inSection: section), section: section)
            store.beginSection(section, itemCount: count)
            let insets = delegate?.horizontalListLayout(self, insetsForSectionAt: section).map { check.insets($0, section: section, .sectionInset(section: section)) } ?? sectionInsets
            let height = Swift.max(0, viewSize.height - insets.top - insets.bottom)
            // The section is laid out from its own origin.
            var x = insets.left
            for item in 0..<count {
                var width = itemWidth
                if let delegate {
                    let path = IndexPath(item: item, section: section)
                    if let custom = delegate.horizontalListLayout(self, widthForItemAt: path) {
                        width = check.length(custom, section: section, .itemSize(path))
                    }
                }
                if item > 0 { x += itemSpacing }
                store.itemFrames.append(Rect(x: x, y: insets.top, width: width, height: height))
                x += width
            }
            x += insets.right
            store.endSection(
                bounds: Rect(x: 0, y: 0, width: x, height: viewSize.height),
                header: nil, footer: nil, itemsAreBands: true, extent: x
            )
        }
        let x = endPass(store)
        centeringOffset = 0
        if centerContent && x < viewSize.width {
            // Centering moves the first section's origin, and every other
            // with it: no frame is laid out again.
            centeringOffset = (viewSize.width - x) / 2
            self.store.layOutOrigins(base: centeringOffset)
            naturalContentSize = viewSize
        } else {
            naturalContentSize = Size(width: x, height: viewSize.height)
        }
        preparedSize = viewSize
    }

    // MARK: Invalidation

    /// True when the view's size changes: its height sets the items'
    /// heights, and its width the centering.
    open override func shouldInvalidateLayout(forBoundsChange newBounds: Rect) -> Bool {
        guard let environment = collectionView else { return true }
        return newBounds.size != environment.bounds.size
    }
}
