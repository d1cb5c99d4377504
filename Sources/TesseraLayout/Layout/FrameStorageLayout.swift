#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// The common base of Tessera's layouts: frames kept in flat arrays, grouped
/// into bands along the scroll axis, with what every such layout answers the
/// same way.
///
/// The content encloses every frame. UIKit cannot scroll to anything outside
/// a layout's content size, so ``collectionViewContentSize`` is the size the
/// layout's own rule gives (a flow layout's width and the sum of its
/// sections, say), grown where an item, header or footer reaches past it:
/// an item wider than the view, insets wider or taller than the view, more
/// columns than fit. Frames never start before the content's origin, so
/// growing it right and down is enough. The content grows along the cross
/// axis too (a vertical layout becomes as wide as its widest frame) rather
/// than cut a frame off; where UIKit's layouts leave such a frame outside
/// the content, this is where Tessera differs. Headers and footers that
/// pin or stick to the visible area stay within the content at every
/// content offset a collection view allows (each layout says how).
///
/// Frames are kept in left-to-right coordinates. When the layout is flipped
/// (the environment runs right to left, see
/// ``CollectionViewLayout/isFlippedHorizontally``), every query mirrors
/// what it returns across the content's width, a rect query mirrors its
/// rect before it searches, and the frames of the state before a batch
/// update are mirrored across the content's width before it; nothing is
/// laid out again or stored per direction.
///
/// It answers rect queries in O(log *n* + *k*) (headers and footers through
/// ``layoutAttributesForSupplementaryView(ofKind:at:)``, so a subclass that
/// pins them overrides only that), per-element queries in O(1), keeps the
/// frames of the state before a batch update to animate moved and shifted
/// elements from where they were, and reports its memory. To write a layout
/// of your own, subclass ``CollectionViewLayout`` (or one of the concrete
/// layouts).
///
/// Frames are kept per section, relative to the section's origin along the
/// scroll axis, and a section's origin follows from the extents of the
/// sections before it; so a pass lays out again only the sections its
/// invalidation names and shifts the others:
/// - everything after ``CollectionViewLayout/invalidateLayout()``, a context
///   that invalidates everything, or a change that moves every frame (a new
///   width, say);
/// - for a batch update (a context made with
///   ``InvalidationContext/invalidateSections(_:updateIndexMapping:)``, as a
///   collection view makes for every batch), the sections the batch changes,
///   and inserted and reloaded ones; every other section keeps its frames at
///   the index the batch's mapping gives it. When the layout has a delegate,
///   a section whose index changes is laid out again too (the delegate
///   answers by index); without one it is only shifted;
/// - when counts changed with no mapping, every section from the first one
///   named on;
/// - otherwise the sections named.
///
/// Sections a pass keeps are assumed unchanged: a delegate whose answers
/// change for a section that no batch names must invalidate that section
/// (``InvalidationContext/invalidateSections(_:)``), as in UIKit. A batch
/// that changes one section costs O(*m*) for its *m* items, plus O(*s*) over
/// the *s* sections' small arrays; it copies no frame of any other section.
///
/// Items can size themselves (``ListLayout``, ``FlowLayout``,
/// ``ColumnLayout`` and ``ListStackLayout``, given an estimated size): the
/// layout keeps each item's fitted size from
/// ``invalidationContext(forPreferredLayoutAttributes:withOriginalAttributes:)``,
/// moves the fitted sizes with their items through batch updates, and fills
/// in the context's adjustments when it is prepared with it, so that the
/// first item visible when the context was made stays where it is on screen.
open class FrameStorageLayout: CollectionViewLayout {
    /// The frames, per section.
    var store: _FrameStore
    /// The stores kept around batch updates.
    var buffers = _UpdateBuffers()
    /// The size of the content by the layout's own rule, before it grows to
    /// enclose every frame (``collectionViewContentSize``).
    var naturalContentSize = Size.zero

    /// The content width the frames before a batch update mirror across,
    /// when the layout was flipped then; `nil` when it was not.
    private var flipWidthBeforeUpdate: Double?

    init(direction: ScrollDirection) {
        store = _FrameStore(direction: direction)
        super.init()
    }

    /// True: the layout mirrors its frames when the environment runs in the
    /// other direction, as UIKit's flow layout does. Frames are kept in
    /// left-to-right coordinates and mirrored as queries return them (see
    /// ``CollectionViewLayout/isFlippedHorizontally``).
    open override var flipsHorizontallyInOppositeLayoutDirection: Bool { true }

