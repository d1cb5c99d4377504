import TesseraLiveProtocol
import TesseraResults
import TesseraSQLite

/// An edit a client asked for, checked by the hub, for a backend to write
/// in one transaction (see ``ServeBackend/write(_:request:)``).
package enum ServeEdit: Sendable, Hashable {
    /// Moves the item `id` to position `to` of its section, renumbering the
    /// order column (the list is sorted by it).
    case move(id: String, to: Int)
    /// Sets the item's title.
    case rename(id: String, title: String)
    /// Deletes every item of `ids` (each once), or none.
    case delete(ids: [String])
    /// Inserts an item titled `title` at the end of the section whose
    /// value is `section` (`nil` without a section column).
    case add(title: String, section: DatabaseValue?)
}

/// A database the hub serves other than an SQLite file: it checks the
/// table, makes the hub's controller (which follows every commit) and
/// writes the clients' edits. TesseraLivePostgres's
/// `PostgresServeBackend` is one.
///
/// The hub's own SQLite connection reports an edit's commit before its
/// write returns; a backend's commit reaches the controller through its
/// change feed, later. So ``write(_:request:)`` returns only once that
/// commit is there for the controller to take
/// (``TesseraResults/FetchedResultsController/checkForExternalChanges()``),
/// and the editor's `done` still follows the plan of its edit.
package protocol ServeBackend: AnyObject, Sendable {
    /// Where the list is read from, for logs and messages (never a
    /// password).
    var source: String { get }
    /// The table as checked against the database.
    var schema: ServeSchema { get }
    /// Makes the hub's controller over the table, not fetched yet.
    ///
    /// - Throws: ``ServeError`` naming the table.
    func makeController() throws(ServeError) -> FetchedResultsController<ServeRecord>
    /// Writes `edit` in one transaction, off the caller's thread.
    ///
    /// - Returns: The commit, to wait for until the controller can take
    ///   it (``ServeCommit``).
    /// - Throws: ``ServeMessageError`` naming `request`: an id with no row
    ///   (`notFound`), a position out of range, a write the database
    ///   refused (`database`). Nothing is written then.
    func write(_ edit: ServeEdit, request: Int64) async throws(ServeMessageError) -> ServeCommit
}

/// An edit's commit, as its backend follows it: the hub waits (off its
/// actor) until the backend's change feed has handed it over, then checks
/// again on the actor, just before it takes the changes: a fetch the
/// controller made meanwhile (on the actor) may have taken the commit
/// back, to hand over again.
package struct ServeCommit: Sendable {
    /// Whether the controller can take the commit now. Called on the
    /// hub's actor.
    package var isHandedOver: @Sendable () -> Bool
    /// Waits, without blocking a thread, until ``isHandedOver`` holds or
    /// the backend's bound passes; whether it holds.
    package var waitUntilHandedOver: @Sendable () async -> Bool

    /// A commit.
    package init(isHandedOver: @escaping @Sendable () -> Bool, waitUntilHandedOver: @escaping @Sendable () async -> Bool) {
        self.isHandedOver = isHandedOver
        self.waitUntilHandedOver = waitUntilHandedOver
    }
}
