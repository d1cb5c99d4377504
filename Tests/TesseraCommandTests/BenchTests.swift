import Foundation
import Testing
import TesseraCommandKit
import TesseraRender
import TesseraTestTraits

@Suite("tessera bench diff, end to end", .tags(.process), .ownThreads)
struct BenchTests {
    func results(_ json: JSON) -> [String] {
        guard case let .array(values)? = json["results"] else { return [] }
        return values.compactMap { if case let .string(name)? = $0["name"] { name } else { nil } }
    }

    @Test("a small run measures all four methods, reports medians and ratios, and shows progress")
    func smallRun() throws {
        let result = try Tool.runOnTerminal(["bench", "diff", "--count", "2000", "--changes", "10%", "--runs", "3", "--seed", "7", "--json"])
        try #require(result.status == 0, "stderr: \(result.stderr)")
        let json = try JSON.parse(result.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
        #expect(results(json) == ["Tessera diff(from:to:)", "Dictionary floor", "Swift difference(from:).inferringMoves()", "OrderedSet(ids).difference(from:)"])
        #expect(json["deletes"] == .int(50))
        #expect(json["inserts"] == .int(50))
        #expect(json["moves"] == .int(50))
        #expect(json["updates"] == .int(50))
        #expect(json["notice"] == nil)
        guard case let .array(values)? = json["results"] else { return }
        #expect(values.first?["ratio"] == .number("1.0"))
        for value in values {
            guard case let .number(text)? = value["medianSeconds"], let seconds = Double(text) else {
                Issue.record("no median in \(value.compactText)")
                continue
            }
            #expect(seconds > 0 && seconds < 10)
        }
        #expect(result.stderr.contains("] 100% done"))
        #expect(result.stderr.contains("Swift difference(from:).inferringMoves(), run 3 of 3"))
    }

    @Test("above the size limit, difference(from:) is left out with a notice; sections and uuids work")
    func aboveLimit() throws {
        let result = try Tool.run(["bench", "diff", "--count", "3000", "--changes", "4", "--ids", "uuid", "--sections", "5",
                                   "--runs", "1", "--swift-limit", "1000"])
        try #require(result.status == 0, "stderr: \(result.stderr)")
        let lines = result.stdout.split(separator: "\n").map(String.init)
        #expect(lines.first?.hasPrefix("tessera bench diff: 3000 uuid ids in 5 sections, 4% changed (30 deletes, 30 inserts, 30 moves, 30 updates), seed 1, median of 1 run") == true)
        #expect(lines.contains { $0.hasPrefix("Tessera diff of 5 sections") && $0.hasSuffix("1.00×") })
        #expect(lines.contains { $0.hasPrefix("Dictionary floor") })
        #expect(!lines.contains { $0.hasPrefix("Swift difference") })
        #expect(lines.last == "Swift's difference(from:) left out: 3000 elements is above --swift-limit 1000 (it is O(n·d) and would take too long)")
        // Into a pipe, no progress bar.
        #expect(result.stderr.isEmpty, "standard error: \(result.stderr.debugDescription)")
    }

    @Test("bad options are named")
    func badOptions() throws {
        let percent = try Tool.run(["bench", "diff", "--changes", "lots"])
        #expect(percent.status == 64)
        #expect(percent.stderr == "tessera: error: --changes lots: expected a percentage such as 10%\n")
        let sections = try Tool.run(["bench", "diff", "--count", "10", "--sections", "20"])
        #expect(sections.status == 64)
        #expect(sections.stderr == "tessera: error: --sections 20: must be between 1 and --count (10)\n")
    }
}
