#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif
public import TesseraDiff

/// The abstract layout: UIKit's `UICollectionViewLayout` contract, with its
/// Swift names and default behaviours. Subclass it to write a layout.
///
/// A layout reads its environment through ``collectionView`` (bounds,
/// content inset and counts), computes frames in ``prepare()``, and answers
/// queries until it is invalidated. During a batch update the collection
/// view, in UIKit's order, calls ``prepare()`` for the state after the
/// update, then ``prepare(forCollectionViewUpdates:)``, asks for the initial
/// attributes of appearing elements and the final attributes of disappearing
/// ones, and calls ``finalizeCollectionViewUpdates()``.
///
/// The defaults during updates follow UIKit: an inserted or reloaded element
/// appears at its final frame with alpha 0, a deleted or reloaded one
/// disappears at its old frame with alpha 0, and for every other element
/// these methods return `nil` (the element moves from its old attributes to
/// its new ones).
///
/// Not thread-safe: use a layout from one thread (or actor) at a time.
open class CollectionViewLayout {
    /// The environment the layout lays out for. The collection view sets it;
    /// a test can set a ``StaticLayoutEnvironment``.
    public weak var collectionView: (any LayoutEnvironment)?

    /// The first bad size, inset or spacing that the last ``prepare()`` met,
    /// or `nil`. Subclasses record it with ``recordError(_:)``.
    public private(set) var layoutError: LayoutError?

    /// How elements appear and disappear by default during updates: alpha 0
    /// and no transform, as UIKit does. Change it to fade less, or to scale
    /// elements in and out.
    public var updateTransitionStyle = UpdateTransitionStyle()

    /// The decoration view kinds registered with ``register(decorationViewOfKind:)``.
    public private(set) var registeredDecorationKinds: [String] = []

    /// What was invalidated since the last ``prepare()``, or `nil`.
    public private(set) var pendingInvalidation: InvalidationContext?

    /// The update items of the batch in progress, between
    /// ``prepare(forCollectionViewUpdates:)`` and
    /// ``finalizeCollectionViewUpdates()``.
    public private(set) var updateItems: [UpdateItem] = []

    private var inserted = Set<IndexPath>()
    private var deleted = Set<IndexPath>()
    private var insertedSections = Set<Int>()
    private var deletedSections = Set<Int>()
    /// The mapping the collection view gave at the start of the batch: it
    /// answers for item inserts and deletes, which are then not copied into
    /// `inserted` and `deleted` (hashing thousands of index paths).
    private var itemOperations: BatchIndexMapping?
    private var disappearing: [IndexPath: LayoutAttributes] = [:]
    private var disappearingSupplementary: [String: [IndexPath: LayoutAttributes]] = [:]

    /// Creates a layout.
    public init() {}

    // MARK: Layout direction

    /// The direction the layout's frames are computed for: UIKit's
    /// `developmentLayoutDirection`. Left to right in the base class;
    /// override it for a layout designed right to left.
    open var developmentLayoutDirection: LayoutDirection { .leftToRight }

    /// Whether the layout mirrors its frames when the environment's
    /// ``LayoutEnvironment/effectiveLayoutDirection`` differs from
    /// ``developmentLayoutDirection``: UIKit's
    /// `flipsHorizontallyInOppositeLayoutDirection`. `false` in the base
    /// class, as in UIKit; `true` in every layout Tessera ships.
    ///
    /// Tessera's layouts mirror what they return themselves (see
    /// ``isFlippedHorizontally``); a layout that subclasses this class
    /// directly and returns `true` mirrors its answers with
    /// ``flippedHorizontally(_:)-(LayoutAttributes)``.
    open var flipsHorizontallyInOppositeLayoutDirection: Bool { false }

    // MARK: Preparing

    /// Computes the layout for the current environment. Subclasses override
    /// it, call `super.prepare()` first, and read
    /// ``pendingInvalidation`` to limit the work.
    ///
    /// The base class clears the recorded error and the pending
    /// invalidation.
    open func prepare() {
        layoutError = nil
        pendingInvalidation = nil
    }

    /// Records a bad value met while preparing; the first one is kept.
    public func recordError(_ error: LayoutError) {
        if layoutError == nil { layoutError = error }
    }

