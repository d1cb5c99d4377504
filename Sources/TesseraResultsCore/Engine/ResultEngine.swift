#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import TesseraDiff

/// The store-independent core of a ``FetchedResultsController``: the
/// result, the kept sort values, and the rules that turn one commit's
/// changes into a report, by patching the result row by row when it can
/// and by fetching again and diffing when it must.
///
/// Pure of any store: it reads rows only through the ``RowReader`` it is
/// handed, and orders values only through the ``SortOrdering``s of the
/// request's ``PatchPlan``. It is where the algorithms live and where
/// their tests can reach them.
struct _ResultEngine<Record: FetchableRecord> {
    /// A result read from a store, with what keeps it up to date.
    struct Fetched {
        var state: _ResultState<Record>
        var plan: PatchPlan?
        var keys: _SortKeyStore
        /// The store's external version, read before the rows: a commit
        /// elsewhere while they were read moves it past this value, so the
        /// next check fetches again rather than miss that commit.
        var externalVersion: Int64?
        /// Where the store's change log stood before the rows were read
        /// (the result is there or later), or `nil`: no log covers it.
        var logPosition: ChangeLogPosition? = nil
    }

    /// What applying a commit came to.
    enum Outcome {
        /// The result is patched; the report, when it changed.
        case patched(ChangeReport<Record>?)
        /// It cannot be patched: fetch again.
        case mustRefetch
    }

    private(set) var result = FetchedResult<Record>()
    /// How commits patch the result, or `nil` when they re-fetch.
    private(set) var plan: PatchPlan?
    private var keys = _SortKeyStore.none
    /// The store's external version when the result was last brought up
    /// to date.
    private(set) var externalVersion: Int64?
    /// Where the store's change log stands for the result: every logged
    /// change after it is still to take (see
    /// ``applyLogged(_:isIncremental:touchedLimit:externalVersion:position:sectioned:rows:)``).
    /// `nil`: no log covers the result, and commits elsewhere re-fetch.
    private(set) var logPosition: ChangeLogPosition?

    /// Bytes the kept sort values take (see ``_SortKeyStore/byteCount``),
    /// 0 when commits re-fetch.
    var keptSortValueByteCount: Int { plan == nil ? 0 : keys.byteCount }

    /// The load of the result's keys, while it may be under way (see
    /// ``_KeyLoad``): taken by ``finishLoading()``.
    private(set) var loading: _KeyLoad<Record>?

    /// Takes a fetched result.
    mutating func install(_ fetched: Fetched) {
        result = FetchedResult(fetched.state)
        plan = fetched.plan
        keys = fetched.keys
        externalVersion = fetched.externalVersion
        logPosition = fetched.logPosition
        loading = fetched.state.load
    }

    /// Takes the kept sort values from the load of the result's keys,
    /// waiting for it to end: what patching a commit needs. A load that
    /// failed stops patching (the next commit fetches again).
    ///
    /// - Returns: The load's failure, if it failed.
    /// - Complexity: O(1), after waiting for the rest of the load.
    @discardableResult
    mutating func finishLoading() -> ResultsError? {
        guard let load = loading else { return nil }
        loading = nil
        switch load.wait() {
        case let .success(fetched):
            keys = fetched.keys
            // The plan is dropped when the rows showed it cannot serve.
            if fetched.plan == nil {
                plan = nil
                keys = .none
            }
            return nil
        case let .failure(error):
            plan = nil
            return error
        }
    }

    /// Commits cannot patch the result until a fetch succeeds (the kept
    /// sort values may be half patched, or older than the store).
    mutating func stopPatching() {
        plan = nil
    }

    /// Notes that the result has taken every logged change up to
    /// `position` (the store said none of them came from elsewhere).
    mutating func advanceLog(to position: ChangeLogPosition) {
        if logPosition != nil { logPosition = position }
    }

    // MARK: Fetching

