
/// What a ``FetchedSetController`` follows: the rows of a table that match
/// a predicate, unordered.
///
/// ```swift
/// SetRequest(table: "message", predicate: "unread = ? AND folder = ?", arguments: [.integer(1), .text("inbox")])
/// ```
public struct SetRequest: Hashable, Sendable {
    /// The table (or view), by name. For a table, commits are followed row
    /// by row; for a view, or a predicate that reads other tables, a
    /// commit re-fetches.
    public var table: String
    /// The column that identifies a row (the primary key, or `rowid`).
    public var keyColumn: String
    /// An SQL condition rows must meet, or `nil` for all rows.
    public var predicate: String?
    /// The values bound to the predicate's parameters, in order.
    public var arguments: [DatabaseValue]

    /// Creates a request.
    public init(table: String, keyColumn: String = "id", predicate: String? = nil, arguments: [DatabaseValue] = []) {
        self.table = table
        self.keyColumn = keyColumn
        self.predicate = predicate
        self.arguments = arguments
    }

    /// Every matching row.
    package var query: RecordQuery {
        RecordQuery(leading: [quotedIdentifier(keyColumn)], table: table, keyColumn: keyColumn, predicate: predicate, arguments: arguments, sortKeys: nil)
    }

    /// The matching row with a key, which is bound after the predicate's
    /// arguments: the SQL ends in `<key> = ?` (a reader of several keys
    /// makes it `<key> IN (?, …)`).
    package var rowQuery: RecordQuery {
        var query = RecordQuery(leading: [quotedIdentifier(keyColumn)], table: table, keyColumn: keyColumn, predicate: predicate, arguments: arguments, sortKeys: nil)
        query.sql += (predicate == nil ? " WHERE " : " AND ") + "\(quotedIdentifier(keyColumn)) = ?"
        return query
    }
}
