import TesseraResultsTestSupport
import TesseraSQLite

// A database with its tables, in one transaction: the set-up the controller
// suites share, over a store of the matrix or over SQLite in memory.

extension ResultsStoreFixture {
    /// A new database of this store with `statements` run in one transaction.
    ///
    /// - Complexity: The cost of the statements.
    func makeDatabase(executing statements: [String]) throws -> TestDatabase {
        let database = try makeDatabase()
        try database.write { db in
            for sql in statements { try db.execute(sql) }
        }
        return database
    }
}

extension Connection {
    /// A new SQLite database in memory with `statements` run in one
    /// transaction.
    ///
    /// - Complexity: The cost of the statements.
    static func inMemory(executing statements: [String]) throws -> Connection {
        let connection = try Connection(path: ":memory:")
        try connection.write { db in
            for sql in statements { try db.execute(sql) }
        }
        return connection
    }
}
