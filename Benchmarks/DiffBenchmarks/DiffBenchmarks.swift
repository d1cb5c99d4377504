// Benchmarks of TesseraDiff's flat and sectioned diffs, next to a hash-table
// floor and to the standard library's and swift-collections' differences.
//
// Every benchmark builds its input in `setup:` (not measured) and measures
// only the diff. Tessera's answer on each input is checked once in setup; see
// `FlatWorkload.validate` and `SectionedWorkload.validate`.

import Benchmark
import Foundation
import OrderedCollections
import TesseraDiff

let benchmarks: @Sendable () -> Void = {
    for flatCase in FlatCase.all {
        registerFlatBenchmarks(flatCase, idType: Int.self, idName: "Int")
        registerFlatBenchmarks(flatCase, idType: UUID.self, idName: "UUID")
        registerTesseraDiff(flatCase, idName: "Int through Hasher", makeWorkload: { flatCase.makeWorkload(HasherInt.self) })
    }
    for flatCase in FlatCase.all where flatCase.count >= 100_000 {
        registerTesseraDiff(flatCase, idName: "colliding Int", makeWorkload: { flatCase.makeCollidingWorkload(Int.self) })
        registerTesseraDiff(flatCase, idName: "colliding UUID", makeWorkload: { flatCase.makeCollidingWorkload(UUID.self) })
    }
    registerSectionedBenchmark(label: "(d) 100x1k", sections: 100, itemsPerSection: 1_000, configuration: .large)
    registerSectionedBenchmark(label: "(d) 1000x1k", sections: 1_000, itemsPerSection: 1_000, configuration: .huge)
}

// MARK: Cases

/// A flat-list workload size, and which of the slow comparisons run on it.
struct FlatCase {
    /// The case's name in benchmark names, such as `(b) 100k`.
    var label: String
    var count: Int
    var deletes: Int
    var inserts: Int
    var shuffles: Int
    var seed: UInt64
    var configuration: Benchmark.Configuration
    /// Whether to measure `OrderedSet.difference(from:)`, which is the
    /// standard library's O(n·d) Myers difference.
    var measuresOrderedSet: Bool
    /// Whether to measure `Array.difference(from:).inferringMoves()`.
    var measuresArrayDifference: Bool

    static var all: [FlatCase] {
        [
            FlatCase(
                label: "(a) 5k", count: 5_000, deletes: 1_000, inserts: 1_000, shuffles: 200, seed: 0xA,
                configuration: .small, measuresOrderedSet: true, measuresArrayDifference: true
            ),
            FlatCase(
                label: "(b) 100k", count: 100_000, deletes: 10_000, inserts: 10_000, shuffles: 2_000, seed: 0xB,
                configuration: .large, measuresOrderedSet: true, measuresArrayDifference: false
            ),
            // `OrderedSet.difference(from:)` is left out at 1M: one iteration
            // took about 5.6 s with Int ids on a 2-core x86_64 machine.
            FlatCase(
                label: "(c) 1M", count: 1_000_000, deletes: 10_000, inserts: 10_000, shuffles: 1_000, seed: 0xC,
                configuration: .huge, measuresOrderedSet: false, measuresArrayDifference: false
            ),
        ]
    }

    func makeWorkload<ID: RandomID>(_: ID.Type) -> FlatWorkload<ID> {
        FlatWorkload(count: count, deletes: deletes, inserts: inserts, shuffles: shuffles, seed: seed)
    }

    /// The same edits on ids that all collided in the diff's id table before
    /// its hashing was keyed (see `CollidingID`).
    func makeCollidingWorkload<ID: CollidingID>(_: ID.Type) -> FlatWorkload<ID> {
        var index: UInt64 = 0
        return FlatWorkload(count: count, deletes: deletes, inserts: inserts, shuffles: shuffles, seed: seed) { _ in
            index += 1
            return ID.colliding(index)
        }
    }
}

extension Benchmark.Configuration {
    /// Inputs of thousands of elements: many short iterations.
    static var small: Self { make(maxDuration: .seconds(2), maxIterations: 1_000) }
    /// Inputs of a hundred thousand elements.
    static var large: Self { make(maxDuration: .seconds(3), maxIterations: 100) }
    /// Inputs of a million elements.
    static var huge: Self { make(maxDuration: .seconds(3), maxIterations: 30) }

