import Foundation
import Testing
import TesseraSQLite
import TesseraRender
import TesseraTestTraits

/// Every error the commands report: one line on standard error naming the
/// culprit, a non-zero exit status, never a stack trace.
@Suite("tessera errors, end to end", .tags(.process), .ownThreads)
struct ErrorTests {
    static let diffFolder = Tool.fixtures.appendingPathComponent("diff")

    func expectError(_ arguments: [String], in folder: URL = diffFolder, message: String, status: Int32,
                     sourceLocation: SourceLocation = #_sourceLocation) throws {
        let result = try Tool.run(arguments, in: folder)
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
        try expectError(["diff", "secret.json", "secret.json"], in: folder, message: "secret.json: cannot be read: permission denied", status: 1)
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

    @Test("a missing database, table or column is named, with status 2")
    func missingTableOrColumn() throws {
        let (folder, path) = try makeDatabase()
        defer { try? FileManager.default.removeItem(at: folder) }
        try expectError(["watch", "nope.sqlite", "--table", "photo"], in: folder, message: "nope.sqlite: no such database file", status: 2)
        try expectError(["watch", path, "--table", "photos"], message: "no such table: photos in \(path) (it has: photo)", status: 2)
        try expectError(["watch", path, "--table", "photo", "--sort", "date desc"],
                        message: "--sort: no such column: date in table photo (its columns: id, album, title, taken)", status: 2)
        try expectError(["watch", path, "--table", "photo", "--section", "folder"],
                        message: "--section: no such column: folder in table photo (its columns: id, album, title, taken)", status: 2)
        try expectError(["watch", path, "--table", "photo", "--where", "rating > ?", "--arg", "3"],
                        message: "--where \"rating > ?\": no such column: rating", status: 2)
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

    @Test("--busy-timeout out of range (negative, NaN, past a day, past what SQLite takes) is an option error, not a crash")
    func busyTimeoutBounds() throws {
        let (folder, path) = try makeDatabase()
        defer { try? FileManager.default.removeItem(at: folder) }
        for (value, shown) in [("-1", "-1"), ("nan", "nan"), ("86401", "86401"), ("1e300", "1e+300"), ("inf", "inf")] {
            try expectError(["watch", path, "--table", "photo", "--busy-timeout", value],
                            message: "--busy-timeout \(shown): the seconds to wait for a lock must be from 0 to 86400", status: 64)
        }
    }

    /// Runs a command that must fail with a usage error: status 64, one
    /// line on standard error that starts `tessera: error: ` and holds each
    /// of `fragments`, nothing on standard output.
    func expectUsageError(_ arguments: [String], containing fragments: [String], sourceLocation: SourceLocation = #_sourceLocation) throws {
        let result = try Tool.run(arguments, in: Self.diffFolder)
        let context = "tessera \(arguments.joined(separator: " ")): \(result.stderr)"
        #expect(result.status == 64, "\(context)", sourceLocation: sourceLocation)
        #expect(result.stderr.hasPrefix("tessera: error: "), "\(context)", sourceLocation: sourceLocation)
        #expect(result.stderr.hasSuffix("\n") && result.stderr.dropLast().split(separator: "\n").count == 1, "\(context)", sourceLocation: sourceLocation)
        for fragment in fragments {
            #expect(result.stderr.contains(fragment), "\(context) lacks \(fragment)", sourceLocation: sourceLocation)
        }
        #expect(result.stdout.isEmpty, sourceLocation: sourceLocation)
    }

    @Test("negative numbers are read as numbers and rejected with their range")
    func negativeNumbers() throws {
        try expectError(["demo", "--photos", "-5"], message: "--photos -5: the number of photos must be from 2000 to 1000000", status: 64)
        try expectError(["demo", "--photos", "1000001"], message: "--photos 1000001: the number of photos must be from 2000 to 1000000", status: 64)
        try expectError(["diff", "photos-old.json", "photos-new.json", "--width", "-1"],
                        message: "--width -1: the viewport's width must be a positive number up to 100000", status: 64)
        try expectError(["diff", "photos-old.json", "photos-new.json", "--layout", "list", "--height", "-20"],
                        message: "--height -20: the viewport's height must be a positive number up to 100000", status: 64)
        try expectError(["bench", "diff", "--count", "-5"], message: "--count -5: must be at least 1", status: 64)
        // Too many to allocate is an option error too, not a crash.
        try expectError(["bench", "diff", "--count", "10000000000000"], message: "--count 10000000000000: must be at most 10000000", status: 64)
    }

    @Test("the parser's errors are one line that starts with tessera: error:, status 64")
    func parserErrorsAreOneLine() throws {
        try expectError(["diff", "photos-old.json"], message: "missing expected argument '<new>'", status: 64)
        try expectError(["demo", "--photos"], message: "missing value for '--photos <photos>'", status: 64)
        try expectError(["watch", "photos.sqlite"], message: "missing expected argument '--table <table>'", status: 64)
        try expectUsageError(["diff", "photos-old.json", "photos-new.json", "--frob"], containing: ["unknown option '--frob'"])
        try expectUsageError(["demo", "--photos", "many"], containing: ["'many'", "--photos"])
        try expectUsageError(["diff", "photos-old.json", "photos-new.json", "--policy", "sideways"],
                             containing: ["'sideways'", "--policy", "'delete-insert'", "'move-then-reload'"])
    }

    @Test("an unknown subcommand is named as unknown")
    func unknownSubcommand() throws {
        // `serve` and `bench serve` are built with the LiveServer trait
        // (a default one).
#if LiveServer
        let serve = ", serve"
#else
        let serve = ""
#endif
        try expectError(["bogus"], message: "tessera does not know 'bogus': its subcommands are demo, watch, log, diff, render, bench\(serve)", status: 64)
        try expectError(["bench", "bogus"], message: "tessera bench does not know 'bogus': its subcommands are diff\(serve)", status: 64)
        // After an option, a word is its value: the demo's options work
        // without naming it.
        try expectError(["--photos", "5"], message: "--photos 5: the number of photos must be from 2000 to 1000000", status: 64)
        try expectError(["--html", "nowhere/page.html"], message: "cannot write nowhere/page.html: no such folder nowhere", status: 1)
    }

    @Test("--where and --arg are checked before anything runs: each refusal names the option and what is wrong, and the table is as it was", arguments: RefusedFilter.all)
    func refusedFilter(_ filter: RefusedFilter) throws {
        let (folder, path) = try makeDatabase()
        defer { try? FileManager.default.removeItem(at: folder) }
        let arguments = ["watch", path, "--table", "photo"] + (filter.predicate.map { ["--where", $0] } ?? []) + filter.arguments.flatMap { ["--arg", $0] }
        try expectError(arguments, message: filter.message, status: filter.status)
        let rows = try Connection(path: path).read { db in try db.rows("SELECT count(*) FROM photo") }
        #expect(rows == [[.integer(2)]])
    }

    @Test("a table without an id column needs --key, and the error says rowid works")
    func keyHint() throws {
        let (folder, path) = try makeDatabase()
        defer { try? FileManager.default.removeItem(at: folder) }
        try Connection(path: path, journalModeWAL: false).write { db in try db.execute("CREATE TABLE tag (name TEXT, weight INTEGER)") }
        try expectError(["watch", path, "--table", "tag"],
                        message: "--key: no such column: id in table tag (its columns: name, weight; --key rowid keys rows by their row id)", status: 2)
    }

    @Test("render checks --width and --height as diff does")
    func renderViewportBounds() throws {
        try expectError(["render", "photos-old.json", "--html", "never.html", "--width", "-1"],
                        message: "--width -1: the viewport's width must be a positive number up to 100000", status: 64)
        try expectError(["render", "photos-old.json", "--html", "never.html", "--height", "1e19"],
                        message: "--height 1e+19: the viewport's height must be a positive number up to 100000", status: 64)
        #expect(!FileManager.default.fileExists(atPath: Self.diffFolder.appendingPathComponent("never.html").path))
    }

    @Test("render refuses a file with nothing to draw")
    func renderEmptyPlan() throws {
        let folder = try Tool.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        try "[]".write(to: folder.appendingPathComponent("none.json"), atomically: true, encoding: .utf8)
        try expectError(["render", "none.json", "--html", "page.html"], in: folder, message: "none.json: no plan to draw (an empty array)", status: 1)
        // The plan of a change between two empty snapshots has no element.
        let empty = folder.appendingPathComponent("empty.json")
        try #"{"sections": []}"#.write(to: empty, atomically: true, encoding: .utf8)
        let diffed = try Tool.run(["diff", "empty.json", "empty.json", "--layout", "list", "--json"], in: folder)
        try #require(diffed.status == 0, "\(diffed.stderr)")
        try diffed.stdout.write(to: folder.appendingPathComponent("plan.json"), atomically: true, encoding: .utf8)
        try expectError(["render", "plan.json", "--html", "page.html"], in: folder, message: "plan.json: the plan is empty: no element to draw", status: 1)
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("page.html").path))
    }

