import Foundation
import Testing
import TesseraTestTraits
import TesseraSQLite
@testable import TesseraLiveHub
@testable import TesseraLiveProtocol
@testable import TesseraServe

/// A demo library another process has open is never seeded again: a second
/// `tessera serve` on a taken port stops before it touches anything, one on
/// another port refuses to seed the library the first one serves, and
/// `tessera demo` refuses a database a server has open.
@Suite("Command serve: a library in use", .tags(.process), .ownThreads)
struct CommandServeLibraryInUseTests {
    /// The title of photo 1 and the number of photos, read and closed at
    /// once (an open connection of this process would count as one more
    /// process that has the file).
    static func state(of database: String) throws -> [[DatabaseValue]] {
        let connection = try Connection(path: database, mode: .readOnly)
        return try connection.read { db in try db.rows("SELECT title, (SELECT count(*) FROM photo) FROM photo WHERE id = 1") }
    }

    /// Starts `tessera serve` on the demo library in `folder` and marks
    /// photo 1 from another process; returns the server and its port.
    static func serveMarked(_ folder: URL, photos: Int) async throws -> (ServeProcess, Int) {
        let serve = try ServeProcess(["serve", "--port", "0", "--photos", "\(photos)"], temporaryFolder: folder)
        do {
            let lines = try await serve.waitForLines(2)
            let port = try #require(serve.port(), "\(lines)")
            let database = folder.appendingPathComponent("tessera-serve/photos.sqlite").path
            try await ServerTestSupport.blocking { try ServerTestSupport.sqlite3(database, "UPDATE photo SET title = 'MARK' WHERE id = 1") }
            return (serve, port)
        } catch {
            serve.kill()
            throw error
        }
    }

    @Test("a second serve on the port of a running one exits 1 with one line, and the first one's library stays as it is")
    func portInUse() async throws {
        let folder = try ServerTestSupport.temporaryFolder()
        let database = folder.appendingPathComponent("tessera-serve/photos.sqlite").path
        let (first, port) = try await Self.serveMarked(folder, photos: 300)
        defer { first.kill() }
        #expect(try Self.state(of: database) == [[.text("MARK"), .integer(300)]])

        let second = try await ServeProcess.run(["serve", "--port", "\(port)", "--photos", "500"], temporaryFolder: folder)
        #expect(second.status == 1, "\(second.stderr)")
        #expect(second.stderr == "tessera: error: cannot listen on 127.0.0.1:\(port): address already in use\n")
        #expect(second.stdout.isEmpty)
        #expect(try Self.state(of: database) == [[.text("MARK"), .integer(300)]])
        #expect(first.process.isRunning)
        let (status, _, _) = try await first.stop(signal: SIGTERM)
        #expect(status == 0)
    }

    @Test("a second serve on another port refuses, with status 3 and one line, to seed the library a running one serves")
    func libraryInUse() async throws {
        let folder = try ServerTestSupport.temporaryFolder()
        let database = folder.appendingPathComponent("tessera-serve/photos.sqlite").path
        let (first, port) = try await Self.serveMarked(folder, photos: 300)
        defer { first.kill() }

        let second = try await ServeProcess.run(["serve", "--port", "0", "--photos", "500"], temporaryFolder: folder)
        #expect(second.status == 3, "\(second.stderr)")
        #expect(second.stderr == "tessera: error: the demo library \(database) is open in another process (process \(first.process.processIdentifier)), "
            + "which would lose it if it were seeded again: stop that process, or give this one another folder with TMPDIR\n")
        #expect(second.stdout.isEmpty)
        #expect(try Self.state(of: database) == [[.text("MARK"), .integer(300)]])

        // The first server still serves its library, as it was.
        let snapshot = try await ServerTestSupport.blocking {
            let client = try RawClient(port: port)
            _ = try client.upgrade(host: "127.0.0.1:\(port)", origin: "http://127.0.0.1:\(port)")
            try client.sendText(#"{"type":"hello","layout":"list","viewport":[0,0,800,600],"ids":true}"#)
            return try client.readMessage(ofType: "snapshot")
        }
        let counts = HubReplica.array(snapshot["sections"]).map { HubTestClient.int($0["count"]) }
        #expect(counts.reduce(0, +) == 300)

        // Once it stops, the library is free to seed again.
        let (status, _, _) = try await first.stop(signal: SIGINT)
        #expect(status == 0)
        let third = try ServeProcess(["serve", "--port", "0", "--photos", "500"], temporaryFolder: folder)
        defer { third.kill() }
        _ = try await third.waitForLines(2)
        #expect(try Self.state(of: database) == [[.text(DemoLibrary(photoCount: 500).rows()[0].title), .integer(500)]])
        let (thirdStatus, _, _) = try await third.stop(signal: SIGTERM)
        #expect(thirdStatus == 0)
    }

    @Test("demo refuses, with status 3 and one line, to seed a database a server has open, and changes nothing in it")
    func demoOnAServedDatabase() async throws {
        let configuration = try ServerTestSupport.library(photos: 2_000)
        let database = configuration.databasePath
        try await ServerTestSupport.blocking { try ServerTestSupport.sqlite3(database, "UPDATE photo SET title = 'MARK' WHERE id = 1") }
        // A server of the file itself takes no claim: what shows it has
        // the file is its open connection.
        let serve = try ServeProcess([
            "serve", database, "--table", "photo", "--section", "album", "--sort", "position", "--title", "title", "--port", "0",
        ])
        defer { serve.kill() }
        _ = try await serve.waitForLines(2)
        let folder = try ServerTestSupport.temporaryFolder()
        let html = folder.appendingPathComponent("demo.html").path
        let demo = try await ServeProcess.run(["demo", "--database", database, "--html", html, "--photos", "2000"], temporaryFolder: folder)
        #expect(demo.status == 3, "\(demo.stderr)")
        #expect(demo.stderr == "tessera: error: \(database) is open in another process (process \(serve.process.processIdentifier)), "
            + "which would lose it if the demo seeded it again: stop that process, or give the demo another file with --database\n")
        #expect(demo.stdout.isEmpty)
        #expect(try Self.state(of: database) == [[.text("MARK"), .integer(2_000)]])
        #expect(!FileManager.default.fileExists(atPath: html))
        let (status, _, _) = try await serve.stop(signal: SIGTERM)
        #expect(status == 0)
    }

    @Test("a claim keeps out a second one, in this process too, until it is released")
    func claimsExclude() throws {
        let folder = try ServerTestSupport.temporaryFolder()
        let path = folder.appendingPathComponent("photos.sqlite").path
        func claimTwice() throws {
            let claim = try DatabaseFileClaim(path: path)
            #expect(throws: DatabaseFileClaimError(path: path, reason: .inUse(process: getpid()))) {
                try DatabaseFileClaim(path: path)
            }
            withExtendedLifetime(claim) {}
        }
        try claimTwice()
        // Released, it can be claimed again.
        try claimTwice()
    }
}
