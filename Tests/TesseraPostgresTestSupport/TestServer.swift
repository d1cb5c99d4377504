import Foundation
import TesseraResultsCore
import TesseraTestTraits
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The PostgreSQL server the tests run against, and helpers to work on it
/// with `psql`.
///
/// The server is `TESSERA_POSTGRES_URL` when that is set (`.ci/run` starts
/// one and sets it). Without it, under CI (the `CI` variable set), every
/// test that needs the server fails, loudly, rather than skip. Without
/// either, the first test that asks starts a private cluster with
/// `.ci/postgres start` in a temporary folder, which the test process
/// shares and stops at exit.
///
/// Each test works in a database of its own (``freshDatabase(_:)``), so the
/// tests run in parallel on one server. A test that restarts or stops the
/// server owns a ``TestCluster`` instead.
package enum TestServer {
    /// Why the server or a command on it failed.
    package struct Failure: Error, CustomStringConvertible {
        package var description: String
        package init(_ description: String) { self.description = description }
    }

    /// Where the shared server comes from, given the environment.
    package enum Source: Equatable {
        /// `TESSERA_POSTGRES_URL`.
        case url(String)
        /// CI is set and `TESSERA_POSTGRES_URL` is not: an error.
        case missingUnderCI
        /// A private cluster the test process starts.
        case privateCluster
    }

    /// Where the shared server comes from: `TESSERA_POSTGRES_URL` when it is
    /// set and not empty, else an error when `CI` is set and not empty,
    /// else a private cluster.
    package static func source(environment: [String: String]) -> Source {
        if let url = environment["TESSERA_POSTGRES_URL"], !url.isEmpty { return .url(url) }
        if let ci = environment["CI"], !ci.isEmpty { return .missingUnderCI }
        return .privateCluster
    }

    /// The URL of the shared server's `tessera` database, as its superuser.
    ///
    /// - Throws: ``Failure`` when `CI` is set without `TESSERA_POSTGRES_URL`,
    ///   when PostgreSQL is not installed (saying how to get it), or when the
    ///   private cluster does not start (with the end of its log).
    package static func url() throws -> String {
        switch source(environment: ProcessInfo.processInfo.environment) {
        case .url(let url):
            return url
        case .missingUnderCI:
            throw Failure("""
                TESSERA_POSTGRES_URL is not set, and CI is: under CI the PostgreSQL tests \
                neither start a server of their own nor skip. Run them through .ci/run, \
                which starts one, or start one with `.ci/postgres start <folder>` and \
                export TESSERA_POSTGRES_URL=<the URL it prints>.
                """)
        case .privateCluster:
            return try privateServer.get().url
        }
    }

    /// The private cluster of this test process, started on first use and
    /// stopped at exit.
    private static let privateServer: Result<Cluster, any Error> = Result {
        let cluster = try startCluster(label: "shared")
        atexit { TestServer.stopPrivateServerAtExit() }
        return cluster
    }

    /// Stops the private cluster. It runs while the process exits, so it
    /// spawns the script itself rather than go through `Process`.
    private static func stopPrivateServerAtExit() {
        guard case .success(let cluster) = privateServer else { return }
        spawnAndWait(["/usr/bin/env", "bash", script.path, "stop", cluster.folder])
    }

    // MARK: Databases

    /// Creates a database of its own for a test on the shared server and
    /// returns its URL.
    ///
    /// The name starts with `t_` and the label (letters, digits and
    /// underscores kept, lowercased), and ends with the process, a counter
    /// and a random number, so no two calls, in this process or another,
    /// share one.
    package static func freshDatabase(_ label: String) throws -> String {
        let server = try url()
        let name = uniqueDatabaseName(label)
        try createDatabase(name, on: server)
        return try url(server, database: name)
    }

    /// A database name unique to this call: at most 63 bytes, made of
    /// lowercase letters, digits and underscores.
    package static func uniqueDatabaseName(_ label: String) -> String {
        let kept = label.lowercased().unicodeScalars
            .map { ("a"..."z").contains($0) || ("0"..."9").contains($0) ? Character($0) : "_" }
        let number = databaseCounter.withLock { counter in
            counter += 1
            return counter
        }
        let random = String(UInt32.random(in: 0 ... .max), radix: 16)
        return "t_\(String(kept.prefix(28)))_\(getpid())_\(number)_\(random)"
    }

    private static let databaseCounter = PThreadMutex(0)

    /// Creates a database on the server of `serverURL`. Two `CREATE
    /// DATABASE` at once can find the template busy; the statement is
    /// tried again then, until it succeeds or for 1,200 rounds of a try
    /// and at least 100 ms (two minutes at the least: another test may hold
    /// the template for long on a busy machine). Bounded in rounds, not by
    /// a clock, so that it does not run out while this process waits for
    /// the CPU (``waitInRounds(_:sleepingEvery:until:)``).
    package static func createDatabase(_ name: String, on serverURL: String) throws {
        var busy: Failure?
        let created = try waitInRounds(1_200, sleepingEvery: .milliseconds(100)) {
            do {
                _ = try psql(serverURL, "CREATE DATABASE \"\(name)\"")
                return true
            } catch let failure as Failure where failure.description.contains("is being accessed by other users") {
                busy = failure
                return false
            }
        }
        if !created, let busy {
            throw Failure("CREATE DATABASE \(name): the template was still busy after 1,200 rounds of a try and 100 ms: \(busy.description)")
        }
    }

    /// `serverURL` with its database replaced by `database`.
    package static func url(_ serverURL: String, database: String) throws -> String {
        guard var components = URLComponents(string: serverURL) else {
            throw Failure("\(serverURL) is not a URL")
        }
        components.path = "/" + database
        guard let url = components.string else {
            throw Failure("\(serverURL) with the database \(database) is not a URL")
        }
        return url
    }

    /// `url` with its user and password replaced.
    package static func url(_ url: String, user: String) throws -> String {
        guard var components = URLComponents(string: url) else {
            throw Failure("\(url) is not a URL")
        }
        components.user = user
        components.password = nil
        guard let result = components.string else {
            throw Failure("\(url) with the user \(user) is not a URL")
        }
        return result
    }

    // MARK: psql

    /// Runs SQL (one statement or several, as a script) on the database of
    /// `url` with `psql -X -q -v ON_ERROR_STOP=1 -At`, and returns what it
    /// printed: a row a line, its columns separated by `|`, with no final
    /// newline.
    ///
    /// `psql` never prompts, reads no password file and uses `password`
    /// (nil: none) as `PGPASSWORD`.
    ///
    /// - Throws: ``Failure`` with what `psql` printed on standard error
    ///   when it fails, or when no `psql` is found.
    package static func psql(_ url: String, _ sql: String, password: String? = nil) throws -> String {
        var environment = ProcessInfo.processInfo.environment
        environment["PGPASSWORD"] = password
        // A file that does not exist: libpq reads none (and warns that
        // /dev/null is not a plain file).
        environment["PGPASSFILE"] = "/nonexistent/tessera-pgpass"
        environment["PGCONNECT_TIMEOUT"] = "20"
        // The SQL goes in a file rather than down a pipe: psql may exit
        // before it reads its input (a refused connection), and a write to
        // a pipe nobody reads raises SIGPIPE in the test process.
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("tessera-psql-\(UUID().uuidString).sql")
        try Data(sql.utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let output = try run(
            try psqlPath.get(),
            ["-X", "-q", "-v", "ON_ERROR_STOP=1", "-At", "-w", "-d", url, "-f", file.path],
            environment: environment
        )
        guard output.status == 0 else {
            throw Failure("psql on \(url) failed (status \(output.status)) running:\n\(sql)\n\(output.stderr)")
        }
        var text = output.stdout
        while text.hasSuffix("\n") { text.removeLast() }
        return text
    }

    /// The `psql` binary: in `TESSERA_POSTGRES_BIN`, else in
    /// `pg_config --bindir`, else on `PATH`.
    package static let psqlPath: Result<String, any Error> = Result {
        let environment = ProcessInfo.processInfo.environment
        let fileManager = FileManager.default
        if let folder = environment["TESSERA_POSTGRES_BIN"], !folder.isEmpty {
            let candidate = folder + "/psql"
            guard fileManager.isExecutableFile(atPath: candidate) else {
                throw Failure("TESSERA_POSTGRES_BIN=\(folder) has no psql")
            }
            return candidate
        }
        let path = (environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":").map(String.init)
        if let pgConfig = path.map({ $0 + "/pg_config" }).first(where: fileManager.isExecutableFile(atPath:)),
           let output = try? run(pgConfig, ["--bindir"], environment: environment), output.status == 0 {
            let candidate = output.stdout.trimmingCharacters(in: .whitespacesAndNewlines) + "/psql"
            if fileManager.isExecutableFile(atPath: candidate) { return candidate }
        }
        if let candidate = path.map({ $0 + "/psql" }).first(where: fileManager.isExecutableFile(atPath:)) {
            return candidate
        }
        throw Failure("""
            no psql in TESSERA_POSTGRES_BIN, `pg_config --bindir` or PATH: install PostgreSQL \
            (Debian, Ubuntu: `apt-get install postgresql`) or set TESSERA_POSTGRES_BIN to the \
            folder of its binaries
            """)
    }

    // MARK: What a test leaves behind

    /// The names of the replication slots on the server of `url`, sorted.
    package static func replicationSlots(_ url: String) throws -> [String] {
        let text = try psql(url, "SELECT slot_name FROM pg_replication_slots ORDER BY slot_name")
        return text.isEmpty ? [] : text.split(separator: "\n").map(String.init)
    }

    /// How many connections to the server of `url` (the one asking left
    /// out) have the application name `applicationName`.
    package static func activeConnections(_ url: String, applicationName: String) throws -> Int {
        let text = try psql(url, """
            SELECT count(*) FROM pg_stat_activity
            WHERE application_name = \(literal(applicationName)) AND pid <> pg_backend_pid()
            """)
        guard let count = Int(text) else { throw Failure("pg_stat_activity counted \(text)") }
        return count
    }

    /// Ends every connection to the server of `url` (the one asking left
    /// out) with the application name `applicationName`, as a lost network
    /// would, and returns how many it ended.
    @discardableResult
    package static func terminateConnections(_ url: String, applicationName: String) throws -> Int {
        // The connections are chosen first (a materialized CTE): in one
        // WHERE clause, the planner may call pg_terminate_backend before it
        // has left the asking connection out.
        let text = try psql(url, """
            WITH doomed AS MATERIALIZED (
                SELECT pid FROM pg_stat_activity
                WHERE application_name = \(literal(applicationName)) AND pid <> pg_backend_pid()
            )
            SELECT count(*) FILTER (WHERE pg_terminate_backend(pid)) FROM doomed
            """)
        guard let count = Int(text) else { throw Failure("pg_terminate_backend counted \(text)") }
        return count
    }

    /// A string as an SQL literal.
    package static func literal(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "'", with: "''") + "'"
    }

    // MARK: Clusters

    /// A cluster `.ci/postgres` started: its folder and its URL.
    package struct Cluster: Sendable {
        package let folder: String
        package let url: String
    }

    /// The package's root: the first folder above this file with
    /// Package.swift and .ci/postgres.
    package static let packageRoot: URL = {
        var folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        while folder.path != "/" {
            let manifest = folder.appendingPathComponent("Package.swift").path
            let script = folder.appendingPathComponent(".ci/postgres").path
            if FileManager.default.fileExists(atPath: manifest), FileManager.default.fileExists(atPath: script) {
                return folder
            }
            folder = folder.deletingLastPathComponent()
        }
        return URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    }()

    /// `.ci/postgres`.
    package static var script: URL { packageRoot.appendingPathComponent(".ci/postgres") }

    /// The folder the clusters' folders go in: the temporary folder, or
    /// /tmp when that path is long (a unix socket's path has at most 107
    /// bytes).
    package static let clustersFolder: String = {
        let temporary = FileManager.default.temporaryDirectory.path
        return temporary.utf8.count <= 40 ? temporary : "/tmp"
    }()

    /// The prefix of a cluster folder's name; the process that started it
    /// follows.
    package static let clusterPrefix = "tessera-postgres-"

    /// Starts a cluster with `.ci/postgres start` in a new folder.
    ///
    /// - Parameter environment: variables to set for the script, over the
    ///   process's.
    /// - Throws: ``Failure``, saying how to install PostgreSQL when the
    ///   script finds no server binaries (status 69), else with what the
    ///   script printed.
    package static func startCluster(label: String, environment: [String: String] = [:]) throws -> Cluster {
        _ = sweptAbandonedClusters
        let kept = String(label.unicodeScalars
            .map { CharacterSet.alphanumerics.contains($0) && $0.isASCII ? Character($0) : "-" }
            .prefix(20))
        let random = String(UInt32.random(in: 0 ... .max), radix: 16)
        let folder = "\(clustersFolder)/\(clusterPrefix)\(getpid())-\(kept)-\(random)"
        let output = try runScript(["start", folder], environment: environment)
        if output.status == 69 {
            throw Failure("""
                PostgreSQL is not installed here: the tests need its server (initdb, postgres) \
                and psql. Install it (Debian, Ubuntu: `apt-get install postgresql`), or set \
                TESSERA_POSTGRES_URL to the URL of a server where the `postgres` role is a \
                superuser and wal_level is logical. .ci/postgres said: \(output.stderr)
                """)
        }
        let url = output.stdout.split(separator: "\n").last.map(String.init) ?? ""
        guard output.status == 0, url.hasPrefix("postgres://") else {
            _ = try? runScript(["stop", folder])
            throw Failure("""
                `.ci/postgres start \(folder)` failed (status \(output.status)):
                \(output.stderr)\(output.stdout)
                """)
        }
        return Cluster(folder: folder, url: url)
    }

    /// Runs `.ci/postgres` with arguments.
    package static func runScript(_ arguments: [String], environment: [String: String] = [:]) throws -> Output {
        let merged = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        return try run("/usr/bin/env", ["bash", script.path] + arguments, environment: merged)
    }

    /// Runs `.ci/postgres` and throws with what it printed when it fails.
    package static func runScriptOrThrow(_ arguments: [String]) throws {
        let output = try runScript(arguments)
        guard output.status == 0 else {
            throw Failure("`.ci/postgres \(arguments.joined(separator: " "))` failed (status \(output.status)):\n\(output.stderr)")
        }
    }

    /// Stops, once per process, the clusters a test process left behind
    /// when it died before its exit handlers ran: the folders whose process
    /// no longer exists.
    private static let sweptAbandonedClusters: Void = {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: clustersFolder) else { return }
        for name in names where name.hasPrefix(clusterPrefix) {
            let rest = name.dropFirst(clusterPrefix.count)
            guard let pid = rest.split(separator: "-").first.flatMap({ pid_t($0) }), pid != getpid() else { continue }
            if kill(pid, 0) == -1 && errno == ESRCH {
                _ = try? runScript(["stop", "\(clustersFolder)/\(name)"])
            }
        }
    }()

    // MARK: Processes

    /// What a process printed and how it ended.
    package struct Output {
        package var status: Int32
        package var stdout: String
        package var stderr: String
    }

    /// Runs an executable with arguments (its standard input empty) and
    /// waits (at most `timeout` seconds) for it to exit.
    package static func run(
        _ executable: String,
        _ arguments: [String],
        environment: [String: String],
        timeout: Double = 300
    ) throws -> Output {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.environment = environment
        let outPipe = Pipe(), errPipe = Pipe()
        process.standardOutput = outPipe
        process.standardError = errPipe
        process.standardInput = FileHandle.nullDevice
        return try runToEnd(process, out: outPipe, err: errPipe, timeout: timeout, name: "\(executable) \(arguments.joined(separator: " "))")
    }

    /// Starts `process`, whose standard output and error go to `out` and
    /// `err`, and waits (at most `timeout` seconds, a hang guard of the
    /// child process only, its clock started with it) for it to exit;
    /// `name` says which process timed out.
    package static func runToEnd(_ process: Process, out outPipe: Pipe, err errPipe: Pipe, timeout: Double, name: String) throws -> Output {
        try process.run()
        // Each pipe is read to its end on its own thread, so neither fills up
        // while the other is read, and nothing is lost to a busy machine.
        // Threads of their own, not dispatch's global queue: on Linux its
        // threads are the ones Swift concurrency's jobs run on, and a read
        // that waits for a child process to end would hold one of them
        // (the suite's pool then starved while several children ran).
        let output = PThreadMutex((out: Data(), err: Data()))
        let group = DispatchGroup()
        for (handle, isOut) in [(outPipe.fileHandleForReading, true), (errPipe.fileHandleForReading, false)] {
            group.enter()
            Thread.detachNewThread {
                let data = handle.readDataToEndOfFile()
                output.withLock { if isOut { $0.out = data } else { $0.err = data } }
                group.leave()
            }
        }
        if group.wait(timeout: .now() + timeout) == .timedOut {
            process.terminate()
            throw Failure("\(name) did not exit within \(timeout) s")
        }
        let ended = try process.exit(within: timeout)
        let (out, err) = output.withLock { ($0.out, $0.err) }
        return Output(
            status: ended.shellStatus,
            stdout: String(decoding: out, as: UTF8.self),
            stderr: String(decoding: err, as: UTF8.self)
        )
    }

    /// Runs a command found on PATH and waits for it, with posix_spawn,
    /// which is safe while the process exits; its output is dropped.
    private static func spawnAndWait(_ arguments: [String]) {
        let argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        closeInheritedDescriptors(&actions, from: 3)
        var pid: pid_t = 0
        guard posix_spawnp(&pid, arguments[0], &actions, nil, argv, environ) == 0 else { return }
        // At most 300 s (a hang guard of the child only), then it is killed.
        let deadline = ContinuousClock.now + .seconds(300)
        var status: Int32 = 0
        while true {
            let reaped = waitpid(pid, &status, WNOHANG)
            if reaped == pid || (reaped == -1 && errno != EINTR) { return }
            if ContinuousClock.now >= deadline {
                kill(pid, SIGKILL)
                while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
                return
            }
            usleep(10_000)
        }
    }
}

