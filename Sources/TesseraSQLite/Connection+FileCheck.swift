import CSQLite
import TesseraResultsCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

extension Connection {
    /// Throws when the database file no longer looks like a database: cut
    /// short or emptied, or its header overwritten, by something outside
    /// SQLite while the connection was open.
    ///
    /// SQLite cannot see such damage through its page cache: in WAL mode it
    /// trusts the shared-memory index, so a reader would go on showing rows
    /// the file no longer holds. The results controllers call this before
    /// every fetch. A file replaced by another whole, valid database is not
    /// caught (nothing in the file tells the two apart cheaply); reopen the
    /// connection after replacing a file.
    ///
    /// - Throws: ``SQLiteError`` with `SQLITE_CORRUPT` (the file is shorter
    ///   than its header says, or not a whole number of pages) or
    ///   `SQLITE_NOTADB` (the header is not SQLite's), naming the file.
    /// A file that looks cut short is looked at again while no other
    /// connection can write it (under the WAL's checkpoint lock in WAL
    /// mode, in a read transaction otherwise): another connection's
    /// checkpoint or commit writes the header (page 1) before the pages
    /// that extend the file, so for a moment a sound file looks short.
    /// While another connection holds that lock (a checkpoint or a commit
    /// under way), the file is taken as sound: the next check looks again.
    ///
    /// In WAL mode a sound file can also stay short between checkpoints: a
    /// checkpoint that stops at a reader's snapshot copies each page's
    /// latest frame up to there, so it can copy a header naming a new last
    /// page whose own latest frame, from a later commit, stays in the WAL.
    /// Such a file is sound when each missing page has a frame in the WAL
    /// not yet checkpointed (its index lists the page of every frame); a
    /// page missing that has none was cut off. (Where the index cannot be
    /// read, with `locking_mode = EXCLUSIVE` or while the WAL restarts, no
    /// more pages may be missing than the WAL file has room for frames.)
    ///
    /// - Complexity: one read of the file's first 100 bytes, through
    ///   SQLite's own file handle; a file that looks cut short is read again
    ///   up to five times, over about 31 ms, under the lock, before the
    ///   error.
    package func checkFileIsDatabase() throws(SQLiteError) {
        guard path != ":memory:", !path.isEmpty, !path.hasPrefix("file:") else { return }
        // Through SQLite's own file handle: opening and closing the file
        // here would drop every POSIX lock SQLite holds on it.
        var pointer: UnsafeMutableRawPointer?
        guard sqlite3_file_control(database.handle, "main", SQLITE_FCNTL_FILE_POINTER, &pointer) == SQLITE_OK,
              let file = pointer?.assumingMemoryBound(to: sqlite3_file.self),
              let methods = file.pointee.pMethods, let fileSize = methods.pointee.xFileSize, let readFile = methods.pointee.xRead
        else { return }
        // Another process's checkpoint writes the header (page 1) before the
        // pages that extend the file, so for a moment the file can be
        // shorter than its header says. Damage lasts; a checkpoint ends: a
        // file that looks cut short is looked at again a few times, a few
        // milliseconds apart, before it is called cut short.
        var attempt = 0
        while true {
            let look: _FileLook
            if case .looksFine = try inspectFile(file, fileSize: fileSize, readFile: readFile) {
                return
            } else if let locked = try withWritersHeldOff(file, { (walHolds: (ClosedRange<Int64>) -> Bool) throws(SQLiteError) -> _FileLook in
                let look = try inspectFile(file, fileSize: fileSize, readFile: readFile)
                // Whole pages missing, each with a frame in the WAL not yet
                // checkpointed: readers find them there.
                if case let .cutShort(size, expected, pageSize) = look, size % pageSize == 0, expected > size,
                   walHolds(size / pageSize + 1...expected / pageSize) {
                    return .looksFine
                }
                return look
            }) {
                look = locked
            } else {
                // Another connection is writing the file now: a short look
                // proves nothing.
                look = .looksFine
            }
            switch look {
            case .looksFine:
                return
            case let .cutShort(size, expected, _):
                attempt += 1
                guard attempt < 6 else {
                    throw SQLiteError(code: SQLITE_CORRUPT, message: "the database file \(path) was cut short under the open connection: \(size) bytes, where its header says \(expected)")
                }
                usleep(UInt32(1_000 << (attempt - 1)))
            }
        }
    }

