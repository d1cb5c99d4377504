
/// A row of a fetch request's result, as a record decodes it.
public struct Row: Sendable {
    /// The column names, in order.
    public let columnNames: [String]
    /// The values, in column order.
    public package(set) var values: [DatabaseValue]

    /// A row with the given columns and values (as many of each).
    package init(columnNames: [String], values: [DatabaseValue]) {
        self.columnNames = columnNames
        self.values = values
    }

    /// The value of a named column (NULL when there is no such column).
    /// The name is matched byte for byte, with case: a table may hold
    /// columns whose names Swift's `==` takes as one (`café` with a
    /// precomposed `é`, and with `e` and a combining accent), and each is
    /// its own.
    ///
    /// - Complexity: O(*c*) for *c* columns.
    public subscript(_ column: String) -> DatabaseValue {
        columnNames.firstIndex { $0.utf8.elementsEqual(column.utf8) }.map { values[$0] } ?? .null
    }

    /// The value of a column by position (NULL when there is no such
    /// column). Position 0 is the first column of the table or view.
    public subscript(_ index: Int) -> DatabaseValue {
        values.indices.contains(index) ? values[index] : .null
    }
}

/// A type made from a row, identified by its key and compared for content
/// with `==`.
public protocol FetchableRecord: Identifiable, Equatable, Sendable {
    /// Makes a record from a row.
    init(row: Row) throws
}