    /// Reads a request's whole result.
    ///
    /// - Parameters:
    ///   - reader: The request's reads; leading values: the section value,
    ///     then the key.
    ///   - sectioned: Whether the request has a section key.
    ///   - externalVersion: The store's external version, read before.
    /// - Throws: ``ResultsError``: the store's failure, a record that fails
    ///   to decode, a section whose rows are not together, a repeated key.
    /// - Complexity: O(*n*) for *n* rows, plus the store's work.
    static func fetch(
        _ reader: any RowReader, sectioned: Bool, externalVersion: Int64?, faults: _RecordFaults<Record>? = nil
    ) throws(ResultsError) -> Fetched {
        if let faults { return try fetchLazily(reader, sectioned: sectioned, externalVersion: externalVersion, faults: faults) }
        var plan = reader.patchPlan
        var keys = _SortKeyStore(orderings: plan?.orderings ?? [], firstColumnInRuns: sectioned)
        let positions = plan?.tuplePositions ?? []
        let maxPosition = positions.max() ?? 0
        var grouping = _SectionGrouping()
        var items = _ChunkedArray<Record>()
        try reader.readAll { (leading, row) throws(ResultsError) in
            try grouping.add(leading.value(at: 0), at: items.count, plan: &plan) { sectioned && keys.compare($0, $1, column: 0) == 0 }
            do {
                items.append(try Record(row: row))
            } catch {
                throw ResultsError.decoding(key: leading.value(at: 1).description, message: "\(error)")
            }
            if plan != nil {
                guard row.values.count > maxPosition else { plan = nil; return }
                keys.append(row.values, at: positions)
            }
        }
        let (sections, sectionStarts) = grouping.finish(count: items.count)
        keys.settleFirstColumn()
        if !reader.keysAreUnique {
            var seen = Set<Record.ID>(minimumCapacity: items.count)
            for chunk in items.chunks {
                for item in chunk where !seen.insert(item.id).inserted {
                    throw ResultsError.duplicateKey("\(item.id)")
                }
            }
        }
        if plan == nil { keys = .none }
        let state = _ResultState(sections: sections, sectionStarts: sectionStarts, records: items)
        return Fetched(state: state, plan: plan, keys: keys, externalVersion: externalVersion)
    }

    /// Reads a request's rows without their records (see
    /// ``FetchRequest/fetchBatchSize``): each row's section value, sort
    /// values and key. The records come from `faults` when asked for.
    ///
    /// - Throws: as ``fetch(_:sectioned:externalVersion:faults:)``, with a
    ///   repeated key rather than a repeated id.
    /// - Complexity: O(*n*) for *n* rows, plus the store's work; no record
    ///   is read.
    static func fetchLazily(
        _ reader: any RowReader, sectioned: Bool, externalVersion: Int64?, faults: _RecordFaults<Record>
    ) throws(ResultsError) -> Fetched {
        var plan = reader.patchPlan
        // With a plan every row's tuple is kept (its last column is the
        // keys, even if the plan is dropped part-way); without one, the
        // keys alone.
        let keepsTuples = plan != nil
        let width = plan?.orderings.count ?? 0
        var keys = _SortKeyStore(orderings: plan?.orderings ?? [], firstColumnInRuns: sectioned)
        var keyColumn = _KeyColumn()
        var grouping = _SectionGrouping()
        var count = 0
        try reader.readTuples { (leading, row) throws(ResultsError) in
            try grouping.add(leading.value(at: 0), at: count, plan: &plan) { sectioned && keys.compare($0, $1, column: 0) == 0 }
            count += 1
            if keepsTuples {
                guard row.values.count == width else {
                    throw ResultsError.invalidSQL(part: "request", sql: "", problem: "its rows without records have \(row.values.count) values, not \(width)")
                }
                keys.append(row.values)
            } else {
                keyColumn.append(row.values.last ?? leading.value(at: 1))
            }
        }
        let (sections, sectionStarts) = grouping.finish(count: count)
        keys.settleFirstColumn()
        if keepsTuples { keyColumn = keys.columns[keys.columns.count - 1] }
        if plan == nil { keys = .none }
        if !reader.keysAreUnique {
            var seen = Set<DatabaseValue>(minimumCapacity: keyColumn.count)
            for index in 0..<keyColumn.count where !seen.insert(keyColumn[index]).inserted {
                throw ResultsError.duplicateKey(keyColumn[index].description)
            }
        }
        let state = _ResultState(sections: sections, sectionStarts: sectionStarts, keys: keyColumn, faults: faults)
        return Fetched(state: state, plan: plan, keys: keys, externalVersion: externalVersion)
    }

