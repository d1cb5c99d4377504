#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
public import TesseraDiff
public import TesseraLayout

/// A headless collection view: a layout, a viewport, a data source and the
/// counts it shows. It runs batch updates, bounds changes and layout
/// transitions through the layout's update cycle, as UIKit's
/// `UICollectionView` does, and returns an ``AnimationPlan`` for each.
///
/// ```swift
/// let view = CollectionView(layout: FlowLayout(), size: Size(width: 390, height: 844))
/// view.dataSource = myDataSource
/// try view.reloadData()
/// // … the data source changes …
/// let plan = try view.performBatchUpdates([.insertItem(at: IndexPath(item: 0, section: 0))])
/// ```
///
/// Not thread-safe: use it from one thread (or actor) at a time.
public final class CollectionView: LayoutEnvironment {
    /// The layout.
    public internal(set) var collectionViewLayout: CollectionViewLayout
    /// The visible rectangle in content coordinates (its origin is the
    /// content offset).
    public internal(set) var bounds: Rect
    /// The content inset.
    public var contentInset: EdgeInsets
    /// What the view shows. Held weakly, as in UIKit.
    public weak var dataSource: (any CollectionViewDataSource)?
    /// What hears about, and decides, highlight and selection by touches,
    /// and the target of an interactive movement. Held weakly, as in UIKit.
    public weak var delegate: (any CollectionViewDelegate)?
    /// Whether an update keeps the first fully visible item at the same
    /// place on screen when content above it changes (its left edge, or its
    /// right edge when the layout is flipped right to left). On by default.
    public var anchorsScrollPosition = true
    /// Whether a batch update, a layout transition, a reload, a change of
    /// direction or a self-sizing pass pulls the content offset back into
    /// the range the content allows, as UIKit does when the content
    /// shrinks under it. On by default.
    ///
    /// Off, the offset stays where ``setBounds(_:animated:)`` put it, also
    /// outside the content, and every plan's
    /// ``AnimationPlan/contentOffsetAfter`` is its
    /// ``AnimationPlan/contentOffsetBefore`` (after scroll anchoring, when
    /// ``anchorsScrollPosition`` is on; a flipped layout keeps the
    /// offset's distance from its leading edge): for a view that mirrors a
    /// viewport someone else owns, such as a remote client's, which keeps
    /// its own scrolling within the content.
    public var clampsContentOffset = true
    /// The duration of animated changes, in seconds. 0.3.
    public var animationDuration: Double = 0.3
    /// The timing curve of animated changes. Ease-in-out.
    public var animationTiming = AnimationTiming.easeInOut
    /// The direction the content runs in. Left to right until
    /// ``setLayoutDirection(_:animated:)`` changes it; a layout that flips
    /// mirrors its frames when it is right to left.
    public internal(set) var effectiveLayoutDirection: LayoutDirection = .leftToRight

    /// The number of items in each section, as the view last read them
    /// (during an interactive movement, the counts it presents: the moving
    /// item counts in the section of its target).
    public internal(set) var itemCounts: [Int] = []
    /// Why the last ``reloadData()`` kept the view as it was (a negative
    /// count from the data source), or `nil` when it reloaded.
    public private(set) var dataSourceError: BatchValidationError?
    /// The first bad fitted size the last automatic sizing pass met (in
    /// ``reloadData()``, a batch update, a bounds change or a layout
    /// transition), or `nil`; the item kept the size it had. See
    /// <doc:SelfSizing>.
    public internal(set) var sizingError: SelfSizingError?

    /// The selected and highlighted items and the touch in progress.
    var selection = _SelectionState()
    var pool = _ViewPool()
    /// The view showing each element visible now, by its current key.
    var attachedViews: [_ElementKey: ViewIdentity] = [:]
    /// The time of the last change made at a time, and the plan playing.
    var clock = _AnimationClock()
    /// The interactive movement in progress, or `nil`.
    var interactiveMovement: _InteractiveMovement?
    /// The step of an interactive movement the batch-update core is running,
    /// or `nil`.
    var interactiveMovementStep: _InteractiveMovementStep?
    /// Items (index paths before the batch about to run) whose fitted sizes
    /// the batch forgets besides those of reloaded items: items a changeset
    /// moves and changes.
    var fittedSizesToForget: [IndexPath] = []
    /// The deleted selection a change made at a time tells the delegate
    /// about once it is recorded (``reportingSelectionAfterwards(_:)``), or
    /// `nil` when changes tell it at once.
    var postponedSelectionReports: [(deselected: [_ItemPosition], unhighlighted: [_ItemPosition])]?
    /// How many times the view has shown another state (a reload, or any
    /// change that made a plan): a call that asks the data source or the
    /// delegate compares it to see whether they changed the view meanwhile.
    var generation = 0
    /// How many batch updates, reloads, count reads and sizing passes are
    /// running: when positive, the data source or a delegate is being asked
    /// from inside one, and an interactive movement may not begin or step.
    var updateDepth = 0

