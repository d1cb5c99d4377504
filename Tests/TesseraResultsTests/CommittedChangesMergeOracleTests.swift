import Testing
import TesseraTestTraits
import TesseraDiff
@testable import TesseraResults
@testable import TesseraResultsCore
@testable import TesseraResultsSQLite
import TesseraResultsTestSupport
import TesseraSQLite
import TesseraTestSupport

// No store: a table held in memory, commits made on it at random, and the
// changes each commit hands a controller made from it the way each kind of
// change source makes them. Merged in random groupings, as a controller
// whose home is busy takes them, they must be exactly the sum of their
// commits, and patch the result to what a fresh query reads.

/// The request `WHERE title < 'm' ORDER BY taken DESC NULLS FIRST, id`
/// over a table held in memory, in one section.
final class MergeTableReader: RowReader {
    static let columns = ["id", "title", "taken"]
    static let orderings: [any SortOrdering] = [
        NullPlacingOrdering(ascending: false, nullsFirst: true), NullPlacingOrdering(ascending: true, nullsFirst: true),
    ]
    /// Each row's values, by id: `id, title, taken`.
    var table: [Int64: [DatabaseValue]] = [:]

    var readTables: Set<String> { ["photo"] }
    var patchPlan: PatchPlan? { PatchPlan(tuplePositions: [2, 0], orderings: Self.orderings) }
    var keysAreUnique: Bool { true }
    var keyOrdering: any SortOrdering { SQLiteSortOrdering(collation: .binary, ascending: true) }

    static func tuple(_ values: [DatabaseValue]) -> [DatabaseValue] { [values[2], values[0]] }
    static func matches(_ values: [DatabaseValue]) -> Bool { values[1].string.map { $0 < "m" } ?? false }

    /// The row of `id` in the result, if it is in it.
    func resultRow(_ id: Int64) -> [DatabaseValue]? { table[id].flatMap { Self.matches($0) ? $0 : nil } }

    /// Rows read after the table's, as a store that broke its key would
    /// give them.
    var extraRows: [[DatabaseValue]] = []

    /// The result's rows in order.
    var sorted: [[DatabaseValue]] {
        (table.values + extraRows).filter(Self.matches).sorted { a, b in
            let (x, y) = (Self.tuple(a), Self.tuple(b))
            for c in x.indices {
                let order = Self.orderings[c].compare(x[c], y[c])
                if order != 0 { return order < 0 }
            }
            return false
        }
    }

    func readAll(_ body: (_ leading: any LeadingValues, _ row: Row) throws(ResultsError) -> Void) throws(ResultsError) {
        for values in sorted { try body(Leading(values: [.null, values[0]]), Row(columnNames: Self.columns, values: values)) }
    }

    func readTuples(_ body: (_ leading: any LeadingValues, _ tuple: Row) throws(ResultsError) -> Void) throws(ResultsError) {
        for values in sorted { try body(Leading(values: [.null, values[0]]), Row(columnNames: ["taken", "id"], values: Self.tuple(values))) }
    }

    func readRows(keys: [DatabaseValue], _ body: (_ leading: any LeadingValues, _ row: Row) throws(ResultsError) -> Void) throws(ResultsError) {
        for key in keys {
            guard let id = key.int64, let values = resultRow(id) else { continue }
            try body(Leading(values: [.null, values[0]]), Row(columnNames: Self.columns, values: values))
        }
    }
}

/// One committed transaction on the in-memory table: the ids it wrote, the
/// table before and after it, and whether it emptied the table.
struct MergeCommit {
    var noted: Set<Int64>
    var before: [Int64: [DatabaseValue]]
    var after: [Int64: [DatabaseValue]]
    var truncated: Bool
}

/// How a change source makes a commit's ``CommittedChanges``.
enum MergeSourceKind: String, CaseIterable, CustomStringConvertible {
    /// As PostgreSQL's capture: the rows of the result before (their
    /// tuples) and after (carried), read at the commit's own snapshots; a
    /// TRUNCATE fetches again.
    case carried
    /// As SQLite's hooks: every row of the table the commit touched, with
    /// its tuple before whether or not it matched; the rows after are read
    /// from the store's state after the last commit.
    case hooked

