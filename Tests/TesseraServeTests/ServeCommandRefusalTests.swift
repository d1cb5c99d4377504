import Foundation
import Testing
import TesseraTestTraits
@testable import TesseraLiveHub
@testable import TesseraLiveProtocol
@testable import TesseraServe
import TesseraSQLite

/// `tessera serve` on tables it cannot serve as asked: each is status 2
/// and one line naming why; the help says what `--table` takes.
@Suite("tessera serve refuses a table it cannot serve, in one line", .tags(.process))
struct ServeCommandRefusalTests {
    @Test("a view, a table without row ids or a single-column key, and a missing title column are status 2, one line")
    func tablesItCannotServe() async throws {
        let (path, _) = try makeScratchDatabase("tessera-serve-refusal") { db in
            try db.execute("CREATE TABLE photo (id INTEGER PRIMARY KEY, title TEXT, n INTEGER)")
            try db.execute("CREATE VIEW recent AS SELECT * FROM photo")
            try db.execute("CREATE TABLE pair (a INTEGER, b INTEGER, title TEXT, PRIMARY KEY (a, b)) WITHOUT ROWID")
        }
        defer { removeDatabaseFiles(at: path) }
        for (arguments, says) in [
            (["--table", "recent", "--sort", "id", "--title", "title"], "is a view"),
            (["--table", "pair", "--sort", "a", "--title", "title"], "neither a single-column primary key nor row ids"),
            (["--table", "photo", "--sort", "id", "--title", "name"], "--title: no such column: name"),
        ] {
            let result = try await ServeProcess.run(["serve", path] + arguments)
            #expect(result.status == 2, "\(arguments): \(result.stderr)")
            #expect(result.stderr.hasPrefix("tessera: error: ") && result.stderr.contains(says), "\(arguments): \(result.stderr)")
            #expect(result.stderr.filter { $0 == "\n" }.count == 1, "\(arguments): \(result.stderr)")
        }
    }

    @Test("the help does not offer views for --table")
    func helpSaysTable() async throws {
        let result = try await ServeProcess.run(["serve", "--help"])
        #expect(result.status == 0)
        #expect(!result.stdout.contains("table or view"), "serve refuses views, its help offers them")
    }
}
