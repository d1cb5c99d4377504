import Foundation
import Testing
import TesseraSQLite

/// Every error the commands report: one line on standard error naming the
/// culprit, a non-zero exit status, never a stack trace.
@Suite("tessera errors, end to end")
struct ErrorTests {
    static let diffFolder = Tool.fixtures.appendingPathComponent("diff")

    func expectError(_ arguments: [String], in folder: URL = diffFolder, message: String, status: Int32,
                     sourceLocation: SourceLocation = #_sourceLocation) throws {
        let result = try Tool.run(arguments, in: folder, timeout: 60)
        #expect(result.status == status, "tessera \(arguments.joined(separator: " ")): \(result.stderr)", sourceLocation: sourceLocation)
        #expect(result.stderr == "tessera: error: \(message)\n", sourceLocation: sourceLocation)
        #expect(result.stdout.isEmpty, sourceLocation: sourceLocation)
    }

    /// A database with a `photo` table, in a fresh folder.
    func makeDatabase() throws -> (folder: URL, path: String) {
        let folder = try Tool.temporaryFolder()
        let path = folder.appendingPathComponent("photos.sqlite").path
        let connection = try Connection(path: path, journalModeWAL: false)
        try connection.write { db in
            try db.execute("CREATE TABLE photo (id INTEGER PRIMARY KEY, album TEXT, title TEXT, taken INTEGER)")
            try db.execute("INSERT INTO photo VALUES (1, 'Paris', 'Seine', 10), (2, 'Rome', 'Forum', 20)")
        }
        return (folder, path)
    }

    @Test("a missing snapshot file is named")
    func missingFile() throws {
        try expectError(["diff", "missing.json", "photos-new.json"], message: "missing.json: no such file", status: 1)
        try expectError(["diff", "photos-old.json", "nowhere/new.json"], message: "nowhere/new.json: no such file", status: 1)
    }

    @Test("a file that cannot be read is named")
    func unreadableFile() throws {
        try expectError(["diff", "expected", "photos-new.json"], message: "expected: is a directory, not a file", status: 1)
        guard getuid() != 0 else { return }   // root reads any file: the permission case cannot happen
        let folder = try Tool.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("secret.json")
        try "[]".write(to: file, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0], ofItemAtPath: file.path)
        try expectError(["diff", "secret.json", "secret.json"], in: folder, message: "secret.json: cannot be read (permission denied?)", status: 1)
    }

    @Test("invalid JSON gives the file, the line and the column")
    func invalidJSON() throws {
        try expectError(["diff", "photos-old.json", "invalid.json"],
                        message: "invalid.json: invalid JSON at line 4, column 5: unexpected '{': expected ',' or ']' in an array", status: 1)
        try expectError(["render", "invalid.json", "--html", "never.html"],
                        message: "invalid.json: invalid JSON at line 4, column 5: unexpected '{': expected ',' or ']' in an array", status: 1)
        #expect(!FileManager.default.fileExists(atPath: Self.diffFolder.appendingPathComponent("never.html").path))
    }

    @Test("duplicate ids in a snapshot name the id and both places")
    func duplicateIDs() throws {
        try expectError(["diff", "duplicate-items.json", "photos-new.json"],
                        message: "duplicate-items.json: duplicate item id \"3\" at sections[0].items[1] and sections[1].items[0]", status: 1)
        try expectError(["diff", "photos-old.json", "duplicate-sections.json"],
                        message: "duplicate-sections.json: duplicate section id \"a\" at sections[0] and sections[2]", status: 1)
    }

    @Test("a file that is not a plan is named, with where it differs")
    func notAPlan() throws {
        try expectError(["render", "photos-old.json", "--html", "never.html"],
                        message: "photos-old.json: not an animation plan: top level: missing \"elements\"", status: 1)
    }

    @Test("a missing database, table or column is named")
    func missingTableOrColumn() throws {
        let (folder, path) = try makeDatabase()
        defer { try? FileManager.default.removeItem(at: folder) }
        try expectError(["watch", "nope.sqlite", "--table", "photo"], in: folder, message: "nope.sqlite: no such database file", status: 1)
        try expectError(["watch", path, "--table", "photos"], message: "no such table: photos in \(path) (it has: photo)", status: 2)
        try expectError(["watch", path, "--table", "photo", "--sort", "date desc"],
                        message: "--sort: no such column: date in table photo (its columns: id, album, title, taken)", status: 2)
        try expectError(["watch", path, "--table", "photo", "--section", "folder"],
                        message: "--section: no such column: folder in table photo (its columns: id, album, title, taken)", status: 2)
        try expectError(["watch", path, "--table", "photo", "--where", "rating > ?", "--arg", "3"],
                        message: "\(path): no such column: rating", status: 2)
        let text = folder.appendingPathComponent("notes.txt")
        try String(repeating: "not a database ", count: 100).write(to: text, atomically: true, encoding: .utf8)
        try expectError(["watch", text.path, "--table", "photo"], message: "\(text.path): not an SQLite database", status: 2)
    }

    @Test("a database another process keeps locked is named")
    func lockedDatabase() throws {
        let (folder, path) = try makeDatabase()
        defer { try? FileManager.default.removeItem(at: folder) }
        // This process holds an exclusive lock (rollback journal) while the
        // command starts.
        let holder = try Connection(path: path, journalModeWAL: false)
        try holder.withDatabase { db in
            try db.execute("BEGIN EXCLUSIVE")
            try db.execute("INSERT INTO photo VALUES (3, 'Oslo', 'Fjord', 30)")
        }
        defer { try? holder.withDatabase { db in try db.execute("ROLLBACK") } }
        try expectError(["watch", path, "--table", "photo", "--busy-timeout", "0.2"],
                        message: "\(path): the database is locked by another process (try again when it commits)", status: 3)
    }

    @Test("a viewport too large or not positive is an option error, not a crash")
    func viewportBounds() throws {
        try expectError(["diff", "photos-old.json", "photos-new.json", "--layout", "list", "--width", "1e19"],
                        message: "--width 1e+19: the viewport's width must be a positive number up to 100000", status: 64)
        try expectError(["diff", "photos-old.json", "photos-new.json", "--layout", "flow", "--height", "0"],
                        message: "--height 0: the viewport's height must be a positive number up to 100000", status: 64)
    }
}
