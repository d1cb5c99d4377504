#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A changeset as a sequence of batches, each valid under UIKit's rules
/// against the state the previous one left, for targets that cannot mix
/// operations in one batch.
///
/// The stages, in order (empty ones are left out):
/// 1. ``Stage/itemReloads``: content updates of items, at their old index paths;
/// 2. ``Stage/deletes``: section and item deletes;
/// 3. ``Stage/sectionInsertsAndMoves``;
/// 4. ``Stage/itemInsertsAndMoves``, including moves across sections;
/// 5. ``Stage/sectionReloads``: content updates of sections, at their new
///    indexes.
///
/// Replaying every stage on the old snapshot gives the new snapshot exactly.
public struct StagedBatchUpdate: Hashable, Codable, Sendable {
    /// One of the five kinds of stage.
    public enum Stage: String, Hashable, Codable, Sendable, CaseIterable {
        case itemReloads, deletes, sectionInsertsAndMoves, itemInsertsAndMoves, sectionReloads
    }

    /// One batch and the stage it is.
    public struct Step: Hashable, Codable, Sendable {
        /// Which stage this is.
        public var stage: Stage
        /// The batch, in index paths of the state before this step.
        public var items: [UpdateItem]

        /// Creates a step from its parts.
        public init(stage: Stage, items: [UpdateItem]) {
            self.stage = stage
            self.items = items
        }
    }

    /// The non-empty stages, in order.
    public var steps: [Step]

    /// Creates staged batches from their parts.
    public init(steps: [Step]) {
        self.steps = steps
    }

    /// Converts a changeset into staged batches.
    ///
    /// - Parameters:
    ///   - changeset: A changeset in UIKit's index spaces, such as
    ///     ``diff(from:to:)-(Snapshot<Section,Item>,_)`` returns.
    ///   - sectionCountBefore: The number of sections before the change,
    ///     which places the sections that do not move.
    /// - Complexity: O(*s* + *k* log *k*) for *s* sections and *k* operations.
    public init(_ changeset: Changeset, sectionCountBefore: Int) {
        let deletedSections = changeset.sectionDeletes.sorted()
        let sectionCountAfter = sectionCountBefore - deletedSections.count + changeset.sectionInserts.count

        // Where each old section is after stages 2 and 3.
        var removed = [Bool](repeating: false, count: sectionCountBefore)
        var placed = [Bool](repeating: false, count: Swift.max(sectionCountAfter, 0))
        for s in deletedSections where s >= 0 && s < sectionCountBefore { removed[s] = true }
        for t in changeset.sectionInserts where t >= 0 && t < placed.count { placed[t] = true }
        for move in changeset.sectionMoves where move.from < sectionCountBefore && move.to < placed.count {
            removed[move.from] = true
            placed[move.to] = true
        }
        var sectionTarget = _Placement.survivorTargets(countBefore: sectionCountBefore, removed: removed, placed: placed)
            ?? [Int?](repeating: nil, count: sectionCountBefore)
        for move in changeset.sectionMoves where move.from < sectionCountBefore { sectionTarget[move.from] = move.to }

        // An old section's index once the deleted sections are gone.
        func afterSectionDeletes(_ s: Int) -> Int {
            s - Self.countBelow(s, in: deletedSections)
        }
        // Deleted items of each old section, sorted, to shift move sources.
        var deletedItems: [Int: [Int]] = [:]
        for path in changeset.itemDeletes { deletedItems[path[0], default: []].append(path[1]) }
        for key in deletedItems.keys { deletedItems[key]?.sort() }

        var steps: [Step] = []
        func add(_ stage: Stage, _ items: [UpdateItem]) {
            if !items.isEmpty { steps.append(Step(stage: stage, items: items)) }
        }
        add(.itemReloads, changeset.itemUpdates.map(\.from).sorted().map { .reloadItem(at: $0) })
        add(.deletes, deletedSections.map { .deleteSection($0) } + changeset.itemDeletes.sorted().map { .deleteItem(at: $0) })
        add(
            .sectionInsertsAndMoves,
            changeset.sectionInserts.sorted().map { .insertSection($0) }
                + changeset.sectionMoves.sorted { $0.from < $1.from }.map { .moveSection(afterSectionDeletes($0.from), to: $0.to) }
        )
        let itemMoves = changeset.itemMoves.sorted { $0.from < $1.from }.map { move -> UpdateItem in
            let s = move.from[0]
            let item = move.from[1] - Self.countBelow(move.from[1], in: deletedItems[s] ?? [])
            let section = s < sectionTarget.count ? sectionTarget[s] ?? s : s
            return .moveItem(from: IndexPath(item: item, section: section), to: move.to)
        }
        add(.itemInsertsAndMoves, changeset.itemInserts.sorted().map { .insertItem(at: $0) } + itemMoves)
        add(.sectionReloads, changeset.sectionUpdates.map(\.to).sorted().map { .reloadSection($0) })
        self.steps = steps
    }

    /// The number of elements of a sorted array that are less than `value`.
    private static func countBelow(_ value: Int, in sorted: [Int]) -> Int {
        var low = 0
        var high = sorted.count
        while low < high {
            let mid = (low + high) / 2
            if sorted[mid] < value { low = mid + 1 } else { high = mid }
        }
        return low
    }
}
