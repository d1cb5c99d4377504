#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// Checks a batch update against the item counts before and after it, by
/// UIKit's batch-update rules ("Invalid update"), as typed errors instead of
/// a crash. Under ``Rules/uikit`` it is stricter than UIKit's documentation
/// in one place: no item operation at all, reloads included, may name an item
/// inside a moved section.
///
/// ```swift
/// let batch = BatchUpdate(changeset).items
/// try BatchValidator.validate(batch, itemCountsBefore: old.itemCounts, itemCountsAfter: new.itemCounts)
/// ```
public enum BatchValidator {
    /// Which rules a batch must obey.
    public enum Rules: String, Hashable, Codable, Sendable {
        /// UIKit's rules, including that no section moves while items inside
        /// it are inserted, deleted, reloaded or moved.
        case uikit
        /// Tessera's own headless view, which also accepts item operations
        /// inside a moved section.
        case tessera
    }

    /// Throws the first rule the batch breaks.
    ///
    /// The checks run in this order, so the error names the most basic
    /// problem: malformed items; negative counts; indexes out of range in
    /// their space; an
    /// element named twice in one space; the number of sections; item
    /// operations inside deleted, inserted, reloaded (or, under UIKit rules,
    /// moved) sections; the number of items of every surviving section;
    /// where reloaded items land.
    ///
    /// - Parameters:
    ///   - items: The update items, in any order.
    ///   - itemCountsBefore: The number of items in each section before.
    ///   - itemCountsAfter: The number of items in each section after.
    ///   - rules: UIKit's rules (the default) or Tessera's.
    /// - Throws: ``BatchValidationError``.
    /// - Complexity: O(*k* log *k* + *s*), for *k* update items and *s*
    ///   sections (item paths are sorted to find repeats).
    public static func validate(
        _ items: [UpdateItem],
        itemCountsBefore: [Int],
        itemCountsAfter: [Int],
        rules: Rules = .uikit
    ) throws(BatchValidationError) {
        _ = try _BatchPlan(items, itemCountsBefore: itemCountsBefore, itemCountsAfter: itemCountsAfter, rules: rules)
    }
}

/// A batch sorted by kind of operation, checked, with the new index of every
/// surviving old section.
@usableFromInline
struct _BatchPlan {
    @usableFromInline var sectionDeletes: [Int] = []
    @usableFromInline var sectionReloads: [Int] = []
    @usableFromInline var sectionInserts: [Int] = []
    @usableFromInline var sectionMoves: [(from: Int, to: Int)] = []
    @usableFromInline var itemDeletes: [IndexPath] { deletePairs.map(Self.indexPath) }
    @usableFromInline var itemReloads: [IndexPath] { reloadPairs.map(Self.indexPath) }
    @usableFromInline var itemInserts: [IndexPath] { insertPairs.map(Self.indexPath) }
    @usableFromInline var itemMoves: [(from: IndexPath, to: IndexPath)] {
        movePairs.map { (Self.indexPath($0.from), Self.indexPath($0.to)) }
    }
    /// Reloads that say where they land (their optional path after).
    @usableFromInline var sectionReloadLandings: [(from: Int, to: Int)] = []
    @usableFromInline var itemReloadLandings: [(from: IndexPath, to: IndexPath)] {
        landingPairs.map { (Self.indexPath($0.from), Self.indexPath($0.to)) }
    }
    /// `sectionTarget[s]`: the new index of old section `s`, `nil` if deleted.
    @usableFromInline var sectionTarget: [Int?] = []
    /// The item claims of the old space (deletes, reloads, moves, in that
    /// check order) sorted by section, item and order, once the items are
    /// checked for repeats.
    var sortedClaimsBefore: [_ItemClaim] = []
    /// The item claims of the new space (inserts, moves, reload landings)
    /// sorted likewise.
    var sortedClaimsAfter: [_ItemClaim] = []
    /// The item operations' index paths as (section, item) pairs, read once
    /// while parsing, in the order of the batch: what the checks read, as
    /// integers are cheaper to read than index paths. ``itemDeletes`` and
    /// the other index path lists are made from them.
    var deletePairs: [_ItemPair] = []
    var reloadPairs: [_ItemPair] = []
    var insertPairs: [_ItemPair] = []
    var movePairs: [(from: _ItemPair, to: _ItemPair)] = []
    /// Item reloads that say where they land.
    var landingPairs: [(from: _ItemPair, to: _ItemPair)] = []

