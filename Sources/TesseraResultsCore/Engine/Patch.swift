#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import TesseraDiff

/// Where a row a transaction touched was: its key and its flat offset in
/// the result before. Outside ``_Patch``, which is generic over its
/// records, so that sorting and copying departures is compiled for this
/// type rather than through its metadata at run time.
struct _PatchDeparture {
    var key: DatabaseValue
    var oldFlat: Int
}

/// A section while a patch is built: its value, its count, and its index
/// in the old result (-1 for a new one). Outside ``_Patch``, so that the
/// loops over every section are compiled for this type, not for a generic
/// one (a patch of one row in a result of 1,024 sections spent most of its
/// time in the generic code).
private struct _PatchSectionGroup {
    var value: DatabaseValue
    var count: Int
    var old: Int
}

/// The sections' starts after a patch that leaves every section in place:
/// each row that arrives joins a section there is (the same value), and
/// none is left empty; `nil` when a section comes or goes. The sections'
/// values are not copied. A result holds no empty section, so only the
/// sections from the first one touched on are checked.
///
/// - Complexity: O(*k* log *s*) for *k* rows departed or arrived and *s*
///   sections, plus a pass over the starts (integers only).
private func _sectionStartsKeepingSections(
    _ sections: [ResultSection], starts: [Int], departureSections: [Int], arrivalSections: [DatabaseValue],
    compare: (DatabaseValue, DatabaseValue) -> Int
) -> [Int]? {
    var moved: [(section: Int, by: Int)] = []
    moved.reserveCapacity(departureSections.count + arrivalSections.count)
    for s in departureSections { moved.append((s, -1)) }
    for value in arrivalSections {
        var low = 0
        var high = sections.count
        while low < high {
            let mid = (low + high) / 2
            if compare(sections[mid].value, value) < 0 { low = mid + 1 } else { high = mid }
        }
        guard low < sections.count, compare(sections[low].value, value) == 0, sections[low].value == value else { return nil }
        moved.append((low, 1))
    }
    guard !moved.isEmpty else { return starts }
    moved.sort { $0.section < $1.section }
    var result = starts
    var shift = 0
    var m = 0
    for s in moved[0].section..<sections.count {
        while m < moved.count && moved[m].section == s {
            shift += moved[m].by
            m += 1
        }
        result[s + 1] += shift
        // A section left empty goes.
        if result[s + 1] <= result[s] { return nil }
    }
    return result
}

/// The sections after a patch, made again: the ones that keep a row, and
/// the new ones the arrivals start, each with its start, and the maps
/// between new and old sections (-1: none); `nil` when an arrival's
/// section sorts with one there is but is another value.
///
/// - Complexity: O(*s* + *k* log *s*) for *s* sections and *k* rows
///   departed or arrived.
private func _sectionsRemade(
    _ oldSections: [ResultSection], starts oldStarts: [Int], departureSections: [Int], arrivalSections: [DatabaseValue],
    compare: (DatabaseValue, DatabaseValue) -> Int
) -> (sections: [ResultSection], starts: [Int], newToOld: [Int], oldToNew: [Int])? {
    var groups: [_PatchSectionGroup] = []
    groups.reserveCapacity(oldSections.count + arrivalSections.count)
    for s in 0..<oldSections.count {
        groups.append(_PatchSectionGroup(value: oldSections[s].value, count: oldStarts[s + 1] - oldStarts[s], old: s))
    }
    for s in departureSections { groups[s].count -= 1 }
    for value in arrivalSections {
        var low = 0
        var high = groups.count
        while low < high {
            let mid = (low + high) / 2
            if compare(groups[mid].value, value) < 0 { low = mid + 1 } else { high = mid }
        }
        if low < groups.count && compare(groups[low].value, value) == 0 {
            guard groups[low].value == value else { return nil }
            groups[low].count += 1
        } else {
            groups.insert(_PatchSectionGroup(value: value, count: 1, old: -1), at: low)
        }
    }
    guard groups.allSatisfy({ $0.count >= 0 }) else { return nil }
    var sections: [ResultSection] = []
    var starts = [0]
    var newToOld: [Int] = []
    var oldToNew = [Int](repeating: -1, count: oldSections.count)
    for group in groups where group.count > 0 {
        if group.old >= 0 { oldToNew[group.old] = sections.count }
        newToOld.append(group.old)
        sections.append(ResultSection(value: group.value))
        starts.append(starts[starts.count - 1] + group.count)
    }
    return (sections, starts, newToOld, oldToNew)
}

