import Foundation
import TesseraLoad
import TesseraRender
import TesseraTestTraits
import Testing

/// `tessera bench serve --rows`: a small run through the built `tessera` on
/// a table of its own, whose report has every figure of the table's
/// measurements with exact counts, with and without a change log, the
/// temporary folder gone afterwards, and the options that do not go
/// together.
@Suite("Load generator on a table of its own", .tags(.process), .ownThreads)
struct BenchServeRowsTests {
    /// 2,000 rows in 10 sections, 3 clients: every commit by the bench and
    /// every rename reached every client once, alone; each figure is
    /// there and consistent; the table's folder is removed.
    @Test func rowsRunMeasuresEveryFigureExactly() throws {
        let folder = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let result = try Self.run(["bench", "serve", "--rows", "2000", "--sections", "10", "--clients", "3", "--seconds", "1", "--json"], temporaryFolder: folder)
        #expect(result.status == 0, "stderr: \(result.stderr)")
        let report = try JSON.parse(result.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
        #expect(report["exact"] == .bool(true), "\(result.stdout)")
        #expect(report["photos"] == .null)
        #expect(Self.number(report["startSeconds"]).map { $0 > 0 && $0 < 300 } == true, "\(result.stdout)")
        guard let table = report["table"], table != .null else {
            Issue.record("no table in \(result.stdout)")
            return
        }
        #expect(table["rows"] == .int(2_000))
        #expect(table["sections"] == .int(10))
        #expect(table["changeLog"] == .bool(true))
        #expect(table["exact"] == .bool(true))
        #expect(Self.number(table["buildSeconds"]).map { $0 > 0 } == true)
        // Ready (the first hello answered) after the address was printed.
        if let ready = Self.number(table["readySeconds"]), let start = Self.number(report["startSeconds"]) {
            #expect(ready > start && ready < 300, "\(result.stdout)")
        } else {
            Issue.record("no readySeconds or startSeconds in \(result.stdout)")
        }
        Self.expectLatency(table["sequentialSnapshot"], count: 10, "sequentialSnapshot in \(result.stdout)")
        Self.expectLatency(table["clientSnapshot"], count: 3, "clientSnapshot in \(result.stdout)")
        for name in ["commits", "renames"] {
            let probe = table[name]
            #expect(probe?["changes"] == .int(20), "\(name) in \(result.stdout)")
            #expect(probe?["clients"] == .int(3), "\(name) in \(result.stdout)")
            #expect(probe?["plans"] == .int(60), "\(name) in \(result.stdout)")
            #expect(probe?["plansExpected"] == .int(60), "\(name) in \(result.stdout)")
            for key in ["merged", "lost", "duplicated"] {
                #expect(probe?[key] == .int(0), "\(name).\(key) in \(result.stdout)")
            }
            #expect(probe?["exact"] == .bool(true), "\(name) in \(result.stdout)")
            Self.expectLatency(probe?["lastClient"], count: 20, "\(name).lastClient in \(result.stdout)")
            Self.expectLatency(probe?["perClient"], count: 60, "\(name).perClient in \(result.stdout)")
            // The last client's time of a change is the largest of its
            // clients' times.
            #expect(Self.number(probe?["lastClient"]?["maxSeconds"]) == Self.number(probe?["perClient"]?["maxSeconds"]), "\(name) in \(result.stdout)")
        }
        for key in ["residentBytesBeforeCommits", "residentBytesAfterTenCommits"] {
            #expect(Self.number(table[key]).map { $0 > 1_000_000 } == true, "\(key) in \(result.stdout)")
        }
        #expect(table["residentBytesPerClient"].map { $0 != .null } == true)
        guard case .array(let steps)? = report["steps"], steps.count == 1 else {
            Issue.record("no single step in \(result.stdout)")
            return
        }
        #expect(steps[0]["clients"] == .int(3))
        #expect(steps[0]["exact"] == .bool(true))
        #expect(steps[0]["changes"] == .int(20))
        #expect(steps[0]["plans"] == .int(60))
        for key in ["lost", "duplicated", "outOfOrder", "missingAtEnd", "failedClients", "unattributed"] {
            #expect(steps[0][key] == .int(0), "\(key) in \(result.stdout)")
        }
        // The table's file and its folder went with the run.
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).isEmpty)
        // Each phase's end went to standard error with its time.
        for phase in ["table written", "printed its address", "commits by this process reached every client", "renames reached every client"] {
            #expect(result.stderr.contains(phase), "\(phase) in \(result.stderr)")
        }
    }

    /// Without a change log, another process's commits still reach every
    /// client once (fetched again), and the text table shows every figure.
    @Test func rowsRunWithoutChangeLogPrintsEveryFigure() throws {
        let folder = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let result = try Self.run(["bench", "serve", "--rows", "2000", "--sections", "10", "--clients", "3", "--seconds", "1", "--no-change-log"], temporaryFolder: folder)
        #expect(result.status == 0, "stderr: \(result.stderr)")
        let text = result.stdout
        #expect(text.contains("a table of 2000 rows"), "\(text)")
        #expect(text.contains("2000 rows in 10 sections") && text.contains("without a change log"), "\(text)")
        #expect(text.contains("s from spawning tessera serve to its address"), "\(text)")
        #expect(text.contains("s from spawning it to the first hello's snapshot"), "\(text)")
        #expect(text.contains("(10 hellos one at a time, each on a new connection)") && text.contains("(the 3 clients connecting)"), "\(text)")
        #expect(text.components(separatedBy: "per client; 60 plans of 60 expected, merged 0, lost 0, duplicated 0").count == 3, "\(text)")
        #expect(text.contains("commit → plans") && text.contains("rename → plans"), "\(text)")
        #expect(text.contains("before the commits") && text.contains("after 10"), "\(text)")
        #expect(text.contains("memory/client"), "\(text)")
        #expect(text.contains("lost 0, duplicated 0, out of order 0, missing at the end 0, clients failed 0"), "\(text)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).isEmpty)
    }

    /// Options out of range or that do not go together with --rows: status
    /// 64, one line naming them, nothing run.
    @Test(arguments: [
        (["--rows", "0"], "--rows 0"), (["--rows", "10000001"], "--rows 10000001"), (["--rows", "x"], "--rows"),
        (["--rows", "100", "--photos", "100"], "--rows and --photos"), (["--rows", "100", "--url", "ws://127.0.0.1:9/live"], "--rows and --url"),
        (["--rows", "100", "--sections", "0"], "--sections 0"), (["--rows", "100", "--sections", "101"], "--sections 101"),
        (["--sections", "10"], "--sections 10 goes with --rows"), (["--no-change-log"], "--no-change-log goes with --rows"),
    ])
    func badRowOptions(options: [String], named: String) throws {
        let result = try LoadTool.run(["bench", "serve", "--clients", "1", "--seconds", "1"] + options)
        #expect(result.status == 64, "\(options): \(result.stderr)")
        #expect(result.stdout.isEmpty)
        let lines = result.stderr.split(separator: "\n")
        #expect(lines.count == 1 && lines[0].hasPrefix("tessera: error: ") && lines[0].contains(named), "\(options): \(result.stderr)")
    }

    /// A client scrolled far down a list taller than the protocol allows
    /// a viewport's origin to be (10,000,000 points: a million rows in a
    /// list) asks for a rectangle the server accepts; it asked past it, got
    /// `outOfRange`, and waited for its elements until it timed out.
    @Test func scrolledViewportStaysWithinTheProtocolsLimit() {
        #expect(LoadClientRecord.scrolledOrigin(contentHeight: 44_000_000, height: 844, fraction: 0.9) == 10_000_000)
        #expect(LoadClientRecord.scrolledOrigin(contentHeight: 10_000_844, height: 844, fraction: 1) == 10_000_000)
        #expect(LoadClientRecord.scrolledOrigin(contentHeight: 10_000, height: 1_000, fraction: 0.5) == 4_500)
        #expect(LoadClientRecord.scrolledOrigin(contentHeight: 500, height: 1_000, fraction: 0.5) == 0)
    }

    /// A latency object with `count` values, its percentiles in order.
    static func expectLatency(_ latency: JSON?, count: Int, _ comment: String, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(latency?["count"] == .int(count), "\(comment)", sourceLocation: sourceLocation)
        let values = ["p50Seconds", "p90Seconds", "p99Seconds", "maxSeconds"].map { number(latency?[$0]) }
        guard let p50 = values[0], let p90 = values[1], let p99 = values[2], let max = values[3] else {
            Issue.record("a percentile missing: \(comment)", sourceLocation: sourceLocation)
            return
        }
        #expect(p50 >= 0 && p50 <= p90 && p90 <= p99 && p99 <= max && max < 300, "\(comment)", sourceLocation: sourceLocation)
    }

    /// A JSON number as a Double.
    static func number(_ value: JSON?) -> Double? {
        if case .number(let digits)? = value { return Double(digits) }
        return nil
    }

    /// An empty folder of the test's own, the run's TMPDIR.
    static func temporaryFolder() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tessera-bench-rows-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    /// Runs the built `tessera` with `temporaryFolder` as its TMPDIR and
    /// waits (at most `timeout` seconds, a hang guard of the child process)
    /// for it to exit.
    static func run(_ arguments: [String], temporaryFolder: URL, timeout: Double = 300) throws -> LoadTool.Result {
        let process = Process()
        process.executableURL = LoadTool.executable
        process.arguments = arguments
        var environment = ProcessInfo.processInfo.environment
        environment["TMPDIR"] = temporaryFolder.path
        process.environment = environment
        process.standardInput = FileHandle.nullDevice
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        let outCollector = LoadTool.Collector(out), errCollector = LoadTool.Collector(err)
        try process.run()
        let ended: ChildExit
        do {
            ended = try process.exit(within: timeout)
        } catch {
            throw LoadTool.Failure(description: "\(error): \(errCollector.text)")
        }
        _ = outCollector.finished.wait(timeout: .now() + 120)
        _ = errCollector.finished.wait(timeout: .now() + 120)
        return LoadTool.Result(status: ended.shellStatus, stdout: outCollector.text, stderr: errCollector.text)
    }
}

extension JSON {
    /// The value of `key` when this is an object.
    fileprivate subscript(key: String) -> JSON? {
        guard case .object(let fields) = self else { return nil }
        return fields.first { $0.key == key }?.value
    }
}
