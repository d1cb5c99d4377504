import Foundation
import Testing
@testable import TesseraDiff
import TesseraTestSupport
import TesseraTestTraits

/// Batches on sections whose item counts come near `Int.max`: the checks and
/// the mapping answer with the exact counts, never trapping on overflow.
@Suite("Batches near Int.max items", .cpuBound)
struct BatchNearIntMaxTests {
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

    @Test("A reloaded item's landing in a section of Int.max items is checked without a list as long as the section")
    func reloadLandingInAHugeSection() throws {
        // Item 7 survives an insert at 0 and a delete at 3: it lands at 7.
        let items: [UpdateItem] = [
            .insertItem(at: IndexPath(item: 0, section: 0)),
            .deleteItem(at: IndexPath(item: 3, section: 0)),
            .reloadItem(at: IndexPath(item: 7, section: 0), landing: IndexPath(item: 7, section: 0)),
        ]
        try BatchValidator.validate(items, itemCountsBefore: [Int.max], itemCountsAfter: [Int.max])
        var wrong = items
        wrong[2] = .reloadItem(at: IndexPath(item: 7, section: 0), landing: IndexPath(item: 8, section: 0))
        #expect(throws: BatchValidationError.reloadLandsElsewhere(
            indexPath: IndexPath(item: 7, section: 0), claimed: IndexPath(item: 8, section: 0), actual: IndexPath(item: 7, section: 0)
        )) {
            try BatchValidator.validate(wrong, itemCountsBefore: [Int.max], itemCountsAfter: [Int.max])
        }
    }

    @Test("One survivor's target equals the target the whole section's placement gives it, for random operations")
    func survivorPlacementMatchesTheWholeSection() {
        forEachSeededRound("BatchNearIntMaxTests.survivorPlacementMatchesTheWholeSection", seed: 0x5_0B71, rounds: 2_000) { round, seed, generator in
            let countBefore = Int.random(in: 0...40, using: &generator)
            let removedCount = Int.random(in: 0...countBefore, using: &generator)
            let removed = Array((0..<countBefore).shuffled(using: &generator).prefix(removedCount))
            // Usually as many free positions as survivors; sometimes not.
            let placedCount = Int.random(in: 0...12, using: &generator)
            var countAfter = countBefore - removedCount + placedCount
            if Int.random(in: 0..<8, using: &generator) == 0 { countAfter += Int.random(in: -1...1, using: &generator) }
            countAfter = max(countAfter, placedCount)
            let placed = Array((0..<countAfter).shuffled(using: &generator).prefix(placedCount))
            let operations = _ItemOperationsBySection(
                deletes: removed.map { IndexPath(item: $0, section: 0) },
                inserts: placed.map { IndexPath(item: $0, section: 0) }
            )
            let whole = operations.survivorTargets(oldSection: 0, countBefore: countBefore, newSection: 0, countAfter: countAfter)
            let placement = operations.survivorPlacement(oldSection: 0, countBefore: countBefore, newSection: 0, countAfter: countAfter)
            for item in 0..<countBefore {
                #expect(placement.target(of: item) == (whole?[item] ?? nil), "seed \(seed), round \(round), item \(item)")
            }
        }
    }
}

