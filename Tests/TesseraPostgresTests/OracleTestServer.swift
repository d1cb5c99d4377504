import Foundation
import TesseraSQLite
@testable import TesseraPostgres
#if canImport(Glibc)
import Glibc
#endif

// TODO-lead: switch to TestServer (Tests/TesseraPostgresTests/Support/TestServer.swift):
// OracleServer.url() -> TestServer.url(), OracleServer.freshDatabase(_:) ->
// TestServer.freshDatabase(_:), OracleCluster -> TestCluster, then remove
// this file. The names and shapes below are the same on purpose.

/// The server the oracle and fault tests run against: `TESSERA_POSTGRES_URL`.
enum OracleServer {
    struct Failure: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }

    /// The URL of the shared server, as a superuser.
    static func url() throws -> String {
        guard let url = ProcessInfo.processInfo.environment["TESSERA_POSTGRES_URL"], !url.isEmpty else {
            throw Failure("TESSERA_POSTGRES_URL is not set: the PostgreSQL tests need a server (wal_level = logical)")
        }
        return url
    }

    private static let counter = PThreadMutex(0)

    /// A database of its own for one test on the shared server, and its URL.
    static func freshDatabase(_ label: String) throws -> String {
        try freshDatabase(label, on: url())
    }

    /// A database of its own on the server of `serverURL`, and its URL.
    static func freshDatabase(_ label: String, on serverURL: String) throws -> String {
        let number = counter.withLock { value -> Int in
            value += 1
            return value
        }
        let name = "t_\(label.lowercased())_\(getpid())_\(number)_\(String(UInt32.random(in: 0 ... .max), radix: 16))"
        var attempt = 0
        while true {
            do {
                try run(serverURL, "CREATE DATABASE \"\(name)\"")
                break
            } catch where "\(error)".contains("being accessed by other users") && attempt < 20 {
                attempt += 1
                usleep(100_000)
            }
        }
        return try url(serverURL, database: name)
    }

    /// `serverURL` with its database replaced.
    static func url(_ serverURL: String, database: String) throws -> String {
        guard var components = URLComponents(string: serverURL) else { throw Failure("\(serverURL) is not a URL") }
        components.path = "/" + database
        guard let url = components.string else { throw Failure("\(serverURL) with \(database) is not a URL") }
        return url
    }

    /// `url` with another user and password.
    static func url(_ url: String, user: String, password: String?) throws -> String {
        guard var components = URLComponents(string: url) else { throw Failure("\(url) is not a URL") }
        components.user = user
        components.password = password
        guard let result = components.string else { throw Failure("\(url) with \(user) is not a URL") }
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
final class OracleCluster: @unchecked Sendable {
    let folder: String
    let port: Int
    /// The URL of its `postgres` database, as the superuser `postgres`.
    let url: String
    private let stopped = PThreadMutex(false)
    static let bin = "/usr/lib/postgresql/15/bin"

    init(label: String) throws {
        folder = "/tmp/tessera-oracle-\(getpid())-\(label)-\(String(UInt32.random(in: 0 ... .max), radix: 16))"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        _ = try Self.shell("chown postgres '\(folder)'")
        _ = try Self.asOwner("\(Self.bin)/initdb -D '\(folder)/data' -U postgres --auth=trust --locale=C --no-sync")
        var started: Int?
        for _ in 0..<10 {
            let candidate = Int.random(in: 40_000..<60_000)
            if (try? Self.asOwner(
                "\(Self.bin)/pg_ctl -D '\(folder)/data' -l '\(folder)/log' -w -t 30 -o \"-p \(candidate) -k '\(folder)' -c listen_addresses=127.0.0.1 -c wal_level=logical -c max_replication_slots=16 -c fsync=off\" start"
            )) != nil {
                started = candidate
                break
            }
        }
        guard let started else { throw OracleServer.Failure("the cluster in \(folder) did not start") }
        port = started
        url = "postgres://postgres@127.0.0.1:\(started)/postgres"
    }

    deinit { stop() }

    func freshDatabase(_ label: String) throws -> String { try OracleServer.freshDatabase(label, on: url) }

    /// Stops the server (fast: sessions end at once) and starts it again.
    func restart() throws {
        _ = try Self.asOwner("\(Self.bin)/pg_ctl -D '\(folder)/data' -l '\(folder)/log' -w -t 30 -m fast restart")
    }

    /// Stops the server and removes its folder.
    func stop() {
        let first = stopped.withLock { value -> Bool in
            defer { value = true }
            return !value
        }
        guard first else { return }
        _ = try? Self.asOwner("\(Self.bin)/pg_ctl -D '\(folder)/data' -w -t 30 -m immediate stop")
        try? FileManager.default.removeItem(atPath: folder)
    }

    private static func asOwner(_ command: String) throws -> String {
        getuid() == 0 ? try shell("runuser -u postgres -- sh -c \"\(command.replacingOccurrences(of: "\"", with: "\\\""))\"") : try shell(command)
    }

    private static func shell(_ command: String) throws -> String {
        // The output goes to a file, not a pipe: the server pg_ctl starts
        // would keep a pipe open, and reading it would never end.
        let output = "/tmp/tessera-oracle-output-\(getpid())-\(UInt32.random(in: 0 ... .max))"
        defer { try? FileManager.default.removeItem(atPath: output) }
        // posix_spawn and waitpid rather than Process, whose wait on Linux
        // does not end while the server pg_ctl started holds what it shares.
        let arguments = ["/bin/sh", "-c", "(\(command)) </dev/null >'\(output)' 2>&1"]
        let argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var pid: pid_t = 0
        guard posix_spawn(&pid, "/bin/sh", nil, nil, argv, environ) == 0 else { throw OracleServer.Failure("cannot run \(command)") }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        let text = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
        guard status == 0 else { throw OracleServer.Failure("\(command) failed (\(status)): \(text)") }
        return text
    }
}