/// The rows one transaction touched, and how they patch a result: where
/// each was (a departure) and where it is now (an arrival). A row can be
/// both, either or neither (a row outside the result before and after).
///
/// ``apply(to:keys:sectioned:)`` builds the new result and the changeset
/// that ``TesseraDiff/diff(from:to:)`` would give for the two results,
/// without looking at the rows the transaction did not touch, except where
/// a move's minimality depends on them (see ``window``).
struct _Patch<Record: FetchableRecord> {
    typealias Departure = _PatchDeparture

    struct Arrival {
        var key: DatabaseValue
        var tuple: [DatabaseValue]
        var section: DatabaseValue
        var record: Record
        var newFlat = -1
    }

    struct Outcome {
        var state: _ResultState<Record>
        var changeset: Changeset
        /// The keys of the rows reported as updated.
        var updatedKeys: Set<DatabaseValue> = []
    }

    var departures: [Departure] = []
    var arrivals: [Arrival] = []

    /// Patches `old` (and `keys`, which must hold its sort values) and
    /// returns the new result with its changeset, or `nil` when the patch
    /// cannot be placed reliably (a repeated key, or a section value that
    /// sorts as equal to a neighbour's but differs from it); `keys` may be
    /// half patched then.
    ///
    /// A lazy result (`faults` given) keeps no records: the new state's
    /// keys are the kept sort values' key column, the arrivals' records go
    /// to `faults`, and a row that stays is reported as updated (there is
    /// no record before to compare with).
    ///
    /// - Complexity: O(*k* log² *n* + *t* · *m* + *c* + *s* + *w* log *k*)
    ///   for *k* touched rows in *t* chunks of at most *m* records, *c*
    ///   chunks, *s* sections and *w* rows in the windows where touched rows
    ///   moved within a section (see ``window``).
    mutating func apply(to old: _ResultState<Record>, keys: inout _SortKeyStore, sectioned: Bool, faults: _RecordFaults<Record>? = nil) -> Outcome? {
        departures.sort { $0.oldFlat < $1.oldFlat }
        let removed = departures.map { $0.oldFlat }
        let departureSections = removed.map(old.section(ofFlatOffset:))
        let isLazy = faults != nil
        let oldCount = keys.count
        // Each arrival's place among the rows that stay, searched for in
        // the kept values before the patch (which still hold the departed
        // rows, skipped by counting them): the first row that does not sort
        // before it, less the departed rows before that one. Arrivals are
        // put in order by it (and by their values where two share a place).
        // In a sectioned result an arrival whose section was there is
        // searched for in that section only.
        func departedBelow(_ x: Int) -> Int {
            var low = 0
            var high = removed.count
            while low < high {
                let mid = (low + high) / 2
                if removed[mid] < x { low = mid + 1 } else { high = mid }
            }
            return low
        }
        // A row that left a place usually comes back to it (its sort
        // values did not change, or not by much): its place among the rows
        // that stay is checked against the rows that stay on either side
        // first, past the departed rows next to it (`runStart` and
        // `runEnd`: the run of adjacent departed rows it is in).
        var departureIndex: [DatabaseValue: Int] = [:]
        departureIndex.reserveCapacity(departures.count)
        for (d, departure) in departures.enumerated() { departureIndex[departure.key] = d }
        var runStart = Array(removed.indices)
        for d in removed.indices.dropFirst() where removed[d - 1] == removed[d] - 1 { runStart[d] = runStart[d - 1] }
        var runEnd = Array(removed.indices)
        for d in removed.indices.reversed().dropFirst() where removed[d + 1] == removed[d] + 1 { runEnd[d] = runEnd[d + 1] }
        func fitsAt(departure d: Int, _ tuple: [DatabaseValue]) -> Bool {
            let before = removed[runStart[d]] - 1
            let after = removed[runEnd[d]] + 1
            return (before < 0 || keys.compare(row: before, with: tuple) < 0)
                && (after == oldCount || keys.compare(row: after, with: tuple) > 0)
        }
        var places: [(position: Int, arrival: Int)] = []
        places.reserveCapacity(arrivals.count)
        // The others are searched for side by side.
        var searched: [Int] = []
        var searchedRanges: [Range<Int>?] = []
        for (i, arrival) in arrivals.enumerated() {
            if let d = departureIndex[arrival.key], fitsAt(departure: d, arrival.tuple) {
                places.append((departures[d].oldFlat - d, i))
                continue
            }
            var range: Range<Int>?
            if sectioned, let s = keys.section(of: arrival.tuple[0], in: old.sections) {
                range = old.sectionStarts[s]..<old.sectionStarts[s + 1]
            }
            searched.append(i)
            searchedRanges.append(range)
        }
        let bounds = keys.lowerBounds(searched.map { arrivals[$0].tuple }, within: searchedRanges)
        for (i, bound) in zip(searched, bounds) {
            // Only the row at the bound can have the arrival's values; one
            // that stays there makes the patch unplaceable.
            let below = departedBelow(bound)
            let departed = below < removed.count && removed[below] == bound
            if bound < oldCount && !departed && keys.compare(row: bound, with: arrivals[i].tuple) == 0 { return nil }
            places.append((bound - below, i))
        }
        // The comparisons read the tuples only, not the generic arrivals.
        let unsortedTuples = arrivals.map { $0.tuple }
        places.sort { a, b in
            a.position != b.position ? a.position < b.position : keys.compare(unsortedTuples[a.arrival], unsortedTuples[b.arrival]) < 0
        }
        arrivals = places.map { arrivals[$0.arrival] }
        let tuples = places.map { unsortedTuples[$0.arrival] }
        // Where each arrival ends: its place plus the arrivals before it.
        var offsets: [Int] = []
        offsets.reserveCapacity(arrivals.count)
        for (i, place) in places.enumerated() {
            if i > 0 && place.position == places[i - 1].position && keys.compare(tuples[i - 1], tuples[i]) == 0 { return nil }
            offsets.append(place.position + i)
        }
        // Each chunk the patch touches is made again once, for its
        // departures and arrivals together.
        keys.replace(removing: removed, inserting: tuples, atSortedOffsets: offsets)
        var records = old.records
        if !isLazy { records.replace(removing: removed, inserting: arrivals.map { $0.record }, atSortedOffsets: offsets) }
        for i in arrivals.indices { arrivals[i].newFlat = offsets[i] }

        // Sections, by count.
        func compareSections(_ a: DatabaseValue, _ b: DatabaseValue) -> Int {
            sectioned ? keys.compare(a, b, column: 0) : 0
        }
        // A section value read beside an arrival that sorts with its own but
        // is another value (`"a"` and `"A"` under NOCASE) cannot be placed.
        if sectioned {
            for arrival in arrivals {
                for neighbour in [arrival.newFlat - 1, arrival.newFlat + 1] where neighbour >= 0 && neighbour < keys.count {
                    let value = keys.value(atRow: neighbour, column: 0)
                    if compareSections(value, arrival.section) == 0 && value != arrival.section { return nil }
                }
            }
        }
        var sections: [ResultSection]
        var starts: [Int]
        var newToOld: [Int]
        var oldToNew: [Int]
        let arrivalSections = arrivals.map { $0.section }
        if let moved = _sectionStartsKeepingSections(
            old.sections, starts: old.sectionStarts, departureSections: departureSections, arrivalSections: arrivalSections, compare: compareSections
        ) {
            // No section comes or goes: the sections are the ones before
            // (shared, not copied), and only their starts move.
            sections = old.sections
            starts = moved
            newToOld = Array(old.sections.indices)
            oldToNew = newToOld
        } else {
            guard let remade = _sectionsRemade(
                old.sections, starts: old.sectionStarts, departureSections: departureSections, arrivalSections: arrivalSections, compare: compareSections
            ) else { return nil }
            (sections, starts, newToOld, oldToNew) = remade
        }
        guard starts[starts.count - 1] == (isLazy ? keys.count : records.count) else { return nil }
        let new: _ResultState<Record>
        if let faults, let keyColumn = keys.columns.last {
            new = _ResultState(sections: sections, sectionStarts: starts, keys: keyColumn, faults: faults)
            // Departed rows stay kept until evicted: a report's result
            // before can still read the records that were on screen.
            faults.keep(arrivals.lazy.map { ($0.key, $0.record) })
        } else {
            new = _ResultState(sections: sections, sectionStarts: starts, records: records)
        }
        var updatedKeys = Set<DatabaseValue>()

        var changeset = Changeset()
        for s in old.sections.indices where oldToNew[s] < 0 { changeset.sectionDeletes.append(s) }
        for t in sections.indices where newToOld[t] < 0 { changeset.sectionInserts.append(t) }

        func oldPath(_ flat: Int, _ s: Int) -> IndexPath { IndexPath(item: flat - old.sectionStarts[s], section: s) }
        func newPath(_ flat: Int, _ t: Int) -> IndexPath { IndexPath(item: flat - starts[t], section: t) }

        // The old flat offset of each delete, update and move, for sorting
        // them by integers rather than by index paths.
        var deleteFlats: [Int] = []
        var updateFlats: [Int] = []
        var moveFlats: [Int] = []
        // Pairs by key, through the departures' index made for placing.
        var paired = [Bool](repeating: false, count: departures.count)
        // Rows that stayed in their section: the section, and their old and
        // new flat offsets.
        var stayed: [(section: Int, old: Int, new: Int)] = []
        for arrival in arrivals {
            let t = new.section(ofFlatOffset: arrival.newFlat)
            let to = newPath(arrival.newFlat, t)
            guard let d = departureIndex[arrival.key] else {
                if newToOld[t] >= 0 { changeset.itemInserts.append(to) }
                continue
            }
            paired[d] = true
            let departure = departures[d]
            let s = departureSections[d]
            let from = oldPath(departure.oldFlat, s)
            switch (oldToNew[s] >= 0, newToOld[t] >= 0) {
            case (true, false):
                changeset.itemDeletes.append(from)
                deleteFlats.append(departure.oldFlat)
            case (false, true): changeset.itemInserts.append(to)
            case (false, false): break
            case (true, true):
                if isLazy || old.records[departure.oldFlat] != arrival.record {
                    changeset.itemUpdates.append(Move(from: from, to: to))
                    updateFlats.append(departure.oldFlat)
                    if isLazy { updatedKeys.insert(arrival.key) }
                }
                if oldToNew[s] == t {
                    stayed.append((t, departure.oldFlat, arrival.newFlat))
                } else {
                    changeset.itemMoves.append(Move(from: from, to: to))
                    moveFlats.append(departure.oldFlat)
                }
            }
        }
        for (d, departure) in departures.enumerated() where !paired[d] && oldToNew[departureSections[d]] >= 0 {
            changeset.itemDeletes.append(oldPath(departure.oldFlat, departureSections[d]))
            deleteFlats.append(departure.oldFlat)
        }

        let untouched = _Offsets(removed: removed, added: offsets)
        stayed.sort { $0.section < $1.section }
        var moves: [(old: Int, new: Int)] = []
        var first = 0
        while first < stayed.count {
            let t = stayed[first].section
            var end = first + 1
            while end < stayed.count && stayed[end].section == t { end += 1 }
            let s = newToOld[t]
            moves.removeAll(keepingCapacity: true)
            window(stayed[first..<end], oldSection: old.sectionStarts[s]..<old.sectionStarts[s + 1], offsets: untouched, moves: &moves)
            for move in moves {
                changeset.itemMoves.append(Move(from: oldPath(move.old, s), to: newPath(move.new, t)))
                moveFlats.append(move.old)
            }
            first = end
        }

        // Inserts come in new order already (arrivals are in new order).
        changeset.itemDeletes = _sorted(changeset.itemDeletes, byOffsets: deleteFlats)
        changeset.itemUpdates = _sorted(changeset.itemUpdates, byOffsets: updateFlats)
        changeset.itemMoves = _sorted(changeset.itemMoves, byOffsets: moveFlats)
        return Outcome(state: new, changeset: changeset, updatedKeys: updatedKeys)
    }