    /// The width frames mirror across now, or `nil` when the layout is not
    /// flipped.
    var flipWidth: Double? {
        isFlippedHorizontally ? collectionViewContentSize.width : nil
    }

    /// The rect a flipped query searches the frames (kept left to right)
    /// with: `rect` mirrored across `width` and widened in x by a tiny
    /// relative margin, since mirroring rounds; the query then keeps the
    /// frames whose mirrored frames meet `rect` itself, so the answer is
    /// exact in the coordinates it is given in.
    static func searchRect(mirroring rect: Rect, inWidth width: Double) -> Rect {
        let mirrored = rect.mirroredHorizontally(inWidth: width)
        let margin = Swift.max(abs(width), abs(rect.origin.x), abs(rect.origin.x + rect.size.width), 1) * 1e-12
        return Rect(x: mirrored.origin.x - margin, y: mirrored.origin.y, width: mirrored.size.width + 2 * margin, height: mirrored.size.height)
    }

    /// The size of the laid-out content: the size the layout's own rule
    /// gives, grown right and down to the furthest frame where one reaches
    /// past it, so that the content encloses every item, header and footer.
    ///
    /// - Complexity: O(1).
    open override var collectionViewContentSize: Size { store.enclosing(naturalContentSize) }

    /// The bytes the layout's frame storage reserves: what a prepared layout
    /// costs in memory beyond the object itself.
    ///
    /// - Complexity: O(*s*) for *s* sections.
    public var storageByteCount: Int { store.byteCount + additionalStorageByteCount }

    /// The bytes of spare frame buffers kept for the next batch update: 0.
    /// A batch update lays out only the sections it changes into new
    /// storage and shares the others with the state before it, so a layout
    /// keeps no spare buffers.
    @available(*, deprecated, message: "A layout keeps no spare buffers: a batch update shares every section it does not change.")
    public var spareStorageByteCount: Int { 0 }

    /// Storage a subclass keeps beside the frames (an index, per-section
    /// state), counted in ``storageByteCount``.
    var additionalStorageByteCount: Int { 0 }

    /// The supplementary kinds every section may have, in query order.
    static let headerAndFooter = [ElementKind.sectionHeader, ElementKind.sectionFooter]

    /// The fitted sizes of self-sizing items, kept through batch updates
    /// (``_FittedSizes``).
    var fittedSizes = _FittedSizes()
    /// The first visible item and the content size when the first context
    /// for a preferred size since the last pass was made, with that context:
    /// the pass that follows fills in its adjustments
    /// (``settleSizingAdjustments()``).
    var sizingAnchor: _SizingAnchor?

    /// Whether the layout sizes its items from their fitted sizes (an
    /// estimated size is set). `false` here; the layouts that support
    /// self-sizing override it.
    package var isSelfSizing: Bool { false }

    /// Bad values met by the pass in progress, with their sections.
    private var passErrors: [(section: Int, error: LayoutError)] = []

    /// During a batch update, the sections (indexes now) that a pass laid
    /// out since the store before the batch was kept: every other section
    /// shares its frames with a section of that store, so only these can
    /// gain or lose a header or footer. `nil` when not known (every section
    /// is looked at).
    private var sectionsLaidOutDuringUpdate: Set<Int>?

    // MARK: Preparing

    /// The part of the bounds the content shows in: the bounds less the
    /// content insets, never negative.
    func visibleSize(in environment: any LayoutEnvironment) -> Size {
        let bounds = environment.bounds.size
        let insets = environment.contentInset
        return Size(
            width: Swift.max(0, bounds.width - insets.left - insets.right),
            height: Swift.max(0, bounds.height - insets.top - insets.bottom)
        )
    }

    /// Forgets every frame: there is no collection view to lay out for.
    func clearFrames(direction: ScrollDirection = .vertical) {
        sectionsLaidOutDuringUpdate = nil
        store = _FrameStore(direction: direction, stacksSections: store.stacksSections)
        store.layOutOrigins()
        naturalContentSize = .zero
    }

