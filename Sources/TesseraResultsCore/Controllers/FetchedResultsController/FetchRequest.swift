
/// How rows are compared as text in a sort key.
public enum Collation: String, Hashable, Sendable {
    /// Byte by byte (SQLite's default).
    case binary = "BINARY"
    /// Ignoring ASCII case.
    case nocase = "NOCASE"
    /// Ignoring trailing spaces.
    case rtrim = "RTRIM"
}

/// One key a result is sorted by: a column or an SQL expression.
public struct SortKey: Hashable, Sendable {
    /// The column name or SQL expression: one expression, which may hold
    /// comments but no comma outside parentheses and no `;` (a request
    /// with such a key is refused with
    /// ``ResultsError/invalidSQL(part:sql:problem:)``).
    public var expression: String
    /// Ascending (the default) or descending.
    public var ascending: Bool
    /// The collation for text, or `nil` for the column's own.
    public var collation: Collation?
    /// Where NULLs go: first (`true`), last (`false`), or the store's
    /// default (`nil`): SQLite puts them first in ascending order,
    /// PostgreSQL last.
    public var nullsFirst: Bool?

    /// Creates a sort key.
    public init(_ expression: String, ascending: Bool = true, collation: Collation? = nil) {
        self.expression = expression
        self.ascending = ascending
        self.collation = collation
    }

    /// Creates a sort key that says where NULLs go (`NULLS FIRST` or
    /// `NULLS LAST`).
    public init(_ expression: String, ascending: Bool = true, collation: Collation? = nil, nullsFirst: Bool) {
        self.init(expression, ascending: ascending, collation: collation)
        self.nullsFirst = nullsFirst
    }

    /// `NULLS FIRST`, `NULLS LAST` or nothing, with a leading space.
    package var nullsSQL: String {
        nullsFirst.map { $0 ? " NULLS FIRST" : " NULLS LAST" } ?? ""
    }

    package var sql: String {
        var text = SQLFragment.spliced(expression)
        if let collation { text += " COLLATE \(collation.rawValue)" }
        return text + (ascending ? " ASC" : " DESC") + nullsSQL
    }
}

/// The SQL a request's user-written parts may hold: each predicate is one
/// condition, each sort or section key one expression, a source one
/// SELECT, none reaching past itself into the statement around it.
///
/// - Throws: ``ResultsError/invalidSQL(part:sql:problem:)`` for the first
///   that does not.
package func checkFragments(predicate: String?, sortKeys: [SortKey]?, sectionKey: String? = nil, query: String? = nil) throws(ResultsError) {
    var parts: [(String, String, SQLFragment.Kind)] = []
    if let query { parts.append(("query", query, .query)) }
    if let sectionKey { parts.append(("section key", sectionKey, .expression)) }
    for key in sortKeys ?? [] { parts.append(("sort key", key.expression, .expression)) }
    if let predicate { parts.append(("predicate", predicate, .condition)) }
    for (part, sql, kind) in parts {
        if let problem = SQLFragment.problem(in: sql, as: kind) {
            throw .invalidSQL(part: part, sql: sql, problem: problem)
        }
    }
}

/// `WHERE (<predicate>)`, the predicate closed off so that nothing in it
/// (a `--` comment) reaches the rest of the statement.
package func whereClause(_ predicate: String?) -> String {
    predicate.map { " WHERE (\(SQLFragment.spliced($0)))" } ?? ""
}

/// What a results controller fetches: the rows of a table or view that match
/// a predicate, sorted, optionally grouped into sections.
///
/// ```swift
/// let request = FetchRequest(
///     table: "photo",
///     predicate: "album IS NOT NULL AND date >= ?", arguments: [.integer(2020)],
///     sortKeys: [SortKey("album"), SortKey("date", ascending: false)],
///     sectionKey: "album"
/// )
/// ```
///
/// The key column is appended as the last sort key, so the order is total.
/// Values are always bound, never spliced into the SQL.
public struct FetchRequest: Hashable, Sendable {
    /// Where a request's rows come from.
    public enum Source: Hashable, Sendable {
        /// A table or view, by name.
        case table(String)
        /// A SELECT statement of your own; its `?` parameters take the
        /// first arguments, before the predicate's. One statement: a `;`
        /// followed by more SQL is refused.
        case query(String)
    }

    /// Where the rows come from.
    public var source: Source
    /// The column that identifies a row (the primary key).
    public var keyColumn: String
    /// An SQL condition rows must meet, or `nil` for all rows.
    ///
    /// It stays one condition: comments are fine (a `--` comment ends with
    /// the predicate), but a `;`, a parenthesis it did not open, or a quote
    /// or `/*` comment left open would reach into the rest of the statement,
    /// and the controller refuses the request with
    /// ``ResultsError/invalidSQL(part:sql:problem:)``.
    public var predicate: String?
    /// The values bound to the predicate's parameters, in order.
    public var arguments: [DatabaseValue]
    /// The keys rows are sorted by, before the key column.
    public var sortKeys: [SortKey]
    /// The column or expression rows are grouped into sections by, or `nil`
    /// for a single section. The first sort key must be this expression.
    /// Like a sort key, it is one expression (no comma outside parentheses,
    /// no `;`).
    public var sectionKey: String?
    /// How many records a ``FetchedResultsController`` reads at a time, or
    /// 0 (the default) to read every record when it fetches.
    ///
    /// Above 0 the result is *lazy*, as Core Data's `fetchBatchSize`: a
    /// fetch reads only each row's section value, sort values and key
    /// (a few bytes a row), and a record is read from the store, with the
    /// `fetchBatchSize` rows around it, the first time it is asked for;
    /// the records read are kept in a bounded cache. Reports stay exact.
    /// The other controllers read every record whatever it says. See
    /// <doc:LargeLists>.
    public var fetchBatchSize: Int = 0