    var description: String { rawValue }
}

@Suite("Merged commits: a merge is the sum of its commits", .tags(.oracle), .cpuBound)
struct CommittedChangesMergeOracleTests {
    static func isInResult(_ values: [DatabaseValue]?) -> Bool { values.map(MergeTableReader.matches) ?? false }

    /// What one commit hands over, as `kind` of source makes it.
    static func changes(of commit: MergeCommit, kind: MergeSourceKind) -> CommittedChanges {
        if commit.truncated { return .refetch }
        var touched: [DatabaseValue: [DatabaseValue]?] = [:]
        switch kind {
        case .carried:
            var rows = CommittedChanges.RowsAfter(columnNames: MergeTableReader.columns)
            for id in commit.noted {
                let before = commit.before[id].flatMap { isInResult($0) ? $0 : nil }
                let after = commit.after[id].flatMap { isInResult($0) ? $0 : nil }
                guard before != nil || after != nil else { continue }
                touched[.integer(id)] = .some(before.map(MergeTableReader.tuple))
                if let after { rows.rows[.integer(id)] = ([.null, .integer(id)], after) }
            }
            return CommittedChanges(touched: touched, rowsAfter: rows)
        case .hooked:
            for id in commit.noted { touched[.integer(id)] = .some(commit.before[id].map(MergeTableReader.tuple)) }
            return CommittedChanges(touched: touched)
        }
    }

    /// The change from the state before `first` to the state after `last`
    /// that a source would make for one transaction doing all they did.
    static func sum(_ commits: ArraySlice<MergeCommit>, kind: MergeSourceKind) -> CommittedChanges {
        guard let first = commits.first, let last = commits.last else { return CommittedChanges() }
        let noted = commits.reduce(into: Set<Int64>()) { $0.formUnion($1.noted) }
        let whole = MergeCommit(noted: noted, before: first.before, after: last.after, truncated: commits.contains { $0.truncated })
        return changes(of: whole, kind: kind)
    }

    /// Whether `merged` says exactly what `sum` says: the same re-fetch,
    /// the same tuple before for every key (a key only `merged` names was in
    /// the result neither before nor after, and says so), the same rows
    /// after.
    static func same(_ merged: CommittedChanges, as sum: CommittedChanges) -> String? {
        if merged.mustRefetch != sum.mustRefetch { return "re-fetch \(merged.mustRefetch), not \(sum.mustRefetch)" }
        if merged.mustRefetch { return nil }
        for (key, tuple) in sum.touched where merged.touched[key].map({ $0 != tuple }) ?? true {
            return "key \(key): before \(String(describing: merged.touched[key])), not \(String(describing: tuple))"
        }
        for (key, tuple) in merged.touched where sum.touched[key] == nil {
            guard tuple == nil, merged.rowsAfter?.rows[key] == nil else { return "key \(key) is touched, though it was in the result neither before nor after" }
        }
        // Nothing touched: nothing to carry (a delivery keeps no empty change).
        if (merged.rowsAfter == nil) != (sum.rowsAfter == nil) && !(merged.touched.isEmpty && sum.touched.isEmpty) { return "rows after carried \(merged.rowsAfter != nil), not \(sum.rowsAfter != nil)" }
        if let rows = merged.rowsAfter?.rows, let expected = sum.rowsAfter?.rows {
            for key in Set(rows.keys).union(expected.keys) where rows[key]?.values != expected[key]?.values || rows[key]?.leading != expected[key]?.leading {
                return "key \(key): row after \(String(describing: rows[key]?.values)), not \(String(describing: expected[key]?.values))"
            }
        }
        return nil
    }

    /// `changes` merged as a random binary tree (the grouping a busy home
    /// and a delivery that merges on both sides would make).
    static func mergedAsTree(_ changes: ArraySlice<CommittedChanges>, using generator: inout SplitMix64) -> CommittedChanges {
        if changes.count == 1 { return changes[changes.startIndex] }
        let split = changes.startIndex + Int.random(in: 1..<changes.count, using: &generator)
        var left = mergedAsTree(changes[..<split], using: &generator)
        left.merge(mergedAsTree(changes[split...], using: &generator))
        return left
    }