    /// Takes a fresh fetch in place of the result and returns the report of
    /// what changed, or `nil` when nothing did.
    ///
    /// - Throws: ``ResultsError/diff(_:)`` when the fetched records' ids
    ///   repeat (their `id` is not the key); the result is kept then, and
    ///   commits re-fetch. A result before whose ids repeat (a patch gone
    ///   wrong) is replaced, every section reloaded.
    /// - Complexity: O(*n*) and O(*m* log *m*) for *m* moved records (the
    ///   diff).
    mutating func replace(with fetched: Fetched) throws(ResultsError) -> ChangeReport<Record>? {
        let old = result
        let new = FetchedResult(fetched.state)
        let changeset: Changeset
        var updated = Set<DatabaseValue>()
        do throws(ResultsError) {
            if old.state.isLazy, new.state.isLazy {
                updated = try Self.changedRecords(from: old.state, to: new.state)
                changeset = try lazyDiff(from: old.state, to: new.state, updated: updated)
            } else if old.state.isLazy || new.state.isLazy {
                // A request that turns lazy or eager: a lazy result may no
                // longer read its old records, and an eager one's are
                // not to be read just to diff. Every section is reloaded.
                changeset = old.count == 0 && new.count == 0 ? Changeset() : reloadChangeset(from: old.state, to: new.state)
            } else {
                changeset = try recordDiff(from: old.snapshot, to: new.snapshot)
            }
        } catch .diff(let error) where error.side == .old {
            // The result held an id twice, which no fetch gives: only a
            // patch that went wrong can have made it. The fetch takes its
            // place whole, and every section is reloaded, so that the
            // controller never stays wrong.
            changeset = reloadChangeset(from: old.state, to: new.state)
        } catch {
            plan = nil
            throw error
        }
        install(fetched)
        guard !changeset.isEmpty else {
            // The same rows in the same order with the same content: the
            // state shown stays, so that whoever holds it (a data source
            // checking a report's result before) sees no new state; but
            // not a lazy one that reads its records for another request.
            if old.state.faults === new.state.faults { result = old }
            return nil
        }
        return ChangeReport(changeset: changeset, old: old, new: new, updatedKeys: updated)
    }

    /// The keys of the records `old` kept that are in `new` with other
    /// content: read again, compared, and kept as they are now. A lazy
    /// result knows the content only of the records it read; the others
    /// are read as they are when asked for.
    ///
    /// - Complexity: O(*n*) for the keys, and one read of the *c* records
    ///   kept.
    static func changedRecords(from old: _ResultState<Record>, to new: _ResultState<Record>) throws(ResultsError) -> Set<DatabaseValue> {
        guard let oldFaults = old.faults, let newFaults = new.faults, let newKeys = new.keys else { return [] }
        // What the old state showed: the records kept, and those it read
        // by position while its keys loaded.
        let shown = old.load?.shownRecords ?? [:]
        let kept = Set(oldFaults.cachedKeys).union(shown.keys)
        guard !kept.isEmpty else { return [] }
        var present: [DatabaseValue] = []
        for index in 0..<newKeys.count where kept.contains(newKeys[index]) { present.append(newKeys[index]) }
        let (fresh, committed) = try newFaults.readNow(present)
        var changed = Set<DatabaseValue>()
        for key in present {
            guard let record = fresh[key] else { continue }
            if let before = shown[key], before != record { changed.insert(key) }
            if let before = oldFaults.cached(key), before != record { changed.insert(key) }
        }
        if committed { newFaults.keep(fresh.lazy.map { ($0.key, $0.value) }) }
        return changed
    }

    // MARK: Applying a commit

    /// Applies one commit's changes (or several merged): patches the result
    /// when every rule allows it, and says ``Outcome/mustRefetch`` when
    /// the caller must fetch again and ``replace(with:)`` instead. The
    /// rules: the request can be patched (``plan``), patching is on, the
    /// change source did not ask for a re-fetch, at most `touchedLimit`
    /// rows were touched, and nothing else committed meanwhile (the store's
    /// external version is still the one of the last fetch).
    ///
    /// - Parameters:
    ///   - changes: The commit's changes.
    ///   - isIncremental: Whether patching is on.
    ///   - touchedLimit: The most touched rows a patch takes.
    ///   - externalVersion: The store's external version now.
    ///   - sectioned: Whether the request has a section key.
    ///   - rows: The request's reads, in the state after the commit.
    /// - Complexity: as ``patch(_:reading:sectioned:)``, or O(1) when it
    ///   must re-fetch.
    mutating func apply(
        _ changes: CommittedChanges,
        isIncremental: Bool,
        touchedLimit: Int,
        externalVersion: Int64?,
        sectioned: Bool,
        rows: () throws(ResultsError) -> any RowReader
    ) -> Outcome {
        finishLoading()
        guard plan != nil, isIncremental, !changes.mustRefetch, changes.touched.count <= touchedLimit,
              externalVersion == self.externalVersion
        else { return .mustRefetch }
        let reader: any RowReader
        do throws(ResultsError) { reader = try rows() } catch {
            plan = nil
            return .mustRefetch
        }
        return patch(changes.touched, reading: reader, sectioned: sectioned, tuplesAreInResult: changes.rowsAfter != nil)
    }

