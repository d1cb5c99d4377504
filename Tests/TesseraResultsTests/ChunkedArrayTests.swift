import Testing
@testable import TesseraResults
import TesseraSQLite
import TesseraTestSupport

// No store: the engine's storage (the kept sort values with SQLite's
// orderings).

@Suite("Chunked storage")
struct ChunkedArrayTests {
    @Test("Random batches of removals and insertions with tiny chunks match an array, and copies keep their contents")
    func matchesArray() {
        let seed = testSeed(default: 0xC4C)
        var generator = SplitMix64(seed: seed)
        for maxChunk in [2, 3, 4, 8] {
            var model = Array(0..<40)
            var chunked = _ChunkedArray(model, maxChunk: maxChunk)
            var next = 1_000
            for round in 0..<400 {
                let kept = chunked
                let keptModel = model
                // Remove a random sorted set of offsets…
                let removals = (0..<model.count).filter { _ in Int.random(in: 0..<6, using: &generator) == 0 }
                for offset in removals.reversed() { model.remove(at: offset) }
                chunked.remove(atSortedOffsets: removals)
                // …then insert at random final offsets.
                let count = Int.random(in: 0...8, using: &generator)
                let total = model.count + count
                var offsets = Set<Int>()
                while offsets.count < count { offsets.insert(Int.random(in: 0..<total, using: &generator)) }
                let sorted = offsets.sorted()
                let elements = sorted.map { _ in next += 1; return next }
                for (offset, element) in zip(sorted, elements) { model.insert(element, at: offset) }
                chunked.insert(elements, atSortedOffsets: sorted)
                let comment = Comment(rawValue: "seed \(seed), chunks of \(maxChunk), round \(round)")
                #expect(chunked.joined() == model, comment)
                #expect(chunked.count == model.count, comment)
                #expect(chunked.chunks.allSatisfy { !$0.isEmpty && $0.count <= maxChunk }, comment)
                #expect(model.indices.allSatisfy { chunked[$0] == model[$0] }, comment)
                #expect(kept.joined() == keptModel, comment)
                if chunked.joined() != model { return }
            }
        }
    }

    @Test("The kept sort values find every row, and a lower bound agrees with a linear scan")
    func sortKeyStore() {
        let seed = testSeed(default: 0x5E7)
        var generator = SplitMix64(seed: seed)
        var store = _SortKeyStore(orderings: [SQLiteSortOrdering(collation: .nocase, ascending: false), SQLiteSortOrdering(collation: .binary, ascending: true)])
        var rows: [[DatabaseValue]] = []
        let names: [DatabaseValue] = ["a", "B", "c", .integer(3), .null, .real(2.5)]
        for key in 0..<3_000 {
            rows.append([names[Int.random(in: 0..<names.count, using: &generator)], .integer(Int64(key))])
        }
        rows.sort { store.compare($0, $1) < 0 }
        for row in rows { store.append(row) }
        for (index, row) in rows.enumerated() {
            #expect(store.find(row) == index, "seed \(seed)")
        }
        for _ in 0..<500 {
            let probe: [DatabaseValue] = [names[Int.random(in: 0..<names.count, using: &generator)], .integer(Int64.random(in: -5...3_005, using: &generator))]
            let expected = rows.firstIndex { store.compare($0, probe) >= 0 } ?? rows.count
            #expect(store.lowerBound(probe) == expected, "seed \(seed)")
        }
    }
}
