import Foundation
import Testing
import TesseraCommandKit
import TesseraLayout
import TesseraView
import TesseraRender
import TesseraTestTraits

/// Chromium, headless: the page of a plan must put every box where the plan
/// says, at the start, the end, and on the way (with the plan's timing).
enum Browser {
    /// Chromium's path: `CHROMIUM` from the environment, or the usual names.
    static let path: String? = {
        if let given = ProcessInfo.processInfo.environment["CHROMIUM"], FileManager.default.isExecutableFile(atPath: given) { return given }
        for candidate in ["/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome", "/snap/bin/chromium"]
        where FileManager.default.isExecutableFile(atPath: candidate) {
            return candidate
        }
        return nil
    }()

    /// One box as the page drew it.
    struct Box {
        var index: Int
        var label: String
        var disposition: String
        /// From `data-frame`: the numbers the page computed.
        var frame: [Double]
        var alpha: Double
        /// From the `style` attribute: what the browser lays out.
        var styleFrame: [Double]
        /// From the `style` attribute: `visibility: hidden`.
        var hidden: Bool
    }

    /// Runs headless Chromium (at `chromium`) with `arguments` after the
    /// flags every run takes and a profile folder of its own; returns what
    /// it printed and its exit status.
    static func run(_ chromium: String, _ arguments: [String]) throws -> (output: String, status: Int32) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: chromium)
        process.arguments = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
                             "--user-data-dir=\(FileManager.default.temporaryDirectory.appendingPathComponent("tessera-chromium-\(UUID().uuidString)").path)"]
                            + arguments
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = try out.fileHandleForReading.readToEnd(within: 300, "chromium's output")
        let ended = try process.exit(within: 300)
        return (String(decoding: data, as: UTF8.self), ended.shellStatus)
    }

    /// Loads `page` at `plan` and `progress` and reads the boxes from the DOM.
    static func boxes(_ page: URL, plan: Int, progress: Double) throws -> [Box] {
        let (dom, status) = try run(try #require(path), ["--dump-dom", page.absoluteString + "#plan=\(plan)&progress=\(progress)"])
        guard dom.contains("data-plan=\"\(plan)\"") else { throw ToolError("chromium did not run the page (status \(status)): \(dom.prefix(300))") }
        return try parse(dom)
    }

    static func parse(_ dom: String) throws -> [Box] {
        var boxes: [Box] = []
        var rest = Substring(dom)
        while let start = rest.range(of: "<div class=\"el ") {
            let tagEnd = try #require(rest[start.upperBound...].firstIndex(of: ">"))
            let tag = rest[start.lowerBound..<tagEnd]
            rest = rest[tagEnd...]
            var attributes: [String: String] = [:]
            var scan = tag[...]
            while let eq = scan.range(of: "=\"") {
                let name = scan[..<eq.lowerBound].split(separator: " ").last.map(String.init) ?? ""
                let valueEnd = try #require(scan[eq.upperBound...].firstIndex(of: "\""))
                attributes[name] = String(scan[eq.upperBound..<valueEnd]).replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&amp;", with: "&")
                scan = scan[scan.index(after: valueEnd)...]
            }
            func style(_ property: String) throws -> Double {
                let css = try #require(attributes["style"])
                let range = try #require(css.range(of: "\(property): "))
                let value = css[range.upperBound...].prefix { $0 != ";" }
                return try #require(Double(value.replacingOccurrences(of: "px", with: "")))
            }
            boxes.append(Box(
                index: try #require(Int(attributes["data-index"] ?? "")),
                label: attributes["data-label"] ?? "",
                disposition: attributes["data-disposition"] ?? "",
                frame: try #require(attributes["data-frame"]).split(separator: ",").map { try #require(Double($0)) },
                alpha: try #require(Double(attributes["data-alpha"] ?? "")),
                styleFrame: [try style("left"), try style("top"), try style("width"), try style("height")],
                hidden: (attributes["style"] ?? "").contains("visibility: hidden")
            ))
        }
        return boxes
    }
}

