import Foundation
import Testing
import TesseraLiveHub
import TesseraLiveProtocol
import TesseraServe
import TesseraTestSupport
import TesseraTestTraits
import TesseraView

/// A message the page sent, as the test reads it back.
struct SentMessage: Decodable, Equatable {
    struct Resume: Decodable, Equatable {
        var seq: Int
        var state: String?
    }
    var type: String
    var layout: String?
    var viewport: [Double]?
    var resume: Resume?
    var request: Int?
    var id: String?
    var to: Int?
    var ids: [String]?
    var title: String?
    var section: String?
}

/// An item cell as the page's test hook describes it.
struct PageItem: Decodable, Equatable {
    var id: String
    var section: Int
    var item: Int
    var title: String
    var frame: [Double]
    var selected: Bool
}

/// The live page in one browser, with a fake server.
struct FakePage {
    let browser: Chromium
    let page: BrowserPage
    let file: URL

    init() throws {
        browser = try Chromium()
        file = try FakeLive.pageFile()
        page = try browser.open(file.absoluteString, before: FakeLive.script)
        try page.wait(until: "window.__sent && __sent.length >= 1", "the page says hello")
    }

    func close() {
        browser.shutDown()
        try? FileManager.default.removeItem(at: file.deletingLastPathComponent())
    }

    var sent: [SentMessage] { get throws { try page.value("__sent.map((m) => Object.assign({}, m, { ids: Array.isArray(m.ids) ? m.ids : undefined }))") } }
    var visibleHeight: Double { get throws { try page.value("document.getElementById('scroller').clientHeight") } }
    var scrollTop: Double { get throws { try page.value("document.getElementById('scroller').scrollTop") } }
    var frames: [String: [Double]] { get throws { try page.value("tessera.elementFrames()") } }
    var items: [PageItem] { get throws { try page.value("tessera.items()") } }
    var selection: [String] { get throws { try page.value("tessera.selection") } }

    /// What the browser lays out for every element: left, top, width and
    /// height from its style, then opacity and z-index.
    var drawn: [String: [Double]] {
        get throws {
            try page.value("""
            Object.fromEntries([...document.querySelectorAll('#content .el[data-key]')].map((n) => [n.dataset.key,
              [parseFloat(n.style.left), parseFloat(n.style.top), parseFloat(n.style.width), parseFloat(n.style.height),
               n.style.opacity === '' ? 1 : parseFloat(n.style.opacity), parseInt(n.style.zIndex)]]))
            """)
        }
    }

    func deliver(_ message: [String: Any]) throws { try page.run(try FakeLive.deliver(message)) }

    /// The middle of an item's cell in window coordinates.
    func centre(of id: String) throws -> (Double, Double) {
        let point: [Double] = try page.value("(() => { const r = document.getElementById('cell-\(id)').getBoundingClientRect(); return [r.x + r.width / 2, r.y + r.height / 2]; })()")
        return (point[0], point[1])
    }

    /// Delivers a snapshot of `list` for the rectangle the hello asked for.
    @discardableResult
    func start(_ list: FakeLive.List = .sample, seq: Int = 0) throws -> [Double] {
        let rect = try #require(try sent.first?.viewport)
        try deliver(FakeLive.snapshot(list, seq: seq, rect: rect))
        try page.wait(until: "tessera.seq === \(seq)")
        return rect
    }
}

@Suite("The live page in a real browser, against a fake server", .tags(.browser), .ownThreads, .serialized, .startsEarly,
       .enabled(if: Chromium.path != nil, "chromium is not installed (apt-get install chromium)"))
