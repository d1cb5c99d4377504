// Several app processes following one list while one writer commits at a
// steady rate: every process must report every commit; the latency from
// each commit's start to its report, per process.
//
//   PostgresFollowLoad [--followers 3] [--rate 100] [--seconds 10] [--rows 1000000]
//                      [--synchronous-commit on|off]
//
// The coordinator makes a database with the `photo` fixture (on
// TESSERA_POSTGRES_URL, or a private cluster it starts with .ci/postgres),
// starts the followers (this executable with `follow <url>`: a
// PostgresStore and a FetchedResultsController at home on an actor, whose
// consumer of `controller.reports` prints one line per report: the
// monotonic time and the id:rank of every row the report moved, updated or
// inserted), then commits `rate` one-row updates a second for `seconds`
// seconds, each to a row of its own with a new rank, from one session. It
// waits (at most 30 s) until every follower has reported every commit,
// closes their standard input (they exit), prints the figures, drops the
// database and stops the cluster. It exits with status 1 when a follower
// missed a commit. Every wait is bounded: the followers exit by themselves
// after 10 minutes.

import BenchmarkSupport
import Foundation
import PostgresBenchmarkSupport
import TesseraPostgres
import TesseraResults


/// Writes a line to standard output at once.
func emit(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

// MARK: The follower

actor Follower {
    let store: PostgresStore
    private var controller: FetchedResultsController<Photo>?
    private var consumer: Task<Void, Never>?

    init(url: String) throws {
        store = try PostgresStore(url: url, applicationName: "tessera-follow-load")
    }

    func start() throws -> Int {
        let controller = try FetchedResultsController<Photo>(store: store, request: photoRequest)
        try controller.performFetch()
        self.controller = controller
        let reports = controller.reports
        consumer = Task {
            for await report in reports { self.print(report) }
        }
        return controller.result.count
    }

    private func print(_ report: ChangeReport<Photo>) {
        let time = monotonicNanoseconds()
        let changes = report.changeset
        let places = changes.itemMoves.map(\.to) + changes.itemUpdates.map(\.to) + changes.itemInserts
        let rows = places.map { report.new[$0] }.map { "\($0.id):\($0.rank)" }
        emit("report \(time) \(rows.joined(separator: ","))")
    }
}

func follow(_ url: String) async {
    // Bounded: gone after 10 minutes whatever happens.
    DispatchQueue.global().asyncAfter(deadline: .now() + 600) { exit(3) }
    // The coordinator closes standard input when it is done.
    Thread.detachNewThread {
        _ = FileHandle.standardInput.readDataToEndOfFile()
        exit(0)
    }
    do {
        let follower = try Follower(url: url)
        let count = try await follower.start()
        emit("ready \(count)")
        while true { try await Task.sleep(for: .seconds(3600)) }
    } catch {
        emit("error \(error)")
        exit(2)
    }
}

// MARK: The coordinator

/// A follower process and what it printed.
final class FollowerProcess: @unchecked Sendable {
    let index: Int
    let process = Process()
    let input = Pipe()
    let output = Pipe()
    private let lock = NSLock()
    private var ready = false
    private var failure: String?
    /// The first time each id:rank was reported.
    private var reported: [String: UInt64] = [:]
    private var reportCount = 0

    init(index: Int, url: String) throws {
        self.index = index
        process.executableURL = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        process.arguments = ["follow", url]
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        Thread.detachNewThread { [self] in readLines() }
    }

    private func readLines() {
        var buffer = Data()
        let handle = output.fileHandleForReading
        while true {
            let chunk = handle.availableData
            if chunk.isEmpty { break }
            buffer.append(chunk)
            while let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: buffer[buffer.startIndex ..< newline], as: UTF8.self)
                buffer.removeSubrange(buffer.startIndex ... newline)
                take(line)
            }
        }
    }

    private func take(_ line: String) {
        let fields = line.split(separator: " ", maxSplits: 2).map(String.init)
        lock.withLock {
            switch fields.first {
            case "ready": ready = true
            case "report":
                reportCount += 1
                guard fields.count == 3, let time = UInt64(fields[1]) else { return }
                for row in fields[2].split(separator: ",") where reported[String(row)] == nil {
                    reported[String(row)] = time
                }
            default: failure = line
            }
        }
    }

    var isReady: Bool { lock.withLock { ready } }
    var error: String? { lock.withLock { failure } }
    var reports: Int { lock.withLock { reportCount } }
    func reportTime(_ key: String) -> UInt64? { lock.withLock { reported[key] } }

    func finish() {
        try? input.fileHandleForWriting.close()
        let deadline = Date().addingTimeInterval(10)
        while process.isRunning, Date() < deadline { usleep(10_000) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    }
}

struct Options {
    var followers = 3
    var rate = 100
    var seconds = 10
    var rows = PhotoFixture.rowCount
    /// The fixture database's `synchronous_commit` (see
    /// `BenchServer.makeDatabase`).
    var synchronousCommit = "on"

