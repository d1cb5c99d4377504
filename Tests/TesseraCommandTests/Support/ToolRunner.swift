import Foundation
import TesseraPostgresTestSupport
import TesseraSQLite
import TesseraTestTraits

/// Runs the built `tessera` executable and collects what it prints.
enum Tool {
    /// The package's root folder.
    static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The fixtures folder.
    static let fixtures = packageRoot.appendingPathComponent("Tests/TesseraCommandTests/Fixtures")

    /// The executable: next to the test binary (the test target depends on
    /// it, so `swift build --build-tests` and `swift test` build it first).
    static let executable: URL = {
        let testBinary = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        var folder = testBinary.deletingLastPathComponent()
        // Inside an .xctest bundle on some platforms: climb out of it.
        while folder.path != "/" {
            let candidate = folder.appendingPathComponent("tessera")
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: candidate.path, isDirectory: &isDirectory), !isDirectory.boolValue {
                return candidate
            }
            if folder.lastPathComponent == ".build" { break }
            folder = folder.deletingLastPathComponent()
        }
        return packageRoot.appendingPathComponent(".build/debug/tessera")
    }()

    /// What a run printed and how it ended.
    struct Result {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    /// Runs `tessera` with arguments in a folder and waits (at most
    /// `timeout` seconds, a hang guard of the child process only, its clock
    /// started with the child) for it to exit.
    ///
    /// The limit is far above any run's time: a debug `tessera bench diff`
    /// over a 12 MB script needs about 10 s of CPU, and took 120 s of wall
    /// time on a 2-core machine running two CPU hogs, two builds and the
    /// suite's other processes beside it (a run there failed on a limit of
    /// 120 s).
    static func run(_ arguments: [String], in folder: URL? = nil, timeout: Double = 900) throws -> Result {
        let (process, outPipe, errPipe) = try makeProcess(arguments, in: folder)
        let output = try TestServer.runToEnd(process, out: outPipe, err: errPipe, timeout: timeout, name: "tessera \(arguments.joined(separator: " "))")
        return Result(status: output.status, stdout: output.stdout, stderr: output.stderr)
    }

    /// A process for `tessera` with its output and error on pipes, not
    /// started.
    static func makeProcess(_ arguments: [String], in folder: URL?, executable: URL = executable) throws -> (Process, Pipe, Pipe) {
        guard FileManager.default.isExecutableFile(atPath: executable.path) else {
            throw ToolError("no tessera executable at \(executable.path): run `swift build --build-tests` first")
        }
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        if let folder { process.currentDirectoryURL = folder }
        let outPipe = Pipe(), errPipe = Pipe()
        process.standardOutput = outPipe
        process.standardError = errPipe
        return (process, outPipe, errPipe)
    }

    /// Starts `tessera` without waiting.
    static func start(_ arguments: [String], in folder: URL? = nil) throws -> RunningTool {
        try RunningTool(executable: executable, arguments: arguments, folder: folder)
    }

    /// A fresh temporary folder.
    static func temporaryFolder() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("tessera-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }
}

struct ToolError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// A running `tessera` whose output is read as it comes.
final class RunningTool: Sendable {
    let process: Process
    private let out: Output
    private let err: Output

    /// What a pipe delivered, and whether it reached its end.
    ///
    /// Guarded by an `NSLock` (pthreads), which ThreadSanitizer sees, rather
    /// than `Mutex`, whose futex it does not: it reported the pipe's reader
    /// and the test's read of the same data as a race.
    final class Output: @unchecked Sendable {
        private let lock = NSLock()
        private var collected = Data()
        private var ended = false
        /// Whether a read by the readability handler is under way (taken
        /// from the pipe, not yet collected), and whether the test reads
        /// the rest itself.
        private var reading = false, takenOver = false
        /// The pipe's read end.
        let descriptor: Int32

        init(_ pipe: Pipe) { descriptor = pipe.fileHandleForReading.fileDescriptor }

        func read(_ handle: FileHandle) {
            guard lock.withLock({ () -> Bool in
                if takenOver || ended { return false }
                reading = true
                return true
            }) else {
                handle.readabilityHandler = nil
                return
            }
            let chunk = handle.availableData
            lock.withLock {
                if chunk.isEmpty { ended = true } else { collected.append(chunk) }
                reading = false
            }
            if chunk.isEmpty { handle.readabilityHandler = nil }
        }

        func text(waitingForEOF: Bool) -> String {
            if waitingForEOF {
                // The process has exited: everything it wrote is collected
                // or still in the pipe. The readability handler does not
                // always see the pipe's end (under load it was seen to miss
                // it for minutes), so the test reads the rest itself, once
                // no read of the handler is under way: what the pipe holds,
                // up to its end, or until it holds nothing more (a copy of
                // its write side may be open elsewhere). The handler's read
                // under way is waited for 24,000 rounds of at least 5 ms
                // (bounded in rounds, not by a clock).
                waitInRounds(24_000, sleepingEvery: .milliseconds(5)) {
                    lock.withLock { () -> Bool in
                        if ended { return true }
                        if reading { return false }
                        takenOver = true
                        return true
                    }
                }
                var buffer = [UInt8](repeating: 0, count: 65_536)
                while lock.withLock({ takenOver && !ended }) {
                    var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
                    guard poll(&poller, 1, 0) == 1 else { break }
                    let count = buffer.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
                    if count < 0 && errno == EINTR { continue }
                    lock.withLock {
                        if count > 0 { collected.append(contentsOf: buffer[..<count]) } else { ended = true }
                    }
                }
            }
            return lock.withLock { String(decoding: collected, as: UTF8.self) }
        }
    }

    init(executable: URL, arguments: [String], folder: URL?) throws {
        let (process, outPipe, errPipe) = try Tool.makeProcess(arguments, in: folder, executable: executable)
        self.process = process
        out = Output(outPipe)
        err = Output(errPipe)
        outPipe.fileHandleForReading.readabilityHandler = { [out] handle in out.read(handle) }
        errPipe.fileHandleForReading.readabilityHandler = { [err] handle in err.read(handle) }
        try process.run()
    }

    func stdout(waitingForEOF: Bool = false) -> String { out.text(waitingForEOF: waitingForEOF) }

    func stderr(waitingForEOF: Bool = false) -> String { err.text(waitingForEOF: waitingForEOF) }

    /// Waits until standard output has at least `count` lines, or the
    /// process has exited, for at most `rounds` rounds of at least 10 ms
    /// (12,000 by default, two minutes at the least: generous for a
    /// sanitizer build on a busy machine, and free when the lines come;
    /// bounded in rounds, not by a clock).
    func waitForLines(_ count: Int, rounds: Int = 12_000) throws -> [String] {
        var lines: [String] = []
        waitInRounds(rounds, sleepingEvery: .milliseconds(10)) {
            lines = stdout().split(separator: "\n", omittingEmptySubsequences: true).map(String.init)
            return lines.count >= count || !process.isRunning
        }
        if lines.count >= count { return lines }
        throw ToolError("expected \(count) lines within \(rounds) rounds of 10 ms (or before tessera exited); got:\n\(stdout())\nstandard error:\n\(stderr())")
    }
}