    /// Which sections a pass lays out again and which it keeps (see
    /// ``InvalidationContext`` for the rules): everything when the frames
    /// kept are no longer good (`framesStillValid` false: another width,
    /// another direction); for a batch update (a context with an
    /// ``InvalidationContext/updateIndexMapping``), the sections it names,
    /// inserted and reloaded ones, and, when `hasDelegate` (a delegate could
    /// answer differently for a new index), every section whose index
    /// changes; otherwise as the context says. A section is kept only when
    /// the environment gives it as many items as it holds, and one whose
    /// index changes only when it recorded no bad value (whose message names
    /// its index).
    ///
    /// - Complexity: O(*s* + *k* log *k*) for *s* sections and *k* sections
    ///   named; none per item.
    func sectionPlan(context: InvalidationContext?, framesStillValid: Bool, hasDelegate: Bool, environment: any LayoutEnvironment) -> _SectionPlan {
        fittedSizes.follow(context, framesStillValid: framesStillValid)
        let count = environment.numberOfSections
        let old = store
        let oldCount = old.numberOfSections
        var kept = [Int](repeating: -1, count: count)
        func keepIfSame(_ section: Int, from source: Int) {
            guard source >= 0 && source < oldCount, old.sections[source].itemCount == environment.numberOfItems(inSection: section) else { return }
            guard source == section || old.sections[source].errors.isEmpty else { return }
            kept[section] = source
        }
        // The sections a context names, ascending without repeats, walked
        // beside the sections (no hashing per section).
        func named(by context: InvalidationContext) -> [Int] {
            let sections = context.invalidatedSections
            guard !context.invalidatesPositionsOnly else { return sections }
            let supplementary = context.invalidatedSupplementarySections
            return supplementary.isEmpty ? sections : Array(Set(sections).union(supplementary)).sorted()
        }
        if framesStillValid, let context, !context.invalidateEverything {
            if let mapping = context.updateIndexMapping {
                let named = named(by: context)
                var next = 0
                for section in 0..<count {
                    if next < named.count && named[next] == section {
                        next += 1
                        continue
                    }
                    guard let source = mapping.sectionBefore(section), !mapping.isSectionReloaded(source),
                          source == section || !hasDelegate
                    else { continue }
                    keepIfSame(section, from: source)
                }
            } else if context.invalidateDataSourceCounts {
                let first = Swift.min(context.firstSectionToRecompute ?? 0, count)
                for section in 0..<first { keepIfSame(section, from: section) }
            } else {
                let named = named(by: context)
                var next = 0
                for section in 0..<count {
                    if next < named.count && named[next] == section {
                        next += 1
                        continue
                    }
                    keepIfSame(section, from: section)
                }
            }
        } else if framesStillValid, context == nil {
            for section in 0..<count { keepIfSame(section, from: section) }
        }
        return _SectionPlan(kept: kept)
    }

    /// Starts a pass of `prepare()`: a store with the sections `plan` keeps
    /// (shared with the store before, not copied) and placeholders for the
    /// ones to lay out, and a value check that records bad values with
    /// their sections. The kept sections' bad values are reported again.
    ///
    /// The store is returned as a local value (inout access to a local pays
    /// no exclusivity check per item, which a stored property does). Lay out
    /// each section of ``_SectionPlan/sectionsToLayOut`` with
    /// ``_FrameStore/beginSection(_:itemCount:)`` and
    /// ``_FrameStore/endSection(bounds:header:footer:itemsAreBands:extent:columns:)``,
    /// then end the pass with ``endPass(_:)``.
    ///
    /// - Complexity: O(*s*) for *s* sections.
    func beginPass(plan: _SectionPlan, direction: ScrollDirection, stacksSections: Bool = true) -> (store: _FrameStore, check: _ValueCheck) {
        let old = store
        var pass = _FrameStore(direction: direction, stacksSections: stacksSections)
        pass.reset(keeping: plan.kept, from: old)
        let laidOutBefore = sectionsLaidOutDuringUpdate
        var laidOut: Set<Int>? = laidOutBefore == nil ? nil : []
        for (section, source) in plan.kept.enumerated() {
            guard source >= 0 else {
                laidOut?.insert(section)
                continue
            }
            let errors = old.sections[source].errors
            if !errors.isEmpty { for error in errors { recordError(error) } }
            if let laidOutBefore, !laidOutBefore.isEmpty, laidOutBefore.contains(source) { laidOut?.insert(section) }
        }
        sectionsLaidOutDuringUpdate = laidOut
        passErrors = []
        let check = _ValueCheck { [unowned self] error, section in
            recordError(error)
            if let section { passErrors.append((section, error)) }
        }
        return (pass, check)
    }

