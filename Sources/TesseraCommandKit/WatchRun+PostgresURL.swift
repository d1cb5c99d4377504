import Foundation
import TesseraResults
import TesseraSQLite

/// `tessera watch postgres://…`: what the command needs to know of a
/// PostgreSQL URL. Following one is the work of the TesseraCommandPostgres
/// module, which only the `tessera` executable links (see
/// ``WatchRun/followPostgres``), so that the command's other modules stay
/// free of postgres-nio.
///
/// The store (`PostgresStore`) follows every commit
/// through a temporary logical replication slot of its own, which the
/// server drops when the store's connection ends, a killed process
/// included. The controller has no home: every ``WatchRun/interval``
/// seconds the command calls `checkForExternalChanges()`, which takes the
/// commits the store read since, and prints one report per change. A
/// commit that leaves the result as it was, and a transaction rolled back,
/// print nothing.
extension WatchRun {
    /// Whether ``databasePath`` is a PostgreSQL URL (`postgres://` or
    /// `postgresql://`) rather than an SQLite file.
    package var isPostgres: Bool { Self.isPostgresURL(databasePath) }

    /// Whether `text` is a PostgreSQL URL (`postgres://` or
    /// `postgresql://`, in any case).
    package static func isPostgresURL(_ text: String) -> Bool {
        let lowered = text.lowercased()
        return lowered.hasPrefix("postgres://") || lowered.hasPrefix("postgresql://")
    }

    /// Seconds between polls when none is given: 0.1 for an SQLite file,
    /// 0.05 for PostgreSQL.
    package static func defaultInterval(for database: String) -> Double {
        isPostgresURL(database) ? 0.05 : 0.1
    }

    /// The polls `--interval` takes, in seconds.
    package static let intervalRange: ClosedRange<Double> = 0.001...3600

    /// `application_name` of the command's sessions on the server (the
    /// session that reads the replication slot adds " (following)").
    package static let postgresApplicationName = "tessera watch"

    /// The URL without its password: `postgres://user@host:port/db`.
    ///
    /// - Complexity: O(*n*) for *n* characters.
    package static func urlWithoutPassword(_ url: String) -> String {
        var url = url
        // A `password=` of the query, left out with its value.
        if let question = url.firstIndex(of: "?") {
            let items = url[url.index(after: question)...].split(separator: "&", omittingEmptySubsequences: false)
                .filter { !$0.lowercased().hasPrefix("password=") }
            url = String(url[..<question]) + (items.isEmpty ? "" : "?" + items.joined(separator: "&"))
        }
        guard let parts = passwordRange(in: url) else { return url }
        return String(url[..<parts.colon]) + String(url[parts.at...])
    }

    /// Where the password is: from the `:` after the user to the last
    /// `@`. Read from the text, not parsed: a password with a `/`, `?` or
    /// `#` that was not percent-encoded (which no parser takes) is found
    /// too, and a `@` later in the URL only hides more than the password.
    private static func passwordRange(in url: String) -> (colon: String.Index, at: String.Index)? {
        guard let scheme = url.range(of: "://") else { return nil }
        let rest = url[scheme.upperBound...]
        guard let at = rest.lastIndex(of: "@"), let colon = rest[..<at].firstIndex(of: ":") else { return nil }
        return (colon, at)
    }

    /// `message` with the URL's password (as written, and decoded) hidden,
    /// on one line.
    package func scrubbed(_ message: String) -> String {
        var text = message.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }.joined(separator: " ")
        if let parts = Self.passwordRange(in: databasePath) {
            let written = String(databasePath[databasePath.index(after: parts.colon)..<parts.at])
            for password in [written, written.removingPercentEncoding ?? written] where !password.isEmpty {
                text = text.replacingOccurrences(of: password, with: "***")
            }
        }
        return text
    }

    /// Checks ``interval`` against ``intervalRange``.
    package func checkInterval() throws(CommandError) {
        guard interval.isFinite, Self.intervalRange.contains(interval) else {
            throw CommandError(
                "--interval \(Self.plain(interval)): the seconds between polls must be from \(Self.plain(Self.intervalRange.lowerBound)) to \(Self.plain(Self.intervalRange.upperBound))",
                exitCode: CommandError.usageExitCode
            )
        }
    }

    /// `3600`, `0.001`: a number as written, without a needless `.0`.
    private static func plain(_ value: Double) -> String {
        value.isFinite && value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : "\(value)"
    }
}
