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

    /// Creates a context that invalidates nothing yet.
    public init(invalidateEverything: Bool = false, invalidateDataSourceCounts: Bool = false) {
        self.invalidateEverything = invalidateEverything
        self.invalidateDataSourceCounts = invalidateDataSourceCounts
    }

    /// A context that invalidates everything.
    public static func everything() -> InvalidationContext {
        InvalidationContext(invalidateEverything: true)
    }

    /// Adds items to recompute.
    public func invalidateItems(at indexPaths: [IndexPath]) {
        invalidatedItemIndexPaths += indexPaths
        noteSections(indexPaths.map { $0[0] })
    }

    /// Adds supplementary views of a kind to recompute.
    public func invalidateSupplementaryElements(ofKind kind: String, at indexPaths: [IndexPath]) {
        invalidatedSupplementaryIndexPaths[kind, default: []] += indexPaths
    }

    /// Adds decoration views of a kind to recompute.
    public func invalidateDecorationElements(ofKind kind: String, at indexPaths: [IndexPath]) {
        invalidatedDecorationIndexPaths[kind, default: []] += indexPaths
    }

    /// Names a section that changed (its content, sizes or counts), so a
    /// layout can recompute from the first such section on.
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

    /// Folds another context into this one.
    open func merge(_ other: InvalidationContext) {
        invalidateEverything = invalidateEverything || other.invalidateEverything
        invalidateDataSourceCounts = invalidateDataSourceCounts || other.invalidateDataSourceCounts
        invalidatedItemIndexPaths += other.invalidatedItemIndexPaths
        invalidatedSupplementaryIndexPaths.merge(other.invalidatedSupplementaryIndexPaths, uniquingKeysWith: +)
        invalidatedDecorationIndexPaths.merge(other.invalidatedDecorationIndexPaths, uniquingKeysWith: +)
        contentOffsetAdjustment = Point(x: contentOffsetAdjustment.x + other.contentOffsetAdjustment.x,
                                        y: contentOffsetAdjustment.y + other.contentOffsetAdjustment.y)
        contentSizeAdjustment = Size(width: contentSizeAdjustment.width + other.contentSizeAdjustment.width,
                                     height: contentSizeAdjustment.height + other.contentSizeAdjustment.height)
        if let section = other.firstInvalidatedSection { noteSections([section]) }
    }

    private func noteSections(_ sections: [Int]) {
        guard let first = sections.min() else { return }
        firstInvalidatedSection = Swift.min(firstInvalidatedSection ?? first, first)
    }
}

@available(*, unavailable)
extension InvalidationContext: Sendable {}