    /// Ends a pass: keeps the bad values met with their sections, places
    /// every section (stacked from 0) and keeps the frames. Returns where
    /// the content ends on the scroll axis (stacked), or 0.
    ///
    /// - Complexity: O(*s* + *e*) for *s* sections and *e* bad values met.
    @discardableResult
    func endPass(_ pass: _FrameStore) -> Double {
        var pass = pass
        var bySection: [Int: [LayoutError]] = [:]
        for (section, error) in passErrors { bySection[section, default: []].append(error) }
        for section in bySection.keys.sorted() { pass.recordErrors(bySection[section] ?? [], section: section) }
        passErrors = []
        let end = pass.layOutOrigins()
        store = pass
        store.checkInvariants()
        return end
    }

    // MARK: Self-sizing

    /// `true` while the layout is self-sizing and has no fitted size for the
    /// item.
    ///
    /// - Complexity: O(1) on average.
    open override func needsPreferredLayoutAttributes(forItemAt indexPath: IndexPath) -> Bool {
        isSelfSizing && fittedSizes[indexPath] == nil
    }

    /// `true` for an item of a self-sizing layout whose preferred size is
    /// valid (``Size/isValid``) and not the fitted size the layout already
    /// has for it (or it has none).
    ///
    /// - Complexity: O(1) on average.
    open override func shouldInvalidateLayout(forPreferredLayoutAttributes preferredAttributes: LayoutAttributes, withOriginalAttributes originalAttributes: LayoutAttributes) -> Bool {
        guard isSelfSizing, preferredAttributes.category == .cell, preferredAttributes.indexPath.count == 2,
              preferredAttributes.size.isValid else { return false }
        return fittedSizes[preferredAttributes.indexPath] != preferredAttributes.size
    }

    /// Keeps the item's preferred size as its fitted size and invalidates
    /// the item. The context's ``InvalidationContext/contentOffsetAdjustment``
    /// and ``InvalidationContext/contentSizeAdjustment`` are filled in by
    /// the next ``prepare()``: how far the first item visible now moves, and
    /// how much the content grows, so that a collection view that moves its
    /// content offset by the adjustment keeps that item where it is on
    /// screen.
    ///
    /// - Complexity: O(1) on average, plus one rect query over the visible
    ///   area for the first such context since the last ``prepare()``.
    open override func invalidationContext(forPreferredLayoutAttributes preferredAttributes: LayoutAttributes, withOriginalAttributes originalAttributes: LayoutAttributes) -> InvalidationContext {
        let context = super.invalidationContext(forPreferredLayoutAttributes: preferredAttributes, withOriginalAttributes: originalAttributes)
        guard shouldInvalidateLayout(forPreferredLayoutAttributes: preferredAttributes, withOriginalAttributes: originalAttributes) else { return context }
        fittedSizes[preferredAttributes.indexPath] = preferredAttributes.size
        if sizingAnchor == nil { sizingAnchor = makeSizingAnchor(for: context) }
        return context
    }

    // MARK: Queries

    /// Every header, footer and item whose frame intersects `rect` (elements
    /// that only touch it are left out), in order: sections ascending, and in
    /// each section its header and footer, then its items ascending.
    ///
    /// When the layout is flipped, `rect` is mirrored before the search and
    /// every frame returned is mirrored.
    ///
    /// - Complexity: O(log *n* + *k*) for *k* elements returned.
    open override func layoutAttributesForElements(in rect: Rect) -> [LayoutAttributes] {
        var result: [LayoutAttributes] = []
        let width = flipWidth
        let searched = width.map { Self.searchRect(mirroring: rect, inWidth: $0) } ?? rect
        store.forEachSection(meeting: searched) { section in
            let path = IndexPath(item: 0, section: section)
            for kind in Self.headerAndFooter {
                if let attributes = layoutAttributesForSupplementaryView(ofKind: kind, at: path), attributes.frame.intersects(rect) {
                    result.append(attributes)
                }
            }
        } item: { section, item, frame in
            guard let width else {
                result.append(.cell(at: IndexPath(item: item, section: section), frame: frame))
                return
            }
            let mirrored = frame.mirroredHorizontally(inWidth: width)
            if mirrored.intersects(rect) { result.append(.cell(at: IndexPath(item: item, section: section), frame: mirrored)) }
        }
        return result
    }