    /// Applies the changes a store's change log holds after
    /// ``logPosition`` (commits made elsewhere, read as one change), under
    /// the rules of ``apply(_:isIncremental:touchedLimit:externalVersion:sectioned:rows:)``
    /// but for the external version, which the log accounts for: on a
    /// patch the result takes `externalVersion` and `position` as its own.
    ///
    /// - Complexity: as ``patch(_:reading:sectioned:tuplesAreInResult:)``,
    ///   with one search per logged tuple of each touched row.
    mutating func applyLogged(
        _ changes: CommittedChanges,
        isIncremental: Bool,
        touchedLimit: Int,
        externalVersion: Int64?,
        position: ChangeLogPosition,
        sectioned: Bool,
        rows: () throws(ResultsError) -> any RowReader
    ) -> Outcome {
        finishLoading()
        guard plan != nil, logPosition != nil, isIncremental, !changes.mustRefetch, changes.loggedTuples != nil,
              changes.touched.count <= touchedLimit
        else { return .mustRefetch }
        let reader: any RowReader
        do throws(ResultsError) { reader = try rows() } catch {
            plan = nil
            return .mustRefetch
        }
        let outcome = patch(changes.touched, reading: reader, sectioned: sectioned, loggedTuples: changes.loggedTuples)
        if case .patched = outcome {
            self.externalVersion = externalVersion
            logPosition = position
        }
        return outcome
    }

    // MARK: Patching

    /// A change that does not start from the result's state: nothing is
    /// patched, and commits re-fetch until a fetch succeeds.
    private mutating func mismatch() -> Outcome {
        plan = nil
        return .mustRefetch
    }

    /// Patches the result with the rows a commit touched, read back through
    /// `reader` by key, and returns the report; ``Outcome/mustRefetch``
    /// (having changed nothing but ``plan``, which is dropped) when the
    /// commit must re-fetch instead: a row that fails to decode or cannot
    /// be read, a repeated key, sections the patch cannot place, a row the
    /// change says was in the result that is not where it says.
    ///
    /// - Parameters:
    ///   - touched: The rows, by key, with their tuples before the commit
    ///     (see ``CommittedChanges/touched``).
    ///   - reader: The request's reads, in the state after the commit.
    ///   - sectioned: Whether the request has a section key.
    ///   - tuplesAreInResult: Whether a tuple in `touched` is given only
    ///     for a row of the result (a change that carries its rows: see
    ///     ``CommittedChanges/rowsAfter``), rather than for any row of the
    ///     table. A tuple the result then does not hold means the change
    ///     starts from another state than the result's: patching it would
    ///     leave the result wrong (a row inserted again would be there
    ///     twice), so the commit re-fetches.
    ///   - loggedTuples: For a change read from a change log, every tuple
    ///     each touched row had since the log's position (see
    ///     ``CommittedChanges/loggedTuples``): the row is looked for at
    ///     each, and where it is now.
    /// - Complexity: O(*k*) row reads and O(*k* log² *n*) for *k* touched
    ///   rows, plus the chunks they touch (see ``_Patch/apply(to:keys:sectioned:)``).
    ///
    /// - Precondition: no load of the keys is under way
    ///   (``apply(_:isIncremental:touchedLimit:externalVersion:sectioned:rows:)``
    ///   finishes it first).
    mutating func patch(
        _ touched: [DatabaseValue: [DatabaseValue]?], reading reader: any RowReader, sectioned: Bool, tuplesAreInResult: Bool = false,
        loggedTuples: [DatabaseValue: [[DatabaseValue]]]? = nil
    ) -> Outcome {
        guard let plan else { return .mustRefetch }
        let old = result.state
        var patch = _Patch<Record>()
        // A key read twice, or a row too short to hold its tuple.
        var unplaceable = false
        do throws(ResultsError) {
            var seen = Set<DatabaseValue>()
            try reader.readRows(keys: Array(touched.keys)) { (leading, row) throws(ResultsError) in
                let key = leading.value(at: 1)
                guard seen.insert(key).inserted, let tuple = plan.tuple(row.values) else {
                    unplaceable = true
                    return
                }
                let record: Record
                do { record = try Record(row: row) } catch { throw .decoding(key: key.description, message: "\(error)") }
                patch.arrivals.append(.init(key: key, tuple: tuple, section: leading.value(at: 0), record: record))
            }
        } catch {
            self.plan = nil
            return .mustRefetch
        }
        if unplaceable {
            self.plan = nil
            return .mustRefetch
        }
        // Where the rows were: searched for side by side. In a sectioned
        // result, only a row's section is searched. A logged change gives
        // each row every tuple it had since a position at or before the
        // result's state, and the row may also be where it is now: each is
        // searched, and the row is where one is found (a key is in the
        // result once, so at most one is).
        var candidates: [(key: DatabaseValue, tuples: [[DatabaseValue]])] = []
        if let loggedTuples {
            var now: [DatabaseValue: [DatabaseValue]] = [:]
            for arrival in patch.arrivals { now[arrival.key] = arrival.tuple }
            for key in touched.keys {
                var tuples = loggedTuples[key] ?? []
                if let current = now[key] { tuples.append(current) }
                candidates.append((key, tuples))
            }
        } else {
            for (key, before) in touched {
                if let tuple = before { candidates.append((key, [tuple])) }
            }
        }
        var searchedKeys: [DatabaseValue] = []
        var searchedTuples: [[DatabaseValue]] = []
        var searchedRanges: [Range<Int>?] = []
        for (key, tuples) in candidates {
            for tuple in tuples {
                var range: Range<Int>?
                if sectioned {
                    guard let s = keys.section(of: tuple[0], in: old.sections) else {
                        if tuplesAreInResult { return mismatch() }
                        continue
                    }
                    range = old.sectionStarts[s]..<old.sectionStarts[s + 1]
                }
                searchedKeys.append(key)
                searchedTuples.append(tuple)
                searchedRanges.append(range)
            }
        }
        var located = Set<DatabaseValue>()
        for (key, oldFlat) in zip(searchedKeys, keys.find(searchedTuples, within: searchedRanges)) {
            if let oldFlat {
                if located.insert(key).inserted { patch.departures.append(.init(key: key, oldFlat: oldFlat)) }
            } else if tuplesAreInResult {
                return mismatch()
            }
        }
        guard !patch.departures.isEmpty || !patch.arrivals.isEmpty else { return .patched(nil) }
        guard let changes = patch.apply(to: old, keys: &keys, sectioned: sectioned, faults: old.faults) else {
            // The kept sort values may be half patched: until a fetch
            // rebuilds them, commits re-fetch.
            self.plan = nil
            return .mustRefetch
        }
        #if TESSERA_INTERNAL_CHECKS
        // Each row the patch inserted is in the result once (a change that
        // said a row was not there when it was would leave it twice).
        // O(n): checked in tests, on results of up to 100,000 rows.
        let departed = Set(patch.departures.map { $0.key })
        let inserted = Set(patch.arrivals.lazy.map { $0.key }.filter { !departed.contains($0) })
        if !inserted.isEmpty, let keyColumn = keys.columns.last, keyColumn.count <= 100_000 {
            var count = 0
            for index in 0..<keyColumn.count where inserted.contains(keyColumn[index]) { count += 1 }
            if count != inserted.count { return mismatch() }
        }
        #endif
        result = FetchedResult(changes.state)
        guard !changes.changeset.isEmpty else { return .patched(nil) }
        return .patched(ChangeReport(changeset: changes.changeset, old: FetchedResult(old), new: result, updatedKeys: changes.updatedKeys))
    }
}

