import Foundation
import Testing
@testable import TesseraResultsCore
import TesseraResults
import TesseraSQLite
import TesseraTestSupport

/// The record cache under prefetches: what is asked for stays kept, the
/// cache stays within its capacity, and its eviction order within a
/// multiple of it however often the same records are asked for.
@Suite("Prefetching and the lazy record cache", .serialized)
struct PrefetchRecordCacheTests {
    typealias Item = ResultKeyTests.Item

    @Test("seeded rounds of prefetches and record reads: each prefetched set is kept after its call, every record equals a fresh query's row, and the cache and its order stay bounded")
    func boundedAndExact() async throws {
        let (path, connection) = try ResultKeyTests.database(rows: 9_000)
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
        var request = FetchRequest(table: "item", sortKeys: [SortKey("section"), SortKey("rank")], sectionKey: "section")
        request.fetchBatchSize = 16
        let lazy = try FetchedResultsController<Item>(connection: connection, request: request)
        try lazy.performFetch()
        try await lazy.waitUntilLoaded()
        let result = lazy.result
        let faults = try #require(result.state.faults)
        let all = (0..<result.numberOfSections).flatMap { section in
            (0..<result.numberOfRecords(inSection: section)).map { IndexPath(item: $0, section: section) }
        }
        let fresh = try connection.withDatabase { db in try db.rows("SELECT id, title FROM item ORDER BY section, rank, id") }
        let seed = testSeed(default: 3011)
        print("PrefetchRecordCacheTests seed \(seed)")
        var random = SplitMix64(seed: seed)
        for round in 0..<300 {
            // A window of up to 1,500 paths somewhere, or the same hundred.
            let asked: [Int]
            if round % 3 == 0 {
                asked = Array(0..<100)
            } else {
                let start = Int(random.next() % UInt64(all.count - 1_500))
                asked = (0..<Int(random.next() % 1_500)).map { _ in start + Int(random.next() % 1_500) }
            }
            try result.prefetchRecords(at: asked.map { all[$0] })
            #expect(try result.prefetchRecords(at: asked.map { all[$0] }) == 0, "round \(round): a record asked for was not kept")
            for flat in asked.prefix(20) {
                let record = try result.record(at: all[flat])
                #expect(record.id == fresh[flat][0].int64 && record.title == fresh[flat][1].string, "round \(round), row \(flat)")
            }
            #expect(faults.cachedCount <= faults.capacity)
            #expect(faults.orderEntryCount <= 4 * faults.capacity + 1_500, "round \(round): \(faults.orderEntryCount) order entries")
        }
        // Only records kept, asked for again and again: nothing is read or
        // evicted, and the order still does not grow past its bound.
        for _ in 0..<2_000 {
            #expect(try result.prefetchRecords(at: all.prefix(100)) == 0)
        }
        #expect(faults.orderEntryCount <= 4 * faults.capacity + 100, "\(faults.orderEntryCount) order entries")
    }
}
