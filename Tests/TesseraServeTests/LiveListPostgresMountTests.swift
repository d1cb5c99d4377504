import Foundation
import Hummingbird
import HummingbirdWebSocket
import Testing
import TesseraLiveProtocol
import TesseraPostgres
import TesseraPostgresTestSupport
import TesseraRender
import TesseraServe
import TesseraServePostgres
import TesseraTestTraits

/// `LiveList.open(postgres:…)` in an application of the user's own: the
/// list a client gets is the table's, an edit through it is one
/// transaction whose `done` follows its plan, and another connection's
/// commit reaches the client.
@Suite("Live list over PostgreSQL mounted in an application", .tags(.postgres))
struct LiveListPostgresMountTests {
    @Test("opened from async code and mounted: the table's list, an edit's done after its plan, another connection's commit")
    func openedAndMounted() async throws {
        let library = try await PostgresHubLibrary.make(photos: 30)
        let list = try await LiveList.open(
            postgres: library.url, table: "photo",
            columns: LiveList.Columns(section: "album", sort: "position", title: "title", order: "position")
        )
        let router = Router(context: BasicWebSocketRequestContext.self)
        router.get("/") { _, _ in "the app's own page" }
        list.mount(on: router, at: "/photos/")
        let before = try library.freshList()
        let writer = library.writer
        let (client, deleted, marker) = try await withMountedApplication(router: router, list: list) { port in
            try await ServerTestSupport.blocking { () throws -> (ServeTestReplica, String, String) in
                #expect(try RawClient(port: port).get("/", host: "127.0.0.1:\(port)").body == "the app's own page")
                let client = try ServeTestReplica(port: port, path: "/photos/live")
                #expect(client.replica.sections == before)
                let deleted = try #require(client.replica.sections.first?.ids.first)
                try client.client.sendText("{\"type\":\"delete\",\"request\":1,\"ids\":[\"\(deleted)\"]}")
                try client.readUntilDone(request: 1)
                // The plan that removes it came before its done.
                #expect(!client.replica.sections.contains { $0.ids.contains(deleted) })
                let marker = try writer.write(request: "commit a marker") { transaction in
                    try transaction.rows("INSERT INTO photo (album, title, position) VALUES ('Berlin', 'marker', 1000) RETURNING id")
                }.value.first?.first.map(ServeSchema.text(of:)) ?? ""
                try client.readUntil(shows: marker)
                return (client, deleted, marker)
            }
        }
        #expect(client.dones.count == 1 && client.errors.isEmpty, "\(client.errors.map(\.compactText))")
        #expect(client.replica.sections == (try library.freshList()))
        #expect(try library.writer.rows("SELECT count(*) FROM photo WHERE id = \(deleted)", request: "read").first?.first?.int64 == 0)
        #expect(!marker.isEmpty)
    }

    @Test("opened from async code over a table the database lacks: an error naming it, never the password")
    func openRefusesAMissingTable() async throws {
        let library = try await PostgresHubLibrary.make(photos: 1)
        // A password in the URL (which the test server does not check).
        let url = library.url.replacingOccurrences(of: "postgres://postgres@", with: "postgres://postgres:hunter2@")
        try #require(url.contains(":hunter2@"), "the test server's URL is not postgres://postgres@…: \(PostgresStore.redacted(library.url))")
        await #expect {
            _ = try await LiveList.open(postgres: url, table: "no_such_table", columns: LiveList.Columns(section: nil, sort: "id", title: "title"))
        } throws: { error in
            let text = "\(error)"
            return text.contains("no_such_table") && text.contains("photo") && !text.contains("hunter2")
        }
    }
}
