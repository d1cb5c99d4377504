import TesseraSQLite

/// One column of kept sort values: 8 bytes a row while every value is an
/// integer, a `DatabaseValue` a row once one is not. Every column of a
/// store is chunked alike, so one lookup locates a row in all of them.
struct _KeyColumn: Sendable {
    static var chunkSize: Int { 1024 }

    /// The values while they are all integers.
    private(set) var integers = _ChunkedArray<Int64>(maxChunk: _KeyColumn.chunkSize)
    /// The values once one is not an integer (then `integers` is empty).
    private(set) var values = _ChunkedArray<DatabaseValue>(maxChunk: _KeyColumn.chunkSize)
    /// Whether `values` holds the column.
    private(set) var isGeneral = false

    var count: Int { isGeneral ? values.count : integers.count }

    /// The number of chunks.
    var chunkCount: Int { isGeneral ? values.chunks.count : integers.chunks.count }

    /// The number of values in chunk `c`.
    func count(ofChunk c: Int) -> Int {
        isGeneral ? values.chunks[c].count : integers.chunks[c].count
    }

    /// Where chunk `c` starts.
    ///
    /// - Complexity: O(log *c*) for *c* chunks.
    func start(ofChunk c: Int) -> Int {
        isGeneral ? values.start(ofChunk: c) : integers.start(ofChunk: c)
    }

    /// The chunk holding position `index`, and the position in it.
    ///
    /// - Complexity: O(log *c*) for *c* chunks.
    func locate(_ index: Int) -> (chunk: Int, offset: Int) {
        isGeneral ? values.locate(index) : integers.locate(index)
    }

    subscript(index: Int) -> DatabaseValue {
        let (c, k) = locate(index)
        return self[chunk: c, offset: k]
    }

    subscript(chunk c: Int, offset k: Int) -> DatabaseValue {
        isGeneral ? values[chunk: c, offset: k] : .integer(integers[chunk: c, offset: k])
    }

    /// Bytes the kept values take (not counting text and blob contents).
    var byteCount: Int {
        isGeneral ? values.count * MemoryLayout<DatabaseValue>.stride : integers.count * MemoryLayout<Int64>.stride
    }

    /// Switches to general storage (same chunks), once a value is not an
    /// integer.
    ///
    /// - Complexity: O(*n*), once per column.
    private mutating func generalize() {
        guard !isGeneral else { return }
        values = integers.map(DatabaseValue.integer)
        integers = _ChunkedArray(maxChunk: Self.chunkSize)
        isGeneral = true
    }

    mutating func append(_ value: DatabaseValue) {
        if !isGeneral, case let .integer(x) = value {
            integers.append(x)
            return
        }
        generalize()
        values.append(value)
    }

    mutating func insert(_ inserted: [DatabaseValue], atSortedOffsets offsets: [Int]) {
        if inserted.contains(where: { $0.int64 == nil }) { generalize() }
        if isGeneral {
            values.insert(inserted, atSortedOffsets: offsets)
        } else {
            integers.insert(inserted.map { $0.int64 ?? 0 }, atSortedOffsets: offsets)
        }
    }

    mutating func remove(atSortedOffsets offsets: [Int]) {
        if isGeneral {
            values.remove(atSortedOffsets: offsets)
        } else {
            integers.remove(atSortedOffsets: offsets)
        }
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

    init(orderings: [any SortOrdering]) {
        self.orderings = orderings
        ascending = orderings.map(\.integersAscending)
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

    /// Inserts tuples so that they end at `offsets` (sorted ascending).
    mutating func insert(_ tuples: [[DatabaseValue]], atSortedOffsets offsets: [Int]) {
        for c in columns.indices { columns[c].insert(tuples.map { $0[c] }, atSortedOffsets: offsets) }
    }

    /// Removes the rows at `offsets` (sorted ascending).
    mutating func remove(atSortedOffsets offsets: [Int]) {
        for c in columns.indices { columns[c].remove(atSortedOffsets: offsets) }
    }

    /// Compares one column's values in the result's order.
    func compare(_ a: DatabaseValue, _ b: DatabaseValue, column c: Int) -> Int {
        if case let .integer(x) = a, case let .integer(y) = b {
            let order = x < y ? -1 : (x > y ? 1 : 0)
            return ascending[c] ? order : -order
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

    /// Compares the row at a located position with a tuple (integers
    /// compared without making values).
    func compare(chunk: Int, offset: Int, with tuple: [DatabaseValue], fromColumn first: Int = 0) -> Int {
        for c in first..<columns.count {
            var order: Int
            if !columns[c].isGeneral, case let .integer(y) = tuple[c] {
                let x = columns[c].integers[chunk: chunk, offset: offset]
                order = x < y ? -1 : (x > y ? 1 : 0)
                if !ascending[c] { order = -order }
            } else {
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
