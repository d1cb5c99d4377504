import ArgumentParser
import Foundation
import Synchronization
import TesseraCommandKit
#if PostgreSQL
import TesseraCommandPostgres
#endif
import TesseraDiff
import TesseraRender

/// The `tessera` command.
@main
struct Tessera: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tessera",
        abstract: "Lists backed by a database (SQLite or PostgreSQL): follow a database, diff snapshots, and watch animation plans.",
        discussion: """
        With no subcommand, runs `demo`.

        An error is one line on standard error, "tessera: error: …", and the exit status says what kind: \
        1 a bad input file (missing, unreadable, empty, not JSON, not a snapshot or plan, duplicate ids) \
        or a file that cannot be written; \
        2 a database that does not exist or cannot be opened, or a table or column it does not have; \
        3 a database another process keeps locked; \
        64 bad usage (an unknown subcommand or option, a missing or out-of-range value, \
        a --where SQLite cannot read or whose ? placeholders do not match the --arg values). \
        watch stopped by Ctrl-C or SIGTERM exits with 0.
        """,
        subcommands: [Demo.self, Watch.self, Log.self, Diff.self, Render.self, Bench.self] + serveSubcommands,
        defaultSubcommand: Demo.self
    )

    /// Parses the arguments and runs the subcommand. Every error, the
    /// parser's included, is one line on standard error,
    /// `tessera: error: …`, and leaves with the status of its kind
    /// (``CommandError``'s statuses; 64 for the parser's).
    static func main() {
        let arguments = Array(CommandLine.arguments.dropFirst())
        do {
            try checkSubcommands(arguments)
            var command = try parseAsRoot(arguments)
            try command.run()
        } catch let error as CommandError {
            fail(error.message, status: error.exitCode)
        } catch {
            let status = exitCode(for: error)
            // Help and version requests print to standard output and succeed.
            guard status != .success else { exit(withError: error) }
            fail(sentence(message(for: error)), status: status.rawValue)
        }
    }

    /// Fails for a word in the place of a subcommand that is none of them
    /// (the default subcommand, `demo`, takes no arguments, so the parser
    /// would only call it unexpected). Only the words before the first
    /// option name subcommands: after it, a word is an option's value
    /// (`tessera --database photos.sqlite` runs the demo).
    static func checkSubcommands(_ arguments: [String]) throws {
        var subcommands = configuration.subcommands
        var path = "tessera"
        for argument in arguments {
            guard !argument.hasPrefix("-"), !subcommands.isEmpty, argument != "help" else { return }
            let names = subcommands.map { $0._commandName }
            guard let index = names.firstIndex(of: argument) else {
#if !LiveServer
                if argument == "serve" {
                    throw CommandError("\(path) serve: this tessera was built without the LiveServer trait (build it with the default traits to serve a live list)", exitCode: CommandError.usageExitCode)
                }
#endif
                // Hidden subcommands (the floor bench serve starts) are not offered.
                let shown = subcommands.filter { $0.configuration.shouldDisplay }.map { $0._commandName }
                throw CommandError("\(path) does not know '\(argument)': its subcommands are \(shown.joined(separator: ", "))", exitCode: CommandError.usageExitCode)
            }
            subcommands = subcommands[index].configuration.subcommands
            path += " " + argument
        }
    }

    /// The parser's message as one line that starts in lower case, like
    /// the commands' own.
    static func sentence(_ message: String) -> String {
        let line = message.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }.joined(separator: " ")
        guard let first = line.first, let second = line.dropFirst().first, first.isUppercase, second.isLowercase else { return line }
        return first.lowercased() + line.dropFirst()
    }

    /// Prints `tessera: error: <message>` on standard error and exits.
    static func fail(_ message: String, status: Int32) -> Never {
        fflush(nil)
        // One line, even when a message from SQLite or the server holds
        // line breaks.
        let line = message.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }.joined(separator: " ")
        FileHandle.standardError.write(Data("tessera: error: \(line)\n".utf8))
        Foundation.exit(status)
    }
}

/// Prints a line at once, even into a pipe.
func emit(_ text: String) {
    print(text)
    fflush(nil)
}

