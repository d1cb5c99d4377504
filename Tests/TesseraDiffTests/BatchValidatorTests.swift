#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Testing
import TesseraDiff
import TesseraTestSupport
import TesseraTestTraits

/// An item index path, `[section, item]`.
private func ip(_ section: Int, _ item: Int) -> IndexPath {
    IndexPath(item: item, section: section)
}

/// The error `BatchValidator.validate` throws for a batch, or `nil` when the
/// batch passes.
private func validationError(
    _ items: [UpdateItem],
    before: [Int],
    after: [Int],
    rules: BatchValidator.Rules = .uikit
) -> BatchValidationError? {
    do {
        try BatchValidator.validate(items, itemCountsBefore: before, itemCountsAfter: after, rules: rules)
        return nil
    } catch {
        return error
    }
}

/// Expects the batch to fail with exactly `expected`, whose message is
/// exactly `message`.
private func expectFailure(
    _ items: [UpdateItem],
    before: [Int],
    after: [Int],
    rules: BatchValidator.Rules = .uikit,
    is expected: BatchValidationError,
    message: String,
    sourceLocation: SourceLocation = #_sourceLocation
) {
    let error = validationError(items, before: before, after: after, rules: rules)
    #expect(error == expected, "batch \(items) with counts \(before) → \(after)", sourceLocation: sourceLocation)
    #expect(error?.description == message, sourceLocation: sourceLocation)
    // The enum value alone must give the same message.
    #expect(expected.description == message, sourceLocation: sourceLocation)
}

/// Expects the batch to pass.
private func expectValid(
    _ items: [UpdateItem],
    before: [Int],
    after: [Int],
    rules: BatchValidator.Rules = .uikit,
    sourceLocation: SourceLocation = #_sourceLocation
) {
    let error = validationError(items, before: before, after: after, rules: rules)
    #expect(error == nil, "unexpected error: \(error.map { "\($0)" } ?? "")", sourceLocation: sourceLocation)
}

@Suite("Batch validator: malformed items", .cpuBound)
struct BatchValidatorMalformedTests {
    @Test("An insert with an index path before the update is malformed")
    func insertWithBeforePath() {
        let item = UpdateItem(action: .insert, before: ip(0, 1), after: ip(0, 2))
        expectFailure(
            [item], before: [2], after: [3],
            is: .malformedItem(item, reason: "an insert has an index path after the update and none before"),
            message: "Invalid update: malformed update item (insert [section 0, item 1] → [section 0, item 2]): "
                + "an insert has an index path after the update and none before"
        )
    }

    @Test("An insert with no index path at all is malformed")
    func insertWithNoPath() {
        let item = UpdateItem(action: .insert, before: nil, after: nil)
        expectFailure(
            [item], before: [1], after: [1],
            is: .malformedItem(item, reason: "an insert has an index path after the update and none before"),
            message: "Invalid update: malformed update item (insert): an insert has an index path after the update and none before"
        )
    }

    @Test("A delete with an index path after the update is malformed")
    func deleteWithAfterPath() {
        let item = UpdateItem(action: .delete, before: IndexPath(index: 0), after: IndexPath(index: 1))
        expectFailure(
            [item], before: [1, 1], after: [1],
            is: .malformedItem(item, reason: "a delete has an index path before the update and none after"),
            message: "Invalid update: malformed update item (delete [section 0] → [section 1]): "
                + "a delete has an index path before the update and none after"
        )
    }

    @Test("A reload without an index path before the update is malformed")
    func reloadWithoutBeforePath() {
        let item = UpdateItem(action: .reload, before: nil, after: ip(0, 0))
        expectFailure(
            [item], before: [1], after: [1],
            is: .malformedItem(item, reason: "a reload has an index path before the update"),
            message: "Invalid update: malformed update item (reload → [section 0, item 0]): a reload has an index path before the update"
        )
    }

    @Test("A move with only its before path is malformed")
    func moveWithOnlyBeforePath() {
        let item = UpdateItem(action: .move, before: ip(0, 0), after: nil)
        expectFailure(
            [item], before: [2], after: [2],
            is: .malformedItem(item, reason: "a move has index paths before and after the update"),
            message: "Invalid update: malformed update item (move [section 0, item 0]): a move has index paths before and after the update"
        )
    }

    @Test("A move with only its after path is malformed")
    func moveWithOnlyAfterPath() {
        let item = UpdateItem(action: .move, before: nil, after: IndexPath(index: 1))
        expectFailure(
            [item], before: [0, 0], after: [0, 0],
            is: .malformedItem(item, reason: "a move has index paths before and after the update"),
            message: "Invalid update: malformed update item (move → [section 1]): a move has index paths before and after the update"
        )
    }