    /// The size of the whole content: what a collection view can scroll
    /// over. It should enclose every frame the layout returns, from the
    /// origin to `(width, height)`, since nothing outside it can be scrolled
    /// to; every layout Tessera ships keeps that rule. Zero in the base
    /// class.
    open var collectionViewContentSize: Size { .zero }

    // MARK: Queries

    /// The attributes of every element whose frame intersects `rect`.
    /// Empty in the base class.
    open func layoutAttributesForElements(in rect: Rect) -> [LayoutAttributes] { [] }

    /// The attributes of an item, or `nil`. `nil` in the base class.
    open func layoutAttributesForItem(at indexPath: IndexPath) -> LayoutAttributes? { nil }

    /// The attributes of a supplementary view, or `nil`. `nil` in the base class.
    open func layoutAttributesForSupplementaryView(ofKind kind: String, at indexPath: IndexPath) -> LayoutAttributes? { nil }

    /// The attributes of a decoration view, or `nil`. `nil` in the base class.
    open func layoutAttributesForDecorationView(ofKind kind: String, at indexPath: IndexPath) -> LayoutAttributes? { nil }

    // MARK: Invalidation

    /// Marks the whole layout for recomputation at the next ``prepare()``.
    open func invalidateLayout() {
        invalidateLayout(with: .everything())
    }

    /// Marks what a context names for recomputation at the next
    /// ``prepare()``; contexts accumulate until then.
    open func invalidateLayout(with context: InvalidationContext) {
        if let pendingInvalidation {
            pendingInvalidation.merge(context)
        } else {
            pendingInvalidation = context
        }
    }

    /// Whether a change of bounds needs a new layout. `false` in the base
    /// class.
    open func shouldInvalidateLayout(forBoundsChange newBounds: Rect) -> Bool { false }

    /// The context for a bounds change the layout asked to be invalidated
    /// for. The base class invalidates everything.
    open func invalidationContext(forBoundsChange newBounds: Rect) -> InvalidationContext { .everything() }

    // MARK: Self-sizing

    /// Whether a collection view should ask for the fitted size of an item
    /// when it is visible: `true` while the layout sizes the item itself and
    /// has no fitted size for it yet. `false` in the base class; a layout
    /// that supports self-sizing items overrides it (see
    /// ``shouldInvalidateLayout(forPreferredLayoutAttributes:withOriginalAttributes:)``).
    open func needsPreferredLayoutAttributes(forItemAt indexPath: IndexPath) -> Bool { false }

    /// Whether the attributes an element prefers (its fitted size, say) need
    /// a new layout, given the attributes the layout gave it (UIKit's
    /// method of the same name). `false` in the base class.
    open func shouldInvalidateLayout(forPreferredLayoutAttributes preferredAttributes: LayoutAttributes, withOriginalAttributes originalAttributes: LayoutAttributes) -> Bool { false }

    /// The context for an element whose preferred attributes the layout
    /// asked to be invalidated for. The base class invalidates that element;
    /// a layout that supports self-sizing also keeps the preferred size, and
    /// says in ``InvalidationContext/contentOffsetAdjustment`` how far the
    /// content offset should move so that the visible elements stay put.
    open func invalidationContext(forPreferredLayoutAttributes preferredAttributes: LayoutAttributes, withOriginalAttributes originalAttributes: LayoutAttributes) -> InvalidationContext {
        let context = InvalidationContext()
        switch preferredAttributes.category {
        case .cell: context.invalidateItems(at: [preferredAttributes.indexPath])
        case let .supplementaryView(kind): context.invalidateSupplementaryElements(ofKind: kind, at: [preferredAttributes.indexPath])
        case let .decorationView(kind): context.invalidateDecorationElements(ofKind: kind, at: [preferredAttributes.indexPath])
        }
        return context
    }

    // MARK: Content offset

    /// Where scrolling should stop, given where it would. The proposal, in
    /// the base class.
    ///
    /// Offsets are the collection view's: when the layout is flipped, map
    /// them with ``flippedContentOffset(_:)`` to snap in the layout's own
    /// coordinates, and map the result back.
    open func targetContentOffset(forProposedContentOffset proposedContentOffset: Point, withScrollingVelocity velocity: Point) -> Point {
        proposedContentOffset
    }

