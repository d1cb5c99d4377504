// Benchmarks of interaction in TesseraView: selection remapped through a
// batch, one step of a drag, and one self-sizing change, each with its plan.

import Benchmark

let benchmarks: @Sendable () -> Void = {
    selectionBenchmarks()
    interactiveMovementBenchmarks()
    selfSizingBenchmarks()
}
