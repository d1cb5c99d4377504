#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import TesseraDiff

/// The fitted sizes of a layout's self-sizing items, by section and item.
///
/// They follow the layout's invalidations (``follow(_:framesStillValid:)``):
/// a batch update moves them with their items (a section the batch leaves
/// alone moves as a whole, at O(1)), a reload of the data or a change of
/// the width forgets them all, and counts changed with no mapping forget
/// them from the first section named on.
struct _FittedSizes {
    private var bySection: [Int: [Int: Size]] = [:]

    /// Whether no item has a fitted size.
    var isEmpty: Bool { bySection.isEmpty }

    /// An item's fitted size.
    subscript(indexPath: IndexPath) -> Size? {
        get {
            guard indexPath.count == 2 else { return nil }
            return bySection[indexPath[0]]?[indexPath[1]]
        }
        set {
            guard indexPath.count == 2 else { return }
            bySection[indexPath[0], default: [:]][indexPath[1]] = newValue
        }
    }

    /// The fitted sizes of a section's items, by item, or `nil` when it has
    /// none.
    func sizes(inSection section: Int) -> [Int: Size]? { bySection[section] }

    /// Forgets the fitted sizes of items (index paths after the update in
    /// progress): reloaded items, whose content is new.
    mutating func remove(_ indexPaths: [IndexPath]) {
        for path in indexPaths where path.count == 2 {
            bySection[path[0]]?[path[1]] = nil
        }
    }

    /// Follows an invalidation, before a pass lays out again.
    ///
    /// - Complexity: O(*f* log² *k*) for the *f* fitted sizes of the
    ///   sections a batch of *k* operations changes, plus O(*t*) for the *t*
    ///   sections with fitted sizes.
    mutating func follow(_ context: InvalidationContext?, framesStillValid: Bool) {
        guard !bySection.isEmpty else { return }
        guard framesStillValid else {
            bySection = [:]
            return
        }
        guard let context else { return }
        if context.invalidateEverything && context.invalidateDataSourceCounts {
            bySection = [:]
        } else if let mapping = context.updateIndexMapping {
            let changed = Set(context.invalidatedSections)
            var next: [Int: [Int: Size]] = [:]
            for (section, sizes) in bySection {
                guard let after = mapping.sectionAfter(section), !mapping.isSectionReloaded(section) else { continue }
                if !changed.contains(after) {
                    next[after] = sizes
                    continue
                }
                for (item, size) in sizes {
                    guard let path = mapping.indexPathAfter(IndexPath(item: item, section: section)) else { continue }
                    next[path[0], default: [:]][path[1]] = size
                }
            }
            bySection = next
        } else if context.invalidateDataSourceCounts {
            let first = context.firstSectionToRecompute ?? 0
            bySection = bySection.filter { $0.key < first }
        }
    }
}

/// Where the first visible item was when a layout made the first context
/// for a preferred size since its last pass, and that context.
struct _SizingAnchor {
    /// The context whose adjustments the next pass fills in.
    let context: InvalidationContext
    /// The first visible item, and its frame's leading edge on the scroll
    /// axis (its right edge when a horizontal layout is flipped).
    let indexPath: IndexPath?
    let minS: Double
    /// The content size then.
    let contentSize: Size
}

extension FrameStorageLayout {
    /// The anchor for a context: the first item the visible area shows now.
    ///
    /// - Complexity: one rect query over the visible area.
    func makeSizingAnchor(for context: InvalidationContext) -> _SizingAnchor {
        let first = collectionView.flatMap { environment in
            layoutAttributesForElements(in: environment.bounds).first { $0.category == .cell }
        }
        return _SizingAnchor(
            context: context, indexPath: first?.indexPath,
            minS: first.map { leadingS($0.frame) } ?? 0, contentSize: collectionViewContentSize
        )
    }

    /// Where a returned frame starts along the scroll axis, on the side the
    /// content starts from: its right edge when a horizontal layout is
    /// flipped right to left, its left or top edge otherwise.
    func leadingS(_ frame: Rect) -> Double {
        store.direction == .horizontal && isFlippedHorizontally ? frame.maxX : store.direction.minS(frame)
    }

    /// Ends a pass that followed contexts for preferred sizes: the anchored
    /// context's ``InvalidationContext/contentOffsetAdjustment`` becomes how
    /// far the anchor item's leading edge moved on the scroll axis (its
    /// right edge for a horizontal layout flipped right to left, so that the
    /// item keeps its place on screen on the side the content starts), and its
    /// ``InvalidationContext/contentSizeAdjustment`` how much the content
    /// grew. Layouts that support self-sizing call it at the end of
    /// `prepare()`.
    ///
    /// - Complexity: O(1) for Tessera's layouts.
    func settleSizingAdjustments() {
        guard let anchor = sizingAnchor else { return }
        sizingAnchor = nil
        let size = collectionViewContentSize
        anchor.context.contentSizeAdjustment = Size(
            width: size.width - anchor.contentSize.width, height: size.height - anchor.contentSize.height
        )
        guard let path = anchor.indexPath, let frame = layoutAttributesForItem(at: path)?.frame else { return }
        let delta = leadingS(frame) - anchor.minS
        anchor.context.contentOffsetAdjustment = store.direction == .vertical ? Point(x: 0, y: delta) : Point(x: delta, y: 0)
    }

    /// Forgets the fitted sizes of reloaded items (index paths after the
    /// update in progress), so that they are asked for again.
    package func _discardFittedSizes(forItemsAt indexPaths: [IndexPath]) {
        fittedSizes.remove(indexPaths)
    }
}
