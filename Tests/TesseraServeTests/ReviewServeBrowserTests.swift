import Foundation
import Testing

/// The live page in a real browser, on paths the other browser tests do
/// not take. Screenshots go to the temporary folder's review-shots.
@Suite("Review: the live page in a browser", .serialized,
       .enabled(if: Chromium.path != nil && LiveServer.sqlite3 != nil, "chromium and sqlite3 are needed (apt-get install chromium sqlite3)"))
struct ReviewServeBrowserTests {
    static func shot(_ page: BrowserPage, _ name: String) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("review-shots")
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
        try a.page.wait(until: "tessera.selection.length === 1", timeout: 10, "the gone photo leaves the selection")
        Self.shot(a.page, "2-delete-refused-gone-photo-unselected")
        #expect(try a.selection == [last.id])
        #expect(try a.seq == 1)
        // Delete again deletes what is still selected.
        try a.page.press("Delete", code: 46)
        let committed = (try? a.page.wait(until: "tessera.seq === 2", timeout: 10)) != nil
        try a.settle()
        Self.shot(a.page, "3-after-second-delete")
        let status = try a.page.value("document.getElementById('status').textContent", as: String.self)
        #expect(committed, "Delete of the selection did not commit; the page says: \(status)")
        #expect(!(try server.titles(album: LiveServer.albums.last!.0)).contains(last.title), "the photo still selected and shown was not deleted")
        #expect(try a.selection.isEmpty)
    }
}
