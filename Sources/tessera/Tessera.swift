import ArgumentParser
import Foundation
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
        guard photos >= 100 else { throw ValidationError("--photos \(photos): the demo needs at least 100 photos") }
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
        ids are strings or integers, unique among sections and among items; content is optional, any JSON, \
        and a changed content is an update.
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
    static let configuration = CommandConfiguration(abstract: "Follow a database that other processes write.")
    func run() throws {}
}

struct Bench: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Measure the diff.")
    func run() throws {}
}