    @Test("An index path with three indexes is malformed")
    func threeIndexPath() {
        let item = UpdateItem(action: .delete, before: IndexPath(indexes: [0, 1, 2]), after: nil)
        expectFailure(
            [item], before: [3], after: [2],
            is: .malformedItem(item, reason: "an index path has 3 indexes; a section has 1 and an item 2"),
            message: "Invalid update: malformed update item (delete [0, 1, 2]): an index path has 3 indexes; a section has 1 and an item 2"
        )
    }

    @Test("An empty index path is malformed")
    func emptyIndexPath() {
        let item = UpdateItem(action: .insert, before: nil, after: IndexPath())
        expectFailure(
            [item], before: [1], after: [1],
            is: .malformedItem(item, reason: "an index path has 0 indexes; a section has 1 and an item 2"),
            message: "Invalid update: malformed update item (insert → []): an index path has 0 indexes; a section has 1 and an item 2"
        )
    }

    @Test("A move from a section path to an item path is malformed")
    func moveBetweenSectionAndItem() {
        let item = UpdateItem(action: .move, before: IndexPath(index: 1), after: ip(0, 0))
        expectFailure(
            [item], before: [1, 1], after: [2, 0],
            is: .malformedItem(item, reason: "its index paths before and after name a section and an item"),
            message: "Invalid update: malformed update item (move [section 1] → [section 0, item 0]): "
                + "its index paths before and after name a section and an item"
        )
    }

    @Test("A malformed item is reported before an out-of-range one listed earlier")
    func malformedBeatsOutOfRange() {
        let bad = UpdateItem(action: .move, before: ip(0, 0), after: nil)
        expectFailure(
            [.deleteSection(9), bad], before: [1], after: [1],
            is: .malformedItem(bad, reason: "a move has index paths before and after the update"),
            message: "Invalid update: malformed update item (move [section 0, item 0]): a move has index paths before and after the update"
        )
    }
}

@Suite("Batch validator: ranges", .cpuBound)
struct BatchValidatorRangeTests {
    @Test("Deleting section 3 of 3 is out of range before the update")
    func deleteSectionOutOfRange() {
        expectFailure(
            [.deleteSection(3)], before: [1, 1, 1], after: [1, 1],
            is: .sectionOutOfRange(action: .delete, section: 3, sectionCount: 3, space: .before),
            message: "Invalid update: attempt to delete section 3, but there are only 3 sections before the update"
        )
    }

    @Test("Reloading section 2 of 2 is out of range before the update")
    func reloadSectionOutOfRange() {
        expectFailure(
            [.reloadSection(2)], before: [1, 1], after: [1, 1],
            is: .sectionOutOfRange(action: .reload, section: 2, sectionCount: 2, space: .before),
            message: "Invalid update: attempt to reload section 2, but there are only 2 sections before the update"
        )
    }

    @Test("Inserting section 4 when there will be 4 sections is out of range after the update")
    func insertSectionOutOfRange() {
        expectFailure(
            [.insertSection(4)], before: [1, 1, 1], after: [1, 1, 1, 1],
            is: .sectionOutOfRange(action: .insert, section: 4, sectionCount: 4, space: .after),
            message: "Invalid update: attempt to insert section 4, but there are only 4 sections after the update"
        )
    }

    @Test("Moving section 5 when there are 3 is out of range before the update")
    func moveSectionSourceOutOfRange() {
        expectFailure(
            [.moveSection(5, to: 0)], before: [1, 1, 1], after: [1, 1, 1],
            is: .sectionOutOfRange(action: .move, section: 5, sectionCount: 3, space: .before),
            message: "Invalid update: attempt to move section 5, but there are only 3 sections before the update"
        )
    }

    @Test("Moving a section to section 3 when there will be 3 is out of range after the update")
    func moveSectionTargetOutOfRange() {
        expectFailure(
            [.moveSection(0, to: 3)], before: [1, 1, 1], after: [1, 1, 1],
            is: .sectionOutOfRange(action: .move, section: 3, sectionCount: 3, space: .after),
            message: "Invalid update: attempt to move a section to section 3, but there are only 3 sections after the update"
        )
    }

    @Test("Reloading a section to a landing past the end is out of range after the update")
    func reloadSectionLandingOutOfRange() {
        // Spec: every new-space index must exist in the new state, and a
        // reload's landing is a new-space position.
        expectFailure(
            [.reloadSection(0, landing: 5)], before: [1], after: [1],
            is: .sectionOutOfRange(action: .reload, section: 5, sectionCount: 1, space: .after),
            message: "Invalid update: attempt to reload to section 5, but there are only 1 sections after the update"
        )
    }

