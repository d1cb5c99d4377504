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
        /// 1. Item content updates, at the items' old index paths.
        case itemReloads
        /// 2. Section and item deletes.
        case deletes
        /// 3. Section inserts and moves.
        case sectionInsertsAndMoves
        /// 4. Item inserts and moves, including moves across sections.
        case itemInsertsAndMoves
        /// 5. Section content updates, at the sections' new indexes.
        case sectionReloads
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
    /// - Throws: ``BatchValidationError`` when `sectionCountBefore` is
    ///   negative, or the changeset's section operations do not fit it (out
    ///   of range, named twice, or more deletes than sections).
    /// - Complexity: O(*s* + *k* log *k*) for *s* sections and *k* operations.
    public init(_ changeset: Changeset, sectionCountBefore: Int) throws(BatchValidationError) {
        guard sectionCountBefore >= 0 else { throw .negativeSectionCount(count: sectionCountBefore, space: .before) }
        let deletedSections = changeset.sectionDeletes.sorted()
        let sectionCountAfter = sectionCountBefore - deletedSections.count + changeset.sectionInserts.count
        guard sectionCountAfter >= 0 else {
            throw .invalidSectionCount(
                before: sectionCountBefore, after: sectionCountAfter,
                inserted: changeset.sectionInserts.count, deleted: deletedSections.count
            )
        }

        // Where each old section is after stages 2 and 3: the section
        // operations checked as a batch of their own.
        var sectionPlan = try _BatchPlan(parsing:
            changeset.sectionDeletes.map { .deleteSection($0) }
                + changeset.sectionInserts.map { .insertSection($0) }
                + changeset.sectionMoves.map { .moveSection($0.from, to: $0.to) }
        )
        try sectionPlan.checkSections(oldCount: sectionCountBefore, newCount: sectionCountAfter)
        let sectionTarget = sectionPlan.sectionTarget

        // An old section's index once the deleted sections are gone.
        func afterSectionDeletes(_ s: Int) -> Int {
            s - _Placement.count(below: s, in: deletedSections)
        }
        // Deleted items of each old section, sorted, to shift move sources.
        let deletedItems = _ItemOperationsBySection(deletes: changeset.itemDeletes).sorted().deletes

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
        var itemMoves: [UpdateItem] = []
        for move in changeset.itemMoves.sorted(by: { $0.from < $1.from }) {
            let s = move.from[0]
            guard s >= 0 && s < sectionCountBefore else {
                throw .sectionOfItemOutOfRange(action: .move, indexPath: move.from, sectionCount: sectionCountBefore, space: .before)
            }
            guard let section = sectionTarget[s] else {
                throw .itemInDeletedSection(action: .move, indexPath: move.from)
            }
            let item = move.from[1] - _Placement.count(below: move.from[1], in: deletedItems[s] ?? [])
            itemMoves.append(.moveItem(from: IndexPath(item: item, section: section), to: move.to))
        }
        add(.itemInsertsAndMoves, changeset.itemInserts.sorted().map { .insertItem(at: $0) } + itemMoves)
        add(.sectionReloads, changeset.sectionUpdates.map(\.to).sorted().map { .reloadSection($0) })
        self.steps = steps
    }
}
