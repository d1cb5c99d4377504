/// A duplicate id found while matching: which side, both offsets, and the id.
@usableFromInline
struct _Duplicate: Error {
    @usableFromInline var side: DiffError.Side
    @usableFromInline var first: Int
    @usableFromInline var second: Int
    @usableFromInline var id: String

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
struct _Matching {
    @usableFromInline var oldToNew: [Int32]
    @usableFromInline var newToOld: [Int32]

    /// Pairs the elements of two buffers by id.
    ///
    /// Every old id goes into an ``_IDTable``. New elements are then matched in
    /// order; each first tries the old element after the previous match, which
    /// is right for every element of an unchanged run, and only otherwise
    /// probes the table. New ids with no old counterpart are added to the
    /// table so that a duplicate among them is found too.
    ///
    /// - Precondition: each buffer has fewer than 2³¹ − 1 elements.
    /// - Throws: ``_Duplicate`` for the first repeated id on either side.
    /// - Complexity: O(*n* + *m*) expected.
    @inlinable
    init<E: Identifiable>(old: UnsafeBufferPointer<E>, new: UnsafeBufferPointer<E>) throws(_Duplicate) {
        switch _HashingChoice.choose(for: E.ID.self) {
        case .word: try self.init(old: old, new: new, hashing: _WordHashing<E.ID>.self)
        case .uuid: try self.init(old: old, new: new, hashing: _UUIDHashing<E.ID>.self)
        case .hashValue: try self.init(old: old, new: new, hashing: _HashValueHashing<E.ID>.self)
        }
    }

    @inlinable
    init<E: Identifiable, H: _IDHashing>(
        old: UnsafeBufferPointer<E>,
        new: UnsafeBufferPointer<E>,
        hashing _: H.Type
    ) throws(_Duplicate) where H.ID == E.ID {
        precondition(
            old.count < Int(Int32.max) && new.count < Int(Int32.max),
            "a diff takes fewer than \(Int32.max) elements on each side"
        )
        oldToNew = Array(repeating: -1, count: old.count)
        newToOld = Array(repeating: -1, count: new.count)
        var table = _IDTable(expectedCount: old.count)
        defer { table.deallocate() }

        func idAt(_ position: Int32) -> E.ID {
            position >= 0 ? old[Int(position)].id : new[Int(-(position + 2))].id
        }

        for i in old.indices {
            let id = old[i].id
            let found = table.findOrInsert(hash: H.hash(id), position: Int32(truncatingIfNeeded: i)) { idAt($0) == id }
            if found != _IDTable.empty {
                throw _Duplicate(side: .old, first: Int(found), second: i, id: "\(id)")
            }
        }

        try oldToNew.withUnsafeMutableBufferPointer { (oldToNew) throws(_Duplicate) in
            try newToOld.withUnsafeMutableBufferPointer { (newToOld) throws(_Duplicate) in
                var predicted = 0
                for j in new.indices {
                    let id = new[j].id
                    let o: Int
                    if predicted < old.count && old[predicted].id == id {
                        o = predicted
                    } else {
                        let position = Int32(truncatingIfNeeded: -(j + 2))
                        let found = table.findOrInsert(hash: H.hash(id), position: position) { idAt($0) == id }
                        if found == _IDTable.empty {
                            if table.isOverloaded { table.grow { H.hash(idAt($0)) } }
                            continue
                        }
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
            }
        }
    }
}
