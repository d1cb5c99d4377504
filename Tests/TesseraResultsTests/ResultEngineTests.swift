import Testing
import TesseraDiff
@testable import TesseraResults
@testable import TesseraResultsCore
@testable import TesseraResultsSQLite
import TesseraSQLite
import TesseraTestSupport
import TesseraTestTraits

// No store: the engine runs over an in-memory row reader of its own, with
// orderings no SQLite table has (NULLs last), which is the point.

/// A row of the in-memory table: `id, grp, rank, title`.
struct EngineItem: FetchableRecord, Hashable {
    var id: Int64
    var group: DatabaseValue
    var rank: DatabaseValue
    var title: String

    init(row: Row) throws {
        id = row["id"].int64 ?? -1
        group = row["grp"]
        rank = row["rank"]
        title = row["title"].string ?? ""
    }
}

/// An ordering with its NULLs placed where a store says, not where
/// SQLite puts them: PostgreSQL's default puts them last ascending and
/// first descending.
struct NullPlacingOrdering: SortOrdering, CustomStringConvertible {
    var ascending: Bool
    var nullsFirst: Bool

    func compare(_ a: DatabaseValue, _ b: DatabaseValue) -> Int {
        switch (a.isNull, b.isNull) {
        case (true, true): return 0
        case (true, false): return nullsFirst ? -1 : 1
        case (false, true): return nullsFirst ? 1 : -1
        case (false, false):
            let order = Collation.binary.compare(a, b)
            return ascending ? order : -order
        }
    }

    var integersAscending: Bool { ascending }

    var description: String { "\(ascending ? "ASC" : "DESC") NULLS \(nullsFirst ? "FIRST" : "LAST")" }
}

/// The reads of a request over a table held in memory: what a store other
/// than SQLite hands the engine. `grp` sections the rows and is the first
/// sort key, `rank` the second, `id` the key; rows whose title is "hidden"
/// do not match the predicate.
final class MemoryRowReader: RowReader {
    static let columns = ["id", "grp", "rank", "title"]
    var table: [Int64: [DatabaseValue]] = [:]
    let orderings: [any SortOrdering]

    init(orderings: [any SortOrdering]) {
        self.orderings = orderings
    }

    var readTables: Set<String> { ["item"] }
    var patchPlan: PatchPlan? { PatchPlan(tuplePositions: [1, 2, 0], orderings: orderings) }
    var keysAreUnique: Bool { true }
    var keyOrdering: any SortOrdering { SQLiteSortOrdering(collation: .binary, ascending: true) }

    func tuple(_ values: [DatabaseValue]) -> [DatabaseValue] { [values[1], values[2], values[0]] }

    private func matches(_ values: [DatabaseValue]) -> Bool { values[3] != "hidden" }

    /// The matching rows in the request's order.
    var sorted: [[DatabaseValue]] {
        table.values.filter(matches).sorted { a, b in
            let (x, y) = (tuple(a), tuple(b))
            for c in x.indices {
                let order = orderings[c].compare(x[c], y[c])
                if order != 0 { return order < 0 }
            }
            return false
        }
    }

    func readAll(_ body: (_ leading: any LeadingValues, _ row: Row) throws(ResultsError) -> Void) throws(ResultsError) {
        for values in sorted { try body(Leading(values: [values[1], values[0]]), Row(columnNames: Self.columns, values: values)) }
    }

    func readTuples(_ body: (_ leading: any LeadingValues, _ tuple: Row) throws(ResultsError) -> Void) throws(ResultsError) {
        for values in sorted { try body(Leading(values: [values[1], values[0]]), Row(columnNames: ["grp", "rank", "id"], values: tuple(values))) }
    }

    func readRows(keys: [DatabaseValue], _ body: (_ leading: any LeadingValues, _ row: Row) throws(ResultsError) -> Void) throws(ResultsError) {
        for key in keys {
            guard let id = key.int64, let values = table[id], matches(values) else { continue }
            try body(Leading(values: [values[1], values[0]]), Row(columnNames: Self.columns, values: values))
        }
    }
}

