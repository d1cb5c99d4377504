import Benchmark

/// Registers the SelfSizing benchmarks.
func selfSizingBenchmarks() {}
