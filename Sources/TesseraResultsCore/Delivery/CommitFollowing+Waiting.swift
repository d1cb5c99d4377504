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
    /// Reports the commits that wait for this controller, at once.
    ///
    /// A commit waits when the controller cannot take it where it was
    /// made without being touched from outside its home (the actor that
    /// called `performFetch()`):
    /// - **Over SQLite, with an actor home**: a commit made on another
    ///   thread, task or actor (a detached task, a nonisolated `async`
    ///   function), and one made by a nonisolated synchronous helper called
    ///   from a home other than the main actor (Swift gives such a helper
    ///   no isolation, and no way to ask where it runs). A commit made by
    ///   code running at home never waits: code isolated to the home
    ///   actor, and, when the home is the main actor, any code on the main
    ///   actor, nonisolated helpers included (top-level code is on the main
    ///   actor). It is reported before the write returns. A controller
    ///   with no home takes every commit at once.
    /// - **Over PostgreSQL**: every commit (the store finds it in the
    ///   background).
    ///
    /// What waits is merged into one report, which a job on the home actor
    /// delivers when that actor is next free: for code running on it, at
    /// its next suspension (`await`). Call this method to take it before
    /// then (in a synchronous stretch of code on the home actor, say). A
    /// controller with no home has no job: over PostgreSQL, it receives
    /// nothing until this method (or another call that takes what waits)
    /// runs.
    ///
    /// ```swift
    /// // In a method of an actor of yours, the controller's home:
    /// try insert(photo, into: connection)     // a nonisolated helper: the report waits
    /// try controller.deliverWaitingChanges()  // reported here, not at the next `await`
    /// ```
    ///
    /// - Returns: Whether commits waited.
    /// - Throws: ``ResultsError`` when the store cannot be read.
    /// - Complexity: as applying the commits that waited.
    @discardableResult
    public func deliverWaitingChanges(isolation: isolated (any Actor)? = #isolation) throws(ResultsError) -> Bool {
        try takeWaiting(isolation: isolation)
    }
}

extension RelationalResultsController {
    /// Reports the commits that wait for this controller, at once.
    ///
    /// A commit waits when the controller cannot take it where it was
    /// made without being touched from outside its home (the actor that
    /// called `performFetch()`):
    /// - **Over SQLite, with an actor home**: a commit made on another
    ///   thread, task or actor (a detached task, a nonisolated `async`
    ///   function), and one made by a nonisolated synchronous helper called
    ///   from a home other than the main actor (Swift gives such a helper
    ///   no isolation, and no way to ask where it runs). A commit made by
    ///   code running at home never waits: code isolated to the home
    ///   actor, and, when the home is the main actor, any code on the main
    ///   actor, nonisolated helpers included (top-level code is on the main
    ///   actor). It is reported before the write returns. A controller
    ///   with no home takes every commit at once.
    /// - **Over PostgreSQL**: every commit (the store finds it in the
    ///   background).
    ///
    /// What waits is merged into one report, which a job on the home actor
    /// delivers when that actor is next free: for code running on it, at
    /// its next suspension (`await`). Call this method to take it before
    /// then (in a synchronous stretch of code on the home actor, say). A
    /// controller with no home has no job: over PostgreSQL, it receives
    /// nothing until this method (or another call that takes what waits)
    /// runs.
    ///
    /// ```swift
    /// // In a method of an actor of yours, the controller's home:
    /// try insert(photo, into: connection)     // a nonisolated helper: the report waits
    /// try controller.deliverWaitingChanges()  // reported here, not at the next `await`
    /// ```
    ///
    /// - Returns: Whether commits waited.
    /// - Throws: ``ResultsError`` when the store cannot be read.
    /// - Complexity: as applying the commits that waited.
    @discardableResult
    public func deliverWaitingChanges(isolation: isolated (any Actor)? = #isolation) throws(ResultsError) -> Bool {
        try takeWaiting(isolation: isolation)
    }
}

extension FetchedResultsController {
    /// Reports the commits that wait for this controller, at once.
    ///
    /// A commit waits when the controller cannot take it where it was
    /// made without being touched from outside its home (the actor that
    /// called `performFetch()`):
    /// - **Over SQLite, with an actor home**: a commit made on another
    ///   thread, task or actor (a detached task, a nonisolated `async`
    ///   function), and one made by a nonisolated synchronous helper called
    ///   from a home other than the main actor (Swift gives such a helper
    ///   no isolation, and no way to ask where it runs). A commit made by
    ///   code running at home never waits: code isolated to the home
    ///   actor, and, when the home is the main actor, any code on the main
    ///   actor, nonisolated helpers included (top-level code is on the main
    ///   actor). It is reported before the write returns. A controller
    ///   with no home takes every commit at once.
    /// - **Over PostgreSQL**: every commit (the store finds it in the
    ///   background).
    ///
    /// What waits is merged into one report, which a job on the home actor
    /// delivers when that actor is next free: for code running on it, at
    /// its next suspension (`await`). Call this method to take it before
    /// then (in a synchronous stretch of code on the home actor, say). A
    /// controller with no home has no job: over PostgreSQL, it receives
    /// nothing until this method (or another call that takes what waits)
    /// runs.
    ///
    /// ```swift
    /// // In a method of an actor of yours, the controller's home:
    /// try insert(photo, into: connection)     // a nonisolated helper: the report waits
    /// try controller.deliverWaitingChanges()  // reported here, not at the next `await`
    /// ```
    ///
    /// ``checkForExternalChanges(isolation:)`` takes what waits too, and
    /// also finds other connections' commits over SQLite (which never wait
    /// here: nothing tells the controller of them until it checks).
    ///
    /// - Returns: Whether commits waited.
    /// - Throws: ``ResultsError`` when the store cannot be read.
    /// - Complexity: as applying the commits that waited.
    @discardableResult
    public func deliverWaitingChanges(isolation: isolated (any Actor)? = #isolation) throws(ResultsError) -> Bool {
        try takeWaiting(isolation: isolation)
    }
}