    /// The attributes of an item (mirrored when the layout is flipped), or
    /// `nil` when there is no such item.
    ///
    /// - Complexity: O(1).
    open override func layoutAttributesForItem(at indexPath: IndexPath) -> LayoutAttributes? {
        store.itemFrame(at: indexPath).map { .cell(at: indexPath, frame: flippedHorizontally($0)) }
    }

    /// The attributes of a section's header or footer (kinds
    /// ``ElementKind/sectionHeader`` and ``ElementKind/sectionFooter``, index
    /// path `[section, 0]`), mirrored when the layout is flipped, or `nil`
    /// when the section has none.
    ///
    /// - Complexity: O(1).
    open override func layoutAttributesForSupplementaryView(ofKind kind: String, at indexPath: IndexPath) -> LayoutAttributes? {
        guard indexPath.count >= 1, indexPath[0] >= 0, indexPath[0] < store.numberOfSections else { return nil }
        let section = indexPath[0]
        let path = IndexPath(item: 0, section: section)
        switch kind {
        case ElementKind.sectionHeader: return store.headerFrame(section).map { .supplementaryView(ofKind: kind, at: path, frame: flippedHorizontally($0)) }
        case ElementKind.sectionFooter: return store.footerFrame(section).map { .supplementaryView(ofKind: kind, at: path, frame: flippedHorizontally($0)) }
        default: return nil
        }
    }

    /// Attributes of the state before a batch update as the layout returned
    /// them then: mirrored across the content width of that state when the
    /// layout was flipped.
    private func flippedBeforeUpdate(_ attributes: LayoutAttributes?) -> LayoutAttributes? {
        guard let attributes, let width = flipWidthBeforeUpdate else { return attributes }
        return Self.mirrored(attributes, inWidth: width)
    }

    /// The index path an interactively moving item would take at
    /// `position`: the item whose frame contains it (the lowest index path
    /// when several do), else the item whose frame is nearest to it, the
    /// position first pulled inside the content (ties go to the lowest
    /// index path); `previousIndexPath` when there is no item with an area,
    /// or the position is not finite.
    ///
    /// So a position over a header, in a gap between items or past the end
    /// of a section targets the nearest item: over a header, the last item
    /// of the section before or the first of its own, whichever is nearer.
    /// Headers and footers never take a position, even pinned or sticky
    /// ones that cover items. An empty section has no item to target.
    ///
    /// - Complexity: O(log *n* + *k*) rect queries for *k* items near the
    ///   position (a few more, doubling their size, when it is far from
    ///   every item).
    open override func targetIndexPath(forInteractivelyMovingItem previousIndexPath: IndexPath, withPosition position: Point) -> IndexPath {
        _itemContaining(position) ?? _nearestItem(to: position) ?? previousIndexPath
    }

    // MARK: Updates

    package override func _captureStateBeforeUpdate() {
        buffers.capture(store)
        sectionsLaidOutDuringUpdate = []
        flipWidthBeforeUpdate = flipWidth
    }

    /// An inserted item starts at its final frame with alpha 0; an item that
    /// moves or shifts starts where it was before the update (as UIKit's flow
    /// layout does).
    open override func initialLayoutAttributesForAppearingItem(at itemIndexPath: IndexPath) -> LayoutAttributes? {
        super.initialLayoutAttributesForAppearingItem(at: itemIndexPath)
            ?? flippedBeforeUpdate(buffers.previousItem(at: itemIndexPath, mapping: updateIndexMapping))
    }

    /// A header or footer of an inserted section, or one a section that
    /// stays gains, starts at its final frame, faded as
    /// ``CollectionViewLayout/updateTransitionStyle`` says; any other starts
    /// where it was before the update.
    open override func initialLayoutAttributesForAppearingSupplementaryElement(ofKind elementKind: String, at elementIndexPath: IndexPath) -> LayoutAttributes? {
        if let attributes = super.initialLayoutAttributesForAppearingSupplementaryElement(ofKind: elementKind, at: elementIndexPath)
            ?? flippedBeforeUpdate(buffers.previousSupplementary(ofKind: elementKind, at: elementIndexPath, mapping: updateIndexMapping)) {
            return attributes
        }
        guard buffers.previous != nil, updateIndexMapping != nil else { return nil }
        return layoutAttributesForSupplementaryView(ofKind: elementKind, at: elementIndexPath).map(transitionStyleInDirection.appearing)
    }