    @Test("Deleting an item of section 5 when there are 3 sections names a missing section")
    func deleteItemInMissingSection() {
        expectFailure(
            [.deleteItem(at: ip(5, 0))], before: [1, 1, 1], after: [1, 1, 1],
            is: .sectionOfItemOutOfRange(action: .delete, indexPath: ip(5, 0), sectionCount: 3, space: .before),
            message: "Invalid update: attempt to delete item 0 from section 5, but there are only 3 sections before the update"
        )
    }

    @Test("Inserting an item into section 2 when there will be 2 sections names a missing section")
    func insertItemInMissingSection() {
        expectFailure(
            [.insertItem(at: ip(2, 0))], before: [1, 1], after: [1, 1],
            is: .sectionOfItemOutOfRange(action: .insert, indexPath: ip(2, 0), sectionCount: 2, space: .after),
            message: "Invalid update: attempt to insert item 0 into section 2, but there are only 2 sections after the update"
        )
    }

    @Test("Moving an item to section 3 when there will be 3 sections names a missing section")
    func moveItemToMissingSection() {
        expectFailure(
            [.moveItem(from: ip(0, 0), to: ip(3, 0))], before: [1, 1, 1], after: [1, 1, 1],
            is: .sectionOfItemOutOfRange(action: .move, indexPath: ip(3, 0), sectionCount: 3, space: .after),
            message: "Invalid update: attempt to move an item to item 0 of section 3, but there are only 3 sections after the update"
        )
    }

    @Test("Deleting item 2 of a one-item section is out of range before the update (UIKit's words)")
    func deleteItemOutOfRange() {
        expectFailure(
            [.deleteItem(at: ip(0, 2))], before: [1], after: [0],
            is: .itemOutOfRange(action: .delete, indexPath: ip(0, 2), itemCount: 1, space: .before),
            message: "Invalid update: attempt to delete item 2 from section 0 which only contains 1 items before the update"
        )
    }

    @Test("Reloading item 4 of a four-item section is out of range before the update")
    func reloadItemOutOfRange() {
        expectFailure(
            [.reloadItem(at: ip(1, 4))], before: [2, 4], after: [2, 4],
            is: .itemOutOfRange(action: .reload, indexPath: ip(1, 4), itemCount: 4, space: .before),
            message: "Invalid update: attempt to reload item 4 from section 1 which only contains 4 items before the update"
        )
    }

    @Test("Moving item 3 of a three-item section is out of range before the update")
    func moveItemSourceOutOfRange() {
        expectFailure(
            [.moveItem(from: ip(0, 3), to: ip(0, 0))], before: [3], after: [3],
            is: .itemOutOfRange(action: .move, indexPath: ip(0, 3), itemCount: 3, space: .before),
            message: "Invalid update: attempt to move item 3 from section 0 which only contains 3 items before the update"
        )
    }

    @Test("Inserting item 3 into a section of 3 items after the update is out of range")
    func insertItemOutOfRange() {
        expectFailure(
            [.insertItem(at: ip(0, 3))], before: [2], after: [3],
            is: .itemOutOfRange(action: .insert, indexPath: ip(0, 3), itemCount: 3, space: .after),
            message: "Invalid update: attempt to insert item 3 into section 0, but there are only 3 items in section 0 after the update"
        )
    }

    @Test("Moving an item past the end of its target section is out of range after the update")
    func moveItemTargetOutOfRange() {
        expectFailure(
            [.moveItem(from: ip(0, 0), to: ip(1, 2))], before: [1, 1], after: [0, 2],
            is: .itemOutOfRange(action: .move, indexPath: ip(1, 2), itemCount: 2, space: .after),
            message: "Invalid update: attempt to move an item to item 2 of section 1, but there are only 2 items in section 1 after the update"
        )
    }

    @Test("Reloading an item to a landing past the end of its section is out of range after the update")
    func reloadItemLandingOutOfRange() {
        // Spec: every new-space index path must exist in the new state.
        expectFailure(
            [.reloadItem(at: ip(0, 0), landing: ip(0, 4))], before: [1], after: [1],
            is: .itemOutOfRange(action: .reload, indexPath: ip(0, 4), itemCount: 1, space: .after),
            message: "Invalid update: attempt to reload an item to item 4 of section 0, but there are only 1 items in section 0 after the update"
        )
    }

    @Test("A negative item index is out of range")
    func negativeItemIndex() {
        expectFailure(
            [.deleteItem(at: ip(0, -1))], before: [1], after: [0],
            is: .itemOutOfRange(action: .delete, indexPath: ip(0, -1), itemCount: 1, space: .before),
            message: "Invalid update: attempt to delete item -1 from section 0 which only contains 1 items before the update"
        )
    }
}

