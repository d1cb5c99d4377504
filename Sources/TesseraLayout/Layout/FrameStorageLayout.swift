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
/// It answers rect queries in O(log *n* + *k*) (headers and footers through
/// ``layoutAttributesForSupplementaryView(ofKind:at:)``, so a subclass that
/// pins them overrides only that), per-element queries in O(1), keeps the
/// frames of the state before a batch update to animate moved and shifted
/// elements from where they were, and reports its memory. To write a layout
/// of your own, subclass ``CollectionViewLayout`` (or one of the concrete
/// layouts).
open class FrameStorageLayout: CollectionViewLayout {
    /// The frames.
    var store: _FrameStore
    /// The stores kept around batch updates.
    var buffers = _UpdateBuffers()
    /// The size of the content by the layout's own rule, before it grows to
    /// enclose every frame (``collectionViewContentSize``).
    var naturalContentSize = Size.zero

    init(direction: ScrollDirection) {
        store = _FrameStore(direction: direction)
        super.init()
    }

    /// The size of the laid-out content: the size the layout's own rule
    /// gives, grown right and down to the furthest frame where one reaches
    /// past it, so that the content encloses every item, header and footer.
    ///
    /// - Complexity: O(1).
    open override var collectionViewContentSize: Size { store.enclosing(naturalContentSize) }

    /// The bytes the layout's frame storage reserves: what a prepared layout
    /// costs in memory beyond the object itself. After its first batch
    /// update a layout also keeps the previous frames' buffers for reuse
    /// (``spareStorageByteCount``).
    public var storageByteCount: Int { store.byteCount + additionalStorageByteCount }

    /// The bytes of the spare frame buffers kept for the next batch update.
    public var spareStorageByteCount: Int { buffers.spareByteCount }

    /// Storage a subclass keeps beside the frames (an index, per-section
    /// state), counted in ``storageByteCount``.
    var additionalStorageByteCount: Int { 0 }

    /// The supplementary kinds every section may have, in query order.
    static let headerAndFooter = [ElementKind.sectionHeader, ElementKind.sectionFooter]

