import Foundation
import OrderedCollections
import TesseraDemoPhotos
import TesseraDiff
import TesseraRender

/// `tessera bench diff`: diffs two lists or sectioned snapshots (generated
/// with a share of changes, or the user's own) with Tessera, with the least
/// a `Dictionary`-based diff must do, with the standard library's
/// `difference(from:).inferringMoves()` (up to a size limit) and with
/// swift-collections' `OrderedSet.difference(from:)`, at one size or a
/// sweep of sizes, and reports each method's median and 90th percentile
/// time, its allocations, the changes it found, and how its time grows.
package struct BenchRun: Sendable {
    /// The kind of ids.
    package enum IDKind: String, Sendable, CaseIterable {
        /// Random 64-bit integers.
        case int
        /// Random version-4 UUIDs.
        case uuid
    }

    /// Elements in the old list, from 1 to ``maximumCount`` (generated data
    /// without a ``sweep``).
    package var count: Int
    /// The most elements a list may have: ten million, so that a mistyped
    /// count is an option error rather than a crash when memory runs out.
    package static let maximumCount = 10_000_000
    /// The share of elements changed, in percent: split evenly into
    /// deletes, inserts, moves and content updates.
    package var changesPercent: Double
    /// The kind of ids.
    package var ids: IDKind
    /// The number of sections (1: a flat list).
    package var sections: Int
    /// The seed of the generator.
    package var seed: UInt64
    /// How many times each method runs; the median is reported.
    package var runs: Int
    /// Above this many elements, `difference(from:)` (O(*n*·*d*)) is left out.
    package var swiftLimit: Int
    /// JSON instead of a table.
    package var json: Bool
    /// The snapshots to measure; `nil` measures generated lists.
    package var input: BenchInput?
    /// The sizes to measure, ascending: element counts of the generated old
    /// list, or for an ``input`` the item counts its old snapshot is scaled
    /// to (see ``BenchInput/tiled(_:option:)``; each size is rounded to a
    /// whole number of copies). `nil`: one size, ``count`` or the input.
    package var sweep: [Int]?
    /// How many copies of the ``input`` to measure (`--scale`); `nil` or 1:
    /// the input as it is.
    package var scale: Int?
    /// Where to write a page with a chart of time against size, or `nil`.
    package var htmlPath: String?
    /// The command line, as printed on the chart.
    package var commandLine: String
    /// A running count of `malloc` calls in the process, or `nil` when the
    /// executable cannot count them; a negative reading also means "not
    /// measured".
    package var allocationCount: (@Sendable () -> Int64)?

    /// Creates a run of generated data; set ``input``, ``sweep``,
    /// ``scale`` and the other properties for more.
    package init(count: Int, changesPercent: Double, ids: IDKind = .int, sections: Int = 1, seed: UInt64 = 1,
                runs: Int = 7, swiftLimit: Int = 20_000, json: Bool = false) {
        self.count = count
        self.changesPercent = changesPercent
        self.ids = ids
        self.sections = sections
        self.seed = seed
        self.runs = runs
        self.swiftLimit = swiftLimit
        self.json = json
        self.commandLine = "tessera bench diff"
    }

    /// The changes a method found. `nil` where the method does not tell
    /// (the `Dictionary` floor finds no moves; the standard library's and
    /// OrderedSet's differences, over ids, see no content changes).
    package struct Counts: Sendable, Hashable {
        /// Elements removed.
        package var deletes: Int
        /// Elements added.
        package var inserts: Int
        /// Elements moved.
        package var moves: Int?
        /// Elements whose content changed.
        package var updates: Int?
        /// Section deletes, inserts, moves and updates, for Tessera's diff
        /// of sectioned snapshots (items in a deleted or inserted section
        /// go with it, and are not counted above); `nil` otherwise.
        package var sections: [Int]?

        /// Creates counts.
        package init(deletes: Int, inserts: Int, moves: Int?, updates: Int?, sections: [Int]? = nil) {
            self.deletes = deletes
            self.inserts = inserts
            self.moves = moves
            self.updates = updates
            self.sections = sections
        }
    }

    /// One method measured at one size.
    package struct Result: Sendable {
        /// The method's name.
        package var name: String
        /// The size: elements in the old list or snapshot.
        package var size: Int
        /// The median time.
        package var median: Duration
        /// The 90th percentile time (nearest rank).
        package var p90: Duration
        /// Every run's time.
        package var times: [Duration]
        /// `malloc` calls in one run, or `nil` when not measured.
        package var allocations: Int64?
        /// The changes it found.
        package var counts: Counts
    }

    /// Checks the options.
    ///
    /// - Throws: ``CommandError`` naming the bad option.
    package func validate() throws(CommandError) {
        try validateOptions(hasInput: input != nil)
        if let input {
            if sweep != nil, input.old.numberOfItems == 0 {
                throw CommandError("--sweep: \(input.label) has no items before the change, so there is nothing to scale", exitCode: CommandError.usageExitCode)
            }
            return
        }
        guard count >= 1 else { throw CommandError("--count \(count): must be at least 1", exitCode: CommandError.usageExitCode) }
        guard count <= Self.maximumCount else {
            throw CommandError("--count \(count): must be at most \(Self.maximumCount)", exitCode: CommandError.usageExitCode)
        }
        guard changesPercent.isFinite, changesPercent >= 0, changesPercent <= 100 else {
            throw CommandError("--changes \(changesPercent)%: must be between 0% and 100%", exitCode: CommandError.usageExitCode)
        }
        let smallest = sweep?.min() ?? count
        guard sections >= 1, sections <= smallest else {
            let bound = sweep == nil ? "--count (\(count))" : "the smallest --sweep size (\(smallest))"
            throw CommandError("--sections \(sections): must be between 1 and \(bound)", exitCode: CommandError.usageExitCode)
        }
    }

    /// Checks the options that do not depend on the data: the runs, the
    /// limit, `--scale` and `--sweep`. The command checks them before it
    /// reads any input, so that a mistyped option is found before a change
    /// script runs.
    ///
    /// - Parameter hasInput: Whether snapshot files or a database give the
    ///   data (rather than the generator).
    /// - Throws: ``CommandError`` naming the bad option.
    package func validateOptions(hasInput: Bool) throws(CommandError) {
        guard runs >= 1 else { throw CommandError("--runs \(runs): must be at least 1", exitCode: CommandError.usageExitCode) }
        guard swiftLimit >= 0 else { throw CommandError("--swift-limit \(swiftLimit): must be at least 0", exitCode: CommandError.usageExitCode) }
        if let scale {
            guard hasInput else {
                throw CommandError("--scale applies to snapshot files or a database; generated data takes --count or --sweep", exitCode: CommandError.usageExitCode)
            }
            guard sweep == nil else { throw CommandError("--scale and --sweep: give one (--sweep scales the snapshots to each size)", exitCode: CommandError.usageExitCode) }
            guard scale >= 1, scale <= Self.maximumCount else {
                throw CommandError("--scale \(scale): must be between 1 and \(Self.maximumCount)", exitCode: CommandError.usageExitCode)
            }
        }
        if let sweep {
            guard !sweep.isEmpty, sweep.allSatisfy({ $0 >= 1 && $0 <= Self.maximumCount }) else {
                throw CommandError("--sweep: every size must be between 1 and \(Self.maximumCount)", exitCode: CommandError.usageExitCode)
            }
        }
    }

    /// Runs the benchmark; `progress` gets the fraction done and what runs.
    /// Writes the chart page when ``htmlPath`` is set.
    ///
    /// - Returns: The table, or the JSON text.
    /// - Throws: ``CommandError`` for bad options, a page that cannot be
    ///   written, or when Tessera's answer is not the change that was made.
    package func run(progress: (Double, String) -> Void) throws(CommandError) -> String {
        try validate()
        if let htmlPath { try InputFile.checkWritable(htmlPath) }
        let plan = try makePlan()
        let (results, steps) = try measure(plan, progress: progress)
        let report = Report(run: self, results: results, steps: steps)
        if let htmlPath { try InputFile.write(report.html(), to: htmlPath) }
        return json ? report.json() : report.table()
    }

    /// What is measured at each size.
    struct Plan {
        /// The sizes, ascending, each with how to make its data and what
        /// it is.
        var steps: [Step]

        struct Step {
            var size: Int
            /// For an input: how many copies.
            var copies: Int
            /// For an input: the sweep sizes rounded to these copies.
            var asked: [Int]
        }
    }

    /// The data of one size, ready to time.
    struct Prepared {
        var methods: [Method]
        /// For generated data: the change made.
        var made: Counts?
        /// Items before and after, and sections before and after.
        var shape: (oldItems: Int, newItems: Int, oldSections: Int, newSections: Int)
    }

    /// A method: what is timed, and the changes it finds (found once,
    /// untimed).
    struct Method {
        var name: String
        var run: () -> Int
        var counts: () -> Counts
    }

    func makePlan() throws(CommandError) -> Plan {
        guard let input else {
            let sizes = sweep ?? [count]
            return Plan(steps: sizes.map { Plan.Step(size: $0, copies: 1, asked: [$0]) })
        }
        let base = input.old.numberOfItems
        if let sweep {
            var steps: [Plan.Step] = []
            for size in sweep {
                let copies = max(1, Int((Double(size) / Double(base)).rounded()))
                if let last = steps.last, last.copies == copies {
                    steps[steps.count - 1].asked.append(size)
                } else {
                    steps.append(Plan.Step(size: base * copies, copies: copies, asked: [size]))
                }
            }
            if let last = steps.last { try input.checkCopies(last.copies, option: "--sweep") }
            return Plan(steps: steps)
        }
        let copies = scale ?? 1
        try input.checkCopies(copies, option: "--scale \(copies)")
        return Plan(steps: [Plan.Step(size: base * copies, copies: copies, asked: [base * copies])])
    }

    func prepare(_ step: Plan.Step) throws(CommandError) -> Prepared {
        if let input {
            let scaled = try input.tiled(step.copies, option: sweep == nil ? "--scale \(step.copies)" : "--sweep")
            // O(n·d): the larger snapshot decides.
            let includeSwift = max(scaled.old.numberOfItems, scaled.new.numberOfItems) <= swiftLimit
            let flat = scaled.isFlat
            let name = flat ? "Tessera diff(from:to:)" : Self.sectionedName(scaled.old.numberOfSections, scaled.new.numberOfSections)
            let (old, new) = Self.interned(scaled.old, scaled.new)
            let methods = try Self.methods(old: old, new: new, flat: flat, tesseraName: name, includeSwift: includeSwift)
            return Prepared(methods: methods, made: nil, shape: (scaled.old.numberOfItems, scaled.new.numberOfItems, scaled.old.numberOfSections, scaled.new.numberOfSections))
        }
        let includeSwift = step.size <= swiftLimit
        switch ids {
        case .int: return try generated(size: step.size, includeSwift: includeSwift) { (random: inout SplitMix64) in Int(truncatingIfNeeded: random.next()) }
        case .uuid: return try generated(size: step.size, includeSwift: includeSwift) { (random: inout SplitMix64) in Self.uuid(&random) }
        }
    }

    /// The snapshots with each section's and item's JSON content replaced
    /// by a number that stands for it (equal contents, equal numbers), made
    /// before anything is timed. The methods then compare contents at the
    /// cost of an integer, as an app that knows its records' versions does,
    /// rather than measuring how fast JSON values compare.
    ///
    /// - Complexity: O(*n*) for *n* sections and items, and the size of
    ///   their contents.
    static func interned(_ old: SnapshotDocument.DocumentSnapshot, _ new: SnapshotDocument.DocumentSnapshot)
        -> (Snapshot<Element<String>, Element<String>>, Snapshot<Element<String>, Element<String>>) {
        var numbers: [String: Int] = [:]
        func number(_ content: JSON) -> Int {
            let text = content.canonicalText
            if let known = numbers[text] { return known }
            numbers[text] = numbers.count
            return numbers.count - 1
        }
        func convert(_ snapshot: SnapshotDocument.DocumentSnapshot) -> Snapshot<Element<String>, Element<String>> {
            var converted = Snapshot<Element<String>, Element<String>>()
            for (index, section) in snapshot.sections.enumerated() {
                let items = snapshot.items(inSection: index).map { Element(id: $0.id, content: number($0.content)) }
                converted.appendSection(Element(id: section.id, content: number(section.content)), items: items)
            }
            return converted
        }
        return (convert(old), convert(new))
    }

    static func sectionedName(_ old: Int, _ new: Int) -> String {
        old == new ? "Tessera diff of \(old) section\(old == 1 ? "" : "s")" : "Tessera diff of \(old) → \(new) sections"
    }

    struct Element<ID: Hashable>: Identifiable, Hashable {
        var id: ID
        var content: Int
    }

    struct Section: Identifiable, Hashable {
        var id: Int
    }

    /// Two generated lists of `size` elements with ``changesPercent`` of
    /// changes, in ``sections`` sections.
    private func generated<ID: Hashable>(size count: Int, includeSwift: Bool, makeID: (inout SplitMix64) -> ID) throws(CommandError) -> Prepared {
        var random = SplitMix64(seed: seed)
        var used = Set<ID>(minimumCapacity: count * 2)
        func freshID() -> ID {
            while true {
                let id = makeID(&random)
                if used.insert(id).inserted { return id }
            }
        }
        let old = (0..<count).map { _ in Element(id: freshID(), content: Int(truncatingIfNeeded: random.next())) }
        let changes = Int((Double(count) * changesPercent / 100).rounded())
        let deletes = changes / 4, moves = changes / 4, updates = changes / 4
        let inserts = changes - deletes - moves - updates
        // Delete, update and pick out the moving elements at distinct offsets.
        var offsets = Array(0..<count)
        for i in 0..<min(deletes + moves + updates, count) { offsets.swapAt(i, i + Int(random.next() % UInt64(count - i))) }
        let deleted = Set(offsets[0..<deletes])
        let moved = Array(offsets[deletes..<deletes + moves])
        let updated = Set(offsets[deletes + moves..<deletes + moves + updates])
        let movedSet = Set(moved)
        var new: [Element<ID>] = []
        new.reserveCapacity(count - deletes + inserts)
        for (offset, element) in old.enumerated() where !deleted.contains(offset) && !movedSet.contains(offset) {
            var element = element
            if updated.contains(offset) { element.content &+= 1 }
            new.append(element)
        }
        for offset in moved { new.insert(old[offset], at: Int(random.next() % UInt64(new.count + 1))) }
        for _ in 0..<inserts {
            new.insert(Element(id: freshID(), content: Int(truncatingIfNeeded: random.next())), at: Int(random.next() % UInt64(new.count + 1)))
        }

        // Sections: consecutive runs of the lists.
        func snapshot(_ elements: [Element<ID>]) -> Snapshot<Section, Element<ID>> {
            var snapshot = Snapshot<Section, Element<ID>>()
            let per = (elements.count + sections - 1) / sections
            for s in 0..<sections {
                let start = min(s * per, elements.count), end = min(start + per, elements.count)
                snapshot.appendSection(Section(id: s), items: elements[start..<end])
            }
            return snapshot
        }
        let oldSnapshot = snapshot(old), newSnapshot = snapshot(new)
        if sections == 1 {
            let answer: ListChangeset
            do { answer = try diff(from: old, to: new) } catch { throw CommandError("the diff failed: \(error)") }
            guard answer.deletes.count == deletes, answer.inserts.count == inserts, answer.updates.count == updates, answer.moves.count <= moves else {
                throw CommandError("Tessera's diff is not the change made: \(answer.deletes.count) deletes, \(answer.inserts.count) inserts, \(answer.updates.count) updates, \(answer.moves.count) moves for \(deletes), \(inserts), \(updates), ≤ \(moves)")
            }
        }
        let name = sections == 1 ? "Tessera diff(from:to:)" : "Tessera diff of \(sections) sections"
        let methods = try Self.methods(old: oldSnapshot, new: newSnapshot, flat: sections == 1, tesseraName: name, includeSwift: includeSwift)
        return Prepared(methods: methods, made: Counts(deletes: deletes, inserts: inserts, moves: moves, updates: updates),
                        shape: (old.count, new.count, sections, sections))
    }

    /// The methods over two snapshots, after checking that Tessera's
    /// changeset replays `old` to `new`.
    static func methods<S, I>(old: Snapshot<S, I>, new: Snapshot<S, I>, flat: Bool, tesseraName: String, includeSwift: Bool) throws(CommandError) -> [Method] {
        let oldItems = old.allItems, newItems = new.allItems
        let oldIDs = oldItems.map(\.id), newIDs = newItems.map(\.id)
        let tessera = try check(old: old, new: new, flat: flat)
        var methods: [Method] = [
            Method(name: tesseraName, run: {
                if flat { return (try? diff(from: oldItems, to: newItems))?.changeCount ?? -1 }
                return (try? diff(from: old, to: new))?.changeCount ?? -1
            }, counts: { tessera }),
            Method(name: "Dictionary floor", run: { floorHits(oldIDs, newIDs) }, counts: {
                let hits = floorHits(oldIDs, newIDs)
                return Counts(deletes: oldIDs.count - hits, inserts: newIDs.count - hits, moves: nil, updates: nil)
            }),
        ]
        if includeSwift {
            methods.append(Method(name: swiftName, run: { newIDs.difference(from: oldIDs).inferringMoves().count }, counts: {
                counts(of: newIDs.difference(from: oldIDs).inferringMoves())
            }))
        }
        methods.append(Method(name: orderedSetName, run: { OrderedSet(newIDs).difference(from: OrderedSet(oldIDs)).count }, counts: {
            counts(of: OrderedSet(newIDs).difference(from: OrderedSet(oldIDs)))
        }))
        return methods
    }

    /// The median of sorted times: the middle one, or the mean of the two
    /// middle ones for an even count.
    static func median(_ sorted: [Duration]) -> Duration {
        let middle = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
    }

    /// The name of Swift's method in the output.
    static let swiftName = "Swift difference(from:).inferringMoves()"

    /// The name of swift-collections' method in the output.
    static let orderedSetName = "OrderedSet(ids).difference(from:)"

    /// The least a `Dictionary`-based diff does: a table of the old ids,
    /// and a lookup of every new id.
    static func floorHits<ID: Hashable>(_ old: [ID], _ new: [ID]) -> Int {
        var table = [ID: Int](minimumCapacity: old.count)
        for (offset, id) in old.enumerated() { table[id] = offset }
        var hits = 0
        for id in new where table[id] != nil { hits += 1 }
        return hits
    }

    /// Removals and insertions not paired, and the pairs (moves).
    static func counts<E>(of difference: CollectionDifference<E>) -> Counts {
        var deletes = 0, inserts = 0, moves = 0
        for change in difference {
            switch change {
            case let .remove(_, _, associated): if associated == nil { deletes += 1 } else { moves += 1 }
            case let .insert(_, _, associated): if associated == nil { inserts += 1 }
            }
        }
        return Counts(deletes: deletes, inserts: inserts, moves: moves, updates: nil)
    }

    /// Tessera's changes, after checking that they replay `old` to `new`.
    static func check<S, I>(old: Snapshot<S, I>, new: Snapshot<S, I>, flat: Bool) throws(CommandError) -> Counts {
        let changeset: Changeset
        let counts: Counts
        do {
            if flat {
                let list = try diff(from: old.allItems, to: new.allItems)
                changeset = Changeset(
                    itemDeletes: list.deletes.map { IndexPath(item: $0, section: 0) },
                    itemInserts: list.inserts.map { IndexPath(item: $0, section: 0) },
                    itemMoves: list.moves.map { Move(from: IndexPath(item: $0.from, section: 0), to: IndexPath(item: $0.to, section: 0)) },
                    itemUpdates: list.updates.map { Move(from: IndexPath(item: $0.from, section: 0), to: IndexPath(item: $0.to, section: 0)) }
                )
                counts = Counts(deletes: list.deletes.count, inserts: list.inserts.count, moves: list.moves.count, updates: list.updates.count)
            } else {
                changeset = try diff(from: old, to: new)
                counts = Counts(deletes: changeset.itemDeletes.count, inserts: changeset.itemInserts.count, moves: changeset.itemMoves.count,
                                updates: changeset.itemUpdates.count,
                                sections: [changeset.sectionDeletes.count, changeset.sectionInserts.count, changeset.sectionMoves.count, changeset.sectionUpdates.count])
            }
        } catch {
            throw CommandError("Tessera's diff failed: \(error)", exitCode: CommandError.inputExitCode)
        }
        let replayed: Snapshot<S, I>
        do { replayed = try old.applying(changeset, takingValuesFrom: new) } catch {
            throw CommandError("Tessera's changeset does not replay: \(error)")
        }
        guard replayed == new else { throw CommandError("Tessera's changeset does not replay to the new snapshot") }
        return counts
    }

    /// Measures every step: one untimed run of each method, one more
    /// between two readings of ``allocationCount``, then ``runs`` timed
    /// runs each, round robin.
    func measure(_ plan: Plan, progress: (Double, String) -> Void) throws(CommandError) -> (results: [Result], steps: [Measured]) {
        // Each step's share of the work: its size times its runs.
        let work = plan.steps.map { Double($0.size) * Double(($0.size <= swiftLimit ? 4 : 3) * (runs + 2)) }
        let total = max(work.reduce(0, +), 1)
        var done = 0.0
        var results: [Result] = []
        var measured: [Measured] = []
        var sink = 0
        let clock = ContinuousClock()
        let prefix = { (step: Plan.Step) in plan.steps.count > 1 ? "\(step.size): " : "" }
        for (index, step) in plan.steps.enumerated() {
            let unit = work[index] / Double(((step.size <= swiftLimit ? 4 : 3) * (runs + 2)))
            progress(done / total, prefix(step) + "preparing")
            let prepared = try prepare(step)
            var allocations: [Int64?] = []
            for method in prepared.methods {
                sink &+= method.run()
                done += unit
                allocations.append(allocationsOfOneRun { sink &+= method.run() })
                done += unit
            }
            var times = Array(repeating: [Duration](), count: prepared.methods.count)
            for run in 0..<runs {
                for (m, method) in prepared.methods.enumerated() {
                    progress(done / total, prefix(step) + "\(method.name), run \(run + 1) of \(runs)")
                    var result = 0
                    times[m].append(clock.measure { result = method.run() })
                    sink &+= result
                    done += unit
                }
            }
            for (m, method) in prepared.methods.enumerated() {
                let sorted = times[m].sorted()
                let rank = max(0, Int((0.9 * Double(sorted.count)).rounded(.up)) - 1)
                results.append(Result(name: method.name, size: step.size, median: Self.median(sorted), p90: sorted[rank],
                                      times: times[m], allocations: allocations[m], counts: method.counts()))
            }
            measured.append(Measured(step: step, made: prepared.made, shape: prepared.shape, methods: prepared.methods.map(\.name)))
        }
        progress(1, "done")
        withExtendedLifetime(sink) {}
        return (results, measured)
    }

    /// What one step measured, besides the times.
    struct Measured {
        var step: Plan.Step
        /// For generated data: the change made.
        var made: Counts?
        var shape: (oldItems: Int, newItems: Int, oldSections: Int, newSections: Int)
        /// The methods that ran, in order.
        var methods: [String]
    }

    /// `malloc` calls during `body`, or `nil` when not measured.
    func allocationsOfOneRun(_ body: () -> Void) -> Int64? {
        guard let allocationCount else {
            body()
            return nil
        }
        let before = allocationCount()
        body()
        let after = allocationCount()
        guard before >= 0, after >= before else { return nil }
        return after - before
    }

    static func time(_ seconds: Double) -> String {
        if seconds < 1e-3 { return String(format: "%.1f µs", seconds * 1e6) }
        if seconds < 1 { return String(format: "%.3f ms", seconds * 1e3) }
        return String(format: "%.3f s", seconds)
    }

    static func uuid(_ random: inout SplitMix64) -> UUID {
        let high = random.next(), low = random.next()
        var bytes = [UInt8](repeating: 0, count: 16)
        for i in 0..<8 {
            bytes[i] = UInt8(truncatingIfNeeded: high >> (8 * i))
            bytes[8 + i] = UInt8(truncatingIfNeeded: low >> (8 * i))
        }
        bytes[6] = (bytes[6] & 0x0F) | 0x40
        bytes[8] = (bytes[8] & 0x3F) | 0x80
        return UUID(uuid: (bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                           bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]))
    }
}