    /// Times in microseconds at every size, so that the sizes compare at a
    /// glance and millisecond-scale results keep three or more digits.
    private static func make(maxDuration: Duration, maxIterations: Int) -> Self {
        Self(
            metrics: [.wallClock, .mallocCountTotal, .peakMemoryResident, .peakMemoryResidentDelta],
            timeUnits: .microseconds,
            units: [.mallocCountTotal: .count, .peakMemoryResident: .mega, .peakMemoryResidentDelta: .mega],
            warmupIterations: 2,
            maxDuration: maxDuration,
            maxIterations: maxIterations
        )
    }
}

// MARK: Flat lists

/// Registers the flat-list benchmarks of one case with one id type.
func registerFlatBenchmarks<ID: RandomID>(_ flatCase: FlatCase, idType: ID.Type, idName: String) {
    let suffix = "\(flatCase.label) \(idName)"
    let configuration = flatCase.configuration

    registerTesseraDiff(flatCase, idName: idName, makeWorkload: { flatCase.makeWorkload(idType) })

    // The least a diff built on the standard library's `Dictionary` must do:
    // one table of the old ids, probed once per new id. (Tessera's own table
    // uses a cheaper hash than `Hasher`, so it can beat this.)
    Benchmark("Dictionary floor \(suffix)", configuration: configuration) { benchmark, workload in
        for _ in benchmark.scaledIterations {
            var oldOffsets = [ID: Int](minimumCapacity: workload.old.count)
            for (offset, row) in workload.old.enumerated() {
                oldOffsets[row.id] = offset
            }
            var hits = 0
            for row in workload.new where oldOffsets[row.id] != nil {
                hits += 1
            }
            blackHole(hits)
        }
    } setup: {
        flatCase.makeWorkload(idType)
    }

    if flatCase.measuresOrderedSet {
        Benchmark("OrderedSet difference \(suffix)", configuration: configuration) { benchmark, workload in
            for _ in benchmark.scaledIterations {
                let old = OrderedSet(workload.old.lazy.map(\.id))
                let new = OrderedSet(workload.new.lazy.map(\.id))
                blackHole(new.difference(from: old))
            }
        } setup: {
            flatCase.makeWorkload(idType)
        }
    }

    // Compares whole elements (id and content), not ids.
    if flatCase.measuresArrayDifference {
        Benchmark("Array difference+inferringMoves \(suffix)", configuration: configuration) { benchmark, workload in
            for _ in benchmark.scaledIterations {
                blackHole(workload.new.difference(from: workload.old).inferringMoves())
            }
        } setup: {
            flatCase.makeWorkload(idType)
        }
    }
}

/// Registers the benchmark of Tessera's flat diff on one case's workload.
func registerTesseraDiff<ID: RandomID>(
    _ flatCase: FlatCase,
    idName: String,
    makeWorkload: @escaping () -> FlatWorkload<ID>
) {
    let name = "Tessera diff \(flatCase.label) \(idName)"
    Benchmark(name, configuration: flatCase.configuration) { (benchmark, workload: FlatWorkload<ID>) in
        for _ in benchmark.scaledIterations {
            blackHole(try diff(from: workload.old, to: workload.new))
        }
    } setup: {
        let workload = makeWorkload()
        workload.validate(try diff(from: workload.old, to: workload.new), benchmark: name)
        return workload
    }
}

// MARK: Sectioned snapshots

/// Registers the benchmark of Tessera's snapshot diff on one sectioned
/// workload (Int ids).
func registerSectionedBenchmark(
    label: String,
    sections: Int,
    itemsPerSection: Int,
    configuration: Benchmark.Configuration
) {
    let name = "Tessera snapshot diff \(label) Int"
    Benchmark(name, configuration: configuration) { (benchmark, workload: SectionedWorkload) in
        for _ in benchmark.scaledIterations {
            blackHole(try diff(from: workload.old, to: workload.new))
        }
    } setup: {
        let workload = SectionedWorkload(sections: sections, itemsPerSection: itemsPerSection, seed: 0xD)
        workload.validate(try diff(from: workload.old, to: workload.new), benchmark: name)
        return workload
    }
}
