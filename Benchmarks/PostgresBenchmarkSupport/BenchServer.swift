// The PostgreSQL server the PostgreSQL benchmarks use, their databases and
// their 1,000,000-row fixture, and a small async connection over
// postgres-nio for the writer, the floor and the peer.
//
// The server is `TESSERA_POSTGRES_URL` when it is set; otherwise a private
// cluster that the repository's `.ci/postgres start <folder>` script starts
// in a temporary folder (it prints the URL) and `.ci/postgres stop <folder>`
// stops and removes. Loopback only: the script listens on 127.0.0.1.

import Foundation
import PostgresNIO

/// A server for one benchmark process: the one `TESSERA_POSTGRES_URL`
/// names, or a private cluster started for the process and stopped by
/// ``stop()`` (or at exit).
public final class BenchServer: @unchecked Sendable {
    /// The URL of the server's default database.
    public let url: String
    /// The private cluster's folder, or `nil` for `TESSERA_POSTGRES_URL`.
    private let clusterFolder: String?
    private let lock = NSLock()
    private var stopped = false

    private init(url: String, clusterFolder: String?) {
        self.url = url
        self.clusterFolder = clusterFolder
    }

    /// The server of this process, started on first use.
    public static let shared: BenchServer = {
        let server = start()
        atexit { BenchServer.shared.stop() }
        return server
    }()

    private static func start() -> BenchServer {
        if let url = ProcessInfo.processInfo.environment["TESSERA_POSTGRES_URL"], !url.isEmpty {
            return BenchServer(url: url, clusterFolder: nil)
        }
        let script = repositoryRoot.appendingPathComponent(".ci/postgres").path
        guard FileManager.default.isExecutableFile(atPath: script) else {
            fatalError("no PostgreSQL server: set TESSERA_POSTGRES_URL (wal_level=logical), or add .ci/postgres, which starts a private cluster")
        }
        let folder = FileManager.default.temporaryDirectory
            .appendingPathComponent("tessera-bench-pg-\(getpid())-\(UInt32.random(in: 0 ... .max))").path
        let output = run(script, ["start", folder])
        guard output.status == 0, let url = output.text.split(separator: "\n").last.map(String.init), url.hasPrefix("postgres://") else {
            fatalError(".ci/postgres start \(folder) failed (\(output.status)): \(output.text)")
        }
        return BenchServer(url: url, clusterFolder: folder)
    }

    /// Stops the private cluster and removes its folder; nothing for
    /// `TESSERA_POSTGRES_URL`. Idempotent.
    public func stop() {
        let folder: String? = lock.withLock {
            defer { stopped = true }
            return stopped ? nil : clusterFolder
        }
        guard let folder else { return }
        let script = Self.repositoryRoot.appendingPathComponent(".ci/postgres").path
        _ = Self.run(script, ["stop", folder])
    }

    /// The repository: two levels above this file's folder.
    static let repositoryRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// Runs a command and returns its status and output. Not with
    /// Foundation's `Process`, which waits until every process that
    /// inherited its end of a socket pair has exited — the server the
    /// script starts too — but `posix_spawn` and `waitpid`, with the output
    /// in a file (the server inherits no pipe either).
    static func run(_ executable: String, _ arguments: [String]) -> (status: Int32, text: String) {
        let outputPath = FileManager.default.temporaryDirectory
            .appendingPathComponent("tessera-bench-pg-\(getpid())-\(UInt32.random(in: 0 ... .max)).out").path
        defer { try? FileManager.default.removeItem(atPath: outputPath) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outputPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        let argv: [UnsafeMutablePointer<CChar>?] = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, executable, &actions, nil, argv, environ)
        guard spawned == 0 else { return (-1, "cannot run \(executable): \(String(cString: strerror(spawned)))") }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1, errno == EINTR {}
        let text = (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? ""
        // Exited normally: the exit status; killed: -1.
        return (status & 0x7F == 0 ? (status >> 8) & 0xFF : -1, text)
    }

    /// A new, empty database with a name of its own (`label`, the process
    /// id and a random suffix); its URL. Drop it with ``dropDatabase(_:)``.
    ///
    /// Its sessions commit with `synchronous_commit` set to
    /// `synchronousCommit`: `on` by default, PostgreSQL's own default,
    /// whatever the server's configuration says (the private cluster of
    /// `.ci/postgres` turns it off). With `off`, a commit is visible before
    /// its log record is flushed, and the log is flushed by the WAL writer
    /// every `wal_writer_delay` (200 ms by default).
    public func makeDatabase(_ label: String, synchronousCommit: String = "on") async throws -> String {
        let name = "tessera_bench_\(label)_\(getpid())_\(UInt16.random(in: 0 ... .max))"
        let admin = try await BenchConnection.connect(url)
        defer { admin.closeSoon() }
        try await admin.execute("CREATE DATABASE \(name)")
        try await admin.execute("ALTER DATABASE \(name) SET synchronous_commit = \(synchronousCommit == "off" ? "off" : "on")")
        return try BenchURL(url).with(database: name).description
    }

    /// Drops a database ``makeDatabase(_:)`` made, closing its sessions.
    public func dropDatabase(_ databaseURL: String) async throws {
        let name = try BenchURL(databaseURL).database
        let admin = try await BenchConnection.connect(url)
        defer { admin.closeSoon() }
        try await admin.execute("DROP DATABASE IF EXISTS \(name) WITH (FORCE)")
    }
}

/// The fixture: `photo(id bigint primary key, album int, rank int, title
/// text)`, 1,000,000 rows in 1,024 albums (`album = id % 1024`, a rank
/// spread by a multiplicative hash), loaded with one `INSERT … SELECT
/// generate_series`, with an index on `(album, rank, id)` for the sorted
/// reads.
public enum PhotoFixture {
    public static let rowCount = 1_000_000
    public static let albumCount = 1_024
    /// The sorted SELECT the controller runs, for the floor and the peer.
    public static let orderedSQL = "SELECT id, album, rank, title FROM photo ORDER BY album, rank, id"

