
/// The records of a lazily fetched result (a request with a
/// ``FetchRequest/fetchBatchSize``): read from the store by key when asked,
/// a batch at a time around the one asked for, and kept in a bounded cache
/// shared by every state of one controller's result.
///
/// The cache holds each key's record as it was last read or patched, so a
/// state before a change reads a changed record as it is now; the records
/// a commit brings in (read to place them) go into the cache at once. A
/// read on another thread that a commit overtakes (the commit kept its
/// records after the read's rows were read, before the read kept them)
/// keeps nothing: its records may be older than the commit's.
final class _RecordFaults<Record: FetchableRecord>: Sendable {
    /// Reads the records with the given keys, as the store has them now,
    /// and says whether they are committed (a read from inside a
    /// transaction open on the store sees rows that may be rolled back:
    /// they are returned but not kept).
    typealias Read = @Sendable ([DatabaseValue]) throws(ResultsError) -> (records: [DatabaseValue: Record], committed: Bool)

    /// How many records one read brings in.
    let batchSize: Int
    /// The most records kept.
    let capacity: Int
    private let read: Read

    private struct Cache {
        /// A kept record, and its key's latest entry in `order`, counted
        /// from the first entry ever made (`dropped` entries were
        /// compacted away).
        struct Entry {
            var record: Record
            var latest: Int
        }

        /// The kept records: one lookup finds a record and its place in
        /// the eviction order.
        var entries: [DatabaseValue: Entry] = [:]
        /// Keys in the order they came in or were last prefetched, for
        /// eviction (oldest first). A key's entries before its latest are
        /// stale: eviction passes them by.
        var order: [DatabaseValue] = []
        var orderStart = 0
        var dropped = 0
        /// How many times a commit kept records: a read keeps its own only
        /// if it is unchanged since the read began.
        var commits = 0

        /// The record kept for `key`, if any.
        func record(_ key: DatabaseValue) -> Record? { entries[key]?.record }

        /// Keeps `record` for `key`; a key not kept yet goes last in the
        /// eviction order, a kept one keeps its place.
        mutating func keep(_ record: Record, for key: DatabaseValue) {
            let stamp = dropped + order.count
            if let old = entries.updateValue(Entry(record: record, latest: stamp), forKey: key) {
                entries[key]?.latest = old.latest
            } else {
                order.append(key)
            }
        }

        /// Puts a kept key last in the eviction order.
        mutating func touch(_ key: DatabaseValue) {
            entries[key]?.latest = dropped + order.count
            order.append(key)
        }

        /// Evicts the oldest records down to `target`, then drops the
        /// entries passed (and, when stale entries pile up, every stale one).
        mutating func evict(downTo target: Int, capacity: Int) {
            while entries.count > target, orderStart < order.count {
                if let index = entries.index(forKey: order[orderStart]), entries.values[index].latest == dropped + orderStart {
                    entries.remove(at: index)
                }
                orderStart += 1
            }
            if orderStart > order.count / 2 {
                order.removeFirst(orderStart)
                dropped += orderStart
                orderStart = 0
            }
            dropStaleEntries(capacity: capacity)
        }

        /// Rebuilds the order without its stale entries once they are most
        /// of it (prefetches that find their records kept add one a key).
        ///
        /// - Complexity: amortized O(1) per entry made.
        mutating func dropStaleEntries(capacity: Int) {
            guard order.count > 4 * Swift.max(capacity, entries.count) else { return }
            var kept: [DatabaseValue] = []
            kept.reserveCapacity(entries.count)
            for (index, key) in order.enumerated() where index >= orderStart && entries[key]?.latest == dropped + index {
                kept.append(key)
            }
            dropped += order.count
            order = []
            orderStart = 0
            for key in kept { touch(key) }
        }
    }

    private let cache = PThreadMutex(Cache())

    init(batchSize: Int, read: @escaping Read) {
        self.batchSize = Swift.max(1, batchSize)
        capacity = Swift.max(4_096, 8 * self.batchSize)
        self.read = read
    }

    /// The number of records kept.
    var cachedCount: Int { cache.withLock { $0.entries.count } }

    /// The entries of the eviction order, stale ones included (for tests:
    /// bounded by a multiple of the capacity).
    var orderEntryCount: Int { cache.withLock { $0.order.count - $0.orderStart } }

    /// The record kept for `key`, if any.
    func cached(_ key: DatabaseValue) -> Record? {
        cache.withLock { $0.record(key) }
    }

    /// The keys whose records are kept.
    var cachedKeys: [DatabaseValue] { cache.withLock { Array($0.entries.keys) } }

    /// Keeps a commit's records (its arrivals, or a fetch's), evicting the
    /// oldest when over capacity.
    ///
    /// - Complexity: amortized O(*k*) for *k* records.
    func keep(_ records: some Sequence<(DatabaseValue, Record)>) {
        cache.withLock { cache in
            cache.commits += 1
            Self.insert(records, into: &cache, capacity: capacity)
        }
    }

