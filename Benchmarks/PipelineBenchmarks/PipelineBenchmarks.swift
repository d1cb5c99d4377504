// The whole pipeline on a 1,000,000-row photo library (1,024 albums):
// SQLite → results controller → collection view → animation plan, for
// Tessera with a lazy fetch (fetchBatchSize 64), Tessera with an eager one,
// and the peer (GRDB's ValueObservation, an OrderedSet difference and
// Tessera's DiffableDataSource). See Benchmarks/README.md, "Pipeline".

import Benchmark
import Foundation
import Tessera

/// The lazy request's batch size.
let batchSize = 64

let benchmarks: @Sendable () -> Void = {
    Benchmark.teardown = { Fixture.remove() }
    registerScreenBenchmarks()
    registerMemoryBenchmarks()
    registerCommitBenchmarks()
}

/// The pipelines compared.
enum Contender: CaseIterable {
    case lazy, eager, peer

    var name: String {
        switch self {
        case .lazy: return "Tessera lazy (fetchBatchSize \(batchSize))"
        case .eager: return "Tessera eager (fetchBatchSize 0)"
        case .peer: return "GRDB ValueObservation + OrderedSet.difference + DiffableDataSource (the peer)"
        }
    }

    var fetchBatchSize: Int { self == .lazy ? batchSize : 0 }
}

func registerScreenBenchmarks() {
    // The fixture is made in the warm-up iteration.
    let firstScreen = Benchmark.Configuration(
        metrics: [.wallClock, .mallocCountTotal],
        timeUnits: .milliseconds,
        units: [.mallocCountTotal: .count],
        warmupIterations: 1,
        maxDuration: .seconds(20),
        maxIterations: 10
    )
    for contender in Contender.allCases {
        Benchmark("Pipeline: first screen, \(contender.name)", configuration: firstScreen) { benchmark in
            let path = Fixture.path
            benchmark.startMeasurement()
            let checksum: Int
            switch contender {
            case .lazy, .eager:
                let pipeline = try TesseraPipeline(path: path, fetchBatchSize: contender.fetchBatchSize)
                checksum = pipeline.readVisibleRecords()
                benchmark.stopMeasurement()
                precondition(pipeline.controller.result.count == rowCount && pipeline.controller.result.isLazy == (contender == .lazy))
                precondition(pipeline.controller.isLoading == (contender == .lazy), "the lazy fetch did not open before its keys were read")
                // The keys' load ends before the next iteration starts.
                try pipeline.controller.finishLoading()
            case .peer:
                let pipeline = try PeerPipeline(path: path)
                checksum = pipeline.readVisibleRecords()
                benchmark.stopMeasurement()
            }
            precondition(checksum != 0, "no visible item")
        }
    }

    // Each jump goes to a part of the content around the middle that no
    // earlier jump has seen (see jumpToUnseenMiddle()): the records it
    // shows are in no cache of the controller's.
    let middleScreen = Benchmark.Configuration(
        metrics: [.wallClock, .mallocCountTotal],
        timeUnits: .microseconds,
        units: [.mallocCountTotal: .count],
        warmupIterations: 1,
        maxDuration: .seconds(5),
        maxIterations: 100
    )
    // A jump right after opening, while the keys still load: the records
    // are read by position from the load's snapshot.
    let whileLoading = Benchmark.Configuration(
        metrics: [.wallClock], timeUnits: .microseconds, warmupIterations: 1, maxDuration: .seconds(10), maxIterations: 20
    )
    Benchmark("Pipeline: middle screen while the keys load, \(Contender.lazy.name)", configuration: whileLoading) { benchmark in
        let pipeline = try TesseraPipeline(path: Fixture.path, fetchBatchSize: batchSize)
        precondition(pipeline.controller.isLoading, "the lazy fetch did not open before its keys were read")
        benchmark.startMeasurement()
        pipeline.jumpToUnseenMiddle()
        let checksum = pipeline.readVisibleRecords()
        benchmark.stopMeasurement()
        precondition(checksum != 0, "no visible item")
        try pipeline.controller.finishLoading()
    }

    for contender in [Contender.lazy, .eager] {
        Benchmark("Pipeline: middle screen, \(contender.name)", configuration: middleScreen) { (benchmark: Benchmark, pipeline: TesseraPipeline) in
            for _ in benchmark.scaledIterations {
                benchmark.startMeasurement()
                pipeline.jumpToUnseenMiddle()
                let checksum = pipeline.readVisibleRecords()
                benchmark.stopMeasurement()
                precondition(checksum != 0, "no visible item")
            }
        } setup: {
            try TesseraPipeline(path: Fixture.path, fetchBatchSize: contender.fetchBatchSize)
        }
    }
}

