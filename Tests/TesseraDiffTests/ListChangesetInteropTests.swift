import Testing
import TesseraDiff
import TesseraTestSupport
import TesseraTestTraits

@Suite("ListChangeset and CollectionDifference", .cpuBound)
struct ListChangesetInteropTests {
    @Test("Applying the CollectionDifference of a diff to the old list gives the new list, for 1,000 random pairs")
    func collectionDifferenceReplaysDiff() throws {
        try RandomListPairs.forEachRound(1_000, seed: 0x11D1_FF00) { _, old, new, round in
            let context = "\(round): \(old) → \(new)"
            let changeset = try diff(from: old, to: new)
            let difference = try #require(changeset.collectionDifference(from: old, to: new), "no difference; \(context)")
            let applied = try #require(old.applying(difference), "difference does not apply; \(context)")
            #expect(applied == new, "changeset \(changeset); \(context)")
            // Every operation of the changeset is one change per side.
            #expect(difference.removals.count == changeset.deletes.count + Set((changeset.moves + changeset.updates).map(\.from)).count, "\(context)")
            #expect(difference.insertions.count == changeset.inserts.count + Set((changeset.moves + changeset.updates).map(\.to)).count, "\(context)")
        }
    }

    @Test("Concrete diff: a delete, an insert, a move and an update become removals and insertions")
    func concreteCollectionDifference() throws {
        let old = [TestItem(id: 1), TestItem(id: 2), TestItem(id: 3)]
        let new = [TestItem(id: 3), TestItem(id: 1, content: 5), TestItem(id: 4)]
        let changeset = try diff(from: old, to: new)
        #expect(changeset == ListChangeset(deletes: [1], inserts: [2], moves: [Move(from: 2, to: 0)], updates: [Move(from: 0, to: 1)]))
        let difference = try #require(changeset.collectionDifference(from: old, to: new))
        #expect(Array(difference.removals) == [
            .remove(offset: 0, element: TestItem(id: 1), associatedWith: 1),
            .remove(offset: 1, element: TestItem(id: 2), associatedWith: nil),
            .remove(offset: 2, element: TestItem(id: 3), associatedWith: 0),
        ])
        #expect(Array(difference.insertions) == [
            .insert(offset: 0, element: TestItem(id: 3), associatedWith: 2),
            .insert(offset: 1, element: TestItem(id: 1, content: 5), associatedWith: 0),
            .insert(offset: 2, element: TestItem(id: 4), associatedWith: nil),
        ])
        #expect(old.applying(difference) == new)
    }

    @Test("An empty changeset between equal lists is an empty difference")
    func emptyChangesetIsEmptyDifference() throws {
        let list = [TestItem(id: 1), TestItem(id: 2)]
        let difference = try #require(ListChangeset().collectionDifference(from: list, to: list))
        #expect(difference.isEmpty)
        #expect(list.applying(difference) == list)
    }

    @Test("An offset outside its list gives no difference")
    func outOfRangeOffsetGivesNil() {
        let old = [TestItem(id: 1), TestItem(id: 2)]
        let new = [TestItem(id: 1)]
        #expect(ListChangeset(deletes: [5]).collectionDifference(from: old, to: new) == nil)
        #expect(ListChangeset(inserts: [1]).collectionDifference(from: old, to: new) == nil)
        #expect(ListChangeset(moves: [Move(from: 0, to: 3)]).collectionDifference(from: old, to: new) == nil)
        #expect(ListChangeset(updates: [Move(from: 2, to: 0)]).collectionDifference(from: old, to: new) == nil)
    }

    @Test("Reading a CollectionDifference with inferred moves gives counts consistent with it, for 1,000 random id lists")
    func changesetFromCollectionDifference() throws {
        try RandomListPairs.forEachRound(1_000, seed: 0xC011_D1FF) { _, oldItems, newItems, round in
            let old = oldItems.map(\.id)
            let new = newItems.map(\.id)
            let context = "\(round): \(old) → \(new)"
            let difference = new.difference(from: old).inferringMoves()
            let changeset = ListChangeset(difference)

            var unassociatedRemovals = 0, associatedRemovals = 0, unassociatedInsertions = 0, associatedInsertions = 0
            for change in difference {
                switch change {
                case let .remove(_, _, partner): if partner == nil { unassociatedRemovals += 1 } else { associatedRemovals += 1 }
                case let .insert(_, _, partner): if partner == nil { unassociatedInsertions += 1 } else { associatedInsertions += 1 }
                }
            }
            #expect(changeset.deletes.count == unassociatedRemovals, "\(context)")
            #expect(changeset.inserts.count == unassociatedInsertions, "\(context)")
            #expect(changeset.moves.count == associatedInsertions, "\(context)")
            #expect(changeset.moves.count == associatedRemovals, "\(context)")
            #expect(changeset.updates.isEmpty, "\(context)")

            // The ids line up with the lists: deletes are exactly the ids
            // that are gone, inserts the ids that are new, and each move
            // carries one id from its old offset to its new offset.
            #expect(Set(changeset.deletes.map { old[$0] }) == Set(old).subtracting(new), "\(context)")
            #expect(Set(changeset.inserts.map { new[$0] }) == Set(new).subtracting(old), "\(context)")
            for move in changeset.moves {
                #expect(old[move.from] == new[move.to], "move \(move); \(context)")
            }
            #expect(changeset.deletes == changeset.deletes.sorted(), "\(context)")
            #expect(changeset.inserts == changeset.inserts.sorted(), "\(context)")
            #expect(changeset.moves.map(\.from) == changeset.moves.map(\.from).sorted(), "\(context)")
            // Its elements keep their relative order: the old count minus
            // what leaves plus what comes equals the new count.
            #expect(old.count - changeset.deletes.count + changeset.inserts.count == new.count, "\(context)")

            // And converting back gives a difference that still replays.
            let back = try #require(changeset.collectionDifference(from: old, to: new), "\(context)")
            #expect(old.applying(back) == new, "\(context)")
        }
    }

    @Test("A rotation read from a CollectionDifference with inferred moves is one move and nothing else")
    func rotationFromCollectionDifference() {
        let old = [1, 2, 3, 4]
        let new = [2, 3, 4, 1]
        let changeset = ListChangeset(new.difference(from: old).inferringMoves())
        #expect(changeset == ListChangeset(moves: [Move(from: 0, to: 3)]))
    }

    @Test("A CollectionDifference without inferred moves reads as deletes and inserts only")
    func differenceWithoutInferredMoves() {
        let old = [1, 2, 3]
        let new = [3, 1, 4]
        let changeset = ListChangeset(new.difference(from: old))
        #expect(changeset.moves.isEmpty)
        #expect(changeset.deletes.map { old[$0] }.contains(2))
        #expect(changeset.inserts.map { new[$0] }.contains(4))
        #expect(old.count - changeset.deletes.count + changeset.inserts.count == new.count)
    }
}