/// Leading values held in an array.
struct Leading: LeadingValues {
    var values: [DatabaseValue]
    func value(at index: Int) -> DatabaseValue { values[index] }
}

@Suite("The result engine over a store that is not SQLite", .cpuBound)
struct ResultEngineTests {
    /// Orderings of the section column and of the rank column.
    static let orderings: [[NullPlacingOrdering]] = [
        [NullPlacingOrdering(ascending: true, nullsFirst: true), NullPlacingOrdering(ascending: true, nullsFirst: true)],
        [NullPlacingOrdering(ascending: true, nullsFirst: false), NullPlacingOrdering(ascending: true, nullsFirst: false)],
        [NullPlacingOrdering(ascending: true, nullsFirst: false), NullPlacingOrdering(ascending: false, nullsFirst: true)],
        [NullPlacingOrdering(ascending: false, nullsFirst: false), NullPlacingOrdering(ascending: false, nullsFirst: false)],
    ]

    @Test("Patching equals a fresh read and the report is the diff, with NULLs first or last in either direction", arguments: orderings)
    func patchingFollowsTheStoresOrdering(_ orderings: [NullPlacingOrdering]) throws {
        let seed = testSeed(default: 0xE61)
        var generator = SplitMix64(seed: seed)
        func value(_ range: Range<Int64>, nullOneIn odds: Int) -> DatabaseValue {
            Int.random(in: 0..<odds, using: &generator) == 0 ? .null : .integer(Int64.random(in: range, using: &generator))
        }
        let reader = MemoryRowReader(orderings: orderings + [NullPlacingOrdering(ascending: true, nullsFirst: true)])
        func row(_ id: Int64) -> [DatabaseValue] {
            [.integer(id), value(0..<6, nullOneIn: 7), value(0..<50, nullOneIn: 5), .text(Int.random(in: 0..<10, using: &generator) == 0 ? "hidden" : "t\(id)")]
        }
        for id in 1...300 as ClosedRange<Int64> { reader.table[id] = row(id) }
        var engine = _ResultEngine<EngineItem>()
        engine.install(try _ResultEngine<EngineItem>.fetch(reader, sectioned: true, externalVersion: 0))
        var patched = 0
        for step in 0..<400 {
            let comment: Comment = "seed \(seed), \(orderings), step \(step)"
            // One transaction: what a change source notes, as the hook would.
            var changes = CommittedChanges()
            func touch(_ id: Int64, before: [DatabaseValue]?) {
                let key = DatabaseValue.integer(id)
                if changes.touched[key] == nil { changes.touched[key] = .some(before.map(reader.tuple)) }
            }
            for _ in 0..<Int.random(in: 1...4, using: &generator) {
                let id = Int64.random(in: 1...340, using: &generator)
                let before = reader.table[id]
                switch Int.random(in: 0..<5, using: &generator) {
                case 0:   // the rank changes: a move within the section
                    guard var values = before else { continue }
                    values[2] = value(0..<50, nullOneIn: 5)
                    touch(id, before: before)
                    reader.table[id] = values
                case 1:   // the section changes
                    guard var values = before else { continue }
                    values[1] = value(0..<6, nullOneIn: 7)
                    touch(id, before: before)
                    reader.table[id] = values
                case 2:   // inserted, or replaced
                    touch(id, before: before)
                    reader.table[id] = row(id)
                case 3:   // deleted
                    guard before != nil else { continue }
                    touch(id, before: before)
                    reader.table[id] = nil
                default:   // its key changes
                    let newID = Int64.random(in: 341...400, using: &generator)
                    guard var values = before, reader.table[newID] == nil else { continue }
                    touch(id, before: before)
                    touch(newID, before: nil)
                    values[0] = .integer(newID)
                    reader.table[id] = nil
                    reader.table[newID] = values
                }
            }
            let old = engine.result
            let fresh = try _ResultEngine<EngineItem>.fetch(reader, sectioned: true, externalVersion: 0)
            let expected = FetchedResult(fresh.state).snapshot
            let outcome = engine.apply(changes, isIncremental: true, touchedLimit: .max, externalVersion: 0, sectioned: true, rows: { reader })
            switch outcome {
            case let .patched(report):
                patched += 1
                #expect(engine.result.snapshot == expected, comment)
                let changeset = report?.changeset ?? Changeset()
                #expect(changeset == (try diff(from: old.snapshot, to: expected)), comment)
                #expect(try old.snapshot.applying(changeset, takingValuesFrom: expected) == expected, comment)
            case .mustRefetch:
                _ = try engine.replace(with: fresh)
                #expect(engine.result.snapshot == expected, comment)
            }
        }
        #expect(patched > 300, "seed \(seed), \(orderings): \(patched) of 400 commits patched")
    }