/// The layout options several subcommands share.
struct LayoutOptions: ParsableArguments {
    @Option(help: "Lay the list out: flow (a grid of 96-point squares), list (44-point rows) or column (two columns).")
    var layout: LayoutChoice.Kind?

    @Option(parsing: .unconditional, help: "The viewport's width, in points, up to 100000.")
    var width: Double = 390

    @Option(parsing: .unconditional, help: "The viewport's height, in points, up to 100000.")
    var height: Double = 844

    /// The layout asked for (or `fallback`, when given), with the viewport;
    /// `nil` for none.
    ///
    /// - Throws: ``CommandError`` for a width or height out of range, checked
    ///   whether or not a layout is asked for.
    func choice(or fallback: LayoutChoice.Kind? = nil) throws(CommandError) -> LayoutChoice? {
        try LayoutChoice.validate(width: width, height: height)
        return (layout ?? fallback).map { LayoutChoice(kind: $0, width: width, height: height) }
    }
}

extension LayoutChoice.Kind: ExpressibleByArgument {}

/// `--policy`: a `MoveAndUpdatePolicy` as the command spells it, so that
/// help lists, and shows as the default, spellings it accepts.
enum PolicyOption: String, CaseIterable, ExpressibleByArgument {
    case deleteInsert = "delete-insert"
    case moveThenReload = "move-then-reload"

    /// The listed spellings, and the policies' own names, which the output
    /// shows (`deleteAndInsert`, `moveThenReload`).
    init?(argument: String) {
        if let option = PolicyOption(rawValue: argument) {
            self = option
        } else if let policy = MoveAndUpdatePolicy(rawValue: argument) {
            self = policy == .deleteAndInsert ? .deleteInsert : .moveThenReload
        } else {
            return nil
        }
    }

    var policy: MoveAndUpdatePolicy {
        switch self {
        case .deleteInsert: .deleteAndInsert
        case .moveThenReload: .moveThenReload
        }
    }
}

struct Demo: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Seed a photo library in a temporary SQLite database, follow it through scripted transactions, and write tessera-demo.html."
    )

    @Option(help: "The database file (re-seeded on every run; refused, with status 3, while another process has it open).")
    var database: String = DemoRun.defaultDatabasePath

    @Option(help: "Where to write the page of animation plans.")
    var html: String = "tessera-demo.html"

    @Option(parsing: .unconditional, help: "How many photos to seed, from \(DemoRun.photoCountRange.lowerBound) to \(DemoRun.photoCountRange.upperBound).")
    var photos: Int = 10_000

    func run() throws {
        // Seeding shows its progress on a terminal; into a pipe or a file
        // the output stays as it was.
        let bar = isatty(STDERR_FILENO) == 1 ? ProgressBar() : nil
        try DemoRun(databasePath: database, htmlPath: html, photoCount: photos).run(print: { line in
            bar?.clear()
            emit(line)
        }, seeding: { fraction in
            bar?.show(fraction, "seeding photos")
        })
    }
}

struct Diff: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Diff two snapshot files: the changeset, the batch (or staged batches), and optionally the animation plan and its page.",
        discussion: """
        A snapshot file is {"sections": [{"id": "a", "content": …, "items": [{"id": 1, "content": …}]}]}: \
        ids are strings or integers (1 and "1" are the same id), unique among sections and among items; \
        content is optional, any JSON, and a changed content is an update.
        """
    )

    @Argument(help: "The snapshot before.")
    var old: String

    @Argument(help: "The snapshot after.")
    var new: String

    @Flag(help: "Print staged batches (each valid against the state the previous one leaves) instead of one batch.")
    var staged = false

    @Option(help: "What one batch does with an element that moves and changes (deleteAndInsert and moveThenReload, as the output names them, work too).")
    var policy: PolicyOption = .moveThenReload

    @OptionGroup var layout: LayoutOptions

    @Option(help: "Write the animation plan's page here (with --layout, or a flow layout).")
    var html: String?

    @Flag(help: "Print one JSON object instead of text.")
    var json = false

    func run() throws {
        let choice = try layout.choice(or: html == nil ? nil : .flow)
        let run = DiffRun(oldPath: old, newPath: new, staged: staged, policy: policy.policy, layout: choice, htmlPath: html, json: json)
        emit(try run.run())
    }
}