    /// The index path of an item pair.
    static func indexPath(_ pair: _ItemPair) -> IndexPath {
        IndexPath(item: pair.item, section: pair.section)
    }

    /// Sorts the items by kind, rejecting malformed ones.
    @usableFromInline
    init(parsing items: [UpdateItem]) throws(BatchValidationError) {
        try sort(items)
    }

    /// Sorts and checks a batch.
    @usableFromInline
    init(
        _ items: [UpdateItem],
        itemCountsBefore before: [Int],
        itemCountsAfter after: [Int],
        rules: BatchValidator.Rules
    ) throws(BatchValidationError) {
        try self.init(parsing: items)
        try check(itemCountsBefore: before, itemCountsAfter: after, rules: rules)
    }

    /// Checks the parsed batch against the counts, and records where every
    /// surviving old section goes.
    @usableFromInline
    mutating func check(
        itemCountsBefore before: [Int],
        itemCountsAfter after: [Int],
        rules: BatchValidator.Rules
    ) throws(BatchValidationError) {
        let oldCount = before.count
        let newCount = after.count
        try Self.checkCounts(before, space: .before)
        try Self.checkCounts(after, space: .after)
        try checkSectionRanges(oldCount: oldCount, newCount: newCount)
        try checkItemRanges(before: before, after: after)
        try checkSectionUniqueness()
        try checkItemUniqueness()
        try placeSections(oldCount: oldCount, newCount: newCount)
        try checkSectionsAgainstItems(oldCount: oldCount, newCount: newCount, rules: rules)
        try checkItemCounts(before: before, after: after)
        try checkReloadLandings(before: before, after: after)
    }

    /// Checks only the section operations, for section counts before and
    /// after, and records where every surviving old section goes: what a
    /// caller that works the item counts out from the sections needs first.
    @usableFromInline
    mutating func checkSections(oldCount: Int, newCount: Int) throws(BatchValidationError) {
        if oldCount < 0 { throw .negativeSectionCount(count: oldCount, space: .before) }
        if newCount < 0 { throw .negativeSectionCount(count: newCount, space: .after) }
        try checkSectionRanges(oldCount: oldCount, newCount: newCount)
        try checkSectionUniqueness()
        try placeSections(oldCount: oldCount, newCount: newCount)
    }

    /// Throws for the first section whose count is negative.
    ///
    /// - Complexity: O(*s*) for *s* sections.
    @usableFromInline
    static func checkCounts(_ counts: [Int], space: BatchValidationError.Space) throws(BatchValidationError) {
        for (section, count) in counts.enumerated() where count < 0 {
            throw .negativeItemCount(section: section, count: count, space: space)
        }
    }

    /// Checks the number of sections and records ``sectionTarget``.
    private mutating func placeSections(oldCount: Int, newCount: Int) throws(BatchValidationError) {
        guard newCount == oldCount - sectionDeletes.count + sectionInserts.count else {
            throw .invalidSectionCount(before: oldCount, after: newCount, inserted: sectionInserts.count, deleted: sectionDeletes.count)
        }
        guard let targets = sectionTargets(oldCount: oldCount, newCount: newCount) else {
            preconditionFailure("section operations in range, each named once, with counts that add up always place every section")
        }
        sectionTarget = targets
    }

    /// The new index of every old section (`nil` when deleted), or `nil`
    /// when the section operations are out of range or do not add up.
    @usableFromInline
    func sectionTargets(oldCount: Int, newCount: Int) -> [Int?]? {
        _Placement.sectionTargets(
            oldCount: oldCount, newCount: newCount,
            deletes: sectionDeletes, inserts: sectionInserts, moves: sectionMoves
        )
    }