    /// Creates a request.
    public init(
        table: String,
        keyColumn: String = "id",
        predicate: String? = nil,
        arguments: [DatabaseValue] = [],
        sortKeys: [SortKey] = [],
        sectionKey: String? = nil
    ) {
        self.init(source: .table(table), keyColumn: keyColumn, predicate: predicate, arguments: arguments, sortKeys: sortKeys, sectionKey: sectionKey)
    }

    /// Creates a request over your own SELECT, which must have a column
    /// named `keyColumn` that is unique in its result. The predicate, sort
    /// keys and section key refer to the SELECT's column names.
    ///
    /// ```swift
    /// FetchRequest(
    ///     query: "SELECT photo.id, photo.title, album.name AS album FROM photo JOIN album ON album.id = photo.album_id",
    ///     sortKeys: [SortKey("album"), SortKey("title")], sectionKey: "album"
    /// )
    /// ```
    public init(
        query: String,
        keyColumn: String = "id",
        predicate: String? = nil,
        arguments: [DatabaseValue] = [],
        sortKeys: [SortKey] = [],
        sectionKey: String? = nil
    ) {
        self.init(source: .query(query), keyColumn: keyColumn, predicate: predicate, arguments: arguments, sortKeys: sortKeys, sectionKey: sectionKey)
    }

    /// Creates a request from a source.
    public init(
        source: Source,
        keyColumn: String = "id",
        predicate: String? = nil,
        arguments: [DatabaseValue] = [],
        sortKeys: [SortKey] = [],
        sectionKey: String? = nil
    ) {
        self.source = source
        self.keyColumn = keyColumn
        self.predicate = predicate
        self.arguments = arguments
        self.sortKeys = sortKeys
        self.sectionKey = sectionKey
    }

    /// Checks that the request's SQL stays within its parts and that it can
    /// make sections.
    ///
    /// - Throws: ``ResultsError/invalidSQL(part:sql:problem:)`` or
    ///   ``ResultsError/sectionKeyNotFirstSortKey(sectionKey:firstSortKey:)``.
    package func validate() throws(ResultsError) {
        var query: String?
        if case let .query(text) = source { query = text }
        try checkFragments(predicate: predicate, sortKeys: sortKeys, sectionKey: sectionKey, query: query)
        guard let sectionKey else { return }
        // By bytes, as SQLite reads them: "café" written with a combining
        // accent is another column to SQLite, though equal to Swift.
        guard let first = sortKeys.first?.expression, first.utf8.elementsEqual(sectionKey.utf8) else {
            throw .sectionKeyNotFirstSortKey(sectionKey: sectionKey, firstSortKey: sortKeys.first?.expression)
        }
    }

    /// The SELECT and FROM clauses: the section value, the key, then every
    /// column.
    package var selectClause: String {
        "SELECT \(sectionKey.map(SQLFragment.spliced) ?? "NULL") AS tessera_section, \(quotedIdentifier(keyColumn)) AS tessera_key, * FROM \(fromClause)"
    }

    /// What the request reads: its table, or its query as a subquery.
    package var fromClause: String {
        switch source {
        case let .table(table): quotedIdentifier(table)
        case let .query(query): "(\(SQLFragment.spliced(query)))"
        }
    }

    /// The ORDER BY list: the sort keys, then the key.
    package var orderList: String {
        (sortKeys.map { $0.sql } + ["\(quotedIdentifier(keyColumn)) ASC"]).joined(separator: ", ")
    }

    /// The whole query's rows without their records: the section value, the
    /// key, then each sort key's value and the key again (a lazy fetch's
    /// tuples), in the same order.
    package var tupleSQL: String {
        let key = quotedIdentifier(keyColumn)
        var columns = ["\(sectionKey.map(SQLFragment.spliced) ?? "NULL") AS tessera_section", "\(key) AS tessera_key"]
        // A sort key with a parameter cannot be selected before the
        // predicate (its parameters would be bound out of order); such a
        // key is an expression no patch serves, so its values are not
        // needed: only the key is.
        if !sortKeys.contains(where: { SQLFragment.mayHoldParameter($0.expression) }) {
            columns += sortKeys.map { SQLFragment.spliced($0.expression) }
        }
        columns.append(key)
        return "SELECT " + columns.joined(separator: ", ") + " FROM \(fromClause)" + whereClause(predicate) + " ORDER BY " + orderList
    }

    /// The whole query, sorted.
    package var sql: String {
        selectClause + whereClause(predicate) + " ORDER BY " + orderList
    }

}