    /// A random transaction on `table` (or none: rolled back): inserts,
    /// changes of sort values and of titles across the predicate, deletes,
    /// a key deleted and inserted again, two keys swapped, a key changed,
    /// now and then a TRUNCATE and a fresh set of rows reusing some keys.
    static func randomCommit(_ table: inout [Int64: [DatabaseValue]], using generator: inout SplitMix64) -> MergeCommit? {
        let before = table
        var noted = Set<Int64>()
        var truncated = false
        func title() -> DatabaseValue {
            Int.random(in: 0..<12, using: &generator) == 0 ? .null : .text(String("afkmqz".randomElement(using: &generator)!) + "\(Int.random(in: 0..<9, using: &generator))")
        }
        func taken() -> DatabaseValue {
            Int.random(in: 0..<10, using: &generator) == 0 ? .null : .integer(Int64.random(in: 0..<25, using: &generator))
        }
        func existing() -> Int64? { table.keys.sorted().randomElement(using: &generator) }
        func free() -> Int64? { (1...80).filter { table[Int64($0)] == nil }.randomElement(using: &generator).map(Int64.init) }
        for _ in 0..<Int.random(in: 1...5, using: &generator) {
            switch Int.random(in: 0..<100, using: &generator) {
            case 0..<18:
                guard let id = free() else { continue }
                table[id] = [.integer(id), title(), taken()]
                noted.insert(id)
            case 18..<36:
                guard let id = existing() else { continue }
                table[id]![2] = taken()
                noted.insert(id)
            case 36..<50:
                guard let id = existing() else { continue }
                table[id]![1] = title()
                noted.insert(id)
            case 50..<62:
                guard let id = existing() else { continue }
                table[id] = nil
                noted.insert(id)
            case 62..<74:
                // Deleted and inserted again, with other values.
                guard let id = existing() else { continue }
                table[id] = nil
                table[id] = [.integer(id), title(), taken()]
                noted.insert(id)
            case 74..<84:
                // Two keys swapped through a third.
                guard let a = existing(), let b = existing(), a != b, let spare = free() else { continue }
                var rowA = table[a]!
                var rowB = table[b]!
                table[a] = nil
                rowA[0] = .integer(spare)
                table[spare] = rowA
                table[b] = nil
                rowB[0] = .integer(a)
                table[a] = rowB
                table[spare] = nil
                rowA[0] = .integer(b)
                table[b] = rowA
                noted.formUnion([a, b, spare])
            case 84..<92:
                guard let id = existing(), let newID = free() else { continue }
                var row = table.removeValue(forKey: id)!
                row[0] = .integer(newID)
                table[newID] = row
                noted.formUnion([id, newID])
            case 92..<95:
                // TRUNCATE, then a fresh set of rows, some with old keys.
                truncated = true
                table = [:]
                for id in (1...80).filter({ _ in Int.random(in: 0..<3, using: &generator) == 0 }) {
                    table[Int64(id)] = [.integer(Int64(id)), title(), taken()]
                    noted.insert(Int64(id))
                }
            default:
                // A statement rolled back with its savepoint: nothing.
                break
            }
        }
        if Int.random(in: 0..<12, using: &generator) == 0 {
            table = before
            return nil
        }
        return MergeCommit(noted: noted, before: before, after: table, truncated: truncated)
    }

    /// A receiver that is never reached: the tests take what waits.
    final class UnreachedReceiver: CommitReceiver {
        func receive(_ changes: CommittedChanges, from reader: any StoreReader) {}
        func takeWaitingChanges(isolation: isolated (any Actor)?) {}
    }