    /// Runs `body` while no other connection can write the main file, or
    /// returns `nil` when one holds the lock that would keep it off (it is
    /// writing the file now). `body` is given a test of whether every page
    /// of a range has a frame in the WAL not yet checkpointed into the main
    /// file (never, in rollback mode).
    ///
    /// In WAL mode only a checkpoint writes the main file, under the WAL's
    /// checkpoint lock: `body` runs holding that lock (taken without
    /// waiting, through the file's shared-memory methods, as SQLite takes
    /// it). In rollback mode a commit writes it under an exclusive lock,
    /// which a read transaction's shared lock keeps off: `body` runs in
    /// one (SQLite waits up to the connection's busy timeout for it).
    private func withWritersHeldOff<T>(
        _ file: UnsafeMutablePointer<sqlite3_file>, _ body: (_ walHolds: (ClosedRange<Int64>) -> Bool) throws(SQLiteError) -> T
    ) throws(SQLiteError) -> T? {
        // No more pages than the WAL file has room for frames.
        let roomInWALFile = { (pages: ClosedRange<Int64>) -> Bool in Int64(pages.count) <= self.framesInWALFile() }
        let mode = try database.rows("PRAGMA journal_mode").first?.first?.string?.lowercased()
        if mode == "wal" {
            // With locking_mode = EXCLUSIVE no other connection can open
            // the file, and the WAL index is not shared memory: every frame
            // of the WAL file may be one not yet checkpointed.
            if try database.rows("PRAGMA locking_mode").first?.first?.string?.lowercased() == "exclusive" {
                return try body(roomInWALFile)
            }
            // A read maps the WAL index, whose locks the check takes (a
            // connection in WAL mode keeps it mapped until it closes).
            do throws(SQLiteError) {
                _ = try database.rows("SELECT count(*) FROM sqlite_schema")
            } catch {
                if error.code == SQLITE_BUSY { return nil }
                throw error
            }
            guard let methods = file.pointee.pMethods, methods.pointee.iVersion >= 2, let shmLock = methods.pointee.xShmLock,
                  let shmMap = methods.pointee.xShmMap
            else { return try body(roomInWALFile) }
            // Mapped already by the read above: this only returns the map.
            var region: UnsafeMutableRawPointer?
            guard shmMap(file, 0, 32_768, 0, &region) == SQLITE_OK, let region else { return try body(roomInWALFile) }
            let checkpointLock: Int32 = 1  // WAL_CKPT_LOCK in SQLite's wal.c
            guard shmLock(file, checkpointLock, 1, SQLITE_SHM_LOCK | SQLITE_SHM_EXCLUSIVE) == SQLITE_OK else { return nil }
            defer { _ = shmLock(file, checkpointLock, 1, SQLITE_SHM_UNLOCK | SQLITE_SHM_EXCLUSIVE) }
            return try body { pages in
                Self.walIndex(UnsafeRawPointer(region), holds: pages) { index in
                    var mapped: UnsafeMutableRawPointer?
                    guard shmMap(file, Int32(index), 32_768, 0, &mapped) == SQLITE_OK else { return nil }
                    return mapped.map(UnsafeRawPointer.init)
                } ?? roomInWALFile(pages)
            }
        }
        // Inside a transaction already: its shared lock holds writers off.
        guard sqlite3_get_autocommit(database.handle) != 0 else { return try body { _ in false } }
        do throws(SQLiteError) {
            try database.execute("BEGIN DEFERRED")
            _ = try database.rows("SELECT count(*) FROM sqlite_schema")
        } catch {
            _ = try? database.execute("ROLLBACK")
            if error.code == SQLITE_BUSY { return nil }
            throw error
        }
        defer { _ = try? database.execute("ROLLBACK") }
        return try body { _ in false }
    }

    /// Whether every page in `pages` has a frame in the WAL past the last
    /// checkpoint, from the WAL index: `nil` when the index cannot say (it
    /// is being rewritten, the WAL restarting, or a region is not mapped).
    ///
    /// The index (SQLite's `wal.c`) starts with two copies of a 48-byte
    /// header, each with the last valid frame at byte 16, then the
    /// checkpoint's progress at byte 96, all in native byte order. The page
    /// number of each frame follows, 4 bytes each: frames 1 to 4,062 from
    /// byte 136 of the first 32 KiB region, then 4,096 at the start of each
    /// next region (after them, each region holds a hash table).
    ///
    /// Read under the checkpoint lock, the checkpoint's progress holds
    /// still, and so do the frames past it up to the last (a writer only
    /// appends; the WAL restarts only once every frame is checkpointed);
    /// the last frame only grows while a writer commits, and the larger of
    /// the two copies is taken.
    ///
    /// - Complexity: O(*f*), *f* the frames not yet checkpointed; none are
    ///   read when `pages` holds more pages than that.
    private static func walIndex(
        _ index: UnsafeRawPointer, holds pages: ClosedRange<Int64>, region: (Int) -> UnsafeRawPointer?
    ) -> Bool? {
        let lastFrame = Int(max(index.load(fromByteOffset: 16, as: UInt32.self), index.load(fromByteOffset: 48 + 16, as: UInt32.self)))
        let checkpointed = Int(index.load(fromByteOffset: 96, as: UInt32.self))
        guard lastFrame >= checkpointed else { return nil }
        guard pages.count <= lastFrame - checkpointed else { return false }
        let firstRegionFrames = 4_062, regionFrames = 4_096
        var missing = Set(pages)
        var (mappedIndex, base) = (0, index)
        var frame = checkpointed + 1
        while frame <= lastFrame, !missing.isEmpty {
            let regionIndex = frame <= firstRegionFrames ? 0 : (frame - firstRegionFrames - 1) / regionFrames + 1
            if regionIndex != mappedIndex {
                guard let mapped = region(regionIndex) else { return nil }
                (mappedIndex, base) = (regionIndex, mapped)
            }
            let offset = regionIndex == 0 ? 136 + 4 * (frame - 1) : 4 * (frame - firstRegionFrames - (regionIndex - 1) * regionFrames - 1)
            missing.remove(Int64(base.load(fromByteOffset: offset, as: UInt32.self)))
            frame += 1
        }
        return missing.isEmpty
    }

