#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension Snapshot {
    /// Performs a batch on this snapshot the way a collection view does, and
    /// returns the resulting state.
    ///
    /// Surviving elements keep their values and relative order, filling the
    /// positions no insert or move names; moved elements carry their values.
    /// Values that a batch does not carry come from `target`: an inserted
    /// section or item is taken at its index (path) in `target`, and a
    /// reloaded one is looked up by id in `target` (so a reload at an old
    /// position, as in the first stage of ``StagedBatchUpdate``, gets the new
    /// content). Tessera's rules apply (item changes inside a moved section
    /// are allowed).
    ///
    /// - Parameters:
    ///   - items: The batch.
    ///   - target: Where values that the batch does not carry come from.
    /// - Throws: ``ReplayError``.
    /// - Complexity: O(*n* + *s* + *k* log *k*).
    public func applying(_ items: [UpdateItem], takingValuesFrom target: Snapshot) throws(ReplayError) -> Snapshot {
        var replay = _Replay(base: self, target: target)
        return try replay.apply(items)
    }

    /// Performs a changeset on this snapshot and returns the result: its
    /// structural operations as one batch, then its content updates, each
    /// taking the value at its `to` position in `target`.
    ///
    /// `old.applying(diff(from: old, to: new), takingValuesFrom: new) == new`
    /// for every pair of snapshots: the oracle of Tessera's tests.
    ///
    /// - Throws: ``ReplayError``.
    /// - Complexity: O(*n* + *s* + *k* log *k*).
    public func applying(_ changeset: Changeset, takingValuesFrom target: Snapshot) throws(ReplayError) -> Snapshot {
        var result = try applying(changeset.structuralUpdateItems, takingValuesFrom: target)
        for update in changeset.sectionUpdates {
            guard update.to >= 0 && update.to < result.numberOfSections && update.to < target.numberOfSections,
                  update.from >= 0 && update.from < numberOfSections,
                  result._sections[update.to].id == _sections[update.from].id
            else {
                throw .updateMismatch(from: IndexPath(index: update.from), to: IndexPath(index: update.to))
            }
            result._sections[update.to] = target._sections[update.to]
        }
        for update in changeset.itemUpdates {
            guard result._contains(update.to), target._contains(update.to), _contains(update.from),
                  result[update.to].id == self[update.from].id
            else {
                throw .updateMismatch(from: update.from, to: update.to)
            }
            result[update.to] = target[update.to]
        }
        return result
    }

    /// Performs a single batch and its follow-up reloads.
    ///
    /// - Throws: ``ReplayError``.
    /// - Complexity: O(*n* + *s* + *k* log *k*).
    public func applying(_ batch: BatchUpdate, takingValuesFrom target: Snapshot) throws(ReplayError) -> Snapshot {
        var result = self
        for items in batch.batches {
            result = try result.applying(items, takingValuesFrom: target)
        }
        return result
    }

    /// Performs every stage in order.
    ///
    /// - Throws: ``ReplayError``.
    /// - Complexity: O((*n* + *s*) · stages + *k* log *k*).
    public func applying(_ staged: StagedBatchUpdate, takingValuesFrom target: Snapshot) throws(ReplayError) -> Snapshot {
        var result = self
        for step in staged.steps {
            result = try result.applying(step.items, takingValuesFrom: target)
        }
        return result
    }

    @inlinable
    func _contains(_ path: IndexPath) -> Bool {
        path.count == 2 && path[0] >= 0 && path[0] < numberOfSections && path[1] >= 0 && path[1] < numberOfItems(inSection: path[0])
    }
}

/// Where a section after a batch comes from.
enum _SectionOrigin {
    case inserted
    case reloaded(Int)
    case survivor(Int)
}

/// One replay of a batch: the state before, the source of new values, and
/// id lookups into the source made on first use.
struct _Replay<Section: Identifiable & Equatable, Item: Identifiable & Equatable> {
    let base: Snapshot<Section, Item>
    let target: Snapshot<Section, Item>
    private var targetSectionByID: [Section.ID: Int]?
    private var targetItemByID: [Item.ID: Int]?

    init(base: Snapshot<Section, Item>, target: Snapshot<Section, Item>) {
        self.base = base
        self.target = target
    }

    mutating func apply(_ items: [UpdateItem]) throws(ReplayError) -> Snapshot<Section, Item> {
        var plan: _BatchPlan
        do {
            plan = try _BatchPlan(parsing: items)
        } catch {
            throw .invalidBatch(error)
        }
        let before = base.itemCounts
        let after = try impliedCounts(plan, before: before)
        do {
            try plan.check(itemCountsBefore: before, itemCountsAfter: after, rules: .tessera)
        } catch {
            throw .invalidBatch(error)
        }
        return try build(plan, after: after)
    }