    /// The content offset to use after an update or a layout transition. The
    /// proposal, in the base class. Offsets are the collection view's (see
    /// ``targetContentOffset(forProposedContentOffset:withScrollingVelocity:)``).
    open func targetContentOffset(forProposedContentOffset proposedContentOffset: Point) -> Point {
        proposedContentOffset
    }

    // MARK: Updates

    /// Called after ``prepare()`` has laid out the state after a batch, with
    /// the batch's update items, as UIKit does. The base class keeps them in
    /// ``updateItems``.
    ///
    /// The collection view captured what the defaults need (the update items
    /// and the attributes of disappearing elements) before the layout was
    /// prepared again; see ``updateIndexMapping``.
    open func prepare(forCollectionViewUpdates updateItems: [UpdateItem]) {
        self.updateItems = updateItems
    }

    /// Where each element of the batch in progress goes, and where it came
    /// from: between the start of a batch and
    /// ``finalizeCollectionViewUpdates()``, for layouts that animate elements
    /// from their old positions.
    public var updateIndexMapping: BatchIndexMapping? {
        if let cachedMapping { return cachedMapping }
        guard let countsBefore = itemCountsBeforeUpdate, let environment = collectionView else { return nil }
        let countsAfter = (0..<environment.numberOfSections).map { environment.numberOfItems(inSection: $0) }
        cachedMapping = try? BatchIndexMapping(pendingUpdateItems, itemCountsBefore: countsBefore, itemCountsAfter: countsAfter)
        return cachedMapping
    }

    private var pendingUpdateItems: [UpdateItem] = []
    private var itemCountsBeforeUpdate: [Int]?
    private var cachedMapping: BatchIndexMapping?

    /// Called by the collection view at the start of a batch, while the
    /// layout still answers for the state before it and the environment
    /// still reports the counts before it: keeps the update items, the
    /// counts (or the mapping the view already made from them), and the
    /// attributes of the elements that will disappear, then lets the layout
    /// keep what it needs (``_captureStateBeforeUpdate()``).
    ///
    /// - Complexity: O(*k*) for *k* update items, plus one rect query over
    ///   the visible area, plus O(*s*) for *s* sections to read the counts
    ///   when no mapping is given.
    package func _beginBatchUpdate(_ updateItems: [UpdateItem], mapping: BatchIndexMapping? = nil) {
        pendingUpdateItems = updateItems
        // With a mapping the counts are not needed: the mapping answers.
        itemCountsBeforeUpdate = mapping != nil ? nil : collectionView.map { environment in
            (0..<environment.numberOfSections).map { environment.numberOfItems(inSection: $0) }
        }
        cachedMapping = mapping
        resetCapturedUpdate()
        itemOperations = mapping
        for item in updateItems {
            switch item.updateAction {
            case .insert:
                if let path = item.indexPathAfterUpdate, mapping == nil || path.count == 1 { noteInsert(path) }
            case .delete:
                if let path = item.indexPathBeforeUpdate, mapping == nil || path.count == 1 { noteDelete(path) }
            case .reload:
                if let path = item.indexPathBeforeUpdate { noteDelete(path) }
                if let path = item.indexPathAfterUpdate { noteInsert(path) }
            case .move, .none:
                continue
            }
        }
        captureDisappearingElements()
        _captureStateBeforeUpdate()
    }

    /// Keeps what a layout needs to answer for the state before a batch once
    /// it is prepared for the state after it. Nothing in the base class.
    package func _captureStateBeforeUpdate() {}

    private func noteInsert(_ path: IndexPath) {
        if path.count == 1 { insertedSections.insert(path[0]) } else { inserted.insert(path) }
    }

    /// Whether the batch in progress inserts the item, or reloads it to land
    /// there.
    private func isInsertedItem(_ path: IndexPath) -> Bool {
        inserted.contains(path) || itemOperations?.isInsertedItem(path) == true
    }

    /// Whether the batch in progress deletes or reloads the item.
    private func isDeletedItem(_ path: IndexPath) -> Bool {
        deleted.contains(path) || itemOperations?.isDeletedItem(path) == true
    }

    private func noteDelete(_ path: IndexPath) {
        if path.count == 1 { deletedSections.insert(path[0]) } else if path.count == 2 { deleted.insert(path) }
    }

