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

    @Test("Random appends, removals, insertions and lookups at several sizes match an array, and the counts stay consistent")
    func randomEditsMatchArray() {
        let seed = testSeed(default: 0xF3E1)
        print("ChunkedArrayTests.randomEditsMatchArray: seed \(seed) (set TESSERA_SEED to replay)")
        var generator = SplitMix64(seed: seed)
        for (maxChunk, size) in [(2, 0), (3, 17), (5, 200), (16, 1_000), (64, 5_000)] {
            var model = Array(0..<size)
            var chunked = _ChunkedArray(model, maxChunk: maxChunk)
            var next = 1_000_000
            for round in 0..<150 {
                let comment = Comment(rawValue: "seed \(seed), chunks of \(maxChunk), start size \(size), round \(round)")
                let kept = chunked
                let keptModel = model
                // Appends, now and then.
                for _ in 0..<(Int.random(in: 0..<4, using: &generator) == 0 ? Int.random(in: 1...maxChunk * 2, using: &generator) : 0) {
                    next += 1
                    model.append(next)
                    chunked.append(next)
                }
                // Removals: a few scattered, or a whole run (emptying chunks).
                var removals: [Int] = []
                if !model.isEmpty {
                    if Int.random(in: 0..<5, using: &generator) == 0 {
                        let start = Int.random(in: 0..<model.count, using: &generator)
                        removals = Array(start..<Swift.min(model.count, start + Int.random(in: 1...maxChunk * 3, using: &generator)))
                    } else {
                        let wanted = Int.random(in: 0...Swift.min(model.count, 12), using: &generator)
                        var picked = Set<Int>()
                        while picked.count < wanted { picked.insert(Int.random(in: 0..<model.count, using: &generator)) }
                        removals = picked.sorted()
                    }
                }
                for offset in removals.reversed() { model.remove(at: offset) }
                chunked.remove(atSortedOffsets: removals)
                // Insertions: scattered, or a run at one place (splitting
                // chunks), sometimes at the end.
                let inserted = Int.random(in: 0...(Int.random(in: 0..<4, using: &generator) == 0 ? maxChunk * 3 : 10), using: &generator)
                let total = model.count + inserted
                var offsets: [Int]
                if Int.random(in: 0..<3, using: &generator) == 0 {
                    let start = Int.random(in: 0...(total - inserted), using: &generator)
                    offsets = Array(start..<(start + inserted))
                } else {
                    var picked = Set<Int>()
                    while picked.count < inserted { picked.insert(Int.random(in: 0..<total, using: &generator)) }
                    offsets = picked.sorted()
                }
                let elements = offsets.map { _ in next += 1; return next }
                for (offset, element) in zip(offsets, elements) { model.insert(element, at: offset) }
                chunked.insert(elements, atSortedOffsets: offsets)

                chunked._checkInvariants()
                #expect(chunked.count == model.count, comment)
                #expect(chunked.chunks.allSatisfy { !$0.isEmpty && $0.count <= maxChunk }, comment)
                // Lookups: every position, or a sample of a large array,
                // through the index and through the chunk it is located in.
                let probes = model.count <= 300 ? Array(model.indices) : (0..<300).map { _ in Int.random(in: 0..<model.count, using: &generator) }
                for index in probes {
                    let (c, k) = chunked.locate(index)
                    guard chunked[index] == model[index], chunked[chunk: c, offset: k] == model[index], chunked.start(ofChunk: c) + k == index else {
                        Issue.record("position \(index) is \(chunked[index]) (chunk \(c), offset \(k)), the array has \(model[index]); \(comment.rawValue)")
                        return
                    }
                }
                var start = 0
                for c in chunked.chunks.indices {
                    #expect(chunked.start(ofChunk: c) == start, comment)
                    start += chunked.chunks[c].count
                }
                #expect(kept.joined() == keptModel, comment)
                guard chunked.joined() == model else {
                    Issue.record("the elements differ from the array's; \(comment.rawValue)")
                    return
                }
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
