import Foundation
import Testing
import TesseraResults
import TesseraSQLite
import TesseraTestSupport
import TesseraTestTraits

/// `FetchedResult.prefetchRecords(at:)`: a lazy result reads exactly the
/// records asked for that it does not keep, and then has them.
@Suite("Prefetching a lazy result's records", .ownThreads)
struct PrefetchRecordsTests {
    typealias Item = ResultKeyTests.Item

    func paths(_ result: FetchedResult<Item>) -> [IndexPath] {
        (0..<result.numberOfSections).flatMap { section in
            (0..<result.numberOfRecords(inSection: section)).map { IndexPath(item: $0, section: section) }
        }
    }

    @Test("scattered index paths: each record not kept is read once, exactly those (not the batches around them), and equals a fresh query's row")
    func readsExactlyTheMissing() async throws {
        let (path, connection) = try ResultKeyTests.database(rows: 3_000)
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
        var request = FetchRequest(table: "item", sortKeys: [SortKey("section"), SortKey("rank")], sectionKey: "section")
        request.fetchBatchSize = 16
        let lazy = try FetchedResultsController<Item>(connection: connection, request: request)
        try lazy.performFetch()
        try await lazy.waitUntilLoaded()
        let result = lazy.result
        let all = paths(result)
        let seed = testSeed(default: 2811)
        print("PrefetchRecordsTests seed \(seed)")
        var random = SplitMix64(seed: seed)
        // Every 40th row, shuffled, with repeats and paths outside the list.
        var wanted = stride(from: 0, to: all.count, by: 40).map { all[$0] }
        wanted.shuffle(using: &random)
        let asked = wanted + wanted.prefix(10) + [IndexPath(item: 0, section: 99), IndexPath(item: 100_000, section: 0), IndexPath(index: 0)]
        #expect(try result.prefetchRecords(at: asked) == wanted.count)
        // Kept: asking again reads nothing.
        #expect(try result.prefetchRecords(at: wanted) == 0)
        // Not read around them: each neighbour is still to read.
        let neighbours = stride(from: 1, to: all.count, by: 40).map { all[$0] }
        #expect(try result.prefetchRecords(at: neighbours) == neighbours.count)
        // What is kept is each row as the table has it.
        let fresh = try connection.withDatabase { db in try db.rows("SELECT id, title FROM item ORDER BY section, rank, id") }
        for path in wanted + neighbours {
            let flat = all.firstIndex(of: path)!
            let record = try result.record(at: path)
            #expect(record.id == fresh[flat][0].int64 && record.title == fresh[flat][1].string, "\(path)")
        }

        // An eager result keeps every record: nothing to read.
        request.fetchBatchSize = 0
        let eager = try FetchedResultsController<Item>(connection: connection, request: request)
        try eager.performFetch()
        #expect(try eager.result.prefetchRecords(at: all) == 0)
    }

    @Test("one call takes at most half of what the result keeps, and what it asks for stays kept, also the records it found kept with the cache full; a row gone from the table is skipped, its record unavailable")
    func boundedAndGoneRows() async throws {
        let (path, connection) = try ResultKeyTests.database(rows: 9_000)
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
        var request = FetchRequest(table: "item", sortKeys: [SortKey("section"), SortKey("rank")], sectionKey: "section")
        request.fetchBatchSize = 16
        let lazy = try FetchedResultsController<Item>(connection: connection, request: request)
        try lazy.performFetch()
        try await lazy.waitUntilLoaded()
        let result = lazy.result
        let all = paths(result)
        // It keeps 4,096 records (eight batches of 16, at least 4,096).
        let read = try result.prefetchRecords(at: all)
        #expect(read == 2_048)
        #expect(try result.prefetchRecords(at: all.prefix(read)) == 0)

        // With the cache full, what a call asks for and finds kept is not
        // evicted by what it reads.
        #expect(try result.prefetchRecords(at: all[read..<(2 * read)]) == read)
        #expect(try result.prefetchRecords(at: [all[0], all[2 * read]]) == 1)
        #expect(try result.prefetchRecords(at: [all[0]]) == 0, "a record asked for, and kept, was evicted by the same call")

        // A row deleted by another connection, before the result hears of it.
        let other = try Connection(path: path)
        let gone = all[3 * read + 5]
        let goneID = try connection.withDatabase { db in
            try db.rows("SELECT id FROM item ORDER BY section, rank, id LIMIT 1 OFFSET ?", [.integer(Int64(3 * read + 5))])[0][0]
        }
        try other.write { db in try db.execute("DELETE FROM item WHERE id = ?", [goneID]) }
        #expect(try result.prefetchRecords(at: [gone, all[3 * read + 6]]) == 2)
        #expect(throws: ResultsError.self) { try result.record(at: gone) }
        #expect(try result.record(at: all[3 * read + 6]).id != goneID.int64)
    }
}