struct Render: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Draw a saved animation plan (its JSON, an array of them, or `tessera diff --json` output) as an HTML page."
    )

    @Argument(help: "The plan file.")
    var plan: String

    @Option(help: "Where to write the page.")
    var html: String

    @Option(parsing: .unconditional, help: "The viewport's width, in points, up to 100000 (default: the content's width).")
    var width: Double?

    @Option(parsing: .unconditional, help: "The viewport's height, in points, up to 100000 (default: the content's height, at most 844).")
    var height: Double?

    func run() throws {
        emit(try RenderRun(planPath: plan, htmlPath: html, width: width, height: height).run())
    }
}

struct Watch: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Follow a database that other processes write: one report per commit that changes the result.",
        discussion: """
        The database is an SQLite file or a PostgreSQL URL, postgres://user[:password]@host[:port]/database \
        (postgresql:// too; query parameters sslmode=disable|prefer|require and connect_timeout=SECONDS, 30 by default). \
        An SQLite file is polled (PRAGMA data_version, every --interval, 100 ms by default) and re-fetched \
        when another connection commits, or patched row by row when the table has a change log (tessera log install). \
        A PostgreSQL server must run with wal_level = logical: watch reads every commit from a temporary \
        logical replication slot of its own (the server drops it when watch's connection ends, even when \
        the process is killed) and takes the commits every --interval (50 ms by default); rows are changed \
        row by row where the sort allows, re-fetched otherwise. Its sessions are named "tessera watch" \
        (pg_stat_activity.application_name). The URL's password is never printed: the output and the \
        errors show the URL without it. With --json, the fetched event's "database" is that URL, and \
        change events have no "dataVersion" (an SQLite counter; PostgreSQL has none). \
        A commit that leaves the result as it was, and a transaction rolled back, print nothing. \
        Ctrl-C (or SIGTERM) stops it with status 0: at once on SQLite, during a fetch too; on PostgreSQL \
        at the next poll, and within 2 s when the server holds a call up. \
        On PostgreSQL a URL watch cannot read, and --busy-timeout, are usage errors (64); a server it cannot \
        reach or log in to, a table or column the database lacks, and a wal_level other than logical are \
        database errors (2).
        """
    )

    @Argument(help: "The SQLite database file, or a postgres:// URL.")
    var database: String

    @Option(help: "The table or view to follow.")
    var table: String

    @Option(help: "A sort key, \"column [asc|desc]\"; repeat for more. The key column is always the last one.")
    var sort: [String] = []

    @Option(help: "The column rows are grouped into sections by (it becomes the first sort key).")
    var section: String?

    @Option(name: .customLong("where"), help: "An SQL condition, with a ? for each --arg.")
    var predicate: String?

    @Option(parsing: .unconditionalSingleValue, help: "A value for the condition's next ?; repeat for more (on SQLite numbers bind as numbers, anything else as text; PostgreSQL types each value as its place asks).")
    var arg: [String] = []

    @Option(help: "The key column: unique in the table, or (SQLite) rowid for the row id of a table without one.")
    var key: String = "id"

    @OptionGroup var layout: LayoutOptions

    @Flag(help: "Print JSON lines instead of text.")
    var json = false

    @Flag(help: "With --json, add the rows: every section and row to the fetched event (\"state\"), and to each change event the sections it inserts and the rows it inserts, moves or updates (\"insertedSections\", \"placed\"), so that the output replays to the result.")
    var printRows = false

    @Option(parsing: .unconditional, help: "Seconds between polls, from 0.001 to 3600 (default: 0.1 for SQLite, 0.05 for PostgreSQL).")
    var interval: Double?

    @Option(parsing: .unconditional, help: "Seconds to wait for another process's lock before giving up, from 0 to 86400 (SQLite only: refused with a postgres:// URL; default 1).")
    var busyTimeout: Double?

    func run() throws {
        catchStopSignals()
        if busyTimeout != nil, WatchRun.isPostgresURL(database) {
            throw CommandError("--busy-timeout applies to SQLite files only: a PostgreSQL server does not lock readers out", exitCode: CommandError.usageExitCode)
        }
        var run = WatchRun(
            databasePath: database, table: table, sortKeys: sort, section: section, predicate: predicate,
            arguments: arg, keyColumn: key, layout: try layout.choice(), json: json,
            interval: interval ?? WatchRun.defaultInterval(for: database), busyTimeout: busyTimeout ?? 1
        )
        run.printRows = printRows
#if PostgreSQL
        run.followPostgres = WatchRun.postgresFollower
#endif
        if run.isPostgres { Self.stopAfterGrace(table: table, json: json) }
        // SQLite checks the flag while a fetch runs, so even a slow query
        // stops at once.
        try run.run(print: emit, shouldStop: { interrupted.load(ordering: .relaxed) })
        // Unless the grace period's end already said it and is exiting.
        guard watchEnded.compareExchange(expected: false, desired: true, ordering: .sequentiallyConsistent).exchanged else {
            while true { pause() }
        }
        if !json { FileHandle.standardError.write(Data("tessera: stopped watching \(table)\n".utf8)) }
    }

    /// On PostgreSQL the run sees a stop between polls, but a call the
    /// server holds up (a replication slot waits for every transaction
    /// open on the server to end) cannot be cut short: two seconds after a
    /// stop the process ends anyway, with status 0 and the usual message.
    /// The server drops its sessions and their slot when the connections
    /// close.
    static func stopAfterGrace(table: String, json: Bool) {
        Thread.detachNewThread {
            while !interrupted.load(ordering: .relaxed) { usleep(20_000) }
            usleep(2_000_000)
            guard watchEnded.compareExchange(expected: false, desired: true, ordering: .sequentiallyConsistent).exchanged else { return }
            fflush(nil)
            if !json { FileHandle.standardError.write(Data("tessera: stopped watching \(table)\n".utf8)) }
            _exit(0)
        }
    }
}

