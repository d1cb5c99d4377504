import Foundation
import TesseraCommandKit
import TesseraDemoPhotos
import TesseraTestTraits
import Testing

/// Reads the chart page's elements back from HTML (as generated, or as
/// Chromium's `--dump-dom` serializes it).
enum ChartDOM {
    /// The attributes of every element whose opening tag starts with
    /// `opening` (e.g. `<path class="point`), in document order.
    static func elements(_ html: String, opening: String) throws -> [[String: String]] {
        var found: [[String: String]] = []
        var rest = Substring(html)
        while let start = rest.range(of: opening) {
            let tagEnd = try #require(rest[start.lowerBound...].firstIndex(of: ">"))
            var scan = rest[rest.index(after: start.lowerBound)..<tagEnd]
            rest = rest[tagEnd...]
            var attributes: [String: String] = [:]
            while let eq = scan.range(of: "=\"") {
                let name = scan[..<eq.lowerBound].split(separator: " ").last.map(String.init) ?? ""
                let valueEnd = try #require(scan[eq.upperBound...].firstIndex(of: "\""))
                attributes[name] = unescape(String(scan[eq.upperBound..<valueEnd]))
                scan = scan[scan.index(after: valueEnd)...]
            }
            found.append(attributes)
        }
        return found
    }

    /// HTML's escapes undone (those the page and Chromium write).
    static func unescape(_ text: String) -> String {
        text.replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&#39;", with: "'")
            .replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">")
            .replacingOccurrences(of: "&nbsp;", with: "\u{A0}").replacingOccurrences(of: "&amp;", with: "&")
    }

    /// A point as the page wrote it.
    struct Point {
        var method: String
        var size: Int
        var seconds: Double
        /// `data-x`, `data-y`: where the page put it, in the SVG's coordinates.
        var x: Double
        var y: Double
        /// `data-drawn-x`, `data-drawn-y`: where the browser drew it,
        /// relative to the plot rectangle (nil before the script ran).
        var drawnX: Double?
        var drawnY: Double?
    }

    /// The plot rectangle and its scale.
    struct Plot {
        var x, y, width, height: Double
        var xMinLog10, xMaxLog10, yMinLog10, yMaxLog10: Double
        var drawnWidth, drawnHeight: Double?

        /// The test's own log-log mapping: where a size and a time belong,
        /// relative to the plot rectangle's top left corner.
        func expected(size: Int, seconds: Double) -> (x: Double, y: Double) {
            ((log10(Double(size)) - xMinLog10) / (xMaxLog10 - xMinLog10) * width,
             (yMaxLog10 - log10(seconds)) / (yMaxLog10 - yMinLog10) * height)
        }
    }

    static func points(_ html: String) throws -> [Point] {
        try elements(html, opening: "<path class=\"point").map { a in
            Point(method: try #require(a["data-method"]), size: try #require(Int(a["data-size"] ?? "")),
                  seconds: try #require(Double(a["data-seconds"] ?? "")),
                  x: try #require(Double(a["data-x"] ?? "")), y: try #require(Double(a["data-y"] ?? "")),
                  drawnX: a["data-drawn-x"].flatMap(Double.init), drawnY: a["data-drawn-y"].flatMap(Double.init))
        }
    }

    static func plot(_ html: String) throws -> Plot {
        let all = try elements(html, opening: "<rect id=\"plot\"")
        try #require(all.count == 1, "one plot rectangle, not \(all.count)")
        let a = all[0]
        func value(_ name: String) throws -> Double { try #require(Double(a[name] ?? ""), "\(name) of the plot") }
        return Plot(x: try value("x"), y: try value("y"), width: try value("width"), height: try value("height"),
                    xMinLog10: try value("data-x-min-log10"), xMaxLog10: try value("data-x-max-log10"),
                    yMinLog10: try value("data-y-min-log10"), yMaxLog10: try value("data-y-max-log10"),
                    drawnWidth: a["data-drawn-width"].flatMap(Double.init), drawnHeight: a["data-drawn-height"].flatMap(Double.init))
    }
}