    private mutating func sort(_ items: [UpdateItem]) throws(BatchValidationError) {
        // Each path's count and indexes are read once (an index path's are
        // not inlined), by index rather than by copying each item.
        for index in items.indices {
            let action = items[index].updateAction
            guard action != .none else { continue }
            let before = items[index].indexPathBeforeUpdate
            let after = items[index].indexPathAfterUpdate
            let beforeCount = before?.count
            let afterCount = after?.count
            if let bad = Self.malformedCount(beforeCount) ?? Self.malformedCount(afterCount) {
                throw .malformedItem(items[index], reason: "an index path has \(bad) indexes; a section has 1 and an item 2")
            }
            if let beforeCount, let afterCount, beforeCount != afterCount {
                throw .malformedItem(items[index], reason: "its index paths before and after name a section and an item")
            }
            switch action {
            case .none:
                continue  // not reached: `.none` items are skipped above
            case .insert:
                guard before == nil, let after else {
                    throw .malformedItem(items[index], reason: "an insert has an index path after the update and none before")
                }
                if afterCount == 1 {
                    sectionInserts.append(after[0])
                } else {
                    insertPairs.append((after[0], after[1]))
                }
            case .delete:
                guard after == nil, let before else {
                    throw .malformedItem(items[index], reason: "a delete has an index path before the update and none after")
                }
                if beforeCount == 1 {
                    sectionDeletes.append(before[0])
                } else {
                    deletePairs.append((before[0], before[1]))
                }
            case .reload:
                guard let before else {
                    throw .malformedItem(items[index], reason: "a reload has an index path before the update")
                }
                if beforeCount == 1 {
                    sectionReloads.append(before[0])
                    if let after { sectionReloadLandings.append((before[0], after[0])) }
                } else {
                    let pair = (section: before[0], item: before[1])
                    reloadPairs.append(pair)
                    if let after { landingPairs.append((pair, (after[0], after[1]))) }
                }
            case .move:
                guard let before, let after else {
                    throw .malformedItem(items[index], reason: "a move has index paths before and after the update")
                }
                if beforeCount == 1 {
                    sectionMoves.append((before[0], after[0]))
                } else {
                    movePairs.append(((before[0], before[1]), (after[0], after[1])))
                }
            }
        }
    }

    /// The count of a path that names neither a section nor an item.
    private static func malformedCount(_ count: Int?) -> Int? {
        guard let count, count != 1 && count != 2 else { return nil }
        return count
    }

    private func checkSectionRanges(oldCount: Int, newCount: Int) throws(BatchValidationError) {
        func section(_ s: Int, _ action: UpdateItem.Action, _ space: BatchValidationError.Space) throws(BatchValidationError) {
            let count = space == .before ? oldCount : newCount
            if s < 0 || s >= count { throw .sectionOutOfRange(action: action, section: s, sectionCount: count, space: space) }
        }
        for s in sectionDeletes { try section(s, .delete, .before) }
        for s in sectionReloads { try section(s, .reload, .before) }
        for move in sectionMoves { try section(move.from, .move, .before) }
        for t in sectionInserts { try section(t, .insert, .after) }
        for move in sectionMoves { try section(move.to, .move, .after) }
        for landing in sectionReloadLandings { try section(landing.to, .reload, .after) }
    }

    private func checkItemRanges(before: [Int], after: [Int]) throws(BatchValidationError) {
        func item(_ pair: _ItemPair, _ action: UpdateItem.Action, _ space: BatchValidationError.Space, _ counts: [Int]) throws(BatchValidationError) {
            let s = pair.section
            if s < 0 || s >= counts.count {
                throw .sectionOfItemOutOfRange(action: action, indexPath: IndexPath(item: pair.item, section: s), sectionCount: counts.count, space: space)
            }
            if pair.item < 0 || pair.item >= counts[s] {
                throw .itemOutOfRange(action: action, indexPath: IndexPath(item: pair.item, section: s), itemCount: counts[s], space: space)
            }
        }
        for pair in deletePairs { try item(pair, .delete, .before, before) }
        for pair in reloadPairs { try item(pair, .reload, .before, before) }
        for move in movePairs { try item(move.from, .move, .before, before) }
        for pair in insertPairs { try item(pair, .insert, .after, after) }
        for move in movePairs { try item(move.to, .move, .after, after) }
        for landing in landingPairs { try item(landing.to, .reload, .after, after) }
    }