    /// Keeps the attributes of the visible elements that will disappear:
    /// the ones a collection view asks final attributes for.
    ///
    /// - Complexity: one rect query over the visible area.
    /// The visible elements a batch in progress deletes, as captured from
    /// the bounds when it began: what ``finalLayoutAttributesForDisappearingItem(at:)``
    /// and the supplementary views' counterparts answer from.
    package struct _DisappearingCapture {
        var items: [IndexPath: LayoutAttributes] = [:]
        var supplementary: [String: [IndexPath: LayoutAttributes]] = [:]

        /// Nothing captured.
        package init() {}

        init(items: [IndexPath: LayoutAttributes], supplementary: [String: [IndexPath: LayoutAttributes]]) {
            self.items = items
            self.supplementary = supplementary
        }
    }

    /// The disappearing elements of the batch in progress. A view that
    /// plans one batch for several viewports captures them again for each
    /// (``_recaptureDisappearingElements()`` with its bounds set to the
    /// viewport, before the layout is prepared for the new state) and puts
    /// each viewport's back before it reads that viewport's plan: pinned
    /// headers and footers of deleted sections are where that viewport
    /// showed them.
    package var _disappearingCapture: _DisappearingCapture {
        get { _DisappearingCapture(items: disappearing, supplementary: disappearingSupplementary) }
        set {
            disappearing = newValue.items
            disappearingSupplementary = newValue.supplementary
        }
    }

    /// Captures the disappearing elements of the batch in progress again,
    /// from the environment's bounds now (the layout still answers for the
    /// state before the batch).
    ///
    /// - Complexity: O(log *n* + *v*) for *v* elements in the bounds.
    package func _recaptureDisappearingElements() {
        disappearing = [:]
        disappearingSupplementary = [:]
        captureDisappearingElements()
    }

    private func captureDisappearingElements() {
        guard let environment = collectionView, !deleted.isEmpty || !deletedSections.isEmpty || itemOperations?.deletesItems == true else { return }
        for attributes in layoutAttributesForElements(in: environment.bounds) {
            let path = attributes.indexPath
            guard !path.isEmpty else { continue }
            switch attributes.category {
            case .cell:
                if isDeletedItem(path) || deletedSections.contains(path[0]) { disappearing[path] = attributes }
            case let .supplementaryView(kind):
                if deletedSections.contains(path[0]) { disappearingSupplementary[kind, default: [:]][path] = attributes }
            case .decorationView:
                continue
            }
        }
    }

    /// Called after the update's animations are set up. The base class
    /// forgets the update.
    open func finalizeCollectionViewUpdates() {
        updateItems = []
        pendingUpdateItems = []
        itemCountsBeforeUpdate = nil
        cachedMapping = nil
        resetCapturedUpdate()
    }

    private func resetCapturedUpdate() {
        inserted = []
        deleted = []
        insertedSections = []
        deletedSections = []
        itemOperations = nil
        disappearing = [:]
        disappearingSupplementary = [:]
    }

    /// Where an appearing item starts. The base class: an inserted or
    /// reloaded item (or one in an inserted section) starts at its final
    /// frame with alpha 0; any other item, `nil`.
    open func initialLayoutAttributesForAppearingItem(at itemIndexPath: IndexPath) -> LayoutAttributes? {
        guard !itemIndexPath.isEmpty, isInsertedItem(itemIndexPath) || insertedSections.contains(itemIndexPath[0]) else { return nil }
        return layoutAttributesForItem(at: itemIndexPath).map(transitionStyleInDirection.appearing)
    }

    /// Where a disappearing item ends. The base class: a deleted or reloaded
    /// item (or one in a deleted section) that was visible ends at its old
    /// frame with alpha 0; any other item, `nil`.
    open func finalLayoutAttributesForDisappearingItem(at itemIndexPath: IndexPath) -> LayoutAttributes? {
        disappearing[itemIndexPath].map(transitionStyleInDirection.disappearing)
    }

    /// Where an appearing supplementary view starts. The base class: in an
    /// inserted section, at its final frame with alpha 0; otherwise `nil`.
    open func initialLayoutAttributesForAppearingSupplementaryElement(ofKind elementKind: String, at elementIndexPath: IndexPath) -> LayoutAttributes? {
        guard !elementIndexPath.isEmpty, insertedSections.contains(elementIndexPath[0]) else { return nil }
        return layoutAttributesForSupplementaryView(ofKind: elementKind, at: elementIndexPath).map(transitionStyleInDirection.appearing)
    }

