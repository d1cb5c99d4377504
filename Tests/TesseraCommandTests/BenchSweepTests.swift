import Foundation
import Testing
import TesseraCommandKit
import TesseraRender
import TesseraTestTraits

/// `tessera bench diff --sweep`, the table, the chart page and the usage
/// errors.
@Suite("tessera bench diff sweeps and options, end to end", .tags(.process), .ownThreads)
struct BenchSweepTests {
    static func json(_ result: Tool.Result) throws -> JSON {
        try JSON.parse(result.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    static func exponent(_ json: JSON, _ name: String) -> Double? {
        guard case let .array(entries)? = json["exponents"] else { return nil }
        for entry in entries where entry["name"] == .string(name) {
            if case let .number(text)? = entry["exponent"] { return Double(text) }
        }
        return nil
    }

    @Test("a sweep of generated data: one row per size and method, Swift's left out above its limit, a finite exponent per method")
    func generatedSweep() throws {
        let result = try Tool.runOnTerminal(["bench", "diff", "--sweep", "500,1k,2000", "--runs", "1", "--swift-limit", "1000", "--json"])
        try #require(result.status == 0, "stderr: \(result.stderr)")
        let json = try Self.json(result)
        #expect(json["sizes"] == .array([.int(500), .int(1000), .int(2000)]))
        guard case let .array(rows)? = json["results"] else {
            Issue.record("no results")
            return
        }
        let pairs = rows.compactMap { row -> String? in
            guard case let .string(name)? = row["name"], case let .number(size)? = row["size"] else { return nil }
            return "\(size) \(name)"
        }
        let methods = ["Tessera diff(from:to:)", "Dictionary floor", "Swift difference(from:).inferringMoves()", "OrderedSet(ids).difference(from:)"]
        #expect(pairs == ["500", "1000"].flatMap { size in methods.map { "\(size) \($0)" } } + ["Tessera diff(from:to:)", "Dictionary floor", "OrderedSet(ids).difference(from:)"].map { "2000 \($0)" })
        #expect(json["leftOut"] == .array([.object([("name", .string(methods[2])), ("size", .int(2000)), ("reason", .string("above --swift-limit 1000"))])]))
        for method in methods {
            let value = Self.exponent(json, method)
            #expect(value?.isFinite == true, "\(method): \(String(describing: value))")
        }
        guard case let .array(exponents)? = json["exponents"] else { return }
        #expect(exponents.first { $0["name"] == .string(methods[2]) }?["sizes"] == .array([.int(500), .int(1000)]))
        // The made change, per size.
        #expect(json["input"]?["made"] == .array([500, 1000, 2000].map { size in
            let quarter = size / 10 / 4
            return .object([("size", .int(size)), ("deletes", .int(quarter)), ("inserts", .int(size / 10 - 3 * quarter)), ("moves", .int(quarter)), ("updates", .int(quarter))])
        }))
        #expect(json["count"] == nil)
        #expect(json["notice"] == .string("Swift's difference(from:) left out at 2000 elements: above --swift-limit 1000 (it is O(n·d) and would take too long); its exponent is fitted on the sizes it ran"))
        #expect(result.stderr.contains("2000: OrderedSet(ids).difference(from:), run 1 of 1"))
    }

    @Test("each exponent is the least-squares slope of log median time on log size, over the sizes its method ran at")
    func exponentsFitTheMedians() throws {
        let result = try Tool.run(["bench", "diff", "--sweep", "250,500,1k,2k", "--changes", "100%", "--runs", "3", "--swift-limit", "1000", "--json"])
        try #require(result.status == 0, "stderr: \(result.stderr)")
        let json = try Self.json(result)
        guard case let .array(rows)? = json["results"], case let .array(exponents)? = json["exponents"] else {
            Issue.record("no results or exponents in \(json.compactText)")
            return
        }
        var medians: [String: [(size: Double, seconds: Double)]] = [:]
        for row in rows {
            guard case let .string(name)? = row["name"], case let .number(size)? = row["size"], case let .number(median)? = row["medianSeconds"],
                  let n = Double(size), let t = Double(median) else {
                Issue.record("a result without name, size or median: \(row.compactText)")
                continue
            }
            medians[name, default: []].append((n, t))
        }
        #expect(medians.count == 4 && exponents.count == 4, "\(json.compactText)")
        for entry in exponents {
            guard case let .string(name)? = entry["name"], case let .number(text)? = entry["exponent"], let reported = Double(text),
                  case let .array(sizes)? = entry["sizes"], let points = medians[name] else {
                Issue.record("a malformed exponent: \(entry.compactText)")
                continue
            }
            #expect(sizes == points.map { JSON.int(Int($0.size)) }, "\(name): fitted on \(sizes), ran at \(points.map(\.size))")
            let xs = points.map { log($0.size) }, ys = points.map { log($0.seconds) }
            let mx = xs.reduce(0, +) / Double(xs.count), my = ys.reduce(0, +) / Double(ys.count)
            var covariance = 0.0, variance = 0.0
            for (x, y) in zip(xs, ys) {
                covariance += (x - mx) * (y - my)
                variance += (x - mx) * (x - mx)
            }
            let slope = covariance / variance
            #expect(abs(slope - reported) < 0.01, "\(name): reported \(reported), the medians' slope is \(slope)")
        }
        // Swift's difference ran at the two sizes within its limit only.
        #expect(medians["Swift difference(from:).inferringMoves()"]?.map(\.size) == [250, 500, 1000])
    }

    @Test("the table is aligned, and prints the exponents after it")
    func table() throws {
        let result = try Tool.run(["bench", "diff", "--sweep", "300,600", "--runs", "1"])
        try #require(result.status == 0, "stderr: \(result.stderr)")
        let lines = result.stdout.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(lines.first?.hasPrefix("tessera bench diff: int ids in 1 section, 10% changed, sizes 300, 600, seed 1, median of 1 run") == true)
        let header = try #require(lines.firstIndex { $0.hasPrefix("method ") })
        let rows = lines[header...].prefix { !$0.isEmpty }
        #expect(rows.count == 9)
        #expect(Set(rows.map(\.count)).count == 1, "\(rows.joined(separator: "\n"))")
        #expect(rows.first?.hasSuffix("vs Tessera") == true)
        let exponents = try #require(lines.firstIndex { $0.hasPrefix("growth exponent") })
        #expect(lines[exponents + 1].hasPrefix("  Tessera diff(from:to:)"))
        #expect(lines[(exponents + 1)...].prefix(4).allSatisfy { Double($0.split(separator: " ").last ?? "") != nil })
    }

    @Test("--html writes the chart page; a page that cannot be written fails before the run")
    func html() throws {
        let folder = try Tool.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let result = try Tool.run(["bench", "diff", "--count", "200", "--runs", "1", "--html", "chart.html"], in: folder)
        try #require(result.status == 0, "stderr: \(result.stderr)")
        #expect(FileManager.default.fileExists(atPath: folder.appendingPathComponent("chart.html").path))
        #expect(result.stdout.contains("wrote the chart to chart.html"))

        // A sweep with --json and --html: the chart has a point for every
        // method and size, at the median the JSON reports, and the command line.
        let both = try Tool.run(["bench", "diff", "--sweep", "200,400", "--runs", "1", "--json", "--html", "sweep.html"], in: folder)
        try #require(both.status == 0, "stderr: \(both.stderr)")
        let json = try Self.json(both)
        let page = try String(contentsOf: folder.appendingPathComponent("sweep.html"), encoding: .utf8)
        guard case let .array(rows)? = json["results"] else {
            Issue.record("no results in \(json.compactText)")
            return
        }
        #expect(rows.count == 8)
        for row in rows {
            guard case let .string(name)? = row["name"], case let .number(size)? = row["size"], case let .number(median)? = row["medianSeconds"],
                  let seconds = Double(median) else {
                Issue.record("a malformed result: \(row.compactText)")
                continue
            }
            let point = "data-method=\"\(BenchChart.escape(name))\" data-size=\"\(size)\" data-seconds=\"\(seconds)\""
            #expect(page.components(separatedBy: point).count == 2, "\(name) at \(size): no single point \(point) in the chart")
        }
        #expect(page.components(separatedBy: "class=\"point").count - 1 == rows.count)
        #expect(page.contains("tessera bench diff --sweep 200,400 --runs 1 --json --html sweep.html"))
        let unwritable = try Tool.run(["bench", "diff", "--count", "200", "--runs", "1", "--html", "no/such/folder/chart.html"], in: folder)
        #expect(unwritable.status == 1)
        #expect(unwritable.stderr == "tessera: error: cannot write no/such/folder/chart.html: no such folder no/such/folder\n")
        #expect(!unwritable.stderr.contains("] 100%"))
    }

    @Test("usage errors name the option or the entry",
          arguments: [
            (["--sweep", "1k,ten"], "--sweep 1k,ten: \"ten\" is not a size (a whole number, or one with k for thousands or M for millions, as in 1k,10k,1M)"),
            (["--sweep", "1k,,2k"], "--sweep 1k,,2k: \"\" is not a size (a whole number, or one with k for thousands or M for millions, as in 1k,10k,1M)"),
            (["--sweep", "20M"], "--sweep 20M: \"20M\" is above the most, 10000000"),
            (["--sweep", "1.5"], "--sweep 1.5: \"1.5\" is not a whole number of elements, at least 1"),
            (["--sweep", "0"], "--sweep 0: \"0\" is not a whole number of elements, at least 1"),
            (["--sweep", "1k", "--count", "5"], "--count and --sweep: give one (--sweep lists the counts)"),
            (["--scale", "2"], "--scale applies to snapshot files or a database; generated data takes --count or --sweep"),
            (["only.json"], "bench diff takes two snapshot files, before and after, or none; got 1: only.json"),
            (["a.json", "b.json", "--database", "photos.sqlite"], "snapshot files and --database: give one"),
            (["--database", "photos.sqlite", "--table", "photo"], "--database, --table, --sort and --script go together: missing --sort, --script"),
            (["--section", "album"], "--database, --table, --sort and --script go together: missing --database, --table, --sort, --script"),
            (["--sections", "5", "--sweep", "2,100"], "--sections 5: must be between 1 and the smallest --sweep size (2)"),
          ] as [([String], String)])
    func usageErrors(arguments: [String], message: String) throws {
        let result = try Tool.run(["bench", "diff"] + arguments)
        #expect(result.status == 64)
        #expect(result.stderr == "tessera: error: \(message)\n")
    }

    @Test("options of generated data are refused with files, and --scale with --sweep")
    func optionsWithFiles() throws {
        let folder = try Tool.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let document = BenchFileTests.document([("list", [("1", 1), ("2", 2)])])
        try document.write(to: folder.appendingPathComponent("a.json"), atomically: true, encoding: .utf8)
        for (option, value) in [("--count", "10"), ("--changes", "5%"), ("--sections", "2"), ("--seed", "3")] {
            let result = try Tool.run(["bench", "diff", "a.json", "a.json", option, value], in: folder)
            #expect(result.status == 64)
            #expect(result.stderr == "tessera: error: \(option) applies to generated data, not to snapshot files\n")
        }
        let both = try Tool.run(["bench", "diff", "a.json", "a.json", "--scale", "2", "--sweep", "10"], in: folder)
        #expect(both.status == 64)
        #expect(both.stderr == "tessera: error: --scale and --sweep: give one (--sweep scales the snapshots to each size)\n")
    }

    @Test("sizes read k and M, come back ascending and once each; the exponent is the slope of log time on log size")
    func sizesAndExponent() throws {
        #expect(try BenchRun.sizes(sweep: "1M, 1k,10k,1000,2.5k") == [1000, 2500, 10_000, 1_000_000])
        #expect(BenchRun.exponent([(size: 1000, seconds: 1)]) == nil)
        let slope = try #require(BenchRun.exponent([(size: 10, seconds: 2), (size: 100, seconds: 200), (size: 1000, seconds: 20_000)]))
        #expect(abs(slope - 2) < 1e-9)
        #expect(BenchRun.shellLine(["tessera", "bench", "diff", "my file.json", "it's"]) == "tessera bench diff 'my file.json' 'it'\\''s'")
    }
}
