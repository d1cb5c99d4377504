#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// What part of a layout to recompute (UIKit's
/// `UICollectionViewLayoutInvalidationContext`). Subclass it to carry more.
///
/// A layout recomputes only what its context names where it can: a context
/// naming items or sections lets it start from the first section touched.
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
    /// The first section whose supplementary or decoration views were named.
    public private(set) var firstInvalidatedSupplementarySection: Int?
    /// Whether the supplementary views this context names only move, with
    /// nothing about them to recompute (pinned or sticky headers after a
    /// scroll): layouts that place them when queried then recompute
    /// nothing. Layouts set it on the contexts they make for themselves.
    public var invalidatesPositionsOnly = false

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

    /// Names sections that changed (their content, sizes or counts), so a
    /// layout can recompute from the first such section on. A negative
    /// section counts as section 0.
    ///
    /// - Complexity: O(*k*) for *k* sections.
    public func invalidateSections(_ sections: [Int]) {
        noteSections(sections)
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
    }

    private func noteSupplementarySections(_ indexPaths: [IndexPath]) {
        guard let first = indexPaths.lazy.filter({ !$0.isEmpty }).map({ Swift.max(0, $0[0]) }).min() else { return }
        firstInvalidatedSupplementarySection = Swift.min(firstInvalidatedSupplementarySection ?? first, first)
    }

    private func noteSections(_ sections: [Int]) {
        guard let first = sections.min() else { return }
        let clamped = Swift.max(0, first)
        firstInvalidatedSection = Swift.min(firstInvalidatedSection ?? clamped, clamped)
    }
}

@available(*, unavailable)
extension InvalidationContext: Sendable {}
