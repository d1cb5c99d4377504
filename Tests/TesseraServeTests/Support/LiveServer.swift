import Foundation
import TesseraTestTraits
#if canImport(Glibc)
import Glibc
#endif

/// `tessera serve` over a small photo table, run by the built executable
/// on a free port, with `sqlite3` to change the table as another process.
final class LiveServer {
    /// `sqlite3`'s path, or nil when it is not installed.
    static let sqlite3: String? = ["/usr/bin/sqlite3", "/usr/local/bin/sqlite3", "/bin/sqlite3"].first { FileManager.default.isExecutableFile(atPath: $0) }

    /// The built `tessera`: next to the test binary (the test target
    /// depends on it), or in .build/debug.
    static let executable: URL = {
        var folder = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
        while folder.path != "/" {
            let candidate = folder.appendingPathComponent("tessera")
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: candidate.path, isDirectory: &isDirectory), !isDirectory.boolValue { return candidate }
            if folder.lastPathComponent == ".build" { break }
            folder = folder.deletingLastPathComponent()
        }
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        return root.appendingPathComponent(".build/debug/tessera")
    }()

    /// The albums of the table, in section order, each with its photos'
    /// count.
    static let albums = [("Alps", 40), ("Berlin", 30), ("Coast", 30)]

    let folder: URL
    let database: URL
    /// `http://127.0.0.1:PORT/`.
    private(set) var address = ""
    let process = Process()
    private let output = Output()

    /// What the server printed, read by the pipe's handler.
    private final class Output: @unchecked Sendable {
        // Guards `text`, written on the pipe's reading thread and read by the test.
        private let lock = NSLock()
        private var text = ""
        func append(_ data: Data) { lock.withLock { text += String(decoding: data, as: UTF8.self) } }
        var value: String { lock.withLock { text } }
    }

    /// Creates the table `photo(id, album, title, position)` and starts
    /// serving it, sectioned by album, sorted and reordered by position.
    init() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("tessera-serve-browser-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        database = folder.appendingPathComponent("photos.sqlite")
        var sql = "PRAGMA journal_mode = WAL; CREATE TABLE photo(id INTEGER PRIMARY KEY, album TEXT NOT NULL, title TEXT NOT NULL, position INTEGER NOT NULL); BEGIN;"
        var id = 1
        for (album, count) in Self.albums {
            for position in 0..<count {
                sql += "INSERT INTO photo VALUES (\(id), '\(album)', '\(album) \(position + 1)', \(position));"
                id += 1
            }
        }
        sql += "COMMIT;"
        try sqlite(sql)

        process.executableURL = Self.executable
        process.arguments = ["serve", database.path, "--table", "photo", "--section", "album", "--sort", "position",
                             "--title", "title", "--order", "position", "--port", "0"]
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        let output = self.output
        pipe.fileHandleForReading.readabilityHandler = { handle in output.append(handle.availableData) }
        try process.run()
        // A hang guard of the server's start only (generous for a busy
        // machine), its clock started with the child process.
        let deadline = Date().addingTimeInterval(120)
        while Date() < deadline {
            let text = output.value
            if let range = text.range(of: "address: ") {
                let rest = text[range.upperBound...]
                if let end = rest.firstIndex(where: { $0 == " " || $0 == "\n" }) {
                    address = String(rest[..<end])
                    if !address.hasSuffix("/") { address += "/" }
                    return
                }
            }
            guard process.isRunning else { break }
            usleep(20_000)
        }
        stop()
        throw DevToolsError("tessera serve did not print its address within 120 s: \(output.value)")
    }

    /// Runs SQL in a separate `sqlite3` process (waiting up to 120 s for a
    /// lock the server holds for a moment: a limit against a hang only).
    func sqlite(_ sql: String) throws {
        let run = Process()
        run.executableURL = URL(fileURLWithPath: try sqlitePath())
        run.arguments = ["-cmd", ".timeout 120000", database.path, sql]
        let errors = Pipe()
        run.standardError = errors
        run.standardOutput = FileHandle.nullDevice
        try run.run()
        let message = String(decoding: try errors.fileHandleForReading.readToEnd(within: 300, "sqlite3's errors"), as: UTF8.self)
        guard try run.exit(within: 300).succeeded else { throw DevToolsError("sqlite3 \(sql.prefix(80)): \(message)") }
    }

    /// The titles of an album's photos in position order, as `sqlite3`
    /// reads them.
    func titles(album: String) throws -> [String] {
        let run = Process()
        run.executableURL = URL(fileURLWithPath: try sqlitePath())
        run.arguments = [database.path, "SELECT title FROM photo WHERE album = '\(album)' ORDER BY position, id"]
        let out = Pipe()
        run.standardOutput = out
        try run.run()
        let data = try out.fileHandleForReading.readToEnd(within: 300, "sqlite3's output")
        _ = try run.exit(within: 300)
        return String(decoding: data, as: UTF8.self).split(separator: "\n").map(String.init)
    }

    private func sqlitePath() throws -> String {
        guard let path = Self.sqlite3 else { throw DevToolsError("sqlite3 is not installed") }
        return path
    }

    /// Stops the server and removes the folder.
    func stop() {
        if process.isRunning {
            process.interrupt()
            // Not a wait a test passes or fails by: past 5 s the server
            // is killed instead.
            let deadline = Date().addingTimeInterval(5)
            while process.isRunning, Date() < deadline { usleep(20_000) }
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        }
        (process.standardOutput as? Pipe)?.fileHandleForReading.readabilityHandler = nil
        try? FileManager.default.removeItem(at: folder)
    }

    deinit { stop() }
}

/// Screenshots of the browser tests, kept in the temporary folder's
/// `serve-shots` for a person to look at.
enum Screenshots {
    static func save(_ page: BrowserPage, _ name: String) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("serve-shots")
        try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        if let data = try? page.screenshot() {
            try? data.write(to: folder.appendingPathComponent("\(name).png"))
        }
    }
}
