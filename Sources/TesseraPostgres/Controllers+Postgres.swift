import TesseraResultsCore

extension FetchedResultsController {
    /// A controller of a PostgreSQL database's rows, sorted and grouped
    /// into sections: the same controller, reports and rules as over
    /// SQLite (see ``PostgresStore`` for what follows the commits).
    ///
    /// - Throws: ``TesseraResults/ResultsError`` for a request whose SQL is
    ///   refused before it runs.
    public convenience init(store: PostgresStore, request: FetchRequest) throws(ResultsError) {
        try self.init(store: store as any ResultsStore, request: request)
    }
}

extension FetchedSetController {
    /// A controller of the set of a PostgreSQL table's rows that match a
    /// predicate, unordered, as over SQLite.
    public convenience init(store: PostgresStore, request: SetRequest) {
        self.init(store: store as any ResultsStore, request: request)
    }
}

extension RelationalResultsController {
    /// A controller of a PostgreSQL database's parent rows as sections and
    /// child rows as their items, as over SQLite. Every commit that touches
    /// either table is followed by a fetch.
    public convenience init(store: PostgresStore, parents: ParentRequest, children: ChildRequest) {
        self.init(store: store as any ResultsStore, parents: parents, children: children)
    }
}