/// What the chart tests generate and where they run.
enum ChartFixtures {
    /// Seeded random series: methods whose times grow as n^k with noise, sizes
    /// over several decades, some with few points, some with points that
    /// cannot be drawn.
    static func randomSeries(_ random: inout SplitMix64, methods: Int) -> [BenchChart.Series] {
        let names = ["Tessera", "Dictionary floor", "Swift difference(from:)", "OrderedSet difference", "<b>\"A&B\"</b>", "it's"]
        return (0..<methods).map { m in
            let base = Double.random(in: 1e-9...1e-6, using: &random)
            let k = Double.random(in: 0.5...2.2, using: &random)
            let firstDecade = Int.random(in: 0...3, using: &random)
            let count = Int.random(in: 1...9, using: &random)
            var points = (0..<count).map { i -> BenchChart.Point in
                let size = Int((pow(10, Double(firstDecade) + Double(i) * Double.random(in: 0.3...1, using: &random))).rounded())
                return BenchChart.Point(size: max(size, 1), seconds: base * pow(Double(size), k) * Double.random(in: 0.8...1.25, using: &random))
            }
            if Bool.random(using: &random) {
                points.append(BenchChart.Point(size: 5000, seconds: [0, -1, .nan, .infinity][Int.random(in: 0...3, using: &random)]))
            }
            return BenchChart.Series(method: names[m % names.count] + (m < names.count ? "" : " \(m)"), points: points.shuffled(using: &random),
                                     exponent: Bool.random(using: &random) ? k : nil)
        }
    }

    /// The seed of a randomized test: `TESSERA_SEED` when set, to replay a
    /// failure, else the default.
    static func seed(default value: UInt64) -> UInt64 {
        ProcessInfo.processInfo.environment["TESSERA_SEED"].flatMap { UInt64($0) } ?? value
    }

    /// Whether the tests run under CI (the `CI` variable set and not empty):
    /// there, a missing Chromium fails the browser tests instead of skipping them.
    static let underCI = !(ProcessInfo.processInfo.environment["CI"] ?? "").isEmpty
}

@Suite("The log-log chart page of tessera bench diff --html", .cpuBound)
struct BenchChartTests {
    @Test("text from outside (title, machine, command line, method names, notes) is escaped everywhere")
    func escaping() throws {
        let hostile = "<script>alert('x')</script> & \"quoted\""
        let page = BenchChart.html(title: hostile, machine: hostile, commandLine: "tessera bench diff a.json 'b c.json' --html \"<x>&y\"",
                                   series: [.init(method: hostile, points: [.init(size: 1000, seconds: 1e-3), .init(size: 10_000, seconds: 1e-2)], exponent: 1)],
                                   notes: [hostile])
        #expect(!page.contains("<script>alert"))
        #expect(!page.contains("\"quoted\""))
        #expect(page.components(separatedBy: "<script").count == 2, "the page's own script only")
        #expect(page.contains("&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &amp; &quot;quoted&quot;"))
        #expect(page.contains("tessera bench diff a.json &#39;b c.json&#39; --html &quot;&lt;x&gt;&amp;y&quot;"))
        // The attributes read back give the names as they were.
        let points = try ChartDOM.points(page)
        #expect(points.count == 2 && points.allSatisfy { $0.method == hostile })
        let legend = try ChartDOM.elements(page, opening: "<li data-method").map { $0["data-method"] }
        #expect(legend == [hostile])
        #expect(BenchChart.escape("a<b>&\"c'") == "a&lt;b&gt;&amp;&quot;c&#39;")
    }

    @Test("the decade gridlines cover the data, one per decade, with labels that do not crowd")
    func decadesCoverTheData() {
        let seed = ChartFixtures.seed(default: 0xDECADE)
        var random = SplitMix64(seed: seed)
        for round in 0..<500 {
            let low = Double.random(in: -12...8, using: &random)
            let span = [0, 0, Double.random(in: 0...0.5, using: &random), Double.random(in: 0...3, using: &random), Double.random(in: 0...20, using: &random)][round % 5]
            var values = (0..<Int.random(in: 1...6, using: &random)).map { _ in pow(10, Double.random(in: low...(low + span), using: &random)) }
            if round % 7 == 0 { values.append(pow(10, Double(Int(low)))) }
            let length = Double.random(in: 200...800, using: &random)
            let axis = BenchChart.axis(covering: values, length: length, labelSpacing: 30, empty: (0, 1))
            let label = "seed \(seed), round \(round), values \(values)"
            let smallest = values.min()!, largest = values.max()!
            #expect(axis.decades == Array((axis.decades.first ?? 0)...(axis.decades.last ?? 0)), "\(label)")
            #expect(axis.decades.count >= 2, "\(label)")
            // The first gridline is at or below the smallest value, the last
            // at or above the largest, and no further than needed.
            #expect(pow(10, Double(axis.decades.first!)) <= smallest * (1 + 1e-12), "\(label): \(axis)")
            #expect(pow(10, Double(axis.decades.last!)) >= largest * (1 - 1e-12), "\(label): \(axis)")
            if axis.decades.count > 2 {
                #expect(pow(10, Double(axis.decades.first! + 1)) > smallest, "\(label): \(axis)")
                #expect(pow(10, Double(axis.decades.last! - 1)) < largest, "\(label): \(axis)")
            }
            // The range holds the data strictly inside.
            #expect(axis.minLog10 < log10(smallest) && log10(largest) < axis.maxLog10, "\(label): \(axis)")
            #expect(!axis.labelled.isEmpty && Set(axis.labelled).isSubset(of: axis.decades), "\(label): \(axis)")
            let pixelsPerDecade = length / Double(axis.decades.count - 1)
            for (a, b) in zip(axis.labelled, axis.labelled.dropFirst()) {
                #expect(Double(b - a) * pixelsPerDecade >= 30, "\(label): \(axis) at \(length) px")
            }
        }
    }

