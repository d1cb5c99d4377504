import CSQLite
import Foundation
import TesseraResultsCore
import TesseraSQLite

/// A VFS for tests that passes everything to SQLite's default VFS and fails
/// the operations it is told to, on the files it is told to: a disk that
/// fills up, reads and writes that fail, as a storage device's faults do.
///
/// Open a connection through it with `Connection(path:vfs: FaultVFS.name)`
/// and arm a fault for that path with ``arm(_:path:)``; ``disarm(path:)``
/// clears it. Faults are kept per database path (its journal and WAL
/// files included), so tests that run at once do not disturb each other.
enum FaultVFS {
    static let name = "tessera-faults"

    /// SQLite's extended codes (C macros, which Swift does not import).
    static let ioerrRead = SQLITE_IOERR | 1 << 8
    static let ioerrWrite = SQLITE_IOERR | 2 << 8
    static let ioerrFsync = SQLITE_IOERR | 4 << 8

    /// What fails, and with which code.
    enum Fault: Hashable {
        /// Every read, with `SQLITE_IOERR_READ`.
        case read
        /// Every write, with `SQLITE_IOERR_WRITE`.
        case write
        /// Every write, with `SQLITE_FULL` (a full disk).
        case full
        /// Every sync, with `SQLITE_IOERR_FSYNC`.
        case sync
    }

    /// Armed faults by database path.
    private static let faults = PThreadMutex<[String: Set<Fault>]>([:])
    /// The path each open file belongs to, by its address.
    private static let files = PThreadMutex<[UInt: String]>([:])
    /// Operations failed so far, by database path.
    private static let failures = PThreadMutex<[String: Int]>([:])

    static func arm(_ fault: Fault, path: String) { faults.withLock { _ = $0[path, default: []].insert(fault) } }
    static func disarm(path: String) { faults.withLock { $0[path] = nil } }
    /// How many operations on the database at `path` failed by a fault.
    static func failureCount(path: String) -> Int { failures.withLock { $0[path] ?? 0 } }

    /// The fault to give for an operation on `file`, if one is armed.
    fileprivate static func fault(for file: UnsafeMutablePointer<sqlite3_file>?, among candidates: [Fault]) -> Fault? {
        guard let file, let path = files.withLock({ $0[UInt(bitPattern: file)] }) else { return nil }
        let armed = faults.withLock { database in database.first { path.hasPrefix($0.key) }?.value ?? [] }
        guard let fault = candidates.first(where: armed.contains) else { return nil }
        failures.withLock { $0[faults.withLock { database in database.keys.first { path.hasPrefix($0) } } ?? path, default: 0] += 1 }
        return fault
    }

    fileprivate static func opened(_ file: UnsafeMutablePointer<sqlite3_file>, path: String) {
        files.withLock { $0[UInt(bitPattern: file)] = path }
    }

    fileprivate static func closed(_ file: UnsafeMutablePointer<sqlite3_file>?) {
        guard let file else { return }
        _ = files.withLock { $0.removeValue(forKey: UInt(bitPattern: file)) }
    }

    /// Registers the VFS once (not as the default).
    static let register: Void = {
        guard let real = sqlite3_vfs_find(nil) else { fatalError("no default VFS") }
        realVFS = real
        let vfs = UnsafeMutablePointer<sqlite3_vfs>.allocate(capacity: 1)
        vfs.initialize(to: real.pointee)
        vfs.pointee.pNext = nil
        vfs.pointee.zName = UnsafePointer(strdup(name))
        vfs.pointee.xOpen = faultOpen
        let code = sqlite3_vfs_register(vfs, 0)
        precondition(code == SQLITE_OK, "cannot register the fault VFS: \(code)")
    }()
}

nonisolated(unsafe) private var realVFS: UnsafeMutablePointer<sqlite3_vfs>!
/// The default VFS's methods for a file, and ours that wrap them, by the
/// address of the default's methods (files of one VFS share a few).
private let wrappedMethods = PThreadMutex<[UInt: UInt]>([:])
private let realMethodsOf = PThreadMutex<[UInt: UInt]>([:])

private func real(_ file: UnsafeMutablePointer<sqlite3_file>?) -> UnsafePointer<sqlite3_io_methods> {
    let ours = UInt(bitPattern: file!.pointee.pMethods)
    return UnsafePointer(bitPattern: realMethodsOf.withLock { $0[ours]! })!
}

private let faultOpen: @convention(c) (UnsafeMutablePointer<sqlite3_vfs>?, sqlite3_filename?, UnsafeMutablePointer<sqlite3_file>?, Int32, UnsafeMutablePointer<Int32>?) -> Int32 = { _, name, file, flags, outFlags in
    let code = realVFS.pointee.xOpen(realVFS, name, file, flags, outFlags)
    guard code == SQLITE_OK, let file, let methods = file.pointee.pMethods else { return code }
    let realAddress = UInt(bitPattern: methods)
    let oursAddress = wrappedMethods.withLock { table -> UInt in
        if let existing = table[realAddress] { return existing }
        let ours = UnsafeMutablePointer<sqlite3_io_methods>.allocate(capacity: 1)
        ours.initialize(to: methods.pointee)
        ours.pointee.xRead = { file, buffer, amount, offset in
            if FaultVFS.fault(for: file, among: [.read]) != nil { return FaultVFS.ioerrRead }
            return real(file).pointee.xRead!(file, buffer, amount, offset)
        }
        ours.pointee.xWrite = { file, buffer, amount, offset in
            switch FaultVFS.fault(for: file, among: [.full, .write]) {
            case .full?: return SQLITE_FULL
            case .write?: return FaultVFS.ioerrWrite
            default: return real(file).pointee.xWrite!(file, buffer, amount, offset)
            }
        }
        ours.pointee.xSync = { file, flags in
            if FaultVFS.fault(for: file, among: [.sync]) != nil { return FaultVFS.ioerrFsync }
            return real(file).pointee.xSync!(file, flags)
        }
        ours.pointee.xClose = { file in
            let close = real(file).pointee.xClose
            FaultVFS.closed(file)
            // The default VFS's close may look at its own methods.
            file?.pointee.pMethods = real(file)
            return close!(file)
        }
        table[realAddress] = UInt(bitPattern: ours)
        realMethodsOf.withLock { $0[UInt(bitPattern: ours)] = realAddress }
        return UInt(bitPattern: ours)
    }
    file.pointee.pMethods = UnsafePointer(bitPattern: oursAddress)
    FaultVFS.opened(file, path: name.map { String(cString: $0) } ?? "")
    return code
}
