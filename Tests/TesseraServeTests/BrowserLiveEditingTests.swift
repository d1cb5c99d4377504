import Foundation
import Testing
import TesseraTestTraits

/// The live page in a real browser, on paths the other browser tests do
/// not take. Screenshots go to the temporary folder's live-editing-shots.
@Suite("The live page in a browser: deletes off screen, fast scrolling, renames at the end, layout switches", .tags(.browser), .ownThreads, .serialized, .startsEarly,
       .enabled(if: Chromium.path != nil && LiveServer.sqlite3 != nil, "chromium and sqlite3 are needed (apt-get install chromium sqlite3)"))
struct BrowserLiveEditingTests {
    static func shot(_ page: BrowserPage, _ name: String) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("live-editing-shots")
        try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        if let data = try? page.screenshot() { try? data.write(to: folder.appendingPathComponent("\(name).png")) }
    }

    @Test("a selected photo deleted by another process while off screen: Delete is refused and unselects it; Delete again deletes the rest")
    func deleteAfterAnOffScreenDelete() throws {
        let server = try LiveServer()
        defer { server.stop() }
        let a = try LivePageInBrowser(server)
        defer { a.close() }
        let first = try a.items(inSection: 0)[0]
        let (x, y) = try a.centre(of: first.id)
        try a.page.click(x, y)
        #expect(try a.selection == [first.id])
        // To the bottom: the first photo leaves the page's rectangle.
        try a.page.run("document.getElementById('scroller').scrollTop = 1e6")
        try a.page.nextFrames()
        try a.page.wait(until: "!document.getElementById('cell-\(first.id)')", "the first photo leaves the DOM")
        try a.settle()
        let last = try #require(try a.items.max { ($0.section, $0.item) < ($1.section, $1.item) })
        let (lx, ly) = try a.centre(of: last.id)
        try a.page.click(lx, ly, modifiers: 2)
        #expect(Set(try a.selection) == [first.id, last.id])
        // Another process deletes the first photo, off the page's screen.
        try server.sqlite("DELETE FROM photo WHERE id = \(first.id)")
        try a.page.wait(until: "tessera.seq === 1", "the page gets the delete")
        try a.settle(at: 1)
        Self.shot(a.page, "1-selection-with-a-photo-deleted-off-screen")
        // The delete names a photo that is gone: refused whole (the
        // protocol's all or none), and the error's ids leave the selection.
        try a.page.press("Delete", code: 46)
        try a.page.wait(until: "tessera.selection.length === 1", "the gone photo leaves the selection")
        Self.shot(a.page, "2-delete-refused-gone-photo-unselected")
        #expect(try a.selection == [last.id])
        #expect(try a.seq == 1)
        // Delete again deletes what is still selected.
        try a.page.press("Delete", code: 46)
        let committed = (try? a.page.wait(until: "tessera.seq === 2")) != nil
        try a.settle()
        Self.shot(a.page, "3-after-second-delete")
        let status = try a.page.value("document.getElementById('status').textContent", as: String.self)
        #expect(committed, "Delete of the selection did not commit within 120 s; the page says: \(status)")
        #expect(!(try server.titles(album: LiveServer.albums.last!.0)).contains(last.title), "the photo still selected and shown was not deleted")
        #expect(try a.selection.isEmpty)
    }

    @Test("scrolled fast to the bottom, the page shows the last photos")
    func scrollFastToTheBottom() throws {
        let server = try LiveServer()
        defer { server.stop() }
        let a = try LivePageInBrowser(server)
        defer { a.close() }
        for step in 0..<10 { try a.page.run("document.getElementById('scroller').scrollTop = \(step * 400)") }
        try Self.scrollToTheEnd(a)
        let probe = try a.page.json("(() => { const s = document.getElementById('scroller'); return [s.scrollTop, s.scrollHeight, s.clientHeight, document.getElementById('content').offsetHeight]; })()")
        Self.shot(a.page, "4-scrolled-to-the-bottom")
        let last = LiveServer.albums.last!
        let shown = try a.items.map(\.title)
        #expect(shown.contains("\(last.0) \(last.1)"), "the last photo is not in the DOM at the bottom (scrollTop, scrollHeight, clientHeight, content height: \(probe))")
    }

    /// Scrolls the page to the end of the list and waits until it has
    /// settled there (the elements of the new rectangle in, their plans
    /// played).
    static func scrollToTheEnd(_ page: LivePageInBrowser) throws {
        try page.page.run("document.getElementById('scroller').scrollTop = 1e6")
        try page.page.nextFrames()
        try page.settle()
        try page.page.nextFrames()
        try page.settle()
    }

    /// The title of the topmost photo on the screen.
    static func topTitle(_ page: LivePageInBrowser) throws -> String {
        try page.page.value("(() => { const s = document.getElementById('scroller'); const top = s.scrollTop + 48; let best = null; for (const it of tessera.items()) { if (it.frame[1] + it.frame[3] > top && (!best || it.frame[1] < best.frame[1] || (it.frame[1] === best.frame[1] && it.frame[0] < best.frame[0]))) best = it; } return best ? best.title : ''; })()", as: String.self)
    }

    @Test("at the end of the list, a photo on the screen renamed animates in place: the screen does not scroll")
    func renameAtTheEndKeepsTheScreen() throws {
        let server = try LiveServer()
        defer { server.stop() }
        let a = try LivePageInBrowser(server)
        defer { a.close() }
        try Self.scrollToTheEnd(a)
        let top = try a.page.value("document.getElementById('scroller').scrollTop", as: Double.self)
        let before = try Self.topTitle(a)
        // The page's clock is held: its animation waits for the test.
        let start: Double = try a.page.value("__holdNow()")
        try server.sqlite("UPDATE photo SET title = 'Renamed' WHERE id = 100")
        try a.page.wait(until: "tessera.seq === 1 && tessera.animating", "the commit animates")
        // The scroll position on frames of the animation, 50 ms apart, and
        // after.
        var tops: [Double] = try a.framesOfTheAnimation(from: start, reading: "document.getElementById('scroller').scrollTop")
        #expect(tops.count >= 2, "the animation was over after \(tops.count) steps of 50 ms: \(tops)")
        try a.page.run("__setNow(null)")
        try a.settle()
        tops.append(try a.page.value("document.getElementById('scroller').scrollTop", as: Double.self))
        #expect(tops.allSatisfy { abs($0 - top) < 1 }, "the screen scrolled from \(top): \(tops)")
        #expect(try Self.topTitle(a) == before)
        #expect(try a.items.contains { $0.title == "Renamed" })
    }

    @Test("a layout switch keeps the top photo on the screen, also when it comes during a plan's animation", arguments: [false, true])
    func switchKeepsTheTopPhoto(midAnimation: Bool) throws {
        let server = try LiveServer()
        defer { server.stop() }
        let a = try LivePageInBrowser(server)
        defer { a.close() }
        try Self.scrollToTheEnd(a)
        let before = try Self.topTitle(a)
        if midAnimation {
            // The last photo, on the screen, is renamed: the plan animates.
            // (A photo far above the screen renamed changes nothing shown:
            // its plan is an unchanged one, which plays nothing.) The
            // page's clock is held until the switch, so the switch comes
            // during the animation however slow the machine.
            _ = try a.page.json("__holdNow()")
            try server.sqlite("UPDATE photo SET title = 'Renamed' WHERE id = 100")
            try a.page.wait(until: "tessera.seq === 1 && tessera.animating", "the commit animates")
        }
        try a.page.click(175, 23)
        if midAnimation { try a.page.run("__setNow(null)") }
        try a.settle()
        try a.page.nextFrames()
        try a.settle()
        let after = try Self.topTitle(a)
        Self.shot(a.page, "6-switch-\(midAnimation ? "mid-animation" : "at-rest")")
        #expect(before.hasPrefix("Coast") && after.hasPrefix("Coast"), "the top photo was \(before), after the switch \(after)")
    }
}
