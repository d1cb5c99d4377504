import TesseraResultsCore

/// A write transaction on one of a store's sessions (see
/// ``PostgresStore/write(request:_:)``): its statements are committed
/// together, or none is.
package struct PostgresWriteTransaction {
    let session: PostgresSession
    /// How long the server may take to answer one statement: 30 s, or
    /// the store's round-trip limit when that is shorter.
    static let statementTimeout: Duration = .seconds(30)

    /// The bound of one statement of a write over `session`.
    static func timeout(on session: PostgresSession) -> Duration {
        min(statementTimeout, session.endpoint.roundTripLimit)
    }

    /// Runs one statement (parameters `$1`, `$2`…, each sent as text for
    /// the server to type) and returns its rows.
    ///
    /// - Throws: ``PostgresStoreError`` naming `request`; the transaction
    ///   is then rolled back.
    @discardableResult
    package func rows(_ sql: String, _ arguments: [DatabaseValue] = [], request: String = "run a statement of a write") throws(PostgresStoreError) -> [[DatabaseValue]] {
        try session.query(sql, arguments, request: request, timeout: Self.timeout(on: session)).rows
    }
}

/// Where a store's change feed stood when a commit returned: the feed has
/// handed that commit over once a round begun after it has been handed
/// over (see ``PostgresStore/waitUntilHandedOver(_:timeout:)``).
package struct PostgresFeedMark: Sendable, Hashable {
    /// The feed's rounds begun when the mark was taken.
    let begun: Int
    /// The transaction that committed just before, when the mark is a
    /// write's (its ID's low 32 bits, as the log names it).
    var xid: UInt32?
}

/// A commit whose outcome is unknown: the connection was lost while the
/// server was committing, so the transaction may or may not have been
/// written (see ``PostgresStore/write(request:lockTimeout:_:)``).
package struct PostgresCommitOutcomeUnknown: Error, CustomStringConvertible, Sendable {
    /// Why the commit has no answer.
    package var underlying: PostgresStoreError

    package var description: String {
        "the connection was lost while the server committed, so the transaction may or may not have been written: \(underlying.message)"
    }
}

extension PostgresStore {
    /// Runs `body` in a read-write transaction on a session of the store,
    /// committed when it returns and rolled back when it throws.
    ///
    /// Every statement is bounded (30 s), and with `lockTimeout` (`"5s"`)
    /// so is every wait for a lock. The session is given back after a
    /// commit or a rollback, and closed when the connection failed.
    ///
    /// - Returns: `body`'s value, and the feed's mark just after the
    ///   commit (`nil` while nothing follows).
    /// - Throws: What `body` throws, or ``PostgresStoreError`` naming
    ///   `request` (a refused statement, a failed commit, a lost
    ///   connection): nothing is written then. ``PostgresCommitOutcomeUnknown``
    ///   when the connection was lost during the commit itself.
    package func write<T>(request: String, lockTimeout: String? = nil, _ body: (PostgresWriteTransaction) throws -> T) throws -> (value: T, mark: PostgresFeedMark?) {
        let session = try takeSession()
        let transaction = PostgresWriteTransaction(session: session)
        let timeout = PostgresWriteTransaction.timeout(on: session)
        let value: T
        var xid: UInt32?
        do {
            try session.query("BEGIN", request: request, timeout: timeout)
            if let lockTimeout {
                try session.query("SELECT set_config('lock_timeout', $1, true)", [.text(lockTimeout)], request: request, timeout: timeout)
            }
            value = try body(transaction)
            // The transaction's ID, if it wrote: its commit is handed over
            // by the first round whose snapshot sees it.
            xid = try session.query("SELECT pg_current_xact_id_if_assigned()::text", request: request, timeout: timeout)
                .rows.first?.first?.string.flatMap { UInt64($0) }.map { UInt32(truncatingIfNeeded: $0) }
        } catch {
            // A statement the server refused leaves the session usable once
            // rolled back; a lost connection does not.
            if (try? session.query("ROLLBACK", request: request, timeout: timeout)) != nil {
                giveBack(session)
            } else {
                session.close()
            }
            throw error
        }
        do {
            try session.query("COMMIT", request: request, timeout: timeout)
        } catch {
            session.close()
            if error.kind == .serverGone || error.kind == .connection { throw PostgresCommitOutcomeUnknown(underlying: error) }
            throw error
        }
        var mark = feedMark
        mark?.xid = xid
        giveBack(session)
        return (value, mark)
    }

    /// Runs one read-only statement on a session of the store (parameters
    /// `$1`, `$2`…, each sent as text for the server to type), bounded by
    /// 30 s (or the store's round-trip limit, when shorter).
    ///
    /// - Throws: ``PostgresStoreError`` naming `request`.
    package func rows(_ sql: String, _ arguments: [DatabaseValue] = [], request: String) throws(PostgresStoreError) -> [[DatabaseValue]] {
        let session = try takeSession()
        do throws(PostgresStoreError) {
            let rows = try session.query(sql, arguments, request: request, timeout: PostgresWriteTransaction.timeout(on: session)).rows
            giveBack(session)
            return rows
        } catch {
            session.close()
            throw error
        }
    }

    /// A URL for messages: its password hidden.
    package static func redacted(_ url: String) -> String {
        PostgresEndpoint.redacted(url)
    }

    /// The feed's mark now: a commit that returned before it is handed
    /// over once ``waitUntilHandedOver(_:timeout:)`` returns true for it.
    /// `nil` while nothing follows.
    package var feedMark: PostgresFeedMark? {
        guard let feed = existingFeed else { return nil }
        return PostgresFeedMark(begun: feed.rounds.begun)
    }

    /// Whether the feed has handed over every commit that returned before
    /// `mark` was taken (false while nothing follows).
    package func isHandedOver(_ mark: PostgresFeedMark) -> Bool {
        existingFeed?.hasHandedOver(mark) ?? false
    }

    /// Waits, without blocking a thread, until the feed has handed over
    /// every commit that returned before `mark` was taken
    /// (``isHandedOver(_:)``), asking it for rounds meanwhile; the
    /// controllers' ``TesseraResults/FetchedResultsController/checkForExternalChanges()``
    /// then takes them.
    ///
    /// - Returns: false when `timeout` passed first, or the feed stopped.
    package func waitUntilHandedOver(_ mark: PostgresFeedMark, timeout: Duration) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            guard let feed = existingFeed else { return false }
            if feed.hasHandedOver(mark) { return true }
            feed.requestRound()
            do { try await Task.sleep(for: .microseconds(500)) } catch { return false }
        }
        return false
    }
}
