import Foundation

/// A failure of `tessera bench serve`: one line naming what went wrong, and
/// whether it is bad usage (an option out of range, a URL that is not on
/// the loopback interface) rather than a failure of the run.
package struct LoadError: Error, CustomStringConvertible, Sendable {
    /// The one-line message.
    package var message: String
    /// Whether the error is bad usage (the command's status 64).
    package var isUsage: Bool
    /// Whether the run was stopped (Ctrl-C or SIGTERM: the command's status
    /// 130).
    package var isInterrupted = false

    /// Creates an error.
    package init(_ message: String, isUsage: Bool = false) {
        self.message = message
        self.isUsage = isUsage
    }

    /// The run was stopped before its end; what it started is stopped and
    /// its files are removed.
    package static var interrupted: LoadError {
        var error = LoadError("interrupted: the run stopped, its server and temporary files are gone")
        error.isInterrupted = true
        return error
    }

    /// The message.
    package var description: String { message }
}

/// Where the load generator connects: a WebSocket address on the loopback
/// interface.
package struct LoadTarget: Sendable, Equatable {
    /// The address connected to: an IPv4 address in 127.0.0.0/8, or `::1`.
    package var address: String
    /// The port.
    package var port: Int
    /// The `Host` header sent with the upgrade request.
    package var hostHeader: String
    /// The request target: the path and query, such as `/live?token=…`.
    package var path: String

    /// Creates a target.
    package init(address: String, port: Int, hostHeader: String, path: String) {
        self.address = address
        self.port = port
        self.hostHeader = hostHeader
        self.path = path
    }

    /// The target's URL, as `ws://address:port/path`.
    package var url: String {
        let host = address.contains(":") ? "[\(address)]" : address
        return "ws://\(host):\(port)\(path)"
    }

    /// Reads a `ws://HOST:PORT/PATH` URL whose host is on the loopback
    /// interface: `localhost`, an IPv4 address in 127.0.0.0/8, or `[::1]`.
    /// Any other host is refused, so that the load never leaves the machine.
    /// The path defaults to `/live`.
    ///
    /// - Throws: ``LoadError`` (usage) naming what is wrong with the URL.
    /// - Complexity: O(*n*) in the URL's length.
    package static func parse(_ url: String) throws(LoadError) -> LoadTarget {
        func bad(_ reason: String) -> LoadError { LoadError("--url \(url): \(reason)", isUsage: true) }
        guard url.hasPrefix("ws://") else { throw bad("expected ws://127.0.0.1:PORT/live (wss and other schemes are not supported)") }
        let rest = url.dropFirst(5)
        let authorityEnd = rest.firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? rest.endIndex
        let authority = rest[..<authorityEnd]
        var path = String(rest[authorityEnd...])
        if let hash = path.firstIndex(of: "#") { path = String(path[..<hash]) }
        if path.isEmpty { path = "/live" } else if path.hasPrefix("?") { path = "/live" + path }
        guard !authority.contains("@") else { throw bad("user information is not supported") }
        let host: Substring
        let portText: Substring?
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { throw bad("an IPv6 address needs its closing ]") }
            host = authority[authority.index(after: authority.startIndex)..<close]
            let after = authority[authority.index(after: close)...]
            if after.isEmpty { portText = nil } else if after.hasPrefix(":") { portText = after.dropFirst() } else { throw bad("expected :PORT after the address") }
        } else if let colon = authority.lastIndex(of: ":") {
            host = authority[..<colon]
            portText = authority[authority.index(after: colon)...]
        } else {
            host = authority
            portText = nil
        }
        guard let portText else { throw bad("the port is missing (ws://127.0.0.1:PORT/live)") }
        guard let port = Int(portText), (1...65_535).contains(port) else { throw bad("the port '\(portText)' is not a number from 1 to 65535") }
        let address: String
        if host.lowercased() == "localhost" {
            address = "127.0.0.1"
        } else if host == "::1" {
            address = "::1"
        } else if isLoopbackIPv4(host) {
            address = String(host)
        } else {
            throw bad("the host '\(host)' is not on the loopback interface; the load stays on this machine (127.0.0.1, localhost or [::1])")
        }
        let hostHeader = authority.isEmpty ? address : String(authority)
        return LoadTarget(address: address, port: port, hostHeader: hostHeader, path: path)
    }

    /// Whether `host` is a dotted IPv4 address in 127.0.0.0/8.
    static func isLoopbackIPv4(_ host: Substring) -> Bool {
        let parts = host.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4 else { return false }
        for part in parts {
            guard !part.isEmpty, part.count <= 3, part.allSatisfy(\.isASCII), let value = Int(part), (0...255).contains(value) else { return false }
        }
        return parts[0] == "127"
    }
}

