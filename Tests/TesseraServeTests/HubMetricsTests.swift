import Foundation
import Logging
import Testing
@testable import TesseraLiveHub
@testable import TesseraLiveProtocol
@testable import TesseraServe
import TesseraLayout
import TesseraRender
import TesseraResultsCore
import TesseraSQLite
import TesseraTestSupport

/// The hub's metrics (Prometheus' text format) count what it did, and its
/// log says what an operator needs to know, each event once.
@Suite("Hub metrics and logs")
struct HubMetricsTests {
    /// A log handler that keeps every event.
    struct Capture: LogHandler {
        final class Events: Sendable {
            let events = PThreadMutex<[(level: Logger.Level, message: String)]>([])
            func count(_ level: Logger.Level, _ prefix: String) -> Int {
                events.withLock { $0.filter { $0.level == level && $0.message.hasPrefix(prefix) }.count }
            }
        }
        let sink: Events
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace
        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }
        func log(event: LogEvent) {
            sink.events.withLock { $0.append((event.level, "\(event.message)")) }
        }
    }

    /// The samples of a metrics text, by name with labels; every line is
    /// a `# HELP`, a `# TYPE` or a sample with a number.
    static func samples(_ text: String) throws -> [String: Double] {
        var samples: [String: Double] = [:]
        for line in text.split(separator: "\n") {
            if line.hasPrefix("# HELP tessera_live_") || line.hasPrefix("# TYPE tessera_live_") { continue }
            let parts = line.split(separator: " ")
            guard parts.count == 2, parts[0].hasPrefix("tessera_live_"), let value = Double(parts[1]) else {
                throw ServerTestError("not a sample: \(line)")
            }
            samples[String(parts[0])] = value
        }
        return samples
    }

    @Test("clients, changes, plans (merged and unchanged), slow clients, edits and the change histogram add up to what the clients received; the log has each event once")
    func metricsAndLogsAddUp() async throws {
        let seed = testSeed(default: 0x3E7_21C5)
        print("HubMetricsTests seed \(seed)")
        var random = SplitMix64(seed: seed)
        let library = try HubLibrary(photos: 40)
        let sink = Capture.Events()
        var configuration = library.configuration(capacity: 4)
        configuration.logger = Logger(label: "test", factory: { _ in Capture(sink: sink) })
        let hub = try ServeHub(configuration: configuration)
        await hub.start()
        var clients: [HubTestClient] = []
        for (index, layout) in [ServeLayoutKind.flow, .column].enumerated() {
            let (id, outbox) = await hub.connect(canEdit: index == 0)
            let client = HubTestClient(id: id, outbox: outbox, label: "seed \(seed), client \(index)", layout: layout, viewport: Rect(x: 0, y: 0, width: 900, height: 700))
            await hub.receive(HubOracleTests.hello(client), from: id)
            clients.append(client)
        }
        let (fast, slow) = (clients[0], clients[1])
        try await fast.drain()
        for _ in 0..<12 {
            try HubOracleTests.externalCommit(library, using: &random)
            await hub.poll()
            try await fast.drain()
        }
        // The slow client reads everything: the plans that fit, then one
        // merged plan (made once its outbox drains, by a task of the hub's).
        let last = await hub.seq
        while slow.seq < last, let text = await slow.outbox.next() { try slow.take(text) }
        let id = fast.replica.sections[0].ids[0]
        await hub.receive(#"{"type":"rename","request":1,"id":"\#(id)","title":"Renamed"}"#, from: fast.id)
        await hub.receive(#"{"type":"rename","request":2,"id":"\#(id)","title":"Nope"}"#, from: slow.id)
        for client in clients { try await client.drain() }
        #expect(fast.dones.count == 1 && slow.errors.count == 1)

        // A client that never reads while it keeps asking is closed.
        let (reckless, outbox) = await hub.connect(canEdit: false)
        await hub.receive(#"{"type":"hello","layout":"list","viewport":[0,0,400,600]}"#, from: reckless)
        for _ in 0...outbox.limit where !outbox.isClosed {
            await hub.receive(#"{"type":"viewport","viewport":[0,10,400,600]}"#, from: reckless)
        }
        #expect(outbox.isClosed)

        let samples = try Self.samples(await hub.metricsText())
        let seq = Double(await hub.seq)
        #expect(samples["tessera_live_clients"] == 2)
        let rows = try library.writer.withDatabase { db in try db.rows("SELECT count(*) FROM photo")[0][0].int64 ?? -1 }
        #expect(samples["tessera_live_rows"] == Double(rows))
        #expect(samples["tessera_live_connections_total"] == 3)
        #expect(samples["tessera_live_changes_total"] == seq)
        let plans = (samples["tessera_live_plans_sent_total{kind=\"animated\"}"] ?? -1) + (samples["tessera_live_plans_sent_total{kind=\"unchanged\"}"] ?? -1)
        #expect(plans == Double(fast.plans + slow.plans), "seed \(seed)")
        #expect(samples["tessera_live_merged_plans_total"] == 1, "seed \(seed)")
        #expect(samples["tessera_live_clients_behind_total"] == 1, "seed \(seed)")
        #expect(samples["tessera_live_clients_dropped_total"] == 1)
        #expect(samples["tessera_live_edits_total{outcome=\"done\"}"] == 1)
        #expect(samples["tessera_live_edits_total{outcome=\"refused\"}"] == 1)
        // The histogram: cumulative buckets, +Inf equal to the count, one
        // observation per change.
        let buckets = samples.filter { $0.key.hasPrefix("tessera_live_change_seconds_bucket") }
        #expect(buckets.count == 14)
        #expect(samples["tessera_live_change_seconds_bucket{le=\"+Inf\"}"] == seq)
        #expect(samples["tessera_live_change_seconds_count"] == seq)
        let finite = buckets.filter { !$0.key.contains("+Inf") }.sorted { Double($0.key.split(separator: "\"")[1])! < Double($1.key.split(separator: "\"")[1])! }
        #expect(zip(finite, finite.dropFirst()).allSatisfy { $0.value <= $1.value })
        #expect((samples["tessera_live_change_seconds_sum"] ?? -1) >= 0)

        // The log: three connections, one client behind, one closed, one
        // refused edit.
        #expect(sink.count(.debug, "client connected") == 3)
        #expect(sink.count(.debug, "client behind") == 1)
        #expect(sink.count(.warning, "client closed") == 1)
        #expect(sink.count(.info, "edit refused") == 1)
        #expect(sink.count(.info, "following the table") == 1)

        // A table that cannot be read is logged once, and its return once.
        try library.writer.withDatabase { db in try db.execute("ALTER TABLE photo RENAME TO photo_away") }
        for _ in 0..<3 { await hub.poll() }
        #expect(sink.count(.error, "cannot read the table's changes") == 1)
        try library.writer.withDatabase { db in try db.execute("ALTER TABLE photo_away RENAME TO photo") }
        for _ in 0..<3 { await hub.poll() }
        #expect(sink.count(.error, "cannot read the table's changes") == 1)
        #expect(sink.count(.notice, "reading the table's changes again") == 1)
        await hub.stop()
        #expect(sink.count(.info, "stopped following") == 1)
    }
}