    @Test("The rules send a commit to a re-fetch: a source that asks, too many rows, another writer, patching off")
    func refetchRules() throws {
        let reader = MemoryRowReader(orderings: [SQLiteSortOrdering(collation: .binary, ascending: true), SQLiteSortOrdering(collation: .binary, ascending: true), SQLiteSortOrdering(collation: .binary, ascending: true)])
        for id in 1...10 as ClosedRange<Int64> { reader.table[id] = [.integer(id), .integer(id % 2), .integer(id), "t"] }
        var engine = _ResultEngine<EngineItem>()
        engine.install(try _ResultEngine<EngineItem>.fetch(reader, sectioned: true, externalVersion: 7))
        reader.table[3]?[2] = .integer(100)
        let touched = CommittedChanges(touched: [.integer(3): [.integer(1), .integer(3), .integer(3)]])
        func outcome(_ changes: CommittedChanges, isIncremental: Bool = true, limit: Int = .max, version: Int64? = 7) -> Bool {
            var copy = engine
            if case .patched = copy.apply(changes, isIncremental: isIncremental, touchedLimit: limit, externalVersion: version, sectioned: true, rows: { reader }) { return true }
            return false
        }
        #expect(outcome(touched))
        #expect(!outcome(.refetch))
        #expect(!outcome(touched, limit: 0))
        #expect(!outcome(touched, version: 8), "another connection committed: only a fetch sees it")
        #expect(!outcome(touched, isIncremental: false))
        var unreadable = engine
        let failing = unreadable.apply(touched, isIncremental: true, touchedLimit: .max, externalVersion: 7, sectioned: true, rows: { () throws(ResultsError) -> any RowReader in throw .cancelled })
        guard case .mustRefetch = failing else {
            Issue.record("a reader that cannot be had must re-fetch")
            return
        }
        #expect(unreadable.plan == nil, "patching stops until a fetch succeeds")
    }

    @Test("Merged commits keep each row's place before the first: an insert then a delete, a delete then a re-insert, a key that changes twice")
    func mergedChanges() {
        var first = CommittedChanges(touched: [.integer(1): nil, .integer(2): [.integer(0), .integer(2)]])
        let second = CommittedChanges(touched: [.integer(1): [.integer(5), .integer(1)], .integer(2): nil, .integer(3): [.integer(9), .integer(3)]])
        first.merge(second)
        #expect(first.touched[.integer(1)] == .some(nil), "inserted by the first: it was not there before")
        #expect(first.touched[.integer(2)] == .some([.integer(0), .integer(2)]), "deleted and inserted again: where it was before the first")
        #expect(first.touched[.integer(3)] == .some([.integer(9), .integer(3)]))
        #expect(!first.mustRefetch)
        first.merge(.refetch)
        #expect(first.mustRefetch && first.touched.isEmpty)
        first.merge(CommittedChanges(touched: [.integer(4): nil]))
        #expect(first.mustRefetch && first.touched.isEmpty, "a re-fetch stays a re-fetch")
    }
}
