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
/// The content encloses every frame (see ``FrameStorageLayout``): when a
/// section's insets are taller than the view, its items have no height and
/// sit at its top inset, below the view, and the content grows down to
/// them.
///
/// Frames live in a flat array; items are in x order, so rect queries run
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

    /// Lays out every section, or only those from the first section an
    /// invalidation context names. Content that was centered is laid out
    /// again in full: centering moves every frame.
    ///
    /// Bad widths, insets and spacings are recorded in
    /// ``CollectionViewLayout/layoutError`` and replaced by zero.
    ///
    /// - Complexity: O(*n* + *s*) for the items and sections laid out (all
    ///   of them when the content is centered); no allocation per item.
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
        let sectionCount = environment.numberOfSections
        let stillValid = preparedSize == viewSize && centeringOffset == 0
        let first = firstSectionToLayOut(context: context, framesStillValid: stillValid, sectionCount: sectionCount)
        var (store, check) = beginPass(keepingSections: first, direction: .horizontal, environment: environment)
        defer { endPass(store) }
        let itemWidth = check.length(self.itemWidth, section: nil, .property("itemWidth"))
        let itemSpacing = check.length(self.itemSpacing, section: nil, .property("itemSpacing"))
        let sectionInsets = check.insets(self.sectionInsets, section: nil, .property("sectionInsets"))
        let delegate = self.delegate

        var x = first > 0 ? store.sectionEndS[first - 1] : 0
        for section in first..<sectionCount {
            let count = check.count(environment.numberOfItems(inSection: section), section: section)
            let insets = delegate?.horizontalListLayout(self, insetsForSectionAt: section).map { check.insets($0, section: section, .sectionInset(section: section)) } ?? sectionInsets
            let height = Swift.max(0, viewSize.height - insets.top - insets.bottom)
            let sectionStart = x
            x += insets.left
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
                bounds: Rect(x: sectionStart, y: 0, width: x - sectionStart, height: viewSize.height),
                header: nil, footer: nil, itemsAreBands: true, endS: x
            )
        }
        centeringOffset = 0
        if centerContent && x < viewSize.width {
            // Every frame moves: the next prepare lays out everything again.
            centeringOffset = (viewSize.width - x) / 2
            Self.move(&store, by: centeringOffset)
            naturalContentSize = viewSize
        } else {
            naturalContentSize = Size(width: x, height: viewSize.height)
        }
        preparedSize = viewSize
    }

    /// Moves every item and section right by `offset`.
    ///
    /// - Complexity: O(*n* + *s*).
    private static func move(_ store: inout _FrameStore, by offset: Double) {
        for index in store.itemFrames.indices { store.itemFrames[index].origin.x += offset }
        var running = -Double.infinity
        for section in store.sectionBounds.indices {
            store.sectionBounds[section].origin.x += offset
            store.sectionEndS[section] += offset
            store.sectionReachX[section] += offset
            running = Swift.max(running, store.sectionBounds[section].maxX, store.sectionEndS[section])
            store.sectionMaxS[section] = running
        }
    }

    // MARK: Invalidation

    /// True when the view's size changes: its height sets the items'
    /// heights, and its width the centering.
    open override func shouldInvalidateLayout(forBoundsChange newBounds: Rect) -> Bool {
        guard let environment = collectionView else { return true }
        return newBounds.size != environment.bounds.size
    }
}
