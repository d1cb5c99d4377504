import Foundation

/// The page of `tessera bench diff --html`: time against size per method, log-log.
///
/// The page is one self-contained HTML file (no network, no external
/// scripts, fonts or images; it works from `file://`): a title, the machine
/// and the command line, an SVG chart with the size in elements on x and the
/// median time on y, both on decade (log10) scales, one colour and marker per
/// method with its points joined by lines, a legend with each method's fitted
/// growth exponent, a table of the median times (a row per size, a column
/// per method), and the notes.
///
/// Every plotted point is an element of class `point` carrying its data
/// (`data-method`, `data-size`, `data-seconds`) and the position the page
/// gave it (`data-x`, `data-y`, in the SVG's coordinates). The plot area is
/// the element `#plot`, a rectangle whose edges are at `data-x-min-log10`,
/// `data-x-max-log10` (left, right) and `data-y-min-log10`,
/// `data-y-max-log10` (bottom, top). On load, a small script records where
/// the browser drew each point, relative to the plot rectangle, in
/// `data-drawn-x` and `data-drawn-y`, and the plot's drawn size in
/// `data-drawn-width` and `data-drawn-height`, so a check can read them back
/// from the DOM.
///
/// A point whose time is zero, negative or not finite, or whose size is not
/// positive, has no place on a log scale: it is left out, and a note on the
/// page says how many points of which method were.
package enum BenchChart {
    /// One measurement: a size and its median time.
    package struct Point: Sendable, Hashable {
        /// The number of elements.
        package var size: Int
        /// The median time, in seconds.
        package var seconds: Double

        /// Creates a point.
        package init(size: Int, seconds: Double) {
            self.size = size
            self.seconds = seconds
        }
    }

    /// One method's measurements.
    package struct Series: Sendable {
        /// The method's name, as the legend shows it.
        package var method: String
        /// Its points, in any order (the line joins them by size).
        package var points: [Point]
        /// The fitted growth exponent *k* (time ∝ *n*^*k*), if known.
        package var exponent: Double?

        /// Creates a series.
        package init(method: String, points: [Point], exponent: Double?) {
            self.method = method
            self.points = points
            self.exponent = exponent
        }
    }

    /// One axis of the chart: its range in log10 and its decade gridlines.
    package struct Axis: Sendable, Equatable {
        /// The log10 of the value at the plot's left (x) or bottom (y) edge.
        package var minLog10: Double
        /// The log10 of the value at the plot's right (x) or top (y) edge.
        package var maxLog10: Double
        /// The exponents *k* of the decades 10^*k* drawn as gridlines, in
        /// increasing order: every decade from the one at or below the
        /// smallest value to the one at or above the largest.
        package var decades: [Int]
        /// The decades that carry a tick label (all of them unless they
        /// would crowd).
        package var labelled: [Int]
    }

    /// The SVG's size and the plot rectangle inside it, in the SVG's
    /// coordinates (which are CSS pixels: the SVG is not scaled).
    package enum Geometry {
        /// The SVG's width.
        package static let width = 800.0
        /// The SVG's height.
        package static let height = 500.0
        /// The plot rectangle's left edge.
        package static let plotX = 78.0
        /// The plot rectangle's top edge.
        package static let plotY = 16.0
        /// The plot rectangle's width.
        package static let plotWidth = 698.0
        /// The plot rectangle's height.
        package static let plotHeight = 420.0
    }

    /// One line naming the machine: CPU model (from /proc/cpuinfo), cores, memory, OS (uname), Swift build configuration (debug/release).
    ///
    /// For example `AMD EPYC · 2 cores · 7.8 GiB · Linux 6.1.0 x86_64
    /// (Debian GNU/Linux 12 (bookworm)) · release build`. A part that cannot
    /// be read is left out.
    package static func machineDescription() -> String {
        var parts: [String] = []
        if let cpuinfo = try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8) {
            let model = cpuinfo.split(separator: "\n").lazy.compactMap { line -> String? in
                let fields = line.split(separator: ":", maxSplits: 1)
                guard fields.count == 2 else { return nil }
                let key = fields[0].trimmingCharacters(in: .whitespaces)
                guard ["model name", "Model", "cpu model", "Hardware"].contains(key) else { return nil }
                let value = fields[1].trimmingCharacters(in: .whitespaces)
                return value.isEmpty ? nil : value
            }.first
            if let model { parts.append(model) }
        }
        let cores = ProcessInfo.processInfo.activeProcessorCount
        parts.append("\(cores) core\(cores == 1 ? "" : "s")")
        let gibibytes = Double(ProcessInfo.processInfo.physicalMemory) / 1_073_741_824
        if gibibytes > 0 { parts.append(String(format: "%.1f GiB", gibibytes)) }
        var name = utsname()
        if uname(&name) == 0 {
            func field<T>(_ value: T) -> String {
                withUnsafeBytes(of: value) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            }
            var os = "\(field(name.sysname)) \(field(name.release)) \(field(name.machine))"
            if let release = try? String(contentsOfFile: "/etc/os-release", encoding: .utf8),
               let line = release.split(separator: "\n").first(where: { $0.hasPrefix("PRETTY_NAME=") }) {
                let pretty = line.dropFirst("PRETTY_NAME=".count).trimmingCharacters(in: CharacterSet(charactersIn: "\"'"))
                if !pretty.isEmpty { os += " (\(pretty))" }
            }
            parts.append(os)
        }
        #if DEBUG
        parts.append("debug build")
        #else
        parts.append("release build")
        #endif
        return parts.joined(separator: " · ")
    }

    /// A self-contained HTML page (no external assets, no build step, works from file://).
    ///
    /// - Parameters:
    ///   - title: The page's title and heading.
    ///   - machine: The machine the figures come from (see
    ///     ``machineDescription()``).
    ///   - commandLine: The command that produced the figures, printed as
    ///     given.
    ///   - series: One series per method, drawn in this order with the
    ///     colours and markers of the legend.
    ///   - notes: Lines printed below the chart; the page adds one per
    ///     method that had points left out.
    /// - Returns: The page. Every text given is escaped.
    /// - Complexity: O(*p* log *p* + *d*) for *p* points in all and *d*
    ///   decades on the axes.
    package static func html(title: String, machine: String, commandLine: String, series: [Series], notes: [String]) -> String {
        let drawn = series.map { entry in
            (entry, entry.points.filter(isDrawable).sorted { ($0.size, $0.seconds) < ($1.size, $1.seconds) })
        }
        var allNotes = notes
        for (entry, points) in drawn where points.count < entry.points.count {
            let left = entry.points.count - points.count
            allNotes.append("\(entry.method): \(left) point\(left == 1 ? "" : "s") left out (a time of zero, a negative or non-finite time, or a size below 1 has no place on a log scale).")
        }
        let allPoints = drawn.flatMap(\.1)
        let x = axis(covering: allPoints.map { Double($0.size) }, length: Geometry.plotWidth, labelSpacing: 64, empty: (3, 6))
        let y = axis(covering: allPoints.map(\.seconds), length: Geometry.plotHeight, labelSpacing: 26, empty: (-6, 0))

        var svg = ""
        svg += "<svg id=\"chart\" xmlns=\"http://www.w3.org/2000/svg\" width=\"\(number(Geometry.width))\" height=\"\(number(Geometry.height))\" "
        svg += "viewBox=\"0 0 \(number(Geometry.width)) \(number(Geometry.height))\" role=\"img\" aria-label=\"\(escape("\(title): median time against size, log-log"))\">\n"
        svg += "<rect class=\"plot-background\" x=\"\(number(Geometry.plotX))\" y=\"\(number(Geometry.plotY))\" width=\"\(number(Geometry.plotWidth))\" height=\"\(number(Geometry.plotHeight))\"/>\n"
        svg += grid(x: x, y: y)
        svg += "<rect id=\"plot\" class=\"plot\" x=\"\(number(Geometry.plotX))\" y=\"\(number(Geometry.plotY))\" width=\"\(number(Geometry.plotWidth))\" height=\"\(number(Geometry.plotHeight))\" "
        svg += "data-x-min-log10=\"\(x.minLog10)\" data-x-max-log10=\"\(x.maxLog10)\" data-y-min-log10=\"\(y.minLog10)\" data-y-max-log10=\"\(y.maxLog10)\"/>\n"
        svg += "<text class=\"axis-title\" x=\"\(number(Geometry.plotX + Geometry.plotWidth / 2))\" y=\"\(number(Geometry.height - 12))\" text-anchor=\"middle\">size (elements, log scale)</text>\n"
        let middleY = number(Geometry.plotY + Geometry.plotHeight / 2)
        svg += "<text class=\"axis-title\" x=\"18\" y=\"\(middleY)\" text-anchor=\"middle\" transform=\"rotate(-90 18 \(middleY))\">median time (log scale)</text>\n"
        if allPoints.isEmpty {
            svg += "<text class=\"empty\" x=\"\(number(Geometry.plotX + Geometry.plotWidth / 2))\" y=\"\(middleY)\" text-anchor=\"middle\">No points to draw.</text>\n"
        }
        for (index, (entry, points)) in drawn.enumerated() {
            let style = Style(index: index)
            svg += "<g class=\"series\" data-method=\"\(escape(entry.method))\" style=\"--colour: \(style.colour)\">\n"
            if points.count > 1 {
                let coordinates = points.map { point in
                    let (px, py) = position(of: point, x: x, y: y)
                    return "\(number(px)),\(number(py))"
                }
                svg += "<polyline class=\"line\" points=\"\(coordinates.joined(separator: " "))\"/>\n"
            }
            for point in points {
                let (px, py) = position(of: point, x: x, y: y)
                svg += "<path class=\"point\(style.hollow ? " hollow" : "")\" data-method=\"\(escape(entry.method))\" data-size=\"\(point.size)\" data-seconds=\"\(point.seconds)\" "
                svg += "data-x=\"\(number(px))\" data-y=\"\(number(py))\" d=\"\(marker(style.shape, x: px, y: py, radius: 4.5))\">"
                svg += "<title>\(escape("\(entry.method): \(grouped(point.size)) elements, \(duration(point.seconds))"))</title></path>\n"
            }
            svg += "</g>\n"
        }
        svg += "</svg>"

        var legend = "<ul>\n"
        for (index, (entry, points)) in drawn.enumerated() {
            let style = Style(index: index)
            legend += "<li data-method=\"\(escape(entry.method))\" style=\"--colour: \(style.colour)\">"
            legend += "<svg class=\"swatch\" width=\"30\" height=\"14\" viewBox=\"0 0 30 14\" aria-hidden=\"true\"><line x1=\"1\" y1=\"7\" x2=\"29\" y2=\"7\"/>"
            legend += "<path class=\"\(style.hollow ? "hollow" : "")\" d=\"\(marker(style.shape, x: 15, y: 7, radius: 4.5))\"/></svg>"
            // A long name breaks after a dot or a parenthesis, not inside a word.
            let breakable = escape(entry.method).replacingOccurrences(of: ".", with: ".<wbr>").replacingOccurrences(of: "(", with: "(<wbr>")
            legend += "<span class=\"name\">\(breakable)</span>"
            if let exponent = entry.exponent, exponent.isFinite {
                let text = String(format: "%.2f", exponent)
                legend += "<span class=\"exponent\" data-exponent=\"\(text)\" title=\"fitted growth: time ∝ n^\(text)\">n<sup>\(text)</sup></span>"
            }
            legend += "<span class=\"extent\">\(extent(points))</span></li>\n"
        }
        legend += "</ul>\n"
        if drawn.contains(where: { $0.0.exponent?.isFinite == true }) {
            legend += "<p class=\"hint\">n<sup>k</sup>: the fitted growth of the time with the size (k = 1 linear, k = 2 quadratic).</p>\n"
        }

        let notesHTML = allNotes.isEmpty ? "" : "<section class=\"notes\"><h2>Notes</h2><ul>\n" + allNotes.map { "<li>\(escape($0))</li>\n" }.joined() + "</ul></section>\n"

        return page(title: escape(title), machine: escape(machine), command: escape(commandLine), svg: svg, legend: legend,
                    table: table(drawn), notes: notesHTML)
    }

    /// The figures as a table: a row per size, a column per method, the
    /// median time in each cell (the first, when a method has several at
    /// one size), `–` where a method has none.
    private static func table(_ drawn: [(Series, [Point])]) -> String {
        let sizes = Set(drawn.flatMap { $0.1.map(\.size) }).sorted()
        guard !sizes.isEmpty else { return "" }
        var html = "<section class=\"card figures\"><h2>Median times</h2><table>\n<thead><tr><th scope=\"col\">elements</th>"
        for (index, (entry, _)) in drawn.enumerated() {
            html += "<th scope=\"col\" style=\"--colour: \(Style(index: index).colour)\">\(escape(entry.method))</th>"
        }
        html += "</tr></thead>\n<tbody>\n"
        let times = drawn.map { _, points in
            Dictionary(points.map { ($0.size, $0.seconds) }, uniquingKeysWith: { first, _ in first })
        }
        for size in sizes {
            html += "<tr><th scope=\"row\">\(grouped(size))</th>"
            for column in times {
                html += column[size].map { "<td>\(duration($0))</td>" } ?? "<td class=\"none\">–</td>"
            }
            html += "</tr>\n"
        }
        return html + "</tbody></table></section>\n"
    }

    /// Whether a point can be drawn on log scales: a size of at least 1 and
    /// a positive, finite time.
    package static func isDrawable(_ point: Point) -> Bool {
        point.size >= 1 && point.seconds.isFinite && point.seconds > 0
    }

    /// The axis for positive, finite values: decade gridlines from the
    /// decade at or below the smallest to the one at or above the largest
    /// (two decades around a value that is itself a decade), and a range
    /// that reaches 4% of that span past them on each side.
    ///
    /// - Parameters:
    ///   - values: The values; none may be zero, negative or non-finite.
    ///   - length: The axis's length in pixels.
    ///   - labelSpacing: The fewest pixels between two tick labels.
    ///   - empty: The decades to span when there are no values.
    /// - Complexity: O(*n* + *d*) for *n* values and *d* decades.
    package static func axis(covering values: [Double], length: Double, labelSpacing: Double, empty: (Int, Int)) -> Axis {
        var low = empty.0, high = empty.1
        if let smallest = values.min(), let largest = values.max() {
            // A hair of tolerance: log10 of an exact decade may round
            // just past it.
            low = Int((log10(smallest) + 1e-9).rounded(.down))
            high = Int((log10(largest) - 1e-9).rounded(.up))
            if high <= low {
                low -= 1
                high += 1
            }
        }
        let span = Double(high - low)
        let decades = Array(low...high)
        let step = max(1, Int((labelSpacing / (length / span)).rounded(.up)))
        var labelled = decades.filter { $0 % step == 0 }
        if labelled.isEmpty { labelled = [low] }
        return Axis(minLog10: Double(low) - 0.04 * span, maxLog10: Double(high) + 0.04 * span, decades: decades, labelled: labelled)
    }

    /// Where a point sits in the SVG's coordinates.
    package static func position(of point: Point, x: Axis, y: Axis) -> (x: Double, y: Double) {
        let fx = (log10(Double(point.size)) - x.minLog10) / (x.maxLog10 - x.minLog10)
        let fy = (log10(point.seconds) - y.minLog10) / (y.maxLog10 - y.minLog10)
        return (Geometry.plotX + fx * Geometry.plotWidth, Geometry.plotY + Geometry.plotHeight - fy * Geometry.plotHeight)
    }

    /// The tick label of the size 10^`exponent`: `1`, `10`, `100`, `1k`,
    /// `10k`, … `1M`, … `1G` (`1e-1` below 1, `1e21` past the units).
    package static func sizeLabel(decade exponent: Int) -> String {
        let units = ["", "k", "M", "G", "T", "P", "E", "Z"]
        guard exponent >= 0, exponent / 3 < units.count else { return "1e\(exponent)" }
        return ["1", "10", "100"][exponent % 3] + units[exponent / 3]
    }

    /// The tick label of the time 10^`exponent` seconds: `1 ns`, `10 ns`,
    /// `100 ns`, `1 µs`, … `1 ms`, … `1 s`, `10 s`, `100 s` (`1e3 s` and
    /// `1e-13 s` past the units).
    package static func timeLabel(decade exponent: Int) -> String {
        let units = [(-12, "ps"), (-9, "ns"), (-6, "µs"), (-3, "ms"), (0, "s")]
        for (base, unit) in units.reversed() where exponent >= base {
            guard exponent - base < 3 else { return "1e\(exponent) s" }
            return ["1", "10", "100"][exponent - base] + " " + unit
        }
        return "1e\(exponent) s"
    }

    /// Text for HTML content and attribute values: `&`, `<`, `>`, `"` and
    /// `'` escaped.
    package static func escape(_ text: String) -> String {
        var result = ""
        result.reserveCapacity(text.utf8.count)
        for character in text {
            switch character {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\"": result += "&quot;"
            case "'": result += "&#39;"
            default: result.append(character)
            }
        }
        return result
    }

    /// A method's colour and marker: eight colours that stay apart for
    /// colour-blind readers (Okabe and Ito's palette, with grey for its
    /// yellow), and five shapes, filled then hollow.
    private struct Style {
        static let colours = ["#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#666666", "#8C564B"]
        var colour: String
        var shape: Int
        var hollow: Bool

        init(index: Int) {
            colour = Self.colours[index % Self.colours.count]
            shape = index % 5
            hollow = (index / 5) % 2 == 1
        }
    }

    /// The path of a marker centred on (x, y), its bounding box symmetric
    /// about that centre: circle, square, diamond, triangle up, triangle
    /// down.
    private static func marker(_ shape: Int, x: Double, y: Double, radius r: Double) -> String {
        switch shape {
        case 0:
            return "M\(number(x - r)) \(number(y))a\(number(r)) \(number(r)) 0 1 0 \(number(2 * r)) 0a\(number(r)) \(number(r)) 0 1 0 \(number(-2 * r)) 0Z"
        case 1:
            let s = r * 0.88
            return "M\(number(x - s)) \(number(y - s))h\(number(2 * s))v\(number(2 * s))h\(number(-2 * s))Z"
        case 2:
            let s = r * 1.25
            return "M\(number(x)) \(number(y - s))L\(number(x + s)) \(number(y))L\(number(x)) \(number(y + s))L\(number(x - s)) \(number(y))Z"
        case 3:
            return "M\(number(x)) \(number(y - r))L\(number(x + r)) \(number(y + r))L\(number(x - r)) \(number(y + r))Z"
        default:
            return "M\(number(x)) \(number(y + r))L\(number(x + r)) \(number(y - r))L\(number(x - r)) \(number(y - r))Z"
        }
    }

    /// The gridlines (decades, and the 2…9 multiples between them when a
    /// decade is at least 100 pixels long) and the tick labels.
    private static func grid(x: Axis, y: Axis) -> String {
        func px(_ log: Double) -> Double { Geometry.plotX + (log - x.minLog10) / (x.maxLog10 - x.minLog10) * Geometry.plotWidth }
        func py(_ log: Double) -> Double { Geometry.plotY + Geometry.plotHeight - (log - y.minLog10) / (y.maxLog10 - y.minLog10) * Geometry.plotHeight }
        let left = number(Geometry.plotX), right = number(Geometry.plotX + Geometry.plotWidth)
        let top = number(Geometry.plotY), bottom = number(Geometry.plotY + Geometry.plotHeight)
        func minor(_ axis: Axis, length: Double) -> [Double] {
            guard length / Double(axis.decades.count - 1) >= 100 else { return [] }
            return axis.decades.flatMap { k in (2...9).map { Double(k) + log10(Double($0)) } }.filter { $0 < axis.maxLog10 }
        }
        var minorLines = ""
        for log in minor(x, length: Geometry.plotWidth) {
            minorLines += "<line x1=\"\(number(px(log)))\" y1=\"\(top)\" x2=\"\(number(px(log)))\" y2=\"\(bottom)\"/>"
        }
        for log in minor(y, length: Geometry.plotHeight) {
            minorLines += "<line x1=\"\(left)\" y1=\"\(number(py(log)))\" x2=\"\(right)\" y2=\"\(number(py(log)))\"/>"
        }
        var majorLines = "", labels = ""
        let labelledX = Set(x.labelled), labelledY = Set(y.labelled)
        for k in x.decades {
            let at = number(px(Double(k)))
            majorLines += "<line x1=\"\(at)\" y1=\"\(top)\" x2=\"\(at)\" y2=\"\(bottom)\"/>"
            if labelledX.contains(k) {
                labels += "<text class=\"tick x\" data-decade=\"\(k)\" x=\"\(at)\" y=\"\(number(Geometry.plotY + Geometry.plotHeight + 18))\" text-anchor=\"middle\">\(escape(sizeLabel(decade: k)))</text>\n"
            }
        }
        for k in y.decades {
            let at = number(py(Double(k)))
            majorLines += "<line x1=\"\(left)\" y1=\"\(at)\" x2=\"\(right)\" y2=\"\(at)\"/>"
            if labelledY.contains(k) {
                labels += "<text class=\"tick y\" data-decade=\"\(k)\" x=\"\(number(Geometry.plotX - 8))\" y=\"\(at)\" dy=\"0.35em\" text-anchor=\"end\">\(escape(timeLabel(decade: k)))</text>\n"
            }
        }
        return "<g class=\"grid minor\">\(minorLines)</g>\n<g class=\"grid major\">\(majorLines)</g>\n<g class=\"ticks\">\n\(labels)</g>\n"
    }

    /// A coordinate with at most three decimals.
    private static func number(_ value: Double) -> String {
        var text = String(format: "%.3f", value)
        while text.hasSuffix("0") { text.removeLast() }
        if text.hasSuffix(".") { text.removeLast() }
        return text == "-0" ? "0" : text
    }

    /// A count with thousands separators: `1,000,000`.
    private static func grouped(_ value: Int) -> String {
        let digits = String(value.magnitude)
        var result = ""
        for (offset, digit) in digits.enumerated() {
            if offset > 0, (digits.count - offset) % 3 == 0 { result.append(",") }
            result.append(digit)
        }
        return value < 0 ? "-" + result : result
    }

    /// A time with three significant digits and a unit: `1.23 ms`.
    private static func duration(_ seconds: Double) -> String {
        let units: [(Double, String)] = [(1, "s"), (1e-3, "ms"), (1e-6, "µs"), (1e-9, "ns")]
        let (scale, unit) = units.first { seconds >= $0.0 } ?? units[units.count - 1]
        let value = seconds / scale
        let format = value >= 100 ? "%.0f" : value >= 10 ? "%.1f" : "%.2f"
        return String(format: format, value) + " " + unit
    }

    /// The sizes a series spans: `1k – 1M, 4 sizes`.
    private static func extent(_ points: [Point]) -> String {
        guard let first = points.first, let last = points.last else { return "no points" }
        let sizes = Set(points.map(\.size)).count
        let span = first.size == last.size ? compact(first.size) : "\(compact(first.size))–\(compact(last.size))"
        return "\(span), \(sizes) size\(sizes == 1 ? "" : "s")"
    }

    /// A size in short form: `1k`, `2.5M`, `999`.
    private static func compact(_ size: Int) -> String {
        let units: [(Double, String)] = [(1e18, "E"), (1e15, "P"), (1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k")]
        guard let (scale, unit) = units.first(where: { Double(size) >= $0.0 }) else { return "\(size)" }
        var text = String(format: "%.1f", Double(size) / scale)
        if text.hasSuffix(".0") { text.removeLast(2) }
        return text + unit
    }

    /// The page around its parts, which are HTML already.
    private static func page(title: String, machine: String, command: String, svg: String, legend: String, table: String, notes: String) -> String {
        #"""
<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>\#(title)</title>
<style>
  :root { color-scheme: light; }
  body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif; margin: 0; color: #1d1d22; background: #f3f4f7; }
  .page { max-width: 1180px; margin: 0 auto; padding: 20px 24px 28px; }
  h1 { font-size: 20px; margin: 0 0 4px; font-weight: 650; }
  h2 { font-size: 13px; text-transform: uppercase; letter-spacing: .06em; color: #666; margin: 0 0 8px; font-weight: 600; }
  .machine { margin: 0 0 6px; color: #444; }
  .command { margin: 0 0 16px; padding: 6px 10px; background: #fff; border: 1px solid #dcdde3; border-radius: 6px;
             font: 12.5px/1.5 ui-monospace, "SFMono-Regular", Menlo, Consolas, "DejaVu Sans Mono", monospace; white-space: pre-wrap; word-break: break-all; }
  .command::before { content: "$ "; color: #888; }
  .layout { display: flex; gap: 20px; align-items: flex-start; flex-wrap: wrap; }
  .card { background: #fff; border: 1px solid #dcdde3; border-radius: 8px; padding: 12px 14px; }
  .chart-card { flex: none; padding: 8px; }
  #chart { display: block; font-family: inherit; }
  .plot-background { fill: #fff; }
  .plot { fill: none; stroke: #9a9ca5; stroke-width: 1; }
  .grid.major line { stroke: #d9dbe1; stroke-width: 1; }
  .grid.minor line { stroke: #eff0f3; stroke-width: 1; }
  .tick { font-size: 12px; fill: #4a4c55; font-variant-numeric: tabular-nums; }
  .axis-title { font-size: 12.5px; fill: #33353d; font-weight: 600; }
  .empty { font-size: 15px; fill: #888; }
  .series { color: var(--colour); }
  .line { fill: none; stroke: currentColor; stroke-width: 2; stroke-linejoin: round; stroke-linecap: round; opacity: .9; }
  .point { fill: currentColor; stroke: #fff; stroke-width: 1.25; }
  .point.hollow { fill: #fff; stroke: currentColor; stroke-width: 1.75; }
  .point:hover { stroke: #1d1d22; stroke-width: 2; }
  .legend { flex: 1 1 260px; min-width: 240px; max-width: 360px; }
  .legend ul { list-style: none; margin: 0; padding: 0; }
  .legend li { display: grid; grid-template-columns: 34px 1fr auto; grid-template-rows: auto auto; column-gap: 6px; padding: 7px 0; border-top: 1px solid #eceef2; color: var(--colour); }
  .legend li:first-child { border-top: none; }
  .swatch { grid-row: 1 / span 2; align-self: center; }
  .swatch line { stroke: currentColor; stroke-width: 2; }
  .swatch path { fill: currentColor; stroke: #fff; stroke-width: 1.25; }
  .swatch path.hollow { fill: #fff; stroke: currentColor; stroke-width: 1.75; }
  .legend .name { color: #1d1d22; font-weight: 600; overflow-wrap: break-word; }
  .legend .exponent { color: #1d1d22; font-variant-numeric: tabular-nums; white-space: nowrap; }
  .legend .extent { grid-column: 2 / span 2; color: #6b6d76; font-size: 12.5px; }
  .hint { margin: 10px 0 0; color: #6b6d76; font-size: 12.5px; }
  .figures { margin-top: 20px; display: inline-block; padding: 12px 16px 10px; }
  .figures table { border-collapse: collapse; font-variant-numeric: tabular-nums; }
  .figures th, .figures td { padding: 4px 12px; text-align: right; border-top: 1px solid #eceef2; white-space: nowrap; }
  .figures thead th { border-top: none; border-bottom: 2px solid var(--colour, #c9cbd2); font-weight: 600; }
  .figures tbody th { font-weight: 500; color: #4a4c55; }
  .figures td.none { color: #aaa; }
  .notes { margin-top: 20px; }
  .notes ul { margin: 0; padding-left: 20px; color: #33353d; }
  .notes li { margin: 2px 0; overflow-wrap: anywhere; }
</style>
</head>
<body>
<div class="page">
<h1>\#(title)</h1>
<p class="machine">\#(machine)</p>
<pre class="command">\#(command)</pre>
<div class="layout">
<div class="card chart-card">
\#(svg)
</div>
<aside class="card legend">
<h2>Methods</h2>
\#(legend)</aside>
</div>
\#(table)\#(notes)</div>
<script>
// Records where the browser drew each point, relative to the plot
// rectangle, so that a check can read the positions back from the DOM.
(function () {
  var plot = document.getElementById("plot");
  var frame = plot.getBoundingClientRect();
  plot.setAttribute("data-drawn-width", frame.width.toFixed(3));
  plot.setAttribute("data-drawn-height", frame.height.toFixed(3));
  var points = document.querySelectorAll("#chart .point");
  for (var i = 0; i < points.length; i++) {
    var box = points[i].getBoundingClientRect();
    points[i].setAttribute("data-drawn-x", (box.left + box.width / 2 - frame.left).toFixed(3));
    points[i].setAttribute("data-drawn-y", (box.top + box.height / 2 - frame.top).toFixed(3));
  }
  document.body.setAttribute("data-drawn", String(points.length));
})();
</script>
</body>
</html>
"""#
    }
}
