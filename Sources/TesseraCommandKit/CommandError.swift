/// A failure of a `tessera` command: one line that names the culprit (a
/// file, a table, a column, an id) and the exit status to leave with.
package struct CommandError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The message, one line.
    package var message: String
    /// The process exit status (never 0).
    package var exitCode: Int32

    /// Creates an error; `exitCode` is 1 unless given.
    package init(_ message: String, exitCode: Int32 = 1) {
        self.message = message
        self.exitCode = exitCode
    }

    /// The message.
    package var description: String { message }
}

/// The exit statuses of `tessera` (the article "The tessera command",
/// Sources/Tessera/Tessera.docc/TheTesseraCommand.md, states the same
/// table).
extension CommandError {
    /// 1: a bad input file (missing, unreadable, empty, not JSON, not a
    /// snapshot or plan, duplicate ids) or a file that cannot be written.
    package static let inputExitCode: Int32 = 1
    /// 2: a database that does not exist or cannot be opened or read, or a
    /// table or column it does not have (named by an option or `--where`).
    package static let databaseExitCode: Int32 = 2
    /// 3: a database that another process keeps locked.
    package static let lockedExitCode: Int32 = 3
    /// 64: bad usage (`EX_USAGE`): an unknown subcommand or option, a
    /// missing or out-of-range value, a `--where` SQLite cannot read or
    /// whose placeholders do not match the `--arg` values.
    package static let usageExitCode: Int32 = 64
    /// 130: `bench diff --script` stopped by Ctrl-C or SIGTERM (128 +
    /// SIGINT, as a shell reports it); the script's change is rolled back.
    package static let interruptedExitCode: Int32 = 130
}
