import ArgumentParser
import Foundation
import Synchronization
import TesseraCommandKit
import TesseraDiff

/// The `tessera` command.
@main
struct Tessera: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tessera",
        abstract: "Lists backed by SQLite: follow a database, diff snapshots, and watch animation plans.",
        discussion: "With no subcommand, runs `demo`.",
        subcommands: [Demo.self, Watch.self, Diff.self, Render.self, Bench.self],
        defaultSubcommand: Demo.self
    )
}

/// Runs a command's work: a ``CommandError`` becomes one line on standard
/// error and its exit status, never a stack trace.
func running(_ body: () throws(CommandError) -> Void) throws(ExitCode) {
    do {
        try body()
    } catch {
        FileHandle.standardError.write(Data("tessera: error: \(error.message)\n".utf8))
        throw ExitCode(error.exitCode)
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

    @Option(help: "The viewport's width, in points.")
    var width: Double = 390

    @Option(help: "The viewport's height, in points.")
    var height: Double = 844

    func choice() -> LayoutChoice? {
        layout.map { LayoutChoice(kind: $0, width: width, height: height) }
    }
}

extension LayoutChoice.Kind: ExpressibleByArgument {}

extension MoveAndUpdatePolicy: ExpressibleByArgument {
    public init?(argument: String) {
        switch argument {
        case "delete-insert", "deleteAndInsert": self = .deleteAndInsert
        case "move-then-reload", "moveThenReload": self = .moveThenReload
        default: return nil
        }
    }

    public static var allValueStrings: [String] { ["delete-insert", "move-then-reload"] }
}

struct Demo: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Seed a photo library in a temporary SQLite database, follow it through scripted transactions, and write tessera-demo.html."
    )

    @Option(help: "The database file (re-seeded on every run).")
    var database: String = DemoRun.defaultDatabasePath

    @Option(help: "Where to write the page of animation plans.")
    var html: String = "tessera-demo.html"

    @Option(help: "How many photos to seed.")
    var photos: Int = 10_000

    func validate() throws {
        guard photos >= 2000 else { throw ValidationError("--photos \(photos): the demo's script needs at least 2000 photos") }
    }

    func run() throws {
        try running { () throws(CommandError) in
            try DemoRun(databasePath: database, htmlPath: html, photoCount: photos).run(print: emit)
        }
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

    @Option(help: "What one batch does with an element that moves and changes: delete-insert or move-then-reload.")
    var policy: MoveAndUpdatePolicy = .moveThenReload

    @OptionGroup var layout: LayoutOptions

    @Option(help: "Write the animation plan's page here (with --layout, or a flow layout).")
    var html: String?

    @Flag(help: "Print one JSON object instead of text.")
    var json = false

    func run() throws {
        try running { () throws(CommandError) in
            let run = DiffRun(oldPath: old, newPath: new, staged: staged, policy: policy, layout: layout.choice(), htmlPath: html, json: json)
            emit(try run.run())
        }
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

    @Option(help: "The viewport's width (default: the content's width).")
    var width: Double?

    @Option(help: "The viewport's height (default: the content's height, at most 844).")
    var height: Double?

    func run() throws {
        try running { () throws(CommandError) in
            var viewport: LayoutChoice?
            if let width, let height {
                viewport = LayoutChoice(kind: .flow, width: width, height: height)
                try viewport?.validate()
            }
            emit(try RenderRun(planPath: plan, htmlPath: html, viewport: viewport?.size).run())
        }
    }
}

struct Watch: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Follow a database that other processes write: one report per commit that changes the result.",
        discussion: "Polls PRAGMA data_version every 100 ms and re-fetches when another connection commits. Ctrl-C exits cleanly."
    )

    @Argument(help: "The SQLite database file.")
    var database: String

    @Option(help: "The table or view to follow.")
    var table: String

    @Option(help: "A sort key, \"column [asc|desc]\"; repeat for more. The key column is always the last one.")
    var sort: [String] = []

    @Option(help: "The column rows are grouped into sections by (it becomes the first sort key).")
    var section: String?

    @Option(name: .customLong("where"), help: "An SQL condition with ? parameters.")
    var predicate: String?

    @Option(help: "A value for the condition's next ?; repeat for more (numbers bind as numbers, anything else as text).")
    var arg: [String] = []

    @Option(help: "The key column.")
    var key: String = "id"

    @OptionGroup var layout: LayoutOptions

    @Flag(help: "Print JSON lines instead of text.")
    var json = false

    @Option(help: "Seconds to wait for another process's lock before giving up.")
    var busyTimeout: Double = 1

    func run() throws {
        signal(SIGINT) { _ in interrupted.store(true, ordering: .relaxed) }
        signal(SIGTERM) { _ in interrupted.store(true, ordering: .relaxed) }
        // A parent may start us with these blocked (the mask is inherited):
        // unblock them, or Ctrl-C would never arrive.
        var stopSignals = sigset_t()
        sigemptyset(&stopSignals)
        sigaddset(&stopSignals, SIGINT)
        sigaddset(&stopSignals, SIGTERM)
        pthread_sigmask(SIG_UNBLOCK, &stopSignals, nil)
        try running { () throws(CommandError) in
            let run = WatchRun(
                databasePath: database, table: table, sortKeys: sort, section: section, predicate: predicate,
                arguments: arg, keyColumn: key, layout: layout.choice(), json: json, busyTimeout: busyTimeout
            )
            try run.run(print: emit, shouldStop: { interrupted.load(ordering: .relaxed) })
        }
        if !json { FileHandle.standardError.write(Data("tessera: stopped watching \(table)\n".utf8)) }
    }
}

/// Set by SIGINT and SIGTERM: `watch` stops at its next poll.
let interrupted = Atomic<Bool>(false)

struct Bench: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Measure Tessera's diff against Swift's difference(from:) and a Dictionary floor.",
        subcommands: [BenchDiff.self]
    )
}

struct BenchDiff: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "diff",
        abstract: "Generate two lists, diff them with each method, and print the medians and ratios."
    )

    @Option(help: "Elements in the old list.")
    var count: Int = 10_000

    @Option(help: "The share of elements changed, as 10% or 10 (split evenly into deletes, inserts, moves and updates).")
    var changes: String = "10%"

    @Option(help: "The kind of ids: int or uuid.")
    var ids: BenchRun.IDKind = .int

    @Option(help: "The number of sections (1: a flat list).")
    var sections: Int = 1

    @Option(help: "The generator's seed: the same seed gives the same data.")
    var seed: UInt64 = 1

    @Option(help: "Runs per method; the median is reported.")
    var runs: Int = 7

    @Option(help: "Leave Swift's difference(from:) out above this many elements.")
    var swiftLimit: Int = 20_000

    @Flag(help: "Print JSON instead of a table.")
    var json = false

    func run() throws {
        try running { () throws(CommandError) in
            let text = changes.hasSuffix("%") ? String(changes.dropLast()) : changes
            guard let percent = Double(text) else {
                throw CommandError("--changes \(changes): expected a percentage such as 10%", exitCode: 64)
            }
            let run = BenchRun(count: count, changesPercent: percent, ids: ids, sections: sections, seed: seed,
                               runs: runs, swiftLimit: swiftLimit, json: json)
            let bar = ProgressBar()
            let output = try run.run(progress: bar.show)
            bar.finish()
            emit(output)
        }
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
}
