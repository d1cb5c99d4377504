import Foundation
import Testing
import TesseraTestTraits

/// The live page in a real browser when the list shrinks under a screen at
/// its end: the server keeps the page's rectangle where the page sent it,
/// and the page keeps its own scroll within the content.
@Suite("Browser: a list shrinking under the screen", .tags(.browser), .ownThreads, .serialized, .startsEarly,
       .enabled(if: Chromium.path != nil && LiveServer.sqlite3 != nil, "chromium and sqlite3 are needed (apt-get install chromium sqlite3)"))
struct BrowserShrinkingListTests {
    @Test("scrolled to the bottom, deletes at the end bring the screen up, never down: it ends at the end, showing the last photos left")
    func deletesAtTheEnd() throws {
        let server = try LiveServer()
        defer { server.stop() }
        let a = try LivePageInBrowser(server)
        defer { a.close() }
        try BrowserLiveEditingTests.scrollToTheEnd(a)
        let scrollEnd = "(() => { const s = document.getElementById('scroller'); return [s.scrollTop, s.scrollHeight - s.clientHeight]; })()"
        let before: [Double] = try a.page.value(scrollEnd)
        #expect(before[0] > 0 && abs(before[0] - before[1]) < 1, "not at the end: \(before)")
        // The last 12 photos of the last album go, in one commit. The
        // page's clock is held: its animation waits for the test.
        let last = LiveServer.albums.last!
        let start: Double = try a.page.value("__holdNow()")
        try server.sqlite("DELETE FROM photo WHERE album = '\(last.0)' AND position >= \(last.1 - 12)")
        try a.page.wait(until: "tessera.seq === 1 && tessera.animating", "the delete animates")
        // The scroll position on frames of the animation, 50 ms apart:
        // the screen only ever comes up.
        let tops: [Double] = try a.framesOfTheAnimation(from: start, reading: "document.getElementById('scroller').scrollTop")
        #expect(tops.count >= 2, "the animation was over after \(tops.count) steps of 50 ms: \(tops)")
        try a.page.run("__setNow(null)")
        try a.settle(at: 1)
        let after: [Double] = try a.page.value(scrollEnd)
        #expect(zip(tops, tops.dropFirst()).allSatisfy { $1 <= $0 + 0.5 }, "the screen went down on the way up: \(tops)")
        #expect(after[1] < before[1], "the content did not shrink: \(before) → \(after)")
        #expect(abs(after[0] - after[1]) < 1, "the screen is not at the end after the delete: \(after)")
        // The screen shows the last photo left, and no deleted one.
        let titles = try a.items.map(\.title)
        #expect(titles.contains("\(last.0) \(last.1 - 12)"), "\(titles)")
        #expect(!titles.contains("\(last.0) \(last.1)"), "\(titles)")
    }
}
