/// Computes the changes that turn one flat list into another.
///
/// Elements are matched by `id`; an element whose id is in both lists but
/// whose content differs (`!=`) is an update. Moves are minimal: exactly the
/// elements outside one longest increasing subsequence of old offsets taken in
/// new order, so `ABCD → BCDA` is one move (`A`, 0→3), and an element never
/// "moves" to where it already was relative to the others.
///
/// ```swift
/// struct Row: Identifiable, Equatable { var id: Int; var title: String }
/// let old = [Row(id: 1, title: "a"), Row(id: 2, title: "b"), Row(id: 3, title: "c")]
/// let new = [Row(id: 3, title: "c"), Row(id: 1, title: "A"), Row(id: 4, title: "d")]
/// let changes = try diff(from: old, to: new)
/// // deletes [1], inserts [2], moves [2→0], updates [0→1]
/// ```
///
/// Ids that are `Int`, `UInt`, `Int64`, `UInt64` or `UUID` are matched through
/// a table of their bits mixed with a secret drawn once per process: several
/// times cheaper than `Hasher` and, like it, keyed so that ids cannot be
/// chosen to collide (should the table flood anyway, the diff starts again
/// with `Hasher`). Other `Hashable` ids go through their hash value and `==`.
/// The result does not depend on the secret.
///
/// - Parameters:
///   - old: The list before the change.
///   - new: The list after the change.
/// - Returns: Deletes at old offsets, inserts at new offsets, moves and
///   updates from old to new offsets, each sorted by its first offset.
/// - Throws: ``DiffError/duplicateElementID(id:side:firstOffset:secondOffset:)``
///   when two elements of one list share an id.
/// - Precondition: each list has fewer than 2³¹ − 1 elements (positions are
///   kept as 32-bit integers, which halves the memory a large diff touches).
/// - Complexity: O(*n*) expected, whatever the ids, plus O(*m* log *n*) for
///   the *m* elements out of order and O(*k* log *k*) to sort the *k* moves
///   and updates. The allocations grow with *n* only logarithmically (the id
///   table and the changeset's arrays grow by doubling).
@inlinable
public func diff<C: Collection>(from old: C, to new: C) throws -> ListChangeset
where C.Element: Identifiable & Equatable {
    try diff(from: old, to: new, hashKey: .process)
}

/// `diff(from:to:)` with integer and UUID ids hashed with `hashKey`
/// instead of the process's secret, which must not change the result.
@inlinable
package func diff<C: Collection>(from old: C, to new: C, hashKey: _IDHashKey) throws -> ListChangeset
where C.Element: Identifiable & Equatable {
    let contiguous = try old.withContiguousStorageIfAvailable { oldBuffer in
        try new.withContiguousStorageIfAvailable { newBuffer in
            try _diff(old: oldBuffer, new: newBuffer, key: hashKey)
        }
    }
    if let contiguous, let changeset = contiguous { return changeset }
    return try ContiguousArray(old).withUnsafeBufferPointer { oldBuffer in
        try ContiguousArray(new).withUnsafeBufferPointer { newBuffer in
            try _diff(old: oldBuffer, new: newBuffer, key: hashKey)
        }
    }
}

@inlinable
func _diff<E: Identifiable & Equatable>(
    old: UnsafeBufferPointer<E>,
    new: UnsafeBufferPointer<E>,
    key: _IDHashKey
) throws(DiffError) -> ListChangeset {
    let matching: _Matching
    do {
        matching = try _Matching(old: old, new: new, key: key)
    } catch {
        throw .duplicateElementID(id: error.id, side: error.side, firstOffset: error.first, secondOffset: error.second)
    }
    var changeset = ListChangeset()
    let workspace = _LISWorkspace(capacity: new.count)
    defer { workspace.deallocate() }
    var keep = [Bool](repeating: false, count: new.count)

    matching.oldToNew.withUnsafeBufferPointer { oldToNew in
        matching.newToOld.withUnsafeBufferPointer { newToOld in
            for i in oldToNew.indices {
                let j = Int(oldToNew[i])
                if j < 0 {
                    changeset.deletes.append(i)
                } else if old[i] != new[j] {
                    changeset.updates.append(Move(from: i, to: j))
                }
            }
            keep.withUnsafeMutableBufferPointer { keep in
                workspace.markLongestIncreasing(values: newToOld, keep: keep)
                for j in newToOld.indices {
                    let i = Int(newToOld[j])
                    if i < 0 {
                        changeset.inserts.append(j)
                    } else if !keep[j] {
                        changeset.moves.append(Move(from: i, to: j))
                    }
                }
            }
        }
    }
    changeset.moves.sort { $0.from < $1.from }
    return changeset
}