    /// Makes the table in the database `databaseURL` names.
    public static func load(_ databaseURL: String, rows: Int = rowCount) async throws {
        let connection = try await BenchConnection.connect(databaseURL)
        defer { connection.closeSoon() }
        try await connection.execute("CREATE TABLE photo (id bigint PRIMARY KEY, album int NOT NULL, rank int NOT NULL, title text NOT NULL)")
        try await connection.execute("""
            INSERT INTO photo SELECT g, (g % \(albumCount))::int, ((g * 7919) % 1000003)::int, 'Photo ' || g
            FROM generate_series(1::bigint, \(rows)::bigint) g
            """)
        try await connection.execute("CREATE INDEX photo_order ON photo (album, rank, id)")
        try await connection.execute("VACUUM ANALYZE photo")
    }
}

/// The row as a plain struct, decoded by postgres-nio (the floor and the
/// peer).
public struct PlainPhoto: Identifiable, Equatable, Sendable {
    public var id: Int64
    public var album: Int32
    public var rank: Int32
    public var title: String
}

/// A `postgres://user[:password]@host:port/database` URL, taken apart.
public struct BenchURL: CustomStringConvertible, Sendable {
    public var user: String
    public var password: String?
    public var host: String
    public var port: Int
    public var database: String

    public init(_ text: String) throws {
        guard let components = URLComponents(string: text), components.scheme == "postgres" || components.scheme == "postgresql",
              let user = components.user, let host = components.host
        else { throw BenchError("not a postgres:// URL: \(text)") }
        self.user = user
        password = components.password
        self.host = host
        port = components.port ?? 5432
        let path = components.path.hasPrefix("/") ? String(components.path.dropFirst()) : components.path
        database = path.isEmpty ? user : path
    }

    public func with(database: String) -> BenchURL {
        var copy = self
        copy.database = database
        return copy
    }

    public var description: String {
        "postgres://\(user)\(password.map { ":\($0)" } ?? "")@\(host):\(port)/\(database)"
    }
}

public struct BenchError: Error, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}

/// One postgres-nio connection, async, without TLS (loopback).
public final class BenchConnection: @unchecked Sendable {
    public let connection: PostgresConnection
    let logger = Logger(label: "tessera.bench")

    private init(connection: PostgresConnection) {
        self.connection = connection
    }

    public static func connect(_ url: String) async throws -> BenchConnection {
        let parsed = try BenchURL(url)
        let configuration = PostgresConnection.Configuration(
            host: parsed.host, port: parsed.port, username: parsed.user, password: parsed.password, database: parsed.database, tls: .disable
        )
        let connection = try await PostgresConnection.connect(configuration: configuration, id: 1, logger: Logger(label: "tessera.bench"))
        return BenchConnection(connection: connection)
    }

    /// Runs one statement (autocommit: its own transaction) and waits for
    /// its end.
    public func execute(_ sql: String) async throws {
        let rows = try await connection.query(PostgresQuery(unsafeSQL: sql), logger: logger)
        for try await _ in rows {}
    }

    /// The sorted fixture rows as plain structs.
    public func fetchPhotos() async throws -> [PlainPhoto] {
        var photos: [PlainPhoto] = []
        photos.reserveCapacity(PhotoFixture.rowCount)
        let rows = try await connection.query(PostgresQuery(unsafeSQL: PhotoFixture.orderedSQL), logger: logger)
        for try await (id, album, rank, title) in rows.decode((Int64, Int32, Int32, String).self) {
            photos.append(PlainPhoto(id: id, album: album, rank: rank, title: title))
        }
        return photos
    }

    public func close() async {
        try? await connection.close()
    }

    /// Closes without waiting (for `defer`).
    public func closeSoon() {
        let connection = connection
        Task { try? await connection.close() }
    }
}

/// Nanoseconds of the monotonic clock, the same in every process of the
/// machine (CLOCK_MONOTONIC).
public func monotonicNanoseconds() -> UInt64 {
    var time = timespec()
    clock_gettime(CLOCK_MONOTONIC, &time)
    return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
}

/// Nearest-rank percentile of sorted values.
public func percentile(_ sorted: [Double], _ p: Double) -> Double {
    guard !sorted.isEmpty else { return .nan }
    let rank = Int((p / 100 * Double(sorted.count)).rounded(.up))
    return sorted[min(max(rank, 1), sorted.count) - 1]
}
