import TesseraSQLite

/// One column of kept sort values: 8 bytes a row while every value is an
/// integer, a `DatabaseValue` a row once one is not. Every column of a
/// store is chunked alike, so one lookup locates a row in all of them.
struct _KeyColumn: Sendable {
    static var chunkSize: Int { 1024 }

    enum Storage: Sendable {
        case integers(_ChunkedArray<Int64>)
        case values(_ChunkedArray<DatabaseValue>)
    }

    private(set) var storage = Storage.integers(_ChunkedArray(maxChunk: _KeyColumn.chunkSize))

    var count: Int {
        switch storage {
        case let .integers(values): return values.count
        case let .values(values): return values.count
        }
    }

    /// The number of chunks, and where a chunk starts and ends.
    var chunkEnds: [Int] {
        switch storage {
        case let .integers(values): return values.ends
        case let .values(values): return values.ends
        }
    }

    func locate(_ index: Int) -> (chunk: Int, offset: Int) {
        switch storage {
        case let .integers(values): return values.locate(index)
        case let .values(values): return values.locate(index)
        }
    }

    subscript(index: Int) -> DatabaseValue {
        let (c, k) = locate(index)
        return self[chunk: c, offset: k]
    }

    subscript(chunk c: Int, offset k: Int) -> DatabaseValue {
        switch storage {
        case let .integers(values): return .integer(values[chunk: c, offset: k])
        case let .values(values): return values[chunk: c, offset: k]
        }
    }

    /// Bytes the kept values take (not counting text and blob contents).
    var byteCount: Int {
        switch storage {
        case let .integers(values): return values.count * MemoryLayout<Int64>.stride
        case let .values(values): return values.count * MemoryLayout<DatabaseValue>.stride
        }
    }

    /// Switches to general storage (same chunks) once a value is not an
    /// integer.
    ///
    /// - Complexity: O(*n*), once per column.
    private mutating func generalize(for values: [DatabaseValue]) {
        guard case let .integers(integers) = storage,
              values.contains(where: { $0.int64 == nil }) else { return }
        storage = .values(integers.map(DatabaseValue.integer))
    }

    mutating func append(_ value: DatabaseValue) {
        generalize(for: [value])
        switch storage {
        case var .integers(values):
            storage = .values(_ChunkedArray())
            values.append(value.int64 ?? 0)
            storage = .integers(values)
        case var .values(values):
            storage = .integers(_ChunkedArray())
            values.append(value)
            storage = .values(values)
        }
    }

    mutating func insert(_ inserted: [DatabaseValue], atSortedOffsets offsets: [Int]) {
        generalize(for: inserted)
        switch storage {
        case var .integers(values):
            storage = .values(_ChunkedArray())
            values.insert(inserted.map { $0.int64 ?? 0 }, atSortedOffsets: offsets)
            storage = .integers(values)
        case var .values(values):
            storage = .integers(_ChunkedArray())
            values.insert(inserted, atSortedOffsets: offsets)
            storage = .values(values)
        }
    }

    mutating func remove(atSortedOffsets offsets: [Int]) {
        switch storage {
        case var .integers(values):
            storage = .values(_ChunkedArray())
            values.remove(atSortedOffsets: offsets)
            storage = .integers(values)
        case var .values(values):
            storage = .integers(_ChunkedArray())
            values.remove(atSortedOffsets: offsets)
            storage = .values(values)
        }
    }
}

/// The sort values of every row of a result, in result order: the request's
/// sort keys, then the key column (the tie-breaker), compared as SQLite's
/// `ORDER BY` compares them.
struct _SortKeyStore: Sendable {
    /// One per sort key, then the key column.
    private(set) var columns: [_KeyColumn]
    let collations: [Collation]
    let ascending: [Bool]

    init(collations: [Collation], ascending: [Bool]) {
        self.collations = collations
        self.ascending = ascending
        columns = Array(repeating: _KeyColumn(), count: collations.count)
    }

    var count: Int { columns.first?.count ?? 0 }

    /// Bytes the kept values take (not counting text and blob contents).
    var byteCount: Int { columns.reduce(0) { $0 + $1.byteCount } }

    mutating func append(_ tuple: [DatabaseValue]) {
        for c in columns.indices { columns[c].append(tuple[c]) }
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
        let order = collations[c].compare(a, b)
        return ascending[c] ? order : -order
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
    func compare(chunk: Int, offset: Int, with tuple: [DatabaseValue]) -> Int {
        for c in columns.indices {
            var order: Int
            if case let .integers(values) = columns[c].storage, case let .integer(y) = tuple[c] {
                let x = values[chunk: chunk, offset: offset]
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
        let ends = first.chunkEnds
        var low = 0
        var high = ends.count
        while low < high {
            let mid = (low + high) / 2
            let length = ends[mid] - (mid == 0 ? 0 : ends[mid - 1])
            if compare(chunk: mid, offset: length - 1, with: tuple) < 0 { low = mid + 1 } else { high = mid }
        }
        guard low < ends.count else { return count }
        let chunk = low
        let start = chunk == 0 ? 0 : ends[chunk - 1]
        var lowOffset = 0
        var highOffset = ends[chunk] - start
        while lowOffset < highOffset {
            let mid = (lowOffset + highOffset) / 2
            if compare(chunk: chunk, offset: mid, with: tuple) < 0 { lowOffset = mid + 1 } else { highOffset = mid }
        }
        return start + lowOffset
    }

    /// The row whose sort values and key are `tuple`, or `nil`.
    ///
    /// - Complexity: O(log *n*).
    func find(_ tuple: [DatabaseValue]) -> Int? {
        let index = lowerBound(tuple)
        guard index < count, compare(row: index, with: tuple) == 0,
              let key = tuple.last, columns[columns.count - 1][index] == key else { return nil }
        return index
    }
}
