#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// How many rounds a long oracle runs: `full`, scaled by
/// `TESSERA_ORACLE_SCALE` (a number from 0 to 1) when it is set, and never
/// fewer than `minimum`.
///
/// The plain `swift test` runs every oracle in full. `.ci/sanitizers
/// thread` sets `TESSERA_ORACLE_SCALE=0.3`: ThreadSanitizer slows the
/// oracles five to ten times, and what it looks for (a race) shows in the
/// first rounds as well as in the last; the full rounds have already run,
/// unsanitized, in the same CI run. A value that is not a number from 0 to
/// 1 stops the test run, naming it.
public func oracleRounds(_ full: Int, minimum: Int = 1) -> Int {
    guard let text = ProcessInfo.processInfo.environment["TESSERA_ORACLE_SCALE"] else { return full }
    guard let scale = Double(text), scale >= 0, scale <= 1 else {
        fatalError("TESSERA_ORACLE_SCALE is \(text): it must be a number from 0 to 1")
    }
    return max(minimum, min(full, Int((Double(full) * scale).rounded(.up))))
}