    /// The item counts after the batch, from the counts before and the
    /// operations (sections that come from `target` count as they are there).
    private mutating func impliedCounts(_ plan: _BatchPlan, before: [Int]) throws(ReplayError) -> [Int] {
        let sectionCount = before.count - plan.sectionDeletes.count + plan.sectionInserts.count
        let reloadsInRange = plan.sectionReloads.allSatisfy { $0 >= 0 && $0 < before.count }
        guard reloadsInRange, let targets = plan.sectionTargets(oldCount: before.count, newCount: sectionCount) else {
            // Out of range or not adding up: let the validator say which.
            var failing = plan
            do {
                try failing.checkSections(oldCount: before.count, newCount: Swift.max(sectionCount, 0))
            } catch {
                throw .invalidBatch(error)
            }
            throw .invalidBatch(.invalidSectionCount(before: before.count, after: sectionCount, inserted: plan.sectionInserts.count, deleted: plan.sectionDeletes.count))
        }
        var after = [Int](repeating: 0, count: sectionCount)
        for t in plan.sectionInserts {
            guard t < target.numberOfSections else { throw .insertedSectionMissing(section: t) }
            after[t] = target.numberOfItems(inSection: t)
        }
        let reloaded = Set(plan.sectionReloads)
        for s in plan.sectionReloads {
            guard let t = targets[s] else { continue }
            after[t] = target.numberOfItems(inSection: try targetSection(forReloadOf: s))
        }
        for s in 0..<before.count where !reloaded.contains(s) {
            if let t = targets[s] { after[t] += before[s] }
        }
        for path in plan.itemDeletes where path[0] >= 0 && path[0] < before.count {
            if let t = targets[path[0]] { after[t] -= 1 }
        }
        for path in plan.itemInserts where path[0] >= 0 && path[0] < sectionCount { after[path[0]] += 1 }
        for move in plan.itemMoves where move.from[0] >= 0 && move.from[0] < before.count && move.to[0] >= 0 && move.to[0] < sectionCount {
            if let t = targets[move.from[0]] { after[t] -= 1 }
            after[move.to[0]] += 1
        }
        return after.map { Swift.max($0, 0) }
    }

    private mutating func targetSection(forReloadOf s: Int) throws(ReplayError) -> Int {
        if targetSectionByID == nil {
            var lookup: [Section.ID: Int] = [:]
            for (index, section) in target._sections.enumerated() { lookup[section.id] = lookup[section.id] ?? index }
            targetSectionByID = lookup
        }
        let id = base._sections[s].id
        guard let t = targetSectionByID?[id] else { throw .reloadedSectionMissing(section: s, id: "\(id)") }
        return t
    }

    private mutating func targetItem(forReloadOf path: IndexPath) throws(ReplayError) -> Item {
        if targetItemByID == nil {
            var lookup: [Item.ID: Int] = [:]
            for (offset, item) in target._items.enumerated() { lookup[item.id] = lookup[item.id] ?? offset }
            targetItemByID = lookup
        }
        let id = base[path].id
        guard let offset = targetItemByID?[id] else { throw .reloadedItemMissing(indexPath: path, id: "\(id)") }
        return target._items[offset]
    }

    private mutating func build(_ plan: _BatchPlan, after: [Int]) throws(ReplayError) -> Snapshot<Section, Item> {
        let sectionCount = after.count
        var origin = [_SectionOrigin](repeating: .inserted, count: sectionCount)
        let reloadedSections = Set(plan.sectionReloads)
        for s in 0..<base.numberOfSections {
            guard let t = plan.sectionTarget[s] else { continue }
            origin[t] = reloadedSections.contains(s) ? .reloaded(s) : .survivor(s)
        }
        let operations = _ItemOperationsBySection(plan)

        var result = Snapshot<Section, Item>()
        for t in 0..<sectionCount {
            switch origin[t] {
            case .inserted:
                result.appendSection(target._sections[t], items: target.items(inSection: t))
            case let .reloaded(s):
                let source = try targetSection(forReloadOf: s)
                result.appendSection(target._sections[source], items: target.items(inSection: source))
            case let .survivor(s):
                let oldItems = base.items(inSection: s)
                guard let targets = operations.survivorTargets(oldSection: s, countBefore: oldItems.count, newSection: t, countAfter: after[t]) else {
                    throw .invalidBatch(.invalidItemCount(
                        section: t, sectionBefore: s, before: oldItems.count, after: after[t],
                        inserted: operations.inserts[t]?.count ?? 0, deleted: operations.deletes[s]?.count ?? 0,
                        movedIn: operations.movesIn[t]?.count ?? 0, movedOut: operations.movesOut[s]?.count ?? 0
                    ))
                }
                var items = [Item?](repeating: nil, count: after[t])
                for (i, item) in oldItems.enumerated() {
                    if let j = targets[i] { items[j] = item }
                }
                for i in operations.reloads[s] ?? [] {
                    if let j = targets[i] { items[j] = try targetItem(forReloadOf: IndexPath(item: i, section: s)) }
                }
                for j in operations.inserts[t] ?? [] {
                    let path = IndexPath(item: j, section: t)
                    guard target._contains(path) else { throw .insertedItemMissing(indexPath: path) }
                    items[j] = target[path]
                }
                for move in operations.movesIn[t] ?? [] { items[move.item] = base[move.from] }
                result.appendSection(base._sections[s], items: items.map { item in
                    guard let item else { preconditionFailure("replay left a hole in section \(t) of a validated batch") }
                    return item
                })
            }
        }
        result._checkAllInvariants()
        return result
    }
}
