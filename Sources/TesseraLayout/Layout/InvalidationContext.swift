#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif
public import TesseraDiff

/// What part of a layout to recompute (UIKit's
/// `UICollectionViewLayoutInvalidationContext`). Subclass it to carry more.
///
/// A layout recomputes only what its context names where it can. Tessera's
/// layouts (``FrameStorageLayout``) read a context this way:
/// - Everything (``invalidateEverything``, as ``CollectionViewLayout/invalidateLayout()``
///   and a change of width make): every section is laid out again.
/// - A batch update (``invalidateSections(_:updateIndexMapping:)``, which a
///   ``CollectionView`` makes for every batch): the sections the batch
///   names are laid out again, and every other section keeps its frames,
///   moved to its index after the update and shifted by the change in
///   extent of the sections before it.
/// - Counts changed with no mapping: every section from the first one named
///   on (section 0 when none is) is laid out again.
/// - Otherwise: the sections named (through their items, or their
///   supplementary views unless ``invalidatesPositionsOnly``) are laid out
///   again, and the others keep their frames. A self-sizing ``ListLayout``
///   given a context that names only items (as one for a preferred size
///   does) sets their heights in place instead.
///
/// A layout that keeps a section's frames assumes that nothing it reads
/// for that section changed: a delegate whose answers change for a section
/// that no batch names must invalidate that section (as in UIKit).
///
/// Not thread-safe.
open class InvalidationContext {
    /// Recompute everything.
    public var invalidateEverything: Bool
    /// The numbers of sections or items changed.
    public var invalidateDataSourceCounts: Bool
    /// Items whose attributes must be recomputed.
    public private(set) var invalidatedItemIndexPaths: [IndexPath] = []
    /// Supplementary views to recompute, by kind.
    public private(set) var invalidatedSupplementaryIndexPaths: [String: [IndexPath]] = [:]
    /// Decoration views to recompute, by kind.
    public private(set) var invalidatedDecorationIndexPaths: [String: [IndexPath]] = [:]
    /// A change the collection view should make to its content offset.
    public var contentOffsetAdjustment: Point = .zero
    /// A change to the content size.
    public var contentSizeAdjustment: Size = .zero
    /// The first section that changed, for layouts that recompute from
    /// there on; `nil` when none was named.
    public var firstInvalidatedSection: Int?
    /// The sections named so far (0 for a negative one), in any order and
    /// with repeats; ``invalidatedSections`` sorts them.
    private var namedSections: [Int] = []
    /// The mapping of the batch update this context describes, or `nil`.
    ///
    /// With a mapping, ``invalidatedSections`` (indexes after the update)
    /// are all the sections whose content the batch changes: a layout may
    /// keep every other section's frames, at the index the mapping gives it.
    /// Set by ``invalidateSections(_:updateIndexMapping:)``; merging two
    /// contexts that both carry one drops it (the layout then recomputes from
    /// the first section named on).
    public private(set) var updateIndexMapping: BatchIndexMapping?
    /// Whether sections were named for themselves rather than through their
    /// items: a layout that can resize single items in place lays them out
    /// again.
    package private(set) var namesSectionsDirectly = false
    /// Whether ``merge(_:)`` met two mappings.
    private var mappingsMerged = false
    /// The first section whose supplementary or decoration views were named.
    public private(set) var firstInvalidatedSupplementarySection: Int?
    /// Whether the supplementary views this context names only move, with
    /// nothing about them to recompute (pinned or sticky headers after a
    /// scroll): layouts that place them when queried then recompute
    /// nothing. Layouts set it on the contexts they make for themselves.
    public var invalidatesPositionsOnly = false

    /// The position interactively moving items follow, in content
    /// coordinates (UIKit's `interactiveMovementTarget`); zero unless the
    /// context was made by
    /// ``CollectionViewLayout/invalidationContext(forInteractivelyMovingItems:withTargetPosition:previousIndexPaths:previousPosition:)``.
    public internal(set) var interactiveMovementTarget: Point = .zero
    /// The index paths interactively moving items had before this step, or
    /// `nil` when the context is not about an interactive movement.
    public internal(set) var previousIndexPathsForInteractivelyMovingItems: [IndexPath]?
    /// The index paths interactively moving items take with this step (the
    /// final ones when the movement ends), or `nil` when the context is not
    /// about an interactive movement.
    public internal(set) var targetIndexPathsForInteractivelyMovingItems: [IndexPath]?

