import Foundation
import Testing
import TesseraTestTraits

/// The live page served by `tessera serve`, in browsers.
struct LivePageInBrowser {
    let browser: Chromium
    let page: BrowserPage

    /// Opens the server's page in a browser of its own and waits for its
    /// snapshot. Its clock runs, and can be held (``PageClock``).
    init(_ server: LiveServer) throws {
        browser = try Chromium()
        page = try browser.open(server.address, before: PageClock.script)
        try page.wait(until: "window.tessera && tessera.connected && tessera.seq !== null && tessera.items().length > 0", "the page shows the list")
        try settle()
    }

    var seq: Int { get throws { try page.value("tessera.seq") } }
    var frames: [String: [Double]] { get throws { try page.value("tessera.elementFrames()") } }
    var items: [PageItem] { get throws { try page.value("tessera.items()") } }
    var selection: [String] { get throws { try page.value("tessera.selection") } }

    /// The items of a section in the DOM, in index order.
    func items(inSection section: Int) throws -> [PageItem] {
        try items.filter { $0.section == section }.sorted { $0.item < $1.item }
    }

    /// Waits until the page shows change `seq`, animations over and its
    /// rectangle's elements in.
    func settle(at seq: Int? = nil) throws {
        let condition = seq.map { "tessera.seq === \($0) && " } ?? ""
        try page.wait(until: condition + "!tessera.animating", "the page settles\(seq.map { " at change \($0)" } ?? "")")
        // The viewport the page sends after a change gets its elements back.
        try page.nextFrames()
        try page.wait(until: "!tessera.animating")
    }

    /// The middle of a cell in window coordinates.
    func centre(of id: String) throws -> (Double, Double) {
        let point: [Double] = try page.value("(() => { const r = document.getElementById('cell-\(id)').getBoundingClientRect(); return [r.x + r.width / 2, r.y + r.height / 2]; })()")
        return (point[0], point[1])
    }

    func close() { browser.shutDown() }
}

@Suite("The live list in real browsers, served by tessera serve", .tags(.browser, .process), .ownThreads, .serialized, .startsEarly,
       .enabled(if: Chromium.path != nil && LiveServer.sqlite3 != nil, "chromium and sqlite3 are needed (apt-get install chromium sqlite3)"))
struct BrowserServeTests {
    /// Every element both pages have is at the same frame, and a page
    /// that just connected (a fresh snapshot from the server's layout)
    /// has the same elements as one that followed the changes.
    func expectSameFrames(_ followed: LivePageInBrowser, _ fresh: LivePageInBrowser, _ what: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let a = try followed.frames, b = try fresh.frames
        #expect(Set(a.keys) == Set(b.keys), "\(what): the same elements", sourceLocation: sourceLocation)
        for (key, frame) in a {
            guard let other = b[key] else { continue }
            #expect(frame == other, "\(what): \(key) at \(frame), a fresh page has it at \(other)", sourceLocation: sourceLocation)
        }
    }

    @Test("a drag in page A reorders the album; after the animation page B shows the new order at the frames the server's layout gives, and A did not animate it")
    func dragInOnePageMovesInTheOther() throws {
        let server = try LiveServer()
        defer { server.stop() }
        let a = try LivePageInBrowser(server), b = try LivePageInBrowser(server)
        defer { a.close(); b.close() }
        let before = try a.items(inSection: 0)
        try #require(before.count > 6)
        Screenshots.save(a.page, "1-before")

        // Drag the second photo onto the sixth's place.
        let dragged = before[1].id
        let start = try a.centre(of: dragged), end = try a.centre(of: before[5].id)
        try a.page.mouse("mousePressed", start.0, start.1)
        for step in 1...12 {
            let t = Double(step) / 12
            try a.page.mouse("mouseMoved", start.0 + (end.0 - start.0) * t, start.1 + (end.1 - start.1) * t)
            try a.page.nextFrames()
        }
        Screenshots.save(a.page, "2-page-a-dragging")
        try a.page.mouse("mouseReleased", end.0, end.1, pressed: false)
        try b.page.wait(until: "tessera.seq === 1", "page B gets the change")
        Screenshots.save(b.page, "3-page-b-animating")
        try a.settle(at: 1)
        try b.settle(at: 1)
        Screenshots.save(b.page, "4-page-b-after")

        var expected = before.map(\.title)
        expected.insert(expected.remove(at: 1), at: 5)
        let database = try server.titles(album: LiveServer.albums[0].0)
        #expect(Array(database.prefix(expected.count)) == expected, "the order column holds the new order")
        for page in [a, b] {
            #expect(try page.items(inSection: 0).map(\.title) == Array(database.prefix(try page.items(inSection: 0).count)))
        }
        #expect(try a.items(inSection: 0)[5].id == dragged)
        #expect(try a.page.value("tessera.plans.map((p) => p.animated)") == [false], "the dragging page does not animate its own move")
        #expect(try b.page.value("tessera.plans.map((p) => p.animated)") == [true])
        let fresh = try LivePageInBrowser(server)
        defer { fresh.close() }
        try expectSameFrames(b, fresh, "page B")
        try expectSameFrames(a, fresh, "page A")
    }

