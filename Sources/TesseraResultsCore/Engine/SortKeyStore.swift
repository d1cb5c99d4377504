
/// One column of kept sort values: 8 bytes a row while every value is an
/// integer, or every value a real, a `DatabaseValue` a row once neither
/// holds. Every column of a store is chunked alike, so one lookup locates
/// a row in all of them.
struct _KeyColumn: Sendable {
    static var chunkSize: Int { 1024 }

    /// How the values are kept.
    enum Kind: Sendable {
        /// In ``integers``: every value is an integer (also while empty).
        case integers
        /// In ``reals``: every value is a real.
        case reals
        /// In ``values``.
        case general
    }

    /// The values while they are all integers.
    private(set) var integers = _ChunkedArray<Int64>(maxChunk: _KeyColumn.chunkSize)
    /// The values while they are all reals.
    private(set) var reals = _ChunkedArray<Double>(maxChunk: _KeyColumn.chunkSize)
    /// The values once they are neither (then the others are empty).
    private(set) var values = _ChunkedArray<DatabaseValue>(maxChunk: _KeyColumn.chunkSize)
    /// Which of the three holds the column.
    private(set) var kind = Kind.integers

    var count: Int {
        switch kind {
        case .integers: return integers.count
        case .reals: return reals.count
        case .general: return values.count
        }
    }

    /// The number of chunks.
    var chunkCount: Int {
        switch kind {
        case .integers: return integers.chunks.count
        case .reals: return reals.chunks.count
        case .general: return values.chunks.count
        }
    }

    /// The number of values in chunk `c`.
    func count(ofChunk c: Int) -> Int {
        switch kind {
        case .integers: return integers.chunks[c].count
        case .reals: return reals.chunks[c].count
        case .general: return values.chunks[c].count
        }
    }

    /// Where chunk `c` starts.
    ///
    /// - Complexity: O(log *c*) for *c* chunks.
    func start(ofChunk c: Int) -> Int {
        switch kind {
        case .integers: return integers.start(ofChunk: c)
        case .reals: return reals.start(ofChunk: c)
        case .general: return values.start(ofChunk: c)
        }
    }

    /// The chunk holding position `index`, and the position in it.
    ///
    /// - Complexity: O(log *c*) for *c* chunks.
    func locate(_ index: Int) -> (chunk: Int, offset: Int) {
        switch kind {
        case .integers: return integers.locate(index)
        case .reals: return reals.locate(index)
        case .general: return values.locate(index)
        }
    }

    subscript(index: Int) -> DatabaseValue {
        let (c, k) = locate(index)
        return self[chunk: c, offset: k]
    }

    subscript(chunk c: Int, offset k: Int) -> DatabaseValue {
        switch kind {
        case .integers: return .integer(integers[chunk: c, offset: k])
        case .reals: return .real(reals[chunk: c, offset: k])
        case .general: return values[chunk: c, offset: k]
        }
    }

    /// Bytes the kept values take (not counting text and blob contents).
    var byteCount: Int {
        switch kind {
        case .integers: return integers.count * MemoryLayout<Int64>.stride
        case .reals: return reals.count * MemoryLayout<Double>.stride
        case .general: return values.count * MemoryLayout<DatabaseValue>.stride
        }
    }

    /// Switches to general storage (same chunks), once a value is neither
    /// an integer nor a real, or the column holds both.
    ///
    /// - Complexity: O(*n*), once per column.
    private mutating func generalize() {
        switch kind {
        case .integers:
            values = integers.map(DatabaseValue.integer)
            integers = _ChunkedArray(maxChunk: Self.chunkSize)
        case .reals:
            values = reals.map(DatabaseValue.real)
            reals = _ChunkedArray(maxChunk: Self.chunkSize)
        case .general:
            return
        }
        kind = .general
    }

    /// Makes the storage one that can hold `added` too: an empty column
    /// takes reals when every value added is one.
    private mutating func prepare(toHold added: some Collection<DatabaseValue>) {
        switch kind {
        case .integers:
            if added.allSatisfy({ $0.int64 != nil }) { return }
            if integers.isEmpty && !added.isEmpty && added.allSatisfy({ $0.real != nil }) {
                kind = .reals
                return
            }
        case .reals:
            if added.allSatisfy({ $0.real != nil }) { return }
        case .general:
            return
        }
        generalize()
    }