    /// Reads records as ``read`` does, and keeps them when they are
    /// committed and no commit kept records since the read began.
    private func readAndKeep(_ keys: [DatabaseValue]) throws(ResultsError) -> [DatabaseValue: Record] {
        let commitsBefore = cache.withLock { $0.commits }
        let (records, committed) = try read(keys)
        _RecordFaultsHooks.afterReading?()
        guard committed else { return records }
        cache.withLock { cache in
            guard cache.commits == commitsBefore else { return }
            Self.insert(records.lazy.map { ($0.key, $0.value) }, into: &cache, capacity: capacity)
        }
        return records
    }

    private static func insert(_ records: some Sequence<(DatabaseValue, Record)>, into cache: inout Cache, capacity: Int) {
        for (key, record) in records { cache.keep(record, for: key) }
        guard cache.entries.count > capacity else { return }
        // Evict the oldest down to three quarters of the capacity.
        cache.evict(downTo: capacity * 3 / 4, capacity: capacity)
    }

    /// The record at `flat` in a state whose keys are `keys`: from the
    /// cache, or read with the batch around it.
    ///
    /// - Throws: ``ResultsError``: the store's failure, a record that fails
    ///   to decode, or ``ResultsError/recordUnavailable(key:)`` when the
    ///   row is no longer in the store.
    /// - Complexity: O(log *n*) when kept; else one read of
    ///   ``batchSize`` rows.
    func record(at flat: Int, keys: _KeyColumn) throws(ResultsError) -> Record {
        let key = keys[flat]
        if let record = cached(key) { return record }
        let start = Swift.max(0, Swift.min(flat - batchSize / 4, keys.count - batchSize))
        let end = Swift.min(keys.count, start + batchSize)
        // One lock for the batch, not one a key.
        let wanted = cache.withLock { cache in
            (start..<end).map { keys[$0] }.filter { $0 == key || cache.entries[$0] == nil }
        }
        let records = try readAndKeep(wanted)
        guard let record = records[key] else { throw .recordUnavailable(key: key.description) }
        return record
    }

    /// The records of `range` in a state whose keys are `keys`, read in
    /// batches where not kept, and kept (up to the capacity).
    ///
    /// - Complexity: O(*r*) record reads at most, for *r* rows.
    func records(in range: Range<Int>, keys: _KeyColumn) throws(ResultsError) -> [Record] {
        var result: [Record] = []
        result.reserveCapacity(range.count)
        var start = range.lowerBound
        while start < range.upperBound {
            let end = Swift.min(range.upperBound, start + Swift.max(batchSize, 256))
            var wanted: [DatabaseValue] = []
            var found: [DatabaseValue: Record] = [:]
            cache.withLock { cache in
                for index in start..<end {
                    let key = keys[index]
                    if let record = cache.record(key) { found[key] = record } else { wanted.append(key) }
                }
            }
            if !wanted.isEmpty {
                found.merge(try readAndKeep(wanted)) { kept, _ in kept }
            }
            for index in start..<end {
                let key = keys[index]
                guard let record = found[key] else { throw .recordUnavailable(key: key.description) }
                result.append(record)
            }
            start = end
        }
        return result
    }

    /// Reads the records of `flats` in a state whose keys are `keys` that
    /// are not kept: exactly those, not the batches around them, in reads
    /// of at most ``batchSize`` keys (one store transaction each), and
    /// keeps them; those kept already go last in the eviction order. At
    /// most ``capacity`` / 2 distinct records are asked for: all of them
    /// stay kept while the caller uses them (until other reads evict them).
    ///
    /// - Returns: How many records it read.
    /// - Complexity: O(*k*) for *k* offsets, plus one read per
    ///   ``batchSize`` records not kept.
    @discardableResult
    func prefetch(_ flats: some Sequence<Int>, keys: _KeyColumn) throws(ResultsError) -> Int {
        // The caller's sequence runs before the lock is taken (it may read
        // records itself).
        var asked: [DatabaseValue] = []
        var seen: Set<DatabaseValue> = []
        for flat in flats where flat >= 0 && flat < keys.count {
            let key = keys[flat]
            if seen.insert(key).inserted { asked.append(key) }
            if asked.count >= capacity / 2 { break }
        }
        let wanted: [DatabaseValue] = cache.withLock { cache in
            var wanted: [DatabaseValue] = []
            for key in asked {
                // A kept one goes last in the eviction order, so that what
                // this call reads does not evict it.
                if cache.entries[key] == nil { wanted.append(key) } else { cache.touch(key) }
            }
            cache.dropStaleEntries(capacity: capacity)
            return wanted
        }
        var start = 0
        while start < wanted.count {
            let end = Swift.min(wanted.count, start + batchSize)
            _ = try readAndKeep(Array(wanted[start..<end]))
            start = end
        }
        return wanted.count
    }

    /// Reads records as the store has them now, without keeping them.
    func readNow(_ keys: [DatabaseValue]) throws(ResultsError) -> (records: [DatabaseValue: Record], committed: Bool) {
        try read(keys)
    }
}

/// Where tests reach into ``_RecordFaults``.
enum _RecordFaultsHooks {
    /// Called after a read's rows are read and before they are kept, in
    /// tests only: where a commit can overtake the read.
    @TaskLocal static var afterReading: (@Sendable () -> Void)?
}
