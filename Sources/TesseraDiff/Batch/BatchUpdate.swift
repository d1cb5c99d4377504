#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What a single batch does with an element that both moves and changes
/// content, which UIKit cannot express as one operation.
public enum MoveAndUpdatePolicy: String, Hashable, Codable, Sendable, CaseIterable {
    /// Delete it at its old position and insert it at its new one (as
    /// IGListKit does): one batch, but the cell loses its identity.
    case deleteAndInsert
    /// Move it, then reload it at its new position in a second pass
    /// (``BatchUpdate/followUpReloads``): the cell keeps its identity.
    case moveThenReload
}

/// A changeset as one batch that UIKit accepts, plus an optional second pass
/// of reloads.
///
/// The batch obeys UIKit's rules (``BatchValidator/Rules/uikit``):
/// - No section move has item operations inside it: such a section is
///   deleted and inserted instead (items moving into or out of it become
///   inserts or deletes).
/// - No section reload has item operations inside it, and no element is both
///   moved and reloaded: a section or item that changed content and also
///   moved (or, for a section, had item changes) follows `policy`.
///
/// ```swift
/// let changes = try diff(from: old, to: new)
/// let batch = BatchUpdate(changes, policy: .moveThenReload)
/// // perform batch.items, then batch.followUpReloads if not empty
/// ```
///
/// Items are ordered section deletes, inserts, moves, reloads, then item
/// deletes, inserts, moves, reloads, each sorted by index path, so the same
/// changeset always gives the same batch.
public struct BatchUpdate: Hashable, Codable, Sendable {
    /// The batch to perform.
    public var items: [UpdateItem]
    /// Reloads to perform in a second batch after ``items``, at index paths
    /// of the state after ``items`` (which is the final state). Empty under
    /// ``MoveAndUpdatePolicy/deleteAndInsert``.
    public var followUpReloads: [UpdateItem]
    /// The policy the batch was made with.
    public var policy: MoveAndUpdatePolicy

    /// Creates a batch from its parts.
    public init(items: [UpdateItem], followUpReloads: [UpdateItem] = [], policy: MoveAndUpdatePolicy) {
        self.items = items
        self.followUpReloads = followUpReloads
        self.policy = policy
    }

    /// The batches to perform in order: ``items``, then ``followUpReloads``
    /// when there are any.
    public var batches: [[UpdateItem]] {
        followUpReloads.isEmpty ? [items] : [items, followUpReloads]
    }

    /// Converts a changeset into one UIKit-safe batch.
    ///
    /// A changeset that is not internally consistent (one built by hand
    /// that names an element twice, say) never traps: it gives a batch the
    /// validator rejects.
    ///
    /// - Parameters:
    ///   - changeset: A changeset in UIKit's index spaces, such as
    ///     ``diff(from:to:)-(Snapshot<Section,Item>,_)`` returns.
    ///   - policy: What to do with elements that both move and change.
    /// - Complexity: O(*k* log *k*) for *k* operations.
    public init(_ changeset: Changeset, policy: MoveAndUpdatePolicy = .moveThenReload) {
        self.policy = policy
        let sectionMoveTarget = Dictionary(changeset.sectionMoves.map { ($0.from, $0.to) }, uniquingKeysWith: { first, _ in first })
        let movedItems = Set(changeset.itemMoves.map(\.from))

        // Sections with inserts, deletes or moves of items inside, by old and
        // by new index; and sections with item content updates.
        let (touchedOld, touchedNew) = changeset.sectionsWithItemChanges
        let itemUpdatesOld = Set(changeset.itemUpdates.map { $0.from[0] })
        let itemUpdatesNew = Set(changeset.itemUpdates.map { $0.to[0] })

        // Moved sections that must be deleted and inserted instead: those with
        // item changes inside, and under `.deleteAndInsert` those whose items'
        // content changed too (moved sections whose own content changed are
        // replaced with the section updates below).
        var replacedOld = Set<Int>()
        var replacedNew = Set<Int>()
        for move in changeset.sectionMoves {
            var replace = touchedOld.contains(move.from) || touchedNew.contains(move.to)
            if policy == .deleteAndInsert {
                replace = replace || itemUpdatesOld.contains(move.from) || itemUpdatesNew.contains(move.to)
            }
            if replace {
                replacedOld.insert(move.from)
                replacedNew.insert(move.to)
            }
        }

        // Section content updates: a reload in the batch where nothing else
        // happens to the section, else per the policy.
        var sectionReloads: [UpdateItem] = []
        var reloadedOld = Set<Int>()
        var followUpSections = Set<Int>()
        for update in changeset.sectionUpdates where !replacedOld.contains(update.from) {
            let moved = sectionMoveTarget[update.from] != nil
            let touched = touchedOld.contains(update.from) || touchedNew.contains(update.to)
            if !moved && !touched {
                sectionReloads.append(.reloadSection(update.from, landing: update.to))
                reloadedOld.insert(update.from)
            } else if policy == .moveThenReload {
                followUpSections.insert(update.to)
            } else {
                replacedOld.insert(update.from)
                replacedNew.insert(update.to)
            }
        }

        var sectionItems: [UpdateItem] = []
        sectionItems += (changeset.sectionDeletes + replacedOld).sorted().map { .deleteSection($0) }
        sectionItems += (changeset.sectionInserts + replacedNew).sorted().map { .insertSection($0) }
        sectionItems += changeset.sectionMoves.filter { !replacedOld.contains($0.from) }.map { .moveSection($0.from, to: $0.to) }
        sectionItems += sectionReloads

        var deletes = changeset.itemDeletes.filter { !replacedOld.contains($0[0]) }
        var inserts = changeset.itemInserts.filter { !replacedNew.contains($0[0]) }
        var moves: [Move<IndexPath>] = []
        for move in changeset.itemMoves {
            switch (replacedOld.contains(move.from[0]), replacedNew.contains(move.to[0])) {
            case (true, true): continue
            case (true, false): inserts.append(move.to)
            case (false, true): deletes.append(move.from)
            case (false, false): moves.append(move)
            }
        }

        // Item content updates: a reload in the batch for an item that stays
        // in an unmoved section, else per the policy. A section reload
        // already reloads every item in it.
        var reloads: [UpdateItem] = []
        var followUpItems: [IndexPath] = []
        var movedAndUpdated = Set<IndexPath>()
        for update in changeset.itemUpdates {
            let (from, to) = (update.from, update.to)
            if replacedOld.contains(from[0]) || replacedNew.contains(to[0]) { continue }
            if reloadedOld.contains(from[0]) || followUpSections.contains(to[0]) { continue }
            let moved = movedItems.contains(from)
            if !moved && sectionMoveTarget[from[0]] == nil {
                reloads.append(.reloadItem(at: from, landing: to))
            } else if policy == .moveThenReload {
                followUpItems.append(to)
            } else {
                movedAndUpdated.insert(from)
                deletes.append(from)
                inserts.append(to)
            }
        }
        moves.removeAll { movedAndUpdated.contains($0.from) }

        items = sectionItems
            + deletes.sorted().map { .deleteItem(at: $0) }
            + inserts.sorted().map { .insertItem(at: $0) }
            + moves.sorted { $0.from < $1.from }.map { .moveItem(from: $0.from, to: $0.to) }
            + reloads
        followUpReloads = followUpSections.sorted().map { .reloadSection($0) }
            + followUpItems.sorted().map { .reloadItem(at: $0) }
    }
}