    @Test("a commit by a separate sqlite3 process appears in both pages")
    func sqliteCommitAppearsInBoth() throws {
        let server = try LiveServer()
        defer { server.stop() }
        let a = try LivePageInBrowser(server), b = try LivePageInBrowser(server)
        defer { a.close(); b.close() }
        let album = LiveServer.albums[0].0
        try server.sqlite("""
        BEGIN;
        UPDATE photo SET position = position + 1 WHERE album = '\(album)';
        INSERT INTO photo(album, title, position) VALUES ('\(album)', 'From sqlite3', 0);
        UPDATE photo SET title = 'Renamed by sqlite3' WHERE id = 3;
        DELETE FROM photo WHERE id = 5;
        COMMIT;
        """)
        try a.page.wait(until: "tessera.seq === 1", "page A gets the commit")
        Screenshots.save(a.page, "5-sqlite3-commit-animating")
        try a.settle(at: 1)
        try b.settle(at: 1)
        Screenshots.save(b.page, "6-sqlite3-commit-after")
        let database = try server.titles(album: album)
        #expect(database.first == "From sqlite3" && database.contains("Renamed by sqlite3") && !database.contains("\(album) 5"))
        for page in [a, b] {
            let shown = try page.items(inSection: 0).map(\.title)
            #expect(shown == Array(database.prefix(shown.count)))
        }
        let fresh = try LivePageInBrowser(server)
        defer { fresh.close() }
        try expectSameFrames(a, fresh, "page A")
        try expectSameFrames(b, fresh, "page B")
    }

    @Test("a selection in page A survives a delete above it made in page B")
    func selectionSurvivesADeleteAbove() throws {
        let server = try LiveServer()
        defer { server.stop() }
        let a = try LivePageInBrowser(server), b = try LivePageInBrowser(server)
        defer { a.close(); b.close() }
        let items = try a.items(inSection: 0)
        let selected = items[8].id, deleted = items[1].id
        let (x, y) = try a.centre(of: selected)
        try a.page.click(x, y)
        #expect(try a.selection == [selected])
        let (bx, by) = try b.centre(of: deleted)
        try b.page.click(bx, by)
        try b.page.press("Delete", code: 46)
        try a.page.wait(until: "tessera.seq === 1", "page A gets the delete")
        try a.settle(at: 1)
        try b.settle(at: 1)
        Screenshots.save(a.page, "7-selection-after-delete")
        #expect(try a.selection == [selected])
        let now = try a.items(inSection: 0)
        #expect(now.first { $0.id == selected }.map { $0.item == 7 && $0.selected } == true, "the selected photo moved up one place, still selected")
        #expect(!now.contains { $0.id == deleted })
        #expect(try a.page.value("document.getElementById('cell-\(selected)').classList.contains('selected')", as: Bool.self))
        #expect(try b.selection.isEmpty, "the deleted photo's selection is gone")
        let fresh = try LivePageInBrowser(server)
        defer { fresh.close() }
        try expectSameFrames(a, fresh, "page A")
    }
}
