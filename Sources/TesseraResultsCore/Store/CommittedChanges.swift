
/// What one committed transaction did to the rows a controller watches, as
/// a change source hands it over: the rows it touched, each with where it
/// was before, or that the controller must fetch again.
///
/// Rolled-back work never makes one. Several transactions that a
/// controller takes together (it was busy when they committed) merge into
/// one value that goes from the state before the first to the state after
/// the last (see ``merge(_:)``).
package struct CommittedChanges: Sendable {
    /// The rows touched, by key: the row's tuple (its sort values, then its
    /// key, as the controller's ``PatchPlan`` lists them) when the first
    /// transaction began, or `nil` when no row of the watched table had
    /// that key then. A change that carries its rows (``rowsAfter``) gives
    /// a tuple only for a row that was in the request's result, so the
    /// controller's result holds every tuple it gives; a merge keeps that
    /// (each key keeps the tuple of the first change that touched it). A
    /// change source asked for keys only (a set controller's) gives `nil`
    /// for every key.
    package var touched: [DatabaseValue: [DatabaseValue]?]
    /// The change cannot be followed row by row (another table changed,
    /// the schema changed, too many rows were touched, a row could not be
    /// located, or the result was read in a transaction that did not
    /// survive whole): the controller fetches again.
    package var mustRefetch: Bool
    /// The touched rows of the request's result as they are after the
    /// transaction, read by the change source itself, or `nil` when the
    /// controller reads them from the store (SQLite: the store's state is
    /// the one just after the commit when the controller takes it). A store
    /// whose controllers take a commit after later ones may have landed
    /// (PostgreSQL) reads them at the commit's own snapshot.
    package var rowsAfter: RowsAfter?
    /// For a change read from a store's change log (see
    /// ``StoreReader/loggedChanges(for:since:limit:)``): every tuple each
    /// touched row had at the start of a logged change, oldest first. The
    /// log is read from a position at or before the result's state, so
    /// the result may hold a row at any of them, or where it is now: the
    /// patch looks for it at each. `nil` for a change source's commit,
    /// whose ``touched`` tuples say exactly where each row was.
    package var loggedTuples: [DatabaseValue: [[DatabaseValue]]]?

    /// Rows read by key, as a ``RowReader`` hands them over.
    package struct RowsAfter: Sendable {
        /// The record's columns.
        package var columnNames: [String]
        /// Each row in the result after the transaction, by key: its
        /// leading values and its record's values. A touched key with no
        /// row is not in the result after.
        package var rows: [DatabaseValue: (leading: [DatabaseValue], values: [DatabaseValue])]

        /// Rows with the given columns.
        package init(columnNames: [String], rows: [DatabaseValue: (leading: [DatabaseValue], values: [DatabaseValue])] = [:]) {
            self.columnNames = columnNames
            self.rows = rows
        }
    }

    /// A change that touched the given rows.
    package init(touched: [DatabaseValue: [DatabaseValue]?] = [:], mustRefetch: Bool = false, rowsAfter: RowsAfter? = nil) {
        self.touched = touched
        self.mustRefetch = mustRefetch
        self.rowsAfter = rowsAfter
    }

    /// A change read from a change log: the rows touched since a position
    /// at or before the result's state, each with every tuple it had
    /// before a logged change (empty for a row that was inserted).
    package init(logged: [DatabaseValue: [[DatabaseValue]]]) {
        self.init(touched: logged.mapValues { $0.first })
        loggedTuples = logged
    }

    /// The reads of the state after the change: `query` itself, or, when
    /// the change carries its rows, those rows in front of it.
    package func reading(_ query: any RowReader) -> any RowReader {
        rowsAfter.map { OverlayRowReader(base: query, rows: $0) } ?? query
    }

    /// A change the controller must fetch again to follow.
    package static var refetch: CommittedChanges { CommittedChanges(mustRefetch: true) }

    /// Whether nothing was touched and nothing must be fetched.
    package var isEmpty: Bool { touched.isEmpty && !mustRefetch }

    /// Adds a later transaction's changes: a row touched by both keeps
    /// where it was before the earlier one, which is where the controller
    /// still has it.
    ///
    /// - Complexity: O(*k*) for the *k* rows the later one touched.
    package mutating func merge(_ later: CommittedChanges) {
        // Rows carried by one and read from the store by the other cannot
        // be told apart: such a pair is fetched again.
        mustRefetch = mustRefetch || later.mustRefetch || (rowsAfter == nil) != (later.rowsAfter == nil)
            || loggedTuples != nil || later.loggedTuples != nil
        guard !mustRefetch else {
            touched = [:]
            rowsAfter = nil
            return
        }
        if var rows = rowsAfter, let laterRows = later.rowsAfter {
            // The later transaction's rows are the rows after both; a row
            // only the earlier one touched is as it left it.
            for key in later.touched.keys { rows.rows[key] = laterRows.rows[key] }
            if !laterRows.columnNames.isEmpty { rows.columnNames = laterRows.columnNames }
            rowsAfter = rows
        }
        for (key, tuple) in later.touched where touched[key] == nil {
            touched[key] = .some(tuple)
        }
    }
}