    private func checkSectionUniqueness() throws(BatchValidationError) {
        var sections = _Claims<Int> { .sectionNamedTwice(section: $0, space: $1, first: $2, second: $3) }
        for s in sectionDeletes { try sections.claim(s, .delete, .before) }
        for s in sectionReloads { try sections.claim(s, .reload, .before) }
        for move in sectionMoves { try sections.claim(move.from, .move, .before) }
        for t in sectionInserts { try sections.claim(t, .insert, .after) }
        for move in sectionMoves { try sections.claim(move.to, .move, .after) }
        for landing in sectionReloadLandings { try sections.claim(landing.to, .reload, .after) }
    }

    /// Throws for the first item named twice in a space, and keeps each
    /// space's claims sorted (``sortedClaimsBefore``, ``sortedClaimsAfter``)
    /// for ``BatchIndexMapping``. Item indexes must be in range.
    private mutating func checkItemUniqueness() throws(BatchValidationError) {
        // Items: sorting integer records is several times cheaper than hashing
        // thousands of index paths.
        var before: [_ItemClaim] = []
        before.reserveCapacity(deletePairs.count + reloadPairs.count + movePairs.count)
        for pair in deletePairs { before.append(_ItemClaim(pair, .delete, order: before.count)) }
        for pair in reloadPairs { before.append(_ItemClaim(pair, .reload, order: before.count)) }
        for move in movePairs { before.append(_ItemClaim(move.from, .move, order: before.count)) }
        var after: [_ItemClaim] = []
        after.reserveCapacity(insertPairs.count + movePairs.count + landingPairs.count)
        for pair in insertPairs { after.append(_ItemClaim(pair, .insert, order: after.count)) }
        for move in movePairs { after.append(_ItemClaim(move.to, .move, order: after.count)) }
        for landing in landingPairs { after.append(_ItemClaim(landing.to, .reload, order: after.count)) }
        sortedClaimsBefore = _ItemClaim.sorted(before)
        sortedClaimsAfter = _ItemClaim.sorted(after)
        if let (first, second) = _ItemClaim.firstRepeat(inSorted: sortedClaimsBefore) {
            throw .itemNamedTwice(indexPath: IndexPath(item: first.item, section: first.section), space: .before, first: first.action, second: second.action)
        }
        if let (first, second) = _ItemClaim.firstRepeat(inSorted: sortedClaimsAfter) {
            throw .itemNamedTwice(indexPath: IndexPath(item: first.item, section: first.section), space: .after, first: first.action, second: second.action)
        }
    }

    private func checkSectionsAgainstItems(oldCount: Int, newCount: Int, rules: BatchValidator.Rules) throws(BatchValidationError) {
        var deleted = [Bool](repeating: false, count: oldCount)
        var reloadedOld = [Bool](repeating: false, count: oldCount)
        var movedOld = [Bool](repeating: false, count: oldCount)
        var inserted = [Bool](repeating: false, count: newCount)
        var reloadedNew = [Bool](repeating: false, count: newCount)
        var movedNew = [Bool](repeating: false, count: newCount)
        for s in sectionDeletes { deleted[s] = true }
        for s in sectionReloads {
            reloadedOld[s] = true
            if let t = sectionTarget[s] { reloadedNew[t] = true }
        }
        for t in sectionInserts { inserted[t] = true }
        if rules == .uikit {
            for move in sectionMoves {
                movedOld[move.from] = true
                movedNew[move.to] = true
            }
        }
        func checkOld(_ pair: _ItemPair, _ action: UpdateItem.Action) throws(BatchValidationError) {
            let s = pair.section
            guard deleted[s] || reloadedOld[s] || movedOld[s] else { return }
            let path = IndexPath(item: pair.item, section: s)
            if deleted[s] { throw .itemInDeletedSection(action: action, indexPath: path) }
            if reloadedOld[s] { throw .itemInReloadedSection(action: action, indexPath: path, space: .before) }
            throw .itemInMovedSection(action: action, indexPath: path, space: .before)
        }
        func checkNew(_ pair: _ItemPair, _ action: UpdateItem.Action) throws(BatchValidationError) {
            let t = pair.section
            guard inserted[t] || reloadedNew[t] || movedNew[t] else { return }
            let path = IndexPath(item: pair.item, section: t)
            if inserted[t] { throw .itemInInsertedSection(action: action, indexPath: path) }
            if reloadedNew[t] { throw .itemInReloadedSection(action: action, indexPath: path, space: .after) }
            throw .itemInMovedSection(action: action, indexPath: path, space: .after)
        }
        for pair in deletePairs { try checkOld(pair, .delete) }
        for pair in reloadPairs { try checkOld(pair, .reload) }
        for move in movePairs { try checkOld(move.from, .move) }
        for pair in insertPairs { try checkNew(pair, .insert) }
        for move in movePairs { try checkNew(move.to, .move) }
    }

