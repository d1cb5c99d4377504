import TesseraResultsCore
/// Follows the changes committed through a ``Database``: register one with
/// ``Database/add(transactionObserver:)`` (the results controllers register
/// observers of their own this way).
///
/// An observer is called on the thread that commits, inside the
/// connection's lock; ``Database/isolations`` says which actors that
/// thread runs, so an observer that belongs to an actor can tell whether it
/// may act at once or must hand the work to its actor.
///
/// Changes arrive as they happen (also for work a rollback will undo);
/// ``databaseDidCommit(_:)`` comes once the transaction has committed — the
/// observer may read the database then — and ``databaseDidRollback(_:)``
/// when it rolled back.
///
/// Observers hear of a commit one after another, never two at once. Work
/// an observer does while it hears of a commit (a delegate it calls that
/// writes) is held back: its changes and its commit reach every observer
/// once the others have heard of the first commit. An observer still
/// waiting for its notice when such work commits is given those changes
/// too and hears of both commits in one ``databaseDidCommit(_:)``; such
/// work that rolls back is never shown to it.
public protocol TransactionObserver: AnyObject {
    /// The tables whose changes the observer wants. Deletes of all rows are
    /// reported row by row: every ``Database`` installs the pre-update hook
    /// when it opens, and SQLite does not take its truncate shortcut when
    /// there is one (`DELETE` without `WHERE` deletes row by row).
    var observedTables: Set<String> { get }
    /// A row of an observed table is about to change.
    func database(_ database: Database, willChange change: Database.PreUpdate)
    /// The transaction that made the changes committed.
    func databaseDidCommit(_ database: Database)
    /// The transaction rolled back: forget its changes. Called from inside
    /// the rollback, where the database must not be used.
    func databaseDidRollback(_ database: Database)
    /// A rollback is over and the database is out of the transaction: the
    /// observer may read it again (an observer that read inside the
    /// transaction saw rows that are gone now). The default does nothing.
    func databaseDidEndRollback(_ database: Database)
}

extension TransactionObserver {
    /// Nothing.
    public func databaseDidEndRollback(_ database: Database) {}
}