    @Test("tick labels name the decades: 1k, 10k, 1M for sizes; 1 µs, 10 ms, 1 s for times")
    func tickLabels() {
        #expect((0...9).map { BenchChart.sizeLabel(decade: $0) } == ["1", "10", "100", "1k", "10k", "100k", "1M", "10M", "100M", "1G"])
        #expect((-9...2).map { BenchChart.timeLabel(decade: $0) }
                == ["1 ns", "10 ns", "100 ns", "1 µs", "10 µs", "100 µs", "1 ms", "10 ms", "100 ms", "1 s", "10 s", "100 s"])
        #expect(BenchChart.timeLabel(decade: 3) == "1e3 s")
        #expect(BenchChart.timeLabel(decade: -13) == "1e-13 s")
        #expect(BenchChart.sizeLabel(decade: -1) == "1e-1")
        let page = BenchChart.html(title: "t", machine: "m", commandLine: "c",
                                   series: [.init(method: "a", points: [.init(size: 1000, seconds: 2e-6), .init(size: 1_000_000, seconds: 0.5)], exponent: nil)], notes: [])
        let x = try? ChartDOM.elements(page, opening: "<text class=\"tick x\"").compactMap { $0["data-decade"] }
        let y = try? ChartDOM.elements(page, opening: "<text class=\"tick y\"").compactMap { $0["data-decade"] }
        #expect(x == ["3", "4", "5", "6"])
        #expect(y == ["-6", "-5", "-4", "-3", "-2", "-1", "0"])
        #expect(page.contains(">100k</text>") && page.contains(">10 µs</text>") && page.contains(">100 ms</text>"))
    }

    @Test("every drawable point is on the page once with its data, where the log-log mapping puts it; the others are counted in a note")
    func everyPointWithItsData() throws {
        let seed = ChartFixtures.seed(default: 0xC4A27)
        var random = SplitMix64(seed: seed)
        for round in 0..<40 {
            let series = ChartFixtures.randomSeries(&random, methods: Int.random(in: 1...7, using: &random))
            let page = BenchChart.html(title: "Bench", machine: "machine", commandLine: "tessera bench diff", series: series, notes: ["given note"])
            let label = "seed \(seed), round \(round)"
            let points = try ChartDOM.points(page)
            let plot = try ChartDOM.plot(page)
            struct Key: Hashable { var method: String; var size: Int; var seconds: Double }
            let drawable = series.flatMap { s in s.points.filter { $0.size >= 1 && $0.seconds.isFinite && $0.seconds > 0 }.map { Key(method: s.method, size: $0.size, seconds: $0.seconds) } }
            var expected: [Key: Int] = [:], got: [Key: Int] = [:]
            for key in drawable { expected[key, default: 0] += 1 }
            for point in points { got[Key(method: point.method, size: point.size, seconds: point.seconds), default: 0] += 1 }
            #expect(got == expected, "\(label)")
            for point in points {
                let (x, y) = plot.expected(size: point.size, seconds: point.seconds)
                #expect(abs(point.x - plot.x - x) < 0.002 && abs(point.y - plot.y - y) < 0.002, "\(label): \(point) against (\(x), \(y))")
                #expect(x > 0 && x < plot.width && y > 0 && y < plot.height, "\(label): \(point) outside the plot")
            }
            for s in series {
                let left = s.points.count - s.points.filter { $0.size >= 1 && $0.seconds.isFinite && $0.seconds > 0 }.count
                let note = BenchChart.escape("\(s.method): \(left) point\(left == 1 ? "" : "s") left out")
                #expect(page.contains(note) == (left > 0), "\(label): \(s.method), \(left) left out")
                #expect(page.contains(BenchChart.escape(s.method)))
                if let k = s.exponent {
                    #expect(page.contains("n<sup>\(String(format: "%.2f", k))</sup>"), "\(label): exponent of \(s.method)")
                }
            }
            #expect(page.contains("<li>given note</li>"))
            // The table of figures: a row per size, a cell per method.
            let rows = page.components(separatedBy: "<tr><th scope=\"row\">").dropFirst()
            #expect(rows.count == Set(drawable.map(\.size)).count, "\(label)")
            #expect(rows.allSatisfy { $0.prefix { $0 != "\n" }.components(separatedBy: "<td").count - 1 == series.count }, "\(label)")
        }
    }

    @Test("degenerate input renders: no series, no drawable point, one point, one size, a huge range")
    func degenerateInput() throws {
        let cases: [[BenchChart.Series]] = [
            [],
            [.init(method: "bad", points: [.init(size: 10, seconds: 0), .init(size: 0, seconds: 1)], exponent: .nan)],
            [.init(method: "one", points: [.init(size: 1000, seconds: 1e-3)], exponent: nil)],
            [.init(method: "a", points: [.init(size: 1000, seconds: 1e-3)], exponent: nil), .init(method: "b", points: [.init(size: 1000, seconds: 3e-3)], exponent: nil)],
            [.init(method: "wide", points: [.init(size: 1, seconds: 1e-12), .init(size: Int.max, seconds: 1e6)], exponent: 0.5)],
        ]
        for series in cases {
            let page = BenchChart.html(title: "t", machine: "m", commandLine: "c", series: series, notes: [])
            let plot = try ChartDOM.plot(page)
            #expect(plot.xMinLog10 < plot.xMaxLog10 && plot.yMinLog10 < plot.yMaxLog10)
            #expect(page.range(of: "[^a-z-](-?nan|-?inf)[^a-z]", options: [.regularExpression, .caseInsensitive]) == nil, "\(series.map(\.method))")
            for point in try ChartDOM.points(page) {
                let (x, y) = plot.expected(size: point.size, seconds: point.seconds)
                #expect(x > 0 && x < plot.width && y > 0 && y < plot.height)
            }
            #expect(page.contains("No points to draw.") == series.allSatisfy { $0.points.allSatisfy { !BenchChart.isDrawable($0) } })
        }
    }

    @Test("the machine line names the CPU's cores, the memory, the OS and the build")
    func machineLine() {
        let line = BenchChart.machineDescription()
        #expect(line.contains("\(ProcessInfo.processInfo.activeProcessorCount) core"))
        #expect(line.contains("GiB"))
        #expect(line.hasSuffix("debug build") || line.hasSuffix("release build"))
        #expect(!line.contains("\n"))
    }
}