    @Test("files that cannot be read or written get plain messages")
    func plainFileMessages() throws {
        try expectError(["diff", "/dev/null", "photos-new.json"], message: "/dev/null: the file is empty", status: 1)
        let folder = try Tool.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        try expectError(["demo", "--html", folder.path, "--database", folder.appendingPathComponent("photos.sqlite").path],
                        message: "cannot write \(folder.path): is a directory", status: 1)
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("photos.sqlite").path), "the demo seeded its database before finding it cannot write its page")
        try expectError(["diff", "photos-old.json", "photos-new.json", "--html", folder.appendingPathComponent("no/such/page.html").path],
                        message: "cannot write \(folder.appendingPathComponent("no/such/page.html").path): no such folder \(folder.appendingPathComponent("no/such").path)", status: 1)
    }
}

/// A `--where` and `--arg` values that `tessera watch` refuses, with the
/// behaviour the case shows, the one line it prints and its status.
struct RefusedFilter: CustomTestStringConvertible, Sendable {
    let behaviour: String
    let predicate: String?
    let arguments: [String]
    let message: String
    let status: Int32

    var testDescription: String {
        "\(behaviour): " + ((predicate.map { ["--where", $0] } ?? []) + arguments.flatMap { ["--arg", $0] }).joined(separator: " ")
    }