    /// A reload that says where it lands must land there: a section where
    /// the section operations put it, an item where its section's survivors
    /// put it.
    private func checkReloadLandings(before: [Int], after: [Int]) throws(BatchValidationError) {
        for landing in sectionReloadLandings {
            let actual = sectionTarget[landing.from] ?? -1
            if actual != landing.to {
                throw .reloadLandsElsewhere(
                    indexPath: IndexPath(index: landing.from),
                    claimed: IndexPath(index: landing.to),
                    actual: IndexPath(index: actual)
                )
            }
        }
        guard !landingPairs.isEmpty else { return }
        let operations = _ItemOperationsBySection(self)
        // Each landing section's removed and taken positions, not a list as
        // long as the section: counts come from the data source.
        var placements: [Int: _SurvivorPlacement] = [:]
        for landing in itemReloadLandings {
            let s = landing.from[0]
            guard let t = sectionTarget[s] else { continue }
            if placements[s] == nil {
                placements[s] = operations.survivorPlacement(oldSection: s, countBefore: before[s], newSection: t, countAfter: after[t])
            }
            let actual = IndexPath(item: placements[s]?.target(of: landing.from[1]) ?? -1, section: t)
            if actual != landing.to {
                throw .reloadLandsElsewhere(indexPath: landing.from, claimed: landing.to, actual: actual)
            }
        }
    }

    private func checkItemCounts(before: [Int], after: [Int]) throws(BatchValidationError) {
        var deleted = [Int](repeating: 0, count: before.count)
        var movedOut = [Int](repeating: 0, count: before.count)
        var inserted = [Int](repeating: 0, count: after.count)
        var movedIn = [Int](repeating: 0, count: after.count)
        for pair in deletePairs { deleted[pair.section] += 1 }
        for pair in insertPairs { inserted[pair.section] += 1 }
        for move in movePairs where sectionTarget[move.from.section] != move.to.section {
            movedOut[move.from.section] += 1
            movedIn[move.to.section] += 1
        }
        var reloaded = [Bool](repeating: false, count: before.count)
        for s in sectionReloads { reloaded[s] = true }
        for s in 0..<before.count where !reloaded[s] {
            guard let t = sectionTarget[s] else { continue }
            // Removals first: they name distinct items of the section, so
            // they cannot go below zero; an addition past Int.max cannot
            // match any count.
            let (expected, overflow) = (before[s] - deleted[s] - movedOut[s]).addingReportingOverflow(inserted[t] + movedIn[t])
            if overflow || expected != after[t] {
                throw .invalidItemCount(
                    section: t, sectionBefore: s, before: before[s], after: after[t],
                    inserted: inserted[t], deleted: deleted[s], movedIn: movedIn[t], movedOut: movedOut[s]
                )
            }
        }
    }
}

/// Which operation first named each section or index path, in each space.
private struct _Claims<Key: Hashable> {
    private var before: [Key: UpdateItem.Action] = [:]
    private var after: [Key: UpdateItem.Action] = [:]
    /// The error for a key named twice: key, space, first and second action.
    private let namedTwice: (Key, BatchValidationError.Space, UpdateItem.Action, UpdateItem.Action) -> BatchValidationError

    init(namedTwice: @escaping (Key, BatchValidationError.Space, UpdateItem.Action, UpdateItem.Action) -> BatchValidationError) {
        self.namedTwice = namedTwice
    }

    /// Records that `action` names `key` in `space`; throws when another
    /// operation named it there first.
    mutating func claim(_ key: Key, _ action: UpdateItem.Action, _ space: BatchValidationError.Space) throws(BatchValidationError) {
        let previous = space == .before ? before.updateValue(action, forKey: key) : after.updateValue(action, forKey: key)
        if let previous { throw namedTwice(key, space, previous, action) }
    }
}
