import Foundation
import Testing
import TesseraTestSupport
@testable import TesseraView
import TesseraTestTraits

@Suite("Selection: sorting many positions", .cpuBound)
struct SelectionPositionSortTests {
    @Test("Positions sort as packed integers exactly as by comparing section and item, and by comparison when one is negative")
    func packedPositionsSortLikeComparison() {
        forEachSeededRound("SelectionPositionSortTests.packedPositionsSortLikeComparison", seed: 0x5E1_5047, rounds: 200) { round, seed, generator in
            let counts = (0..<Int.random(in: 1...6, using: &generator)).map { _ in
                [0, 1, 90, 25_000][Int.random(in: 0..<4, using: &generator)]
            }
            var positions = Set<_ItemPosition>()
            let wanted = [10, 255, 256, 3_000][Int.random(in: 0..<4, using: &generator)]
            var attempts = 0
            while positions.count < wanted && attempts < 4 * wanted {
                attempts += 1
                let s = Int.random(in: 0..<counts.count, using: &generator)
                guard counts[s] > 0 else { continue }
                positions.insert(_ItemPosition(section: s, item: Int.random(in: 0..<counts[s], using: &generator)))
            }
            // Now and then, one position outside the counts, or negative.
            if Int.random(in: 0..<4, using: &generator) == 0 {
                positions.insert(_ItemPosition(section: counts.count, item: 5))
                positions.insert(_ItemPosition(section: 0, item: -1))
            }
            var sorted = Array(positions).shuffled(using: &generator)
            _SelectionState.sortPositions(&sorted)
            #expect(sorted == positions.sorted(), "seed \(seed), round \(round): \(positions.count) positions in \(counts)")
        }
    }
}
