import Foundation
import Testing
@testable import TesseraDiff

/// Batches on sections whose item counts come near `Int.max`: the checks and
/// the mapping answer with the exact counts, never trapping on overflow.
@Suite("Batches near Int.max items")
struct BatchPerfReviewTests {
    @Test("A valid batch whose counts only add up past Int.max in a partial sum is accepted")
    func countsSummedWithoutOverflow() throws {
        // Section 0 keeps Int.max items: one inserted, one moved out to section 1.
        let items: [UpdateItem] = [
            .insertItem(at: IndexPath(item: 0, section: 0)),
            .moveItem(from: IndexPath(item: 5, section: 0), to: IndexPath(item: 0, section: 1)),
        ]
        try BatchValidator.validate(items, itemCountsBefore: [Int.max, 0], itemCountsAfter: [Int.max, 1])
        let mapping = try BatchIndexMapping(items, itemCountsBefore: [Int.max, 0], itemCountsAfter: [Int.max, 1])
        #expect(mapping.indexPathAfter(IndexPath(item: 5, section: 0)) == IndexPath(item: 0, section: 1))
        #expect(mapping.indexPathAfter(IndexPath(item: 4, section: 0)) == IndexPath(item: 5, section: 0))
        #expect(mapping.indexPathAfter(IndexPath(item: 6, section: 0)) == IndexPath(item: 6, section: 0))
        #expect(mapping.indexPathAfter(IndexPath(item: Int.max - 1, section: 0)) == IndexPath(item: Int.max - 1, section: 0))
    }

    @Test("A count that would pass Int.max is reported as an invalid item count")
    func countPastIntMaxIsInvalid() {
        let items: [UpdateItem] = [.insertItem(at: IndexPath(item: 0, section: 0))]
        #expect(throws: BatchValidationError.invalidItemCount(
            section: 0, sectionBefore: 0, before: Int.max, after: Int.max,
            inserted: 1, deleted: 0, movedIn: 0, movedOut: 0
        )) {
            try BatchValidator.validate(items, itemCountsBefore: [Int.max], itemCountsAfter: [Int.max])
        }
    }

    @Test("Items near Int.max map both ways past an insert")
    func itemsNearIntMaxMapBothWays() throws {
        let items: [UpdateItem] = [.insertItem(at: IndexPath(item: 5, section: 0))]
        let mapping = try BatchIndexMapping(items, itemCountsBefore: [Int.max - 1], itemCountsAfter: [Int.max])
        #expect(mapping.indexPathBefore(IndexPath(item: Int.max - 1, section: 0)) == IndexPath(item: Int.max - 2, section: 0))
        #expect(mapping.indexPathBefore(IndexPath(item: Int.max - 2, section: 0)) == IndexPath(item: Int.max - 3, section: 0))
        #expect(mapping.indexPathBefore(IndexPath(item: 5, section: 0)) == nil)
        #expect(mapping.indexPathBefore(IndexPath(item: 4, section: 0)) == IndexPath(item: 4, section: 0))
        #expect(mapping.indexPathAfter(IndexPath(item: Int.max - 2, section: 0)) == IndexPath(item: Int.max - 1, section: 0))
        let merged = mapping.itemPositionsAfter(sorted: [(0, 4), (0, 5), (0, Int.max - 2)])
        #expect(merged.map { $0.map { [$0.section, $0.item] } } == [[0, 4], [0, 6], [0, Int.max - 1]])
        // Past a delete, the other way.
        let deleting = try BatchIndexMapping(
            [.deleteItem(at: IndexPath(item: 0, section: 0))],
            itemCountsBefore: [Int.max], itemCountsAfter: [Int.max - 1]
        )
        #expect(deleting.indexPathBefore(IndexPath(item: Int.max - 2, section: 0)) == IndexPath(item: Int.max - 1, section: 0))
        #expect(deleting.indexPathAfter(IndexPath(item: Int.max - 1, section: 0)) == IndexPath(item: Int.max - 2, section: 0))
    }
}
