import TesseraSQLite

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
struct _SortKeyStore: Sendable {
    /// One per sort key, then the key column.
    private(set) var columns: [_KeyColumn]
    let orderings: [any SortOrdering]
    /// Each ordering's ``SortOrdering/integersAscending``, read once.
    private let ascending: [Bool]
    /// Each ordering's ``SortOrdering/realsAscending``, read once.
    private let realsAscending: [Bool?]

    init(orderings: [any SortOrdering]) {
        self.orderings = orderings
        ascending = orderings.map(\.integersAscending)
        realsAscending = orderings.map(\.realsAscending)
        columns = Array(repeating: _KeyColumn(), count: orderings.count)
    }

    /// No kept values: a result that commits re-fetch.
    static var none: _SortKeyStore { _SortKeyStore(orderings: []) }

    var count: Int { columns.first?.count ?? 0 }

    /// Bytes the kept values take (not counting text and blob contents).
    var byteCount: Int { columns.reduce(0) { $0 + $1.byteCount } }

    mutating func append(_ tuple: [DatabaseValue]) {
        for c in columns.indices { columns[c].append(tuple[c]) }
    }

    /// Appends a row's values at the given positions (one per column).
    mutating func append(_ values: [DatabaseValue], at positions: [Int]) {
        for c in columns.indices { columns[c].append(values[positions[c]]) }
    }

    /// Removes the rows at `removals` (sorted ascending, in the store
    /// before the edit) and inserts tuples so that they end at `offsets`
    /// (sorted ascending, in the store after it): each chunk of each
    /// column is made again once.
    ///
    /// - Complexity: as ``_ChunkedArray/replace(removing:inserting:atSortedOffsets:)``,
    ///   for each column.
    mutating func replace(removing removals: [Int], inserting tuples: [[DatabaseValue]], atSortedOffsets offsets: [Int]) {
        for c in columns.indices { columns[c].replace(removing: removals, inserting: tuples.map { $0[c] }, atSortedOffsets: offsets) }
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
        let (chunk, offset) = columns[0].locate(index)
        for c in columns.indices {
            let order = compare(columns[c][chunk: chunk, offset: offset], tuple[c], column: c)
            if order != 0 { return order }
        }
        return 0
    }

    /// Compares the row at a located position with a tuple (integers, and
    /// reals the store orders by value, compared without making values).
    func compare(chunk: Int, offset: Int, with tuple: [DatabaseValue], fromColumn first: Int = 0) -> Int {
        for c in first..<columns.count {
            var order: Int
            switch (columns[c].kind, tuple[c]) {
            case let (.integers, .integer(y)):
                let x = columns[c].integers[chunk: chunk, offset: offset]
                order = x < y ? -1 : (x > y ? 1 : 0)
                if !ascending[c] { order = -order }
            case let (.reals, .real(y)) where realsAscending[c] != nil:
                let x = columns[c].reals[chunk: chunk, offset: offset]
                order = x < y ? -1 : (x > y ? 1 : 0)
                if realsAscending[c] == false { order = -order }
            default:
                order = compare(columns[c][chunk: chunk, offset: offset], tuple[c], column: c)
            }
            if order != 0 { return order }
        }
        return 0
    }

    /// The first row that does not sort before `tuple`: a search over the
    /// chunks' last rows, then one inside a chunk.
    ///
    /// - Complexity: O(log *n*) tuple comparisons.
    func lowerBound(_ tuple: [DatabaseValue]) -> Int {
        guard let first = columns.first else { return 0 }
        var low = 0
        var high = first.chunkCount
        while low < high {
            let mid = (low + high) / 2
            if compare(chunk: mid, offset: first.count(ofChunk: mid) - 1, with: tuple) < 0 { low = mid + 1 } else { high = mid }
        }
        guard low < first.chunkCount else { return count }
        let chunk = low
        var lowOffset = 0
        var highOffset = first.count(ofChunk: chunk)
        while lowOffset < highOffset {
            let mid = (lowOffset + highOffset) / 2
            if compare(chunk: chunk, offset: mid, with: tuple) < 0 { lowOffset = mid + 1 } else { highOffset = mid }
        }
        return first.start(ofChunk: chunk) + lowOffset
    }

    /// The first row of `range` that does not sort before `tuple`, where
    /// every row of the range has `tuple`'s first value (a section): the
    /// first column is not compared.
    ///
    /// The range is located once; the search runs over the last rows of
    /// the chunks it covers, then inside one chunk, so that no probe
    /// locates its row again.
    ///
    /// - Complexity: O(log *c* + log *r*) for a range of *r* rows and *c*
    ///   chunks.
    func lowerBound(_ tuple: [DatabaseValue], within range: Range<Int>) -> Int {
        guard !range.isEmpty, let first = columns.first else { return range.lowerBound }
        let (firstChunk, firstOffset) = first.locate(range.lowerBound)
        let (lastChunk, lastOffset) = first.locate(range.upperBound - 1)
        // The first chunk whose last row in the range does not sort before
        // `tuple` (the last chunk when none does).
        var low = firstChunk
        var high = lastChunk
        while low < high {
            let mid = (low + high) / 2
            if compare(chunk: mid, offset: first.count(ofChunk: mid) - 1, with: tuple, fromColumn: 1) < 0 { low = mid + 1 } else { high = mid }
        }
        let chunk = low
        var lowOffset = chunk == firstChunk ? firstOffset : 0
        var highOffset = chunk == lastChunk ? lastOffset + 1 : first.count(ofChunk: chunk)
        let startOffset = lowOffset
        while lowOffset < highOffset {
            let mid = (lowOffset + highOffset) / 2
            if compare(chunk: chunk, offset: mid, with: tuple, fromColumn: 1) < 0 { lowOffset = mid + 1 } else { highOffset = mid }
        }
        let base = chunk == firstChunk ? range.lowerBound - startOffset : first.start(ofChunk: chunk)
        return base + lowOffset
    }

    /// The row whose sort values and key are `tuple`, or `nil`; searched
    /// in `range` (without comparing first values) when it is given.
    ///
    /// - Complexity: O(log *n*).
    func find(_ tuple: [DatabaseValue], within range: Range<Int>? = nil) -> Int? {
        let index = range.map { lowerBound(tuple, within: $0) } ?? lowerBound(tuple)
        guard index < count, compare(row: index, with: tuple) == 0,
              let key = tuple.last, columns[columns.count - 1][index] == key else { return nil }
        return index
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
