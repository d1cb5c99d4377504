import TesseraResultsCore

/// What a tool asks of a database before it follows a table: the tables
/// it has, their columns, and whether the server can follow commits.
extension PostgresStore {
    /// The tables, partitioned tables, views and materialized views a
    /// name on the search path reaches (the system schemas left out), in
    /// name order.
    ///
    /// - Throws: ``PostgresStoreError`` when the server cannot be asked.
    /// - Complexity: One query.
    package func relationNames() throws(PostgresStoreError) -> [String] {
        try withSession { session throws(PostgresStoreError) in
            try session.query(
                """
                SELECT c.relname::text FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
                WHERE c.relkind IN ('r', 'p', 'v', 'm') AND pg_table_is_visible(c.oid)
                  AND n.nspname NOT IN ('pg_catalog', 'information_schema') AND n.nspname NOT LIKE 'pg_toast%'
                ORDER BY 1
                """,
                request: "list the tables of \(endpoint)"
            ).rows.compactMap { $0.first?.string }
        }
    }

    /// The columns of the relation `name` reaches (an exact name, as a
    /// quoted identifier would), in table order; `nil` when there is none.
    ///
    /// - Throws: ``PostgresStoreError`` when the server cannot be asked.
    /// - Complexity: Two queries.
    package func columnNames(ofRelation name: String) throws(PostgresStoreError) -> [String]? {
        try withSession { session throws(PostgresStoreError) in
            try PostgresRelation.load(name, in: session)?.columns.map(\.name)
        }
    }

    /// The server's `wal_level` (`logical` is the one that lets a store
    /// follow commits).
    ///
    /// - Throws: ``PostgresStoreError`` when the server cannot be asked.
    package func walLevel() throws(PostgresStoreError) -> String {
        try withSession { session throws(PostgresStoreError) in
            try session.query("SHOW wal_level", request: "read wal_level").rows.first?.first?.string ?? ""
        }
    }

    /// Runs `body` with a session of the store's pool, given back after.
    private func withSession<T>(_ body: (PostgresSession) throws(PostgresStoreError) -> T) throws(PostgresStoreError) -> T {
        let session = try takeSession()
        do {
            let value = try body(session)
            giveBack(session)
            return value
        } catch {
            giveBack(session)
            throw error
        }
    }
}
