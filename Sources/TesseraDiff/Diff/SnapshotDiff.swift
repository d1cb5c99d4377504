#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Computes the changes that turn one sectioned snapshot into another, in
/// UIKit's index spaces.
///
/// Sections are matched by id, and so are items, across the whole snapshot:
/// an item whose section changed is a move across sections. Items inside a
/// deleted or an inserted section get no item operations (where an item
/// leaves a deleted section or enters an inserted one, the other end is an
/// insert or a delete). Within each surviving section, and among surviving
/// sections, moves are minimal: exactly the elements outside one longest
/// increasing subsequence of old positions taken in new order.
///
/// ```swift
/// var before = Snapshot<Album, Photo>()
/// before.appendSection(holidays, items: [beach, sunset])
/// before.appendSection(family, items: [birthday])
/// var after = before
/// after.removeItem(at: IndexPath(item: 0, section: 0))         // beach goes
/// after.insertItem(beach, at: IndexPath(item: 1, section: 1))  // …to family
/// let changes = try diff(from: before, to: after)
/// // itemMoves: [[0, 0]→[1, 1]]
/// ```
///
/// Ids are hashed as in the flat diff: `Int`, `UInt`, `Int64`, `UInt64` and
/// `UUID` ids with a secret drawn once per process, so that no choice of
/// ids makes them collide; the result does not depend on the secret.
///
/// - Returns: A ``Changeset`` whose arrays are each sorted by their first index.
/// - Throws: ``DiffError/duplicateSectionID(id:side:firstSection:secondSection:)``
///   or ``DiffError/duplicateItemID(id:side:first:second:)`` when ids repeat
///   within one snapshot.
/// - Precondition: each snapshot has fewer than 2³¹ − 1 items.
/// - Complexity: O(*n* + *s*) expected in the numbers of items and sections,
///   whatever the ids, plus O(*m* log *n*) for the *m* elements out of order and O(*k* log *k*)
///   to sort the *k* moves. The allocations grow with *n* only
///   logarithmically (the id table and the changeset's arrays grow by
///   doubling).
@inlinable
public func diff<Section, Item>(
    from old: Snapshot<Section, Item>,
    to new: Snapshot<Section, Item>
) throws -> Changeset {
    try _diffSnapshots(old, new, key: .process)
}

/// `diff(from:to:)` with integer and UUID ids hashed with `hashKey` instead
/// of the process's secret, which must not change the result.
@inlinable
package func diff<Section, Item>(
    from old: Snapshot<Section, Item>,
    to new: Snapshot<Section, Item>,
    hashKey: _IDHashKey
) throws -> Changeset {
    try _diffSnapshots(old, new, key: hashKey)
}

