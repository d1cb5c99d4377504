import Foundation
import TesseraRender

/// The latency of plans, from the rename's sending to the plan's arrival,
/// over every (client, plan) pair of a step.
package struct LoadLatency: Sendable, Equatable {
    /// The pairs measured.
    package var count: Int
    /// The median, in seconds.
    package var p50: Double
    /// The 90th percentile, in seconds.
    package var p90: Double
    /// The 99th percentile, in seconds.
    package var p99: Double
    /// The largest, in seconds.
    package var max: Double

    /// The percentiles of `nanoseconds` (sorted in place), or `nil` when it
    /// is empty. A percentile is the value at rank ⌈*p* · *n*⌉.
    ///
    /// - Complexity: O(*n* log *n*).
    package init?(nanoseconds: inout [UInt64]) {
        guard !nanoseconds.isEmpty else { return nil }
        nanoseconds.sort()
        let values = nanoseconds
        func percentile(_ p: Double) -> Double {
            let rank = Swift.max(1, Int((p * Double(values.count)).rounded(.up)))
            return Double(values[Swift.min(values.count, rank) - 1]) / 1e9
        }
        count = values.count
        p50 = percentile(0.50)
        p90 = percentile(0.90)
        p99 = percentile(0.99)
        max = Double(values[values.count - 1]) / 1e9
    }
}

/// One run of a client count: edits for the configured time, then the
/// drain.
package struct LoadStepReport: Sendable {
    /// The reading clients connected (the writer is not counted).
    package var clients: Int
    /// Renames sent.
    package var edits = 0
    /// Renames answered with `done`.
    package var done = 0
    /// `error` messages the writer got.
    package var editErrors = 0
    /// The last `error` the writer got.
    package var lastEditError: String?
    /// Why the writer's connection ended during the run, if it did.
    package var writerFailure: String?
    /// Changes made during the step (the server's `seq` went up by this).
    package var changes = 0
    /// Plans received by the reading clients.
    package var plans = 0
    /// Plans merging more than one change (a client fell behind).
    package var merged = 0
    /// The bytes of the plans received.
    package var planBytes = 0
    /// Renames neither done nor refused when the step ended (the server
    /// had not made them within the drain's time).
    package var unanswered: Int { Swift.max(0, edits - done - editErrors) }
    /// Changes skipped by a plan (`fromSeq` past the client's state).
    package var lost = 0
    /// Plans of changes a client already had.
    package var duplicated = 0
    /// Plans overlapping a client's state.
    package var outOfOrder = 0
    /// Changes a connected client had not received when the drain ended.
    package var missingAtEnd = 0
    /// `error` messages the reading clients got.
    package var clientErrors = 0
    /// Clients whose connection ended during the run.
    package var failedClients = 0
    /// The first such client and why.
    package var firstFailure: String?
    /// Plans whose change the writer did not make (another process's
    /// commit): not in the latency.
    package var unattributed = 0
    /// The latency from the rename's sending to the plan's arrival; for a
    /// merged plan, from the sending of the oldest change it brings.
    package var latency: LoadLatency?
    /// The server's CPU time over the step's wall time (1 is one core).
    package var serverCPU: Double?
    /// The generator's own CPU time over the step's wall time.
    package var generatorCPU = 0.0
    /// The server's resident memory before any client connected, in bytes.
    package var residentBefore: Int?
    /// The server's resident memory once this step's clients were
    /// connected, in bytes.
    package var residentAfter: Int?
    /// The time the writer spent sending, in seconds.
    package var editSeconds = 0.0
    /// The step's wall time, sending and draining, in seconds.
    package var wallSeconds = 0.0

    /// Creates an empty step of `clients` clients.
    package init(clients: Int) { self.clients = clients }

    /// The server's CPU time per change (its share of a core over the
    /// step's wall time, times that time, over the changes), in seconds.
    package var cpuSecondsPerChange: Double? {
        guard let serverCPU, changes > 0, wallSeconds > 0 else { return nil }
        return serverCPU * wallSeconds / Double(changes)
    }

    /// The server's resident memory per client, once they connected.
    package var residentPerClient: Double? {
        guard let residentBefore, let residentAfter, clients > 0 else { return nil }
        return Double(residentAfter - residentBefore) / Double(clients)
    }

    /// Whether every client got every change exactly once, in order.
    package var isExact: Bool {
        lost == 0 && duplicated == 0 && outOfOrder == 0 && missingAtEnd == 0 && failedClients == 0 && writerFailure == nil
    }
}

