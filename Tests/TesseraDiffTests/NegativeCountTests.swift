#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Testing
import TesseraDiff
import TesseraTestSupport
import TesseraTestTraits

/// Every entry point that takes counts rejects a negative one with an error
/// naming the section and the count, never a trap and never a pass.
@Suite("Negative counts", .cpuBound)
struct NegativeCountTests {
    @Test("A negative count before or after is named with its section, in the validator's words")
    func validatorNamesTheCount() {
        let cases: [(before: [Int], after: [Int], expected: BatchValidationError, message: String)] = [
            ([-1], [-1], .negativeItemCount(section: 0, count: -1, space: .before),
             "Invalid update: the number of items in section 0 before the update is -1; a count cannot be negative"),
            ([2, 3], [2, -4], .negativeItemCount(section: 1, count: -4, space: .after),
             "Invalid update: the number of items in section 1 after the update is -4; a count cannot be negative"),
            ([0, Int.min], [0, 0], .negativeItemCount(section: 1, count: Int.min, space: .before),
             "Invalid update: the number of items in section 1 before the update is \(Int.min); a count cannot be negative"),
        ]
        for (before, after, expected, message) in cases {
            for rules in [BatchValidator.Rules.uikit, .tessera] {
                #expect(throws: expected) {
                    try BatchValidator.validate([], itemCountsBefore: before, itemCountsAfter: after, rules: rules)
                }
            }
            #expect(expected.description == message)
            #expect(throws: expected) {
                try BatchIndexMapping([], itemCountsBefore: before, itemCountsAfter: after)
            }
        }
    }

    @Test("A negative count is reported before the operations that name its section")
    func negativeCountComesFirst() {
        // Without the count check, deleting item 0 of a section of -1 items
        // would be reported as out of range, and [-1] → [-1] would pass.
        #expect(throws: BatchValidationError.negativeItemCount(section: 0, count: -1, space: .before)) {
            try BatchValidator.validate([.deleteItem(at: IndexPath(item: 0, section: 0))], itemCountsBefore: [-1], itemCountsAfter: [-2])
        }
    }

    @Test("Random valid batches with one count made negative name that section and count")
    func randomBatches() throws {
        let seed = testSeed(default: 0x0E6A_71FE)
        var pairs = RandomSnapshotPairs(seed: seed)
        var generator = SplitMix64(seed: seed)
        var checked = 0
        try pairs.forEachRound(2_000) { _, old, new, round in
            let items = BatchUpdate(try diff(from: old, to: new), policy: .deleteAndInsert).items
            var before = old.itemCounts
            var after = new.itemCounts
            try BatchValidator.validate(items, itemCountsBefore: before, itemCountsAfter: after)
            let space: BatchValidationError.Space = Bool.random(using: &generator) ? .before : .after
            let counts = space == .before ? before : after
            guard !counts.isEmpty else { return }
            let section = Int.random(in: 0..<counts.count, using: &generator)
            let count = -Int.random(in: 1...1_000, using: &generator)
            if space == .before { before[section] = count } else { after[section] = count }
            // The first negative count of the space is the one reported.
            let expected = BatchValidationError.negativeItemCount(section: section, count: count, space: space)
            #expect(throws: expected, "\(round)") {
                try BatchValidator.validate(items, itemCountsBefore: before, itemCountsAfter: after)
            }
            #expect(throws: expected, "\(round)") {
                try BatchIndexMapping(items, itemCountsBefore: before, itemCountsAfter: after)
            }
            checked += 1
        }
        #expect(checked > 1_000, "seed \(seed): only \(checked) batches had a section")
    }

    @Test("Staged batches reject a negative number of sections before")
    func stagedNegativeSections() {
        let changesets = [
            Changeset(),
            Changeset(sectionInserts: [0]),
            Changeset(sectionInserts: [0, 1, 2]),
            Changeset(sectionDeletes: [0]),
        ]
        for changeset in changesets {
            for count in [-1, -3, Int.min] {
                #expect(throws: BatchValidationError.negativeSectionCount(count: count, space: .before)) {
                    try StagedBatchUpdate(changeset, sectionCountBefore: count)
                }
            }
        }
        #expect(BatchValidationError.negativeSectionCount(count: -2, space: .before).description
            == "Invalid update: the number of sections before the update is -2; a count cannot be negative")
    }
}