/// Set by SIGINT and SIGTERM: `watch` stops at once.
let interrupted = Atomic<Bool>(false)

/// How many stop signals (SIGINT, SIGTERM) came: a second one cuts a
/// graceful stop short (`serve`).
let stopSignalCount = Atomic<Int>(0)

/// Makes SIGINT and SIGTERM set ``interrupted`` instead of ending the
/// process. A parent may start us with them blocked (the mask is
/// inherited): they are unblocked, or Ctrl-C would never arrive.
func catchStopSignals() {
    signal(SIGINT) { _ in
        interrupted.store(true, ordering: .relaxed)
        stopSignalCount.add(1, ordering: .relaxed)
    }
    signal(SIGTERM) { _ in
        interrupted.store(true, ordering: .relaxed)
        stopSignalCount.add(1, ordering: .relaxed)
    }
    var stopSignals = sigset_t()
    sigemptyset(&stopSignals)
    sigaddset(&stopSignals, SIGINT)
    sigaddset(&stopSignals, SIGTERM)
    pthread_sigmask(SIG_UNBLOCK, &stopSignals, nil)
}

/// Set by whichever ends `watch` first: its run, or the grace period
/// after a stop (PostgreSQL).
let watchEnded = Atomic<Bool>(false)

struct Bench: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Measure Tessera's diff against a Dictionary floor, Swift's difference(from:) and OrderedSet's, on generated lists or your own snapshots; and load the live list's server.",
        subcommands: [BenchDiff.self] + benchServeSubcommands
    )
}

