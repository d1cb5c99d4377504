import Foundation
import Testing
import TesseraTestTraits
import TesseraDiff
import TesseraTestSupport

/// Randomized properties of the sectioned diff over many snapshot pairs,
/// each checked against oracles: replay, the validator, an independent LIS.
@Suite("Sectioned diff properties", .tags(.oracle), .cpuBound)
struct SnapshotDiffPropertyTests {
    static let pairCount = 10_000

    @Test("Replay, validity, minimal moves and determinism hold for 10,000 random snapshot pairs", .startsEarly)
    func randomPairs() throws {
        var pairs = RandomSnapshotPairs(seed: testSeed(default: 0x7E55_E4A0))
        let seed = pairs.seed
        var seen: [String: Int] = [:]
        try pairs.forEachRound(Self.pairCount) { _, old, new, round in
            let context = "\(round)\nold: \(old)\nnew: \(new)"
            try checkPair(old: old, new: new, context: context)
            try count(try diff(from: old, to: new), old: old, into: &seen)
        }
        // The generator must exercise every kind of change, many times.
        let kinds = [
            "sectionDelete", "sectionInsert", "sectionMove", "sectionUpdate", "itemDelete", "itemInsert",
            "itemMoveWithin", "itemMoveAcross", "itemUpdate", "movedAndUpdated", "emptySection",
            "replacedSection", "followUpReload",
        ] + StagedBatchUpdate.Stage.allCases.map { "stage.\($0)" }
        for kind in kinds {
            #expect(seen[kind, default: 0] >= 100, "seed \(seed): only \(seen[kind, default: 0]) pairs with \(kind)")
        }
    }

    func count(_ changeset: Changeset, old: TestSnapshot, into seen: inout [String: Int]) throws {
        func note(_ kind: String, _ happened: Bool) {
            if happened { seen[kind, default: 0] += 1 }
        }
        note("sectionDelete", !changeset.sectionDeletes.isEmpty)
        note("sectionInsert", !changeset.sectionInserts.isEmpty)
        note("sectionMove", !changeset.sectionMoves.isEmpty)
        note("sectionUpdate", !changeset.sectionUpdates.isEmpty)
        note("itemDelete", !changeset.itemDeletes.isEmpty)
        note("itemInsert", !changeset.itemInserts.isEmpty)
        note("itemMoveWithin", changeset.itemMoves.contains { move in
            changeset.sectionMoves.contains { $0.from == move.from[0] && $0.to == move.to[0] } || move.from[0] == move.to[0]
        })
        note("itemMoveAcross", changeset.itemMoves.contains { $0.from[0] != $0.to[0] })
        note("itemUpdate", !changeset.itemUpdates.isEmpty)
        note("movedAndUpdated", changeset.itemUpdates.contains { update in changeset.itemMoves.contains { $0.from == update.from } })
        note("emptySection", old.itemCounts.contains(0))
        let safe = BatchUpdate(changeset, policy: .deleteAndInsert)
        note("replacedSection", safe.items.contains { $0.updateAction == .delete && $0.isSectionOperation }
            && changeset.sectionDeletes.count < safe.items.filter { $0.updateAction == .delete && $0.isSectionOperation }.count)
        note("followUpReload", !BatchUpdate(changeset, policy: .moveThenReload).followUpReloads.isEmpty)
        for step in try StagedBatchUpdate(changeset, sectionCountBefore: old.numberOfSections).steps {
            note("stage.\(step.stage)", true)
        }
    }