    @Test("Random commits (TRUNCATE and a fresh set, a key deleted and inserted again, keys swapped, titles across the predicate) merged in random groupings: each merge is the sum of its commits, whatever the grouping, and patches the result to a fresh query", arguments: MergeSourceKind.allCases)
    func mergesAreTheSumOfTheirCommits(_ kind: MergeSourceKind) throws {
        let base = testSeed(default: 0x3E26_0727)
        for run in 0..<12 as Range<UInt64> {
            let seed = base &+ run &* 0x9E37_79B9
            var generator = SplitMix64(seed: seed)
            let reader = MergeTableReader()
            for id in 1...40 as ClosedRange<Int64> {
                reader.table[id] = [.integer(id), .text(String("afkmqz".randomElement(using: &generator)!)), .integer(id % 25)]
            }
            var engine = _ResultEngine<TitledPhoto>()
            engine.install(try _ResultEngine<TitledPhoto>.fetch(reader, sectioned: false, externalVersion: 0))
            let delivery = CommitDelivery(to: UnreachedReceiver())
            var patched = 0
            var groups = 0
            var table = reader.table
            while groups < 60 {
                var commits: [MergeCommit] = []
                let wanted = Int.random(in: 1...7, using: &generator)
                while commits.count < wanted {
                    if let commit = Self.randomCommit(&table, using: &generator) { commits.append(commit) }
                }
                groups += 1
                let comment: Comment = "seed \(seed) (TESSERA_SEED=\(base) replays), \(kind) source, group \(groups) of \(commits.count) commits"
                let each = commits.map { Self.changes(of: $0, kind: kind) }
                var folded = each[0]
                for later in each.dropFirst() { folded.merge(later) }
                let tree = Self.mergedAsTree(each[...], using: &generator)
                for change in each { delivery.deliverLater(change) }
                let waited = delivery.takeWaiting() ?? CommittedChanges()
                let sum = Self.sum(commits[...], kind: kind)
                if let problem = Self.same(folded, as: sum) { Issue.record("\(comment): merged one by one: \(problem)") }
                if let problem = Self.same(tree, as: sum) { Issue.record("\(comment): merged as a tree: \(problem)") }
                if let problem = Self.same(waited, as: sum) { Issue.record("\(comment): merged while waiting: \(problem)") }

                // The merge patches the result from the state before the
                // first commit to the state after the last.
                reader.table = table
                let expected = FetchedResult(try _ResultEngine<TitledPhoto>.fetch(reader, sectioned: false, externalVersion: 0).state).snapshot
                let old = engine.result
                let outcome = engine.apply(folded, isIncremental: true, touchedLimit: .max, externalVersion: 0, sectioned: false) { () throws(ResultsError) in
                    folded.reading(reader)
                }
                switch outcome {
                case let .patched(report):
                    patched += 1
                    #expect(engine.result.snapshot == expected, comment)
                    let changeset = report?.changeset ?? Changeset()
                    #expect(try old.snapshot.applying(changeset, takingValuesFrom: expected) == expected, comment)
                case .mustRefetch:
                    #expect(folded.mustRefetch, "\(comment): a merge that is the sum of its commits must patch")
                    _ = try engine.replace(with: try _ResultEngine<TitledPhoto>.fetch(reader, sectioned: false, externalVersion: 0))
                }
                let ids = engine.result.snapshot.allItems.map(\.id)
                #expect(Set(ids).count == ids.count, "\(comment): an id is in the result twice")
                if engine.result.snapshot != expected { return }
            }
            #expect(patched >= 20, "seed \(seed), \(kind) source: \(patched) of \(groups) merges patched")
        }
    }

    /// A result over 20 rows, all in it (titles before "m").
    static func smallResult() throws -> (MergeTableReader, _ResultEngine<TitledPhoto>) {
        let reader = MergeTableReader()
        for id in 1...20 as ClosedRange<Int64> { reader.table[id] = [.integer(id), .text("a\(id)"), .integer(id)] }
        var engine = _ResultEngine<TitledPhoto>()
        engine.install(try _ResultEngine<TitledPhoto>.fetch(reader, sectioned: false, externalVersion: 0))
        return (reader, engine)
    }

