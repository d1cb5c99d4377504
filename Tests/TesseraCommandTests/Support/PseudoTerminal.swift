import Foundation
import TesseraResultsCore
import TesseraSQLite
import TesseraTestTraits

/// A pseudo-terminal: a child process writing to ``terminal`` sees a
/// terminal (`isatty` is true), and what it writes is read from ``master``.
struct PseudoTerminal {
    /// The side the test reads.
    let master: Int32
    /// The side given to the child.
    let terminal: Int32

    /// Opens one.
    init() throws {
        // Glibc's Swift module leaves these out (they need _XOPEN_SOURCE);
        // they are in the C library every process links.
        func function<F>(_ name: String, as type: F.Type) throws -> F {
            guard let symbol = dlsym(nil, name) else { throw ToolError("no \(name) in the C library") }
            return unsafeBitCast(symbol, to: type)
        }
        let openpt = try function("posix_openpt", as: (@convention(c) (Int32) -> Int32).self)
        let grantpt = try function("grantpt", as: (@convention(c) (Int32) -> Int32).self)
        let unlockpt = try function("unlockpt", as: (@convention(c) (Int32) -> Int32).self)
        let ptsname = try function("ptsname", as: (@convention(c) (Int32) -> UnsafeMutablePointer<CChar>?).self)
        // Close-on-exec, so that no other child (of a test running in
        // parallel) holds the terminal's side open: the master reads to
        // its end once the command and this process have closed it.
        master = openpt(O_RDWR | O_NOCTTY | O_CLOEXEC)
        guard master >= 0, grantpt(master) == 0, unlockpt(master) == 0, let name = ptsname(master) else {
            throw ToolError("cannot open a pseudo-terminal: \(String(cString: strerror(errno)))")
        }
        terminal = open(name, O_RDWR | O_NOCTTY | O_CLOEXEC)
        guard terminal >= 0 else { throw ToolError("cannot open \(String(cString: name)): \(String(cString: strerror(errno)))") }
    }
}

extension Tool {
    /// Runs `tessera` with its standard error on a pseudo-terminal and
    /// waits: `stderr` is what the terminal received.
    static func runOnTerminal(_ arguments: [String], in folder: URL? = nil) throws -> Result {
        let pty = try PseudoTerminal()
        let master = pty.master
        defer { close(master) }
        let (process, outPipe, _) = try makeProcess(arguments, in: folder)
        // Closed below, once the command has exited, not by the handle.
        process.standardError = FileHandle(fileDescriptor: pty.terminal, closeOnDealloc: false)
        // The terminal is read as it fills, or the command would block on it.
        let written = PThreadMutex(Data())
        let readToTheEnd = DispatchSemaphore(value: 0)
        let reader = Thread {
            defer { readToTheEnd.signal() }
            var buffer = [UInt8](repeating: 0, count: 4096)
            while true {
                let count = buffer.withUnsafeMutableBytes { read(master, $0.baseAddress, $0.count) }
                guard count > 0 else { return }
                written.withLock { $0.append(contentsOf: buffer[..<count]) }
            }
        }
        reader.start()
        do {
            try process.run()
        } catch {
            close(pty.terminal)
            throw error
        }
        let stdout = try outPipe.fileHandleForReading.readToEnd(within: 900, "the command's output")
        let ended = try process.exit(within: 900)
        // What the command wrote last may still be on its way through the
        // terminal: with the last copy of the terminal's side closed, the
        // master gives everything written to it, then fails, and the reader
        // ends (waited for at most 120 s, a limit against a hang only).
        close(pty.terminal)
        _ = readToTheEnd.wait(timeout: .now() + 120)
        let terminal = written.withLock { String(decoding: $0, as: UTF8.self) }
        return Result(status: ended.shellStatus, stdout: String(decoding: stdout, as: UTF8.self), stderr: terminal)
    }
}