@Suite("Batch validator: uniqueness", .cpuBound)
struct BatchValidatorUniquenessTests {
    @Test("Deleting and moving the same section names it twice before the update")
    func deleteAndMoveSameSection() {
        expectFailure(
            [.deleteSection(1), .moveSection(1, to: 0)], before: [1, 1, 1], after: [1, 1],
            is: .sectionNamedTwice(section: 1, space: .before, first: .delete, second: .move),
            message: "Invalid update: attempt to perform a delete and a move from the same section (1)"
        )
    }

    @Test("The order of the items does not change which operation is named first")
    func orderOfItemsDoesNotMatter() {
        expectFailure(
            [.moveSection(1, to: 0), .deleteSection(1)], before: [1, 1, 1], after: [1, 1],
            is: .sectionNamedTwice(section: 1, space: .before, first: .delete, second: .move),
            message: "Invalid update: attempt to perform a delete and a move from the same section (1)"
        )
    }

    @Test("Reloading and deleting the same section names it twice before the update")
    func reloadAndDeleteSameSection() {
        expectFailure(
            [.reloadSection(0), .deleteSection(0)], before: [1, 1], after: [1],
            is: .sectionNamedTwice(section: 0, space: .before, first: .delete, second: .reload),
            message: "Invalid update: attempt to perform a delete and a reload from the same section (0)"
        )
    }

    @Test("Inserting a section and moving another to the same index names it twice after the update")
    func insertAndMoveToSameSection() {
        expectFailure(
            [.insertSection(0), .moveSection(2, to: 0)], before: [1, 1, 1], after: [1, 1, 1, 1],
            is: .sectionNamedTwice(section: 0, space: .after, first: .insert, second: .move),
            message: "Invalid update: attempt to perform an insert and a move to the same section (0)"
        )
    }

    @Test("Inserting an item and moving another to the same index path names it twice after the update")
    func insertAndMoveToSameItem() {
        expectFailure(
            [.insertItem(at: ip(0, 1)), .moveItem(from: ip(1, 0), to: ip(0, 1))], before: [2, 1], after: [4, 0],
            is: .itemNamedTwice(indexPath: ip(0, 1), space: .after, first: .insert, second: .move),
            message: "Invalid update: attempt to perform an insert and a move to the same index path ([section 0, item 1])"
        )
    }

    @Test("Deleting and reloading the same item names it twice before the update")
    func deleteAndReloadSameItem() {
        expectFailure(
            [.deleteItem(at: ip(0, 1)), .reloadItem(at: ip(0, 1))], before: [2], after: [1],
            is: .itemNamedTwice(indexPath: ip(0, 1), space: .before, first: .delete, second: .reload),
            message: "Invalid update: attempt to perform a delete and a reload from the same index path ([section 0, item 1])"
        )
    }

    @Test("Moving the same item twice names it twice before the update")
    func moveSameItemTwice() {
        expectFailure(
            [.moveItem(from: ip(0, 0), to: ip(0, 1)), .moveItem(from: ip(0, 0), to: ip(0, 2))], before: [3], after: [3],
            is: .itemNamedTwice(indexPath: ip(0, 0), space: .before, first: .move, second: .move),
            message: "Invalid update: attempt to perform a move and a move from the same index path ([section 0, item 0])"
        )
    }

    @Test("Reloading an item and moving the same item names it twice before the update")
    func reloadAndMoveSameItem() {
        expectFailure(
            [.moveItem(from: ip(0, 0), to: ip(0, 1)), .reloadItem(at: ip(0, 0))], before: [2], after: [2],
            is: .itemNamedTwice(indexPath: ip(0, 0), space: .before, first: .reload, second: .move),
            message: "Invalid update: attempt to perform a reload and a move from the same index path ([section 0, item 0])"
        )
    }

    @Test("A reload landing on the index path of an insert names that index path twice after the update")
    func reloadLandingOnInsert() {
        // Spec (Uniqueness): in new space an item may appear at most once
        // across inserts and move targets "and the positions reloaded items
        // land on". Old item 0 lands at [0, 1] here, so a landing of [0, 0]
        // collides with the insert.
        let items: [UpdateItem] = [.insertItem(at: ip(0, 0)), .reloadItem(at: ip(0, 0), landing: ip(0, 0))]
        let error = validationError(items, before: [1], after: [2])
        let path = ip(0, 0)
        let acceptable: [BatchValidationError: String] = [
            .itemNamedTwice(indexPath: path, space: .after, first: .insert, second: .reload):
                "Invalid update: attempt to perform an insert and a reload to the same index path ([section 0, item 0])",
            .itemNamedTwice(indexPath: path, space: .after, first: .reload, second: .insert):
                "Invalid update: attempt to perform a reload and an insert to the same index path ([section 0, item 0])",
        ]
        #expect(error.map { acceptable[$0] != nil } == true, "got \(error.map { "\($0)" } ?? "no error")")
        if let error, let message = acceptable[error] {
            #expect(error.description == message)
        }
    }

