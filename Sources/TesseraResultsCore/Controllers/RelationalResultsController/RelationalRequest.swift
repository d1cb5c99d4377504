
/// The parent rows of a ``RelationalResultsController``: one section per
/// row of a table that matches a predicate, sorted.
///
/// ```swift
/// ParentRequest(table: "album", predicate: "archived = ?", arguments: [.integer(0)], sortKeys: [SortKey("name")])
/// ```
///
/// The key column is appended as the last sort key, so the order is total.
public struct ParentRequest: Hashable, Sendable {
    /// The table (or view), by name.
    public var table: String
    /// The column that identifies a row, which children's foreign keys
    /// name.
    public var keyColumn: String
    /// An SQL condition rows must meet, or `nil` for all rows.
    public var predicate: String?
    /// The values bound to the predicate's parameters, in order.
    public var arguments: [DatabaseValue]
    /// The keys sections are sorted by, before the key column.
    public var sortKeys: [SortKey]

    /// Creates a parent request.
    public init(table: String, keyColumn: String = "id", predicate: String? = nil, arguments: [DatabaseValue] = [], sortKeys: [SortKey] = []) {
        self.table = table
        self.keyColumn = keyColumn
        self.predicate = predicate
        self.arguments = arguments
        self.sortKeys = sortKeys
    }

    package var query: RecordQuery {
        RecordQuery(leading: [quotedIdentifier(keyColumn)], table: table, keyColumn: keyColumn, predicate: predicate, arguments: arguments, sortKeys: sortKeys)
    }
}

/// The child rows of a ``RelationalResultsController``: the items of the
/// section of the parent their foreign key names, sorted within it.
///
/// ```swift
/// ChildRequest(table: "photo", foreignKeyColumn: "album_id", sortKeys: [SortKey("date", ascending: false)])
/// ```
///
/// The key column is appended as the last sort key, so the order is total.
public struct ChildRequest: Hashable, Sendable {
    /// The table (or view), by name.
    public var table: String
    /// The column that identifies a row.
    public var keyColumn: String
    /// The column holding the parent's key. A child whose foreign key is
    /// NULL or names no parent of the result is not shown. Values are
    /// matched as stored: give both columns the same type (an integer key
    /// and an INTEGER foreign key, for instance).
    public var foreignKeyColumn: String
    /// An SQL condition rows must meet, or `nil` for all rows.
    public var predicate: String?
    /// The values bound to the predicate's parameters, in order.
    public var arguments: [DatabaseValue]
    /// The keys items are sorted by within a section, before the key
    /// column.
    public var sortKeys: [SortKey]

    /// Creates a child request.
    public init(table: String, keyColumn: String = "id", foreignKeyColumn: String, predicate: String? = nil, arguments: [DatabaseValue] = [], sortKeys: [SortKey] = []) {
        self.table = table
        self.keyColumn = keyColumn
        self.foreignKeyColumn = foreignKeyColumn
        self.predicate = predicate
        self.arguments = arguments
        self.sortKeys = sortKeys
    }

    package var query: RecordQuery {
        RecordQuery(
            leading: [quotedIdentifier(keyColumn), quotedIdentifier(foreignKeyColumn)],
            table: table, keyColumn: keyColumn, predicate: predicate, arguments: arguments, sortKeys: sortKeys
        )
    }
}
