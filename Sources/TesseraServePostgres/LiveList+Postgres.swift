import Foundation
import Logging
import TesseraLiveHub
import TesseraLivePostgres
import TesseraResultsCore
import TesseraServe

extension LiveList {
    /// Opens a table of a PostgreSQL database as a live list: the server,
    /// the table and its columns are checked, and the list is fetched.
    /// Nothing is sent until the list runs (``TesseraServe/LiveList/run()``)
    /// and a client connects.
    ///
    /// The list follows every commit to the table, by any connection,
    /// process or machine, through a replication slot of its own (the
    /// server needs `wal_level = logical`); each edit is one transaction,
    /// and its `done` follows its plan. Several applications (or several
    /// processes of one) can serve the same table: each follows the
    /// others' edits as any other commit.
    ///
    /// ```swift
    /// let photos = try LiveList(
    ///     postgres: "postgres://app@127.0.0.1:5432/photos",
    ///     table: "photo",
    ///     columns: LiveList.Columns(section: "album", sort: "position", title: "title", order: "position")
    /// )
    /// ```
    ///
    /// - Parameters:
    ///   - url: `postgres://user[:password]@host[:port]/database`
    ///     (query parameters `sslmode=disable|prefer|require` and
    ///     `connect_timeout=` seconds, either or both).
    ///   - table: The table (not a view): its rows are the list's items.
    ///     It needs a single-column primary key.
    ///   - columns: The columns it is sectioned, sorted, shown and
    ///     reordered by.
    ///   - edits: The edits clients may make.
    ///   - access: Who may open the list and who may edit it.
    ///   - limits: The limits on each client.
    ///   - logger: Where the list logs (see
    ///     ``TesseraServe/LiveList/init(database:table:columns:edits:access:limits:logger:)``).
    /// - Throws: ``TesseraServe/LiveListError`` naming the server (never
    ///   the password), the table (and the tables there are) or the column
    ///   (and the table's columns); a server that cannot follow commits; a
    ///   limit out of its range; an empty edit token.
    /// - Important: The initializer blocks the calling thread until the
    ///   list is fetched. Making its replication slot waits for every
    ///   transaction that holds a transaction ID on the server to end, so
    ///   a long transaction elsewhere holds it up. From async code, call
    ///   ``TesseraServe/LiveList/open(postgres:table:columns:edits:access:limits:logger:)``,
    ///   which waits without holding a thread of Swift's cooperative pool.
    /// - Complexity: O(*n* log *n*) to fetch *n* rows.
    public convenience init(
        postgres url: String, table: String, columns: Columns, edits: Edits = .all, access: Access = Access(), limits: Limits = Limits(),
        logger: Logger = Logger(label: "tessera.live-list")
    ) throws(LiveListError) {
        try Self.check(limits, access)
        let configuration = ServeConfiguration(
            databasePath: url, table: table, sectionColumn: columns.section, sortColumn: columns.sort,
            sortDescending: columns.sortDescending, titleColumn: columns.title, orderColumn: columns.order, allowedEdits: edits.hubEdits,
            logger: logger
        )
        let hub: ServeHub
        do {
            hub = try ServeHub(configuration: configuration, backend: PostgresServeBackend(configuration: configuration, applicationName: "tessera live list"))
        } catch {
            throw LiveListError(error.description)
        }
        self.init(hub: hub, access: ServeAccess(loopbackHostsOnly: access.loopbackHostsOnly, token: access.editToken), limits: limits)
    }

    /// Opens a table of a PostgreSQL database as a live list, from async
    /// code: ``init(postgres:table:columns:edits:access:limits:logger:)``
    /// on a thread of its own, so that no thread of Swift's cooperative
    /// pool waits on the server while the list's replication slot is made
    /// and its rows are fetched.
    ///
    /// ```swift
    /// let photos = try await LiveList.open(
    ///     postgres: "postgres://app@127.0.0.1:5432/photos",
    ///     table: "photo",
    ///     columns: LiveList.Columns(section: "album", sort: "position", title: "title", order: "position")
    /// )
    /// ```
    ///
    /// The work on its thread runs to its end even if the calling task is
    /// cancelled meanwhile (the list is then dropped).
    ///
    /// - Parameters: As for ``init(postgres:table:columns:edits:access:limits:logger:)``.
    /// - Throws: ``TesseraServe/LiveListError``, as that initializer does.
    /// - Complexity: O(*n* log *n*) to fetch *n* rows.
    public static func open(
        postgres url: String, table: String, columns: Columns, edits: Edits = .all, access: Access = Access(), limits: Limits = Limits(),
        logger: Logger = Logger(label: "tessera.live-list")
    ) async throws(LiveListError) -> LiveList {
        let opened: Result<LiveList, LiveListError> = await withCheckedContinuation { continuation in
            let thread = Thread {
                OwnedThread.mark()
                do throws(LiveListError) {
                    let list = try LiveList(postgres: url, table: table, columns: columns, edits: edits, access: access, limits: limits, logger: logger)
                    continuation.resume(returning: .success(list))
                } catch {
                    continuation.resume(returning: .failure(error))
                }
            }
            thread.name = "tessera live list: open"
            thread.start()
        }
        return try opened.get()
    }
}