    @Test("A section reload landing on an inserted section names that section twice after the update")
    func sectionReloadLandingOnInsert() {
        let items: [UpdateItem] = [.insertSection(0), .reloadSection(0, landing: 0)]
        let error = validationError(items, before: [1], after: [1, 1])
        let acceptable: [BatchValidationError: String] = [
            .sectionNamedTwice(section: 0, space: .after, first: .insert, second: .reload):
                "Invalid update: attempt to perform an insert and a reload to the same section (0)",
            .sectionNamedTwice(section: 0, space: .after, first: .reload, second: .insert):
                "Invalid update: attempt to perform a reload and an insert to the same section (0)",
        ]
        #expect(error.map { acceptable[$0] != nil } == true, "got \(error.map { "\($0)" } ?? "no error")")
        if let error, let message = acceptable[error] {
            #expect(error.description == message)
        }
    }
}

@Suite("Batch validator: item operations inside section operations", .cpuBound)
struct BatchValidatorSectionVersusItemTests {
    @Test("Deleting an item of a deleted section is rejected under both rule sets")
    func itemInDeletedSection() {
        for rules in [BatchValidator.Rules.uikit, .tessera] {
            expectFailure(
                [.deleteSection(1), .deleteItem(at: ip(1, 0))], before: [2, 2], after: [2], rules: rules,
                is: .itemInDeletedSection(action: .delete, indexPath: ip(1, 0)),
                message: "Invalid update: attempt to delete item 0 from section 1, but section 1 is being deleted"
            )
        }
    }

    @Test("Moving an item out of a deleted section is rejected")
    func moveOutOfDeletedSection() {
        expectFailure(
            [.deleteSection(1), .moveItem(from: ip(1, 0), to: ip(0, 2))], before: [2, 2], after: [3],
            is: .itemInDeletedSection(action: .move, indexPath: ip(1, 0)),
            message: "Invalid update: attempt to move item 0 from section 1, but section 1 is being deleted"
        )
    }

    @Test("Inserting an item into an inserted section is rejected under both rule sets")
    func itemInInsertedSection() {
        for rules in [BatchValidator.Rules.uikit, .tessera] {
            expectFailure(
                [.insertSection(1), .insertItem(at: ip(1, 0))], before: [2], after: [2, 1], rules: rules,
                is: .itemInInsertedSection(action: .insert, indexPath: ip(1, 0)),
                message: "Invalid update: attempt to insert item 0 into section 1, but section 1 is being inserted"
            )
        }
    }

    @Test("Moving an item into an inserted section is rejected")
    func moveIntoInsertedSection() {
        expectFailure(
            [.insertSection(1), .moveItem(from: ip(0, 0), to: ip(1, 0))], before: [2], after: [1, 1],
            is: .itemInInsertedSection(action: .move, indexPath: ip(1, 0)),
            message: "Invalid update: attempt to move an item to item 0 of section 1, but section 1 is being inserted"
        )
    }

    @Test("Deleting an item of a reloaded section is rejected in the space before the update")
    func itemInReloadedSectionBefore() {
        for rules in [BatchValidator.Rules.uikit, .tessera] {
            expectFailure(
                [.reloadSection(0), .deleteItem(at: ip(0, 0))], before: [2, 1], after: [1, 1], rules: rules,
                is: .itemInReloadedSection(action: .delete, indexPath: ip(0, 0), space: .before),
                message: "Invalid update: attempt to delete item 0 from section 0, but section 0 is being reloaded"
            )
        }
    }

    @Test("Reloading an item of a reloaded section is rejected")
    func itemReloadInReloadedSection() {
        expectFailure(
            [.reloadSection(0), .reloadItem(at: ip(0, 1))], before: [2], after: [2],
            is: .itemInReloadedSection(action: .reload, indexPath: ip(0, 1), space: .before),
            message: "Invalid update: attempt to reload item 1 from section 0, but section 0 is being reloaded"
        )
    }