struct BrowserPageTests {
    @Test("hello asks for the visible area and a screen above and below; a snapshot draws exactly its elements at their frames")
    func helloAndSnapshot() throws {
        let fake = try FakePage()
        defer { fake.close() }
        let hello = try #require(try fake.sent.first)
        let height = try fake.visibleHeight
        #expect(hello.type == "hello" && hello.layout == "flow" && hello.resume == nil)
        #expect(hello.viewport == [0, 0, 1000, 2 * height], "top of the list: no margin above")
        let rect = try fake.start()
        let expected = FakeLive.List.sample.elements().filter { FakeLive.intersects($0.frame, rect) }
        #expect(try fake.frames == Dictionary(uniqueKeysWithValues: expected.map { ($0.key, $0.frame) }))
        for (key, drawn) in try fake.drawn {
            let element = try #require(expected.first { $0.key == key })
            #expect(Array(drawn[0..<4]) == element.frame && drawn[4] == 1, "\(key)")
        }
        #expect(try fake.page.value("document.getElementById('content').style.height") == "\(Int(FakeLive.List.sample.contentSize()[1]))px")
        #expect(try fake.page.value("document.getElementById('cell-3').textContent") == "Photo 3")
        #expect(try fake.page.value("document.querySelector('[data-key=\"h:Kyoto\"] .count').textContent") == "30 photos")
        #expect(try fake.page.value("document.getElementById('cell-3').getAttribute('role')") == "option")

        // Scrolling asks for the new rectangle, with its margins.
        try fake.page.run("document.getElementById('scroller').scrollTop = 1000")
        try fake.page.wait(until: "__sent.length >= 2")
        let top = try fake.scrollTop
        #expect(try fake.sent.last == SentMessage(type: "viewport", viewport: [0, top - height, 1000, 3 * height]))
    }

