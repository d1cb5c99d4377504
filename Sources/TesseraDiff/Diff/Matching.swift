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
/// is new.
@usableFromInline
struct _Matching {
    @usableFromInline var oldToNew: [Int]
    @usableFromInline var newToOld: [Int]

    /// Pairs the elements of two buffers by id.
    ///
    /// Every old id goes into an ``_IDTable``. New elements are then matched in
    /// order; each first tries the old element after the previous match, which
    /// is right for every element of an unchanged run, and only otherwise
    /// probes the table. New ids with no old counterpart are added to the
    /// table so that a duplicate among them is found too.
    ///
    /// - Throws: ``_Duplicate`` for the first repeated id on either side.
    /// - Complexity: O(*n* + *m*) expected.
    @inlinable
    init<E: Identifiable>(old: UnsafeBufferPointer<E>, new: UnsafeBufferPointer<E>) throws(_Duplicate) {
        switch _KeyingChoice.choose(for: E.ID.self) {
        case .word: try self.init(old: old, new: new, keying: _WordKeying<E.ID>.self)
        case .uuid: try self.init(old: old, new: new, keying: _UUIDKeying<E.ID>.self)
        case .hashed: try self.init(old: old, new: new, keying: _HashedKeying<E.ID>.self)
        }
    }

    @inlinable
    init<E: Identifiable, K: _IDKeying>(
        old: UnsafeBufferPointer<E>,
        new: UnsafeBufferPointer<E>,
        keying _: K.Type
    ) throws(_Duplicate) where K.ID == E.ID {
        oldToNew = Array(repeating: -1, count: old.count)
        newToOld = Array(repeating: -1, count: new.count)
        var table = _IDTable<K>(expectedCount: old.count)

        for i in old.indices {
            let id = old[i].id
            let found = table.findOrInsert(K.key(for: id), value: i) { old[$0].id == id }
            if found != _IDTable<K>.empty {
                throw _Duplicate(side: .old, first: found, second: i, id: "\(id)")
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
                        let found = table.findOrInsert(K.key(for: id), value: -(j + 2)) { value in
                            value >= 0 ? old[value].id == id : new[-(value + 2)].id == id
                        }
                        if found == _IDTable<K>.empty { continue }
                        if found < 0 {
                            throw _Duplicate(side: .new, first: -(found + 2), second: j, id: "\(id)")
                        }
                        o = found
                    }
                    if oldToNew[o] >= 0 {
                        throw _Duplicate(side: .new, first: oldToNew[o], second: j, id: "\(id)")
                    }
                    oldToNew[o] = j
                    newToOld[j] = o
                    predicted = o + 1
                }
            }
        }
    }
}
