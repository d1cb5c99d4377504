/// A SELECT a controller of the family runs: leading columns of its own
/// (the key first), then every column of the table, which become the
/// record's ``Row``.
package struct RecordQuery {
    /// The SQL.
    package var sql: String
    /// The values bound to its parameters, in order.
    package var arguments: [DatabaseValue]
    /// How many columns come before the table's: the first is the key.
    package var leadingColumns: Int

    /// `SELECT <leading>, * FROM "<table>" WHERE (<predicate>) ORDER BY <keys>, <key>`.
    package init(leading: [String], table: String, keyColumn: String, predicate: String?, arguments: [DatabaseValue], sortKeys: [SortKey]?) {
        var text = "SELECT " + leading.enumerated().map { "\($1) AS tessera_\($0)" }.joined(separator: ", ")
        text += ", * FROM \(quotedIdentifier(table))"
        text += whereClause(predicate)
        if let sortKeys {
            let order = sortKeys.map(\.sql) + ["\(quotedIdentifier(keyColumn)) ASC"]
            text += " ORDER BY " + order.joined(separator: ", ")
        }
        sql = text
        self.arguments = arguments
        leadingColumns = leading.count
    }
}