    /// Creates a context that invalidates nothing yet.
    public init(invalidateEverything: Bool = false, invalidateDataSourceCounts: Bool = false) {
        self.invalidateEverything = invalidateEverything
        self.invalidateDataSourceCounts = invalidateDataSourceCounts
    }

    /// A context that invalidates everything.
    public static func everything() -> InvalidationContext {
        InvalidationContext(invalidateEverything: true)
    }

    /// Adds items to recompute (index paths with no section are ignored).
    ///
    /// - Complexity: O(*k*) for *k* index paths.
    public func invalidateItems(at indexPaths: [IndexPath]) {
        let valid = indexPaths.filter { !$0.isEmpty }
        invalidatedItemIndexPaths += valid
        noteSections(valid.map { $0[0] })
    }

    /// Adds supplementary views of a kind to recompute.
    ///
    /// - Complexity: O(*k*) for *k* index paths.
    public func invalidateSupplementaryElements(ofKind kind: String, at indexPaths: [IndexPath]) {
        invalidatedSupplementaryIndexPaths[kind, default: []] += indexPaths
        noteSupplementarySections(indexPaths)
    }

    /// Adds decoration views of a kind to recompute.
    ///
    /// - Complexity: O(*k*) for *k* index paths.
    public func invalidateDecorationElements(ofKind kind: String, at indexPaths: [IndexPath]) {
        invalidatedDecorationIndexPaths[kind, default: []] += indexPaths
        noteSupplementarySections(indexPaths)
    }

    /// Names sections that changed (their content, sizes or counts). A
    /// layout recomputes them (and, when counts changed with no
    /// ``updateIndexMapping``, every section after the first of them); a
    /// negative section counts as section 0.
    ///
    /// - Complexity: O(*k*) for *k* sections.
    public func invalidateSections(_ sections: [Int]) {
        namesSectionsDirectly = true
        noteSections(sections)
    }

    /// Describes a batch update: the counts changed as `mapping` says, and
    /// `sections` (indexes after the update) are the sections whose content
    /// changed: those with an item inserted, deleted, moved in or out, or
    /// reloaded, and inserted or reloaded sections. Every other section
    /// keeps its content, at the index `mapping` gives it, so a layout may
    /// keep its frames and only shift them.
    ///
    /// ```swift
    /// let context = InvalidationContext()
    /// context.invalidateSections([3], updateIndexMapping: mapping)  // an item inserted in section 3
    /// layout.invalidateLayout(with: context)
    /// ```
    ///
    /// A ``CollectionView`` makes this context for every batch.
    ///
    /// - Complexity: O(*k*) for *k* sections.
    public func invalidateSections(_ sections: [Int], updateIndexMapping mapping: BatchIndexMapping) {
        invalidateDataSourceCounts = true
        namesSectionsDirectly = true
        if updateIndexMapping != nil || mappingsMerged {
            mappingsMerged = true
            updateIndexMapping = nil
        } else {
            updateIndexMapping = mapping
        }
        noteSections(sections)
    }

    /// Every section named, through ``invalidateSections(_:)``,
    /// ``invalidateSections(_:updateIndexMapping:)`` or the items of
    /// ``invalidateItems(at:)``: ascending, without repeats (negative ones
    /// as 0).
    ///
    /// - Complexity: O(*k* log *k*) for *k* sections named.
    public var invalidatedSections: [Int] {
        Array(Set(namedSections)).sorted()
    }

    /// Every section whose supplementary or decoration views were named:
    /// ascending, without repeats (negative ones as 0).
    ///
    /// - Complexity: O(*k* log *k*) for *k* index paths named.
    public var invalidatedSupplementarySections: [Int] {
        var sections = Set<Int>()
        for paths in invalidatedSupplementaryIndexPaths.values { for path in paths where !path.isEmpty { sections.insert(Swift.max(0, path[0])) } }
        for paths in invalidatedDecorationIndexPaths.values { for path in paths where !path.isEmpty { sections.insert(Swift.max(0, path[0])) } }
        return sections.sorted()
    }