    mutating func append(_ value: DatabaseValue) {
        switch (kind, value) {
        case let (.integers, .integer(x)): integers.append(x)
        case let (.reals, .real(x)): reals.append(x)
        default:
            prepare(toHold: CollectionOfOne(value))
            switch (kind, value) {
            case let (.reals, .real(x)): reals.append(x)
            default: values.append(value)
            }
        }
    }

    /// Removes the values at `removals` (sorted ascending) and inserts
    /// `inserted` so that they end at `offsets` (sorted ascending), as
    /// ``_ChunkedArray/replace(removing:inserting:atSortedOffsets:)``.
    mutating func replace(removing removals: [Int], inserting inserted: [DatabaseValue], atSortedOffsets offsets: [Int]) {
        prepare(toHold: inserted)
        switch kind {
        case .integers: integers.replace(removing: removals, inserting: inserted.map { $0.int64 ?? 0 }, atSortedOffsets: offsets)
        case .reals: reals.replace(removing: removals, inserting: inserted.map { $0.real ?? 0 }, atSortedOffsets: offsets)
        case .general: values.replace(removing: removals, inserting: inserted, atSortedOffsets: offsets)
        }
    }
}

/// A column kept as runs of equal values: a sectioned result's first
/// column, whose rows of one section share one value, in two words a
/// section instead of one a row. Values are equal here only when they are
/// the same value (reals by their bits: 0.0 and -0.0 stay apart), so the
/// column gives back exactly what was put in.
struct _RunColumn: Sendable {
    /// Each run's value, in row order.
    private(set) var values: [DatabaseValue] = []
    /// Where each run ends (the row after its last), ascending.
    private(set) var ends: [Int] = []

    var count: Int { ends.last ?? 0 }

    /// Bytes the runs take (not counting text and blob contents).
    var byteCount: Int { values.count * MemoryLayout<DatabaseValue>.stride + ends.count * MemoryLayout<Int>.stride }

    /// The run holding row `index`.
    ///
    /// - Precondition: `0 <= index < count`.
    /// - Complexity: O(log *r*) for *r* runs.
    func run(containing index: Int) -> Int {
        precondition(index >= 0 && index < count, "row \(index) of a column of \(count)")
        var low = 0
        var high = ends.count - 1
        while low < high {
            let mid = (low + high) / 2
            if ends[mid] <= index { low = mid + 1 } else { high = mid }
        }
        return low
    }

    /// The value of row `index`.
    ///
    /// - Complexity: O(log *r*) for *r* runs.
    subscript(index: Int) -> DatabaseValue { values[run(containing: index)] }

    /// Whether two values are the same value, as a run keeps it.
    static func same(_ a: DatabaseValue, _ b: DatabaseValue) -> Bool {
        if case let .real(x) = a, case let .real(y) = b { return x.bitPattern == y.bitPattern }
        return a == b
    }

    /// Adds `count` rows of `value` at the end.
    mutating func append(_ value: DatabaseValue, count: Int = 1) {
        guard count > 0 else { return }
        if let last = values.last, Self.same(last, value) {
            ends[ends.count - 1] += count
        } else {
            values.append(value)
            ends.append(self.count + count)
        }
    }

    /// Removes the rows at `removals` (sorted ascending, before the edit)
    /// and inserts `inserted` so that they end at `offsets` (sorted
    /// ascending, after it), as
    /// ``_ChunkedArray/replace(removing:inserting:atSortedOffsets:)``.
    ///
    /// When the rows are few beside the runs (at most one for 32 runs),
    /// every run keeps a row and every row inserted lands in or beside a
    /// run of its value (rows moved within or between sections that stay),
    /// only the runs' ends move: the values are not copied.
    ///
    /// - Complexity: O(*k* log² *r*) for *r* runs and *k* rows removed or
    ///   inserted, plus one pass over the ends of the runs after the first
    ///   one touched (integers only), when only the ends move; otherwise
    ///   O(*r* + *k* log *r*).
    mutating func replace(removing removals: [Int], inserting inserted: [DatabaseValue], atSortedOffsets offsets: [Int]) {
        guard !removals.isEmpty || !inserted.isEmpty else { return }
        // Many rows against few runs: making the runs again costs less
        // than a search of the runs for each row.
        if (removals.count + inserted.count) * 32 <= ends.count, movingEnds(removing: removals, inserting: inserted, atSortedOffsets: offsets) { return }
        // The rows each run keeps.
        var kept = [Int](repeating: 0, count: ends.count)
        for r in ends.indices { kept[r] = ends[r] - (r == 0 ? 0 : ends[r - 1]) }
        for removal in removals { kept[run(containing: removal)] -= 1 }
        // The runs again, with each insertion placed among the rows kept.
        var made = _RunColumn()
        made.values.reserveCapacity(values.count + inserted.count)
        made.ends.reserveCapacity(values.count + inserted.count)
        var r = 0
        var left = kept.first ?? 0
        var keptMade = 0
        func takeKept(upTo target: Int) {
            while keptMade < target {
                while left == 0 {
                    r += 1
                    left = kept[r]
                }
                let taken = Swift.min(left, target - keptMade)
                made.append(values[r], count: taken)
                left -= taken
                keptMade += taken
            }
        }
        for (i, offset) in offsets.enumerated() {
            takeKept(upTo: offset - i)
            made.append(inserted[i])
        }
        takeKept(upTo: kept.reduce(0, +))
        self = made
    }