    func checkPair(old: TestSnapshot, new: TestSnapshot, context: String) throws {
        let changeset = try diff(from: old, to: new)
        let comment = Comment(rawValue: "\(context)\nchangeset: \(changeset)")

        // Replay the changeset itself.
        #expect(try old.applying(changeset, takingValuesFrom: new) == new, comment)

        // Arrays sorted by their first index; no operations inside deleted or
        // inserted sections.
        #expect(isSorted(changeset.sectionDeletes, by: { $0 }) && isSorted(changeset.sectionInserts, by: { $0 }), comment)
        #expect(isSorted(changeset.sectionMoves, by: \.from) && isSorted(changeset.sectionUpdates, by: \.from), comment)
        #expect(isSorted(changeset.itemDeletes, by: { $0 }) && isSorted(changeset.itemInserts, by: { $0 }), comment)
        #expect(isSorted(changeset.itemMoves, by: \.from) && isSorted(changeset.itemUpdates, by: \.from), comment)
        let deleted = Set(changeset.sectionDeletes)
        let inserted = Set(changeset.sectionInserts)
        let oldSide = changeset.itemDeletes + changeset.itemMoves.map(\.from) + changeset.itemUpdates.map(\.from)
        let newSide = changeset.itemInserts + changeset.itemMoves.map(\.to) + changeset.itemUpdates.map(\.to)
        #expect(oldSide.allSatisfy { !deleted.contains($0[0]) }, comment)
        #expect(newSide.allSatisfy { !inserted.contains($0[0]) }, comment)

        // The single batch under each policy: valid under UIKit's rules, and
        // replaying it gives the target.
        for policy in MoveAndUpdatePolicy.allCases {
            let batch = BatchUpdate(changeset, policy: policy)
            let policyComment = Comment(rawValue: "\(comment.rawValue)\npolicy \(policy): \(batch.items) then \(batch.followUpReloads)")
            #expect(throws: Never.self, policyComment) {
                try BatchValidator.validate(batch.items, itemCountsBefore: old.itemCounts, itemCountsAfter: new.itemCounts)
                try BatchValidator.validate(batch.followUpReloads, itemCountsBefore: new.itemCounts, itemCountsAfter: new.itemCounts)
            }
            #expect(try old.applying(batch, takingValuesFrom: new) == new, policyComment)
            if policy == .deleteAndInsert { #expect(batch.followUpReloads.isEmpty, policyComment) }
        }

        // Every stage valid against the state the previous one left.
        let staged = try StagedBatchUpdate(changeset, sectionCountBefore: old.numberOfSections)
        var state = old
        var previousStage = -1
        for step in staged.steps {
            let stageIndex = StagedBatchUpdate.Stage.allCases.firstIndex(of: step.stage)!
            #expect(stageIndex > previousStage && !step.items.isEmpty, comment)
            previousStage = stageIndex
            let next = try state.applying(step.items, takingValuesFrom: new)
            #expect(throws: Never.self, Comment(rawValue: "\(comment.rawValue)\nstage \(step.stage): \(step.items)")) {
                try BatchValidator.validate(step.items, itemCountsBefore: state.itemCounts, itemCountsAfter: next.itemCounts)
            }
            state = next
        }
        #expect(state == new, comment)

        try checkMinimalMoves(old: old, new: new, changeset: changeset, comment: comment)

        // Determinism: the same inputs give the same bytes.
        let again = try diff(from: old, to: new)
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        #expect(try encoder.encode(again) == encoder.encode(changeset), comment)
    }

    /// Moves are exactly the complement of a longest increasing subsequence,
    /// for sections and within every surviving section; cross-section moves
    /// are all the items whose section changed.
    func checkMinimalMoves(old: TestSnapshot, new: TestSnapshot, changeset: Changeset, comment: Comment) throws {
        let oldSectionIndex = Dictionary(uniqueKeysWithValues: old.sections.enumerated().map { ($1.id, $0) })
        let survivingSectionsInNewOrder = new.sections.enumerated().compactMap { t, section in
            oldSectionIndex[section.id].map { (old: $0, new: t) }
        }
        let sectionSequence = survivingSectionsInNewOrder.map(\.old)
        #expect(changeset.sectionMoves.count == sectionSequence.count - longestIncreasingSubsequenceLength(sectionSequence), comment)
        let movedSections = Set(changeset.sectionMoves.map(\.from))
        #expect(isStrictlyIncreasing(sectionSequence.filter { !movedSections.contains($0) }), comment)
        #expect(changeset.sectionMoves.allSatisfy { move in survivingSectionsInNewOrder.contains { $0 == (move.from, move.to) } }, comment)

        var oldPosition: [Int: IndexPath] = [:]
        for s in 0..<old.numberOfSections {
            for (i, item) in old.items(inSection: s).enumerated() { oldPosition[item.id] = IndexPath(item: i, section: s) }
        }
        let moved = Set(changeset.itemMoves.map(\.from))
        var expectedCrossMoves = 0
        var expectedInSectionMoves = 0
        for (oldSection, t) in survivingSectionsInNewOrder {
            var sequence: [Int] = []
            for item in new.items(inSection: t) {
                guard let from = oldPosition[item.id], oldSectionIndex[old.sections[from[0]].id] != nil else { continue }
                let fromSurvives = !changeset.sectionDeletes.contains(from[0])
                if from[0] == oldSection {
                    sequence.append(from[1])
                } else if fromSurvives {
                    expectedCrossMoves += 1
                    #expect(moved.contains(from), comment)
                }
            }
            expectedInSectionMoves += sequence.count - longestIncreasingSubsequenceLength(sequence)
            #expect(isStrictlyIncreasing(sequence.filter { !moved.contains(IndexPath(item: $0, section: oldSection)) }), comment)
        }
        #expect(changeset.itemMoves.count == expectedCrossMoves + expectedInSectionMoves, comment)
    }
}
