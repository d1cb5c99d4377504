import Foundation
import TesseraRender

/// Changes made one at a time, each awaited in every reading client before
/// the next: another process's commits, or renames through the protocol.
package struct LoadChangeProbe: Sendable {
    /// The changes made.
    package var changes = 0
    /// The reading clients that were to get a plan of each.
    package var clients = 0
    /// Per change, the time from its start (the commit's return, or the
    /// rename's sending) to the arrival of its plan at the last client.
    package var lastClient: LoadLatency?
    /// The same time over every (client, change) pair.
    package var perClient: LoadLatency?
    /// Plans of the changes received (one per client and change when
    /// exact).
    package var plans = 0
    /// Plans that merged more than one change.
    package var merged = 0
    /// Changes skipped by a plan.
    package var lost = 0
    /// Plans of changes a client already had.
    package var duplicated = 0

    /// Creates an empty probe.
    package init() {}

    /// The plans expected: one per client and change.
    package var plansExpected: Int { clients * changes }

    /// Whether every change reached every client once, alone.
    package var isExact: Bool { plans == plansExpected && merged == 0 && lost == 0 && duplicated == 0 }
}

/// What `tessera bench serve --rows` measures on its table before the load
/// (the rows of issue 28's table).
package struct LoadTableReport: Sendable {
    /// The table's rows.
    package var rows: Int
    /// Its sections.
    package var sections: Int
    /// Whether it has a change log.
    package var changeLog: Bool
    /// The time to write the table (rows, index, change log), in seconds.
    package var buildSeconds: Double
    /// The time from spawning the server to the arrival of the snapshot of
    /// the first hello, sent as soon as it printed its address (when the
    /// list is ready to answer), in seconds.
    package var readySeconds: Double?
    /// The time from a `hello` to its `snapshot`, over hellos sent one at a
    /// time, each on a new connection, before the clients connect.
    package var sequentialSnapshot: LoadLatency?
    /// The same time over the reading clients as they connect (up to
    /// ``LoadRun/connectWindow`` at once).
    package var clientSnapshot: LoadLatency?
    /// One-row commits by this process, through its own connection.
    package var commits = LoadChangeProbe()
    /// Renames sent by the writer through the protocol.
    package var renames = LoadChangeProbe()
    /// The server's resident memory once the clients connected, before the
    /// commits, in bytes.
    package var residentBeforeCommits: Int?
    /// Its resident memory once ten commits reached every client, in bytes.
    package var residentAfterTenCommits: Int?
    /// The server's resident memory per connected client, in bytes (the
    /// growth from before the writer and the clients connected to once
    /// they all had, over the clients).
    package var residentPerClient: Double?

    /// Describes the table; the measurements are filled in as they run.
    package init(rows: Int, sections: Int, changeLog: Bool, buildSeconds: Double) {
        self.rows = rows
        self.sections = sections
        self.changeLog = changeLog
        self.buildSeconds = buildSeconds
    }

    /// Whether every commit and rename reached every client once.
    package var isExact: Bool { commits.isExact && renames.isExact }

    /// The report's lines for a person.
    func lines(startSeconds: Double?) -> [String] {
        var lines: [String] = []
        let log = changeLog ? "with a change log on \(LoadTable.loggedColumns.joined(separator: ", "))" : "without a change log"
        lines.append("table            \(rows) rows in \(sections) sections (\(LoadTable.table), SQLite in WAL mode, \(log)), written in \(LoadReport.number(buildSeconds)) s")
        if let startSeconds { lines.append("start            \(LoadReport.number(startSeconds)) s from spawning tessera serve to its address") }
        if let readySeconds { lines.append("ready            \(LoadReport.number(readySeconds)) s from spawning it to the first hello's snapshot (the hello sent at once)") }
        func pair(_ latency: LoadLatency?) -> String {
            guard let latency else { return "none measured" }
            return "p50 \(LoadReport.milliseconds(latency.p50))  p99 \(LoadReport.milliseconds(latency.p99))  max \(LoadReport.milliseconds(latency.max))"
        }
        lines.append("first snapshot   \(pair(sequentialSnapshot))  (\(sequentialSnapshot?.count ?? 0) hellos one at a time, each on a new connection)")
        lines.append("                 \(pair(clientSnapshot))  (the \(clientSnapshot?.count ?? 0) clients connecting)")
        func probe(_ name: String, _ probe: LoadChangeProbe, _ what: String) {
            lines.append("\(name)\(pair(probe.lastClient))  at the last client (\(probe.changes) \(what), each awaited)")
            lines.append("                 \(pair(probe.perClient))  per client; \(probe.plans) plans of \(probe.plansExpected) expected, merged \(probe.merged), lost \(probe.lost), duplicated \(probe.duplicated)")
        }
        probe("commit → plans   ", commits, "one-row commits by this process, from COMMIT's return")
        probe("rename → plans   ", renames, "renames through the protocol, from sending")
        if let before = residentBeforeCommits, let after = residentAfterTenCommits {
            lines.append("server RSS       \(LoadReport.mebibytes(before)) before the commits, \(LoadReport.mebibytes(after)) after 10")
        }
        if let perClient = residentPerClient { lines.append("memory/client    \(LoadReport.kibibytes(perClient)) (server RSS growth over the clients connected)") }
        return lines
    }

    /// The report as a JSON object.
    var json: JSON {
        func optional(_ value: Int?) -> JSON { value.map(JSON.int) ?? .null }
        func probe(_ probe: LoadChangeProbe) -> JSON {
            .object([
                ("changes", .int(probe.changes)), ("clients", .int(probe.clients)),
                ("lastClient", LoadReport.json(probe.lastClient)), ("perClient", LoadReport.json(probe.perClient)),
                ("plans", .int(probe.plans)), ("plansExpected", .int(probe.plansExpected)), ("merged", .int(probe.merged)),
                ("lost", .int(probe.lost)), ("duplicated", .int(probe.duplicated)), ("exact", .bool(probe.isExact)),
            ])
        }
        return .object([
            ("rows", .int(rows)), ("sections", .int(sections)), ("changeLog", .bool(changeLog)), ("buildSeconds", .double(buildSeconds)),
            ("readySeconds", readySeconds.map(JSON.double) ?? .null), ("sequentialSnapshot", LoadReport.json(sequentialSnapshot)), ("clientSnapshot", LoadReport.json(clientSnapshot)),
            ("commits", probe(commits)), ("renames", probe(renames)),
            ("residentBytesBeforeCommits", optional(residentBeforeCommits)), ("residentBytesAfterTenCommits", optional(residentAfterTenCommits)),
            ("residentBytesPerClient", residentPerClient.map(JSON.double) ?? .null), ("exact", .bool(isExact)),
        ])
    }
}
