import Foundation
import Testing
import TesseraDiff
import TesseraResults
import TesseraSQLite
import TesseraTestTraits

// Single-store (SQLite): the store's own error these tests check is an
// SQLiteError.

/// A row of `person(id, badge)` whose id is its badge, which need not be
/// unique although the key is.
struct Badge: FetchableRecord, Hashable {
    var id: String
    var key: Int64

    init(row: Row) throws {
        id = row["badge"].string ?? ""
        key = row["id"].int64 ?? -1
    }
}

/// A row whose decoding fails for the name "bad".
struct PickyBadge: FetchableRecord {
    struct Refused: Error, CustomStringConvertible {
        var description: String { "the name bad is refused" }
    }

    var id: Int64

    init(row: Row) throws {
        if row["badge"].string == "bad" { throw Refused() }
        id = row["id"].int64 ?? -1
    }
}

@Suite("Errors: what failed, and the store's own error, unchanged", .cpuBound)
struct ErrorShapeTests {
    static func makeDatabase() throws -> Connection {
        let connection = try Connection(path: ":memory:")
        try connection.write { db in
            try db.execute("CREATE TABLE person (id INTEGER PRIMARY KEY, badge TEXT)")
            try db.execute("INSERT INTO person VALUES (1, 'a'), (2, 'b')")
        }
        return connection
    }

    @Test("SQL the store refuses is a store failure carrying SQLite's own error")
    func storeErrorIsSQLites() throws {
        let connection = try Self.makeDatabase()
        let controller = try FetchedResultsController<Badge>(connection: connection, request: FetchRequest(table: "nowhere"))
        let error = try #require(throws: ResultsError.self) { try controller.performFetch() }
        #expect(error.failure == .store)
        let sqlite = try #require(error.storeError as? SQLiteError)
        #expect(sqlite.code == 1 && sqlite.message.contains("nowhere"))
        #expect(error == .database(sqlite))
    }

    @Test("Ids that repeat while keys do not are the diff's error, not relabelled as a duplicate key")
    func repeatedIDsAreTheDiffsError() throws {
        let connection = try Self.makeDatabase()
        let controller = try FetchedResultsController<Badge>(connection: connection, request: FetchRequest(table: "person", sortKeys: [SortKey("badge")]))
        // Re-fetched and diffed: patching follows rows by key, not by id.
        controller.isIncremental = false
        try controller.performFetch()
        let errors = ErrorLog()
        controller.delegate = errors
        try connection.write { db in try db.execute("UPDATE person SET badge = 'a' WHERE id = 2") }
        let error = try #require(errors.errors.last)
        guard case let .diff(diffError) = error, case let .duplicateItemID(id, side, _, _) = diffError else {
            Issue.record("expected the diff's duplicate item id, got \(error)")
            return
        }
        #expect(id == "a" && side == .new)
        #expect(error.failure == .duplicateKey && error.storeError == nil)
        #expect(controller.lastError == error)
        #expect(controller.snapshot.items(inSection: 0).map(\.key) == [1, 2], "the last good result is kept")
    }

    @Test("The relational controller reports repeated ids as the diff's error too")
    func relationalRepeatedIDs() throws {
        let connection = try Self.makeDatabase()
        try connection.write { db in try db.execute("INSERT INTO person VALUES (3, 'a')") }
        let controller = RelationalResultsController<Badge, Badge>(
            connection: connection, parents: ParentRequest(table: "person"), children: ChildRequest(table: "person", foreignKeyColumn: "id")
        )
        let error = try #require(throws: ResultsError.self) { try controller.performFetch() }
        guard case .diff(.duplicateSectionID(id: "a", side: .new, _, _)) = error else {
            Issue.record("expected the diff's duplicate section id, got \(error)")
            return
        }
        #expect(error.failure == .duplicateKey)
    }

    @Test("A record that fails to decode is a decode failure naming the key and the record's error")
    func decodeFailure() throws {
        let connection = try Self.makeDatabase()
        try connection.write { db in try db.execute("INSERT INTO person VALUES (7, 'bad')") }
        let controller = try FetchedResultsController<PickyBadge>(connection: connection, request: FetchRequest(table: "person"))
        let error = try #require(throws: ResultsError.self) { try controller.performFetch() }
        #expect(error == .decoding(key: "7", message: "the name bad is refused"))
        #expect(error.failure == .decode && error.storeError == nil)
    }

    @Test("Every kind of failure has its kind")
    func failureKinds() {
        let sqlite = SQLiteError(code: 5, message: "database is locked")
        let cases: [(ResultsError, ResultsError.Failure)] = [
            (.sectionKeyNotFirstSortKey(sectionKey: "a", firstSortKey: nil), .request),
            (.invalidSQL(part: "predicate", sql: "1; DROP", problem: "a second statement"), .request),
            (.sectionNotContiguous("'a'"), .fetch),
            (.decoding(key: "1", message: "m"), .decode),
            (.duplicateKey("1"), .duplicateKey),
            (.diff(.duplicateItemID(id: "1", side: .old, first: IndexPath(item: 0, section: 0), second: IndexPath(item: 1, section: 0))), .duplicateKey),
            (.database(sqlite), .store),
            (.store(StoreError(store: "Other", code: "XX000", message: "gone", underlying: sqlite)), .store),
            (.cancelled, .cancelled),
        ]
        for (error, failure) in cases {
            #expect(error.failure == failure, "\(error)")
        }
        let other = ResultsError.store(StoreError(store: "Other", code: "XX000", message: "gone", underlying: sqlite))
        #expect(other.storeError as? SQLiteError == sqlite, "a store's underlying error comes back unchanged")
        #expect(other.description == "Other error XX000: gone")
    }
}

/// Records the errors a controller reports.
final class ErrorLog: FetchedResultsControllerDelegate {
    typealias Record = Badge
    var errors: [ResultsError] = []
    func controller(_ controller: FetchedResultsController<Badge>, didFailWith error: ResultsError) { errors.append(error) }
}