@Suite("The log-log chart page in a real browser", .tags(.browser, .process), .ownThreads, .enabled(if: Browser.path != nil || ChartFixtures.underCI, "chromium is not installed (.ci/run installs it: apt-get install chromium)"))
struct BenchChartBrowserTests {
    /// Chromium's path, or a failure that says how to get it.
    func chromium() throws -> String {
        try #require(Browser.path, "chromium is not installed and CI is set: under CI the browser tests fail rather than skip (apt-get install chromium, or set CHROMIUM)")
    }

    /// Runs headless Chromium on a page with extra arguments and returns
    /// what it printed.
    func runChromium(_ arguments: [String]) throws -> String {
        try Browser.run(try chromium(), ["--hide-scrollbars"] + arguments).output
    }

    @Test("seeded random series: the browser draws every point within a pixel of where its size and time put it on log-log axes")
    func pointsSitWhereTheDataSays() throws {
        let seed = ChartFixtures.seed(default: 0xB20_75E2)
        var random = SplitMix64(seed: seed)
        let folder = try Tool.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        for round in 0..<3 {
            let label = "seed \(seed), round \(round)"
            let series = ChartFixtures.randomSeries(&random, methods: 3 + round)
            let file = folder.appendingPathComponent("chart-\(round).html")
            try BenchChart.html(title: "Random \(round)", machine: BenchChart.machineDescription(), commandLine: "tessera bench diff --sweep 1k,10k --html chart.html",
                                series: series, notes: []).write(to: file, atomically: true, encoding: .utf8)
            let dom = try runChromium(["--window-size=1200,800", "--dump-dom", file.absoluteString])
            try #require(dom.contains("data-drawn=\""), "\(label): chromium did not run the page: \(dom.prefix(300))")
            let plot = try ChartDOM.plot(dom)
            let points = try ChartDOM.points(dom)
            let drawable = series.reduce(0) { $0 + $1.points.filter(BenchChart.isDrawable).count }
            try #require(points.count == drawable && drawable > 0, "\(label): \(points.count) points on the page, \(drawable) drawable")
            // The SVG is not scaled: the plot is drawn at its own size.
            let drawnWidth = try #require(plot.drawnWidth), drawnHeight = try #require(plot.drawnHeight)
            #expect(abs(drawnWidth - plot.width) < 0.5 && abs(drawnHeight - plot.height) < 0.5,
                    "\(label): plot drawn \(plot.drawnWidth ?? 0)×\(plot.drawnHeight ?? 0), not \(plot.width)×\(plot.height)")
            for point in points {
                let (x, y) = plot.expected(size: point.size, seconds: point.seconds)
                let drawnX = try #require(point.drawnX), drawnY = try #require(point.drawnY)
                #expect(abs(drawnX - x) <= 1 && abs(drawnY - y) <= 1, "\(label): \(point.method) \(point.size) \(point.seconds) drawn at (\(drawnX), \(drawnY)), belongs at (\(x), \(y))")
            }
            // Across all methods, a larger size is drawn further right and a
            // longer time higher up.
            for a in points {
                for b in points where a.size < b.size {
                    #expect(a.drawnX! < b.drawnX!, "\(label): \(a.size) drawn right of \(b.size)")
                }
                for b in points where a.seconds < b.seconds && log10(b.seconds) - log10(a.seconds) > 1e-6 {
                    #expect(a.drawnY! > b.drawnY!, "\(label): \(a.seconds) s drawn above \(b.seconds) s")
                }
            }
        }
    }

    @Test("a realistic chart renders to a screenshot (TESSERA_CHART_SCREENSHOT keeps a copy)")
    func screenshot() throws {
        let folder = try Tool.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("chart.html")
        try BenchChart.html(title: "tessera bench diff: 1% changed, int ids", machine: BenchChart.machineDescription(),
                            commandLine: "tessera bench diff --sweep 1k,10k,100k,1M --changes 1 --html chart.html",
                            series: realisticSeries, notes: ["Swift's difference(from:) left out above 20k elements (--swift-limit 20000): it is O(n·d) and would take too long."])
            .write(to: file, atomically: true, encoding: .utf8)
        let png = folder.appendingPathComponent("chart.png")
        _ = try runChromium(["--window-size=1200,800", "--screenshot=\(png.path)", file.absoluteString])
        let data = try Data(contentsOf: png)
        // A PNG of 1200×800: the signature, then the IHDR chunk's width and height.
        try #require(data.count > 10_000 && data.prefix(8) == Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]), "not a PNG: \(data.count) bytes")
        func bigEndian(_ offset: Int) -> Int { data[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) } }
        #expect(bigEndian(16) == 1200 && bigEndian(20) == 800)
        if let keep = ProcessInfo.processInfo.environment["TESSERA_CHART_SCREENSHOT"], !keep.isEmpty {
            try? FileManager.default.removeItem(atPath: keep)
            try FileManager.default.copyItem(at: png, to: URL(fileURLWithPath: keep))
            try? FileManager.default.removeItem(atPath: keep + ".html")
            try FileManager.default.copyItem(at: file, to: URL(fileURLWithPath: keep + ".html"))
        }
    }

    /// Four methods over 1k…1M: two linear, one quadratic cut off after 10k,
    /// one linear with a larger constant.
    var realisticSeries: [BenchChart.Series] {
        let sizes = [1_000, 10_000, 100_000, 1_000_000]
        return [
            .init(method: "Tessera", points: sizes.map { .init(size: $0, seconds: 6.1e-8 * pow(Double($0), 1.02)) }, exponent: 1.02),
            .init(method: "Dictionary floor", points: sizes.map { .init(size: $0, seconds: 2.3e-8 * pow(Double($0), 1.04)) }, exponent: 1.04),
            .init(method: "Swift difference(from:)", points: [1_000, 10_000].map { .init(size: $0, seconds: 4.0e-9 * pow(Double($0), 1.97)) }, exponent: 1.97),
            .init(method: "OrderedSet difference", points: sizes.map { .init(size: $0, seconds: 1.1e-7 * pow(Double($0), 1.08)) }, exponent: 1.08),
        ]
    }
}
