import Foundation
import Hummingbird
import HummingbirdWebSocket
import Testing
import TesseraSQLite
import TesseraTestSupport
import TesseraTestTraits
@testable import TesseraLiveHub
@testable import TesseraLiveProtocol
@testable import TesseraServe

/// The player module (`tessera-live.js`) as another front end uses it: a
/// page of its own that loads only the module from a running list, in
/// Chromium, and the module's route.
@Suite("The player module, in a front end of its own", .tags(.browser), .ownThreads, .serialized, .startsEarly)
struct BrowserPlayerModuleTests {
    /// Where the list is mounted in these tests.
    static let mountPath = "/team/photos"

    /// A front end that is not the list's page: it loads the module from
    /// the list's path, keeps the list's ids by replaying each plan's
    /// changeset, and lets the module's player draw the elements (default
    /// nodes, a div with the title) into a container of its own.
    static let customPage = #"""
    <!DOCTYPE html>
    <html lang="en">
    <head><meta charset="utf-8"><title>Another front end</title></head>
    <body style="margin: 0; font: 13px sans-serif">
    <div id="scroller" style="position: relative; width: 420px; height: 600px; overflow: auto">
      <div id="content" style="position: relative"></div>
    </div>
    <script src="\#(mountPath)/tessera-live.js"></script>
    <script>
    "use strict";
    const player = new TesseraLive.Player({ scroller: document.getElementById("scroller"), content: document.getElementById("content") });
    let seq = null, list = null, plans = 0, resyncs = 0;
    const connection = TesseraLive.connect({
      address: TesseraLive.socketAddress("\#(mountPath)"),
      hello: () => ({ layout: "list", viewport: [0, 0, 420, 8000], ids: true }),
      onMessage(message) {
        if (message.type === "snapshot") {
          seq = message.seq;
          list = message.sections.map((section, index) => ({ id: section.id, ids: message.ids[index] }));
          player.setContentSize(message.contentSize);
          player.render(message.elements);
        } else if (message.type === "plan") {
          if (message.fromSeq !== seq) { resyncs += 1; connection.resync(); return; }
          seq = message.seq; plans += 1;
          list = TesseraLive.applyChangeset(list, message.changeset);
          if (!message.unchanged) player.play(message);
        }
      },
    });
    window.custom = {
      get seq() { return seq; },
      get connected() { return connection.connected; },
      get animating() { return player.animating; },
      get plans() { return plans; },
      get resyncs() { return resyncs; },
      list: () => list,
      // The items the player drew, in index-path order: [album, title].
      shown: () => [...player.nodes.values()].filter((n) => n._el.kind === "item")
        .sort((a, b) => a._el.section - b._el.section || a._el.item - b._el.item)
        .map((n) => [list[n._el.section].id, n.textContent]),
    };
    </script>
    </body>
    </html>
    """#

    /// The list of `library`'s table mounted at ``mountPath`` beside a
    /// route of the test's own that serves ``customPage`` at `/custom`, on
    /// a free port for the body's length. The body blocks its thread (the
    /// suite runs on threads of its own) while the server runs in a child
    /// task.
    static func withApplication(_ library: HubLibrary, _ body: (Int) throws -> Void) async throws {
        let list = try LiveList(
            database: library.path, table: "photo",
            columns: LiveList.Columns(section: "album", sort: "position", title: "title", order: "position"),
            access: LiveList.Access(loopbackHostsOnly: true)
        )
        let router = Router(context: LiveListRequestContext.self)
        router.get("/custom") { _, _ -> Response in
            var headers = HTTPFields()
            headers[.contentType] = "text/html; charset=utf-8"
            return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: customPage)))
        }
        list.mount(on: router, at: mountPath)
        try await withMountedApplication(router: router, list: list) { port in try body(port) }
    }

    /// The albums and titles of the table in the list's order, as a fresh
    /// query gives them.
    static func freshTitles(_ library: HubLibrary) throws -> [[String]] {
        try library.writer.withDatabase { db in try db.rows("SELECT album, title FROM photo ORDER BY album, position, id") }
            .map { [$0[0].string ?? "", $0[1].string ?? ""] }
    }

    /// One random commit of another connection: a rename, a move within or
    /// between albums, a delete or an insert (a new album now and then).
    static func randomCommit(_ library: HubLibrary, _ random: inout SplitMix64, round: Int) throws {
        let ids = try library.writer.withDatabase { db in try db.rows("SELECT id FROM photo ORDER BY id") }.compactMap { $0[0].int64 }
        let id = ids.isEmpty ? 0 : ids[Int.random(in: 0..<ids.count, using: &random)]
        let albums = ["Alps", "Berlin", "Cairo", round % 5 == 4 ? "Zanzibar" : "Dakar"]
        let album = albums[Int.random(in: 0..<albums.count, using: &random)]
        let position = Int64.random(in: -1...30, using: &random)
        let kind = Int.random(in: 0..<5, using: &random)
        try library.writer.write { db in
            switch kind {
            case 0:
                try db.execute("UPDATE photo SET title = ? WHERE id = ?", [.text("Renamed \(round)"), .integer(id)])
            case 1:
                try db.execute("UPDATE photo SET position = ? WHERE id = ?", [.integer(position), .integer(id)])
            case 2:
                try db.execute("UPDATE photo SET album = ?, position = ? WHERE id = ?", [.text(album), .integer(position), .integer(id)])
            case 3 where ids.count > 10:
                try db.execute("DELETE FROM photo WHERE id = ?", [.integer(id)])
            default:
                try db.execute("INSERT INTO photo (album, title, position) VALUES (?, ?, ?)", [.text(album), .text("New \(round)"), .integer(position)])
            }
        }
    }

    @Test("a page of its own that loads only tessera-live.js replays another connection's random commits: its ids and its drawn titles equal a fresh query after each round", .tags(.oracle, .process),
          .enabled(if: Chromium.path != nil, "chromium is needed (apt-get install chromium)"))
    func customFrontEndFollowsCommits() async throws {
        let seed = testSeed(default: 0x7E55_E4A0)
        print("BrowserPlayerModuleTests seed \(seed)")
        let library = try HubLibrary(photos: 30, albums: 3)
        try await Self.withApplication(library) { port in
            var random = SplitMix64(seed: seed)
            let browser = try Chromium(width: 460, height: 640)
            defer { browser.shutDown() }
            let page = try browser.open("http://127.0.0.1:\(port)/custom")
            try page.wait(until: "window.custom && custom.connected && custom.seq !== null", "the custom page has its snapshot")
            // Only the module: the list's own page would have defined
            // `tessera`.
            #expect(try page.value("typeof window.tessera") == "undefined")
            for round in 0..<8 {
                for commit in 0..<3 {
                    try Self.randomCommit(library, &random, round: round * 3 + commit)
                }
                let expected = try library.freshList().map { ["id": $0.id, "ids": $0.ids] as [String: Any] }
                let expectedText = String(decoding: try JSONSerialization.data(withJSONObject: expected, options: [.sortedKeys]), as: UTF8.self)
                let escaped = expectedText.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "'", with: "\\'")
                let listText = "JSON.stringify((custom.list() || []).map((s) => ({ id: s.id, ids: s.ids })))"
                do {
                    try page.wait(until: "\(listText) === '\(escaped)' && !custom.animating", "seed \(seed), round \(round): the replayed list equals a fresh query")
                } catch {
                    Issue.record("seed \(seed), round \(round): the page has \(try page.json("custom.list()")), a fresh query \(expectedText)")
                    return
                }
                try page.nextFrames()
                try page.wait(until: "!custom.animating")
                let shown: [[String]] = try page.value("custom.shown()")
                #expect(shown == (try Self.freshTitles(library)), "seed \(seed), round \(round): the items the player drew")
            }
            let plans: Int = try page.value("custom.plans"), resyncs: Int = try page.value("custom.resyncs")
            #expect(plans > 0 && resyncs == 0, "\(plans) plans, \(resyncs) resynchronizations")
            Screenshots.save(page, "player-module-custom")

            // The list's own page, at the same path, shows the same list.
            let demo = try Chromium()
            defer { demo.shutDown() }
            let demoPage = try demo.open("http://127.0.0.1:\(port)\(Self.mountPath)")
            try demoPage.wait(until: "window.tessera && tessera.connected && tessera.seq !== null && tessera.items().length > 0 && !tessera.animating", "the demo page shows the list")
            try demoPage.nextFrames()
            let titles: [String] = try demoPage.value("tessera.items().filter((i) => i.section === 0).map((i) => i.title)")
            let fresh = try Self.freshTitles(library)
            let firstAlbum = fresh.filter { $0[0] == fresh.first?[0] }.map { $0[1] }
            #expect(titles == Array(firstAlbum.prefix(titles.count)) && !titles.isEmpty)
            Screenshots.save(demoPage, "player-module-demo")
        }
    }

    @Test("PATH/tessera-live.js is the player module as JavaScript with nosniff, refused (403) to a Host that is not a loopback name; the page keeps its headers and inlines the module")
    func moduleRoute() async throws {
        let library = try HubLibrary(photos: 12, albums: 2)
        try await Self.withApplication(library) { port in
            let host = "127.0.0.1:\(port)"
            let module = try RawClient(port: port).get("\(Self.mountPath)/tessera-live.js", host: host)
            #expect(module.status == 200)
            #expect(module.headers["content-type"] == "text/javascript; charset=utf-8")
            #expect(module.headers["x-content-type-options"] == "nosniff")
            #expect(module.headers["cache-control"] == "no-store")
            #expect(module.body == LivePage.playerModule)
            #expect(module.body.contains("TesseraLive"))
            #expect(try RawClient(port: port).get("\(Self.mountPath)/tessera-live.js", host: "evil.example:\(port)").status == 403)

            let page = try RawClient(port: port).get(Self.mountPath, host: host)
            #expect(page.status == 200)
            #expect(page.headers["content-type"] == "text/html; charset=utf-8")
            #expect(page.headers["cache-control"] == "no-store")
            #expect(page.headers["x-content-type-options"] == "nosniff")
            #expect(page.headers["x-frame-options"] == "DENY")
            #expect(page.body == LivePage.html)
            #expect(page.body.contains(LivePage.playerModule))
            #expect(!page.body.contains("src=") && !page.body.contains("<link"))
        }
    }

    @Test("the page's interface speaks to the server only through the module: no socket, no JSON, no plan playing of its own")
    func demoUsesTheModuleOnly() {
        let demo = String(decoding: PackageResources.live_demo_js, as: UTF8.self)
        for own in ["WebSocket", "JSON.parse", "JSON.stringify", "performance.now", "fraction("] {
            #expect(!demo.contains(own), "live-demo.js uses \(own)")
        }
        #expect(demo.contains("new TesseraLive.Connection(") && demo.contains("new TesseraLive.Player("))
        #expect(LivePage.html.contains(LivePage.playerModule) && LivePage.html.contains(demo))
    }

    @Test("tessera serve's page at / has its module at /tessera-live.js")
    func moduleAtRoot() async throws {
        try await ServerTestSupport.withServer { _, port in
            let module = try await ServerTestSupport.get("/tessera-live.js", port: port)
            #expect(module.status == 200 && module.body == LivePage.playerModule)
            #expect(module.headers["content-type"] == "text/javascript; charset=utf-8")
        }
    }
}
