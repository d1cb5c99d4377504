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
}