func registerMemoryBenchmarks() {
    let total = BenchmarkMetric.custom("resident growth (bytes per row)", polarity: .prefersSmaller, useScalingFactor: false)
    let fetched = BenchmarkMetric.custom("of which the fetched controller (bytes per row)", polarity: .prefersSmaller, useScalingFactor: false)
    func perRow(_ bytes: Int) -> Int { Int((Double(bytes) / Double(rowCount)).rounded()) }
    for contender in Contender.allCases {
        let metrics = contender == .peer ? [total] : [total, fetched]
        Benchmark("Pipeline: resident bytes per row, \(contender.name)", configuration: .init(metrics: metrics, warmupIterations: 0, maxIterations: 1)) { benchmark in
            let path = Fixture.path
            let before = residentBytes()
            let checksum: Int
            switch contender {
            case .lazy, .eager:
                // TesseraPipeline's steps, with the memory read between the
                // fetch and the view.
                let connection = try Connection(path: path)
                let controller = try FetchedResultsController<Photo>(connection: connection, request: photoRequest(fetchBatchSize: contender.fetchBatchSize))
                try controller.performFetch()
                // Measured with every key loaded.
                try controller.finishLoading()
                benchmark.measurement(fetched, perRow(residentBytes() - before))
                let view = CollectionView(layout: photoGrid(), size: viewport)
                let source = ResultsDataSource(collectionView: view, result: controller.result)
                checksum = view.visibleElements.filter { $0.category == .cell }.reduce(0) { $0 &+ Int(controller.object(at: $1.indexPath).id) }
                benchmark.measurement(total, perRow(residentBytes() - before))
                blackHole((connection, controller, source))
            case .peer:
                let pipeline = try PeerPipeline(path: path)
                checksum = pipeline.readVisibleRecords()
                benchmark.measurement(total, perRow(residentBytes() - before))
                blackHole(pipeline)
            }
            precondition(checksum != 0, "no visible item")
        }
    }
}

func registerCommitBenchmarks() {
    let commitToPlan = BenchmarkMetric.custom("commit to plan (µs)", polarity: .prefersSmaller, useScalingFactor: false)
    let commitToReport = BenchmarkMetric.custom("commit to report (µs)", polarity: .prefersSmaller, useScalingFactor: false)
    let reportToPlan = BenchmarkMetric.custom("report to plan (µs)", polarity: .prefersSmaller, useScalingFactor: false)
    let metrics = [commitToPlan, commitToReport, reportToPlan]
    let tessera = Benchmark.Configuration(metrics: metrics, warmupIterations: 3, maxDuration: .seconds(5), maxIterations: 200)
    // The peer re-fetches a million rows and diffs them twice for every commit.
    let peer = Benchmark.Configuration(metrics: metrics, warmupIterations: 1, maxDuration: .seconds(30), maxIterations: 5)

    func record(_ times: CommitTimes, _ benchmark: Benchmark) {
        benchmark.measurement(commitToPlan, times.commitToPlan)
        benchmark.measurement(commitToReport, times.commitToReport)
        benchmark.measurement(reportToPlan, times.reportToPlan)
    }

    for change in Change.allCases {
        for contender in [Contender.lazy, .eager] {
            Benchmark("Pipeline: commit to plan, \(contender.name) \(change.rawValue)", configuration: tessera) { (benchmark: Benchmark, pipeline: TesseraPipeline) in
                for _ in benchmark.scaledIterations {
                    record(try pipeline.measure(change), benchmark)
                }
            } setup: {
                try TesseraPipeline(path: Fixture.path, fetchBatchSize: contender.fetchBatchSize, following: true)
            }
        }
        Benchmark("Pipeline: commit to plan, \(Contender.peer.name) \(change.rawValue)", configuration: peer) { (benchmark: Benchmark, pipeline: PeerPipeline) in
            for _ in benchmark.scaledIterations {
                record(try pipeline.measure(change), benchmark)
            }
        } setup: {
            try PeerPipeline(path: Fixture.path, following: true)
        }
    }
}
