/// UIKit's rule for where the untouched elements of a list go in a batch:
/// the survivors (neither removed nor placed explicitly) keep their relative
/// order and fill, in order, the positions of the new list that no insert or
/// move names.
///
/// Used for sections and, within each section, for items, by the validator,
/// by replay and by the staged form.
@usableFromInline
enum _Placement {
    /// The new index of every old index, or `nil` for an old index that is
    /// removed (deleted or moved away, moves being placed by their target).
    ///
    /// - Parameters:
    ///   - countBefore: The number of elements before.
    ///   - removed: Old indexes that leave their place (`true` = removed).
    ///   - placed: New indexes that an insert or a move fills (`true` = taken).
    /// - Returns: `nil` when the survivors do not fill the free positions
    ///   exactly (the counts do not add up).
    /// - Complexity: O(`countBefore` + `placed.count`).
    @usableFromInline
    static func survivorTargets(countBefore: Int, removed: [Bool], placed: [Bool]) -> [Int?]? {
        var result = [Int?](repeating: nil, count: countBefore)
        var next = 0
        for old in 0..<countBefore where !removed[old] {
            while next < placed.count && placed[next] { next += 1 }
            guard next < placed.count else { return nil }
            result[old] = next
            next += 1
        }
        while next < placed.count && placed[next] { next += 1 }
        return next == placed.count ? result : nil
    }

    /// The new index of every old section (`nil` when deleted) under a set of
    /// section operations, or `nil` when an index is out of range or the
    /// survivors do not fill the free positions exactly.
    ///
    /// - Complexity: O(`oldCount` + `newCount` + operations).
    @usableFromInline
    static func sectionTargets(
        oldCount: Int,
        newCount: Int,
        deletes: [Int],
        inserts: [Int],
        moves: [(from: Int, to: Int)]
    ) -> [Int?]? {
        guard newCount >= 0 else { return nil }
        var removed = [Bool](repeating: false, count: oldCount)
        var placed = [Bool](repeating: false, count: newCount)
        for s in deletes {
            guard s >= 0 && s < oldCount else { return nil }
            removed[s] = true
        }
        for t in inserts {
            guard t >= 0 && t < newCount else { return nil }
            placed[t] = true
        }
        for move in moves {
            guard move.from >= 0 && move.from < oldCount && move.to >= 0 && move.to < newCount else { return nil }
            removed[move.from] = true
            placed[move.to] = true
        }
        guard var targets = survivorTargets(countBefore: oldCount, removed: removed, placed: placed) else { return nil }
        for move in moves { targets[move.from] = move.to }
        return targets
    }

    /// The number of elements of a sorted array that are less than `value`.
    ///
    /// - Complexity: O(log *n*).
    @usableFromInline
    static func count(below value: Int, in sorted: [Int]) -> Int {
        var low = 0
        var high = sorted.count
        while low < high {
            let mid = (low + high) / 2
            if sorted[mid] < value { low = mid + 1 } else { high = mid }
        }
        return low
    }
}
