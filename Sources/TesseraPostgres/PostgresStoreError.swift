import PostgresNIO
import TesseraResultsCore

/// A failure of PostgreSQL, or of reaching it: what was asked, and why it
/// failed. The controllers report it as ``TesseraResults/ResultsError/store(_:)``,
/// whose ``TesseraResultsCore/StoreError/underlying`` is this error.
public struct PostgresStoreError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What kind of failure.
    public enum Kind: String, Hashable, Sendable {
        /// The URL is not a `postgres://` URL Tessera can use.
        case invalidURL
        /// The server could not be reached (refused, no such host, TLS).
        case connection
        /// The server refused the user or the password.
        case authentication
        /// The connection ended: the server stopped, restarted, or ended
        /// this session.
        case serverGone
        /// The server refused the SQL (a syntax error, a type mismatch).
        case badSQL
        /// No such table or view.
        case unknownTable
        /// No such column.
        case unknownColumn
        /// The server cannot follow commits: its `wal_level` is not
        /// `logical`, or no replication slot is free; or the store lost
        /// its replication slot and has not made it again yet (a read
        /// then fails with this kind until it has, see "Following
        /// PostgreSQL").
        case cannotFollow
        /// Anything else the server said.
        case server
    }

    /// What kind of failure.
    public var kind: Kind
    /// What was asked, in words (`connect to 127.0.0.1:5432`, `fetch
    /// photo`), with the SQL when there was some.
    public var request: String
    /// The server's SQLSTATE, when it sent one (`42P01`).
    public var code: String?
    /// Why it failed, as the server or the connection said.
    public var message: String

    /// An error.
    public init(kind: Kind, request: String, code: String? = nil, message: String) {
        self.kind = kind
        self.request = request
        self.code = code
        self.message = message
    }

    /// `cannot fetch photo: relation "photo" does not exist (42P01)`.
    public var description: String {
        "cannot \(request): \(message)\(code.map { " (\($0))" } ?? "")"
    }

    /// The error as the controllers report it.
    var resultsError: ResultsError {
        .store(StoreError(store: "PostgreSQL", code: code, message: description, underlying: self))
    }

    /// Sorts postgres-nio's error into a kind, with the server's message.
    init(_ error: any Error, request: String) {
        self.request = request
        guard let psql = error as? PSQLError else {
            kind = .connection
            message = "\(error)"
            return
        }
        let sqlState = psql.serverInfo?[.sqlState]
        code = sqlState
        if let serverMessage = psql.serverInfo?[.message] {
            message = serverMessage
            if let detail = psql.serverInfo?[.detail] { message += " (\(detail))" }
        } else {
            message = "\(psql.code)"
            if let underlying = psql.underlying { message += ": \(underlying)" }
        }
        switch psql.code {
        case .serverClosedConnection, .uncleanShutdown, .clientClosedConnection:
            kind = .serverGone
            return
        case .connectionError, .sslUnsupported, .failedToAddSSLHandler:
            kind = .connection
            return
        case .authMechanismRequiresPassword, .unsupportedAuthMechanism, .saslError:
            kind = .authentication
            return
        default:
            break
        }
        switch sqlState {
        case "28P01", "28000": kind = .authentication
        case "42P01": kind = .unknownTable
        case "42703": kind = .unknownColumn
        case "55000", "53400": kind = .cannotFollow
        case let state? where state.hasPrefix("57P") || state.hasPrefix("08"): kind = .serverGone
        case let state? where state.hasPrefix("42") || state.hasPrefix("22"): kind = .badSQL
        default: kind = .server
        }
    }
}
