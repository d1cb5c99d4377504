import Foundation
import Testing
import TesseraTestTraits
#if canImport(Glibc)
import Glibc
#endif

/// The helpers every test that starts a process uses
/// (`Tests/TesseraTestTraits/ChildProcesses.swift`): a wait that asks the
/// kernel and is bounded, and a spawn that inherits nothing.
@Suite("Child processes: waits that ask the kernel, spawns that inherit nothing", .tags(.process), .ownThreads)
struct ChildProcessesTests {
    /// Starts `/bin/sh -c "BEFORE sleep 600 & …; AFTER"`: the shell, and
    /// the sleep it leaves in the background, which keeps every descriptor
    /// of the shell (Foundation's exit socket, the standard output) for up
    /// to 10 minutes. Its output goes to `output`, its errors nowhere.
    func shellWithASleeper(before: String = "", after: String, output: Any = FileHandle.nullDevice) throws -> (shell: Process, sleeper: pid_t) {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("tessera-child-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: file) }
        let shell = Process()
        shell.executableURL = URL(fileURLWithPath: "/bin/sh")
        shell.arguments = ["-c", "\(before)sleep 600 & echo $! > \(file); \(after)"]
        shell.standardInput = FileHandle.nullDevice
        shell.standardOutput = output
        shell.standardError = FileHandle.nullDevice
        try shell.run()
        // The sleep's process ID, once the shell wrote it (6,000 rounds of
        // at least 10 ms; bounded in rounds, not by a clock).
        var found: pid_t?
        waitInRounds(6_000, sleepingEvery: .milliseconds(10)) {
            found = (try? String(contentsOfFile: file, encoding: .utf8)).flatMap { pid_t($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
            return found != nil
        }
        guard let sleeper = found else {
            kill(-shell.processIdentifier, SIGKILL)
            throw ChildProcessError("the shell wrote no process ID to \(file) within 6,000 rounds of 10 ms")
        }
        return (shell, sleeper)
    }

    @Test("a child whose own child keeps Foundation's exit socket open: exit(within:) says at once how it ended, where Foundation still sees it running")
    func exitWhileAGrandchildHoldsTheSocket() throws {
        let (process, grandchild) = try shellWithASleeper(after: "exit 3")
        defer { kill(grandchild, SIGKILL) }
        #expect(try process.exit(within: 120) == ChildExit(status: 3, signaled: false))
        // What waitUntilExit() would wait for: Foundation has not seen the
        // end, as the grandchild still holds the socket.
        #expect(process.isRunning)
        kill(grandchild, SIGKILL)
        // Once the grandchild is gone, Foundation sees the end too, and
        // the answer is the same.
        #expect(waitInRounds(12_000, sleepingEvery: .milliseconds(10)) { !process.isRunning }, "Foundation did not see the end within 12,000 rounds of 10 ms after the grandchild went")
        #expect(try process.exit(within: 120) == ChildExit(status: 3, signaled: false))
    }

    @Test("a child that does not end within the bound: exit(within:) kills it and its process group, and throws naming the command")
    func exitPastItsBoundKillsTheGroup() throws {
        let (process, grandchild) = try shellWithASleeper(after: "wait")
        defer { kill(grandchild, SIGKILL) }
        let error = #expect(throws: ChildProcessError.self) { try process.exit(within: 0.5) }
        #expect(error?.description.hasPrefix("/bin/sh -c sleep 600") == true && error?.description.contains("did not end within 0.5 s") == true, "\(String(describing: error))")
        // Killed with its group: the shell, and the sleep it started.
        #expect(try process.exit(within: 120).signaled)
        #expect(waitInRounds(12_000, sleepingEvery: .milliseconds(10)) { kill(grandchild, 0) != 0 || Self.isZombie(grandchild) }, "the grandchild \(grandchild) outlived its group's kill")
    }

    @Test("a pipe whose write end a grandchild keeps: readToEnd(within:) gives up past its bound, naming what it read; at the pipe's end it gives everything")
    func readToEndIsBounded() throws {
        // The sleep keeps the shell's standard output, the pipe.
        let out = Pipe()
        let (process, grandchild) = try shellWithASleeper(before: "printf hello; ", after: "exit 0", output: out)
        defer { kill(grandchild, SIGKILL) }
        #expect(try process.exit(within: 120).succeeded)
        let error = #expect(throws: ChildProcessError.self) { try out.fileHandleForReading.readToEnd(within: 0.5, "the shell's output") }
        #expect(error?.description == "the shell's output: no end of file within 0.5 s (5 bytes read)", "\(String(describing: error))")
        kill(grandchild, SIGKILL)
        #expect(try out.fileHandleForReading.readToEnd(within: 120, "the shell's output").isEmpty, "the 5 bytes were read before")
    }

    /// Whether `pid` has ended and waits to be reaped (by init, here).
    static func isZombie(_ pid: pid_t) -> Bool {
        let status = (try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)) ?? ""
        guard let close = status.lastIndex(of: ")") else { return true }
        return status[status.index(after: close)...].trimmingCharacters(in: .whitespaces).hasPrefix("Z")
    }

    @Test("a process spawned with closeInheritedDescriptors holds none of this process's descriptors: a pipe's reader sees its end at once")
    func spawnInheritsNothing() throws {
        var ends: [Int32] = [0, 0]
        try #require(pipe(&ends) == 0)
        defer { close(ends[0]) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        closeInheritedDescriptors(&actions, from: 3)
        let argv: [UnsafeMutablePointer<CChar>?] = [strdup("/bin/sleep"), strdup("600"), nil]
        defer { for pointer in argv { free(pointer) } }
        var pid: pid_t = 0
        try #require(posix_spawn(&pid, "/bin/sleep", &actions, nil, argv, environ) == 0)
        defer {
            kill(pid, SIGKILL)
            var status: Int32 = 0
            waitpid(pid, &status, 0)
        }
        close(ends[1])
        // With no writer left anywhere the pipe reads as ended (a hang
        // guard of 120 s: a copy in the sleeping child would hold it open
        // for its 10 minutes).
        var entry = pollfd(fd: ends[0], events: Int16(POLLIN), revents: 0)
        #expect(poll(&entry, 1, 120_000) == 1)
        var byte: UInt8 = 0
        #expect(read(ends[0], &byte, 1) == 0, "the spawned child holds the pipe's write end")
    }
}
