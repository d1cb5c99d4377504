#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// Where each element of a batch update goes: the index path after the
/// update of an element before it, and the other way round, by UIKit's rules
/// (deletes before inserts; untouched elements keep their order and fill the
/// positions no insert or move names).
///
/// ```swift
/// let mapping = try BatchIndexMapping(batch.items, itemCountsBefore: old.itemCounts, itemCountsAfter: new.itemCounts)
/// mapping.indexPathAfter(IndexPath(item: 4, section: 0))   // where item 4 went, or nil
/// ```
///
/// A reloaded section is replaced, so its items map to nothing; a reloaded
/// item maps to where it lands.
public struct BatchIndexMapping: Sendable {
    /// Everything the mapping keeps, behind one reference: the view, the
    /// layout and the invalidation context each keep a copy, which then
    /// costs one retain rather than one per list.
    private let storage: _Storage

    private final class _Storage: Sendable {
        let sectionTarget: [Int?]
        let sectionSource: [Int?]
        let reloadedSections: Set<Int>
        let itemCountsBefore: [Int]
        let itemCountsAfter: [Int]
        /// Per old section: sorted item indexes that leave their place.
        let removed: [Int: [Int]]
        /// Per old section, beside `removed`: for each item removed, the index
        /// of its move in `movesOut`, or -1 when it is deleted.
        let removedMoves: [Int: [Int]]
        /// Per new section: sorted item indexes that inserts and moves fill.
        let placed: [Int: [Int]]
        /// Per old section: sorted deleted items.
        let deletedIn: [Int: [Int]]
        /// Per new section: sorted inserted items.
        let insertedIn: [Int: [Int]]
        /// Per old section: moved items, sorted, with where they go.
        let movesOut: [Int: _Moves]
        /// Per new section: items moved in, sorted, with where they come from.
        let movesIn: [Int: _Moves]
        let sectionsChangedAfter: [Int]

        init(
            sectionTarget: [Int?],
            sectionSource: [Int?],
            reloadedSections: Set<Int>,
            itemCountsBefore: [Int],
            itemCountsAfter: [Int],
            removed: [Int: [Int]],
            removedMoves: [Int: [Int]],
            placed: [Int: [Int]],
            deletedIn: [Int: [Int]],
            insertedIn: [Int: [Int]],
            movesOut: [Int: _Moves],
            movesIn: [Int: _Moves],
            sectionsChangedAfter: [Int]
        ) {
            self.sectionTarget = sectionTarget
            self.sectionSource = sectionSource
            self.reloadedSections = reloadedSections
            self.itemCountsBefore = itemCountsBefore
            self.itemCountsAfter = itemCountsAfter
            self.removed = removed
            self.removedMoves = removedMoves
            self.placed = placed
            self.deletedIn = deletedIn
            self.insertedIn = insertedIn
            self.movesOut = movesOut
            self.movesIn = movesIn
            self.sectionsChangedAfter = sectionsChangedAfter
        }
    }

    private var sectionTarget: [Int?] { storage.sectionTarget }
    private var sectionSource: [Int?] { storage.sectionSource }
    private var reloadedSections: Set<Int> { storage.reloadedSections }
    private var itemCountsBefore: [Int] { storage.itemCountsBefore }
    private var itemCountsAfter: [Int] { storage.itemCountsAfter }
    private var removed: [Int: [Int]] { storage.removed }
    private var removedMoves: [Int: [Int]] { storage.removedMoves }
    private var placed: [Int: [Int]] { storage.placed }
    private var deletedIn: [Int: [Int]] { storage.deletedIn }
    private var insertedIn: [Int: [Int]] { storage.insertedIn }
    private var movesOut: [Int: _Moves] { storage.movesOut }
    private var movesIn: [Int: _Moves] { storage.movesIn }
    /// The sections (indexes after the update) whose content the batch
    /// changes, ascending: those an item operation names (by the section
    /// after of its old path, and the section of its new path), and
    /// inserted and reloaded sections.
    package var sectionsChangedAfter: [Int] { storage.sectionsChangedAfter }