    @Test("A change that carries its rows and says a row was where the result does not have it re-fetches instead of patching (a row inserted again would be there twice)")
    func changeFromAnotherStateRefetches() throws {
        let (reader, start) = try Self.smallResult()
        // Row 5 was at taken 5: the change says it was at taken 50 (it
        // starts from a state the result never had), and carries it after.
        reader.table[5] = [.integer(5), .text("a5"), .integer(7)]
        var rows = CommittedChanges.RowsAfter(columnNames: MergeTableReader.columns)
        rows.rows[.integer(5)] = ([.null, .integer(5)], reader.table[5]!)
        let lying = CommittedChanges(touched: [.integer(5): [.integer(50), .integer(5)]], rowsAfter: rows)
        var engine = start
        let outcome = engine.apply(lying, isIncremental: true, touchedLimit: .max, externalVersion: 0, sectioned: false) { () throws(ResultsError) in
            lying.reading(reader)
        }
        guard case .mustRefetch = outcome else {
            Issue.record("the change was patched: \(engine.result.snapshot.allItems.map(\.id))")
            return
        }
        #expect(engine.plan == nil, "commits re-fetch until a fetch succeeds")
        #expect(engine.result.snapshot == start.result.snapshot, "nothing was patched")
        let fresh = try _ResultEngine<TitledPhoto>.fetch(reader, sectioned: false, externalVersion: 0)
        _ = try engine.replace(with: fresh)
        #expect(engine.result.snapshot == FetchedResult(fresh.state).snapshot)
        #expect(engine.plan != nil, "the fetch patches again")

        // The same row said to be at its true place is patched.
        var honest = start
        let truthful = CommittedChanges(touched: [.integer(5): [.integer(5), .integer(5)]], rowsAfter: rows)
        guard case .patched = honest.apply(truthful, isIncremental: true, touchedLimit: .max, externalVersion: 0, sectioned: false, rows: { () throws(ResultsError) in truthful.reading(reader) }) else {
            Issue.record("a change from the result's own state must patch")
            return
        }
        #expect(honest.result.snapshot == FetchedResult(fresh.state).snapshot)
    }

    @Test("A result left holding an id twice (a patch gone wrong) is replaced whole by the next fetch, every section reloaded, and patches again after")
    func resultWithARepeatedIDRecovers() throws {
        let (reader, _) = try Self.smallResult()
        // A state that holds row 5 twice, as only a wrong patch makes.
        reader.extraRows = [[.integer(5), .text("a5 again"), .integer(15)]]
        var engine = _ResultEngine<TitledPhoto>()
        engine.install(try _ResultEngine<TitledPhoto>.fetch(reader, sectioned: false, externalVersion: 0))
        let ids = engine.result.snapshot.allItems.map(\.id)
        try #require(ids.count == Set(ids).count + 1, "the test needs a result that holds an id twice")
        reader.extraRows = []
        reader.table[21] = [.integer(21), .text("a21"), .integer(21)]
        let fresh = try _ResultEngine<TitledPhoto>.fetch(reader, sectioned: false, externalVersion: 0)
        let old = engine.result
        let report = try engine.replace(with: fresh)
        let expected = FetchedResult(fresh.state).snapshot
        #expect(engine.result.snapshot == expected)
        #expect(report?.changeset.sectionDeletes == Array(0..<old.snapshot.numberOfSections) && report?.changeset.sectionInserts == Array(0..<expected.numberOfSections),
                "every section is reloaded: \(String(describing: report?.changeset))")
        #expect(report?.newSnapshot == expected)

        // It follows commits row by row again.
        reader.table[3]![2] = .integer(40)
        let change = CommittedChanges(touched: [.integer(3): [.integer(3), .integer(3)]])
        guard case .patched = engine.apply(change, isIncremental: true, touchedLimit: .max, externalVersion: 0, sectioned: false, rows: { reader }) else {
            Issue.record("the fetched result must patch again")
            return
        }
        #expect(engine.result.snapshot == FetchedResult(try _ResultEngine<TitledPhoto>.fetch(reader, sectioned: false, externalVersion: 0).state).snapshot)
    }
}