    /// Where a disappearing supplementary view ends. The base class: one of
    /// a deleted section that was visible, at its old frame with alpha 0;
    /// otherwise `nil`.
    open func finalLayoutAttributesForDisappearingSupplementaryElement(ofKind elementKind: String, at elementIndexPath: IndexPath) -> LayoutAttributes? {
        disappearingSupplementary[elementKind]?[elementIndexPath].map(transitionStyleInDirection.disappearing)
    }

    /// Where an appearing decoration view starts. `nil` in the base class.
    open func initialLayoutAttributesForAppearingDecorationElement(ofKind elementKind: String, at decorationIndexPath: IndexPath) -> LayoutAttributes? {
        nil
    }

    /// Where a disappearing decoration view ends. `nil` in the base class.
    open func finalLayoutAttributesForDisappearingDecorationElement(ofKind elementKind: String, at decorationIndexPath: IndexPath) -> LayoutAttributes? {
        nil
    }

    /// Supplementary views of a kind that appear with the update. The base
    /// class: the headers and footers of inserted sections, for those kinds.
    ///
    /// - Complexity: O(*s* log *s*) for *s* inserted sections.
    open func indexPathsToInsertForSupplementaryView(ofKind elementKind: String) -> [IndexPath] {
        guard elementKind == ElementKind.sectionHeader || elementKind == ElementKind.sectionFooter else { return [] }
        return insertedSections.sorted().map { IndexPath(item: 0, section: $0) }
            .filter { layoutAttributesForSupplementaryView(ofKind: elementKind, at: $0) != nil }
    }

    /// Supplementary views of a kind that disappear with the update. The base
    /// class: those of deleted sections that were visible.
    ///
    /// - Complexity: O(*s* log *s*) for *s* deleted sections.
    open func indexPathsToDeleteForSupplementaryView(ofKind elementKind: String) -> [IndexPath] {
        (disappearingSupplementary[elementKind] ?? [:]).keys.sorted()
    }

    /// Decoration views of a kind that appear with the update. Empty in the
    /// base class.
    open func indexPathsToInsertForDecorationView(ofKind elementKind: String) -> [IndexPath] { [] }

    /// Decoration views of a kind that disappear with the update. Empty in
    /// the base class.
    open func indexPathsToDeleteForDecorationView(ofKind elementKind: String) -> [IndexPath] { [] }

    // MARK: Interactive movement

    /// The index path an interactively moving item would take at `position`
    /// (UIKit's `targetIndexPath(forInteractivelyMovingItem:withPosition:)`).
    ///
    /// The layout is prepared for the order the collection view presents:
    /// the moving item already sits at `previousIndexPath`. The base class
    /// answers as UIKit does: the index path of the item whose frame
    /// contains `position` (the lowest index path when several do), else
    /// `previousIndexPath`. Tessera's layouts (``FrameStorageLayout``) also
    /// answer for positions between items.
    ///
    /// - Complexity: one rect query around `position`.
    open func targetIndexPath(forInteractivelyMovingItem previousIndexPath: IndexPath, withPosition position: Point) -> IndexPath {
        _itemContaining(position) ?? previousIndexPath
    }

    /// The attributes of an item while it is moved interactively: where it
    /// follows the user's position (UIKit's
    /// `layoutAttributesForInteractivelyMovingItem(at:withTargetPosition:)`).
    ///
    /// The base class gives the item's attributes centred on `position`,
    /// with ``interactivelyMovingItemZIndex`` so it covers every other
    /// element; `nil` when there is no item at `indexPath`. Override it to
    /// scale or fade the item being dragged.
    ///
    /// - Complexity: what ``layoutAttributesForItem(at:)`` costs.
    open func layoutAttributesForInteractivelyMovingItem(at indexPath: IndexPath, withTargetPosition position: Point) -> LayoutAttributes? {
        guard var attributes = layoutAttributesForItem(at: indexPath) else { return nil }
        attributes.center = position
        attributes.zIndex = Self.interactivelyMovingItemZIndex
        return attributes
    }