    /// The edit of ``replace(removing:inserting:atSortedOffsets:)`` made by
    /// moving the runs' ends alone, when it needs no run to come or go;
    /// `false`, changing nothing, when it does.
    private mutating func movingEnds(removing removals: [Int], inserting inserted: [DatabaseValue], atSortedOffsets offsets: [Int]) -> Bool {
        guard !ends.isEmpty else { return false }
        // The rows each touched run loses, by run ascending (removals are
        // sorted, so their runs are too), with the rows lost up to each.
        var lossRuns: [Int] = []
        var lossUpTo: [Int] = []
        for removal in removals {
            let r = run(containing: removal)
            if lossRuns.last == r {
                lossUpTo[lossUpTo.count - 1] += 1
            } else {
                lossRuns.append(r)
                lossUpTo.append((lossUpTo.last ?? 0) + 1)
            }
        }
        /// Rows lost by the runs up to `r`.
        func lost(upTo r: Int) -> Int {
            // The last touched run at or before `r`.
            var low = 0
            var high = lossRuns.count
            while low < high {
                let mid = (low + high) / 2
                if lossRuns[mid] <= r { low = mid + 1 } else { high = mid }
            }
            return low == 0 ? 0 : lossUpTo[low - 1]
        }
        // A run left empty goes: not an edit of ends alone.
        for (i, r) in lossRuns.enumerated() {
            let size = ends[r] - (r == 0 ? 0 : ends[r - 1])
            let loss = lossUpTo[i] - (i == 0 ? 0 : lossUpTo[i - 1])
            if loss >= size { return false }
        }
        let keptTotal = count - removals.count
        /// Where run `r` ends among the rows kept.
        func keptEnd(_ r: Int) -> Int { ends[r] - lost(upTo: r) }
        /// The first run whose kept rows end past `row`.
        func keptRun(holding row: Int) -> Int {
            var low = 0
            var high = ends.count - 1
            while low < high {
                let mid = (low + high) / 2
                if keptEnd(mid) <= row { low = mid + 1 } else { high = mid }
            }
            return low
        }
        // The run each inserted row joins: the run it lands in, or one of
        // the two it lands between, holding its value; runs ascending.
        var gainRuns: [Int] = []
        gainRuns.reserveCapacity(inserted.count)
        for (i, offset) in offsets.enumerated() {
            // The kept rows before it.
            let before = offset - i
            let left = before > 0 ? keptRun(holding: before - 1) : nil
            let right = before < keptTotal ? keptRun(holding: before) : nil
            let joined: Int
            if let left, Self.same(values[left], inserted[i]) {
                joined = left
            } else if let right, right != left, Self.same(values[right], inserted[i]) {
                joined = right
            } else {
                return false
            }
            if let last = gainRuns.last, joined < last { return false }
            gainRuns.append(joined)
        }
        // Each run's end moves by the rows gained less the rows lost up to
        // it, from the first run touched on.
        var first = Swift.min(lossRuns.first ?? Int.max, gainRuns.first ?? Int.max)
        guard first < ends.count else { return true }
        var l = 0
        var g = 0
        var moved = 0
        while first < ends.count {
            while l < lossRuns.count && lossRuns[l] == first {
                moved -= lossUpTo[l] - (l == 0 ? 0 : lossUpTo[l - 1])
                l += 1
            }
            while g < gainRuns.count && gainRuns[g] == first {
                moved += 1
                g += 1
            }
            ends[first] += moved
            first += 1
        }
        return true
    }
}

