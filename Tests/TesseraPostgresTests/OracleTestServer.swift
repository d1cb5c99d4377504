import Foundation
import TesseraSQLite
import TesseraPostgresTestSupport
@testable import TesseraPostgres

/// What the oracle and fault tests ask of the server, over ``TestServer``:
/// its URL, databases of their own, sessions through the store's own
/// connection type.
enum OracleServer {
    /// The URL of the shared server, as a superuser.
    static func url() throws -> String { try TestServer.url() }

    /// A database of its own for one test on the shared server, and its URL.
    static func freshDatabase(_ label: String) throws -> String { try TestServer.freshDatabase(label) }

    /// `url` with another user and password.
    static func url(_ url: String, user: String, password: String?) throws -> String {
        guard var components = URLComponents(string: url) else { throw TestServer.Failure("\(url) is not a URL") }
        components.user = user
        components.password = password
        guard let result = components.string else { throw TestServer.Failure("\(url) with \(user) is not a URL") }
        return result
    }

    /// A session of its own on `url` (an application name that does not
    /// start with `tessera`, so that killing the stores' sessions spares it).
    static func session(_ url: String, applicationName: String = "oracle-writer") throws -> PostgresSession {
        try PostgresSession.connect(PostgresEndpoint(url: url), applicationName: applicationName)
    }

    /// Runs statements, one after another, on a session of their own.
    @discardableResult
    static func run(_ url: String, _ statements: String...) throws -> [[DatabaseValue]] {
        let session = try session(url, applicationName: "oracle-admin")
        defer { session.close() }
        var rows: [[DatabaseValue]] = []
        for sql in statements { rows = try session.query(sql, request: "run \(sql)").rows }
        return rows
    }

    /// The `tessera_%` replication slots of the database of `url`.
    static func replicationSlots(_ url: String) throws -> [String] {
        try run(url, "SELECT slot_name FROM pg_replication_slots WHERE database = current_database() AND slot_name LIKE 'tessera\\_%' ORDER BY slot_name")
            .compactMap { $0.first?.string }
    }
}

/// A private cluster one test owns, to restart or stop it.
typealias OracleCluster = TestCluster
