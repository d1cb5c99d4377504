import Testing
@testable import TesseraResults
@testable import TesseraResultsCore
@testable import TesseraResultsSQLite
import TesseraSQLite
import TesseraTestSupport
import TesseraTestTraits

// No store: the engine's storage (the kept sort values with SQLite's
// orderings).

@Suite("Chunked storage", .cpuBound)
struct ChunkedArrayTests {
    /// Sorts `added`, merges it into the sorted `rows`, and returns where
    /// each added row ends (the offsets `replace` takes).
    static func insertSorted(_ added: inout [[DatabaseValue]], into rows: inout [[DatabaseValue]], order: ([DatabaseValue], [DatabaseValue]) -> Int) -> [Int] {
        added.sort { order($0, $1) < 0 }
        var all = rows + added
        all.sort { order($0, $1) < 0 }
        rows = all
        return added.map { row in all.firstIndex { order($0, row) == 0 }! }
    }

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
        // (2, 1_000) starts with 1,000 chunks: 16 pages of them.
        for (maxChunk, size) in [(2, 0), (3, 17), (5, 200), (2, 1_000), (16, 1_000), (64, 5_000)] {
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

    @Test("Random removals and insertions made in one edit, each chunk made once, match an array, and copies keep their contents")
    func replaceMatchesArray() {
        let seed = testSeed(default: 0x8E9)
        print("ChunkedArrayTests.replaceMatchesArray: seed \(seed) (set TESSERA_SEED to replay)")
        var generator = SplitMix64(seed: seed)
        for (maxChunk, size) in [(2, 0), (3, 9), (4, 60), (16, 500), (64, 3_000)] {
            var model = Array(0..<size)
            var chunked = _ChunkedArray(model, maxChunk: maxChunk)
            var next = 1_000_000
            for round in 0..<200 {
                let comment = Comment(rawValue: "seed \(seed), chunks of \(maxChunk), start size \(size), round \(round)")
                let kept = chunked
                let keptModel = model
                // Removals: scattered, a run (emptying chunks), or all.
                var removals: [Int] = []
                switch Int.random(in: 0..<6, using: &generator) {
                case 0 where !model.isEmpty:
                    let start = Int.random(in: 0..<model.count, using: &generator)
                    removals = Array(start..<Swift.min(model.count, start + Int.random(in: 1...maxChunk * 3, using: &generator)))
                case 1 where model.count < 40:
                    removals = Array(model.indices)
                default:
                    let wanted = Int.random(in: 0...Swift.min(model.count, 15), using: &generator)
                    var picked = Set<Int>()
                    while picked.count < wanted { picked.insert(Int.random(in: 0..<model.count, using: &generator)) }
                    removals = picked.sorted()
                }
                var expected = model
                for offset in removals.reversed() { expected.remove(at: offset) }
                // Insertions at final offsets: scattered, a run at one place
                // (splitting chunks), next to the removals, or at the end.
                let inserted = Int.random(in: 0...(Int.random(in: 0..<4, using: &generator) == 0 ? maxChunk * 3 : 12), using: &generator)
                let total = expected.count + inserted
                var offsets: [Int]
                switch Int.random(in: 0..<4, using: &generator) {
                case 0:
                    let start = Int.random(in: 0...(total - inserted), using: &generator)
                    offsets = Array(start..<(start + inserted))
                case 1:
                    offsets = Array((total - inserted)..<total)
                case 2 where !removals.isEmpty:
                    var picked = Set<Int>()
                    for removal in removals.prefix(inserted) { picked.insert(Swift.min(removal, total - 1)) }
                    while picked.count < inserted { picked.insert(Int.random(in: 0..<total, using: &generator)) }
                    offsets = picked.sorted()
                default:
                    var picked = Set<Int>()
                    while picked.count < inserted { picked.insert(Int.random(in: 0..<total, using: &generator)) }
                    offsets = picked.sorted()
                }
                let elements = offsets.map { _ in next += 1; return next }
                for (offset, element) in zip(offsets, elements) { expected.insert(element, at: offset) }
                model = expected
                chunked.replace(removing: removals, inserting: elements, atSortedOffsets: offsets)

                chunked._checkInvariants()
                #expect(chunked.count == model.count, comment)
                #expect(chunked.chunks.allSatisfy { !$0.isEmpty && $0.count <= maxChunk }, comment)
                #expect(kept.joined() == keptModel, comment)
                guard chunked.joined() == model else {
                    Issue.record("the elements differ from the array's; \(comment.rawValue)")
                    return
                }
                var start = 0
                for c in chunked.chunks.indices {
                    #expect(chunked.start(ofChunk: c) == start, comment)
                    start += chunked.chunks[c].count
                }
            }
        }
    }

    @Test("Kept sort values of reals (ascending and descending, with -0.0 and 0.0) find every row after random edits, and a lower bound agrees with a linear scan; an integer among them keeps them as values", .startsEarly)
    func realSortKeys() {
        let seed = testSeed(default: 0x4EA)
        print("ChunkedArrayTests.realSortKeys: seed \(seed) (set TESSERA_SEED to replay)")
        var generator = SplitMix64(seed: seed)
        for ascending in [true, false] {
            var store = _SortKeyStore(orderings: [SQLiteSortOrdering(collation: .binary, ascending: ascending), SQLiteSortOrdering(collation: .binary, ascending: true)])
            func real() -> DatabaseValue {
                let specials: [Double] = [0, -0.0, 1e300, -1e300, 0.5]
                return .real(Int.random(in: 0..<6, using: &generator) == 0 ? specials[Int.random(in: 0..<specials.count, using: &generator)] : Double(Int.random(in: -400...400, using: &generator)) / 8)
            }
            // The oracle orders rows through the orderings, not the store.
            func order(_ a: [DatabaseValue], _ b: [DatabaseValue]) -> Int {
                for c in a.indices {
                    let order = store.orderings[c].compare(a[c], b[c])
                    if order != 0 { return order }
                }
                return 0
            }
            var rows: [[DatabaseValue]] = (0..<2_500).map { [real(), .integer(Int64($0))] }
            rows.sort { order($0, $1) < 0 }
            for row in rows { store.append(row) }
            var nextKey: Int64 = 10_000
            for round in 0..<60 {
                let comment = Comment(rawValue: "seed \(seed), ascending \(ascending), round \(round)")
                #expect(store.columns[0].kind == (round <= 40 ? .reals : .general), comment)
                // Remove some rows, insert others where they sort.
                var picked = Set<Int>()
                for _ in 0..<Int.random(in: 0...20, using: &generator) { picked.insert(Int.random(in: 0..<rows.count, using: &generator)) }
                let removals = picked.sorted()
                for offset in removals.reversed() { rows.remove(at: offset) }
                var added: [[DatabaseValue]] = (0..<Int.random(in: (round == 40 ? 1 : 0)...20, using: &generator)).map { _ in
                    nextKey += 1
                    return [round == 40 ? .integer(7) : real(), .integer(nextKey)]
                }
                let offsets = Self.insertSorted(&added, into: &rows, order: order)
                store.replace(removing: removals, inserting: added, atSortedOffsets: offsets)
                #expect(store.count == rows.count, comment)
                for (index, row) in rows.enumerated() where index % 7 == 0 || round == 59 {
                    guard store.find(row) == index else {
                        Issue.record("row \(index) \(row) is found at \(String(describing: store.find(row))); \(comment.rawValue)")
                        return
                    }
                }
                for _ in 0..<100 {
                    let probe: [DatabaseValue] = [real(), .integer(Int64.random(in: -5...12_000, using: &generator))]
                    let expected = rows.firstIndex { order($0, probe) >= 0 } ?? rows.count
                    #expect(store.lowerBound(probe) == expected, comment)
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

    @Test("A run column's edits match an array: rows moved within and between runs that stay (only the ends move), runs emptied, rows landing inside a run of another value or between two runs of other values, copies left as they were")
    func runColumnEdits() {
        let seed = testSeed(default: 0x2E5)
        print("ChunkedArrayTests.runColumnEdits: seed \(seed) (set TESSERA_SEED to replay)")
        var generator = SplitMix64(seed: seed)
        let palette: [DatabaseValue] = ["a", "A", "b", .integer(1), .real(0), .real(-0.0), .null]
        var column = _RunColumn()
        var model: [DatabaseValue] = []
        // Enough runs for small edits to move their ends alone (at most a
        // row for 32 runs), few enough for larger ones to make them again.
        for _ in 0..<Int.random(in: 200...400, using: &generator) {
            let value = palette[Int.random(in: 0..<palette.count, using: &generator)]
            let count = Int.random(in: 1...6, using: &generator)
            column.append(value, count: count)
            model += Array(repeating: value, count: count)
        }
        /// The runs of equal values (reals by their bits) of `values`.
        func runCount(_ values: [DatabaseValue]) -> Int {
            values.indices.filter { $0 == 0 || !_RunColumn.same(values[$0 - 1], values[$0]) }.count
        }
        var valuesShared = 0
        for round in 0..<1_500 {
            let comment = Comment(rawValue: "seed \(seed), round \(round)")
            let copy = column
            let copyModel = model
            let valuesBefore = column.values
            var removals = Set<Int>()
            for _ in 0..<Int.random(in: 0...(round % 10 == 7 ? 40 : 3), using: &generator) where !model.isEmpty {
                removals.insert(Int.random(in: 0..<model.count, using: &generator))
            }
            let sortedRemovals = removals.sorted()
            var after = model
            for offset in sortedRemovals.reversed() { after.remove(at: offset) }
            // Insertions at random places, ascending: mostly a neighbour's
            // value (joins its run), now and then any value.
            var offsets: [Int] = []
            var inserted: [DatabaseValue] = []
            for _ in 0..<Int.random(in: 0...3, using: &generator) {
                let offset = Int.random(in: (offsets.last.map { $0 + 1 } ?? 0)...(after.count), using: &generator)
                let value: DatabaseValue
                if Int.random(in: 0..<4, using: &generator) > 0, !after.isEmpty {
                    value = after[Swift.min(after.count - 1, Swift.max(0, offset - Int.random(in: 0...1, using: &generator)))]
                } else {
                    value = palette[Int.random(in: 0..<palette.count, using: &generator)]
                }
                after.insert(value, at: offset)
                offsets.append(offset)
                inserted.append(value)
            }
            // Now and then, at a boundary of two runs, a row of the right
            // run's value and then one of the left's: neither joins a run.
            if round % 5 == 2, offsets.isEmpty, let boundary = after.indices.dropFirst().first(where: { $0 >= after.count / 2 && !_RunColumn.same(after[$0 - 1], after[$0]) }) {
                let (left, right) = (after[boundary - 1], after[boundary])
                after.insert(contentsOf: [right, left], at: boundary)
                offsets = [boundary, boundary + 1]
                inserted = [right, left]
            }
            column.replace(removing: sortedRemovals, inserting: inserted, atSortedOffsets: offsets)
            model = after
            #expect(column.count == model.count, comment)
            #expect(column.values.count == runCount(model), comment)
            guard model.indices.allSatisfy({ _RunColumn.same(column[$0], model[$0]) }) else {
                Issue.record("the column reads otherwise than the array; \(comment.rawValue)")
                return
            }
            if round % 10 == 0 {
                #expect(copy.count == copyModel.count && copyModel.indices.allSatisfy { _RunColumn.same(copy[$0], copyModel[$0]) }, comment)
            }
            // The values' storage is the one before when only ends moved.
            if column.values.withUnsafeBufferPointer({ $0.baseAddress }) == valuesBefore.withUnsafeBufferPointer({ $0.baseAddress }) { valuesShared += 1 }
            // Refill a column that emptied.
            if model.isEmpty {
                column.append("b", count: 3)
                model = ["b", "b", "b"]
            }
        }
        // Rows inserted first and last join the first and the last run,
        // whose values are kept in place.
        var edges = _RunColumn()
        for (value, count) in [(DatabaseValue.integer(1), 2), ("b", 3)] + (0..<80).map({ (DatabaseValue.integer(Int64($0 + 2)), 1) }) {
            edges.append(value, count: count)
        }
        let edgeValues = edges.values
        edges.replace(removing: [], inserting: [.integer(1), .integer(81)], atSortedOffsets: [0, edges.count + 1])
        #expect(edges.count == 87 && edges[0] == .integer(1) && edges[2] == .integer(1) && edges[3] == "b" && edges[85] == .integer(81) && edges[86] == .integer(81))
        #expect(edges.values.count == 82 && edges.values.withUnsafeBufferPointer { $0.baseAddress } == edgeValues.withUnsafeBufferPointer { $0.baseAddress })
        // Most edits move rows within the runs there are, and keep the
        // values where they were.
        #expect(valuesShared > 200, "seed \(seed): \(valuesShared) edits kept the runs' values in place")
    }

    @Test("A sectioned store keeps its first column as runs: random edits keep every value exactly (0.0 and -0.0, \"a\" and \"A\" under NOCASE), find every row, agree with a linear scan, and leave copies as they were")
    func firstColumnInRuns() {
        let seed = testSeed(default: 0x52A)
        print("ChunkedArrayTests.firstColumnInRuns: seed \(seed) (set TESSERA_SEED to replay)")
        var generator = SplitMix64(seed: seed)
        let orderings = [SQLiteSortOrdering(collation: .nocase, ascending: true), SQLiteSortOrdering(collation: .binary, ascending: false), SQLiteSortOrdering(collation: .binary, ascending: true)]
        var store = _SortKeyStore(orderings: orderings, firstColumnInRuns: true)
        var chunked = _SortKeyStore(orderings: orderings)
        let sections: [DatabaseValue] = ["a", "A", "b", "c", .integer(3), .real(0), .real(-0.0), .real(2.5), .null]
        func order(_ a: [DatabaseValue], _ b: [DatabaseValue]) -> Int {
            for c in a.indices {
                let order = orderings[c].compare(a[c], b[c])
                if order != 0 { return order }
            }
            return 0
        }
        var nextKey: Int64 = 0
        func row() -> [DatabaseValue] {
            nextKey += 1
            return [sections[Int.random(in: 0..<sections.count, using: &generator)], .integer(Int64.random(in: 0..<50, using: &generator)), .integer(nextKey)]
        }
        var rows = (0..<2_000).map { _ in row() }
        rows.sort { order($0, $1) < 0 }
        for row in rows {
            store.append(row)
            chunked.append(row)
        }
        /// The runs of equal values (reals by their bits) of the first column.
        func runs(_ rows: [[DatabaseValue]]) -> Int {
            rows.indices.filter { $0 == 0 || !_RunColumn.same(rows[$0 - 1][0], rows[$0][0]) }.count
        }
        for round in 0..<80 {
            let comment = Comment(rawValue: "seed \(seed), round \(round)")
            let kept = store
            let keptRows = rows
            // Remove some rows (now and then a whole stretch), insert
            // others where they sort.
            var picked = Set<Int>()
            if round % 9 == 4, !rows.isEmpty {
                let start = Int.random(in: 0..<rows.count, using: &generator)
                picked.formUnion(start..<Swift.min(rows.count, start + 300))
            }
            for _ in 0..<Int.random(in: 0...25, using: &generator) where !rows.isEmpty { picked.insert(Int.random(in: 0..<rows.count, using: &generator)) }
            let removals = picked.sorted()
            for offset in removals.reversed() { rows.remove(at: offset) }
            var added = (0..<Int.random(in: 0...(round % 9 == 6 ? 300 : 25), using: &generator)).map { _ in row() }
            let offsets = Self.insertSorted(&added, into: &rows, order: order)
            store.replace(removing: removals, inserting: added, atSortedOffsets: offsets)
            chunked.replace(removing: removals, inserting: added, atSortedOffsets: offsets)

            #expect(store.count == rows.count, comment)
            #expect(store.firstColumnRuns?.values.count == runs(rows), comment)
            #expect(store.byteCount < chunked.byteCount || rows.isEmpty, comment)
            for (index, row) in rows.enumerated() {
                guard _RunColumn.same(store.value(atRow: index, column: 0), row[0]), store.value(atRow: index, column: 2) == row[2] else {
                    Issue.record("row \(index) reads \(store.value(atRow: index, column: 0)), not \(row[0]); \(comment.rawValue)")
                    return
                }
            }
            for (index, row) in rows.enumerated() where index % 5 == 0 {
                #expect(store.find(row) == index, comment)
            }
            for _ in 0..<60 {
                let probe = row()
                let expected = rows.firstIndex { order($0, probe) >= 0 } ?? rows.count
                #expect(store.lowerBound(probe) == expected, comment)
                #expect(chunked.lowerBound(probe) == expected, comment)
            }
            #expect(kept.count == keptRows.count && keptRows.indices.allSatisfy { _RunColumn.same(kept.value(atRow: $0, column: 0), keptRows[$0][0]) }, comment)
        }
        // Runs of a row or two each take more than a chunked column: the
        // store settles on the chunked one, and finds every row in it.
        var short = _SortKeyStore(orderings: orderings, firstColumnInRuns: true)
        let shortRows = (0..<3_000).map { [DatabaseValue.integer(Int64($0 / 2)), .integer(0), .integer(Int64($0))] }
        for row in shortRows { short.append(row) }
        let runBytes = short.byteCount
        short.settleFirstColumn()
        #expect(short.firstColumnRuns == nil && short.byteCount == 3_000 * 24 && short.byteCount < runBytes, "seed \(seed)")
        #expect(shortRows.indices.allSatisfy { short.find(shortRows[$0]) == $0 }, "seed \(seed)")
        // Long runs stay runs.
        let before = store.byteCount
        store.settleFirstColumn()
        #expect(store.firstColumnRuns != nil && store.byteCount == before, "seed \(seed)")
    }
}