extension DatabaseValue {
    /// The real, or `nil` when the value is not one (an integer included).
    fileprivate var real: Double? {
        if case let .real(value) = self { return value }
        return nil
    }
}

/// The sort values of every row of a result, in result order: the request's
/// sort keys, then the key column (the tie-breaker), compared as the
/// store's `ORDER BY` compares them (its ``SortOrdering`` for each).
///
/// In a sectioned result the first column (the section's value) is kept
/// as runs (``firstColumnRuns``), one a section; every other column is
/// chunked, the key column locating rows for all of them.
struct _SortKeyStore: Sendable {
    /// One per sort key, then the key column; the first is empty when
    /// ``firstColumnRuns`` holds it.
    private(set) var columns: [_KeyColumn]
    /// The first column, when it is kept as runs.
    private(set) var firstColumnRuns: _RunColumn?
    let orderings: [any SortOrdering]
    /// Each ordering's ``SortOrdering/integersAscending``, read once.
    private let ascending: [Bool]
    /// Each ordering's ``SortOrdering/realsAscending``, read once.
    private let realsAscending: [Bool?]

    /// A store for rows of `orderings.count` values; with
    /// `firstColumnInRuns` (a sectioned result's), the first column is
    /// kept as runs when there is another column.
    init(orderings: [any SortOrdering], firstColumnInRuns: Bool = false) {
        self.orderings = orderings
        ascending = orderings.map(\.integersAscending)
        realsAscending = orderings.map(\.realsAscending)
        columns = Array(repeating: _KeyColumn(), count: orderings.count)
        if firstColumnInRuns && orderings.count >= 2 { firstColumnRuns = _RunColumn() }
    }

    /// No kept values: a result that commits re-fetch.
    static var none: _SortKeyStore { _SortKeyStore(orderings: []) }

    /// Keeps the first column chunked after all when its runs take more
    /// bytes than a chunked column (sections of a few rows each). Called
    /// once a fetch has appended every row: appends alone give every
    /// column the same chunks, so the column made here has them too.
    ///
    /// - Complexity: O(*n*) when the runs average fewer than four rows;
    ///   O(1) otherwise.
    mutating func settleFirstColumn() {
        guard let runs = firstColumnRuns, runs.byteCount > count * MemoryLayout<Int64>.stride else { return }
        var column = _KeyColumn()
        var start = 0
        for (value, end) in zip(runs.values, runs.ends) {
            for _ in start..<end { column.append(value) }
            start = end
        }
        guard column.byteCount < runs.byteCount else { return }
        columns[0] = column
        firstColumnRuns = nil
    }

    /// The column that locates rows: the key column, always chunked.
    private var locator: _KeyColumn? { columns.last }

    var count: Int { columns.last?.count ?? 0 }

    /// Bytes the kept values take (not counting text and blob contents).
    var byteCount: Int { columns.reduce(firstColumnRuns?.byteCount ?? 0) { $0 + $1.byteCount } }

    /// The columns kept chunked.
    private var chunkedColumns: Range<Int> { (firstColumnRuns == nil ? 0 : 1)..<columns.count }

    /// The value of row `index` in column `c`.
    ///
    /// - Complexity: O(log *n*).
    func value(atRow index: Int, column c: Int) -> DatabaseValue {
        if c == 0, let runs = firstColumnRuns { return runs[index] }
        return columns[c][index]
    }

    /// The value at a located position in column `c`.
    ///
    /// - Complexity: O(1) for a chunked column; O(log *c* + log *r*) for
    ///   the first column kept in *r* runs, over *c* chunks.
    private func value(chunk: Int, offset: Int, column c: Int) -> DatabaseValue {
        if c == 0, let runs = firstColumnRuns, let locator {
            return runs[locator.start(ofChunk: chunk) + offset]
        }
        return columns[c][chunk: chunk, offset: offset]
    }

    mutating func append(_ tuple: [DatabaseValue]) {
        firstColumnRuns?.append(tuple[0])
        for c in chunkedColumns { columns[c].append(tuple[c]) }
    }

    /// Appends a row's values at the given positions (one per column).
    mutating func append(_ values: [DatabaseValue], at positions: [Int]) {
        firstColumnRuns?.append(values[positions[0]])
        for c in chunkedColumns { columns[c].append(values[positions[c]]) }
    }