    init(_ arguments: [String]) throws {
        var rest = arguments[...]
        while let name = rest.popFirst() {
            if name == "--synchronous-commit" {
                guard let value = rest.popFirst(), value == "on" || value == "off" else { throw BenchError("--synchronous-commit needs on or off") }
                synchronousCommit = value
                continue
            }
            guard let text = rest.popFirst(), let value = Int(text), value > 0 else { throw BenchError("\(name) needs a positive number") }
            switch name {
            case "--followers": followers = value
            case "--rate": rate = value
            case "--seconds": seconds = value
            case "--rows": rows = value
            default: throw BenchError("unknown option \(name)")
            }
        }
        guard rate * seconds < rows else { throw BenchError("more commits than rows") }
    }
}

func coordinate(_ options: Options) async throws -> Bool {
    let server = BenchServer.shared
    let url = try await server.makeDatabase("follow", synchronousCommit: options.synchronousCommit)
    defer { server.stop() }
    do {
        try await PhotoFixture.load(url, rows: options.rows)
        let ok = try await run(options, url: url)
        try await server.dropDatabase(url)
        return ok
    } catch {
        try? await server.dropDatabase(url)
        throw error
    }
}

func run(_ options: Options, url: String) async throws -> Bool {
    emit("fixture: \(options.rows) rows; \(options.followers) followers; \(options.rate) commits/s for \(options.seconds) s; synchronous_commit \(options.synchronousCommit)")
    let followers = try (0 ..< options.followers).map { try FollowerProcess(index: $0, url: url) }
    defer { for follower in followers { follower.finish() } }
    let readyBy = Date().addingTimeInterval(180)
    while !followers.allSatisfy(\.isReady) {
        if let failed = followers.first(where: { $0.error != nil }) { throw BenchError("follower \(failed.index): \(failed.error!)") }
        guard Date() < readyBy, followers.allSatisfy(\.process.isRunning) else { throw BenchError("the followers did not all fetch") }
        try await Task.sleep(for: .milliseconds(50))
    }
    emit("followers ready")

    // The commits: row `1 + k·7919 mod rows` (all different) gets a rank
    // no row has.
    let writer = try await BenchConnection.connect(url)
    let count = options.rate * options.seconds
    var commits: [(key: String, start: UInt64)] = []
    commits.reserveCapacity(count)
    var random = SplitMix64(seed: 0xF0110)
    let interval = 1_000_000_000 / UInt64(options.rate)
    let begin = monotonicNanoseconds()
    var late = 0
    for k in 0 ..< count {
        let due = begin + UInt64(k) * interval
        let now = monotonicNanoseconds()
        if now < due { try await Task.sleep(for: .nanoseconds(Int(due - now))) } else if now > due + interval { late += 1 }
        let id = 1 + (k * 7919) % options.rows
        let rank = 2_000_000 + Int(random.next() % 2_000_000_000)
        let start = monotonicNanoseconds()
        try await writer.execute("UPDATE photo SET rank = \(rank) WHERE id = \(id)")
        commits.append(("\(id):\(rank)", start))
    }
    let writeSeconds = Double(monotonicNanoseconds() - begin) / 1e9
    await writer.close()
    emit(String(format: "writer: %d commits in %.2f s (%d started more than one interval late)", count, writeSeconds, late))

    let settleBy = Date().addingTimeInterval(30)
    func missing(_ follower: FollowerProcess) -> Int { commits.count { follower.reportTime($0.key) == nil } }
    while followers.contains(where: { missing($0) > 0 }), Date() < settleBy {
        try await Task.sleep(for: .milliseconds(50))
    }

    var ok = true
    for follower in followers {
        let latencies = commits.compactMap { commit in follower.reportTime(commit.key).map { Double($0 &- commit.start) / 1e6 } }.sorted()
        let lost = commits.count - latencies.count
        if lost > 0 || follower.error != nil { ok = false }
        emit(String(
            format: "follower %d: %d/%d commits reported in %d reports, write start to report p50 %.2f ms, p90 %.2f ms, p99 %.2f ms, max %.2f ms%@",
            follower.index, latencies.count, commits.count, follower.reports,
            percentile(latencies, 50), percentile(latencies, 90), percentile(latencies, 99), latencies.last ?? .nan,
            (follower.error.map { "; error: \($0)" } ?? "") as NSString
        ))
    }
    return ok
}

let arguments = Array(CommandLine.arguments.dropFirst())
if arguments.first == "follow", arguments.count == 2 {
    await follow(arguments[1])
} else {
    do {
        let ok = try await coordinate(try Options(arguments))
        emit(ok ? "every follower reported every commit" : "FAILED: a follower missed commits")
        exit(ok ? 0 : 1)
    } catch {
        emit("error: \(error)")
        exit(2)
    }
}
