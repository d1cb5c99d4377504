import Foundation
import TesseraRender
import TesseraResultsCore
import TesseraSQLite
import TesseraTestTraits
import Testing

/// `tessera serve`, run as a process: what it prints, its errors, and its
/// stop.
@Suite("Command serve", .tags(.process), .ownThreads)
struct CommandServeTests {
    @Test("serve with no database seeds the demo, prints the address, serves the page and stops on SIGINT with 0, as watch")
    func demo() async throws {
        let folder = try ServerTestSupport.temporaryFolder()
        let serve = try ServeProcess(["serve", "--port", "0", "--photos", "300"], temporaryFolder: folder)
        defer { serve.kill() }
        let lines = try await serve.waitForLines(2)
        #expect(lines[0].hasPrefix("serving photo of \(folder.path)/tessera-serve/photos.sqlite (the demo library: 300 photos)"), "\(lines)")
        let port = try #require(serve.port(), "\(lines)")
        #expect(lines.count == 2 && lines[1] == "address: http://127.0.0.1:\(port)/", "\(lines)")
        let page = try await ServerTestSupport.blocking { try RawClient(port: port).get("/", host: "127.0.0.1:\(port)") }
        #expect(page.status == 200)
        #expect(page.headers["content-type"]?.hasPrefix("text/html") == true)
        let database = folder.appendingPathComponent("tessera-serve/photos.sqlite").path
        let (snapshot, plan, metrics) = try await ServerTestSupport.blocking {
            let client = try RawClient(port: port)
            _ = try client.upgrade(host: "127.0.0.1:\(port)", origin: "http://127.0.0.1:\(port)")
            try client.sendText(#"{"type":"hello","layout":"flow","viewport":[0,0,800,600]}"#)
            let snapshot = try client.readMessage(ofType: "snapshot")
            // Another process commits: the client gets the plan.
            try ServerTestSupport.sqlite3(database, "DELETE FROM photo WHERE id = (SELECT id FROM photo ORDER BY album, position LIMIT 1)")
            let plan = try client.readMessage(ofType: "plan")
            // The metrics count the client and the change.
            return (snapshot, plan, try RawClient(port: port).get("/metrics", host: "127.0.0.1:\(port)"))
        }
        #expect(metrics.status == 200 && metrics.headers["content-type"] == "text/plain; version=0.0.4; charset=utf-8")
        let samples = try HubMetricsTests.samples(metrics.body)
        #expect(samples["tessera_live_clients"] == 1 && samples["tessera_live_changes_total"] == 1, "\(metrics.body)")
        #expect(snapshot["editable"] == .bool(true))
        #expect(plan["fromSeq"] == .int(0) && plan["seq"] == .int(1), "\(plan.compactText)")
        let deleted = plan["elements"].flatMap { elements -> [JSON]? in
            guard case let .array(elements) = elements else { return nil }
            return elements.filter { $0["disposition"] == .string("deleted") }
        }
        #expect(deleted?.count == 1, "\(plan.compactText)")
        let (status, _, stderr) = try await serve.stop(signal: SIGINT)
        #expect(status == 0)
        #expect(stderr == "tessera: stopped serving\n")
    }

    @Test("serve DATABASE on 0.0.0.0 prints a token; SIGTERM stops it with 0")
    func databaseWithToken() async throws {
        let configuration = try ServerTestSupport.library(photos: 100)
        let serve = try ServeProcess([
            "serve", configuration.databasePath, "--table", "photo", "--section", "album", "--sort", "taken:desc",
            "--title", "title", "--order", "position", "--host", "0.0.0.0", "--port", "0",
        ])
        defer { serve.kill() }
        let lines = try await serve.waitForLines(3)
        let port = try #require(serve.port(), "\(lines)")
        #expect(lines[0] == "serving photo of \(configuration.databasePath), sectioned by album, sorted by taken (descending)")
        #expect(lines[1] == "address: http://0.0.0.0:\(port)/ (read only without the token)")
        let token = String(lines[2].dropFirst("token: ".count).prefix(32))
        #expect(token.count == 32 && token.allSatisfy(\.isHexDigit), "\(lines[2])")
        #expect(lines[2] == "token: \(token) (to edit, open http://0.0.0.0:\(port)/?token=\(token))")
        let (status, _, _) = try await serve.stop(signal: SIGTERM)
        #expect(status == 0)
    }

    @Test("bad usage: status 64 and one line")
    func usage() async throws {
        let database = try ServerTestSupport.library(photos: 10).databasePath
        let cases: [([String], String)] = [
            (["serve", "--port", "70000"], "--port 70000: the port must be from 0 to 65535"),
            (["serve", "--port", "-1"], "--port -1: the port must be from 0 to 65535"),
            (["serve", "--photos", "0"], "--photos 0: the number of photos must be from 1 to 1000000"),
            (["serve", "--table", "photo"], "--table applies to a DATABASE: without one, serve shows the demo library"),
            (["serve", database, "--photos", "10"], "--photos applies to the demo library: with a DATABASE, serve shows its --table"),
            (["serve", database, "--table", "photo"], "serve DATABASE needs --table, --sort and --title: missing --sort, --title"),
            (["serve", database, "--table", "photo", "--sort", "taken:up", "--title", "title"], "--sort \"taken:up\": the order must be asc or desc, not up"),
            (["serve", database, "--table", "photo", "--sort", "a b c", "--title", "title"], "--sort \"a b c\": expected \"column\", \"column:desc\" or \"column desc\""),
            (["serve", "--host", ""], "--host: expected an address, such as 127.0.0.1 or 0.0.0.0"),
            (["serve", "--max-clients", "0"], "--max-clients 0: the number of clients must be from 1 to 1000000"),
            (["serve", "--max-clients", "1000001"], "--max-clients 1000001: the number of clients must be from 1 to 1000000"),
            (["serve", "--colour", "red"], "unknown option '--colour'"),
            (["serve", "--log-level", "loud"], "--log-level loud: expected one of trace, debug, info, notice, warning, error, critical"),
        ]
        for (arguments, message) in cases {
            let result = try await ServeProcess.run(arguments)
            #expect(result.status == 64, "\(arguments): \(result.stderr)")
            #expect(result.stderr == "tessera: error: \(message)\n", "\(arguments)")
            #expect(result.stdout.isEmpty, "\(arguments)")
        }
    }

    @Test("a missing database is status 2; a port in use is status 1")
    func failures() async throws {
        let missing = try ServerTestSupport.temporaryFolder().appendingPathComponent("none.sqlite").path
        let result = try await ServeProcess.run(["serve", missing, "--table", "photo", "--sort", "id", "--title", "title"])
        #expect(result.status == 2)
        #expect(result.stderr == "tessera: error: \(missing): no such database file\n")

        try await ServerTestSupport.withServer { _, port in
            let result = try await ServeProcess.run(["serve", "--port", "\(port)", "--photos", "10"], temporaryFolder: try ServerTestSupport.temporaryFolder())
            #expect(result.status == 1)
            #expect(result.stderr.hasPrefix("tessera: error: cannot listen on 127.0.0.1:\(port): "), "\(result.stderr)")
            #expect(result.stderr.filter { $0 == "\n" }.count == 1)
        }
    }

    @Test("a table or column the database lacks is status 2, one line naming it")
    func missingTable() async throws {
        let database = try ServerTestSupport.library(photos: 10).databasePath
        let table = try await ServeProcess.run(["serve", database, "--table", "nothing", "--sort", "id", "--title", "title"])
        #expect(table.status == 2, "\(table.stderr)")
        #expect(table.stderr.hasPrefix("tessera: error: no such table: nothing in \(database)"), "\(table.stderr)")
        #expect(table.stderr.filter { $0 == "\n" }.count == 1)
        let columns = "(its columns: id, album, title, taken, position)"
        for (option, arguments) in [
            ("--sort", ["--sort", "nope", "--title", "title"]),
            ("--title", ["--sort", "id", "--title", "nope"]),
            ("--section", ["--sort", "id", "--title", "title", "--section", "nope"]),
            ("--order", ["--sort", "id", "--title", "title", "--order", "nope"]),
        ] {
            let result = try await ServeProcess.run(["serve", database, "--table", "photo"] + arguments)
            #expect(result.status == 2, "\(option): \(result.stderr)")
            #expect(result.stderr == "tessera: error: \(option): no such column: nope in table photo of \(database) \(columns)\n")
        }
    }

    @Test("help lists every option")
    func help() async throws {
        let result = try await ServeProcess.run(["serve", "--help"])
        #expect(result.status == 0)
        for option in ["--table", "--section", "--sort", "--title", "--order", "--host", "--port", "--photos", "token", "1009", "status 0"] {
            #expect(result.stdout.contains(option), "help lacks \(option)")
        }
    }

    // Here, not beside the other help tests in TesseraCommandTests: the
    // sanitizer builds leave `serve` out, and this target with it.
    @Test("help serve says each option's default once")
    func serveDefaultsOnce() async throws {
        let result = try await ServeProcess.run(["help", "serve"])
        #expect(result.status == 0, "\(result.stderr)")
        let text = result.stdout.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        let options = try #require(text.range(of: "OPTIONS:"))
        let entry = try #require(text.range(of: "--max-clients <max-clients>", range: options.upperBound..<text.endIndex))
        let next = try #require(text.range(of: "--photos <photos>", range: entry.upperBound..<text.endIndex))
        let maxClients = text[entry.upperBound..<next.lowerBound]
        #expect(maxClients.components(separatedBy: "default").count == 2, "\(maxClients)")
    }
}

/// A running `tessera` (the build's, next to the test binary) whose output
/// is read as it comes.
final class ServeProcess: Sendable {
    let process: Process
    /// What a pipe delivered, and whether it reached its end.
    final class Output: Sendable {
        let state = PThreadMutex((data: Data(), ended: false))

