import Foundation
import Testing
import TesseraResults
import TesseraSQLite
import TesseraTestTraits

/// `FetchedResult.key(at:)`: a lazy result's keys, read without the records.
@Suite("Result keys without records", .ownThreads)
struct ResultKeyTests {
    struct Item: FetchableRecord, Hashable {
        var id: Int64
        var title: String

        init(row: Row) throws {
            id = row["id"].int64 ?? -1
            title = row["title"].string ?? ""
        }
    }

    static func database(rows: Int) throws -> (path: String, connection: Connection) {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("tessera-keys-\(UUID().uuidString).sqlite").path
        let connection = try Connection(path: path)
        try connection.write { db in
            try db.execute("CREATE TABLE item (id INTEGER PRIMARY KEY, section INTEGER NOT NULL, rank INTEGER NOT NULL, title TEXT NOT NULL)")
            for i in 0..<rows {
                try db.execute("INSERT INTO item (section, rank, title) VALUES (?, ?, ?)", [.integer(Int64(i % 7)), .integer(Int64((i * 37) % 101)), .text("Item \(i)")])
            }
        }
        return (path, connection)
    }

    @Test("once loaded, every key of a lazy result is its record's key, and no record is read for it; an eager result has none")
    func lazyKeysMatchRecords() async throws {
        let (path, connection) = try Self.database(rows: 3_000)
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
        var request = FetchRequest(table: "item", sortKeys: [SortKey("section"), SortKey("rank")], sectionKey: "section")
        let eager = try FetchedResultsController<Item>(connection: connection, request: request)
        try eager.performFetch()
        #expect(eager.result.key(at: IndexPath(item: 0, section: 0)) == nil)

        request.fetchBatchSize = 16
        let lazy = try FetchedResultsController<Item>(connection: connection, request: request)
        try lazy.performFetch()
        try await lazy.waitUntilLoaded()
        let result = lazy.result
        #expect(result.isLazy)
        var keys: [DatabaseValue] = []
        for section in 0..<result.numberOfSections {
            for item in 0..<result.numberOfRecords(inSection: section) {
                guard let key = result.key(at: IndexPath(item: item, section: section)) else {
                    Issue.record("no key at [\(section), \(item)] of a loaded lazy result")
                    return
                }
                keys.append(key)
            }
        }
        // The keys are the rows' in the request's order, as a fresh query
        // gives them, and each is its record's.
        let fresh = try connection.withDatabase { db in try db.rows("SELECT id FROM item ORDER BY section, rank, id").map { $0[0] } }
        #expect(keys == fresh)
        let probe = IndexPath(item: 5, section: 3)
        #expect(result.key(at: probe) == .integer(try result.record(at: probe).id))
    }
}