    /// The moves of one section, sorted by their item there, with the other
    /// end of each (as integers: cheaper to keep and read than index paths).
    private struct _Moves: Sendable {
        var items: [Int] = []
        var ends: [_ItemPair] = []
    }

    /// Checks a batch and prepares the mapping.
    ///
    /// - Throws: ``BatchValidationError`` when the batch is invalid under
    ///   `rules`.
    /// - Complexity: O(*k* log *k* + *s*) for *k* update items and *s*
    ///   sections (O(*k* + *s*) for many item operations on sections and
    ///   items numbering less than 2⁴⁰ or so).
    public init(
        _ items: [UpdateItem],
        itemCountsBefore: [Int],
        itemCountsAfter: [Int],
        rules: BatchValidator.Rules = .tessera
    ) throws(BatchValidationError) {
        let plan = try _BatchPlan(items, itemCountsBefore: itemCountsBefore, itemCountsAfter: itemCountsAfter, rules: rules)
        var source = [Int?](repeating: nil, count: itemCountsAfter.count)
        for (s, t) in plan.sectionTarget.enumerated() { if let t { source[t] = s } }
        // Per-section sorted integer lists, read off the claims the
        // validator sorted: looking items up in them is cheaper than hashing
        // thousands of index paths.
        let movesFrom = plan.deletePairs.count + plan.reloadPairs.count
        var removed: [Int: [Int]] = [:]
        var removedMoves: [Int: [Int]] = [:]
        var deletedIn: [Int: [Int]] = [:]
        var movesOut: [Int: _Moves] = [:]
        Self.forEachSection(of: plan.sortedClaimsBefore) { s, claims in
            var removedHere: [Int] = []
            var removedMovesHere: [Int] = []
            var deletedHere: [Int] = []
            var movesHere = _Moves()
            removedHere.reserveCapacity(claims.count)
            removedMovesHere.reserveCapacity(claims.count)
            for claim in claims {
                switch claim.action {
                case .delete:
                    removedHere.append(claim.item)
                    removedMovesHere.append(-1)
                    deletedHere.append(claim.item)
                case .move:
                    removedHere.append(claim.item)
                    removedMovesHere.append(movesHere.items.count)
                    movesHere.items.append(claim.item)
                    movesHere.ends.append(plan.movePairs[claim.order - movesFrom].to)
                case .reload, .insert, .none:
                    continue
                }
            }
            if !removedHere.isEmpty {
                removed[s] = removedHere
                removedMoves[s] = removedMovesHere
            }
            if !deletedHere.isEmpty { deletedIn[s] = deletedHere }
            if !movesHere.items.isEmpty { movesOut[s] = movesHere }
        }
        let movesTo = plan.insertPairs.count
        var placed: [Int: [Int]] = [:]
        var insertedIn: [Int: [Int]] = [:]
        var movesIn: [Int: _Moves] = [:]
        Self.forEachSection(of: plan.sortedClaimsAfter) { t, claims in
            var placedHere: [Int] = []
            var insertedHere: [Int] = []
            var movesHere = _Moves()
            placedHere.reserveCapacity(claims.count)
            for claim in claims {
                switch claim.action {
                case .insert:
                    placedHere.append(claim.item)
                    insertedHere.append(claim.item)
                case .move:
                    placedHere.append(claim.item)
                    movesHere.items.append(claim.item)
                    movesHere.ends.append(plan.movePairs[claim.order - movesTo].from)
                case .reload, .delete, .none:
                    continue
                }
            }
            if !placedHere.isEmpty { placed[t] = placedHere }
            if !insertedHere.isEmpty { insertedIn[t] = insertedHere }
            if !movesHere.items.isEmpty { movesIn[t] = movesHere }
        }
        // One entry per section run of the claims and per section
        // operation, sorted: nothing per section the batch leaves alone.
        var changed: [Int] = []
        Self.forEachSection(of: plan.sortedClaimsBefore) { s, _ in
            if let t = plan.sectionTarget[s] { changed.append(t) }
        }
        Self.forEachSection(of: plan.sortedClaimsAfter) { t, _ in changed.append(t) }
        changed.append(contentsOf: plan.sectionInserts)
        for s in plan.sectionReloads {
            if let t = plan.sectionTarget[s] { changed.append(t) }
        }
        changed.sort()
        var unique: [Int] = []
        unique.reserveCapacity(changed.count)
        for t in changed where unique.last != t { unique.append(t) }
        storage = _Storage(
            sectionTarget: plan.sectionTarget,
            sectionSource: source,
            reloadedSections: Set(plan.sectionReloads),
            itemCountsBefore: itemCountsBefore,
            itemCountsAfter: itemCountsAfter,
            removed: removed,
            removedMoves: removedMoves,
            placed: placed,
            deletedIn: deletedIn,
            insertedIn: insertedIn,
            movesOut: movesOut,
            movesIn: movesIn,
            sectionsChangedAfter: unique
        )
    }