    /// Creates a collection view.
    ///
    /// - Parameters:
    ///   - layout: The layout; the view becomes its environment.
    ///   - size: The viewport size; the content offset starts at zero.
    ///   - contentInset: The content inset.
    public init(layout: CollectionViewLayout, size: Size, contentInset: EdgeInsets = .zero) {
        collectionViewLayout = layout
        bounds = Rect(origin: .zero, size: size)
        self.contentInset = contentInset
        layout.collectionView = self
    }

    // MARK: LayoutEnvironment

    /// The number of sections.
    public var numberOfSections: Int { itemCounts.count }

    /// The number of items in a section.
    public func numberOfItems(inSection section: Int) -> Int { itemCounts[section] }

    /// The size of the content, from the layout.
    public var contentSize: Size { collectionViewLayout.collectionViewContentSize }

    /// The last bad size, inset or spacing the layout met, naming where.
    public var layoutError: LayoutError? { collectionViewLayout.layoutError }

    /// The attributes of every element visible now.
    ///
    /// - Complexity: O(log *n* + *k*) for the layouts Tessera ships.
    public var visibleElements: [LayoutAttributes] {
        collectionViewLayout.layoutAttributesForElements(in: bounds)
    }

    // MARK: Reloading

    /// Reads every count from the data source again and lays everything
    /// out, with no animation. The content offset keeps its distance from
    /// the content's leading edge: the left one, or the right one when the
    /// layout is flipped right to left (so a view loaded right to left
    /// starts at the right end of its content). An interactive movement in
    /// progress is cancelled first, with no plan, as in UIKit (the
    /// selection goes back to the data source's order with it). Then the
    /// visible items of a layout whose items size themselves are sized (see
    /// <doc:SelfSizing>).
    ///
    /// A data source that gives a negative count is refused: the view keeps
    /// the counts and layout it had, and ``dataSourceError`` says which
    /// count (``BatchValidationError/negativeSectionCount(count:space:)`` or
    /// ``BatchValidationError/negativeItemCount(section:count:space:)``).
    ///
    /// Selected index paths that still name an item stay selected (by
    /// place: the data source may show other items there now); the others
    /// are dropped, the highlight ends and a touch in progress is
    /// cancelled, without telling the ``delegate``.
    ///
    /// - Complexity: what the layout's `prepare()` costs, plus O(*s*) for
    ///   *s* selected items.
    public func reloadData() {
        updateDepth += 1
        defer { updateDepth -= 1 }
        // The selection goes back to the data source's order first.
        abandonInteractiveMovement()
        do {
            itemCounts = try readCounts()
            dataSourceError = nil
        } catch {
            dataSourceError = error
            return
        }
        let edge = leadingEdge(of: bounds.origin)
        selection.keepInRange(of: itemCounts)
        collectionViewLayout.invalidateLayout(with: InvalidationContext(invalidateEverything: true, invalidateDataSourceCounts: true))
        collectionViewLayout.prepare()
        bounds.origin = clamped(offset(atLeadingEdge: edge))
        sizingError = sizeVisibleItems()
        generation += 1
        for view in attachedViews.values { pool.recycle(view) }
        attachedViews = [:]
        clock.playing = nil
        for attributes in visibleElements {
            let key = _ElementKey(attributes)
            attachedViews[key] = pool.dequeue(reuseIdentifier(for: key))
        }
    }

    /// The counts the data source gives now (the state after an update);
    /// during an interactive movement, the counts the view presents.
    ///
    /// - Throws: ``BatchValidationError`` for the first negative count.
    func readCounts() throws(BatchValidationError) -> [Int] {
        if let movement = interactiveMovement { return movement.presentedCounts }
        guard let dataSource else { return [] }
        updateDepth += 1
        defer { updateDepth -= 1 }
        let sections = dataSource.numberOfSections(in: self)
        guard sections >= 0 else { throw .negativeSectionCount(count: sections, space: .after) }
        var counts: [Int] = []
        counts.reserveCapacity(sections)
        for section in 0..<sections {
            let count = dataSource.collectionView(self, numberOfItemsInSection: section)
            guard count >= 0 else { throw .negativeItemCount(section: section, count: count, space: .after) }
            counts.append(count)
        }
        return counts
    }