    /// Adds to `moves` the rows that move within one section: those outside
    /// the longest increasing subsequence that ``TesseraDiff/diff(from:to:)``
    /// picks.
    ///
    /// Rows the transaction did not touch keep their order. Before the
    /// first touched row that moved, and after the last, they form runs
    /// that every choice of subsequence keeps whole, and that do not change
    /// which of the rows between them it keeps: so the subsequence is found
    /// over that window only, with the same algorithm. A single touched row
    /// that crossed two or more others moves (keeping it would drop both),
    /// so its window is not even read.
    ///
    /// - Complexity: O(*w* + log *k*) for a window of *w* rows; O(log *k*)
    ///   for a single row.
    private func window(
        _ rows: ArraySlice<(section: Int, old: Int, new: Int)>,
        oldSection: Range<Int>,
        offsets: _Offsets,
        moves: inout [(old: Int, new: Int)]
    ) {
        let only = rows[rows.startIndex]
        var oldMin = only.old
        var oldMax = oldMin
        var start = only.new
        var end = start
        for row in rows.dropFirst() {
            oldMin = Swift.min(oldMin, row.old)
            oldMax = Swift.max(oldMax, row.old)
            start = Swift.min(start, row.new)
            end = Swift.max(end, row.new)
        }
        let firstRank = offsets.untouchedRank(ofOld: oldSection.lowerBound)
        let endRank = offsets.untouchedRank(ofOld: oldSection.upperBound)
        // The first untouched row after the earliest old offset, and the
        // last before the latest: the window reaches them.
        let after = offsets.untouchedRank(ofOld: oldMin + 1)
        if after < endRank { start = Swift.min(start, offsets.newOffset(ofUntouchedRank: after)) }
        let before = offsets.untouchedRank(ofOld: oldMax) - 1
        if before >= firstRank { end = Swift.max(end, offsets.newOffset(ofUntouchedRank: before)) }

        let untouched = offsets.untouchedRank(ofNew: end + 1) - offsets.untouchedRank(ofNew: start)
        if rows.count == 1 {
            if untouched == 0 { return }
            if untouched >= 2 {
                moves.append((only.old, only.new))
                return
            }
        }

        var oldOfNew: [Int: Int] = [:]
        for row in rows { oldOfNew[row.new] = row.old }
        let width = end - start + 1
        var values = [Int32](repeating: -1, count: width)
        offsets.forEachNewOffset(in: start...end) { y, old in
            if let x = old ?? oldOfNew[y] { values[y - start] = Int32(truncatingIfNeeded: x) }
        }
        var keep = [Bool](repeating: false, count: width)
        let workspace = _LISWorkspace(capacity: width)
        defer { workspace.deallocate() }
        values.withUnsafeBufferPointer { values in
            keep.withUnsafeMutableBufferPointer { keep in
                workspace.markLongestIncreasing(values: values, keep: keep)
            }
        }
        for k in 0..<width where values[k] >= 0 && !keep[k] {
            moves.append((Int(values[k]), start + k))
        }
    }
}

