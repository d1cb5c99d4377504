/// The rounds of a seeded randomized test: prints the seed under `name`
/// (`TESSERA_SEED` replays it, see ``testSeed(default:)``), then runs `body`
/// `rounds` times with the round, the seed and one generator seeded with it
/// that every round draws from in turn.
///
/// - Complexity: `rounds` calls of `body`.
public func forEachSeededRound(
    _ name: String,
    seed defaultSeed: UInt64,
    rounds: Int,
    _ body: (_ round: Int, _ seed: UInt64, _ generator: inout SplitMix64) throws -> Void
) rethrows {
    let seed = testSeed(default: defaultSeed)
    print("\(name): seed \(seed); replay with TESSERA_SEED=\(seed)")
    var generator = SplitMix64(seed: seed)
    for round in 0..<rounds {
        try body(round, seed, &generator)
    }
}
