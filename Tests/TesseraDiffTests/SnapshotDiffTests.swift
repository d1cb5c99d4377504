import Foundation
import Testing
import TesseraDiff
import TesseraTestSupport
import TesseraTestTraits

@Suite("Sectioned diff", .cpuBound)
struct SnapshotDiffTests {
    @Test("Empty to empty is no change")
    func emptyToEmpty() throws {
        #expect(try diff(from: TestSnapshot(), to: TestSnapshot()).isEmpty)
    }

    @Test("Empty to N sections inserts sections and no items")
    func emptyToMany() throws {
        let new = TestSnapshot([0: [1, 2], 1: [], 2: [3]])
        let changes = try diff(from: TestSnapshot(), to: new)
        #expect(changes == Changeset(sectionInserts: [0, 1, 2]))
        #expect(try TestSnapshot().applying(changes, takingValuesFrom: new) == new)
    }

    @Test("N sections to empty deletes sections and no items")
    func manyToEmpty() throws {
        let old = TestSnapshot([0: [1, 2], 1: [3]])
        #expect(try diff(from: old, to: TestSnapshot()) == Changeset(sectionDeletes: [0, 1]))
    }

    @Test("Two sections swapped while items move between them")
    func swappedSectionsWithItemsMovingBetween() throws {
        let old = TestSnapshot([10: [1, 2, 3], 20: [4, 5]])
        let new = TestSnapshot([20: [4, 1, 5], 10: [2, 3, 6]])
        let changes = try diff(from: old, to: new)
        // One of the two sections moves (either is minimal; the diff keeps
        // the first and moves section 20).
        #expect(changes == Changeset(
            sectionMoves: [Move(from: 1, to: 0)],
            itemInserts: [IndexPath(item: 2, section: 1)],
            itemMoves: [Move(from: IndexPath(item: 0, section: 0), to: IndexPath(item: 1, section: 0))]
        ))
        #expect(try old.applying(changes, takingValuesFrom: new) == new)

        // UIKit cannot move a section with item changes inside: the single
        // batch deletes and inserts section 20, and the item moving into it
        // becomes a delete from section 10.
        let batch = BatchUpdate(changes)
        #expect(batch.items == [
            .deleteSection(1), .insertSection(0),
            .deleteItem(at: IndexPath(item: 0, section: 0)), .insertItem(at: IndexPath(item: 2, section: 1)),
        ])
        try BatchValidator.validate(batch.items, itemCountsBefore: old.itemCounts, itemCountsAfter: new.itemCounts)
        #expect(try old.applying(batch, takingValuesFrom: new) == new)
        // Tessera's own rules accept the changeset as it is.
        #expect(throws: Never.self) {
            try BatchValidator.validate(
                [.moveSection(1, to: 0), .insertItem(at: IndexPath(item: 2, section: 1)),
                 .moveItem(from: IndexPath(item: 0, section: 0), to: IndexPath(item: 1, section: 0))],
                itemCountsBefore: old.itemCounts, itemCountsAfter: new.itemCounts, rules: .tessera
            )
        }
    }

    @Test("Items leaving a deleted section are inserts; items entering an inserted section are deletes")
    func itemsAcrossDeletedAndInsertedSections() throws {
        let old = TestSnapshot([1: [10, 11], 2: [20]])
        let new = TestSnapshot([2: [20, 10], 3: [11]])
        let changes = try diff(from: old, to: new)
        #expect(changes == Changeset(
            sectionDeletes: [0],
            sectionInserts: [1],
            itemInserts: [IndexPath(item: 1, section: 0)]
        ))
        #expect(try old.applying(changes, takingValuesFrom: new) == new)
    }

    @Test("An item moving to another section is a move across sections")
    func moveAcrossSections() throws {
        let old = TestSnapshot([1: [10, 11], 2: [20]])
        let new = TestSnapshot([1: [11], 2: [10, 20]])
        #expect(try diff(from: old, to: new) == Changeset(
            itemMoves: [Move(from: IndexPath(item: 0, section: 0), to: IndexPath(item: 0, section: 1))]
        ))
    }

    @Test("Duplicate section ids throw, naming both sections")
    func duplicateSections() {
        let old = TestSnapshot([1: [10], 1: [11]])
        #expect(throws: DiffError.duplicateSectionID(id: "1", side: .old, firstSection: 0, secondSection: 1)) {
            try diff(from: old, to: TestSnapshot())
        }
        #expect(DiffError.duplicateSectionID(id: "1", side: .old, firstSection: 0, secondSection: 1).description
            == "duplicate section id 1 in the old snapshot: sections 0 and 1")
    }

    @Test("Duplicate item ids across sections throw, naming both index paths")
    func duplicateItems() {
        let new = TestSnapshot([1: [10, 11], 2: [], 3: [12, 11]])
        let expected = DiffError.duplicateItemID(
            id: "11", side: .new, first: IndexPath(item: 1, section: 0), second: IndexPath(item: 1, section: 2)
        )
        #expect(throws: expected) { try diff(from: TestSnapshot([1: [10]]), to: new) }
        #expect(expected.description == "duplicate item id 11 in the new snapshot: at [section 0, item 1] and [section 2, item 1]")
    }

    /// Item 10 moves from first to last and changes content.
    func movedAndUpdatedFixture() throws -> (old: TestSnapshot, new: TestSnapshot, changes: Changeset) {
        let old = TestSnapshot([1: [10, 11, 12]])
        var new = TestSnapshot([1: [11, 12, 10]])
        new[IndexPath(item: 2, section: 0)].content = 1
        return (old, new, try diff(from: old, to: new))
    }

    @Test("An item both moved and updated: delete + insert under .deleteAndInsert")
    func movedAndUpdatedDeleteAndInsert() throws {
        let (old, new, changes) = try movedAndUpdatedFixture()
        let from = IndexPath(item: 0, section: 0)
        let to = IndexPath(item: 2, section: 0)
        #expect(changes == Changeset(itemMoves: [Move(from: from, to: to)], itemUpdates: [Move(from: from, to: to)]))
        let batch = BatchUpdate(changes, policy: .deleteAndInsert)
        #expect(batch.items == [.deleteItem(at: from), .insertItem(at: to)])
        #expect(batch.followUpReloads.isEmpty)
        #expect(try old.applying(batch, takingValuesFrom: new) == new)
    }

    @Test("An item both moved and updated: move, then a reload in a second pass under .moveThenReload")
    func movedAndUpdatedMoveThenReload() throws {
        let (old, new, changes) = try movedAndUpdatedFixture()
        let from = IndexPath(item: 0, section: 0)
        let to = IndexPath(item: 2, section: 0)
        let batch = BatchUpdate(changes, policy: .moveThenReload)
        #expect(batch.items == [.moveItem(from: from, to: to)])
        #expect(batch.followUpReloads == [.reloadItem(at: to)])
        #expect(try old.applying(batch, takingValuesFrom: new) == new)
        // The first pass alone keeps the old content: the reload carries it.
        #expect(try old.applying(batch.items, takingValuesFrom: new)[to].content == 0)
    }

    @Test("A section that changed content and nothing else is reloaded at its old index")
    func sectionReload() throws {
        let old = TestSnapshot([1: [10], 2: [20]])
        var new = TestSnapshot([0: [], 1: [10], 2: [20]])
        new[section: 2].content = 7
        let changes = try diff(from: old, to: new)
        #expect(changes == Changeset(sectionInserts: [0], sectionUpdates: [Move(from: 1, to: 2)]))
        #expect(BatchUpdate(changes).items == [.insertSection(0), .reloadSection(1, landing: 2)])
        #expect(try old.applying(BatchUpdate(changes), takingValuesFrom: new) == new)
    }

    @Test("Staged form: five stages in order, each valid against the state before it")
    func stagedForm() throws {
        var old = TestSnapshot([1: [10, 11, 12], 2: [20, 21], 3: [30]])
        old[IndexPath(item: 1, section: 0)].content = 0
        var new = TestSnapshot([3: [30, 12], 4: [40], 1: [11, 10, 22]])
        new[IndexPath(item: 0, section: 2)].content = 5
        new[section: 0].content = 1
        let changes = try diff(from: old, to: new)
        let staged = try StagedBatchUpdate(changes, sectionCountBefore: old.numberOfSections)
        #expect(staged.steps.map(\.stage) == StagedBatchUpdate.Stage.allCases)
        var state = old
        for step in staged.steps {
            let next = try state.applying(step.items, takingValuesFrom: new)
            try BatchValidator.validate(step.items, itemCountsBefore: state.itemCounts, itemCountsAfter: next.itemCounts)
            state = next
        }
        #expect(state == new)
        #expect(try old.applying(staged, takingValuesFrom: new) == new)
    }

    @Test("Staged form of a changeset that does not fit the section count throws the validator's error")
    func stagedFormRejectsBadInput() {
        #expect(throws: BatchValidationError.sectionOutOfRange(action: .delete, section: 5, sectionCount: 2, space: .before)) {
            try StagedBatchUpdate(Changeset(sectionDeletes: [5]), sectionCountBefore: 2)
        }
        #expect(throws: BatchValidationError.invalidSectionCount(before: 1, after: -1, inserted: 0, deleted: 2)) {
            try StagedBatchUpdate(Changeset(sectionDeletes: [0, 1]), sectionCountBefore: 1)
        }
        let moveOutOfDeleted = Changeset(
            sectionDeletes: [0],
            itemMoves: [Move(from: IndexPath(item: 0, section: 0), to: IndexPath(item: 0, section: 0))]
        )
        #expect(throws: BatchValidationError.itemInDeletedSection(action: .move, indexPath: IndexPath(item: 0, section: 0))) {
            try StagedBatchUpdate(moveOutOfDeleted, sectionCountBefore: 2)
        }
    }

    @Test("Replaying a reload of a section that does not exist throws instead of trapping")
    func replayOutOfRangeSectionReload() {
        let one = TestSnapshot([1: [10]])
        for section in [5, -1] {
            #expect(throws: ReplayError.invalidBatch(.sectionOutOfRange(action: .reload, section: section, sectionCount: 1, space: .before))) {
                try one.applying([.reloadSection(section)], takingValuesFrom: one)
            }
        }
    }

    @Test("Replay names a section deleted twice, not the item that the impossible section count puts out of range")
    func replayNamesTheSectionFault() {
        let three = TestSnapshot([1: [10, 11, 12], 2: [20, 21, 22], 3: [30, 31, 32]])
        let batch: [UpdateItem] = [.deleteSection(0), .deleteSection(0), .insertItem(at: IndexPath(item: 0, section: 1))]
        #expect(throws: ReplayError.invalidBatch(.sectionNamedTwice(section: 0, space: .before, first: .delete, second: .delete))) {
            try three.applying(batch, takingValuesFrom: three)
        }
        // The validator names the same fault once every index is in range.
        #expect(throws: BatchValidationError.sectionNamedTwice(section: 0, space: .before, first: .delete, second: .delete)) {
            try BatchValidator.validate(batch, itemCountsBefore: [3, 3, 3], itemCountsAfter: [3, 4], rules: .tessera)
        }
    }

    @Test("A hand-built changeset that moves a section twice gives a batch the validator rejects, not a trap")
    func inconsistentChangesetDoesNotTrap() {
        let changeset = Changeset(sectionMoves: [Move(from: 0, to: 1), Move(from: 0, to: 2)])
        let batch = BatchUpdate(changeset)
        #expect(throws: BatchValidationError.self) {
            try BatchValidator.validate(batch.items, itemCountsBefore: [1, 1, 1], itemCountsAfter: [1, 1, 1])
        }
    }

    @Test("Items with the .none action are ignored even when their index paths are malformed")
    func noneItemsIgnored() throws {
        try BatchValidator.validate(
            [UpdateItem(action: .none, before: IndexPath(indexes: [0, 1, 2]), after: IndexPath(index: 7))],
            itemCountsBefore: [1], itemCountsAfter: [1]
        )
    }
}