    @Test("seeded random plans: at every sampled instant each element is where the plan's timing puts it, then the settled set is shown")
    func plansPlayTheirOwnFrames() throws {
        let seed = testSeed(default: 0x11FE_9A6E)
        var random = SplitMix64(seed: seed)
        let fake = try FakePage()
        defer { fake.close() }
        let rect = try fake.start(FakeLive.List(albums: [("A", [1])]))
        for round in 1...4 {
            let timing: AnimationTiming = round % 2 == 0 ? .linear : .easeInOut
            let duration = [0.3, 0.5, 0.25, 1.0][round - 1]
            func frame() -> [Double] {
                [Double(Int.random(in: 0...800, using: &random)), Double(Int.random(in: 0...900, using: &random)),
                 Double(Int.random(in: 20...200, using: &random)), Double(Int.random(in: 20...200, using: &random))]
            }
            let dispositions = ["move", "shift", "insert", "delete", "unchanged", "reload"]
            var elements: [[String: Any]] = []
            var expected: [String: (from: [Double], to: [Double], fromAlpha: Double, toAlpha: Double, disposition: String)] = [:]
            for n in 0..<Int.random(in: 3...12, using: &random) {
                let disposition = dispositions[Int.random(in: 0..<dispositions.count, using: &random)]
                let from = frame(), to = disposition == "unchanged" ? from : frame()
                let fromAlpha = disposition == "insert" ? 0.0 : 1, toAlpha = disposition == "delete" ? 0.0 : 1
                let key = "i:\(round * 100 + n)"
                var json = FakeLive.Element(key: key, section: 0, item: n, frame: to, title: "Photo \(n)").json
                json["from"] = from
                json["fromAlpha"] = fromAlpha
                json["toAlpha"] = toAlpha
                json["fromZ"] = 0
                json["toZ"] = 0
                json["disposition"] = disposition
                elements.append(json)
                expected[key] = (from, to, fromAlpha, toAlpha, disposition)
            }
            let settled = elements.filter { $0["disposition"] as? String != "delete" }.map { element in
                element.filter { !["from", "fromAlpha", "toAlpha", "fromZ", "toZ", "disposition"].contains($0.key) }
            }
            let plan: [String: Any] = ["type": "plan", "fromSeq": round - 1, "seq": round, "animated": true, "duration": duration,
                                       "timing": timing == .linear ? "linear" : "easeInOut",
                                       "contentSizeBefore": [1000, 2000], "contentSizeAfter": [1000, 2000],
                                       "contentOffsetBefore": [0, rect[1]], "contentOffsetAfter": [0, rect[1]],
                                       "moves": [] as [Any], "elements": elements, "settled": settled, "sections": [["id": "A", "count": 1]]]
            let start = 10_000.0 * Double(round)
            try fake.page.run("__setNow(\(start))")
            try fake.deliver(plan)
            let label = "seed \(seed), round \(round), \(timing)"
            for progress in [0, 0.1, 0.25, 0.5, 0.8, 0.95] {
                try fake.page.run("__setNow(\(start + progress * duration * 1000))")
                try fake.page.nextFrames()
                let f = timing.fraction(at: progress, duration: duration)
                let drawn = try fake.drawn
                var zOfMoved: [Double] = [], zOfOthers: [Double] = []
                for (key, e) in expected {
                    let box = try #require(drawn[key], "\(label): \(key) not drawn at \(progress)")
                    let want = (0..<4).map { e.from[$0] + (e.to[$0] - e.from[$0]) * f } + [e.fromAlpha + (e.toAlpha - e.fromAlpha) * f]
                    #expect(zip(box.prefix(5), want).allSatisfy { abs($0 - $1) < 0.01 }, "\(label): \(key) (\(e.disposition)) at \(progress): drawn \(box), plan \(want)")
                    if e.disposition == "move" { zOfMoved.append(box[5]) } else { zOfOthers.append(box[5]) }
                }
                #expect(zOfMoved.allSatisfy { z in zOfOthers.allSatisfy { $0 < z } }, "\(label): moved elements fly above the others")
                #expect(try fake.page.value("tessera.animating", as: Bool.self), "\(label)")
            }
            try fake.page.run("__setNow(\(start + duration * 1000))")
            try fake.page.wait(until: "!tessera.animating", label)
            let settledKeys = Set(expected.filter { $0.value.disposition != "delete" }.keys)
            let frames = try fake.frames
            #expect(Set(frames.keys) == settledKeys, "\(label): the DOM holds the settled set")
            for key in settledKeys { #expect(frames[key] == expected[key]!.to, "\(label): \(key)") }
        }
    }

    @Test("a plan that arrives during an animation starts each element where it is on screen")
    func interruptedPlanStartsOnScreen() throws {
        let fake = try FakePage()
        defer { fake.close() }
        let one = FakeLive.List.sample
        var two = one, three = one
        two.albums[0].ids.swapAt(0, 9)      // 1 and 10 trade places
        three.albums[0].ids = two.albums[0].ids
        three.albums[0].ids.swapAt(9, 20)   // then 1 goes further
        let rect = try fake.start(one)
        let frame = { (list: FakeLive.List, id: String) in list.elements().first { $0.key == "i:\(id)" }!.frame }
        try fake.page.run("__setNow(1000)")
        try fake.deliver(FakeLive.plan(from: one, to: two, seq: 1, rect: rect))
        try fake.page.run("__setNow(1150)")   // half of 0.3 s
        try fake.page.nextFrames()
        let half = AnimationTiming.easeInOut.fraction(at: 0.5, duration: 0.3)
        let a = frame(one, "1"), b = frame(two, "1"), c = frame(three, "1")
        let onScreen = (0..<4).map { a[$0] + (b[$0] - a[$0]) * half }
        #expect(try fake.frames["i:1"] == onScreen)
        try fake.deliver(FakeLive.plan(from: two, to: three, seq: 2, rect: rect))
        #expect(try fake.frames["i:1"] == onScreen, "the second plan starts from the screen, not from its own from frame")
        try fake.page.run("__setNow(1300)")
        try fake.page.nextFrames()
        let f = AnimationTiming.easeInOut.fraction(at: 0.5, duration: 0.3)
        let now = try #require(try fake.frames["i:1"])
        #expect(zip(now, (0..<4).map { onScreen[$0] + (c[$0] - onScreen[$0]) * f }).allSatisfy { abs($0 - $1) < 1e-6 })
        try fake.page.run("__setNow(2000)")
        try fake.page.wait(until: "!tessera.animating")
        #expect(try fake.frames["i:1"] == c)
        #expect(try fake.page.value("tessera.seq", as: Int.self) == 2)
    }

    @Test("an unanimated plan settles at once; the content offset moves with an animated one")
    func unanimatedAndContentOffset() throws {
        let fake = try FakePage()
        defer { fake.close() }
        let one = FakeLive.List.sample
        var two = one
        two.albums[0].ids.swapAt(2, 3)
        let rect = try fake.start(one)
        try fake.deliver(FakeLive.plan(from: one, to: two, seq: 1, rect: rect, animated: false))
        #expect(try !fake.page.value("tessera.animating", as: Bool.self))
        #expect(try fake.frames["i:3"] == two.elements().first { $0.key == "i:3" }!.frame)
        #expect(try fake.page.value("tessera.plans.map((p) => p.animated)") == [false])

        // An anchored change: the offset goes 100 down with the elements.
        try fake.page.run("document.getElementById('scroller').scrollTop = 200")
        try fake.page.wait(until: "__sent.length >= 2")
        let top = try fake.scrollTop
        var plan = FakeLive.plan(from: two, to: one, seq: 2, rect: rect)
        plan["contentOffsetBefore"] = [0, 50]
        plan["contentOffsetAfter"] = [0, 150]
        try fake.page.run("__setNow(5000)")
        try fake.deliver(plan)
        try fake.page.run("__setNow(5075)")
        try fake.page.nextFrames()
        let f = AnimationTiming.easeInOut.fraction(at: 0.25, duration: 0.3)
        #expect(abs(try fake.scrollTop - (top + 100 * f)) <= 1)
        try fake.page.run("__setNow(6000)")
        try fake.page.wait(until: "!tessera.animating")
        #expect(try fake.scrollTop == top + 100)
    }

    @Test("click selects, shift-click extends, ctrl-click toggles; selection is kept by id across plans and dropped for deleted ids")
    func selection() throws {
        let fake = try FakePage()
        defer { fake.close() }
        let one = FakeLive.List.sample
        let rect = try fake.start(one)
        func click(_ id: String, modifiers: Int = 0) throws {
            let (x, y) = try fake.centre(of: id)
            try fake.page.click(x, y, modifiers: modifiers)
        }
        try click("9")
        #expect(try fake.selection == ["9"])
        try click("12", modifiers: 8)
        #expect(try fake.selection == ["10", "11", "12", "9"])
        try click("10", modifiers: 2)
        #expect(try fake.selection == ["11", "12", "9"])
        #expect(try fake.page.value("document.getElementById('cell-11').getAttribute('aria-selected')") == "true")
        #expect(try fake.page.value("document.getElementById('cell-10').classList.contains('selected')", as: Bool.self) == false)
        // 2 and 11 are deleted above or in the selection: 9 and 12 stay
        // selected at their new places.
        var two = one
        two.albums[0].ids.removeAll { $0 == 2 || $0 == 11 }
        try fake.deliver(FakeLive.plan(from: one, to: two, seq: 1, rect: rect, animated: false))
        #expect(try fake.selection == ["12", "9"])
        let items = try fake.items
        #expect(items.filter(\.selected).map(\.id).sorted() == ["12", "9"])
        #expect(items.first { $0.id == "9" }?.frame == two.elements().first { $0.key == "i:9" }!.frame)
        #expect(try fake.page.value("document.querySelectorAll('.cell.selected').length", as: Int.self) == 2)
    }

    @Test("a drag within an album sends move with the index the frames give and shows the item there at once")
    func dragToReorder() throws {
        let fake = try FakePage()
        defer { fake.close() }
        let one = FakeLive.List.sample
        try fake.start(one)
        let start = try fake.centre(of: "2"), end = try fake.centre(of: "10")
        try fake.page.drag(from: start, to: end)
        try fake.page.wait(until: "__sent.some((m) => m.type === 'move')")
        let move = try #require(try fake.sent.last)
        #expect(move.type == "move" && move.id == "2" && move.to == 9)
        // At once: 2 sits where 10 was, 3…10 each one place back.
        var two = one
        two.albums[0].ids.remove(at: 1)
        two.albums[0].ids.insert(2, at: 9)
        let want = two.elements()
        for item in try fake.items where item.section == 0 && item.item < 12 {
            let expected = try #require(want.first { $0.key == "i:\(item.id)" })
            #expect(item.frame == expected.frame && item.item == expected.item, "\(item.id)")
        }
        #expect(try fake.selection == ["2"])
    }

    @Test("Enter edits and saves a rename, Escape cancels, Delete deletes the selection, + adds and edits the new item")
    func editsFromTheKeyboard() throws {
        let fake = try FakePage()
        defer { fake.close() }
        let one = FakeLive.List.sample
        let rect = try fake.start(one)
        let (x, y) = try fake.centre(of: "5")
        try fake.page.click(x, y)
        try fake.page.press("Enter", code: 13)
        try fake.page.wait(until: "document.activeElement.tagName === 'INPUT'")
        try fake.page.run("document.activeElement.value = 'Harbour'")
        try fake.page.press("Escape", code: 27)
        #expect(try fake.page.value("document.getElementById('cell-5').textContent") == "Photo 5")
        try fake.page.press("Enter", code: 13)
        try fake.page.run("document.activeElement.value = 'Harbour'")
        try fake.page.press("Enter", code: 13)
        var last = try #require(try fake.sent.last)
        #expect(last.type == "rename" && last.id == "5" && last.title == "Harbour")
        #expect(try fake.page.value("document.getElementById('cell-5').textContent") == "Harbour")
        try fake.page.press("ArrowRight", code: 39)
        try fake.page.press("ArrowRight", code: 39, modifiers: 8)
        #expect(try fake.selection == ["6", "7"])
        try fake.page.press("Delete", code: 46)
        last = try #require(try fake.sent.last)
        #expect(last.type == "delete" && last.ids?.sorted() == ["6", "7"])

        // +: add, then the item the plan inserted is edited once done.
        try fake.page.run("document.querySelector('[data-key=\"h:Kyoto\"] .add').click()")
        let add = try #require(try fake.sent.last)
        #expect(add.type == "add" && add.section == "Kyoto")
        var two = one
        two.albums[1].ids.insert(99, at: 0)
        var plan = FakeLive.plan(from: one, to: two, seq: 1, rect: rect, animated: false)
        plan["elements"] = (plan["elements"] as! [[String: Any]]).map { element in
            var element = element
            if element["key"] as? String == "i:99" { element["title"] = add.title }
            return element
        }
        plan["settled"] = (plan["settled"] as! [[String: Any]]).map { element in
            var element = element
            if element["key"] as? String == "i:99" { element["title"] = add.title }
            return element
        }
        try fake.deliver(plan)
        try fake.deliver(["type": "done", "request": try #require(add.request), "seq": 1])
        try fake.page.wait(until: "document.activeElement.tagName === 'INPUT' && document.activeElement.closest('#cell-99')")
        #expect(try fake.selection == ["99"])
    }

    @Test("an error shows in the status line; a dropped connection reconnects and says hello again with its seq")
    func errorsAndReconnection() throws {
        let fake = try FakePage()
        defer { fake.close() }
        try fake.start(.sample, seq: 7)
        try fake.deliver(["type": "error", "code": "notFound", "message": "no item 42 (deleted)"])
        #expect(try fake.page.value("document.getElementById('status').textContent", as: String.self).contains("no item 42"))
        try fake.page.run("__sockets[0].close()")
        try fake.page.wait(until: "__sockets.length === 2 && __sent.filter((m) => m.type === 'hello').length === 2")
        let hello = try #require(try fake.sent.last)
        #expect(hello.type == "hello" && hello.resume == SentMessage.Resume(seq: 7))
    }

    @Test("a page reconnects naming its seq and state, plays the resumed plan of another server's numbering, and names no state after an out-of-step plan")
    func resumeAfterReconnection() throws {
        let fake = try FakePage()
        defer { fake.close() }
        let rect = try #require(try fake.sent.first?.viewport)
        let state = String(repeating: "ab", count: 16)
        var snapshot = FakeLive.snapshot(.sample, seq: 7, rect: rect)
        snapshot["state"] = state
        try fake.deliver(snapshot)
        try fake.page.wait(until: "tessera.seq === 7")
        #expect(try fake.page.value("tessera.state", as: String.self) == state)
        try fake.page.run("__sockets[0].close()")
        try fake.page.wait(until: "__sockets.length === 2 && __sent.filter((m) => m.type === 'hello').length === 2")
        #expect(try fake.sent.last?.resume == SentMessage.Resume(seq: 7, state: state))
        // Another server answers with one plan from that state, in its own
        // numbering (seq 3), read-only for this connection; items 1 and 2
        // are gone meanwhile.
        let after = FakeLive.List(albums: [("Lisbon", Array(3...30)), ("Kyoto", Array(31...60))])
        var plan = FakeLive.plan(from: .sample, to: after, seq: 3, rect: rect)
        let next = String(repeating: "cd", count: 16)
        plan["fromSeq"] = 7
        plan["resumed"] = true
        plan["editable"] = false
        plan["edits"] = [] as [Any]
        plan["state"] = next
        try fake.deliver(plan)
        try fake.page.wait(until: "tessera.seq === 3 && !tessera.animating")
        #expect(try fake.page.value("tessera.state", as: String.self) == next)
        #expect(try fake.page.value("document.body.classList.contains('readonly')", as: Bool.self))
        let expected = after.elements().filter { FakeLive.intersects($0.frame, rect) }
        #expect(try fake.frames == Dictionary(uniqueKeysWithValues: expected.map { ($0.key, $0.frame) }))
        // A plan out of step: the page connects again naming no state.
        var stray = FakeLive.plan(from: after, to: .sample, seq: 9, rect: rect)
        stray["fromSeq"] = 8
        try fake.deliver(stray)
        try fake.page.wait(until: "__sent.filter((m) => m.type === 'hello').length === 3")
        #expect(try fake.sent.last?.resume == SentMessage.Resume(seq: 3, state: nil))
    }

    @Test("the layout switch asks for the new layout and moves every shared element to its new frame")
    func layoutSwitch() throws {
        let fake = try FakePage()
        defer { fake.close() }
        let rect = try fake.start()
        try fake.page.run("document.querySelector('.switch [data-layout=\"list\"]').click()")
        let asked = try #require(try fake.sent.last)
        #expect(asked.type == "viewport" && asked.layout == "list")
        // The same items, one per row.
        var elements: [[String: Any]] = []
        for element in FakeLive.List.sample.elements() where element.section == 0 {
            var json = element.json
            json["frame"] = element.isItem ? [0, 40 + Double(element.item!) * 56, 1000, 56] : [0, 0, 1000, 40]
            elements.append(json)
        }
        try fake.deliver(["type": "elements", "seq": 0, "contentSize": [1000, 4000], "viewport": rect, "elements": elements])
        try fake.page.wait(until: "!tessera.animating")
        #expect(try fake.frames["i:3"] == [0, 40 + 2 * 56, 1000, 56])
        #expect(try fake.page.value("document.getElementById('content').className") == "layout-list")
    }

    @Test("the page is self-contained: no external script, style, font or image")
    func selfContained() {
        let html = LivePage.html
        #expect(!html.contains("http://") && !html.contains("https://"))
        #expect(!html.contains("<link") && !html.contains("src=") && !html.contains("@import") && !html.contains("url("))
        #expect(html.hasPrefix("<!DOCTYPE html>"))
    }
}