/// `items` in the order of `offsets` (one distinct offset an item): a sort
/// of integers, in place of one of index paths.
///
/// - Complexity: O(*n* log *n*).
func _sorted<T>(_ items: [T], byOffsets offsets: [Int]) -> [T] {
    offsets.indices.sorted { offsets[$0] < offsets[$1] }.map { items[$0] }
}

/// Maps the offsets of the rows a patch did not touch between the old and
/// the new result, given the sorted offsets of the rows it removed (old)
/// and added (new). Untouched rows keep their order, so the *r*-th of them
/// in the old result is the *r*-th in the new.
struct _Offsets {
    let removed: [Int]
    let added: [Int]

    /// How many of `sorted` are below `x`.
    private static func countBelow(_ x: Int, in sorted: [Int]) -> Int {
        var low = 0
        var high = sorted.count
        while low < high {
            let mid = (low + high) / 2
            if sorted[mid] < x { low = mid + 1 } else { high = mid }
        }
        return low
    }

    /// The offset of the `rank`-th position not in `sorted`: `rank` plus
    /// the number of `sorted[j]` with `sorted[j] - j <= rank`.
    private static func offset(ofRank rank: Int, skipping sorted: [Int]) -> Int {
        var low = 0
        var high = sorted.count
        while low < high {
            let mid = (low + high) / 2
            if sorted[mid] - mid <= rank { low = mid + 1 } else { high = mid }
        }
        return rank + low
    }