    /// Removes the rows at `removals` (sorted ascending, in the store
    /// before the edit) and inserts tuples so that they end at `offsets`
    /// (sorted ascending, in the store after it): each chunk of each
    /// column is made again once.
    ///
    /// - Complexity: as ``_ChunkedArray/replace(removing:inserting:atSortedOffsets:)``,
    ///   for each column.
    mutating func replace(removing removals: [Int], inserting tuples: [[DatabaseValue]], atSortedOffsets offsets: [Int]) {
        firstColumnRuns?.replace(removing: removals, inserting: tuples.map { $0[0] }, atSortedOffsets: offsets)
        for c in chunkedColumns { columns[c].replace(removing: removals, inserting: tuples.map { $0[c] }, atSortedOffsets: offsets) }
    }

    /// Compares one column's values in the result's order (two integers,
    /// or two reals where the store orders them by value, without a call).
    func compare(_ a: DatabaseValue, _ b: DatabaseValue, column c: Int) -> Int {
        switch (a, b) {
        case let (.integer(x), .integer(y)):
            let order = x < y ? -1 : (x > y ? 1 : 0)
            return ascending[c] ? order : -order
        case let (.real(x), .real(y)):
            guard let realsAscending = realsAscending[c] else { break }
            let order = x < y ? -1 : (x > y ? 1 : 0)
            return realsAscending ? order : -order
        default:
            break
        }
        return orderings[c].compare(a, b)
    }

    /// Compares two tuples in the result's order.
    func compare(_ a: [DatabaseValue], _ b: [DatabaseValue]) -> Int {
        for c in columns.indices {
            let order = compare(a[c], b[c], column: c)
            if order != 0 { return order }
        }
        return 0
    }

    /// Compares the row at `index` with a tuple.
    func compare(row index: Int, with tuple: [DatabaseValue]) -> Int {
        guard let locator else { return 0 }
        let (chunk, offset) = locator.locate(index)
        for c in columns.indices {
            let value: DatabaseValue
            if c == 0, let runs = firstColumnRuns { value = runs[index] } else { value = columns[c][chunk: chunk, offset: offset] }
            let order = compare(value, tuple[c], column: c)
            if order != 0 { return order }
        }
        return 0
    }

    /// Compares the row at a located position with a tuple (integers, and
    /// reals the store orders by value, compared without making values).
    func compare(chunk: Int, offset: Int, with tuple: [DatabaseValue], fromColumn first: Int = 0) -> Int {
        for c in first..<columns.count {
            var order: Int
            // The first column kept as runs is read by position.
            let kind = c == 0 && firstColumnRuns != nil ? .general : columns[c].kind
            switch (kind, tuple[c]) {
            case let (.integers, .integer(y)):
                let x = columns[c].integers[chunk: chunk, offset: offset]
                order = x < y ? -1 : (x > y ? 1 : 0)
                if !ascending[c] { order = -order }
            case let (.reals, .real(y)) where realsAscending[c] != nil:
                let x = columns[c].reals[chunk: chunk, offset: offset]
                order = x < y ? -1 : (x > y ? 1 : 0)
                if realsAscending[c] == false { order = -order }
            default:
                order = compare(value(chunk: chunk, offset: offset, column: c), tuple[c], column: c)
            }
            if order != 0 { return order }
        }
        return 0
    }

    /// The first row that does not sort before `tuple`.
    ///
    /// - Complexity: O(log *n*) tuple comparisons.
    func lowerBound(_ tuple: [DatabaseValue]) -> Int {
        lowerBounds([tuple], within: [nil])[0]
    }

    /// One search of ``lowerBounds(_:within:)``: where it is, in the chunks
    /// and then in one chunk.
    private struct Search {
        /// The first column compared: 1 in a section, whose rows all have
        /// the tuple's first value.
        var fromColumn: Int
        var firstChunk: Int
        var firstOffset: Int
        var lastChunk: Int
        var lastOffset: Int
        /// The chunks still searched, then the offsets in the chunk found.
        var low: Int
        var high: Int
    }

