import Foundation
import TesseraRender

extension BenchRun {
    /// The output of a run: a table, JSON, or a chart page.
    struct Report {
        var run: BenchRun
        var results: [Result]
        var steps: [Measured]

        var sizes: [Int] { steps.map(\.step.size) }

        var build: String {
            #if DEBUG
            "debug"
            #else
            "release"
            #endif
        }

        /// The methods, in the order they first ran.
        var methodNames: [String] {
            var names: [String] = []
            for result in results where !names.contains(result.name) { names.append(result.name) }
            return names
        }

        /// Each method's growth exponent, fitted on the sizes it ran; `nil`
        /// for fewer than two.
        var exponents: [(name: String, exponent: Double?, sizes: [Int])] {
            methodNames.map { name in
                let points = results.filter { $0.name == name }.map { (size: $0.size, seconds: BenchRun.seconds($0.median)) }
                return (name, BenchRun.exponent(points), points.map(\.size))
            }
        }

        /// The sizes at which Swift's difference was left out.
        var swiftLeftOut: [Int] {
            steps.filter { !$0.methods.contains(BenchRun.swiftName) }.map(\.step.size)
        }

        /// The ratio of a result's median to Tessera's at the same size.
        func ratio(_ result: Result) -> Double {
            let base = results.first { $0.size == result.size }.map { BenchRun.seconds($0.median) } ?? 0
            return BenchRun.seconds(result.median) / max(base, 1e-12)
        }

        var runsText: String { "median of \(run.runs) run\(run.runs == 1 ? "" : "s")" }

        /// What was measured, in one line.
        var subject: String {
            guard let input = run.input else {
                let shape = "\(run.ids.rawValue) ids in \(run.sections) section\(run.sections == 1 ? "" : "s"), \(Format.number(run.changesPercent))% changed"
                if steps.count == 1, let step = steps.first, let made = step.made {
                    return "\(step.step.size) \(shape) (\(made.deletes) deletes, \(made.inserts) inserts, \(made.moves ?? 0) moves, \(made.updates ?? 0) updates), seed \(run.seed)"
                }
                return "\(shape), sizes \(sizes.map(String.init).joined(separator: ", ")), seed \(run.seed)"
            }
            let shape = input.isFlat
                ? "a flat list of \(input.old.numberOfItems) → \(input.new.numberOfItems) items"
                : "\(input.old.numberOfSections) → \(input.new.numberOfSections) sections, \(input.old.numberOfItems) → \(input.new.numberOfItems) items"
            if run.sweep != nil {
                let copies = steps.map { "\($0.step.size) (\($0.step.copies) cop\($0.step.copies == 1 ? "y" : "ies"))" }
                return "\(input.label): \(shape), scaled to \(copies.joined(separator: ", ")) items"
            }
            if let scale = run.scale, scale > 1, let shape2 = steps.first?.shape {
                return "\(input.label): \(shape), scaled \(scale) times to \(shape2.oldItems) → \(shape2.newItems) items"
            }
            return "\(input.label): \(shape)"
        }

        /// Lines that explain the figures.
        var notes: [String] {
            var notes: [String] = []
            // Scaling repeats items, not sections: the section changes are
            // usually the same at every size, and then said once.
            let sectionCounts = steps.compactMap { step in
                results.first(where: { $0.size == step.step.size })?.counts.sections.map { (size: step.step.size, counts: $0) }
            }.filter { $0.counts.contains { $0 != 0 } }
            let same = Set(sectionCounts.map(\.counts)).count == 1 && sectionCounts.count == steps.count
            for entry in same ? Array(sectionCounts.prefix(1)) : sectionCounts {
                let sections = entry.counts
                notes.append("\(steps.count > 1 && !same ? "at \(entry.size): " : "")Tessera's changeset also has \(sections[0]) section deletes, \(sections[1]) section inserts, "
                    + "\(sections[2]) section moves and \(sections[3]) section updates (the items of a deleted or inserted section go with it)")
            }
            if results.contains(where: { $0.allocations == nil }) {
                notes.append(run.allocationCount == nil
                    ? "allocations: not measured (the counter, libTesseraAllocationCount.so, is not beside tessera: swift build builds it; a sanitizer build cannot count)"
                    : "allocations: not measured (the malloc counter gave no reading)")
            }
            return notes
        }