    @Test("Inserting an item where a reloaded section lands after the update is rejected in the space after")
    func itemInReloadedSectionAfter() {
        // Old section 0 is reloaded and, because a section is inserted before
        // it, lands at section 1.
        for rules in [BatchValidator.Rules.uikit, .tessera] {
            expectFailure(
                [.insertSection(0), .reloadSection(0), .insertItem(at: ip(1, 0))], before: [2], after: [0, 3], rules: rules,
                is: .itemInReloadedSection(action: .insert, indexPath: ip(1, 0), space: .after),
                message: "Invalid update: attempt to insert item 0 into section 1, but section 1 is being reloaded"
            )
        }
    }

    @Test("Deleting an item of a moved section fails under UIKit rules and passes under Tessera's")
    func itemInMovedSectionBefore() {
        let batch: [UpdateItem] = [.moveSection(0, to: 1), .deleteItem(at: ip(0, 0))]
        expectFailure(
            batch, before: [2, 1], after: [1, 1], rules: .uikit,
            is: .itemInMovedSection(action: .delete, indexPath: ip(0, 0), space: .before),
            message: "Invalid update: attempt to delete item 0 from section 0, but section 0 is being moved; "
                + "UIKit cannot change items inside a moved section (stage the update, or delete and insert the section)"
        )
        expectValid(batch, before: [2, 1], after: [1, 1], rules: .tessera)
    }

    @Test("Inserting an item into a moved section fails under UIKit rules and passes under Tessera's")
    func itemInMovedSectionAfter() {
        let batch: [UpdateItem] = [.moveSection(0, to: 1), .insertItem(at: ip(1, 2))]
        expectFailure(
            batch, before: [2, 1], after: [1, 3], rules: .uikit,
            is: .itemInMovedSection(action: .insert, indexPath: ip(1, 2), space: .after),
            message: "Invalid update: attempt to insert item 2 into section 1, but section 1 is being moved; "
                + "UIKit cannot change items inside a moved section (stage the update, or delete and insert the section)"
        )
        expectValid(batch, before: [2, 1], after: [1, 3], rules: .tessera)
    }

    @Test("Moving an item within a moved section fails under UIKit rules and passes under Tessera's")
    func itemMoveInMovedSection() {
        let batch: [UpdateItem] = [.moveSection(1, to: 0), .moveItem(from: ip(1, 0), to: ip(0, 2))]
        expectFailure(
            batch, before: [1, 3], after: [3, 1], rules: .uikit,
            is: .itemInMovedSection(action: .move, indexPath: ip(1, 0), space: .before),
            message: "Invalid update: attempt to move item 0 from section 1, but section 1 is being moved; "
                + "UIKit cannot change items inside a moved section (stage the update, or delete and insert the section)"
        )
        expectValid(batch, before: [1, 3], after: [3, 1], rules: .tessera)
    }

    @Test("A moved section with no item operations inside passes under UIKit rules")
    func movedSectionWithoutItemOperations() {
        expectValid(
            [.moveSection(0, to: 2), .deleteItem(at: ip(1, 0))],
            before: [3, 2, 1], after: [1, 1, 3]
        )
    }
}

@Suite("Batch validator: counts", .cpuBound)
struct BatchValidatorCountTests {
    @Test("One section more after the update with no section operations is an invalid section count")
    func invalidSectionCountNoOperations() {
        expectFailure(
            [], before: [1, 1], after: [1, 1, 1],
            is: .invalidSectionCount(before: 2, after: 3, inserted: 0, deleted: 0),
            message: "Invalid update: invalid number of sections. The number of sections contained in the collection view after the update (3) "
                + "must be equal to the number of sections contained in the collection view before the update (2), "
                + "plus or minus the number of sections inserted or deleted (0 inserted, 0 deleted)."
        )
    }

    @Test("Section inserts and deletes that do not add up are an invalid section count")
    func invalidSectionCountWithOperations() {
        expectFailure(
            [.deleteSection(0), .insertSection(0), .insertSection(1)], before: [1, 1, 1], after: [1, 1],
            is: .invalidSectionCount(before: 3, after: 2, inserted: 2, deleted: 1),
            message: "Invalid update: invalid number of sections. The number of sections contained in the collection view after the update (2) "
                + "must be equal to the number of sections contained in the collection view before the update (3), "
                + "plus or minus the number of sections inserted or deleted (2 inserted, 1 deleted)."
        )
    }

    @Test("An item more after the update with no item operations is an invalid item count")
    func invalidItemCountNoOperations() {
        expectFailure(
            [], before: [2], after: [3],
            is: .invalidItemCount(section: 0, sectionBefore: 0, before: 2, after: 3, inserted: 0, deleted: 0, movedIn: 0, movedOut: 0),
            message: "Invalid update: invalid number of items in section 0. "
                + "The number of items contained in an existing section after the update (3) "
                + "must be equal to the number of items contained in that section before the update (2), "
                + "plus or minus the number of items inserted or deleted from that section (0 inserted, 0 deleted) "
                + "and plus or minus the number of items moved into or out of that section (0 moved in, 0 moved out)."
        )
    }

