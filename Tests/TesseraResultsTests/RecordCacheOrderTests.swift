import Testing
@testable import TesseraResultsCore
import TesseraTestSupport
import TesseraTestTraits

/// The lazy record cache's eviction order against a model that keeps a
/// stamp for each key: a kept key keeps its place when its record is kept
/// again, moves last when prefetched, and the oldest go first.
@Suite("The lazy record cache's eviction order", .cpuBound)
struct RecordCacheOrderTests {
    struct Item: FetchableRecord {
        var id: Int64
        /// The round that kept this record (-1: read by a prefetch).
        var version: Int

        init(id: Int64, version: Int) {
            self.id = id
            self.version = version
        }

        init(row: Row) throws {
            id = row[0].int64 ?? 0
            version = -1
        }
    }

    /// What the cache should hold: each kept key's record and its place in
    /// the eviction order (a stamp; the smallest goes first).
    struct Model {
        var records: [Int64: Item] = [:]
        var stamps: [Int64: Int] = [:]
        var next = 0
        let capacity: Int

        mutating func keep(_ items: [Item]) {
            for item in items {
                if records.updateValue(item, forKey: item.id) == nil {
                    stamps[item.id] = next
                    next += 1
                }
            }
            guard records.count > capacity else { return }
            let oldest = stamps.sorted { $0.value < $1.value }.prefix(records.count - capacity * 3 / 4)
            for (key, _) in oldest {
                records[key] = nil
                stamps[key] = nil
            }
        }

        mutating func touch(_ key: Int64) {
            guard records[key] != nil else { return }
            stamps[key] = next
            next += 1
        }
    }

    /// A cache whose reads give each key's item (version -1), and the
    /// keys 0..<keySpace. One key a read: a read's records are kept in its
    /// dictionary's order, which the model cannot know.
    static func cache(keySpace: Int64) -> (_RecordFaults<Item>, _KeyColumn) {
        let faults = _RecordFaults<Item>(batchSize: 1) { keys in
            (Dictionary(uniqueKeysWithValues: keys.map { ($0, Item(id: $0.int64 ?? 0, version: -1)) }), true)
        }
        var keys = _KeyColumn()
        for key in 0..<keySpace { keys.append(.integer(key)) }
        return (faults, keys)
    }

    @Test("Prefetching the same kept window again and again piles up stale entries until the order is compacted; the records kept after later evictions are the model's, and the order stays bounded")
    func compactsStaleEntries() throws {
        let seed = testSeed(default: 0x57A1)
        print("RecordCacheOrderTests.compactsStaleEntries: seed \(seed) (set TESSERA_SEED to replay)")
        var random = SplitMix64(seed: seed)
        let (faults, keys) = Self.cache(keySpace: 10_000)
        var model = Model(capacity: faults.capacity)
        let window = (0..<2_000).map { Item(id: Int64($0), version: 0) }
        model.keep(window)
        faults.keep(window.map { (DatabaseValue.integer($0.id), $0) })
        // Each prefetch finds every key kept and moves it last, in a new
        // order: 2,000 entries more each time, until the stale ones are
        // dropped (past four times the capacity).
        var longest = 0
        for round in 0..<9 {
            var flats = Array(0..<2_000)
            for i in flats.indices.reversed() { flats.swapAt(i, Int(random.next() % UInt64(i + 1))) }
            for flat in flats { model.touch(Int64(flat)) }
            #expect(try faults.prefetch(flats, keys: keys) == 0, "seed \(seed), round \(round)")
            longest = Swift.max(longest, faults.orderEntryCount)
            #expect(faults.orderEntryCount <= 4 * faults.capacity + 2_000, "seed \(seed), round \(round)")
        }
        #expect(longest > 4 * faults.capacity - 2_000, "the order never grew to where it is compacted")
        #expect(faults.orderEntryCount < longest, "the order was never compacted")
        // New records evict the oldest: the survivors of the window are
        // the last it touched.
        let fresh = (10_000..<12_500).map { Item(id: Int64($0), version: 1) }
        model.keep(fresh)
        faults.keep(fresh.map { (DatabaseValue.integer($0.id), $0) })
        #expect(faults.cachedCount == model.records.count)
        let mismatched = model.records.filter { faults.cached(.integer($0.key)) != $0.value }
        #expect(mismatched.isEmpty, "\(mismatched.count) records differ, such as \(String(describing: mismatched.first)); seed \(seed)")
        #expect((0..<2_000).contains { faults.cached(.integer($0)) != nil } && (0..<2_000).contains { faults.cached(.integer($0)) == nil })
    }

    @Test("Seeded rounds of commits' records kept (new and kept keys) and prefetches: the kept records and their order match the model's, and the order's entries stay bounded")
    func matchesModel() throws {
        let seed = testSeed(default: 0x0CAC)
        print("RecordCacheOrderTests.matchesModel: seed \(seed) (set TESSERA_SEED to replay)")
        var random = SplitMix64(seed: seed)
        let keySpace: Int64 = 12_000
        let (faults, keys) = Self.cache(keySpace: keySpace)
        var model = Model(capacity: faults.capacity)
        for round in 0..<200 {
            let comment = Comment(rawValue: "seed \(seed), round \(round)")
            if round % 3 == 2 {
                // A prefetch of a window: kept keys move last, then the
                // others are read a batch at a time, each batch kept.
                let start = Int(random.next() % UInt64(keySpace - 2_000))
                let flats = (0..<Int(random.next() % 2_000)).map { _ in start + Int(random.next() % 2_000) }
                var asked: [Int64] = []
                var seen = Set<Int64>()
                for flat in flats where seen.insert(Int64(flat)).inserted {
                    asked.append(Int64(flat))
                    if asked.count >= faults.capacity / 2 { break }
                }
                let wanted = asked.filter { model.records[$0] == nil }
                for key in asked where model.records[key] != nil { model.touch(key) }
                var batch = 0
                while batch < wanted.count {
                    let end = Swift.min(wanted.count, batch + faults.batchSize)
                    model.keep(wanted[batch..<end].map { Item(id: $0, version: -1) })
                    batch = end
                }
                let read = try faults.prefetch(flats, keys: keys)
                #expect(read == wanted.count, comment)
            } else {
                // A commit's records: some kept already, most not.
                let count = Int(random.next() % 1_500) + 1
                var picked = Set<Int64>()
                while picked.count < count { picked.insert(Int64(random.next() % UInt64(keySpace))) }
                let items = picked.sorted().map { Item(id: $0, version: round) }
                model.keep(items)
                faults.keep(items.map { (DatabaseValue.integer($0.id), $0) })
            }
            #expect(faults.cachedCount == model.records.count, comment)
            let mismatched = model.records.filter { faults.cached(.integer($0.key)) != $0.value }
            #expect(mismatched.isEmpty, "\(mismatched.count) records differ, such as \(String(describing: mismatched.first)); \(comment.rawValue)")
            #expect(faults.orderEntryCount <= 4 * faults.capacity + 2 * faults.capacity, comment)
            if !mismatched.isEmpty { return }
        }
    }
}
