import Foundation
import TesseraDiff

/// `tessera bench diff`: generates two lists (or sectioned snapshots) with
/// a share of changes, diffs them with Tessera, with the standard library's
/// `difference(from:).inferringMoves()` (up to a size limit) and with the
/// least a `Dictionary`-based diff must do, and reports medians and ratios.
package struct BenchRun: Sendable {
    /// The kind of ids.
    package enum IDKind: String, Sendable, CaseIterable {
        /// Random 64-bit integers.
        case int
        /// Random version-4 UUIDs.
        case uuid
    }

    /// Elements in the old list, from 1 to ``maximumCount``.
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

    /// Creates a run.
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
    }

    /// One measured method.
    package struct Result: Sendable {
        /// Its name.
        package var name: String
        /// The median time.
        package var median: Duration
        /// Every run's time.
        package var times: [Duration]
    }

    /// Checks the options.
    ///
    /// - Throws: ``CommandError`` naming the bad option.
    package func validate() throws(CommandError) {
        guard count >= 1 else { throw CommandError("--count \(count): must be at least 1", exitCode: CommandError.usageExitCode) }
        guard count <= Self.maximumCount else {
            throw CommandError("--count \(count): must be at most \(Self.maximumCount)", exitCode: CommandError.usageExitCode)
        }
        guard changesPercent.isFinite, changesPercent >= 0, changesPercent <= 100 else {
            throw CommandError("--changes \(changesPercent)%: must be between 0% and 100%", exitCode: CommandError.usageExitCode)
        }
        guard sections >= 1, sections <= count else { throw CommandError("--sections \(sections): must be between 1 and --count (\(count))", exitCode: CommandError.usageExitCode) }
        guard runs >= 1 else { throw CommandError("--runs \(runs): must be at least 1", exitCode: CommandError.usageExitCode) }
    }

    /// Runs the benchmark; `progress` gets the fraction done and what runs.
    ///
    /// - Throws: ``CommandError`` for bad options, or when Tessera's answer
    ///   is not the change that was made.
    package func run(progress: (Double, String) -> Void) throws(CommandError) -> String {
        try validate()
        switch ids {
        case .int: return try measure(progress: progress) { (random: inout SplitMix64) in Int(truncatingIfNeeded: random.next()) }
        case .uuid: return try measure(progress: progress) { (random: inout SplitMix64) in Self.uuid(&random) }
        }
    }

    struct Element<ID: Hashable>: Identifiable, Hashable {
        var id: ID
        var content: Int
    }

    struct Section: Identifiable, Hashable {
        var id: Int
    }

    private func measure<ID: Hashable>(progress: (Double, String) -> Void, makeID: (inout SplitMix64) -> ID) throws(CommandError) -> String {
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

        // Check Tessera's answer before timing it.
        if sections == 1 {
            let answer: ListChangeset
            do { answer = try diff(from: old, to: new) } catch { throw CommandError("the diff failed: \(error)") }
            guard answer.deletes.count == deletes, answer.inserts.count == inserts, answer.updates.count == updates, answer.moves.count <= moves else {
                throw CommandError("Tessera's diff is not the change made: \(answer.deletes.count) deletes, \(answer.inserts.count) inserts, \(answer.updates.count) updates, \(answer.moves.count) moves for \(deletes), \(inserts), \(updates), ≤ \(moves)")
            }
        } else {
            do {
                let changeset = try diff(from: oldSnapshot, to: newSnapshot)
                let replayed = try oldSnapshot.applying(changeset, takingValuesFrom: newSnapshot)
                guard replayed.allItems == newSnapshot.allItems else { throw CommandError("Tessera's changeset does not replay to the new snapshot") }
            } catch let error as CommandError {
                throw error
            } catch {
                throw CommandError("the diff failed: \(error)")
            }
        }

        let includesSwift = count <= swiftLimit
        var methods: [(name: String, body: () -> Int)] = [
            (sections == 1 ? "Tessera diff(from:to:)" : "Tessera diff of \(sections) sections", {
                if sections == 1 { return (try? diff(from: old, to: new))?.changeCount ?? -1 }
                return (try? diff(from: oldSnapshot, to: newSnapshot))?.changeCount ?? -1
            }),
            ("Dictionary floor", {
                var table = [ID: Int](minimumCapacity: old.count)
                for (offset, element) in old.enumerated() { table[element.id] = offset }
                var hits = 0
                for element in new where table[element.id] != nil { hits += 1 }
                return hits
            }),
        ]
        if includesSwift {
            methods.append(("Swift difference(from:).inferringMoves()", { new.difference(from: old).inferringMoves().count }))
        }
        var times = Array(repeating: [Duration](), count: methods.count)
        let clock = ContinuousClock()
        let total = Double(runs * methods.count)
        var done = 0.0
        var sink = 0
        // One untimed pass first, so no method pays for first-touch costs.
        for method in methods { sink &+= method.body() }
        for run in 0..<runs {
            for (m, method) in methods.enumerated() {
                progress(done / total, "\(method.name), run \(run + 1) of \(runs)")
                var result = 0
                times[m].append(clock.measure { result = method.body() })
                sink &+= result
                done += 1
            }
        }
        progress(1, "done")
        let results = methods.enumerated().map { m, method in
            let sorted = times[m].sorted()
            return Result(name: method.name, median: sorted[sorted.count / 2], times: times[m])
        }
        let header = "\(count) \(ids.rawValue) ids in \(sections) section\(sections == 1 ? "" : "s"), \(Format.number(changesPercent))% changed "
            + "(\(deletes) deletes, \(inserts) inserts, \(moves) moves, \(updates) updates), seed \(seed), median of \(runs) run\(runs == 1 ? "" : "s")"
        let notice = includesSwift ? nil : "Swift's difference(from:) left out: \(count) elements is above --swift-limit \(swiftLimit) (it is O(n·d) and would take too long)"
        #if DEBUG
        let build = "debug"
        #else
        let build = "release"
        #endif
        let base = results[0].median
        func seconds(_ d: Duration) -> Double { Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18 }
        if json {
            var members: [(key: String, value: JSON)] = [
                ("count", .int(count)), ("changesPercent", .double(changesPercent)), ("ids", .string(ids.rawValue)),
                ("sections", .int(sections)), ("seed", .number(String(seed))), ("runs", .int(runs)), ("build", .string(build)),
                ("deletes", .int(deletes)), ("inserts", .int(inserts)), ("moves", .int(moves)), ("updates", .int(updates)),
                ("results", .array(results.map { result in
                    .object([
                        ("name", .string(result.name)), ("medianSeconds", .number("\(seconds(result.median))")),
                        ("ratio", .number("\(seconds(result.median) / max(seconds(base), 1e-12))")),
                    ])
                })),
            ]
            if let notice { members.append(("notice", .string(notice))) }
            _ = sink
            return JSON.object(members).compactText
        }
        var lines = ["tessera bench diff: " + header + " (\(build) build)"]
        if build == "debug" { lines.append("note: a debug build; for representative numbers run `swift run -c release tessera bench diff …`") }
        lines.append("")
        let width = max(results.map(\.name.count).max() ?? 0, 6)
        lines.append(Format.pad("method", width) + "  " + Format.pad("median", 12) + "  vs Tessera")
        for result in results {
            let ratio = seconds(result.median) / max(seconds(base), 1e-12)
            lines.append(Format.pad(result.name, width) + "  " + Format.pad(Self.time(seconds(result.median)), 12) + "  " + String(format: "%.2f×", ratio))
        }
        if let notice { lines.append(notice) }
        _ = sink
        return lines.joined(separator: "\n")
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
