#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The item operations of a batch grouped by section: what the validator,
/// replay and ``StagedBatchUpdate`` look up section by section, grouped in
/// one place.
struct _ItemOperationsBySection {
    /// Per old section: deleted items.
    private(set) var deletes: [Int: [Int]] = [:]
    /// Per old section: reloaded items.
    private(set) var reloads: [Int: [Int]] = [:]
    /// Per new section: inserted items.
    private(set) var inserts: [Int: [Int]] = [:]
    /// Per old section: items moved away, with where each goes.
    private(set) var movesOut: [Int: [(item: Int, to: IndexPath)]] = [:]
    /// Per new section: items moved in, with where each comes from.
    private(set) var movesIn: [Int: [(item: Int, from: IndexPath)]] = [:]

    /// Groups operations on two-index paths (sections and index paths in
    /// range are the caller's to check).
    ///
    /// - Complexity: O(*k*) for *k* operations.
    init(
        deletes: [IndexPath] = [],
        reloads: [IndexPath] = [],
        inserts: [IndexPath] = [],
        moves: [(from: IndexPath, to: IndexPath)] = []
    ) {
        for path in deletes { self.deletes[path[0], default: []].append(path[1]) }
        for path in reloads { self.reloads[path[0], default: []].append(path[1]) }
        for path in inserts { self.inserts[path[0], default: []].append(path[1]) }
        for move in moves {
            movesOut[move.from[0], default: []].append((move.from[1], move.to))
            movesIn[move.to[0], default: []].append((move.to[1], move.from))
        }
    }

    /// The item operations of a parsed batch.
    ///
    /// - Complexity: O(*k*) for *k* operations.
    init(_ plan: _BatchPlan) {
        self.init(deletes: plan.itemDeletes, reloads: plan.itemReloads, inserts: plan.itemInserts, moves: plan.itemMoves)
    }

    /// The same operations with every section's list sorted by item.
    ///
    /// - Complexity: O(*k* log *k*) for *k* operations.
    func sorted() -> _ItemOperationsBySection {
        var result = self
        for key in result.deletes.keys { result.deletes[key]?.sort() }
        for key in result.reloads.keys { result.reloads[key]?.sort() }
        for key in result.inserts.keys { result.inserts[key]?.sort() }
        for key in result.movesOut.keys { result.movesOut[key]?.sort { $0.item < $1.item } }
        for key in result.movesIn.keys { result.movesIn[key]?.sort { $0.item < $1.item } }
        return result
    }

    /// What places the survivors of old section `s` in new section `t`: its
    /// removed items and the new section's taken positions, sorted and
    /// without repeats, and whether the survivors fill the free positions
    /// exactly. ``_SurvivorPlacement/target(of:)`` then places one survivor
    /// by the same rule as ``survivorTargets(oldSection:countBefore:newSection:countAfter:)``
    /// without a list as long as the sections.
    ///
    /// - Complexity: O(*r* log *r*) for the *r* operations of the two
    ///   sections; nothing per item.
    func survivorPlacement(oldSection s: Int, countBefore: Int, newSection t: Int, countAfter: Int) -> _SurvivorPlacement {
        let removed = Array(Set((deletes[s] ?? []) + (movesOut[s] ?? []).map(\.item))).sorted()
        let placed = Array(Set((inserts[t] ?? []) + (movesIn[t] ?? []).map(\.item))).sorted()
        let (survivors, overflowBefore) = countBefore.subtractingReportingOverflow(removed.count)
        let (free, overflowAfter) = countAfter.subtractingReportingOverflow(placed.count)
        return _SurvivorPlacement(removed: removed, placed: placed, fills: !overflowBefore && !overflowAfter && survivors == free)
    }

    /// Where each item of old section `s` goes in new section `t` by UIKit's
    /// rule (see `_Placement.survivorTargets`), `nil` for an item removed, or
    /// `nil` altogether when the survivors do not fill the free positions.
    ///
    /// - Complexity: O(`countBefore` + `countAfter` + the two sections'
    ///   operations).
    func survivorTargets(oldSection s: Int, countBefore: Int, newSection t: Int, countAfter: Int) -> [Int?]? {
        var removed = [Bool](repeating: false, count: countBefore)
        var placed = [Bool](repeating: false, count: countAfter)
        for item in deletes[s] ?? [] { removed[item] = true }
        for move in movesOut[s] ?? [] { removed[move.item] = true }
        for item in inserts[t] ?? [] { placed[item] = true }
        for move in movesIn[t] ?? [] { placed[move.item] = true }
        return _Placement.survivorTargets(countBefore: countBefore, removed: removed, placed: placed)
    }
}

/// Where survivors of one section land in another: see
/// ``_ItemOperationsBySection/survivorPlacement(oldSection:countBefore:newSection:countAfter:)``.
struct _SurvivorPlacement {
    /// Old items that leave their place, ascending, each once.
    var removed: [Int]
    /// New positions an insert or a move takes, ascending, each once.
    var placed: [Int]
    /// Whether the survivors fill the free positions exactly.
    var fills: Bool

    /// The new index of old item `item`: the free position whose rank among
    /// free positions is the item's rank among survivors; `nil` for a
    /// removed item, or when the survivors do not fill the free positions.
    ///
    /// - Complexity: O(log *r*) for *r* removed and placed items.
    func target(of item: Int) -> Int? {
        guard fills else { return nil }
        let removedBelow = Self.count(in: removed) { $0 < item }
        if removedBelow < removed.count && removed[removedBelow] == item { return nil }
        let rank = item - removedBelow
        // placed[j] - j does not decrease: the taken positions before the
        // answer are those with placed[j] - j <= rank.
        var low = 0
        var high = placed.count
        while low < high {
            let mid = low + (high - low) / 2
            if placed[mid] - mid <= rank { low = mid + 1 } else { high = mid }
        }
        return rank + low
    }

    /// The number of leading elements of an ascending list that satisfy
    /// `isBelow`.
    private static func count(in sorted: [Int], where isBelow: (Int) -> Bool) -> Int {
        var low = 0
        var high = sorted.count
        while low < high {
            let mid = low + (high - low) / 2
            if isBelow(sorted[mid]) { low = mid + 1 } else { high = mid }
        }
        return low
    }
}
