/// A duplicate id found while matching: which side, both offsets, and the id.
@usableFromInline
package struct _Duplicate: Error {
    @usableFromInline package var side: DiffError.Side
    @usableFromInline package var first: Int
    @usableFromInline package var second: Int
    @usableFromInline package var id: String

    @inlinable init(side: DiffError.Side, first: Int, second: Int, id: String) {
        self.side = side
        self.first = first
        self.second = second
        self.id = id
    }
}

/// The one-to-one pairing of old and new elements by id.
///
/// `oldToNew[i]` is the new offset of old element `i`, or `-1` when it is
/// gone; `newToOld[j]` is the old offset of new element `j`, or `-1` when it
/// is new. Offsets are 32-bit, which halves the memory a large diff touches.
@usableFromInline
package struct _Matching {
    @usableFromInline package var oldToNew: [Int32]
    @usableFromInline package var newToOld: [Int32]
    /// The slots of id tables read to make the pairing, over every attempt:
    /// the measure of the work that hashing decides.
    @usableFromInline package var probes: Int
    /// The hashing that made the pairing: `.hashValue` for integer and UUID
    /// ids when their keyed hashing flooded the table.
    @usableFromInline package var hashing: _HashingChoice

    /// Pairs the elements of two buffers by id.
    ///
    /// Every old id goes into an ``_IDTable``. New elements are then matched in
    /// order; each first tries the old element after the previous match, which
    /// is right for every element of an unchanged run, and only otherwise
    /// probes the table. New ids with no old counterpart are added to the
    /// table so that a duplicate among them is found too.
    ///
    /// Integer and UUID ids are hashed with `key`. Should the table flood
    /// anyway (``_IDTable/isFlooded``), the pairing starts again with the ids'
    /// `hashValue`, that is with `Hasher`, so its cost stays linear whatever
    /// the ids; the pairing, and every error, are the same whichever hashing
    /// made them.
    ///
    /// - Precondition: each buffer has fewer than 2³¹ − 1 elements.
    /// - Throws: ``_Duplicate`` for the first repeated id on either side.
    /// - Complexity: O(*n* + *m*) expected, whatever the ids: before it
    ///   starts again, a flooded table has read at most
    ///   ``_IDTable/probeBudgetPerCall`` slots per call.
    @inlinable
    package init<E: Identifiable>(old: UnsafeBufferPointer<E>, new: UnsafeBufferPointer<E>, key: _IDHashKey) throws(_Duplicate) {
        switch _HashingChoice.choose(for: E.ID.self) {
        case .word: try self.init(old: old, new: new, hashing: _WordHashing<E.ID>.self, choice: .word, key: key)
        case .uuid: try self.init(old: old, new: new, hashing: _UUIDHashing<E.ID>.self, choice: .uuid, key: key)
        case .hashValue: try self.init(old: old, new: new, hashing: _HashValueHashing<E.ID>.self, choice: .hashValue, key: key)
        }
    }

    @inlinable
    init<E: Identifiable, H: _IDHashing>(
        old: UnsafeBufferPointer<E>,
        new: UnsafeBufferPointer<E>,
        hashing _: H.Type,
        choice: _HashingChoice,
        key: _IDHashKey
    ) throws(_Duplicate) where H.ID == E.ID {
        precondition(
            old.count < Int(Int32.max) && new.count < Int(Int32.max),
            "a diff takes fewer than \(Int32.max) elements on each side"
        )
        oldToNew = Array(repeating: -1, count: old.count)
        newToOld = Array(repeating: -1, count: new.count)
        probes = 0
        hashing = choice
        let isComplete = try pair(old: old, new: new, hashing: H.self, key: key)
        if !isComplete {
            let abandoned = probes
            self = try _Matching(old: old, new: new, hashing: _HashValueHashing<E.ID>.self, choice: .hashValue, key: key)
            probes &+= abandoned
        }
    }

    /// Fills `oldToNew` and `newToOld`, and adds the slots read to
    /// `probes`; returns `false`, leaving them incomplete, as soon as the
    /// table floods when `H` falls back to `Hasher`.
    @inlinable
    mutating func pair<E: Identifiable, H: _IDHashing>(
        old: UnsafeBufferPointer<E>,
        new: UnsafeBufferPointer<E>,
        hashing _: H.Type,
        key: _IDHashKey
    ) throws(_Duplicate) -> Bool where H.ID == E.ID {
        var table = _IDTable(expectedCount: old.count)
        defer {
            probes &+= table.probes
            table.deallocate()
        }

        func idAt(_ position: Int32) -> E.ID {
            position >= 0 ? old[Int(position)].id : new[Int(-(position + 2))].id
        }

        for i in old.indices {
            let id = old[i].id
            let found = table.findOrInsert(hash: H.hash(id, key: key), position: Int32(truncatingIfNeeded: i)) { idAt($0) == id }
            if H.fallsBackToHasher && table.isFlooded { return false }
            if found != _IDTable.empty {
                throw _Duplicate(side: .old, first: Int(found), second: i, id: "\(id)")
            }
        }

        return try oldToNew.withUnsafeMutableBufferPointer { (oldToNew) throws(_Duplicate) in
            try newToOld.withUnsafeMutableBufferPointer { (newToOld) throws(_Duplicate) in
                var predicted = 0
                for j in new.indices {
                    let id = new[j].id
                    let o: Int
                    if predicted < old.count && old[predicted].id == id {
                        o = predicted
                    } else {
                        let position = Int32(truncatingIfNeeded: -(j + 2))
                        let found = table.findOrInsert(hash: H.hash(id, key: key), position: position) { idAt($0) == id }
                        if found == _IDTable.empty && table.isOverloaded { table.grow { H.hash(idAt($0), key: key) } }
                        if H.fallsBackToHasher && table.isFlooded { return false }
                        if found == _IDTable.empty { continue }
                        if found < 0 {
                            throw _Duplicate(side: .new, first: Int(-(found + 2)), second: j, id: "\(id)")
                        }
                        o = Int(found)
                    }
                    if oldToNew[o] >= 0 {
                        throw _Duplicate(side: .new, first: Int(oldToNew[o]), second: j, id: "\(id)")
                    }
                    oldToNew[o] = Int32(truncatingIfNeeded: j)
                    newToOld[j] = Int32(truncatingIfNeeded: o)
                    predicted = o + 1
                }
                return true
            }
        }
    }
}