    /// Calls `body` with each section's run of claims sorted by section.
    private static func forEachSection(of claims: [_ItemClaim], _ body: (Int, ArraySlice<_ItemClaim>) -> Void) {
        var start = 0
        while start < claims.count {
            let section = claims[start].section
            var end = start + 1
            while end < claims.count && claims[end].section == section { end += 1 }
            body(section, claims[start..<end])
            start = end
        }
    }

    /// The index after the update of a section before it, or `nil` when it
    /// is deleted.
    public func sectionAfter(_ section: Int) -> Int? {
        section >= 0 && section < sectionTarget.count ? sectionTarget[section] : nil
    }

    /// The index before the update of a section after it, or `nil` when it
    /// is inserted.
    public func sectionBefore(_ section: Int) -> Int? {
        section >= 0 && section < sectionSource.count ? sectionSource[section] : nil
    }

    /// Whether the section (index before the update) is reloaded.
    public func isSectionReloaded(_ section: Int) -> Bool { reloadedSections.contains(section) }

    /// The index path after the update of an item before it, or `nil` when
    /// it is deleted, or its section is deleted or reloaded.
    ///
    /// - Complexity: O(log² *k*) for *k* operations in its sections.
    public func indexPathAfter(_ indexPath: IndexPath) -> IndexPath? {
        guard indexPath.count == 2 else { return nil }
        let s = indexPath[0]
        let i = indexPath[1]
        guard s >= 0 && s < itemCountsBefore.count, i >= 0 && i < itemCountsBefore[s] else { return nil }
        guard let t = sectionTarget[s], !reloadedSections.contains(s), !Self.contains(i, in: deletedIn[s]) else { return nil }
        if let target = Self.find(i, in: movesOut[s]) { return target }
        let rank = i - _Placement.count(below: i, in: removed[s] ?? [])
        return IndexPath(item: Self.position(ofFree: rank, skipping: placed[t] ?? []), section: t)
    }

    /// The index path before the update of an item after it, or `nil` when
    /// it is inserted, or its section is inserted or reloaded.
    ///
    /// - Complexity: O(log² *k*) for *k* operations in its sections.
    public func indexPathBefore(_ indexPath: IndexPath) -> IndexPath? {
        guard indexPath.count == 2 else { return nil }
        let t = indexPath[0]
        let j = indexPath[1]
        guard t >= 0 && t < itemCountsAfter.count, j >= 0 && j < itemCountsAfter[t] else { return nil }
        guard let s = sectionSource[t], !reloadedSections.contains(s), !Self.contains(j, in: insertedIn[t]) else { return nil }
        if let source = Self.find(j, in: movesIn[t]) { return source }
        let rank = j - _Placement.count(below: j, in: placed[t] ?? [])
        return IndexPath(item: Self.position(ofFree: rank, skipping: removed[s] ?? []), section: s)
    }

    /// Whether the item before the update is moved by the batch.
    ///
    /// - Complexity: O(log *k*).
    public func isMoved(_ indexPathBefore: IndexPath) -> Bool {
        indexPathBefore.count == 2 && Self.find(indexPathBefore[1], in: movesOut[indexPathBefore[0]]) != nil
    }

    /// Whether an item-level insert names the index path (after the
    /// update). Reload landings are not inserts here.
    ///
    /// - Complexity: O(log *k*).
    package func isInsertedItem(_ indexPathAfter: IndexPath) -> Bool {
        indexPathAfter.count == 2 && Self.contains(indexPathAfter[1], in: insertedIn[indexPathAfter[0]])
    }

