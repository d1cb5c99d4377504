import ArgumentParser

#if LiveServer
/// `bench`'s subcommands that need the live-list server's module.
let benchServeSubcommands: [any ParsableCommand.Type] = [BenchServe.self, BenchFloorServer.self]
#else
/// `bench`'s subcommands that need the live-list server's module (none in
/// a build without it).
let benchServeSubcommands: [any ParsableCommand.Type] = []
#endif

#if LiveServer
import Foundation
import TesseraCommandKit
import TesseraLoad
import TesseraServe

/// `tessera bench serve`: the live list's load generator.
struct BenchServe: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Load a live-list server (tessera serve) with WebSocket clients on this machine and measure how fast each change reaches each client.",
        discussion: """
        Connects --clients WebSocket clients, each with its own viewport (a layout of flow, list and column in turn, \
        one of four window sizes, scrolled to a random place in the list), and one writer that renames a random item \
        --rate times a second for --seconds. Every plan a client receives is checked: its fromSeq must be the state \
        the client has (a skipped change is lost, a repeated one duplicated); plans that merge changes (a client that \
        fell behind) are counted apart. Latency is from the rename's sending to the plan's arrival, over every \
        (client, plan) pair (for a merged plan, from its oldest change). Without --url, `tessera serve --port 0 \
        --photos N` runs as a child process on a fresh demo library, and its CPU time (user+sys over wall time) and \
        resident memory before and after the clients connect are read from /proc. Loopback only: a URL whose host is \
        not 127.0.0.1, localhost or [::1] is refused. The open-file limit is raised to its hard limit; a count it \
        cannot hold is an error. With --ramp, each count runs for --seconds (20 unless given) and the largest count \
        with p99 ≤ 100 ms and every change delivered exactly once is reported; the ramp stops at the first count over it. \
        With --rows N, the child server shows a table of the run's own in place of the demo library: a fresh SQLite file \
        in WAL mode in a temporary folder (removed at the end, also on error) holding item(id INTEGER PRIMARY KEY, \
        section INTEGER, rank INTEGER, title TEXT) with N rows in --sections sections, an index on (section, rank), and \
        a change log on section and rank (tessera log install; --no-change-log leaves it out, to measure the fetch \
        again that other processes' commits then cost), served as `tessera serve FILE --table item --section section \
        --sort rank --title title`. Before the load it measures: the time from spawning the server to its printed \
        address, and to the snapshot of a hello sent at once (when the list is ready); a hello's first snapshot, over \
        \(LoadRun.sequentialHellos) hellos one at a time (each on a new connection) and over the clients as they connect; \(LoadRun.probeChanges) one-row commits by this process \
        through its own SQLite connection (a new title, or a move to another section, in turn), each awaited in every \
        client before the next, from COMMIT's return to the plan's arrival at the last client and at each; \
        \(LoadRun.probeChanges) renames through the protocol, likewise from their sending; the server's resident \
        memory before the commits and after ten, and per client. Each phase's end is written to standard error with the \
        time since the start. Ctrl-C (or SIGTERM) stops a run where it is, ends its server and removes its files, with \
        status 130.
        """
    )

    @Option(parsing: .unconditional, help: "Reading clients, from \(LoadConfiguration.clientRange.lowerBound) to \(LoadConfiguration.clientRange.upperBound) (default: 1000).")
    var clients: Int?

    @Option(parsing: .unconditional, help: "The writer's renames per second (default: 20).")
    var rate: Double?

    @Option(parsing: .unconditional, help: "How long the writer renames, in seconds, per client count (default: 60; 20 with --ramp).")
    var seconds: Double?

    @Option(help: ArgumentHelp("The server's WebSocket, ws://127.0.0.1:PORT/live (with ?token=… when it printed one); without it, tessera serve runs as a child process.", valueName: "url"))
    var url: String?

    @Option(parsing: .unconditional, help: "Without --url: the demo library's photos (default: 10000).")
    var photos: Int?

    @Option(parsing: .unconditional, help: "Without --url and in place of --photos: serve a table of this many rows, from \(LoadConfiguration.rowRange.lowerBound) to \(LoadConfiguration.rowRange.upperBound), written for the run, and measure it first (see above).")
    var rows: Int?

    @Option(parsing: .unconditional, help: "With --rows: the table's sections, from 1 to the rows (default: \(LoadConfiguration.defaultSections), or one per row when there are fewer).")
    var sections: Int?

    @Flag(name: .customLong("no-change-log"), help: "With --rows: no change log on the table (other processes' commits are then found by fetching it again).")
    var noChangeLog = false

    @Option(parsing: .unconditional, help: ArgumentHelp("With --url: the server's process id, to read its CPU time and memory.", valueName: "pid"))
    var serverPid: Int32?

    @Option(help: ArgumentHelp("Client counts to run in turn, as 1000,2000,5k,10k (in place of --clients).", valueName: "counts"))
    var ramp: String?

    @Option(parsing: .unconditional, help: "The seed of the viewports and of the renamed items (default: 1).")
    var seed: UInt64?

    @Flag(help: "Without --url: run the same load again against a floor, a WebSocket server on SwiftNIO that computes nothing and broadcasts frames of the size of tessera serve's plans, and report the server's CPU per change and the latency as ratios to it.")
    var floor = false

    @Flag(help: "Print one JSON object instead of a table: url, startedServer, serverPID, photos, rate, seconds, threads, rampLimitMilliseconds, largestWithinLimit, startSeconds (spawning the server to its address), table (with --rows, else null: rows, sections, changeLog, buildSeconds, readySeconds (spawning the server to the first hello's snapshot), sequentialSnapshot and clientSnapshot (hello to snapshot, one at a time and as the clients connect), commits and renames (each: changes, clients, lastClient and perClient latencies, plans, plansExpected, merged, lost, duplicated, exact), residentBytesBeforeCommits, residentBytesAfterTenCommits, residentBytesPerClient, exact), exact, steps (per client count: clients, edits, done, changes, plans, merged, lost, duplicated, outOfOrder, missingAtEnd, failedClients, latency, serverCPU, generatorCPU, residentBytesBefore, residentBytesAfter, residentBytesPerClient, …), floorSteps (with --floor: the same per client count against the floor, else null), floorRatios (per client count: clients, cpuPerChange and p99 as Tessera's over the floor's), notes. A latency is {count, p50Seconds, p90Seconds, p99Seconds, maxSeconds} or null.")
    var json = false

    func run() throws {
        var configuration = LoadConfiguration()
        func usage(_ message: String) -> CommandError { CommandError(message, exitCode: CommandError.usageExitCode) }
        do {
            configuration.clients = clients ?? 1_000
            configuration.rate = rate ?? 20
            configuration.seconds = seconds ?? (ramp == nil ? 60 : 20)
            if rows != nil {
                if photos != nil { throw usage("--rows and --photos: give one (--rows serves a table of its own, --photos the demo library)") }
                if url != nil { throw usage("--rows and --url: give one (--rows starts a server on a table of its own, --url loads one already running)") }
            }
            if let url {
                if photos != nil { throw usage("--photos applies when the server is started here, not with --url") }
                configuration.target = try LoadTarget.parse(url)
            }
            configuration.rows = rows
            configuration.sections = sections
            configuration.changeLog = !noChangeLog
            configuration.photos = photos ?? 10_000
            configuration.serverPID = serverPid
            configuration.seed = seed ?? 1
            if floor, url != nil { throw usage("--floor applies when the server is started here, not with --url") }
            configuration.floor = floor
            if let ramp {
                if clients != nil { throw usage("--clients and --ramp: give one (--ramp lists the counts)") }
                configuration.ramp = try LoadConfiguration.counts(ramp: ramp)
            }
            try configuration.validate()
            // Ctrl-C (or SIGTERM) stops the run where it is: its server
            // ends and its files go, with status 130.
            catchStopSignals()
            configuration.isStopped = { interrupted.load(ordering: .relaxed) }
            // The progress line is drawn on a terminal only.
            let bar = isatty(STDERR_FILENO) == 1 ? ProgressBar() : nil
            let report: LoadReport
            do {
                report = try LoadRun(configuration: configuration).run(progress: { fraction, label in bar?.show(fraction, label) }, milestone: { line in
                    bar?.clear()
                    FileHandle.standardError.write(Data((line + "\n").utf8))
                })
            } catch {
                bar?.clear()
                throw error
            }
            bar?.finish()
            emit(json ? report.json : report.text)
        } catch let error as LoadError {
            let status = error.isUsage ? CommandError.usageExitCode : error.isInterrupted ? CommandError.interruptedExitCode : CommandError.inputExitCode
            throw CommandError(error.message, exitCode: status)
        }
    }
}