    /// For each tuple, the first row of its range that does not sort
    /// before it, where every row of the range has the tuple's first value
    /// (a section: the first column is not compared); for a `nil` range,
    /// the first row of the store that does not sort before it, as
    /// ``lowerBound(_:)`` finds it.
    ///
    /// Each range is located once; a search runs over the last rows of
    /// the chunks the range covers, then inside one chunk. The searches
    /// run side by side, one probe of each in turn: the rows of a large
    /// result are mostly out of the processor's caches, and a probe of one
    /// search need not wait for the row another search reads.
    ///
    /// - Complexity: O(*q* (log *c* + log *m*)) for *q* searches, *c*
    ///   chunks of at most *m* rows.
    func lowerBounds(_ tuples: [[DatabaseValue]], within ranges: [Range<Int>?]) -> [Int] {
        var results = ranges.map { $0?.lowerBound ?? 0 }
        guard let first = locator, first.count > 0 else { return results }
        var searches: [Search] = []
        searches.reserveCapacity(tuples.count)
        for (q, range) in ranges.enumerated() {
            let bounds = range ?? 0..<first.count
            guard !bounds.isEmpty else {
                searches.append(Search(fromColumn: 0, firstChunk: 0, firstOffset: 0, lastChunk: 0, lastOffset: 0, low: 0, high: -1))
                results[q] = bounds.lowerBound
                continue
            }
            let (firstChunk, firstOffset) = first.locate(bounds.lowerBound)
            let (lastChunk, lastOffset) = first.locate(bounds.upperBound - 1)
            searches.append(Search(
                fromColumn: range == nil ? 0 : 1, firstChunk: firstChunk, firstOffset: firstOffset,
                lastChunk: lastChunk, lastOffset: lastOffset, low: firstChunk, high: lastChunk))
        }
        // The first chunk whose last row in the range does not sort before
        // the tuple (the last chunk when none does).
        var searching = true
        while searching {
            searching = false
            for q in searches.indices where searches[q].low < searches[q].high {
                let mid = (searches[q].low + searches[q].high) / 2
                if compare(chunk: mid, offset: first.count(ofChunk: mid) - 1, with: tuples[q], fromColumn: searches[q].fromColumn) < 0 {
                    searches[q].low = mid + 1
                } else {
                    searches[q].high = mid
                }
                searching = true
            }
        }
        // The offsets of the chunk found that are in the range; `lastChunk`
        // keeps the chunk.
        for q in searches.indices where searches[q].high >= 0 {
            let chunk = searches[q].low
            searches[q].lastOffset = chunk == searches[q].lastChunk ? searches[q].lastOffset + 1 : first.count(ofChunk: chunk)
            searches[q].lastChunk = chunk
            searches[q].low = chunk == searches[q].firstChunk ? searches[q].firstOffset : 0
            searches[q].high = searches[q].lastOffset
        }
        searching = true
        while searching {
            searching = false
            for q in searches.indices where searches[q].low < searches[q].high {
                let mid = (searches[q].low + searches[q].high) / 2
                if compare(chunk: searches[q].lastChunk, offset: mid, with: tuples[q], fromColumn: searches[q].fromColumn) < 0 {
                    searches[q].low = mid + 1
                } else {
                    searches[q].high = mid
                }
                searching = true
            }
        }
        for (q, search) in searches.enumerated() where search.high >= 0 {
            let chunk = search.lastChunk
            let base = chunk == search.firstChunk ? (ranges[q]?.lowerBound ?? 0) - search.firstOffset : first.start(ofChunk: chunk)
            results[q] = base + search.low
        }
        return results
    }

    /// The row whose sort values and key are `tuple`, or `nil`; searched
    /// in `range` (without comparing first values) when it is given.
    ///
    /// - Complexity: O(log *n*).
    func find(_ tuple: [DatabaseValue], within range: Range<Int>? = nil) -> Int? {
        find([tuple], within: [range])[0]
    }

    /// The row of each tuple, as ``find(_:within:)`` finds it, with the
    /// searches run side by side (see ``lowerBounds(_:within:)``).
    ///
    /// - Complexity: O(*q* log *n*) for *q* tuples.
    func find(_ tuples: [[DatabaseValue]], within ranges: [Range<Int>?]) -> [Int?] {
        let bounds = lowerBounds(tuples, within: ranges)
        return zip(tuples, bounds).map { tuple, index in
            guard index < count, compare(row: index, with: tuple) == 0,
                  let key = tuple.last, columns[columns.count - 1][index] == key else { return nil }
            return index
        }
    }

    /// The index of the section whose value sorts as `value` in the
    /// result's first column, among `sections` in result order, or `nil`.
    ///
    /// - Complexity: O(log *s*) comparisons.
    func section(of value: DatabaseValue, in sections: [ResultSection]) -> Int? {
        var low = 0
        var high = sections.count
        while low < high {
            let mid = (low + high) / 2
            if compare(sections[mid].value, value, column: 0) < 0 { low = mid + 1 } else { high = mid }
        }
        return low < sections.count && sections[low].value == value ? low : nil
    }
}
