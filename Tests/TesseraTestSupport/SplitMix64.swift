#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// SplitMix64: a small, fast, seedable generator, so a randomized test can be
/// replayed exactly from its seed on any platform.
public struct SplitMix64: RandomNumberGenerator, Sendable {
    public private(set) var state: UInt64

    public init(seed: UInt64) {
        state = seed
    }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// The seed of a randomized test: `TESSERA_SEED` from the environment when
/// set (to replay a failure), otherwise the given default.
public func testSeed(default value: UInt64) -> UInt64 {
    if let text = ProcessInfo.processInfo.environment["TESSERA_SEED"], let seed = UInt64(text) {
        return seed
    }
    return value
}
