import TesseraResultsCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The right to replace what a database file holds, for a process that
/// seeds it anew (`tessera demo`, and `tessera serve` without a database):
/// an exclusive advisory lock (`flock`) on a file beside the database,
/// `<database>.tessera-lock`, held until the claim is released, and granted
/// only when no other process has the database open in WAL mode.
///
/// Two checks, because each misses what the other finds: the lock file
/// stops two seeding processes at once, even before either opened the
/// database; the WAL index (`<database>-shm`) shows any other process
/// that has the database open in WAL mode (a server following it,
/// `sqlite3`, another application): SQLite keeps a shared lock on its
/// byte 128 for as long as a connection has it open. A process with the
/// file open in a rollback journal mode and no transaction under way
/// holds no lock and cannot be seen.
///
/// ```swift
/// let claim = try DatabaseFileClaim(path: "photos.sqlite")
/// // … replace the tables; the claim lasts as long as `claim` does.
/// withExtendedLifetime(claim) {}
/// ```
///
/// Take it before this process opens the database: the check opens and
/// closes the WAL index, and closing a file drops every POSIX lock the
/// process holds on it, SQLite's included.
package final class DatabaseFileClaim: Sendable {
    /// The database file.
    package let path: String
    /// The lock file's descriptor, locked until it is closed.
    private let descriptor: Int32

    /// The byte of the WAL index every connection with the database open
    /// holds a shared lock on (SQLite's `UNIX_SHM_DMS`: 120 + 8).
    static let walIndexPresenceByte: off_t = 128

    /// Claims `path`: locks `<path>.tessera-lock` (creating it) and checks
    /// that no other process has the database open in WAL mode. The
    /// database's folder must exist.
    ///
    /// - Throws: ``DatabaseFileClaimError`` naming the file and, when the
    ///   system says, the process that has it.
    package init(path: String) throws(DatabaseFileClaimError) {
        let lockPath = path + ".tessera-lock"
        let descriptor = open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            throw DatabaseFileClaimError(path: path, reason: .cannotLock(lockPath, Self.errorText(errno)))
        }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            let code = errno
            let holder = Self.processNumber(in: descriptor)
            close(descriptor)
            if code == EWOULDBLOCK { throw DatabaseFileClaimError(path: path, reason: .inUse(process: holder)) }
            throw DatabaseFileClaimError(path: path, reason: .cannotLock(lockPath, Self.errorText(code)))
        }
        if let other = Self.otherProcessWithWALOpen(path) {
            close(descriptor)
            throw DatabaseFileClaimError(path: path, reason: .inUse(process: other))
        }
        // Who holds it, for the message another process gives.
        let text = Array("\(getpid())\n".utf8)
        if ftruncate(descriptor, 0) == 0 {
            _ = text.withUnsafeBytes { pwrite(descriptor, $0.baseAddress, $0.count, 0) }
        }
        self.path = path
        self.descriptor = descriptor
    }

    deinit {
        close(descriptor)
    }

    /// The process another process has the database open in, found from the
    /// WAL index's presence lock; `nil` when none has it open in WAL mode
    /// (or there is no WAL index).
    static func otherProcessWithWALOpen(_ path: String) -> pid_t? {
        let index = open(path + "-shm", O_RDONLY | O_CLOEXEC)
        guard index >= 0 else { return nil }
        defer { close(index) }
        var lock = flock()
        lock.l_type = Int16(F_WRLCK)
        lock.l_whence = Int16(SEEK_SET)
        lock.l_start = walIndexPresenceByte
        lock.l_len = 1
        guard fcntl(index, F_GETLK, &lock) == 0, lock.l_type != Int16(F_UNLCK) else { return nil }
        return lock.l_pid
    }

    /// The process number a lock file holds, if it reads as one.
    static func processNumber(in descriptor: Int32) -> pid_t? {
        var buffer = [UInt8](repeating: 0, count: 32)
        let count = buffer.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, $0.count, 0) }
        guard count > 0 else { return nil }
        let digits = buffer[..<count].prefix { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }
        return pid_t(String(decoding: digits, as: UTF8.self)).flatMap { $0 > 0 ? $0 : nil }
    }

    /// The system's words for an `errno`, in lower case.
    static func errorText(_ code: Int32) -> String {
        String(cString: strerror(code)).lowercased()
    }
}

/// Why a database file could not be claimed: another process has it, or
/// the lock file cannot be made.
package struct DatabaseFileClaimError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong.
    package enum Reason: Sendable, Hashable {
        /// Another process has the database open or claimed (its number
        /// when the system says).
        case inUse(process: pid_t?)
        /// The lock file (its path) cannot be made or locked, and why.
        case cannotLock(String, String)
    }

    /// The database file.
    package var path: String
    /// What went wrong.
    package var reason: Reason

    /// Creates an error.
    package init(path: String, reason: Reason) {
        self.path = path
        self.reason = reason
    }

    /// `<path> is open in process 1234`, or why its lock file cannot be
    /// locked.
    package var description: String {
        switch reason {
        case let .inUse(process?): "\(path) is open in another process (\(process))"
        case .inUse(nil): "\(path) is open in another process"
        case let .cannotLock(lockPath, why): "cannot lock \(lockPath): \(why)"
        }
    }
}