    /// Headers and footers that appear with the update: those of inserted
    /// sections (as ``CollectionViewLayout`` says), and those a section that
    /// stays gains (a header given to a reloaded section, say, or a
    /// ``ListStackLayout`` header that shows once its section has items).
    ///
    /// - Complexity: O(*r* log *r*) for *r* sections the update laid out
    ///   again (Tessera's collection view names only the sections a batch
    ///   changes), plus the inserted sections.
    open override func indexPathsToInsertForSupplementaryView(ofKind elementKind: String) -> [IndexPath] {
        super.indexPathsToInsertForSupplementaryView(ofKind: elementKind) + presenceChanges(ofKind: elementKind).gained
    }

    /// Headers and footers that disappear with the update: those of deleted
    /// sections that were visible (as ``CollectionViewLayout`` says), and
    /// those a section that stays loses, at their index paths before it.
    ///
    /// - Complexity: O(*r* log *r*) for *r* sections the update laid out
    ///   again, plus the deleted sections.
    open override func indexPathsToDeleteForSupplementaryView(ofKind elementKind: String) -> [IndexPath] {
        super.indexPathsToDeleteForSupplementaryView(ofKind: elementKind) + presenceChanges(ofKind: elementKind).lost
    }

    /// A header or footer a section that stays loses ends at its old frame,
    /// faded as ``CollectionViewLayout/updateTransitionStyle`` says; one of a
    /// deleted section as ``CollectionViewLayout`` decides.
    open override func finalLayoutAttributesForDisappearingSupplementaryElement(ofKind elementKind: String, at elementIndexPath: IndexPath) -> LayoutAttributes? {
        if let attributes = super.finalLayoutAttributesForDisappearingSupplementaryElement(ofKind: elementKind, at: elementIndexPath) {
            return attributes
        }
        guard !elementIndexPath.isEmpty, let previous = buffers.previous, let mapping = updateIndexMapping,
              let section = mapping.sectionAfter(elementIndexPath[0]), supplementaryFrame(ofKind: elementKind, section: section, in: store) == nil,
              let frame = supplementaryFrame(ofKind: elementKind, section: elementIndexPath[0], in: previous)
        else { return nil }
        return flippedBeforeUpdate(.supplementaryView(ofKind: elementKind, at: elementIndexPath, frame: frame)).map(transitionStyleInDirection.disappearing)
    }

    /// The sections that stay through the update in progress and gain (index
    /// paths after it) or lose (index paths before it) a header or footer of
    /// `kind`. Only a section laid out since the batch began can: every
    /// other one shares its frames with the state before.
    ///
    /// - Complexity: O(*r* log *r*) for *r* sections laid out since the
    ///   batch began (every section when that is not known).
    private func presenceChanges(ofKind kind: String) -> (gained: [IndexPath], lost: [IndexPath]) {
        guard kind == ElementKind.sectionHeader || kind == ElementKind.sectionFooter,
              let previous = buffers.previous, let mapping = updateIndexMapping
        else { return ([], []) }
        var gained: [IndexPath] = []
        var lost: [IndexPath] = []
        let candidates = sectionsLaidOutDuringUpdate.map { $0.sorted() } ?? Array(0..<store.numberOfSections)
        for section in candidates where section < store.numberOfSections {
            guard let old = mapping.sectionBefore(section), old < previous.numberOfSections else { continue }
            let now = supplementaryFrame(ofKind: kind, section: section, in: store) != nil
            let then = supplementaryFrame(ofKind: kind, section: old, in: previous) != nil
            if now && !then { gained.append(IndexPath(item: 0, section: section)) }
            if then && !now { lost.append(IndexPath(item: 0, section: old)) }
        }
        lost.sort()
        return (gained, lost)
    }

    /// The resting frame of a section's header or footer in `frames`.
    private func supplementaryFrame(ofKind kind: String, section: Int, in frames: _FrameStore) -> Rect? {
        guard section >= 0 && section < frames.numberOfSections else { return nil }
        switch kind {
        case ElementKind.sectionHeader: return frames.headerFrame(section)
        case ElementKind.sectionFooter: return frames.footerFrame(section)
        default: return nil
        }
    }

    /// Forgets the update and the store before it.
    open override func finalizeCollectionViewUpdates() {
        super.finalizeCollectionViewUpdates()
        buffers.finish()
        sectionsLaidOutDuringUpdate = nil
        flipWidthBeforeUpdate = nil
    }
}