        /// Reads the pipe to its end, on a thread of its own.
        func start(_ handle: FileHandle) {
            Thread.detachNewThread { [self] in
                while true {
                    let chunk = handle.availableData
                    if chunk.isEmpty { break }
                    state.withLock { $0.data.append(chunk) }
                }
                state.withLock { $0.ended = true }
            }
        }

        var text: String { state.withLock { String(decoding: $0.data, as: UTF8.self) } }
        var ended: Bool { state.withLock { $0.ended } }
    }

    private let out = Output()
    private let err = Output()

    /// The built `tessera` (see ``LiveServer/executable``).
    static var executable: URL { LiveServer.executable }

    /// Starts `tessera` with the arguments; `temporaryFolder` is its
    /// TMPDIR (where the demo library goes).
    init(_ arguments: [String], temporaryFolder: URL? = nil) throws {
        process = Process()
        process.executableURL = Self.executable
        process.arguments = arguments
        var environment = ProcessInfo.processInfo.environment
        environment["TMPDIR"] = try (temporaryFolder ?? ServerTestSupport.temporaryFolder()).path
        process.environment = environment
        let outPipe = Pipe(), errPipe = Pipe()
        process.standardOutput = outPipe
        process.standardError = errPipe
        process.standardInput = FileHandle.nullDevice
        try process.run()
        out.start(outPipe.fileHandleForReading)
        err.start(errPipe.fileHandleForReading)
    }

