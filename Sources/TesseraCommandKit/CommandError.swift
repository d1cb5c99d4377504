/// A failure of a `tessera` command: one line that names the culprit (a
/// file, a table, a column, an id) and the exit status to leave with.
public struct CommandError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The message, one line.
    public var message: String
    /// The process exit status (never 0).
    public var exitCode: Int32

    /// Creates an error; `exitCode` is 1 unless given.
    public init(_ message: String, exitCode: Int32 = 1) {
        self.message = message
        self.exitCode = exitCode
    }

    /// The message.
    public var description: String { message }
}

extension CommandError {
    /// The exit status of a database that another process keeps locked.
    public static let lockedExitCode: Int32 = 3
    /// The exit status of bad input: a file, its JSON, or a snapshot in it.
    public static let inputExitCode: Int32 = 1
    /// The exit status of a database, table or column that does not exist.
    public static let databaseExitCode: Int32 = 2
}