    @Test("Cross-section moves are counted as moved in and moved out of the wrong section")
    func invalidItemCountWithCrossSectionMoves() {
        // Section 0: 3 − 1 deleted − 2 moved out + 1 moved in = 1 (right).
        // Section 1: 2 − 1 deleted + 1 inserted − 1 moved out + 2 moved in = 3, not 5.
        let batch: [UpdateItem] = [
            .moveItem(from: ip(0, 0), to: ip(1, 0)),
            .moveItem(from: ip(0, 1), to: ip(1, 1)),
            .deleteItem(at: ip(0, 2)),
            .deleteItem(at: ip(1, 1)),
            .insertItem(at: ip(1, 2)),
            .moveItem(from: ip(1, 0), to: ip(0, 0)),
        ]
        expectFailure(
            batch, before: [3, 2], after: [1, 5],
            is: .invalidItemCount(section: 1, sectionBefore: 1, before: 2, after: 5, inserted: 1, deleted: 1, movedIn: 2, movedOut: 1),
            message: "Invalid update: invalid number of items in section 1. "
                + "The number of items contained in an existing section after the update (5) "
                + "must be equal to the number of items contained in that section before the update (2), "
                + "plus or minus the number of items inserted or deleted from that section (1 inserted, 1 deleted) "
                + "and plus or minus the number of items moved into or out of that section (2 moved in, 1 moved out)."
        )
        // And with the right count the same batch passes.
        expectValid(batch, before: [3, 2], after: [1, 3])
    }

    @Test("A section whose index changed is named with its index before the update")
    func invalidItemCountNamesOldSectionIndex() {
        expectFailure(
            [.deleteSection(0)], before: [1, 2], after: [3],
            is: .invalidItemCount(section: 0, sectionBefore: 1, before: 2, after: 3, inserted: 0, deleted: 0, movedIn: 0, movedOut: 0),
            message: "Invalid update: invalid number of items in section 0 (section 1 before the update). "
                + "The number of items contained in an existing section after the update (3) "
                + "must be equal to the number of items contained in that section before the update (2), "
                + "plus or minus the number of items inserted or deleted from that section (0 inserted, 0 deleted) "
                + "and plus or minus the number of items moved into or out of that section (0 moved in, 0 moved out)."
        )
    }

    @Test("A moved section's count is checked at its target index")
    func invalidItemCountOfMovedSection() {
        // Old section 0 moves to 1; old section 1 slides to 0.
        expectFailure(
            [.moveSection(0, to: 1)], before: [2, 5], after: [5, 3],
            is: .invalidItemCount(section: 1, sectionBefore: 0, before: 2, after: 3, inserted: 0, deleted: 0, movedIn: 0, movedOut: 0),
            message: "Invalid update: invalid number of items in section 1 (section 0 before the update). "
                + "The number of items contained in an existing section after the update (3) "
                + "must be equal to the number of items contained in that section before the update (2), "
                + "plus or minus the number of items inserted or deleted from that section (0 inserted, 0 deleted) "
                + "and plus or minus the number of items moved into or out of that section (0 moved in, 0 moved out)."
        )
    }

    @Test("A reloaded section may change its number of items")
    func reloadedSectionMayChangeCount() {
        expectValid([.reloadSection(1)], before: [2, 1], after: [2, 7])
    }
}

@Suite("Batch validator: reload landings", .cpuBound)
struct BatchValidatorReloadLandingTests {
    @Test("A section reload claiming a landing other than where the section goes is rejected")
    func sectionLandsElsewhere() {
        // Section 0 is deleted, so old section 1 lands at 0, not 1.
        expectFailure(
            [.deleteSection(0), .reloadSection(1, landing: 1)],
            before: [1, 1, 1], after: [1, 1],
            is: .reloadLandsElsewhere(indexPath: IndexPath(index: 1), claimed: IndexPath(index: 1), actual: IndexPath(index: 0)),
            message: "Invalid update: the reload of [section 1] says it lands at [section 1], but the other operations of the update put it at [section 0]"
        )
    }

    @Test("An item reload claiming a landing other than where its section's survivors put it is rejected")
    func itemLandsElsewhere() {
        // Item 0 is deleted and an item inserted at the end, so old item 2
        // lands at item 1, not 2.
        expectFailure(
            [.deleteItem(at: ip(0, 0)), .insertItem(at: ip(0, 3)), .reloadItem(at: ip(0, 2), landing: ip(0, 2))],
            before: [4], after: [4],
            is: .reloadLandsElsewhere(indexPath: ip(0, 2), claimed: ip(0, 2), actual: ip(0, 1)),
            message: "Invalid update: the reload of [section 0, item 2] says it lands at [section 0, item 2], but the other operations of the update put it at [section 0, item 1]"
        )
    }