    /// Bad values met by the pass in progress, with their sections.
    private var passErrors: [(section: Int, error: LayoutError)] = []

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
        store = _FrameStore(direction: direction)
        naturalContentSize = .zero
    }

    /// The first section a pass must lay out again: 0 when the frames kept
    /// are no longer good (`framesStillValid` false: another width, another
    /// direction), else the first section `context` names (0 when counts
    /// changed with none named), or none when nothing was invalidated.
    func firstSectionToLayOut(context: InvalidationContext?, framesStillValid: Bool, sectionCount: Int) -> Int {
        guard framesStillValid else { return 0 }
        let kept = store.numberOfSections
        return Swift.min(context?.firstSectionToRecompute ?? kept, kept, sectionCount)
    }

    /// Starts a pass of `prepare()` that keeps the sections before `first`.
    ///
    /// Returns the frames to lay out into, as a local value (inout access
    /// to a local pays no exclusivity check per item, which a stored
    /// property does), moved to the spare buffers during a batch update, with
    /// the sections from `first` on dropped (or, from 0, emptied and sized
    /// for every item); and a value check that records bad values with their
    /// sections. The errors of the kept sections are reported again. End
    /// the pass with ``endPass(_:)``.
    ///
    /// - Complexity: O(*s*) for the sections, plus a copy of the kept
    ///   sections when laying out into the spare buffers.
    func beginPass(keepingSections first: Int, direction: ScrollDirection, environment: any LayoutEnvironment) -> (store: _FrameStore, check: _ValueCheck) {
        buffers.takeSpare(for: &self.store, keepingSections: first)
        var pass = self.store
        self.store = _FrameStore(direction: pass.direction)
        if first == 0 {
            var total = 0
            for section in 0..<environment.numberOfSections { total += Swift.max(0, environment.numberOfItems(inSection: section)) }
            pass.removeAll(reservingItems: total)
            pass.direction = direction
        } else {
            pass.truncate(toSections: first)
        }
        for kept in pass.sectionErrors { recordError(kept.error) }
        passErrors = []
        let check = _ValueCheck { [unowned self] error, section in
            recordError(error)
            if let section { passErrors.append((section, error)) }
        }
        return (pass, check)
    }

    /// Ends a pass: keeps the frames laid out and the bad values met.
    func endPass(_ pass: _FrameStore) {
        store = pass
        store.sectionErrors += passErrors
        passErrors = []
        store.checkInvariants()
    }

    // MARK: Queries

    /// Every header, footer and item whose frame intersects `rect` (elements
    /// that only touch it are left out), in order: sections ascending, and in
    /// each section its header and footer, then its items ascending.
    ///
    /// - Complexity: O(log *n* + *k*) for *k* elements returned.
    open override func layoutAttributesForElements(in rect: Rect) -> [LayoutAttributes] {
        var result: [LayoutAttributes] = []
        store.forEachSection(meeting: rect) { section in
            let path = IndexPath(item: 0, section: section)
            for kind in Self.headerAndFooter {
                if let attributes = layoutAttributesForSupplementaryView(ofKind: kind, at: path), attributes.frame.intersects(rect) {
                    result.append(attributes)
                }
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

    /// The attributes of a section's header or footer (kinds
    /// ``ElementKind/sectionHeader`` and ``ElementKind/sectionFooter``, index
    /// path `[section, 0]`), or `nil` when the section has none.
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

    /// A header or footer of an inserted section, or one a section that
    /// stays gains, starts at its final frame, faded as
    /// ``CollectionViewLayout/updateTransitionStyle`` says; any other starts
    /// where it was before the update.
    open override func initialLayoutAttributesForAppearingSupplementaryElement(ofKind elementKind: String, at elementIndexPath: IndexPath) -> LayoutAttributes? {
        if let attributes = super.initialLayoutAttributesForAppearingSupplementaryElement(ofKind: elementKind, at: elementIndexPath)
            ?? buffers.previousSupplementary(ofKind: elementKind, at: elementIndexPath, mapping: updateIndexMapping) {
            return attributes
        }
        guard buffers.previous != nil, updateIndexMapping != nil else { return nil }
        return layoutAttributesForSupplementaryView(ofKind: elementKind, at: elementIndexPath).map(updateTransitionStyle.appearing)
    }

    /// Headers and footers that appear with the update: those of inserted
    /// sections (as ``CollectionViewLayout`` says), and those a section that
    /// stays gains (a header given to a reloaded section, say, or a
    /// ``ListStackLayout`` header that shows once its section has items).
    ///
    /// - Complexity: O(*s*) for *s* sections.
    open override func indexPathsToInsertForSupplementaryView(ofKind elementKind: String) -> [IndexPath] {
        super.indexPathsToInsertForSupplementaryView(ofKind: elementKind) + presenceChanges(ofKind: elementKind).gained
    }

    /// Headers and footers that disappear with the update: those of deleted
    /// sections that were visible (as ``CollectionViewLayout`` says), and
    /// those a section that stays loses, at their index paths before it.
    ///
    /// - Complexity: O(*s*) for *s* sections.
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
        return updateTransitionStyle.disappearing(.supplementaryView(ofKind: elementKind, at: elementIndexPath, frame: frame))
    }

    /// The sections that stay through the update in progress and gain (index
    /// paths after it) or lose (index paths before it) a header or footer of
    /// `kind`.
    ///
    /// - Complexity: O(*s*) for *s* sections.
    private func presenceChanges(ofKind kind: String) -> (gained: [IndexPath], lost: [IndexPath]) {
        guard kind == ElementKind.sectionHeader || kind == ElementKind.sectionFooter,
              let previous = buffers.previous, let mapping = updateIndexMapping
        else { return ([], []) }
        var gained: [IndexPath] = []
        var lost: [IndexPath] = []
        for section in 0..<store.numberOfSections {
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
        case ElementKind.sectionHeader: return frames.headerFrames[section]
        case ElementKind.sectionFooter: return frames.footerFrames[section]
        default: return nil
        }
    }

    /// Forgets the update; the store before it becomes the spare buffers.
    open override func finalizeCollectionViewUpdates() {
        super.finalizeCollectionViewUpdates()
        buffers.finish()
    }
}

