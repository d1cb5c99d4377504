import Foundation
import TesseraLoad
import TesseraRender
import TesseraTestTraits
import Testing

/// `tessera bench serve --floor`: the same load run against a server that
/// computes nothing, in the same run, and the ratios to it.
@Suite("Load generator against its floor", .tags(.process), .ownThreads)
struct BenchServeFloorTests {
    /// 3 clients for a second against `tessera serve`, then against the
    /// floor: every change reached every client once on both, the floor's
    /// plans are as long as Tessera's on average, and the ratios are those
    /// of the two steps' figures.
    @Test func floorRunsTheSameLoad() throws {
        let folder = try BenchServeRowsTests.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let result = try BenchServeRowsTests.run(
            ["bench", "serve", "--photos", "300", "--clients", "3", "--seconds", "1", "--floor", "--json"], temporaryFolder: folder
        )
        #expect(result.status == 0, "stderr: \(result.stderr)")
        let report = try JSON.parse(result.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
        guard case .array(let steps)? = report["steps"], case .array(let floor)? = report["floorSteps"], case .array(let ratios)? = report["floorRatios"] else {
            Issue.record("no steps, floorSteps or floorRatios in \(result.stdout)")
            return
        }
        #expect(steps.count == 1 && floor.count == 1 && ratios.count == 1, "\(result.stdout)")
        guard let tessera = steps.first, let bare = floor.first, let ratio = ratios.first else { return }
        for step in [tessera, bare] {
            #expect(step["clients"] == .int(3))
            #expect(step["exact"] == .bool(true), "\(result.stdout)")
            #expect(step["lost"] == .int(0) && step["duplicated"] == .int(0))
            let changes = BenchServeRowsTests.number(step["changes"]) ?? 0
            #expect(changes > 0 && step["plans"] == .int(Int(changes) * 3), "\(result.stdout)")
        }
        // The floor's plans are as long as Tessera's were on average (its
        // frame is padded to that length, give or take its own head).
        func average(_ step: JSON) -> Double {
            (BenchServeRowsTests.number(step["planBytes"]) ?? 0) / max(1, BenchServeRowsTests.number(step["plans"]) ?? 0)
        }
        #expect(abs(average(bare) - average(tessera)) <= 64, "\(average(bare)) against \(average(tessera))")
        #expect(ratio["clients"] == .int(3))
        let p99 = { (step: JSON) in BenchServeRowsTests.number(step["latency"]?["p99Seconds"]) }
        if let ours = p99(tessera), let theirs = p99(bare), let said = BenchServeRowsTests.number(ratio["p99"]) {
            #expect(abs(said - ours / theirs) <= 1e-6 * max(1, said), "\(result.stdout)")
        } else {
            Issue.record("no p99 or ratio in \(result.stdout)")
        }
        #expect(ratio["cpuPerChange"] != nil, "\(result.stdout)")
    }

    /// `--floor` needs a server started here.
    @Test func floorNeedsItsOwnServer() throws {
        let folder = try BenchServeRowsTests.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let result = try BenchServeRowsTests.run(["bench", "serve", "--url", "ws://127.0.0.1:9/live", "--floor"], temporaryFolder: folder)
        #expect(result.status == 64, "\(result.stderr)")
        #expect(result.stderr.contains("--floor"), "\(result.stderr)")
    }
}