    static let all: [RefusedFilter] = checkedAgainstTheTable + oneConditionOnly + onePlaceholderPerArgument

    /// --where is checked against the table: a bad one names the option
    /// and the predicate, not the file.
    static let checkedAgainstTheTable = [
        RefusedFilter(behaviour: "a syntax error names the option and the predicate", predicate: "taken >", arguments: [],
                      message: "--where \"taken >\": near \")\": syntax error", status: 64),
        RefusedFilter(behaviour: "a syntax error after a placeholder names the option and the predicate", predicate: "taken > ? AND", arguments: ["1"],
                      message: "--where \"taken > ? AND\": near \")\": syntax error", status: 64),
        RefusedFilter(behaviour: "a missing table names the option and the predicate", predicate: "album IN (SELECT name FROM albums)", arguments: [],
                      message: "--where \"album IN (SELECT name FROM albums)\": no such table: albums", status: 2),
    ]

    /// --where stays one condition: a ; with a second statement, or a /*
    /// or quote left open, is refused and nothing runs.
    static let oneConditionOnly = [
        RefusedFilter(behaviour: "a ; with a second statement is refused", predicate: "1=1; DROP TABLE photo", arguments: [],
                      message: "--where \"1=1; DROP TABLE photo\" is refused: it holds a ';' (at byte 3): what follows would be a second statement", status: 64),
        RefusedFilter(behaviour: "a /* left open is refused", predicate: "taken > 0 /* and the rest", arguments: [],
                      message: "--where \"taken > 0 /* and the rest\" is refused: it opens a /* comment at byte 10 that it does not close, which would swallow the rest of the statement", status: 64),
        RefusedFilter(behaviour: "a parenthesis closed that it did not open is refused", predicate: "1) ORDER BY id DESC --", arguments: [],
                      message: "--where \"1) ORDER BY id DESC --\" is refused: it closes a parenthesis it did not open (at byte 1)", status: 64),
        // SQLite reads `$a(')` as one parameter: the quote in it hides nothing.
        RefusedFilter(behaviour: "a quote inside a parameter name hides nothing", predicate: "1 OR $a(') ) /* ')", arguments: ["1"],
                      message: "--where \"1 OR $a(') ) /* ')\" is refused: it closes a parenthesis it did not open (at byte 11)", status: 64),
    ]

    /// --arg values must match the ? placeholders of --where, one for one.
    static let onePlaceholderPerArgument = [
        RefusedFilter(behaviour: "fewer --arg values than placeholders", predicate: "taken > ? AND album = ?", arguments: ["10"],
                      message: "--where \"taken > ? AND album = ?\" has 2 ? placeholders but 1 --arg value was given", status: 64),
        RefusedFilter(behaviour: "more --arg values than placeholders", predicate: "taken > ?", arguments: ["10", "Paris"],
                      message: "--where \"taken > ?\" has 1 ? placeholder but 2 --arg values were given", status: 64),
        RefusedFilter(behaviour: "an --arg for a --where without placeholders", predicate: "taken > 10", arguments: ["-3"],
                      message: "--where \"taken > 10\" has 0 ? placeholders but 1 --arg value was given", status: 64),
        RefusedFilter(behaviour: "an --arg without a --where", predicate: nil, arguments: ["10"],
                      message: "--arg: 1 value but no --where with ? placeholders to bind it to", status: 64),
    ]
}
