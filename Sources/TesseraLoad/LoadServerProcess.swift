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

/// `tessera serve --port 0` as a child process, showing a fresh demo
/// library or a table of the run's own in a folder the run owns (see
/// ``LoadScratchFolder``), ended when the run ends.
///
/// Starting and stopping it block the calling thread (they poll the child
/// and wait for it to exit): ``LoadRun/run(progress:milestone:)`` calls them
/// on its own thread, never from async code.
final class LoadServerProcess: @unchecked Sendable {
    let process = Process()
    /// Every line the server printed, standard output and error, for the
    /// error message when it fails.
    let output = LoadLines()

    /// Starts `tessera serve --port 0` with `arguments` (what it serves),
    /// holding up to `clients` clients, with `folder` as its temporary
    /// folder, and waits (up to `timeout` seconds) for the address it
    /// prints.
    ///
    /// - Throws: ``LoadError`` when the server cannot start or prints no
    ///   address in time.
    init(executable: String, command: [String] = ["serve"], arguments: [String], clients: Int, folder: URL, timeout: Double) throws(LoadError) {
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = command + arguments + ["--port", "0", "--max-clients", String(clients)]
        // The demo library is seeded in the temporary folder: a folder of
        // the run's own keeps it fresh and apart from any other server.
        var environment = ProcessInfo.processInfo.environment
        environment["TMPDIR"] = folder.path
        process.environment = environment
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        process.standardInput = FileHandle.nullDevice
        spawned = loadNow()
        do {
            try process.run()
        } catch {
            throw LoadError("cannot start \(executable) \(command.joined(separator: " ")): \(error.localizedDescription)")
        }
        let output = self.output
        let reader = pipe.fileHandleForReading
        // Reads the server's output to its end, so that it never blocks on
        // a full pipe, and notes when the address arrived.
        Thread.detachNewThread {
            var rest = Data()
            while true {
                let data = reader.availableData
                if data.isEmpty { break }
                let time = loadNow()
                rest.append(data)
                while let newline = rest.firstIndex(of: 0x0A) {
                    let line = String(decoding: rest[rest.startIndex..<newline], as: UTF8.self)
                    rest.removeSubrange(rest.startIndex...newline)
                    output.lines.withLock { $0.append(line) }
                    if let port = Self.port(in: line) {
                        output.address.withLock { address in
                            if address == nil { address = (port, time) }
                        }
                    }
                }
            }
        }
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if let address = output.address.withLock({ $0 }) {
                port = address.port
                addressPrinted = address.time
                return
            }
            guard process.isRunning else { break }
            usleep(5_000)
        }
        let said = output.lines.withLock { $0.suffix(3).joined(separator: " / ") }
        stop()
        throw LoadError("tessera serve printed no address within \(Int(timeout)) s\(said.isEmpty ? "" : ": \(said)")")
    }

    /// When the process was spawned, in monotonic nanoseconds.
    let spawned: UInt64
    /// When its address was read from its output, in monotonic
    /// nanoseconds.
    private(set) var addressPrinted: UInt64 = 0

    /// The time from spawning the server to reading its address, in
    /// seconds.
    var startSeconds: Double { Double(addressPrinted &- spawned) / 1e9 }

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

    /// Ends the server (SIGTERM, then SIGKILL after 20 s: past the 16 s
    /// `tessera serve` gives its clients' closes at most).
    func stop() {
        if process.isRunning {
            kill(process.processIdentifier, SIGTERM)
            let deadline = Date().addingTimeInterval(20)
            while process.isRunning, Date() < deadline { usleep(20_000) }
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
            process.waitUntilExit()
        }
    }
}

/// Lines a process printed, shared with the thread that reads them.
final class LoadLines: Sendable {
    /// The lines, in order.
    let lines = PThreadMutex<[String]>([])
    /// The port of the first line naming an address, and when that line
    /// was read.
    let address = PThreadMutex<(port: Int, time: UInt64)?>(nil)
}

/// Raises the soft limit of open files to the hard limit.
///
/// - Returns: The soft limit now in force.
package func raiseOpenFileLimit() -> Int {
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
