
/// A request's reads with the rows a change carried (see
/// ``CommittedChanges/rowsAfter``) in front: a read by key answers from
/// those rows; every other read goes to the store.
package struct OverlayRowReader: RowReader {
    /// The store's reads.
    package let base: any RowReader
    /// The rows the change carried.
    package let rows: CommittedChanges.RowsAfter

    /// The reads of `base`, with `rows` answering reads by key.
    package init(base: any RowReader, rows: CommittedChanges.RowsAfter) {
        self.base = base
        self.rows = rows
    }

    package var readTables: Set<String> { base.readTables }
    package var patchPlan: PatchPlan? { base.patchPlan }
    package var keysAreUnique: Bool { base.keysAreUnique }
    package var keyOrdering: any SortOrdering { base.keyOrdering }

    package func readAll(_ body: (_ leading: any LeadingValues, _ row: Row) throws(ResultsError) -> Void) throws(ResultsError) {
        try base.readAll(body)
    }

    package func readTuples(_ body: (_ leading: any LeadingValues, _ tuple: Row) throws(ResultsError) -> Void) throws(ResultsError) {
        try base.readTuples(body)
    }

    /// The carried rows of `keys`; a key the change did not carry has no
    /// row after it.
    ///
    /// - Complexity: O(*k*) for *k* keys.
    package func readRows(keys: [DatabaseValue], _ body: (_ leading: any LeadingValues, _ row: Row) throws(ResultsError) -> Void) throws(ResultsError) {
        for key in keys {
            guard let found = rows.rows[key] else { continue }
            try body(LeadingArray(values: found.leading), Row(columnNames: rows.columnNames, values: found.values))
        }
    }
}

/// Leading values held in an array.
package struct LeadingArray: LeadingValues {
    /// The values, in order.
    package var values: [DatabaseValue]

    /// Leading values.
    package init(values: [DatabaseValue]) {
        self.values = values
    }

    /// The value at `index`, or NULL past the end.
    package func value(at index: Int) -> DatabaseValue {
        values.indices.contains(index) ? values[index] : .null
    }
}