    @Test("Reloads whose landings are right pass")
    func rightLandings() {
        expectValid(
            [.deleteSection(0), .reloadSection(1, landing: 0), .insertItem(at: ip(1, 0)), .reloadItem(at: ip(2, 1), landing: ip(1, 2))],
            before: [1, 1, 2], after: [1, 3]
        )
    }
}

@Suite("Batch validator: valid batches", .cpuBound)
struct BatchValidatorValidTests {
    @Test("An empty batch with unchanged counts passes")
    func emptyBatch() {
        expectValid([], before: [], after: [])
        expectValid([], before: [2, 0, 3], after: [2, 0, 3])
    }

    @Test("A realistic batch with deletes, inserts, a cross-section move and reloads passes with the right counts")
    func realisticBatch() {
        // Before: A(3) B(2) C(4) D(1). After: N(2) A(4) B'(5) C(3).
        let batch: [UpdateItem] = [
            .deleteSection(3),
            .insertSection(0),
            .reloadSection(1),
            .deleteItem(at: ip(0, 0)),
            .insertItem(at: ip(1, 2)),
            .moveItem(from: ip(2, 3), to: ip(1, 0)),
            .reloadItem(at: ip(2, 0)),
        ]
        for rules in [BatchValidator.Rules.uikit, .tessera] {
            expectValid(batch, before: [3, 2, 4, 1], after: [2, 4, 5, 3], rules: rules)
            expectValid(batch.reversed(), before: [3, 2, 4, 1], after: [2, 4, 5, 3], rules: rules)
        }
        // One item off in A is caught.
        #expect(validationError(batch, before: [3, 2, 4, 1], after: [2, 5, 5, 3]) != nil)
    }

    @Test("Items with the .none action are ignored, even with out-of-range paths")
    func noneItemsAreIgnored() {
        let noOps: [UpdateItem] = [
            UpdateItem(action: .none, before: ip(7, 7), after: nil),
            UpdateItem(action: .none, before: nil, after: IndexPath(index: 9)),
            UpdateItem(action: .none, before: nil, after: nil),
        ]
        expectValid(noOps, before: [1], after: [1])
        expectValid(noOps + [.deleteItem(at: ip(0, 0))], before: [1], after: [0])
    }

    @Test("Batches Tessera makes from random diffs pass under UIKit rules, one batch and staged")
    func batchesFromRandomDiffsPass() throws {
        try RandomSnapshotPairs.forEachRound(300, seed: 0xBA7C_4001) { _, old, new, round in
            let context = "\(round): \(old) → \(new)"
            let changeset = try diff(from: old, to: new)
            for policy in MoveAndUpdatePolicy.allCases {
                let batch = BatchUpdate(changeset, policy: policy)
                let first = validationError(batch.items, before: old.itemCounts, after: new.itemCounts)
                #expect(first == nil, "\(policy) batch: \(first.map { "\($0)" } ?? ""); \(context)")
                let second = validationError(batch.followUpReloads, before: new.itemCounts, after: new.itemCounts)
                #expect(second == nil, "\(policy) follow-up: \(second.map { "\($0)" } ?? ""); \(context)")
                // Reload landings name where the reloaded element really ends up.
                let result = try old.applying(batch.items, takingValuesFrom: new)
                for item in batch.items where item.updateAction == .reload {
                    guard let from = item.indexPathBeforeUpdate, let to = item.indexPathAfterUpdate else { continue }
                    if from.count == 1 {
                        #expect(result[section: to[0]].id == old[section: from[0]].id, "\(policy) \(item); \(context)")
                    } else {
                        #expect(result[to].id == old[from].id, "\(policy) \(item); \(context)")
                    }
                }
                #expect(try result.applying(batch.followUpReloads, takingValuesFrom: new) == new, "\(policy); \(context)")
            }
            let staged = try StagedBatchUpdate(changeset, sectionCountBefore: old.numberOfSections)
            var state = old
            for step in staged.steps {
                let next = try state.applying(step.items, takingValuesFrom: new)
                let error = validationError(step.items, before: state.itemCounts, after: next.itemCounts)
                #expect(error == nil, "stage \(step.stage): \(error.map { "\($0)" } ?? ""); \(context)")
                state = next
            }
            #expect(state == new, "staged replay; \(context)")
        }
    }
}
