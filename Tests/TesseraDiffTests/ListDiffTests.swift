import Foundation
import Testing
import TesseraDiff
import TesseraTestSupport
import TesseraTestTraits

private func items(_ ids: [Int]) -> [TestItem] { ids.map { TestItem(id: $0) } }

@Suite("Flat diff", .cpuBound)
struct ListDiffTests {
    @Test("Empty to empty is no change")
    func emptyToEmpty() throws {
        #expect(try diff(from: [TestItem](), to: []) == ListChangeset())
    }

    @Test("Empty to N inserts every offset")
    func emptyToMany() throws {
        #expect(try diff(from: [], to: items([1, 2, 3])) == ListChangeset(inserts: [0, 1, 2]))
    }

    @Test("N to empty deletes every offset")
    func manyToEmpty() throws {
        #expect(try diff(from: items([1, 2, 3]), to: []) == ListChangeset(deletes: [0, 1, 2]))
    }

    @Test("ABCD → BCDA is one move, not three")
    func rotationIsOneMove() throws {
        #expect(try diff(from: items([1, 2, 3, 4]), to: items([2, 3, 4, 1])) == ListChangeset(moves: [Move(from: 0, to: 3)]))
    }

    @Test("One element moved to the end is one move")
    func oneToTheEnd() throws {
        let changes = try diff(from: items(Array(0..<100)), to: items(Array(0..<40) + Array(41..<100) + [40]))
        #expect(changes == ListChangeset(moves: [Move(from: 40, to: 99)]))
    }

    @Test("A full reversal of n elements is n − 1 moves")
    func fullReversal() throws {
        let changes = try diff(from: items(Array(0..<50)), to: items(Array((0..<50).reversed())))
        #expect(changes.moves.count == 49 && changes.deletes.isEmpty && changes.inserts.isEmpty && changes.updates.isEmpty)
    }

    @Test("A deletion before an element does not make it a move")
    func deletionIsNotAMove() throws {
        #expect(try diff(from: items([1, 2, 3]), to: items([2, 3])) == ListChangeset(deletes: [0]))
    }

    @Test("Content change with the same id is an update at old and new offsets")
    func updateOffsets() throws {
        let old = [TestItem(id: 1), TestItem(id: 2), TestItem(id: 3)]
        let new = [TestItem(id: 0), TestItem(id: 1), TestItem(id: 2, content: 9), TestItem(id: 3)]
        #expect(try diff(from: old, to: new) == ListChangeset(inserts: [0], updates: [Move(from: 1, to: 2)]))
    }

    @Test("An element that moved and changed is in both moves and updates")
    func movedAndUpdated() throws {
        let old = items([1, 2, 3])
        let new = [TestItem(id: 2), TestItem(id: 3), TestItem(id: 1, content: 5)]
        let changes = try diff(from: old, to: new)
        #expect(changes.moves == [Move(from: 0, to: 2)] && changes.updates == [Move(from: 0, to: 2)])
    }

    @Test("Duplicate ids in the old list throw, naming the id and both offsets")
    func duplicateInOld() {
        #expect(throws: DiffError.duplicateElementID(id: "2", side: .old, firstOffset: 1, secondOffset: 3)) {
            try diff(from: items([1, 2, 3, 2]), to: items([1]))
        }
        let error = DiffError.duplicateElementID(id: "2", side: .old, firstOffset: 1, secondOffset: 3)
        #expect(error.description == "duplicate element id 2 in the old list: at offsets 1 and 3")
    }

    @Test("Duplicate ids in the new list throw, whether or not the id is in the old list")
    func duplicateInNew() {
        #expect(throws: DiffError.duplicateElementID(id: "1", side: .new, firstOffset: 0, secondOffset: 2)) {
            try diff(from: items([1, 2]), to: items([1, 2, 1]))
        }
        #expect(throws: DiffError.duplicateElementID(id: "7", side: .new, firstOffset: 1, secondOffset: 3)) {
            try diff(from: items([1, 2]), to: items([1, 7, 2, 7]))
        }
    }

    @Test("String ids go through their hash value and still match exactly")
    func stringIDs() throws {
        struct Named: Identifiable, Equatable { var id: String }
        let old = ["a", "b", "c", "d"].map(Named.init)
        let new = ["d", "a", "x", "c"].map(Named.init)
        #expect(try diff(from: old, to: new) == ListChangeset(deletes: [1], inserts: [2], moves: [Move(from: 3, to: 0)]))
    }

    @Test("UUID ids match by their bits")
    func uuidIDs() throws {
        struct Tagged: Identifiable, Equatable { var id: UUID }
        let ids = (0..<5).map { _ in UUID() }
        let old = ids.map(Tagged.init)
        let new = [ids[4], ids[0], ids[1], ids[3]].map(Tagged.init)
        #expect(try diff(from: old, to: new) == ListChangeset(deletes: [2], moves: [Move(from: 4, to: 0)]))
    }

    @Test("A non-contiguous collection gives the same changeset as an array")
    func nonContiguousCollection() throws {
        let old = items([1, 2, 3, 4, 5])
        let new = items([5, 1, 3, 6])
        let viaLazy = try diff(from: old.lazy.map { $0 }, to: new.lazy.map { $0 })
        #expect(viaLazy == (try diff(from: old, to: new)))
    }

    @Test("Random lists: the flat diff agrees with a one-section snapshot diff, and moves are minimal")
    func randomLists() throws {
        try RandomListPairs.forEachRound(2_000, seed: 0xF1A7) { _, old, new, round in
            let comment = Comment(rawValue: "\(round): \(old) → \(new)")

            let flat = try diff(from: old, to: new)
            let sectioned = try diff(from: TestSnapshot([(TestSection(id: 0), old)]), to: TestSnapshot([(TestSection(id: 0), new)]))
            #expect(flat.deletes == sectioned.itemDeletes.map(\.item), comment)
            #expect(flat.inserts == sectioned.itemInserts.map(\.item), comment)
            #expect(flat.moves == sectioned.itemMoves.map { Move(from: $0.from.item, to: $0.to.item) }, comment)
            #expect(flat.updates == sectioned.itemUpdates.map { Move(from: $0.from.item, to: $0.to.item) }, comment)

            let oldOffset = Dictionary(uniqueKeysWithValues: old.enumerated().map { ($1.id, $0) })
            let sequence = new.compactMap { oldOffset[$0.id] }
            #expect(flat.moves.count == sequence.count - longestIncreasingSubsequenceLength(sequence), comment)
            #expect(try old.applying(#require(flat.collectionDifference(from: old, to: new))) == new, comment)
        }
    }
}
