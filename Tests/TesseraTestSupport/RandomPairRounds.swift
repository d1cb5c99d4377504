import TesseraDiff

/// A seeded source of random old/new pairs for property tests.
public protocol RandomPairs {
    associatedtype Value
    /// Pairs from `seed`, of the usual sizes.
    init(seed: UInt64)
    /// The seed the pairs come from.
    var seed: UInt64 { get }
    /// One old/new pair.
    mutating func next() -> (old: Value, new: Value)
}

extension RandomPairs {
    /// Runs `body` on the next `rounds` pairs, each with its round and a
    /// context that names the seed and the round (and how to replay it with
    /// `TESSERA_SEED`), for the comments of its expectations.
    ///
    /// - Complexity: `rounds` calls of `next()` and of `body`.
    public mutating func forEachRound(
        _ rounds: Int,
        _ body: (_ round: Int, _ old: Value, _ new: Value, _ context: String) throws -> Void
    ) rethrows {
        for round in 0..<rounds {
            let (old, new) = next()
            try body(round, old, new, "seed \(seed), round \(round) (replay with TESSERA_SEED=\(seed))")
        }
    }
}

extension RandomPairs {
    /// Runs `body` on `rounds` pairs from `seed` (`TESSERA_SEED` replays
    /// another, see ``testSeed(default:)``), as ``forEachRound(_:_:)`` does.
    ///
    /// - Complexity: `rounds` calls of `next()` and of `body`.
    public static func forEachRound(
        _ rounds: Int,
        seed defaultSeed: UInt64,
        _ body: (_ round: Int, _ old: Value, _ new: Value, _ context: String) throws -> Void
    ) rethrows {
        var pairs = Self(seed: testSeed(default: defaultSeed))
        try pairs.forEachRound(rounds, body)
    }
}

extension RandomSnapshotPairs: RandomPairs {}
extension RandomListPairs: RandomPairs {}

extension TestSnapshot {
    /// Where each item stands, by its id.
    ///
    /// - Complexity: O(*n*) in the number of items.
    public var indexPathsByID: [Int: IndexPath] {
        Dictionary(uniqueKeysWithValues: (0..<numberOfSections).flatMap { section in
            items(inSection: section).enumerated().map { ($1.id, IndexPath(item: $0, section: section)) }
        })
    }
}
