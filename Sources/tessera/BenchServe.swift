import ArgumentParser

#if LiveServer
/// `bench`'s subcommands that need the live-list server's module.
let benchServeSubcommands: [any ParsableCommand.Type] = [BenchServe.self]
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
        with p99 ≤ 100 ms and every change delivered exactly once is reported; the ramp stops at the first count over it.
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

    @Option(parsing: .unconditional, help: ArgumentHelp("With --url: the server's process id, to read its CPU time and memory.", valueName: "pid"))
    var serverPid: Int32?

    @Option(help: ArgumentHelp("Client counts to run in turn, as 1000,2000,5k,10k (in place of --clients).", valueName: "counts"))
    var ramp: String?

    @Option(parsing: .unconditional, help: "The seed of the viewports and of the renamed items (default: 1).")
    var seed: UInt64?

    @Flag(help: "Print one JSON object instead of a table: url, startedServer, serverPID, photos, rate, seconds, threads, rampLimitMilliseconds, largestWithinLimit, exact, steps (per client count: clients, edits, done, changes, plans, merged, lost, duplicated, outOfOrder, missingAtEnd, failedClients, latency {count, p50Seconds, p90Seconds, p99Seconds, maxSeconds}, serverCPU, generatorCPU, residentBytesBefore, residentBytesAfter, residentBytesPerClient, …), notes.")
    var json = false

    func run() throws {
        var configuration = LoadConfiguration()
        func usage(_ message: String) -> CommandError { CommandError(message, exitCode: CommandError.usageExitCode) }
        do {
            configuration.clients = clients ?? 1_000
            configuration.rate = rate ?? 20
            configuration.seconds = seconds ?? (ramp == nil ? 60 : 20)
            if let url {
                if photos != nil { throw usage("--photos applies when the server is started here, not with --url") }
                configuration.target = try LoadTarget.parse(url)
            }
            configuration.photos = photos ?? 10_000
            configuration.serverPID = serverPid
            configuration.seed = seed ?? 1
            if let ramp {
                if clients != nil { throw usage("--clients and --ramp: give one (--ramp lists the counts)") }
                configuration.ramp = try LoadConfiguration.counts(ramp: ramp)
            }
            try configuration.validate()
            // The progress line is drawn on a terminal only.
            let bar = isatty(STDERR_FILENO) == 1 ? ProgressBar() : nil
            let report: LoadReport
            do {
                report = try LoadRun(configuration: configuration).run(progress: { fraction, label in bar?.show(fraction, label) })
            } catch {
                bar?.clear()
                throw error
            }
            bar?.finish()
            emit(json ? report.json : report.text)
        } catch let error as LoadError {
            throw CommandError(error.message, exitCode: error.isUsage ? CommandError.usageExitCode : CommandError.inputExitCode)
        }
    }
}
#endif
