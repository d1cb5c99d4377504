import ArgumentParser
import TesseraCommandKit

/// `tessera log`: the change log of a table of an SQLite file.
struct Log: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Install, show or remove the change log of an SQLite table, so that watch, serve and the controllers patch other processes' commits instead of re-fetching.",
        discussion: """
        A change log is a table (tessera_log_<table>) and triggers that log the key and the old sort values \
        of every row a write touches, in the writer's own transaction, whichever program writes. \
        See the article "Following other processes' commits". \
        A file or table that does not exist, a table without a one-column primary key, and a column it \
        does not have are database errors (2); a --keep below 1 is a usage error (64).
        """,
        subcommands: [Install.self, Show.self, Remove.self]
    )

    struct Target: ParsableArguments {
        @Argument(help: "The SQLite database file.")
        var database: String

        @Option(help: "The table.")
        var table: String
    }

    struct Install: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Install the change log of a table (again, with other columns, starts a new log).")

        @OptionGroup var target: Target

        @Option(name: .customLong("column"), help: "A column whose old values to log: the ones your lists sort and section by; repeat for more (default: every column).")
        var columns: [String] = []

        @Option(parsing: .unconditional, help: "How many entries the log keeps; a follower further behind fetches again once.")
        var keep: Int = 100_000

        func run() throws {
            print(try ChangeLogRun(databasePath: target.database, table: target.table, action: .install(columns: columns.isEmpty ? nil : columns, keeping: keep)).run())
        }
    }

    struct Show: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show a table's change log: its columns and entries.")

        @OptionGroup var target: Target

        func run() throws {
            print(try ChangeLogRun(databasePath: target.database, table: target.table, action: .show).run())
        }
    }

    struct Remove: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Remove a table's change log: its triggers and its table.")

        @OptionGroup var target: Target

        func run() throws {
            print(try ChangeLogRun(databasePath: target.database, table: target.table, action: .remove).run())
        }
    }
}
