import Foundation
import Testing
import Tessera
import TesseraResultsTestSupport
import TesseraTestSupport
import TesseraTestTraits

@Suite("ResultsDataSource at a time", .tags(.postgres), .ownThreads)
struct ResultsDataSourceTimingTests {
    @Test("Reports applied at random times, often while the plan before plays, give the plans of a diffing data source given the same snapshots at the same times", arguments: ResultsStoreFixture.all)
    func reportsDuringAnimations(store: ResultsStoreFixture) throws {
        let seed = testSeed(default: 0x71_3ED)
        var generator = SplitMix64(seed: seed)
        let driven = try ResultsDataSourceTests.Driven(store)
        let (database, controller, log, view, source) = (driven.database, driven.controller, driven.log, driven.view, driven.source)
        let (twinView, twin) = try driven.twin()

        var time = 0.0
        var composed = 0
        for round in 0..<store.rounds(300) {
            let comment = Comment(rawValue: "seed \(seed), round \(round), time \(time)")
            let reportsBefore = log.reports.count
            ResultsDataSourceTests.randomTransaction(database, using: &generator)
            if log.reports.count > reportsBefore, let report = log.reports.last {
                if view.isAnimating(at: time) { composed += 1 }
                let plan = try source.apply(report, at: time)
                let expected = try twin.apply(report.newSnapshot, at: time)
                #expect(plan == expected, comment)
                #expect(view.playingPlan == twinView.playingPlan, comment)
            }
            #expect(view.itemCounts == ResultsDataSourceTests.counts(controller.result), comment)
            time += Double.random(in: 0...0.4, using: &generator)
        }
        #expect(composed > store.share(50), "seed \(seed): only \(composed) reports came while a plan played")
        // A time that goes backwards changes nothing.
        let result = source.result
        let last = try #require(view.lastChangeTime)
        #expect(throws: AnimationClockError.timeWentBackwards(time: last - 1, lastTime: last)) {
            try source.apply(ChangeReport(changeset: Changeset(), old: result, new: result), at: last - 1)
        }
        #expect(source.result.sections == result.sections)
    }
}
