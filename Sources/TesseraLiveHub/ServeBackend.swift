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
    /// Writes `edit` in one transaction, off the caller's thread, and
    /// waits (without blocking a thread) until the controller can take its
    /// commit.
    ///
    /// - Returns: false when the commit was made but the controller could
    ///   not be shown to have it within the backend's bound (the plan then
    ///   comes later, with the next change the feed hands over).
    /// - Throws: ``ServeMessageError`` naming `request`: an id with no row
    ///   (`notFound`), a position out of range, a write the database
    ///   refused (`database`). Nothing is written then.
    func write(_ edit: ServeEdit, request: Int64) async throws(ServeMessageError) -> Bool
}
