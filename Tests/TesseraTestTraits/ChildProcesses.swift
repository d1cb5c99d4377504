import Foundation
#if canImport(Glibc)
import Glibc
#endif

// Child processes in tests: started without the test process's descriptors,
// and waited for with a bound, from the kernel.
//
// Foundation's `Process` learns that its child exited when a socket it
// gives the child reaches its end, which needs every copy of the socket
// closed. The socket is not close-on-exec: a process started with a bare
// `posix_spawn` while another test's `Process` is being started inherits
// it, and that `Process`'s `waitUntilExit()` then waits until the
// inheriting process ends (a browser a test keeps open: the two tests wait
// for each other and the suite hangs). Pipes leak the same way and keep a
// reader waiting for an end of file. So every spawn in the tests closes
// what it inherits (``closeInheritedDescriptors(_:from:)``), and every wait
// for a `Process` is ``Foundation/Process/exit(within:)``, which reads the
// exit from the kernel and is bounded.

/// How a child process ended.
public struct ChildExit: Sendable, Equatable, CustomStringConvertible {
    /// The exit status, or the number of the signal that ended it.
    public var status: Int32
    /// Whether a signal ended it.
    public var signaled: Bool

    public init(status: Int32, signaled: Bool) {
        self.status = status
        self.signaled = signaled
    }

    /// Whether it exited with status 0.
    public var succeeded: Bool { !signaled && status == 0 }

    /// The status as a shell gives it: the exit status, or 128 plus the
    /// signal's number.
    public var shellStatus: Int32 { signaled ? 128 + status : status }

    public var description: String { signaled ? "killed by signal \(status)" : "exit status \(status)" }
}

/// A child process that did not end within its bound (and was killed), or
/// could not be waited for.
public struct ChildProcessError: Error, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}

/// Adds to `actions` the closing of every descriptor from `lowest` up in
/// the child, so that it inherits only what the actions give it (its
/// standard streams, and what they duplicate below `lowest`).
///
/// Uses the C library's `posix_spawn_file_actions_addclosefrom_np` (glibc
/// 2.34 and later), which closes in the child whatever is open at the
/// moment of the spawn; without it, closes each descriptor open now.
///
/// - Complexity: O(1) with the C library's call, else O(d) for d open
///   descriptors.
public func closeInheritedDescriptors(_ actions: inout posix_spawn_file_actions_t, from lowest: Int32) {
    typealias CloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
    if let symbol = dlsym(nil, "posix_spawn_file_actions_addclosefrom_np") {
        let closeFrom = unsafeBitCast(symbol, to: CloseFrom.self)
        if closeFrom(&actions, lowest) == 0 { return }
    }
    let open = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
    for name in open {
        if let fd = Int32(name), fd >= lowest { posix_spawn_file_actions_addclose(&actions, fd) }
    }
}

extension Process {
    /// Waits, at most `seconds`, for the process to end, and says how it
    /// ended. Past the bound, kills the process and its group and throws.
    ///
    /// Asks the kernel (`waitid` with `WNOWAIT`, which leaves the child for
    /// Foundation to reap), so a copy of Foundation's exit socket held by
    /// another process does not keep it waiting (see this file's comment).
    /// A hang guard of the child only: its clock starts with the wait.
    /// Sleeps its thread between checks: from async code, use the async
    /// ``exit(within:)``.
    ///
    /// - Complexity: One check each 2 ms until the process ends.
    @available(*, noasync, message: "it sleeps its thread: use the async exit(within:)")
    public func exit(within seconds: Double = 300) throws -> ChildExit {
        let deadline = ContinuousClock.now + .milliseconds(Int64(seconds * 1000))
        while true {
            if let ended = try check(deadline: deadline, bound: seconds) { return ended }
            usleep(2_000)
        }
    }

    /// Waits, at most `seconds`, for the process to end, suspending between
    /// checks, and says how it ended; past the bound, kills the process and
    /// its group and throws. See the synchronous ``exit(within:)``.
    ///
    /// - Complexity: One check each 2 ms until the process ends.
    public func exit(within seconds: Double = 300) async throws -> ChildExit {
        let deadline = ContinuousClock.now + .milliseconds(Int64(seconds * 1000))
        while true {
            if let ended = try check(deadline: deadline, bound: seconds) { return ended }
            try await Task.sleep(for: .milliseconds(2))
        }
    }

    /// How the process ended, or nil while it runs; throws past `deadline`
    /// (killing it) or when it was never started.
    private func check(deadline: ContinuousClock.Instant, bound: Double) throws -> ChildExit? {
        let pid = processIdentifier
        guard pid > 0 else { throw ChildProcessError("\(commandLine) was not started: there is nothing to wait for") }
        if !isRunning { return foundationsExit }
        var info = siginfo_t()
        if waitid(P_PID, id_t(pid), &info, WEXITED | WNOHANG | WNOWAIT) == 0, info._sifields._sigchld.si_pid == pid {
            // Ended, and not reaped yet: Foundation reaps it when its
            // socket closes, which another process may delay.
            let code = info.si_code
            return ChildExit(status: info._sifields._sigchld.si_status, signaled: code == CLD_KILLED || code == CLD_DUMPED)
        }
        // ECHILD: Foundation has reaped it since `isRunning` was read,
        // and says so now (or at the next check).
        if !isRunning { return foundationsExit }
        if ContinuousClock.now >= deadline {
            kill(-pid, SIGKILL)
            kill(pid, SIGKILL)
            throw ChildProcessError("\(commandLine) did not end within \(bound) s; killed")
        }
        return nil
    }

    /// How Foundation says the process ended.
    private var foundationsExit: ChildExit {
        ChildExit(status: terminationStatus, signaled: terminationReason == .uncaughtSignal)
    }

    /// The executable and its arguments, for a message.
    private var commandLine: String {
        String(([executableURL?.path ?? "?"] + (arguments ?? [])).joined(separator: " ").prefix(300))
    }
}

extension FileHandle {
    /// Everything the handle gives up to its end, waiting at most
    /// `seconds` in all (a hang guard: a copy of a pipe's write end held
    /// by a process that lives on keeps a plain read waiting); past the
    /// bound, throws naming `what`.
    ///
    /// Sleeps its thread while it waits for data: call it from a thread of
    /// its own (a test of an `.ownThreads` suite), not from async code.
    ///
    /// - Complexity: O(n) for n bytes read.
    @available(*, noasync, message: "it blocks its thread")
    public func readToEnd(within seconds: Double, _ what: @autoclosure () -> String) throws -> Data {
        let deadline = ContinuousClock.now + .milliseconds(Int64(seconds * 1000))
        var data = Data()
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let left = deadline - .now
            guard left > .zero else { throw ChildProcessError("\(what()): no end of file within \(seconds) s (\(data.count) bytes read)") }
            var entry = pollfd(fd: fileDescriptor, events: Int16(POLLIN), revents: 0)
            let ready = poll(&entry, 1, Int32(min(1_000, max(1, left.components.seconds * 1_000 + 1))))
            if ready < 0 && errno != EINTR { throw ChildProcessError("\(what()): poll failed, errno \(errno)") }
            guard ready > 0 else { continue }
            let count = chunk.withUnsafeMutableBytes { Glibc.read(fileDescriptor, $0.baseAddress, $0.count) }
            if count == 0 { return data }
            if count < 0 {
                if errno == EINTR || errno == EAGAIN { continue }
                throw ChildProcessError("\(what()): read failed, errno \(errno)")
            }
            data.append(contentsOf: chunk[..<count])
        }
    }
}