    /// Whether an item-level delete names the index path (before the
    /// update). Reloads are not deletes here.
    ///
    /// - Complexity: O(log *k*).
    package func isDeletedItem(_ indexPathBefore: IndexPath) -> Bool {
        indexPathBefore.count == 2 && Self.contains(indexPathBefore[1], in: deletedIn[indexPathBefore[0]])
    }

    /// Whether the batch deletes any item by an item-level delete.
    package var deletesItems: Bool { !deletedIn.isEmpty }

    /// Whether a sorted list holds `value`.
    private static func contains(_ value: Int, in sorted: [Int]?) -> Bool {
        guard let sorted else { return false }
        let index = _Placement.count(below: value, in: sorted)
        return index < sorted.count && sorted[index] == value
    }

    /// The other end of the move of `item`, in a section's moves.
    private static func find(_ item: Int, in moves: _Moves?) -> IndexPath? {
        guard let moves else { return nil }
        let index = _Placement.count(below: item, in: moves.items)
        guard index < moves.items.count && moves.items[index] == item else { return nil }
        return IndexPath(item: moves.ends[index].item, section: moves.ends[index].section)
    }

    /// The position of the `rank`-th (from 0) position not in `taken`.
    private static func position(ofFree rank: Int, skipping taken: [Int]) -> Int {
        // The answer p satisfies p − |taken below p| == rank with p not taken;
        // it lies in rank...rank + taken.count.
        var low = rank
        // Halving the distance, not the sum, and keeping `high` below
        // Int.max, so that items near Int.max do not overflow.
        let (sum, overflow) = rank.addingReportingOverflow(taken.count)
        var high = overflow ? Int.max - 1 : min(sum, Int.max - 1)
        while low < high {
            let mid = low + (high - low) / 2
            if mid - _Placement.count(below: mid + 1, in: taken) >= rank { high = mid } else { low = mid + 1 }
        }
        return low
    }
}

extension BatchIndexMapping {
    /// The positions after the update of many items before it, in one
    /// merge: `positions` sorted by section, then item (no repeats), each
    /// answered as ``indexPathAfter(_:)`` would (`nil` when deleted, out of
    /// range, or in a deleted or reloaded section). The answers come in the
    /// order of `positions`.
    ///
    /// - Complexity: O(*p* + *k*) for *p* positions and *k* item operations
    ///   in their sections: each section's sorted lists are walked once.
    package func itemPositionsAfter(sorted positions: [(section: Int, item: Int)]) -> [(section: Int, item: Int)?] {
        var result: [(section: Int, item: Int)?] = []
        result.reserveCapacity(positions.count)
        let itemCountsBefore = storage.itemCountsBefore
        var start = 0
        while start < positions.count {
            let s = positions[start].section
            var end = start + 1
            while end < positions.count && positions[end].section == s { end += 1 }
            guard s >= 0, s < itemCountsBefore.count, let t = sectionTarget[s], !reloadedSections.contains(s) else {
                result.append(contentsOf: repeatElement(nil, count: end - start))
                start = end
                continue
            }
            let removedHere = removed[s] ?? []
            let removedMovesHere = removedMoves[s] ?? []
            let moves = movesOut[s] ?? _Moves()
            let placedHere = placed[t] ?? []
            var r = 0, p = 0
            for index in start..<end {
                let i = positions[index].item
                guard i >= 0 && i < itemCountsBefore[s] else {
                    result.append(nil)
                    continue
                }
                // One walk over the removed items (deleted and moved).
                while r < removedHere.count && removedHere[r] < i { r += 1 }
                if r < removedHere.count && removedHere[r] == i {
                    let move = removedMovesHere[r]
                    result.append(move < 0 ? nil : moves.ends[move])
                    continue
                }
                // As `position(ofFree:skipping:)`, walking forward: ranks only
                // grow, so the taken positions already passed stay passed.
                let rank = i - r
                var position = rank + p
                while p < placedHere.count && placedHere[p] <= position {
                    p += 1
                    position += 1
                }
                result.append((t, position))
            }
            start = end
        }
        return result
    }
}