    /// How many frames the WAL file has room for: no fewer than it holds
    /// past the last checkpoint.
    private func framesInWALFile() -> Int64 {
        var walStatus = stat()
        guard stat(path + "-wal", &walStatus) == 0, walStatus.st_size > 32 else { return 0 }
        let pageSize = (try? database.rows("PRAGMA page_size").first?.first?.int64) ?? 4096
        // A 32-byte file header, then frames of a 24-byte header and a page.
        return (Int64(walStatus.st_size) - 32) / (max(pageSize, 512) + 24)
    }

    /// What one look at the file's size and header finds.
    private enum _FileLook {
        case looksFine
        /// Shorter than `expected` bytes, or not a whole number of pages.
        case cutShort(size: Int64, expected: Int64, pageSize: Int64)
    }

    /// Reads the file's size, then its header, through SQLite's handle.
    ///
    /// - Throws: for an emptied file, an unreadable or foreign header.
    private func inspectFile(
        _ file: UnsafeMutablePointer<sqlite3_file>,
        fileSize: @convention(c) (UnsafeMutablePointer<sqlite3_file>?, UnsafeMutablePointer<sqlite3_int64>?) -> Int32,
        readFile: @convention(c) (UnsafeMutablePointer<sqlite3_file>?, UnsafeMutableRawPointer?, Int32, sqlite3_int64) -> Int32
    ) throws(SQLiteError) -> _FileLook {
        var size: sqlite3_int64 = 0
        guard fileSize(file, &size) == SQLITE_OK else { return .looksFine }
        // An empty file is a database with no pages yet, or one whose pages
        // are all still in its WAL; it was emptied when the WAL is empty
        // too and the connection knows pages it had.
        guard size > 0 else {
            var walStatus = stat()
            if stat(path + "-wal", &walStatus) == 0 && walStatus.st_size > 0 { return .looksFine }
            if let pages = try database.rows("PRAGMA page_count").first?.first?.int64, pages > 0 {
                throw SQLiteError(code: SQLITE_CORRUPT, message: "the database file \(path) was emptied under the open connection, which holds \(pages) pages of it")
            }
            return .looksFine
        }
        var header = [UInt8](repeating: 0, count: 100)
        let read = header.withUnsafeMutableBytes { readFile(file, $0.baseAddress, 100, 0) }
        // A short read leaves zeros, which fail the checks below; any other
        // failure is the device's.
        if read != SQLITE_OK && read != SQLITE_IOERR | 2 << 8 /* SHORT_READ */ {
            throw SQLiteError(code: read & 0xFF, extendedCode: read, message: "cannot read the header of the database file \(path)")
        }
        let magic = Array("SQLite format 3\0".utf8)
        guard Array(header[0..<16]) == magic else {
            throw SQLiteError(code: SQLITE_NOTADB, message: "the database file \(path) is no longer a database: its header was overwritten under the open connection")
        }
        func bigEndian(_ range: Range<Int>) -> Int64 { header[range].reduce(0) { $0 << 8 | Int64($1) } }
        let pageSize = bigEndian(16..<18) == 1 ? 65_536 : bigEndian(16..<18)
        guard pageSize >= 512, pageSize <= 65_536, pageSize & (pageSize - 1) == 0 else {
            throw SQLiteError(code: SQLITE_NOTADB, message: "the database file \(path) is no longer a database: its header names a page size of \(pageSize) bytes")
        }
        // The page count in the header is valid when the change counter
        // equals the version it is valid for.
        let pageCount = bigEndian(28..<32)
        let headerCountValid = bigEndian(24..<28) == bigEndian(92..<96)
        if size % pageSize != 0 || (headerCountValid && size < pageCount * pageSize) {
            return .cutShort(size: size, expected: headerCountValid ? pageCount * pageSize : size / pageSize * pageSize + pageSize, pageSize: pageSize)
        }
        return .looksFine
    }
}