/// What `tessera bench serve` runs: how many clients, how many edits a
/// second, for how long, against which server.
package struct LoadConfiguration: Sendable {
    /// The reading clients (each with its own viewport), besides the one
    /// writer.
    package var clients: Int = 1_000
    /// The writer's renames per second.
    package var rate: Double = 20
    /// How long the writer edits, in seconds (each step of a ramp).
    package var seconds: Double = 60
    /// The server to load; `nil` starts `tessera serve --port 0` as a child
    /// process on a fresh demo library.
    package var target: LoadTarget?
    /// The demo library's photos when the child server is started.
    package var photos: Int = 10_000
    /// With a count, the child server shows a table of its own of this
    /// many rows (see ``LoadTable``) in place of the demo library, and the
    /// run measures it first (start, first snapshot, another process's
    /// commits, renames, memory; see ``LoadTableReport``).
    package var rows: Int?
    /// The table's sections, with ``rows``; `nil` for
    /// ``defaultSections`` (or one per row when there are fewer rows).
    package var sections: Int?
    /// Whether the table gets a change log, with ``rows`` (`false`
    /// measures what other processes' commits cost without one).
    package var changeLog = true
    /// Client counts to ramp through, ascending; empty for one run of
    /// ``clients``.
    package var ramp: [Int] = []
    /// The server's process id, with ``target``, for its CPU time and
    /// memory (read from `/proc`); `nil` leaves them out.
    package var serverPID: Int32?
    /// The `tessera` executable that serves when no ``target`` is given.
    package var serverExecutable: String = LoadConfiguration.currentExecutable
    /// Whether the load runs again against ``LoadFloorServer`` (a server
    /// that computes nothing), for ratios to it.
    package var floor = false
    /// The seed of the clients' viewports.
    package var seed: UInt64 = 1
    /// The latency the ramp holds to: the largest count whose p99 is at most
    /// this is reported.
    package var rampLimitMilliseconds: Double = 100
    /// Whether the run is asked to stop (Ctrl-C): checked while the table
    /// is written, between edits and while waiting for plans; the run then
    /// stops its server, removes its files and throws
    /// ``LoadError/interrupted``.
    package var isStopped: @Sendable () -> Bool = { false }

    /// Creates a configuration with the defaults: 1,000 clients, 20
    /// renames a second, 60 seconds, a child server on 10,000 photos.
    package init() {}

    /// The client counts allowed.
    package static let clientRange = 1...50_000
    /// The rates allowed, in renames per second.
    package static let rateRange = 0.1...1_000.0
    /// The durations allowed, in seconds.
    package static let secondsRange = 1.0...3_600.0
    /// The demo library's sizes (those `tessera serve --photos` accepts).
    package static let photoRange = 1...1_000_000
    /// The table sizes `--rows` accepts.
    package static let rowRange = 1...10_000_000
    /// The table's sections unless told: at most one per row.
    package static let defaultSections = 1_000

    /// The running executable (`/proc/self/exe`), or the first argument.
    package static var currentExecutable: String {
        (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
    }

    /// Checks every option's range.
    ///
    /// - Throws: ``LoadError`` (usage) naming the option.
    package func validate() throws(LoadError) {
        func usage(_ message: String) -> LoadError { LoadError(message, isUsage: true) }
        guard Self.clientRange.contains(clients) else { throw usage("--clients \(clients): expected \(Self.clientRange.lowerBound) to \(Self.clientRange.upperBound)") }
        guard rate.isFinite, Self.rateRange.contains(rate) else { throw usage("--rate \(rate): expected \(Self.rateRange.lowerBound) to \(Int(Self.rateRange.upperBound)) renames a second") }
        guard seconds.isFinite, Self.secondsRange.contains(seconds) else { throw usage("--seconds \(seconds): expected \(Int(Self.secondsRange.lowerBound)) to \(Int(Self.secondsRange.upperBound))") }
        guard Self.photoRange.contains(photos) else { throw usage("--photos \(photos): expected \(Self.photoRange.lowerBound) to \(Self.photoRange.upperBound)") }
        if serverPID != nil, target == nil { throw usage("--server-pid goes with --url (without --url, the server is a child and its pid is known)") }
        if let serverPID, serverPID <= 0 { throw usage("--server-pid \(serverPID): expected a process id") }
        if let rows {
            guard target == nil else { throw usage("--rows and --url: --rows starts a server on a table of its own, --url loads one already running; give one") }
            guard Self.rowRange.contains(rows) else { throw usage("--rows \(rows): expected \(Self.rowRange.lowerBound) to \(Self.rowRange.upperBound)") }
            if let sections, !(1...rows).contains(sections) {
                throw usage("--sections \(sections): expected 1 to \(rows) (the rows; every section holds at least one)")
            }
        } else {
            if let sections { throw usage("--sections \(sections) goes with --rows (the demo library has its albums)") }
            if !changeLog { throw usage("--no-change-log goes with --rows (the demo library is served without one)") }
        }
        for count in ramp where !Self.clientRange.contains(count) {
            throw usage("--ramp \(count): each count is from \(Self.clientRange.lowerBound) to \(Self.clientRange.upperBound)")
        }
    }

    /// Reads a ramp, such as `1000,2000,5k,10k` (k: thousands), sorted
    /// ascending without repeats.
    ///
    /// - Throws: ``LoadError`` (usage) naming the entry that is not a count.
    /// - Complexity: O(*n* log *n*) in the number of counts.
    package static func counts(ramp: String) throws(LoadError) -> [Int] {
        var counts: [Int] = []
        for part in ramp.split(separator: ",", omittingEmptySubsequences: false) {
            let text = part.trimmingCharacters(in: .whitespaces).lowercased()
            let value: Int?
            if text.hasSuffix("k") { value = Int(text.dropLast()).flatMap { $0.multipliedReportingOverflow(by: 1_000).overflow ? nil : $0 * 1_000 } } else { value = Int(text) }
            guard let value, clientRange.contains(value) else {
                throw LoadError("--ramp \(ramp): '\(part)' is not a client count from \(clientRange.lowerBound) to \(clientRange.upperBound)", isUsage: true)
            }
            counts.append(value)
        }
        return Array(Set(counts)).sorted()
    }
}