/// A private PostgreSQL cluster one test owns, for a test that restarts,
/// halts or stops the server. It stops, and its folder goes, when it is
/// stopped or released.
package final class TestCluster: Sendable {
    /// The folder that holds its data, log and socket.
    package let folder: String

    /// The URL of its `tessera` database, as its superuser `postgres`.
    package let url: String

    /// Whether ``stop()`` has run.
    private let stopped = PThreadMutex(false)

    /// Starts a cluster with `.ci/postgres start`.
    ///
    /// - Parameter label: a word for the folder's name.
    /// - Throws: ``TestServer/Failure`` when it does not start.
    package init(label: String) throws {
        let cluster = try TestServer.startCluster(label: label)
        folder = cluster.folder
        url = cluster.url
    }

    deinit { stop() }

    /// The URL of one of its databases, as its superuser.
    package func url(database: String) -> String {
        // `url` is what .ci/postgres printed: postgres://postgres@127.0.0.1:PORT/tessera.
        let server = url[..<(url.lastIndex(of: "/") ?? url.endIndex)]
        return server + "/" + database
    }

    /// Creates a database of its own for a test and returns its URL.
    package func freshDatabase(_ label: String) throws -> String {
        let name = TestServer.uniqueDatabaseName(label)
        try TestServer.createDatabase(name, on: url)
        return url(database: name)
    }

    /// Stops the server (fast mode: connections end at once) and starts it
    /// again on the same port.
    package func restart() throws {
        try TestServer.runScriptOrThrow(["restart", folder])
    }

    /// Stops the server and keeps its data, until ``resume()``.
    ///
    /// - Parameter immediately: stop as a crash would (no shutdown
    ///   checkpoint; the next start recovers) rather than in fast mode.
    package func halt(immediately: Bool = false) throws {
        try TestServer.runScriptOrThrow(immediately ? ["halt", "--immediate", folder] : ["halt", folder])
    }

    /// Starts a halted server again on the same port.
    package func resume() throws {
        try TestServer.runScriptOrThrow(["resume", folder])
    }

    /// Stops the server and removes its folder. Calling it again does
    /// nothing.
    package func stop() {
        let first = stopped.withLock { stopped in
            defer { stopped = true }
            return !stopped
        }
        if first { _ = try? TestServer.runScript(["stop", folder]) }
    }
}
