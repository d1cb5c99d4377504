import CSQLite
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
    /// - Complexity: one read of the file's first 100 bytes, through
    ///   SQLite's own file handle; a file that looks cut short is read again
    ///   up to five times, over about 31 ms, before the error.
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
            switch try inspectFile(file, fileSize: fileSize, readFile: readFile) {
            case .looksFine:
                return
            case let .cutShort(size, expected):
                attempt += 1
                guard attempt < 6 else {
                    throw SQLiteError(code: SQLITE_CORRUPT, message: "the database file \(path) was cut short under the open connection: \(size) bytes, where its header says \(expected)")
                }
                usleep(UInt32(1_000 << (attempt - 1)))
            }
        }
    }

    /// What one look at the file's size and header finds.
    private enum _FileLook {
        case looksFine
        case cutShort(size: Int64, expected: Int64)
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
            return .cutShort(size: size, expected: headerCountValid ? pageCount * pageSize : size / pageSize * pageSize + pageSize)
        }
        return .looksFine
    }
}
