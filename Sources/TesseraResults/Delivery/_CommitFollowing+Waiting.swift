extension _CommitFollowing {
    /// Takes the commits that waited for the controller, and reports them:
    /// what a controller with no home does over a store that follows
    /// commits in the background.
    func takeWaiting(isolation: isolated (any Actor)?) throws(ResultsError) -> Bool {
        guard delivery.hasWaiting else { return false }
        return try store.withReader(isolation: isolation) { reader throws(ResultsError) -> Bool in
            guard let waiting = delivery.takeWaiting() else { return false }
            applyWaiting(waiting, from: reader)
            return true
        }
    }

    /// Applies changes that waited, taken by a call of the controller's
    /// user. A failure (which `apply` reports) leaves a fetch waiting, made
    /// at the next such call: the controller catches up once the cause is
    /// gone, even when no commit follows.
    func applyWaiting(_ changes: CommittedChanges, from reader: any StoreReader) {
        apply(changes, from: reader)
        if lastError != nil { delivery.deliverLater(.refetch) }
    }
}

extension FetchedSetController {
    /// Reports the commits that waited for this controller: a controller
    /// fetched outside any actor, over a store that follows commits in the
    /// background (PostgreSQL), takes them here (one with an actor home
    /// takes them on its actor by itself; over SQLite there are none).
    ///
    /// - Returns: Whether commits waited.
    /// - Throws: ``ResultsError`` when the store cannot be read.
    @discardableResult
    public func deliverWaitingChanges(isolation: isolated (any Actor)? = #isolation) throws(ResultsError) -> Bool {
        try takeWaiting(isolation: isolation)
    }
}

extension RelationalResultsController {
    /// Reports the commits that waited for this controller: a controller
    /// fetched outside any actor, over a store that follows commits in the
    /// background (PostgreSQL), takes them here (one with an actor home
    /// takes them on its actor by itself; over SQLite there are none).
    ///
    /// - Returns: Whether commits waited.
    /// - Throws: ``ResultsError`` when the store cannot be read.
    @discardableResult
    public func deliverWaitingChanges(isolation: isolated (any Actor)? = #isolation) throws(ResultsError) -> Bool {
        try takeWaiting(isolation: isolation)
    }
}

extension FetchedResultsController {
    /// Reports the commits that waited for this controller: a controller
    /// fetched outside any actor, over a store that follows commits in the
    /// background (PostgreSQL), takes them here (one with an actor home
    /// takes them on its actor by itself; over SQLite there are none).
    /// ``checkForExternalChanges(isolation:)`` takes them too.
    ///
    /// - Returns: Whether commits waited.
    /// - Throws: ``ResultsError`` when the store cannot be read.
    @discardableResult
    public func deliverWaitingChanges(isolation: isolated (any Actor)? = #isolation) throws(ResultsError) -> Bool {
        try takeWaiting(isolation: isolation)
    }
}