struct BenchDiff: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "diff",
        abstract: "Diff two lists or snapshots with each method (Tessera, a Dictionary floor, Swift's difference(from:), OrderedSet's difference(from:)) and print their times, allocations and changes.",
        discussion: """
        The data: generated lists (--count, --changes, --ids, --sections, --seed), two snapshot files (the format \
        `tessera diff` reads), or a table before and after a change script (--database, --table, --sort, --script, \
        and optionally --section). Snapshots of one section, the same in both, are diffed as flat lists; others as \
        sectioned snapshots; an item's (or section's) content is compared through a number standing for it, made \
        before timing. Tessera's changeset is checked first: it must replay the old snapshot to the new one. \
        Each method runs once untimed, once more to count its allocations (when this build of tessera can count \
        them), then --runs times; the median and the 90th percentile are reported, with the deletes, inserts, moves \
        and updates it found (– where a method does not tell). Swift's difference(from:).inferringMoves() runs over \
        the item ids (arrays made before timing), up to --swift-limit elements; OrderedSet(ids).difference(from:) \
        (swift-collections) builds an OrderedSet of each side's item ids and diffs them, which is timed. \
        With --sweep, every method runs at every size, and the growth exponent k (time ∝ size^k, the least-squares \
        slope of log time on log size) is printed for each method that ran at two sizes or more.
        """
    )

    @Argument(help: "Two snapshot files, before and after (the format `tessera diff` reads); without them, generated lists are measured.")
    var files: [String] = []

    @Option(parsing: .unconditional, help: "Generated data: elements in the old list, from 1 to \(BenchRun.maximumCount) (default: 10000).")
    var count: Int?

    @Option(parsing: .unconditional, help: "Generated data: the share of elements changed, as 10% or 10, split evenly into deletes, inserts, moves and updates (default: 10%).")
    var changes: String?

    @Option(help: "Generated data: the kind of ids (ignored with snapshots).")
    var ids: BenchRun.IDKind = .int

    @Option(parsing: .unconditional, help: "Generated data: the number of sections, 1 for a flat list (default: 1).")
    var sections: Int?

    @Option(parsing: .unconditional, help: "Generated data: the generator's seed; the same seed gives the same data (default: 1).")
    var seed: UInt64?

    @Option(parsing: .unconditional, help: "Runs per method; the median and the 90th percentile are reported.")
    var runs: Int = 7

    @Option(parsing: .unconditional, help: "Leave Swift's difference(from:) (O(n·d)) out above this many elements.")
    var swiftLimit: Int = 20_000

    @Option(help: ArgumentHelp("Sizes to measure, as 1k,10k,100k,1M (k: thousands, M: millions; each from 1 to \(BenchRun.maximumCount)). Generated data: the old list's element counts (in place of --count). Snapshots: the old snapshot's item count each is scaled to, by repeating it a whole number of times (the number of copies nearest to size ÷ items, at least 1; see --scale).", valueName: "sizes"))
    var sweep: String?

    @Option(parsing: .unconditional, help: ArgumentHelp("Snapshot files or a database only: measure the snapshots scaled N times. Every section keeps its id, content and place, and its items are repeated N times in a row; the ids of copy c (from 1) end in #c (copy 0 keeps the file's ids), so the change is the files' change made once in each copy.", valueName: "N"))
    var scale: Int?

    @Option(help: ArgumentHelp("A database file: measure a table's snapshots before and after --script (with --table, --sort and --script).", valueName: "file"))
    var database: String?

    @Option(help: "With --database: the table (rows are items, told apart by its primary key, or its row id when it declares none; a view has neither).")
    var table: String?

    @Option(help: "With --database: a sort key, \"column [asc|desc]\"; repeat for more.")
    var sort: [String] = []

    @Option(help: "With --database: the column rows are grouped into sections by.")
    var section: String?

    @Option(help: ArgumentHelp("With --database: an SQL file of the change, run in a transaction that is always rolled back (Ctrl-C stops it and rolls back too, status 130).", valueName: "file"))
    var script: String?

    @Option(help: ArgumentHelp("Write a page with a log-log chart of time against size for each method, with the machine and this command line, here.", valueName: "file"))
    var html: String?

    @Flag(help: "Print one JSON object instead of a table: input, runs, build, swiftLimit, sizes, results (per method and size: name, size, medianSeconds, p90Seconds, ratio, allocations or null, counts), leftOut, exponents (name, exponent, sizes), notes, notices.")
    var json = false

    func run() throws {
        // Allocations are counted by a library preloaded into this one
        // process: tessera runs again with it (the same arguments; nothing
        // is read or written before this).
        AllocationCounter.loadIntoThisProcess()
        AllocationCounter.restoreEnvironment()
        var run = BenchRun(count: count ?? 10_000, changesPercent: 10, ids: ids, sections: sections ?? 1, seed: seed ?? 1,
                           runs: runs, swiftLimit: swiftLimit, json: json)
        if let changes {
            let text = changes.hasSuffix("%") ? String(changes.dropLast()) : changes
            guard let percent = Double(text) else {
                throw CommandError("--changes \(changes): expected a percentage such as 10%", exitCode: CommandError.usageExitCode)
            }
            run.changesPercent = percent
        }
        if let sweep {
            if count != nil { throw CommandError("--count and --sweep: give one (--sweep lists the counts)", exitCode: CommandError.usageExitCode) }
            run.sweep = try BenchRun.sizes(sweep: sweep)
        }
        run.scale = scale
        run.htmlPath = html
        // Every option is checked before a change script runs.
        try run.validateOptions(hasInput: !files.isEmpty || database != nil)
        if let html { try InputFile.checkWritable(html) }
        run.input = try input()
        run.commandLine = BenchRun.shellLine(CommandLine.arguments)
        // The process's malloc calls, counted by the preloaded counter when
        // it is beside the executable (-1, "not measured", under a
        // sanitizer).
        run.allocationCount = AllocationCounter.reader()
        // The progress bar is drawn on a terminal only: into a pipe or a
        // file it would be noise.
        let bar = isatty(STDERR_FILENO) == 1 ? ProgressBar() : nil
        let output: String
        do {
            output = try run.run(progress: { fraction, label in bar?.show(fraction, label) })
        } catch {
            // The error's line starts clean.
            bar?.clear()
            throw error
        }
        bar?.finish()
        emit(output)
    }

    /// The snapshot files or the database's snapshots; `nil` for generated
    /// data.
    func input() throws(CommandError) -> BenchInput? {
        func usage(_ message: String) -> CommandError { CommandError(message, exitCode: CommandError.usageExitCode) }
        let databaseOptions: [(String, Bool)] = [("--database", database != nil), ("--table", table != nil), ("--sort", !sort.isEmpty), ("--script", script != nil)]
        let usesDatabase = databaseOptions.contains { $0.1 } || section != nil
        guard files.isEmpty || files.count == 2 else {
            throw usage("bench diff takes two snapshot files, before and after, or none; got \(files.count): \(files.joined(separator: " "))")
        }
        if usesDatabase, !files.isEmpty { throw usage("snapshot files and --database: give one") }
        if usesDatabase {
            let missing = databaseOptions.filter { !$0.1 }.map(\.0)
            guard missing.isEmpty else { throw usage("--database, --table, --sort and --script go together: missing \(missing.joined(separator: ", "))") }
        }
        guard usesDatabase || !files.isEmpty else { return nil }
        let generated: [(String, Bool)] = [("--count", count != nil), ("--changes", changes != nil), ("--sections", sections != nil), ("--seed", seed != nil)]
        if let option = generated.first(where: \.1) {
            throw usage("\(option.0) applies to generated data, not to \(usesDatabase ? "--database" : "snapshot files")")
        }
        if let database, let table, let script {
            var reader = BenchDatabase(path: database, table: table, sort: sort, section: section, scriptPath: script)
            reader.shouldStop = { interrupted.load(ordering: .relaxed) }
            // Ctrl-C and SIGTERM stop the script and roll it back, rather
            // than end the process inside the transaction; afterwards
            // they end it as usual.
            catchStopSignals()
            defer {
                signal(SIGINT, SIG_DFL)
                signal(SIGTERM, SIG_DFL)
            }
            let input = try reader.snapshots()
            if interrupted.load(ordering: .relaxed) {
                throw reader.interruptedError()
            }
            return input
        }
        return try BenchInput.files(old: files[0], new: files[1])
    }
}

extension BenchRun.IDKind: ExpressibleByArgument {}

/// A progress bar on standard error.
final class ProgressBar {
    private var lastDrawn = -1

    func show(_ fraction: Double, _ label: String) {
        let width = 30
        let filled = Int((fraction * Double(width)).rounded(.down))
        let percent = Int((fraction * 100).rounded(.down))
        guard percent != lastDrawn || fraction >= 1 else { return }
        lastDrawn = percent
        let bar = String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled)
        let text = "\r[\(bar)] \(percent)% \(label)"
        FileHandle.standardError.write(Data((text + String(repeating: " ", count: max(0, 50 - label.count))).utf8))
    }

    func finish() {
        FileHandle.standardError.write(Data("\n".utf8))
    }

    /// Erases the bar, if drawn, so that the next line starts clean.
    func clear() {
        guard lastDrawn >= 0 else { return }
        lastDrawn = -1
        FileHandle.standardError.write(Data("\r\u{1B}[K".utf8))
    }
}
