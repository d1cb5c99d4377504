// The commits measured by the "commit to plan" benchmarks: one row
// inserted, deleted, moved within its album, moved to another album, and
// one transaction re-dating 1,000 random rows.

import BenchmarkSupport

/// A change committed as one transaction; `n` (from 1) makes each
/// iteration's change touch other rows.
enum Change: String, CaseIterable {
    case insert = "(a) 1 row inserted"
    case delete = "(b) 1 row deleted"
    case moveWithinSection = "(c) 1 row moved within its section"
    case moveAcrossSections = "(d) 1 row moved to another section"
    case thousand = "(e) 1,000 random rows re-dated"

    /// The change's SQL. Of a fixture of 1,000,000 rows (in proportion
    /// for another ``rowCount``), inserts take new ids above 2,000,000,
    /// deletes ids from 900,001 up, moves ids below 800,000 (a different
    /// one for each `n`), and a 1,000-row update 1,000 ids drawn from a
    /// generator seeded by `n`.
    func sql(_ n: Int) -> String {
        let id = 1 + (n &* 7_919) % (rowCount / 1_000 * 799)
        let date = 1_420_070_400 + Double((n &* 104_729) % 315_360_000)
        switch self {
        case .insert:
            return "INSERT INTO photo VALUES (\(2 * rowCount + n), \((n &* 97) % albumCount), \(date), 'New \(n)', 4032, 3024)"
        case .delete:
            return "DELETE FROM photo WHERE id = \(rowCount / 10 * 9 + n)"
        case .moveWithinSection:
            return "UPDATE photo SET date = \(date) WHERE id = \(id)"
        case .moveAcrossSections:
            return "UPDATE photo SET album = (album + 1) % \(albumCount) WHERE id = \(id)"
        case .thousand:
            var generator = SplitMix64(seed: UInt64(n))
            var ids = Set<UInt64>()
            while ids.count < 1_000 { ids.insert(1 + generator.next() % UInt64(rowCount)) }
            // Each row gets its own date, somewhere in the same ten years.
            return "UPDATE photo SET date = 1420070400 + ((id * 2654435761 + \(n) * 40503) % 315360000) WHERE id IN (\(ids.map(String.init).joined(separator: ", ")))"
        }
    }
}