@inlinable
func _diffSnapshots<Section, Item>(
    _ old: Snapshot<Section, Item>,
    _ new: Snapshot<Section, Item>,
    key: _IDHashKey
) throws(DiffError) -> Changeset {
    let sections: _Matching
    do {
        sections = try old._sections.withUnsafeBufferPointer { (o) throws(_Duplicate) in
            try new._sections.withUnsafeBufferPointer { (n) throws(_Duplicate) in try _Matching(old: o, new: n, key: key) }
        }
    } catch {
        throw .duplicateSectionID(id: error.id, side: error.side, firstSection: error.first, secondSection: error.second)
    }
    let items: _Matching
    do {
        items = try old._items.withUnsafeBufferPointer { (o) throws(_Duplicate) in
            try new._items.withUnsafeBufferPointer { (n) throws(_Duplicate) in try _Matching(old: o, new: n, key: key) }
        }
    } catch {
        let snapshot = error.side == .old ? old : new
        throw .duplicateItemID(
            id: error.id,
            side: error.side,
            first: snapshot.indexPath(forFlatOffset: error.first),
            second: snapshot.indexPath(forFlatOffset: error.second)
        )
    }

    var changeset = Changeset()
    let workspace = _LISWorkspace(capacity: Swift.max(new.numberOfSections, new.numberOfItems))
    defer { workspace.deallocate() }

    // Sections.
    var sectionKeep = [Bool](repeating: false, count: new.numberOfSections)
    sections.newToOld.withUnsafeBufferPointer { newToOld in
        sectionKeep.withUnsafeMutableBufferPointer { keep in
            workspace.markLongestIncreasing(values: newToOld, keep: keep)
        }
    }
    for s in 0..<old.numberOfSections {
        let t = Int(sections.oldToNew[s])
        if t < 0 {
            changeset.sectionDeletes.append(s)
        } else if old._sections[s] != new._sections[t] {
            changeset.sectionUpdates.append(Move(from: s, to: t))
        }
    }
    for t in 0..<new.numberOfSections {
        let s = Int(sections.newToOld[t])
        if s < 0 {
            changeset.sectionInserts.append(t)
        } else if !sectionKeep[t] {
            changeset.sectionMoves.append(Move(from: s, to: t))
        }
    }
    changeset.sectionMoves.sort { $0.from < $1.from }

    // Items.
    let oldSectionOf = _sectionOfEachItem(old)
    let newSectionOf = _sectionOfEachItem(new)
    let oldStarts = old._sectionStarts
    let newStarts = new._sectionStarts

    // Old side, in old order: deletes and updates.
    for s in 0..<old.numberOfSections where sections.oldToNew[s] >= 0 {
        for o in oldStarts[s]..<oldStarts[s + 1] {
            let j = Int(items.oldToNew[o])
            if j < 0 {
                changeset.itemDeletes.append(IndexPath(item: o - oldStarts[s], section: s))
                continue
            }
            let t = Int(newSectionOf[j])
            if sections.newToOld[t] < 0 {
                changeset.itemDeletes.append(IndexPath(item: o - oldStarts[s], section: s))
            } else if old._items[o] != new._items[j] {
                changeset.itemUpdates.append(Move(
                    from: IndexPath(item: o - oldStarts[s], section: s),
                    to: IndexPath(item: j - newStarts[t], section: t)
                ))
            }
        }
    }

    // New side, section by section: inserts, moves across sections, and
    // moves within a section (outside its longest increasing subsequence).
    var sameSection = [Int32](repeating: -1, count: new.numberOfItems)
    var keep = [Bool](repeating: false, count: new.numberOfItems)
    sameSection.withUnsafeMutableBufferPointer { sameSection in
        keep.withUnsafeMutableBufferPointer { keep in
            for t in 0..<new.numberOfSections {
                let s = Int(sections.newToOld[t])
                if s < 0 { continue }
                let range = newStarts[t]..<newStarts[t + 1]
                var anyInSection = false
                for j in range {
                    let o = Int(items.newToOld[j])
                    if o < 0 {
                        changeset.itemInserts.append(IndexPath(item: j - range.lowerBound, section: t))
                        continue
                    }
                    let os = Int(oldSectionOf[o])
                    if sections.oldToNew[os] < 0 {
                        changeset.itemInserts.append(IndexPath(item: j - range.lowerBound, section: t))
                    } else if os == s {
                        sameSection[j] = Int32(truncatingIfNeeded: o)
                        anyInSection = true
                    } else {
                        changeset.itemMoves.append(Move(
                            from: IndexPath(item: o - oldStarts[os], section: os),
                            to: IndexPath(item: j - range.lowerBound, section: t)
                        ))
                    }
                }
                guard anyInSection else { continue }
                let values = UnsafeBufferPointer(rebasing: sameSection[range])
                let marks = UnsafeMutableBufferPointer(rebasing: keep[range])
                workspace.markLongestIncreasing(values: values, keep: marks)
                for j in range where sameSection[j] >= 0 && !keep[j] {
                    let o = Int(sameSection[j])
                    changeset.itemMoves.append(Move(
                        from: IndexPath(item: o - oldStarts[s], section: s),
                        to: IndexPath(item: j - range.lowerBound, section: t)
                    ))
                }
            }
        }
    }
    changeset.itemMoves.sort { $0.from < $1.from }
    return changeset
}

/// The section index of every item of a snapshot, by flat offset.
///
/// - Complexity: O(*n* + *s*).
@inlinable
func _sectionOfEachItem<Section, Item>(_ snapshot: Snapshot<Section, Item>) -> [Int32] {
    var result = [Int32](repeating: 0, count: snapshot.numberOfItems)
    let starts = snapshot._sectionStarts
    for s in 0..<snapshot.numberOfSections {
        for o in starts[s]..<starts[s + 1] { result[o] = Int32(truncatingIfNeeded: s) }
    }
    return result
}
