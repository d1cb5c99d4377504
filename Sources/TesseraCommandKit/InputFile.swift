import Foundation
import TesseraRender

/// Reads input files and writes output files, with errors that name them
/// and say plainly what is wrong (from the system's error number, not a
/// guess).
package enum InputFile {
    /// The file's text.
    ///
    /// - Throws: ``CommandError`` naming the path when it is missing, a
    ///   folder, unreadable, empty, or not UTF-8.
    static func text(at path: String) throws(CommandError) -> String {
        var info = stat()
        guard stat(path, &info) == 0 else { throw cannotRead(path, errno) }
        guard info.st_mode & S_IFMT != S_IFDIR else {
            throw CommandError("\(path): is a directory, not a file", exitCode: CommandError.inputExitCode)
        }
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw cannotRead(path, errno) }
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw cannotRead(path, errno)
            }
            if count == 0 { break }
            bytes.append(contentsOf: chunk[..<count])
        }
        guard !bytes.isEmpty else {
            throw CommandError("\(path): the file is empty", exitCode: CommandError.inputExitCode)
        }
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw CommandError("\(path): is not UTF-8 text", exitCode: CommandError.inputExitCode)
        }
        return text
    }

    /// The file's JSON.
    ///
    /// - Throws: ``CommandError`` naming the path, and the line and column
    ///   for text that is not JSON.
    static func json(at path: String) throws(CommandError) -> JSON {
        let text = try text(at: path)
        do {
            return try JSON.parse(text)
        } catch {
            throw CommandError("\(path): invalid JSON at \(error)", exitCode: CommandError.inputExitCode)
        }
    }

    /// Checks, before any work, that a file can be written at `path`: it is
    /// not a folder, and its folder exists and is writable.
    ///
    /// - Throws: ``CommandError`` naming the path and the reason.
    package static func checkWritable(_ path: String) throws(CommandError) {
        var info = stat()
        if stat(path, &info) == 0, info.st_mode & S_IFMT == S_IFDIR { throw cannotWrite(path, EISDIR) }
        let folder = folder(of: path)
        guard stat(folder, &info) == 0 else { throw cannotWrite(path, errno) }
        guard info.st_mode & S_IFMT == S_IFDIR else { throw cannotWrite(path, ENOTDIR) }
        guard access(folder, W_OK) == 0 else { throw cannotWrite(path, errno) }
    }

    /// Writes text to a file, atomically: into a new file next to it, then
    /// renamed over it.
    ///
    /// - Throws: ``CommandError`` naming the path and the reason.
    static func write(_ text: String, to path: String) throws(CommandError) {
        try checkWritable(path)
        let name = (path as NSString).lastPathComponent
        let temporary = (folder(of: path) as NSString).appendingPathComponent(".\(name).tessera-\(getpid())")
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw cannotWrite(path, errno) }
        var failure: Int32?
        var bytes = Array(text.utf8)[...]
        while !bytes.isEmpty {
            let count = bytes.withUnsafeBytes { Foundation.write(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                failure = errno
                break
            }
            bytes = bytes.dropFirst(count)
        }
        if close(descriptor) != 0, failure == nil { failure = errno }
        if failure == nil, rename(temporary, path) != 0 { failure = errno }
        if let failure {
            unlink(temporary)
            throw cannotWrite(path, failure)
        }
    }

    /// The folder a path is in (`.` for a bare name).
    private static func folder(of path: String) -> String {
        let folder = (path as NSString).deletingLastPathComponent
        return folder.isEmpty ? "." : folder
    }

    /// `x.json: no such file`, `x.json: cannot be read: permission denied`.
    private static func cannotRead(_ path: String, _ number: Int32) -> CommandError {
        switch number {
        case ENOENT, ENOTDIR: CommandError("\(path): no such file", exitCode: CommandError.inputExitCode)
        default: CommandError("\(path): cannot be read: \(reason(number))", exitCode: CommandError.inputExitCode)
        }
    }

    /// `cannot write plans: is a directory`, `cannot write a/b.html: no such folder a`.
    private static func cannotWrite(_ path: String, _ number: Int32) -> CommandError {
        switch number {
        case ENOENT: CommandError("cannot write \(path): no such folder \(folder(of: path))", exitCode: CommandError.inputExitCode)
        case ENOTDIR: CommandError("cannot write \(path): \(folder(of: path)) is not a folder", exitCode: CommandError.inputExitCode)
        default: CommandError("cannot write \(path): \(reason(number))", exitCode: CommandError.inputExitCode)
        }
    }

    /// The system's text for an error number, starting in lower case:
    /// `permission denied`, `is a directory`.
    static func reason(_ number: Int32) -> String {
        let text = String(cString: strerror(number))
        guard let first = text.first else { return "error \(number)" }
        return first.lowercased() + text.dropFirst()
    }
}
