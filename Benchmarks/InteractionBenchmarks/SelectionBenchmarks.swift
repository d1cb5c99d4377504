import Benchmark

/// Registers the Selection benchmarks.
func selectionBenchmarks() {}
