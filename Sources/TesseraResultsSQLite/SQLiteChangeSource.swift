import TesseraResultsCore
import TesseraSQLite

/// SQLite's change source (see ``ChangeSource``): a transaction observer
/// of its own, registered with the connection's database for one fetch of
/// one controller. It is the controllers' only way in from SQLite's hooks:
/// nothing public calls into a controller.
///
/// While a transaction runs it notes the rows of the watched table that it
/// touches (with their sort values and key from the pre-update hook, when
/// the controller patches), and at the commit hands the controller one
/// ``CommittedChanges`` through its ``CommitDelivery``: at once when the
/// commit runs where the controller lives, else for later. A rollback hands
/// over nothing, except that a result read inside the transaction that
/// rolled back must be fetched again then.
final class SQLiteChangeSource: TransactionObserver, ChangeSource {
    /// Where the hook's values hold a row's key.
    enum KeySource {
        case column(Int)
        case rowID
    }

    /// How the rows of the watched table are followed.
    enum Rows {
        /// With their tuples: the key's column, the tuple's columns, and the
        /// tuple positions whose NULL may not be what a query reads (see
        /// ``SQLitePatchPlan/defaulted``).
        case tuples(table: String, keyIndex: Int, positions: [Int], untrustedNulls: [Int])
        /// By key only.
        case keys(table: String, key: KeySource)
    }

    let observedTables: Set<String>
    private let rows: Rows?
    private let delivery: CommitDelivery
    private var cancelled = false
    /// The open transaction's changes so far.
    private var changes = CommittedChanges()
    /// SQLite's schema version at the fetch: a commit that changes it (a
    /// dropped or altered table) re-fetches.
    private var schemaVersion: Int64?
    /// The result was read inside a transaction that has not ended: if it
    /// rolls back, the result holds rows that never were; if it commits, a
    /// savepoint may have rolled back some of what was read. Either way,
    /// it is fetched again.
    private var readInTransaction: Bool

    /// The statements kept from one commit to the next.
    let statements: SQLiteStatementCache

    init(statements: SQLiteStatementCache, tables: Set<String>, rows: Rows?, delivery: CommitDelivery, schemaVersion: Int64?, readInTransaction: Bool) {
        self.statements = statements
        observedTables = tables
        self.rows = rows
        self.delivery = delivery
        self.schemaVersion = schemaVersion
        self.readInTransaction = readInTransaction
    }

    func cancel() {
        cancelled = true
    }

    func database(_ database: Database, willChange change: Database.PreUpdate) {
        guard !cancelled, !changes.mustRefetch else { return }
        switch rows {
        case nil:
            changes = .refetch
        case let .tuples(table, keyIndex, positions, untrustedNulls):
            guard change.databaseName == "main", sqliteNamesEqual(change.table, table) else {
                changes = .refetch
                return
            }
            if change.change != .insert {
                guard positions.allSatisfy({ $0 < change.oldValues.count }) else { changes = .refetch; return }
                let tuple = positions.map { change.oldValues[$0] }
                guard !untrustedNulls.contains(where: { tuple[$0].isNull }), let key = tuple.last else {
                    changes = .refetch
                    return
                }
                if changes.touched[key] == nil { changes.touched[key] = .some(tuple) }
            }
            if change.change != .delete {
                guard change.newValues.count > keyIndex else { changes = .refetch; return }
                let key = change.newValues[keyIndex]
                if changes.touched[key] == nil { changes.touched[key] = .some(nil) }
            }
        case let .keys(table, key):
            guard sqliteNamesEqual(change.table, table) else {
                changes = .refetch
                return
            }
            switch key {
            case let .column(index):
                if index < change.oldValues.count { note(change.oldValues[index]) }
                if index < change.newValues.count { note(change.newValues[index]) }
            case .rowID:
                if change.change != .insert { note(.integer(change.oldRowID)) }
                if change.change != .delete { note(.integer(change.newRowID)) }
            }
        }
        // Past what the controller can patch, the rows are not worth noting.
        if changes.touched.count > delivery.touchedLimit { changes = .refetch }
    }

    private func note(_ key: DatabaseValue) {
        // A NULL key (possible in a rowid table's non-integer primary key)
        // cannot be read back with `=`.
        if key.isNull { changes = .refetch } else if changes.touched[key] == nil { changes.touched[key] = .some(nil) }
    }

    func databaseDidCommit(_ database: Database) {
        guard !cancelled else { return }
        var committed = changes
        changes = CommittedChanges()
        if readInTransaction {
            readInTransaction = false
            committed = .refetch
        }
        let schema = TesseraResultsSQLite.schemaVersion(of: database)
        if schema != schemaVersion {
            // Noted even if the re-fetch fails, so that later commits that
            // do not touch the schema or the result do not retry it.
            schemaVersion = schema
            committed = .refetch
        }
        deliver(committed, in: database)
    }

    func databaseDidRollback(_ database: Database) {
        changes = CommittedChanges()
    }

    func databaseDidEndRollback(_ database: Database) {
        guard !cancelled, readInTransaction else { return }
        readInTransaction = false
        deliver(.refetch, in: database)
    }

    private func deliver(_ committed: CommittedChanges, in database: Database) {
        guard !committed.isEmpty else { return }
        if delivery.canDeliverNow(runningIn: database.isolations) {
            delivery.deliverNow(committed, from: SQLiteStoreReader(database: database, statements: statements))
        } else {
            delivery.deliverLater(committed)
        }
    }
}