@Suite("The HTML view of a plan, in a real browser", .tags(.browser, .process), .ownThreads, .enabled(if: Browser.path != nil, "chromium is not installed (.ci/run installs it: apt-get install chromium)"))
struct BrowserTests {
    func frame(_ rect: Rect) -> [Double] { [rect.origin.x, rect.origin.y, rect.size.width, rect.size.height] }

    func expectBoxes(_ boxes: [Browser.Box], equal attributes: [LayoutAttributes], labels: [String], at progress: Double,
                     sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(boxes.count == attributes.count, sourceLocation: sourceLocation)
        for (box, expected) in zip(boxes, attributes) {
            let want = frame(expected.frame)
            #expect(box.label == labels[box.index], sourceLocation: sourceLocation)
            #expect(zip(box.frame, want).allSatisfy { abs($0 - $1) < 1e-9 },
                    "\(box.label) at \(progress): page \(box.frame), plan \(want)", sourceLocation: sourceLocation)
            #expect(zip(box.styleFrame, want).allSatisfy { abs($0 - $1) < 0.01 },
                    "\(box.label) at \(progress): style \(box.styleFrame), plan \(want)", sourceLocation: sourceLocation)
            #expect(abs(box.alpha - expected.alpha) < 1e-9, "\(box.label) alpha at \(progress)", sourceLocation: sourceLocation)
            #expect(box.hidden == expected.isHidden, "\(box.label) hidden at \(progress)", sourceLocation: sourceLocation)
        }
    }

    @Test("tessera diff --html: the boxes start at the plan's from frames and end at its to frames")
    func diffPageMatchesPlan() throws {
        let folder = try Tool.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let fixtures = Tool.fixtures.appendingPathComponent("diff")
        let page = folder.appendingPathComponent("plan.html")
        let result = try Tool.run(["diff", fixtures.appendingPathComponent("photos-old.json").path, fixtures.appendingPathComponent("photos-new.json").path,
                                   "--layout", "flow", "--html", page.path, "--json"])
        try #require(result.status == 0, "stderr: \(result.stderr)")
        let json = try JSON.parse(result.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
        let plan = try JSONDecoder().decode(AnimationPlan.self, from: Data(try #require(json["plan"]).compactText.utf8))
        guard case let .array(labelValues)? = json["labels"] else { throw ToolError("no labels") }
        let labels = labelValues.map { if case let .string(s) = $0 { s } else { "" } }
        try #require(plan.elements.count > 5)
        #expect(Set(plan.elements.map(\.disposition)).isSuperset(of: [.insert, .delete, .move, .reload]))

        let start = try Browser.boxes(page, plan: 0, progress: 0)
        expectBoxes(start, equal: plan.elements.map(\.from), labels: labels, at: 0)
        let end = try Browser.boxes(page, plan: 0, progress: 1)
        expectBoxes(end, equal: plan.elements.map(\.to), labels: labels, at: 1)
        // On the way: ease-in-out puts elements 6.25% of the way at a
        // quarter of the time, exactly as the plan interpolates.
        let quarter = try Browser.boxes(page, plan: 0, progress: 0.25)
        expectBoxes(quarter, equal: plan.attributes(at: 0.25), labels: labels, at: 0.25)
        #expect(start.map(\.disposition) == plan.elements.map { PlanJSON.disposition($0.disposition) })
    }

    @Test("tessera render: a spring plan with transforms plays the plan's own curve, overshoot included")
    func renderedSpringPlanMatchesPlan() throws {
        let folder = try Tool.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let grow = Transform(a: 0.2, b: 0, c: 0, d: 0.2, tx: 0, ty: 0)
        func cell(_ item: Int, _ x: Double, _ y: Double, alpha: Double = 1, transform: Transform = .identity, hidden: Bool = false) -> LayoutAttributes {
            var attributes = LayoutAttributes.cell(at: IndexPath(item: item, section: 0), frame: Rect(x: x, y: y, width: 80, height: 60))
            attributes.alpha = alpha
            attributes.transform = transform
            attributes.isHidden = hidden
            return attributes
        }
        let view = ViewIdentity(reuseIdentifier: "Cell", instance: 0)
        let plan = AnimationPlan(
            elements: [
                .init(category: .cell, indexPathBefore: [0, 0], indexPathAfter: [0, 2], itemID: "a", from: cell(0, 0, 0), to: cell(2, 200, 140), disposition: .move, view: view),
                .init(category: .cell, indexPathBefore: nil, indexPathAfter: [0, 0], itemID: "b", from: cell(0, 10, 10, alpha: 0, transform: grow), to: cell(0, 10, 10), disposition: .insert, view: view),
                .init(category: .cell, indexPathBefore: [0, 1], indexPathAfter: nil, itemID: "c", from: cell(1, 100, 0), to: cell(1, 100, 0, alpha: 0), disposition: .delete, view: view),
                // Hidden before, shown after: it appears halfway, at its alpha.
                .init(category: .cell, indexPathBefore: [0, 3], indexPathAfter: [0, 3], itemID: "d", from: cell(3, 0, 200, alpha: 0.5, hidden: true), to: cell(3, 0, 200), disposition: .reload, view: view),
            ],
            contentSizeBefore: Size(width: 300, height: 300), contentSizeAfter: Size(width: 300, height: 300),
            contentOffsetBefore: .zero, contentOffsetAfter: .zero,
            duration: 0.6, timing: .spring(dampingRatio: 0.4, response: 0.3), dequeuedViews: [], recycledViews: []
        )
        let planFile = folder.appendingPathComponent("plan.json")
        try JSONEncoder().encode(plan).write(to: planFile)
        let page = folder.appendingPathComponent("plan.html")
        let result = try Tool.run(["render", planFile.path, "--html", page.path])
        try #require(result.status == 0, "stderr: \(result.stderr)")
        #expect(result.stdout == "wrote \(page.path): 1 plan, 4 elements\n")
        let labels = ["a", "b", "c", "d"]
        for progress in [0, 0.25, 0.5, 1.0] {
            expectBoxes(try Browser.boxes(page, plan: 0, progress: progress), equal: plan.attributes(at: progress), labels: labels, at: progress)
        }
        // The spring overshoots: at some sample the moving box passes its end.
        #expect(plan.attributes(at: 0.25)[0].frame.origin.x > 200)
    }

    @Test("the demo page holds every committed transaction, each playable to its end")
    func demoPage() throws {
        let folder = try Tool.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let result = try Tool.run(["demo", "--database", folder.appendingPathComponent("photos.sqlite").path, "--photos", "2000"], in: folder)
        try #require(result.status == 0, "stderr: \(result.stderr)")
        let page = folder.appendingPathComponent("tessera-demo.html")
        // Transaction 1 adds 6 photos at the top: they end opaque in the
        // first two rows of the grid.
        let end = try Browser.boxes(page, plan: 0, progress: 1)
        let inserted = end.filter { $0.disposition == "inserted" }
        #expect(inserted.count == 6)
        #expect(inserted.allSatisfy { $0.alpha == 1 && $0.frame[1] < 32 + 2 * 98 })
        let start = try Browser.boxes(page, plan: 0, progress: 0)
        #expect(start.filter { $0.disposition == "inserted" }.allSatisfy { $0.alpha == 0 })
        // The last committed transaction (the 8th plan) is on the page too.
        let last = try Browser.boxes(page, plan: 7, progress: 1)
        #expect(last.contains { $0.label == "header A weekend away" && $0.disposition == "deleted" && $0.alpha == 0 })
    }
}