/// The sections of a result read in order: each row's section value, and
/// the flat offset where each section starts.
struct _SectionGrouping {
    private var sections: [ResultSection] = []
    private var starts = [0]
    private var current: DatabaseValue?
    private var seen = Set<DatabaseValue>()

    /// Takes the next row's section value; `offset` is the row's flat
    /// offset. Sections that sort as equal but differ as values (1 and 1.0,
    /// or "a" and "A" under NOCASE; `sortAsEqual` says) cannot be patched
    /// reliably: `plan` is dropped then, and commits re-fetch.
    ///
    /// - Throws: ``ResultsError/sectionNotContiguous(_:)`` for a section
    ///   whose rows are not together.
    mutating func add(
        _ section: DatabaseValue, at offset: Int, plan: inout PatchPlan?,
        sortAsEqual: (DatabaseValue, DatabaseValue) -> Bool
    ) throws(ResultsError) {
        guard section != current else { return }
        guard seen.insert(section).inserted else { throw .sectionNotContiguous(section.description) }
        if let current {
            if plan != nil, sortAsEqual(current, section) { plan = nil }
            sections.append(ResultSection(value: current))
            starts.append(offset)
        }
        current = section
    }

    /// The sections and their starts, then the count, for `count` rows.
    func finish(count: Int) -> (sections: [ResultSection], starts: [Int]) {
        guard let current else { return (sections, starts) }
        return (sections + [ResultSection(value: current)], starts + [count])
    }
}

extension DiffError {
    /// The snapshot the repeated id is in.
    fileprivate var side: Side {
        switch self {
        case let .duplicateElementID(_, side, _, _), let .duplicateSectionID(_, side, _, _), let .duplicateItemID(_, side, _, _): side
        }
    }
}