        /// What was not measured as asked, with why: methods left out, and
        /// sweep sizes of an input measured at another size.
        var notices: [String] {
            sweepNotices + swiftNotices
        }

        /// The `--sweep` sizes of snapshot files or a table that were not
        /// measured at their own size: an input is repeated a whole number
        /// of times, so a size below the input's (or two sizes nearest the
        /// same number of copies) is measured at that number of copies.
        var sweepNotices: [String] {
            guard run.sweep != nil, let input = run.input else { return [] }
            let base = input.old.numberOfItems
            return steps.map(\.step).filter { $0.asked != [$0.size] }.map { step in
                let asked = step.asked.map(String.init)
                let sizes = asked.count == 1 ? "size \(asked[0]) is" : "sizes " + asked.dropLast().joined(separator: ", ") + " and \(asked.last!) are"
                let copies = "\(step.copies) cop\(step.copies == 1 ? "y" : "ies")"
                return "--sweep: \(sizes) measured at \(step.size) items (\(copies) of the \(base) items of \(input.label); an input is repeated a whole number of times, at least once)"
            }
        }

        /// Swift's difference, when left out, with why.
        var swiftNotices: [String] {
            guard !swiftLeftOut.isEmpty else { return [] }
            if sizes.count == 1 {
                let shape = steps[0].shape
                let elements = shape.newItems > shape.oldItems ? "\(shape.oldItems) → \(shape.newItems) elements are" : "\(sizes[0]) elements is"
                return ["Swift's difference(from:) left out: \(elements) above --swift-limit \(run.swiftLimit) (it is O(n·d) and would take too long)"]
            }
            return ["Swift's difference(from:) left out at \(swiftLeftOut.map(String.init).joined(separator: ", ")) elements: above --swift-limit \(run.swiftLimit) "
                + "(it is O(n·d) and would take too long); its exponent is fitted on the sizes it ran"]
        }

        // MARK: The table

        func table() -> String {
            var lines = ["tessera bench diff: " + subject + ", " + runsText + " (\(build) build)"]
            if build == "debug" { lines.append("note: a debug build; for representative numbers run `swift run -c release tessera bench diff …`") }
            lines.append("")
            func count(_ value: Int?) -> String { value.map(String.init) ?? "–" }
            let header = ["method", "size", "median", "p90", "allocations", "deletes", "inserts", "moves", "updates", "vs Tessera"]
            var rows = [header]
            for result in results {
                rows.append([
                    result.name, String(result.size), BenchRun.time(BenchRun.seconds(result.median)), BenchRun.time(BenchRun.seconds(result.p90)),
                    result.allocations.map(String.init) ?? "–", count(result.counts.deletes), count(result.counts.inserts),
                    count(result.counts.moves), count(result.counts.updates), String(format: "%.2f×", ratio(result)),
                ])
            }
            let widths = header.indices.map { column in rows.map { $0[column].count }.max() ?? 0 }
            for row in rows {
                let cells = row.indices.map { column in
                    column == 0 ? Format.pad(row[column], widths[column]) : String(repeating: " ", count: widths[column] - row[column].count) + row[column]
                }
                lines.append(cells.joined(separator: "  "))
            }
            lines.append("")
            lines.append("– : not reported by the method (the Dictionary floor finds no moves; Swift's and OrderedSet's differences compare ids, so they see no content updates)")
            if sizes.count > 1 {
                lines.append("growth exponent (time ∝ size^k, least squares of log time on log size):")
                let width = methodNames.map(\.count).max() ?? 0
                for entry in exponents {
                    let value = entry.exponent.map { String(format: "%.2f", $0) } ?? "– (fewer than 2 sizes)"
                    lines.append("  " + Format.pad(entry.name, width) + "  " + value)
                }
            }
            lines.append(contentsOf: notes)
            if let htmlPath = run.htmlPath { lines.append("wrote the chart to \(htmlPath)") }
            lines.append(contentsOf: notices)
            return lines.joined(separator: "\n")
        }

        // MARK: JSON

        func counts(_ counts: Counts) -> JSON {
            func value(_ number: Int?) -> JSON { number.map(JSON.int) ?? .null }
            var members: [(key: String, value: JSON)] = [
                ("deletes", .int(counts.deletes)), ("inserts", .int(counts.inserts)), ("moves", value(counts.moves)), ("updates", value(counts.updates)),
            ]
            if let sections = counts.sections {
                members.append(("sections", .object([("deletes", .int(sections[0])), ("inserts", .int(sections[1])), ("moves", .int(sections[2])), ("updates", .int(sections[3]))])))
            }
            return .object(members)
        }