    /// The number of untouched rows before old offset `x`.
    func untouchedRank(ofOld x: Int) -> Int { x - Self.countBelow(x, in: removed) }
    /// The number of untouched rows before new offset `y`.
    func untouchedRank(ofNew y: Int) -> Int { y - Self.countBelow(y, in: added) }
    /// The new offset of the `rank`-th untouched row.
    func newOffset(ofUntouchedRank rank: Int) -> Int { Self.offset(ofRank: rank, skipping: added) }
    /// Calls `body` with each new offset of `range`, in order, and the old
    /// offset of the untouched row there (`nil` for an added row): one
    /// pass with a cursor in each list, not a search per offset.
    ///
    /// - Complexity: O(*w* + log *k*) for *w* offsets and *k* touched rows.
    func forEachNewOffset(in range: ClosedRange<Int>, _ body: (_ new: Int, _ old: Int?) -> Void) {
        var a = Self.countBelow(range.lowerBound, in: added)
        var rank = range.lowerBound - a
        // The removed rows before the untouched row of this rank: those
        // with removed[r] - r <= rank (see offset(ofRank:skipping:)).
        var r = Self.offset(ofRank: rank, skipping: removed) - rank
        for y in range {
            if a < added.count && added[a] == y {
                a += 1
                body(y, nil)
                continue
            }
            while r < removed.count && removed[r] - r <= rank { r += 1 }
            body(y, rank + r)
            rank += 1
        }
    }
}