    /// Whether the context names only supplementary or decoration views
    /// (for example, pinned headers after a scroll).
    public var invalidatesOnlySupplementaryElements: Bool {
        !invalidateEverything && !invalidateDataSourceCounts && invalidatedItemIndexPaths.isEmpty
            && firstInvalidatedSection == nil
            && (!invalidatedSupplementaryIndexPaths.isEmpty || !invalidatedDecorationIndexPaths.isEmpty)
    }

    /// The first section a layout must recompute from: the first section
    /// named (by its items, or by its supplementary views unless
    /// ``invalidatesPositionsOnly``), section 0 when counts changed and no
    /// section was named, and `nil` when neither.
    public var firstSectionToRecompute: Int? {
        if invalidateDataSourceCounts || invalidateEverything, firstInvalidatedSection == nil { return 0 }
        let supplementary = invalidatesPositionsOnly ? nil : firstInvalidatedSupplementarySection
        return [firstInvalidatedSection, supplementary].compactMap { $0 }.min()
    }

    /// Folds another context into this one. Counts changed with no section
    /// named means "from section 0", and stays so after the merge.
    ///
    /// - Complexity: O(*k*) for the *k* index paths of `other`.
    open func merge(_ other: InvalidationContext) {
        let first = [firstSectionToRecompute, other.firstSectionToRecompute].compactMap { $0 }.min()
        let supplementary = [firstInvalidatedSupplementarySection, other.firstInvalidatedSupplementarySection].compactMap { $0 }.min()
        invalidatesPositionsOnly = invalidatesPositionsOnly && other.invalidatesPositionsOnly
        firstInvalidatedSupplementarySection = supplementary
        invalidateEverything = invalidateEverything || other.invalidateEverything
        invalidateDataSourceCounts = invalidateDataSourceCounts || other.invalidateDataSourceCounts
        invalidatedItemIndexPaths += other.invalidatedItemIndexPaths
        invalidatedSupplementaryIndexPaths.merge(other.invalidatedSupplementaryIndexPaths, uniquingKeysWith: +)
        invalidatedDecorationIndexPaths.merge(other.invalidatedDecorationIndexPaths, uniquingKeysWith: +)
        contentOffsetAdjustment = Point(x: contentOffsetAdjustment.x + other.contentOffsetAdjustment.x,
                                        y: contentOffsetAdjustment.y + other.contentOffsetAdjustment.y)
        contentSizeAdjustment = Size(width: contentSizeAdjustment.width + other.contentSizeAdjustment.width,
                                     height: contentSizeAdjustment.height + other.contentSizeAdjustment.height)
        firstInvalidatedSection = first
        namedSections += other.namedSections
        if let mapping = other.updateIndexMapping {
            if updateIndexMapping != nil || mappingsMerged {
                mappingsMerged = true
                updateIndexMapping = nil
            } else {
                updateIndexMapping = mapping
            }
        }
        mappingsMerged = mappingsMerged || other.mappingsMerged
        if let targets = other.targetIndexPathsForInteractivelyMovingItems {
            targetIndexPathsForInteractivelyMovingItems = targets
            previousIndexPathsForInteractivelyMovingItems = other.previousIndexPathsForInteractivelyMovingItems
            interactiveMovementTarget = other.interactiveMovementTarget
        }
        namesSectionsDirectly = namesSectionsDirectly || other.namesSectionsDirectly
    }

    private func noteSupplementarySections(_ indexPaths: [IndexPath]) {
        guard let first = indexPaths.lazy.filter({ !$0.isEmpty }).map({ Swift.max(0, $0[0]) }).min() else { return }
        firstInvalidatedSupplementarySection = Swift.min(firstInvalidatedSupplementarySection ?? first, first)
    }

    private func noteSections(_ sections: [Int]) {
        namedSections += sections.lazy.map { Swift.max(0, $0) }
        guard let first = sections.min() else { return }
        let clamped = Swift.max(0, first)
        firstInvalidatedSection = Swift.min(firstInvalidatedSection ?? clamped, clamped)
    }
}

@available(*, unavailable)
extension InvalidationContext: Sendable {}