        func number(_ value: Double?) -> JSON {
            guard let value, value.isFinite else { return .null }
            return .number("\(value)")
        }

        var inputJSON: JSON {
            guard let input = run.input else {
                return .object([
                    ("kind", .string("generated")), ("ids", .string(run.ids.rawValue)), ("sections", .int(run.sections)),
                    ("changesPercent", .double(run.changesPercent)), ("seed", .number(String(run.seed))),
                    ("made", .array(steps.compactMap { step in step.made.map { made in
                        .object([("size", .int(step.step.size))] + { if case let .object(members) = counts(made) { members } else { [] } }())
                    } })),
                ])
            }
            return .object([
                ("kind", .string("snapshots")), ("label", .string(input.label)), ("flat", .bool(input.isFlat)),
                ("oldSections", .int(input.old.numberOfSections)), ("newSections", .int(input.new.numberOfSections)),
                ("oldItems", .int(input.old.numberOfItems)), ("newItems", .int(input.new.numberOfItems)),
                ("scaled", .array(steps.map { step in
                    .object([("size", .int(step.step.size)), ("copies", .int(step.step.copies)), ("newItems", .int(step.shape.newItems)),
                             ("asked", .array(step.step.asked.map(JSON.int)))])
                })),
            ])
        }

        func json() -> String {
            var members: [(key: String, value: JSON)] = [
                ("input", inputJSON), ("runs", .int(run.runs)), ("build", .string(build)), ("swiftLimit", .int(run.swiftLimit)),
                ("sizes", .array(sizes.map(JSON.int))),
                ("results", .array(results.map { result in
                    .object([
                        ("name", .string(result.name)), ("size", .int(result.size)),
                        ("medianSeconds", .number("\(BenchRun.seconds(result.median))")), ("p90Seconds", .number("\(BenchRun.seconds(result.p90))")),
                        ("ratio", .number("\(ratio(result))")), ("allocations", result.allocations.map { .number(String($0)) } ?? .null),
                        ("counts", counts(result.counts)),
                    ])
                })),
                ("leftOut", .array(swiftLeftOut.map { size in
                    .object([("name", .string("Swift difference(from:).inferringMoves()")), ("size", .int(size)), ("reason", .string("above --swift-limit \(run.swiftLimit)"))])
                })),
                ("exponents", .array(exponents.filter { $0.exponent != nil }.map { entry in
                    .object([("name", .string(entry.name)), ("exponent", number(entry.exponent)), ("sizes", .array(entry.sizes.map(JSON.int)))])
                })),
                ("notes", .array(notes.map(JSON.string))),
                ("notices", .array(notices.map(JSON.string))),
            ]
            if !notices.isEmpty { members.append(("notice", .string(notices.joined(separator: "; ")))) }
            if let htmlPath = run.htmlPath { members.append(("html", .string(htmlPath))) }
            // The shape of generated one-size runs before sweeps, kept for
            // scripts that read it.
            if run.input == nil, steps.count == 1, let step = steps.first, let made = step.made {
                members += [
                    ("count", .int(step.step.size)), ("changesPercent", .double(run.changesPercent)), ("ids", .string(run.ids.rawValue)),
                    ("sections", .int(run.sections)), ("seed", .number(String(run.seed))),
                    ("deletes", .int(made.deletes)), ("inserts", .int(made.inserts)), ("moves", .int(made.moves ?? 0)), ("updates", .int(made.updates ?? 0)),
                ]
            }
            return JSON.object(members).compactText
        }

        // MARK: The chart

        func html() -> String {
            let series = exponents.map { entry in
                BenchChart.Series(
                    method: entry.name,
                    points: results.filter { $0.name == entry.name }.map { BenchChart.Point(size: $0.size, seconds: BenchRun.seconds($0.median)) },
                    exponent: entry.exponent
                )
            }
            return BenchChart.html(title: "tessera bench diff: " + subject, machine: BenchChart.machineDescription(), commandLine: run.commandLine,
                                   series: series, notes: ["\(runsText) (\(build) build)"] + notes + notices)
        }
    }

    /// A duration in seconds.
    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}