    var stdout: String { out.text }
    var stderr: String { err.text }

    /// Waits (12,000 rounds of at least 10 ms: generous for a sanitizer
    /// build on a busy machine; bounded in rounds, not by a clock) for
    /// `count` lines on standard output.
    func waitForLines(_ count: Int) async throws -> [String] {
        var lines: [String] = []
        try await waitInRounds(12_000, every: .milliseconds(10)) {
            lines = stdout.split(separator: "\n").map(String.init)
            return lines.count >= count || !process.isRunning
        }
        if lines.count >= count { return lines }
        throw ServerTestError("expected \(count) lines within 12,000 rounds of 10 ms (or before tessera exited); got \(stdout), standard error: \(stderr)")
    }

    /// The port of the printed address.
    func port() -> Int? {
        guard let line = stdout.split(separator: "\n").first(where: { $0.hasPrefix("address: ") }),
              let colon = line.dropFirst("address: http://".count).lastIndex(of: ":") else { return nil }
        return Int(line[line.index(after: colon)...].prefix(while: \.isNumber))
    }

    /// Sends a signal and waits (at most 120 s) for the exit; the status and
    /// the output.
    func stop(signal: Int32) async throws -> (Int32, String, String) {
        Glibc.kill(process.processIdentifier, signal)
        return try await waitForExit()
    }

    /// Waits for the exit (at most 120 s, a hang guard of the child
    /// process only) and the end of its output (12,000 rounds of at least
    /// 10 ms, bounded in rounds, not by a clock); the status and the
    /// output.
    func waitForExit() async throws -> (Int32, String, String) {
        let ended = try await process.exit(within: 120)
        // The last output may still be on its way through the pipes.
        try await waitInRounds(12_000, every: .milliseconds(10)) { out.ended && err.ended }
        return (ended.shellStatus, stdout, stderr)
    }

    /// Ends the process if it still runs.
    func kill() {
        if process.isRunning { Glibc.kill(process.processIdentifier, SIGKILL) }
    }

    /// Runs `tessera` to its end.
    static func run(_ arguments: [String], temporaryFolder: URL? = nil) async throws -> (status: Int32, stdout: String, stderr: String) {
        let running = try ServeProcess(arguments, temporaryFolder: temporaryFolder)
        defer { running.kill() }
        let (status, stdout, stderr) = try await running.waitForExit()
        return (status, stdout, stderr)
    }
}
