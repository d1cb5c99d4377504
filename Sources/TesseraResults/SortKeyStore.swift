import TesseraSQLite

/// One column of kept sort values: 8 bytes a row while every value is an
/// integer, a `DatabaseValue` a row once one is not.
struct _KeyColumn: Sendable {
    enum Storage: Sendable {
        case integers(_ChunkedArray<Int64>)
        case values(_ChunkedArray<DatabaseValue>)
    }

    private(set) var storage = Storage.integers(_ChunkedArray())

    subscript(index: Int) -> DatabaseValue {
        switch storage {
        case let .integers(values): return .integer(values[index])
        case let .values(values): return values[index]
        }
    }

    /// Bytes the kept values take (not counting text and blob contents).
    var byteCount: Int {
        switch storage {
        case let .integers(values): return values.count * MemoryLayout<Int64>.stride
        case let .values(values): return values.count * MemoryLayout<DatabaseValue>.stride
        }
    }

    /// Switches to general storage for a value that is not an integer.
    ///
    /// - Complexity: O(*n*), once per column.
    private mutating func generalize() {
        guard case let .integers(integers) = storage else { return }
        storage = .values(_ChunkedArray(integers.joined().map(DatabaseValue.integer)))
    }

    mutating func append(_ value: DatabaseValue) {
        if case let .integer(x) = value, case var .integers(values) = storage {
            storage = .values(_ChunkedArray())
            values.append(x)
            storage = .integers(values)
            return
        }
        generalize()
        guard case var .values(values) = storage else { return }
        storage = .integers(_ChunkedArray())
        values.append(value)
        storage = .values(values)
    }

    mutating func insert(_ value: DatabaseValue, at index: Int) {
        if case let .integer(x) = value, case var .integers(values) = storage {
            storage = .values(_ChunkedArray())
            values.insert(x, at: index)
            storage = .integers(values)
            return
        }
        generalize()
        guard case var .values(values) = storage else { return }
        storage = .integers(_ChunkedArray())
        values.insert(value, at: index)
        storage = .values(values)
    }

    mutating func remove(at index: Int) {
        switch storage {
        case var .integers(values):
            storage = .values(_ChunkedArray())
            values.remove(at: index)
            storage = .integers(values)
        case var .values(values):
            storage = .integers(_ChunkedArray())
            values.remove(at: index)
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

    var count: Int {
        guard let first = columns.first else { return 0 }
        switch first.storage {
        case let .integers(values): return values.count
        case let .values(values): return values.count
        }
    }

    /// Bytes the kept values take (not counting text and blob contents).
    var byteCount: Int { columns.reduce(0) { $0 + $1.byteCount } }

    mutating func append(_ tuple: [DatabaseValue]) {
        for c in columns.indices { columns[c].append(tuple[c]) }
    }

    mutating func insert(_ tuple: [DatabaseValue], at index: Int) {
        for c in columns.indices { columns[c].insert(tuple[c], at: index) }
    }

    mutating func remove(at index: Int) {
        for c in columns.indices { columns[c].remove(at: index) }
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
        for c in columns.indices {
            let order = compare(columns[c][index], tuple[c], column: c)
            if order != 0 { return order }
        }
        return 0
    }

    /// The first row that does not sort before `tuple`.
    ///
    /// - Complexity: O(log² *n*) value comparisons.
    func lowerBound(_ tuple: [DatabaseValue]) -> Int {
        var low = 0
        var high = count
        while low < high {
            let mid = (low + high) / 2
            if compare(row: mid, with: tuple) < 0 { low = mid + 1 } else { high = mid }
        }
        return low
    }

    /// The row whose sort values and key are `tuple`, or `nil`.
    ///
    /// - Complexity: O(log² *n*).
    func find(_ tuple: [DatabaseValue]) -> Int? {
        let index = lowerBound(tuple)
        guard index < count, compare(row: index, with: tuple) == 0,
              let key = tuple.last, columns[columns.count - 1][index] == key else { return nil }
        return index
    }
}
