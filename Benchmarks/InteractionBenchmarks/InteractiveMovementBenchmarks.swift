import Benchmark

/// Registers the InteractiveMovement benchmarks.
func interactiveMovementBenchmarks() {}
