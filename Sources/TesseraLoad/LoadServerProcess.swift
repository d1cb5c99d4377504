import Foundation
import TesseraResultsCore
import TesseraSQLite

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A process's CPU time and memory, read from `/proc` (Linux).
package struct LoadProcessSample: Sendable, Equatable {
    /// User plus system CPU time, in seconds.
    package var cpuSeconds: Double
    /// Resident memory (`VmRSS`), in bytes.
    package var residentBytes: Int

    /// Reads process `pid`'s sample; `nil` when `/proc` does not have it.
    ///
    /// - Complexity: O(1) (two small files read).
    package static func read(pid: Int32) -> LoadProcessSample? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
              let cpu = cpuSeconds(stat: stat), let resident = residentBytes(status: status) else { return nil }
        return LoadProcessSample(cpuSeconds: cpu, residentBytes: resident)
    }

    /// utime + stime (fields 14 and 15 of `/proc/PID/stat`, counted after
    /// the command name's closing parenthesis), in seconds.
    static func cpuSeconds(stat: String) -> Double? {
        guard let close = stat.lastIndex(of: ")") else { return nil }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        // fields[0] is field 3 (the state): utime is field 14, stime 15.
        guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return nil }
        let ticks = Double(sysconf(Int32(_SC_CLK_TCK)))
        return (user + system) / (ticks > 0 ? ticks : 100)
    }

    /// `VmRSS` of `/proc/PID/status`, in bytes.
    static func residentBytes(status: String) -> Int? {
        for line in status.split(separator: "\n") where line.hasPrefix("VmRSS:") {
            let parts = line.split(separator: " ", omittingEmptySubsequences: true)
            guard parts.count >= 2, let kilobytes = Int(parts[1]) else { return nil }
            return kilobytes * 1_024
        }
        return nil
    }

    /// This process's user plus system CPU time (getrusage), in seconds.
    package static func ownCPUSeconds() -> Double {
        var usage = rusage()
        getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
        func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1_000_000 }
        return seconds(usage.ru_utime) + seconds(usage.ru_stime)
    }
}

/// `tessera serve --port 0` as a child process on a fresh demo library in a
/// temporary folder of its own, ended when the run ends.
///
/// Starting and stopping it block the calling thread (they poll the child
/// and wait for it to exit): ``LoadRun/run(progress:)`` calls them on its
/// own thread, never from async code.
final class LoadServerProcess: @unchecked Sendable {
    let process = Process()
    /// Every line the server printed, standard output and error, for the
    /// error message when it fails.
    let output = LoadLines()
    let folder: URL

    /// Starts the server, holding up to `clients` clients, and waits (up
    /// to `timeout` seconds) for the address it prints.
    ///
    /// - Throws: ``LoadError`` when the server cannot start or prints no
    ///   address in time.
    init(executable: String, photos: Int, clients: Int, timeout: Double) throws(LoadError) {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("tessera-bench-serve-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        } catch {
            throw LoadError("cannot create the server's folder \(folder.path): \(error.localizedDescription)")
        }
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = ["serve", "--port", "0", "--photos", String(photos), "--max-clients", String(clients)]
        // The demo library is seeded in the temporary folder: a folder of
        // the run's own keeps it fresh and apart from any other server.
        var environment = ProcessInfo.processInfo.environment
        environment["TMPDIR"] = folder.path
        process.environment = environment
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        process.standardInput = FileHandle.nullDevice
        do {
            try process.run()
        } catch {
            throw LoadError("cannot start \(executable) serve: \(error.localizedDescription)")
        }
        let output = self.output
        let reader = pipe.fileHandleForReading
        // Reads the server's output to its end, so that it never blocks on
        // a full pipe.
        Thread.detachNewThread {
            var rest = Data()
            while true {
                let data = reader.availableData
                if data.isEmpty { break }
                rest.append(data)
                while let newline = rest.firstIndex(of: 0x0A) {
                    let line = String(decoding: rest[rest.startIndex..<newline], as: UTF8.self)
                    rest.removeSubrange(rest.startIndex...newline)
                    output.lines.withLock { $0.append(line) }
                }
            }
        }
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if let port = output.lines.withLock({ lines in lines.lazy.compactMap(Self.port(in:)).first }) {
                self.port = port
                return
            }
            guard process.isRunning else { break }
            usleep(20_000)
        }
        let said = output.lines.withLock { $0.suffix(3).joined(separator: " / ") }
        stop()
        throw LoadError("tessera serve printed no address within \(Int(timeout)) s\(said.isEmpty ? "" : ": \(said)")")
    }

    /// The port the server listens on.
    private(set) var port = 0

    /// The server's process id.
    var pid: Int32 { process.processIdentifier }

    /// The port of the first `127.0.0.1:PORT` in a line.
    static func port(in line: String) -> Int? {
        guard let range = line.range(of: "127.0.0.1:") else { return nil }
        let digits = line[range.upperBound...].prefix { $0.isASCII && $0.isNumber }
        guard let port = Int(digits), port > 0 else { return nil }
        return port
    }

    /// Ends the server (SIGTERM, then SIGKILL after 5 s) and removes its
    /// folder.
    func stop() {
        if process.isRunning {
            kill(process.processIdentifier, SIGTERM)
            let deadline = Date().addingTimeInterval(5)
            while process.isRunning, Date() < deadline { usleep(20_000) }
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
            process.waitUntilExit()
        }
        try? FileManager.default.removeItem(at: folder)
    }
}

/// Lines a process printed, shared with the thread that reads them.
final class LoadLines: Sendable {
    /// The lines, in order.
    let lines = PThreadMutex<[String]>([])
}

/// Raises the soft limit of open files to the hard limit.
///
/// - Returns: The soft limit now in force.
func raiseOpenFileLimit() -> Int {
    var limit = rlimit()
    guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return 1_024 }
    if limit.rlim_cur < limit.rlim_max {
        var raised = limit
        raised.rlim_cur = limit.rlim_max
        if setrlimit(Int32(RLIMIT_NOFILE.rawValue), &raised) == 0 { limit = raised }
    }
    return limit.rlim_cur > rlim_t(Int.max) ? Int.max : Int(limit.rlim_cur)
}

/// The number of local ports the system hands out to outgoing
/// connections (`ip_local_port_range`), or `nil` when unknown.
func ephemeralPortCount() -> Int? {
    guard let text = try? String(contentsOfFile: "/proc/sys/net/ipv4/ip_local_port_range", encoding: .utf8) else { return nil }
    let parts = text.split(whereSeparator: \.isWhitespace).compactMap { Int($0) }
    guard parts.count == 2, parts[1] >= parts[0] else { return nil }
    return parts[1] - parts[0] + 1
}
