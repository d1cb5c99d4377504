import Foundation
import Hummingbird
import HummingbirdWebSocket
import Testing
import TesseraRender
import TesseraSQLite
import TesseraLiveHub
import TesseraLiveProtocol
import TesseraServe
import TesseraTestTraits

/// A ``LiveList`` mounted on an application's own router, through its
/// public API only: beside the application's routes, under a path, with a
/// plain WebSocket context (frames through the WebSocket's writer), an
/// edit token, loopback hosts only and a set of edits.
@Suite("Live list mounted in an application")
struct LiveListMountTests {
    @Test("the page and the socket answer under the mount path beside the app's own route; Host, Origin, token and allowed edits are enforced; other connections' commits reach the client")
    func mountedWithBasicContext() async throws {
        let library = try HubLibrary(photos: 60, albums: 3)
        let list = try LiveList(
            database: library.path, table: "photo",
            columns: LiveList.Columns(section: "album", sort: "position", title: "title", order: "position"),
            edits: [.rename, .delete],
            access: LiveList.Access(editToken: "s3cret", loopbackHostsOnly: true)
        )
        let router = Router(context: BasicWebSocketRequestContext.self)
        router.get("/") { _, _ in "the app's own page" }
        list.mount(on: router, at: "/team/photos/")
        let path = library.path
        try await withMountedApplication(router: router, list: list) { port in
            let host = "127.0.0.1:\(port)"
            try await ServerTestSupport.blocking {
                #expect(try RawClient(port: port).get("/", host: host).body == "the app's own page")
                let page = try RawClient(port: port).get("/team/photos", host: host)
                #expect(page.status == 200 && page.body.contains("<title>Tessera · live list</title>"))
                #expect(try RawClient(port: port).get("/team/photos", host: "evil.example:\(port)").status == 403)
                #expect(try RawClient(port: port).get("/team/photos/live", host: host).status == 426)
                #expect(try RawClient(port: port).upgrade("/team/photos/live", host: host, origin: "http://evil.example").status != 101)
                #expect(try RawClient(port: port).upgrade("/team/photos/live", host: "evil.example", origin: nil).status != 101)

                // A reader (no token) and an editor.
                let reader = try RawClient(port: port)
                #expect(try reader.upgrade("/team/photos/live", host: host, origin: "http://\(host)").status == 101)
                let editor = try RawClient(port: port)
                #expect(try editor.upgrade("/team/photos/live?token=s3cret", host: host).status == 101)
                for client in [reader, editor] {
                    try client.sendText(#"{"type":"hello","layout":"list","viewport":[0,0,400,800],"ids":true}"#)
                }
                let snapshot = try reader.readMessage(ofType: "snapshot")
                #expect(snapshot["editable"] == .bool(false) && HubReplica.strings(snapshot["edits"]).isEmpty)
                let editorSnapshot = try editor.readMessage(ofType: "snapshot")
                #expect(editorSnapshot["editable"] == .bool(true))
                #expect(HubReplica.strings(editorSnapshot["edits"]) == ["rename", "delete"])
                let first = HubReplica.strings(HubReplica.array(snapshot["ids"]).first).first ?? "?"

                try reader.sendText(#"{"type":"rename","request":1,"id":"\#(first)","title":"Nope"}"#)
                #expect(try reader.readMessage(ofType: "error")["code"] == .string("forbidden"))
                try editor.sendText(#"{"type":"move","request":2,"id":"\#(first)","to":1}"#)
                #expect(try editor.readMessage(ofType: "error")["code"] == .string("readOnly"))
                try editor.sendText(#"{"type":"rename","request":3,"id":"\#(first)","title":"Renamed"}"#)
                #expect(try editor.readMessage(ofType: "done")["request"] == .number("3"))
                #expect(try reader.readMessage(ofType: "plan")["changeset"]?["itemUpdates"] != nil)

                // Another connection's commit reaches both.
                let writer = try Connection(path: path)
                try writer.write { db in try db.execute("UPDATE photo SET album = 'Cairo', position = 99 WHERE id = ?", [.integer(Int64(first)!)]) }
                for client in [reader, editor] {
                    #expect(try client.readMessage(ofType: "plan")["changeset"]?["itemMoves"] != nil)
                }
                let titles = try writer.withDatabase { db in try db.rows("SELECT title FROM photo WHERE id = ?", [.integer(Int64(first)!)]) }
                #expect(titles.first?.first?.string == "Renamed")
            }
            // The clients closed their sockets: the list lets them go.
            let released = try await waitInRounds(12_000, every: .milliseconds(10)) { list.connectedClients == 0 }
            #expect(released, "\(list.connectedClients) clients still connected 12,000 rounds of 10 ms after they closed")
        }
    }
}