/// `tessera bench floor-server`: the floor `bench serve --floor` measures
/// against (see ``LoadFloorServer``), run as a child process of it.
struct BenchFloorServer: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "floor-server",
        abstract: "The floor of bench serve --floor: a WebSocket server that broadcasts fixed frames and computes nothing.",
        shouldDisplay: false
    )

    @Option(parsing: .unconditional, help: "The size of each plan frame, in bytes.")
    var planBytes = 1_000

    @Option(parsing: .unconditional, help: "The content height snapshots say.")
    var contentHeight = 100_000.0

    @Option(parsing: .unconditional, help: "The port on 127.0.0.1 (0: any free one).")
    var port = 0

    @Option(name: .customLong("max-clients"), parsing: .unconditional, help: "Ignored (the launcher passes it to every server).")
    var maximumClients = 0

    func run() throws {
        guard (0...65_535).contains(port), (0...(64 << 20)).contains(planBytes), contentHeight.isFinite, contentHeight >= 0 else {
            throw CommandError("floor-server: --port, --plan-bytes or --content-height out of range", exitCode: CommandError.usageExitCode)
        }
        _ = raiseOpenFileLimit()
        try LoadFloorServer(planBytes: planBytes, contentHeight: contentHeight).run(port: port)
    }
}
#endif