    func reuseIdentifier(for key: _ElementKey) -> String {
        switch key.category {
        case .cell:
            return dataSource?.collectionView(self, reuseIdentifierForItemAt: dataSourceIndexPath(forPresentedIndexPath: key.indexPath)) ?? "Cell"
        case let .supplementaryView(kind):
            return dataSource?.collectionView(self, reuseIdentifierForSupplementaryElementOfKind: kind, at: key.indexPath) ?? kind
        case let .decorationView(kind):
            return kind
        }
    }

    // MARK: Content offset

    /// The offset pulled into the range the content allows (unless
    /// ``clampsContentOffset`` is off). When the layout is flipped and the
    /// content is narrower than the view, the content rests against the
    /// right edge (the leading one), as it rests against the left edge
    /// otherwise.
    func clamped(_ offset: Point) -> Point {
        guard clampsContentOffset else { return offset }
        let size = contentSize
        let (minX, maxX) = horizontalOffsetRange
        let minY = -contentInset.top
        let maxY = Swift.max(minY, size.height + contentInset.bottom - bounds.size.height)
        return Point(x: Swift.min(Swift.max(offset.x, minX), maxX), y: Swift.min(Swift.max(offset.y, minY), maxY))
    }

    // MARK: Views

    /// Gives every element visible after a change a view (keeping the one it
    /// had), and returns the views of elements no longer visible to the pool.
    /// An element visible before only that had no view is left out.
    func assignViews(
        to elements: inout [AnimationPlan.Element],
        visibleAfter: Int
    ) -> (dequeued: [ViewIdentity], recycled: [ViewIdentity]) {
        generation += 1
        clock.playing = nil
        var next: [_ElementKey: ViewIdentity] = [:]
        var dequeued: [ViewIdentity] = []
        var kept = Set<ViewIdentity>()
        var unshown: [Int] = []
        for index in elements.indices {
            let element = elements[index]
            let oldKey = element.indexPathBefore.map { _ElementKey(category: element.category, indexPath: $0) }
            if let oldKey, let view = attachedViews[oldKey], !kept.contains(view) {
                elements[index].view = view
                kept.insert(view)
            } else if index < visibleAfter, let path = element.indexPathAfter {
                let view = pool.dequeue(reuseIdentifier(for: _ElementKey(category: element.category, indexPath: path)))
                elements[index].view = view
                dequeued.append(view)
                kept.insert(view)
            } else if index >= visibleAfter {
                // Visible before only, with no view: it was never shown (it
                // came into view when a batch update put back the order an
                // interactive movement changed, and the data source, which
                // answers for the state after, cannot name its kind), so it
                // has nothing to animate.
                unshown.append(index)
                continue
            } else {
                let view = pool.dequeue(reuseIdentifier(for: oldKey ?? _ElementKey(category: element.category, indexPath: element.indexPathAfter ?? IndexPath())))
                elements[index].view = view
                dequeued.append(view)
                kept.insert(view)
            }
            if index < visibleAfter, let path = element.indexPathAfter {
                next[_ElementKey(category: element.category, indexPath: path)] = elements[index].view
            }
        }
        for index in unshown.reversed() { elements.remove(at: index) }
        let stillShown = Set(next.values)
        var recycled = Set(attachedViews.values).subtracting(stillShown)
        for element in elements where !stillShown.contains(element.view) { recycled.insert(element.view) }
        let recycledViews = recycled.sorted()
        for view in recycledViews { pool.recycle(view) }
        attachedViews = next
        return (dequeued, recycledViews)
    }
}

@available(*, unavailable)
extension CollectionView: Sendable {}

/// An element's identity within one state: its category and index path.
struct _ElementKey: Hashable {
    var category: ElementCategory
    var indexPath: IndexPath

    init(category: ElementCategory, indexPath: IndexPath) {
        self.category = category
        self.indexPath = indexPath
    }

    init(_ attributes: LayoutAttributes) {
        self.init(category: attributes.category, indexPath: attributes.indexPath)
    }
}
