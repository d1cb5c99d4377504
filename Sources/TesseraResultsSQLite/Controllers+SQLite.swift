import TesseraResultsCore
import TesseraSQLite

// The SQLite side of the controllers: each one made over a connection, and
// the connection it reads. The controllers themselves are store-independent
// (TesseraResultsCore).

extension FetchedResultsController {
    /// Creates a controller; nothing is fetched until
    /// ``performFetch(isolation:)``.
    ///
    /// - Throws: ``ResultsError/sectionKeyNotFirstSortKey(sectionKey:firstSortKey:)``
    ///   when the section key is not the first sort key, or
    ///   ``ResultsError/invalidSQL(part:sql:problem:)``.
    public convenience init(connection: Connection, request: FetchRequest) throws(ResultsError) {
        try self.init(store: SQLiteResultsStore(connection: connection), request: request)
    }

    /// The connection it reads and observes.
    public var connection: Connection {
        guard let sqlite = store as? SQLiteResultsStore else { preconditionFailure("this controller reads a store other than SQLite") }
        return sqlite.connection
    }
}

extension FetchedSetController {
    /// Creates a controller; nothing is fetched until
    /// ``performFetch(isolation:)``.
    public convenience init(connection: Connection, request: SetRequest) {
        self.init(store: SQLiteResultsStore(connection: connection), request: request)
    }

    /// The connection it reads and observes.
    public var connection: Connection {
        guard let sqlite = store as? SQLiteResultsStore else { preconditionFailure("this controller reads a store other than SQLite") }
        return sqlite.connection
    }
}

extension RelationalResultsController {
    /// Creates a controller; nothing is fetched until
    /// ``performFetch(isolation:)``.
    public convenience init(connection: Connection, parents: ParentRequest, children: ChildRequest) {
        self.init(store: SQLiteResultsStore(connection: connection), parents: parents, children: children)
    }

    /// The connection it reads and observes.
    public var connection: Connection {
        guard let sqlite = store as? SQLiteResultsStore else { preconditionFailure("this controller reads a store other than SQLite") }
        return sqlite.connection
    }
}