    /// The context a collection view invalidates the layout with at each
    /// step of an interactive movement, before it moves the item from its
    /// previous target to its new one.
    ///
    /// The base class sets ``InvalidationContext/interactiveMovementTarget``,
    /// ``InvalidationContext/previousIndexPathsForInteractivelyMovingItems``
    /// and ``InvalidationContext/targetIndexPathsForInteractivelyMovingItems``,
    /// and names the items at both when the target changes. Override it to
    /// invalidate more (call `super` first).
    ///
    /// - Complexity: O(*k*) for *k* index paths.
    open func invalidationContext(
        forInteractivelyMovingItems targetIndexPaths: [IndexPath],
        withTargetPosition targetPosition: Point,
        previousIndexPaths: [IndexPath],
        previousPosition: Point
    ) -> InvalidationContext {
        let context = InvalidationContext()
        context.interactiveMovementTarget = targetPosition
        context.previousIndexPathsForInteractivelyMovingItems = previousIndexPaths
        context.targetIndexPathsForInteractivelyMovingItems = targetIndexPaths
        if targetIndexPaths != previousIndexPaths { context.invalidateItems(at: previousIndexPaths + targetIndexPaths) }
        return context
    }

    /// The context a collection view invalidates the layout with when an
    /// interactive movement ends or is cancelled.
    ///
    /// The base class sets the index paths (``InvalidationContext/targetIndexPathsForInteractivelyMovingItems``
    /// are the final ones) and, when the movement ends at another index path,
    /// names the items at both: the data source has changed, so a delegate
    /// that answers by index path may answer differently for those sections.
    ///
    /// - Complexity: O(*k*) for *k* index paths.
    open func invalidationContextForEndingInteractiveMovementOfItems(
        toFinalIndexPaths indexPaths: [IndexPath],
        previousIndexPaths: [IndexPath],
        movementCancelled: Bool
    ) -> InvalidationContext {
        let context = InvalidationContext()
        context.previousIndexPathsForInteractivelyMovingItems = previousIndexPaths
        context.targetIndexPathsForInteractivelyMovingItems = indexPaths
        if !movementCancelled && indexPaths != previousIndexPaths { context.invalidateItems(at: previousIndexPaths + indexPaths) }
        return context
    }

    // MARK: Bounds changes and transitions

    /// Called before an animated change of bounds. Nothing in the base class.
    open func prepare(forAnimatedBoundsChange oldBounds: Rect) {}

    /// Called after an animated change of bounds. Nothing in the base class.
    open func finalizeAnimatedBoundsChange() {}

    /// Called on the current layout before a transition to another. Nothing
    /// in the base class.
    open func prepareForTransition(to newLayout: CollectionViewLayout) {}

    /// Called on the new layout before a transition from another. Nothing in
    /// the base class.
    open func prepareForTransition(from oldLayout: CollectionViewLayout) {}

    /// Called on both layouts after a transition. Nothing in the base class.
    open func finalizeLayoutTransition() {}

    // MARK: Decoration views

    /// Registers a decoration view kind by name, as UIKit's
    /// `register(_:forDecorationViewOfKind:)` does.
    ///
    /// - Complexity: O(*r*) for *r* registered kinds.
    public func register(decorationViewOfKind kind: String) {
        if !registeredDecorationKinds.contains(kind) { registeredDecorationKinds.append(kind) }
    }
}

@available(*, unavailable)
extension CollectionViewLayout: Sendable {}

/// How inserted (or reloaded) elements appear and deleted (or reloaded) ones
/// disappear by default during updates: they start or end at their frame
/// with this alpha and transform.
public struct UpdateTransitionStyle: Hashable, Codable, Sendable {
    /// The alpha an appearing element starts at. 0.
    public var appearingAlpha: Double = 0
    /// The transform an appearing element starts with. Identity.
    public var appearingTransform: Transform = .identity
    /// The alpha a disappearing element ends at. 0.
    public var disappearingAlpha: Double = 0
    /// The transform a disappearing element ends with. Identity.
    public var disappearingTransform: Transform = .identity

    /// UIKit's defaults: fade in and out in place.
    public init() {}

    func appearing(_ attributes: LayoutAttributes) -> LayoutAttributes {
        var result = attributes
        result.alpha = appearingAlpha
        result.transform = appearingTransform
        return result
    }

    func disappearing(_ attributes: LayoutAttributes) -> LayoutAttributes {
        var result = attributes
        result.alpha = disappearingAlpha
        result.transform = disappearingTransform
        return result
    }
}