/// What `tessera bench serve` measured.
package struct LoadReport: Sendable {
    /// The server's WebSocket URL.
    package var url: String
    /// Whether the run started the server as a child process.
    package var startedServer: Bool
    /// The server's process id, when known.
    package var serverPID: Int32?
    /// The demo library's photos, when the run started the server.
    package var photos: Int?
    /// The writer's renames per second.
    package var rate: Double
    /// The writer's time per step, in seconds.
    package var seconds: Double
    /// The generator's event loop threads.
    package var threads: Int
    /// The ramp's latency limit, in milliseconds; `nil` without a ramp.
    package var rampLimitMilliseconds: Double?
    /// Each client count's figures.
    package var steps: [LoadStepReport]
    /// What the reader should know.
    package var notes: [String]
    /// The time from spawning the server to its printed address, in
    /// seconds, when the run started it.
    package var startSeconds: Double?
    /// With `--rows`: what was measured on the table before the load.
    package var table: LoadTableReport?
    /// With `--floor`: the same client counts against the floor
    /// (``LoadFloorServer``), in the same run.
    package var floorSteps: [LoadStepReport]?

    /// Tessera's figures over the floor's, per client count measured
    /// against both: the server's CPU time per change, and p99.
    package var floorRatios: [(clients: Int, cpuPerChange: Double?, p99: Double?)] {
        guard let floorSteps else { return [] }
        return zip(steps, floorSteps).map { tessera, floor in
            let cpu = tessera.cpuSecondsPerChange.flatMap { ours in floor.cpuSecondsPerChange.map { ours / $0 } }
            let p99 = tessera.latency.flatMap { ours in floor.latency.map { ours.p99 / $0.p99 } }
            return (tessera.clients, cpu, p99)
        }
    }

    /// Creates a report.
    package init(url: String, startedServer: Bool, serverPID: Int32?, photos: Int?, rate: Double, seconds: Double, threads: Int,
                 rampLimitMilliseconds: Double?, steps: [LoadStepReport], notes: [String]) {
        self.url = url
        self.startedServer = startedServer
        self.serverPID = serverPID
        self.photos = photos
        self.rate = rate
        self.seconds = seconds
        self.threads = threads
        self.rampLimitMilliseconds = rampLimitMilliseconds
        self.steps = steps
        self.notes = notes
    }

    /// With a ramp: the largest client count whose p99 held to the limit
    /// with every change delivered exactly once.
    package var largestWithinLimit: Int? {
        guard let limit = rampLimitMilliseconds else { return nil }
        return steps.filter { step in step.isExact && (step.latency.map { $0.p99 * 1_000 <= limit } ?? false) }.map(\.clients).max()
    }

    /// Whether every step (and, with a table, every commit and rename
    /// measured on it) delivered every change exactly once.
    package var isExact: Bool { steps.allSatisfy(\.isExact) && (table?.isExact ?? true) }

    /// The report as a table for a person.
    package var text: String {
        var lines: [String] = []
        let shows = table.map { "a table of \($0.rows) rows" } ?? "\(photos ?? 0) photos"
        let server = startedServer ? "tessera serve (pid \(serverPID.map(String.init) ?? "?"), \(shows))" : "the server at \(url)"
        lines.append("tessera bench serve: \(server), \(Self.number(rate)) renames/s for \(Self.number(seconds)) s per run, \(threads) client threads")
        if let table {
            lines.append("")
            lines += table.lines(startSeconds: startSeconds)
        } else if let startSeconds {
            lines.append("started in \(Self.number(startSeconds)) s (from spawning tessera serve to its address)")
        }
        for step in steps {
            lines.append("")
            lines += Self.lines(step)
        }
        if let floorSteps {
            lines.append("")
            lines.append("the floor: the same load against a server that computes nothing and broadcasts frames of the same size")
            for step in floorSteps {
                lines.append("")
                lines += Self.lines(step)
            }
            lines.append("")
            for ratio in floorRatios {
                let cpu = ratio.cpuPerChange.map { String(format: "%.2f×", $0) } ?? "unknown"
                let p99 = ratio.p99.map { String(format: "%.2f×", $0) } ?? "unknown"
                lines.append("\(ratio.clients) clients: tessera serve's CPU per change \(cpu) the floor's, its p99 \(p99)")
            }
        }
        if let limit = rampLimitMilliseconds {
            lines.append("")
            if let largest = largestWithinLimit {
                lines.append("largest client count with p99 ≤ \(Self.number(limit)) ms: \(largest)")
            } else {
                lines.append("no client count held p99 ≤ \(Self.number(limit)) ms")
            }
        }
        if !notes.isEmpty {
            lines.append("")
            lines += notes
        }
        return lines.joined(separator: "\n")
    }

    /// The lines of one client count's figures.
    static func lines(_ step: LoadStepReport) -> [String] {
        var lines: [String] = []
        lines.append("\(step.clients) clients (+1 writer)")
        lines.append("  edits          \(step.edits) sent, \(step.done) done, \(step.editErrors) errors, \(step.unanswered) unanswered at the end; \(step.changes) changes")
        let average = step.plans > 0 ? " (\(step.planBytes / step.plans) bytes each on average)" : ""
        lines.append("  plans          \(step.plans) received (\(step.merged) merged); expected \(step.clients * step.changes)\(average)")
        lines.append("  exactly once   lost \(step.lost), duplicated \(step.duplicated), out of order \(step.outOfOrder), missing at the end \(step.missingAtEnd), clients failed \(step.failedClients)")
        if let latency = step.latency {
            lines.append("  latency        p50 \(Self.milliseconds(latency.p50))  p90 \(Self.milliseconds(latency.p90))  p99 \(Self.milliseconds(latency.p99))  max \(Self.milliseconds(latency.max))  (\(latency.count) client-plans)")
        } else {
            lines.append("  latency        no plans measured")
        }
        if let cpu = step.serverCPU { lines.append("  server CPU     \(Self.percent(cpu)) of one core (user+sys over \(Self.number(step.wallSeconds)) s)") }
        if let before = step.residentBefore, let after = step.residentAfter, let perClient = step.residentPerClient {
            lines.append("  server RSS     \(Self.mebibytes(before)) before the clients, \(Self.mebibytes(after)) with them: \(Self.kibibytes(perClient)) per client")
        }
        lines.append("  generator CPU  \(Self.percent(step.generatorCPU)) of one core")
        if let failure = step.writerFailure { lines.append("  writer failed  \(failure)") }
        if let failure = step.firstFailure { lines.append("  first failure  \(failure)") }
        if let error = step.lastEditError { lines.append("  last edit error \(error)") }
        if step.unattributed > 0 { lines.append("  \(step.unattributed) plans of changes not made by the writer are left out of the latency") }
        return lines
    }

    /// The report as one JSON object.
    package var json: String {
        func optional(_ value: Double?) -> JSON { value.map(JSON.double) ?? .null }
        func optional(_ value: Int?) -> JSON { value.map(JSON.int) ?? .null }
        let steps = self.steps.map(Self.json)
        let ratios: [JSON] = floorRatios.map { ratio in
            .object([("clients", .int(ratio.clients)), ("cpuPerChange", optional(ratio.cpuPerChange)), ("p99", optional(ratio.p99))])
        }
        let object: JSON = .object([
            ("url", .string(url)), ("startedServer", .bool(startedServer)), ("serverPID", optional(serverPID.map(Int.init))),
            ("photos", optional(photos)), ("rate", .double(rate)), ("seconds", .double(seconds)), ("threads", .int(threads)),
            ("rampLimitMilliseconds", optional(rampLimitMilliseconds)), ("largestWithinLimit", optional(largestWithinLimit)),
            ("startSeconds", optional(startSeconds)), ("table", table?.json ?? .null),
            ("exact", .bool(isExact)), ("steps", .array(steps)),
            ("floorSteps", floorSteps.map { .array($0.map(Self.json)) } ?? .null), ("floorRatios", floorSteps == nil ? .null : .array(ratios)),
            ("notes", .array(notes.map(JSON.string))),
        ])
        return object.compactText
    }

    /// One client count's figures as JSON.
    static func json(_ step: LoadStepReport) -> JSON {
        func optional(_ value: Double?) -> JSON { value.map(JSON.double) ?? .null }
        func optional(_ value: Int?) -> JSON { value.map(JSON.int) ?? .null }
        let latency = Self.json(step.latency)
        return .object([
            ("clients", .int(step.clients)), ("edits", .int(step.edits)), ("done", .int(step.done)), ("editErrors", .int(step.editErrors)),
            ("changes", .int(step.changes)), ("plans", .int(step.plans)), ("plansExpected", .int(step.clients * step.changes)),
            ("merged", .int(step.merged)), ("planBytes", .int(step.planBytes)), ("unanswered", .int(step.unanswered)), ("lost", .int(step.lost)), ("duplicated", .int(step.duplicated)),
            ("outOfOrder", .int(step.outOfOrder)), ("missingAtEnd", .int(step.missingAtEnd)), ("clientErrors", .int(step.clientErrors)),
            ("failedClients", .int(step.failedClients)), ("writerFailure", step.writerFailure.map(JSON.string) ?? .null), ("firstFailure", step.firstFailure.map(JSON.string) ?? .null),
            ("unattributed", .int(step.unattributed)), ("latency", latency),
            ("serverCPU", optional(step.serverCPU)), ("generatorCPU", .double(step.generatorCPU)),
            ("residentBytesBefore", optional(step.residentBefore)), ("residentBytesAfter", optional(step.residentAfter)),
            ("residentBytesPerClient", optional(step.residentPerClient)),
            ("editSeconds", .double(step.editSeconds)), ("wallSeconds", .double(step.wallSeconds)), ("exact", .bool(step.isExact)),
        ])
    }

    /// A latency as JSON: count, p50Seconds, p90Seconds, p99Seconds and
    /// maxSeconds, or null.
    static func json(_ latency: LoadLatency?) -> JSON {
        guard let latency else { return .null }
        return .object([("count", .int(latency.count)), ("p50Seconds", .double(latency.p50)), ("p90Seconds", .double(latency.p90)),
                        ("p99Seconds", .double(latency.p99)), ("maxSeconds", .double(latency.max))])
    }

    /// A number without a needless fraction.
    static func number(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : String(format: "%.2f", value)
    }

    /// Seconds as milliseconds.
    static func milliseconds(_ seconds: Double) -> String { String(format: "%.1f ms", seconds * 1_000) }

    /// A fraction of one core as a percentage.
    static func percent(_ value: Double) -> String { String(format: "%.0f%%", value * 100) }

    /// Bytes in MiB.
    static func mebibytes(_ bytes: Int) -> String { String(format: "%.1f MiB", Double(bytes) / 1_048_576) }

    /// Bytes in KiB.
    static func kibibytes(_ bytes: Double) -> String { String(format: "%.1f KiB", bytes / 1_024) }
}
