import Foundation
import TesseraLiveHub
import TesseraLiveProtocol
import TesseraServe

/// The live page with its WebSocket replaced by a fake the test speaks
/// for the server, and its clock (`performance.now`) settable, so that an
/// animation can be stopped at any instant.
enum FakeLive {
    /// Runs before the page's own script: `__sent` holds what the page
    /// sent (parsed), `__deliver(message)` hands it a message,
    /// `__setNow(ms)` stops its clock at `ms` (null lets it run).
    static let script = #"""
    window.__sent = []; window.__sockets = [];
    window.WebSocket = class {
      constructor(url) { this.url = url; this.readyState = 0; window.__sockets.push(this);
        setTimeout(() => { this.readyState = 1; this.onopen && this.onopen({}); }, 0); }
      send(text) { window.__sent.push(JSON.parse(text)); }
      close() { if (this.readyState === 3) return; this.readyState = 3; setTimeout(() => this.onclose && this.onclose({}), 0); }
    };
    window.__deliver = (m) => { const s = window.__sockets[window.__sockets.length - 1]; s.onmessage({ data: typeof m === "string" ? m : JSON.stringify(m) }); };
    let __now = null; const __realNow = performance.now.bind(performance);
    performance.now = () => __now === null ? __realNow() : __now;
    window.__setNow = (t) => { __now = t; };
    """#

    /// The page written to a file of its own in a new temporary folder.
    static func pageFile() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tessera-page-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let file = folder.appendingPathComponent("live.html")
        try LivePage.html.write(to: file, atomically: true, encoding: .utf8)
        return file
    }

    /// One element of a message.
    struct Element {
        var key: String
        var section: Int
        var item: Int?
        var frame: [Double]
        var title: String
        var isItem: Bool { key.hasPrefix("i:") }
        var id: String { String(key.dropFirst(2)) }

        var json: [String: Any] {
            var object: [String: Any] = ["key": key, "kind": isItem ? "item" : "header", "section": section, "frame": frame,
                                         "z": 0, "title": title, "selected": false]
            if let item {
                object["item"] = item
                object["colour"] = "#\(String((Int(id) ?? 0) * 2_654_435 % 0xFFFFFF, radix: 16))"
            }
            return object
        }
    }

    /// A list of albums, laid out as a grid of 120 × 150 items, 7 to a
    /// row, each album under a header 40 high.
    struct List {
        var albums: [(name: String, ids: [Int])]

        func elements(width: Double = 1000) -> [Element] {
            var out: [Element] = []
            var y = 0.0
            for (s, album) in albums.enumerated() {
                out.append(Element(key: "h:\(album.name)", section: s, item: nil, frame: [0, y, width, 40], title: album.name))
                y += 48
                for (i, id) in album.ids.enumerated() {
                    out.append(Element(key: "i:\(id)", section: s, item: i, frame: [8 + Double(i % 7) * 144, y + Double(i / 7) * 158, 120, 150],
                                       title: "Photo \(id)"))
                }
                y += Double((album.ids.count + 6) / 7) * 158 + 8
            }
            return out
        }

        func contentSize(width: Double = 1000) -> [Double] {
            [width, albums.reduce(0.0) { $0 + 48 + Double(($1.ids.count + 6) / 7) * 158 + 8 }]
        }

        var sections: [[String: Any]] { albums.map { ["id": $0.name, "count": $0.ids.count] } }

        static let sample = List(albums: [("Lisbon", Array(1...30)), ("Kyoto", Array(31...60))])
    }

    static func intersects(_ f: [Double], _ r: [Double]) -> Bool {
        f[0] < r[0] + r[2] && r[0] < f[0] + f[2] && f[1] < r[1] + r[3] && r[1] < f[1] + f[3]
    }

    static func snapshot(_ list: List, seq: Int, rect: [Double]) -> [String: Any] {
        ["type": "snapshot", "seq": seq, "contentSize": list.contentSize(), "viewport": rect, "sections": list.sections,
         "elements": list.elements().filter { intersects($0.frame, rect) }.map(\.json), "editable": true]
    }

    /// A plan from one list to another over the rectangle: every element
    /// in it before or after, from its old frame to its new one.
    static func plan(from old: List, to new: List, seq: Int, rect: [Double], animated: Bool = true, duration: Double = 0.3,
                     timing: String = "easeInOut") -> [String: Any] {
        let before = Dictionary(uniqueKeysWithValues: old.elements().map { ($0.key, $0) })
        let after = new.elements()
        let afterKeys = Set(after.map(\.key))
        var elements: [[String: Any]] = []
        for element in after {
            let previous = before[element.key]
            guard intersects(element.frame, rect) || previous.map({ intersects($0.frame, rect) }) == true else { continue }
            var json = element.json
            json["from"] = previous?.frame ?? element.frame
            json["fromAlpha"] = previous == nil ? 0 : 1
            json["toAlpha"] = 1
            json["fromZ"] = 0
            json["toZ"] = 0
            json["disposition"] = previous == nil ? "insert" : previous!.item != element.item || previous!.section != element.section ? "move"
                : previous!.frame != element.frame ? "shift" : "unchanged"
            elements.append(json)
        }
        for element in old.elements() where !afterKeys.contains(element.key) && intersects(element.frame, rect) {
            var json = element.json
            json["from"] = element.frame
            json["fromAlpha"] = 1
            json["toAlpha"] = 0
            json["fromZ"] = 0
            json["toZ"] = 0
            json["disposition"] = "delete"
            elements.append(json)
        }
        return ["type": "plan", "fromSeq": seq - 1, "seq": seq, "animated": animated, "duration": duration, "timing": timing,
                "contentSizeBefore": old.contentSize(), "contentSizeAfter": new.contentSize(),
                "contentOffsetBefore": [0, rect[1]], "contentOffsetAfter": [0, rect[1]], "moves": [] as [Any],
                "elements": elements, "settled": after.filter { intersects($0.frame, rect) }.map(\.json), "sections": new.sections]
    }

    /// A message as the JavaScript expression that delivers it.
    static func deliver(_ message: [String: Any]) throws -> String {
        let text = String(decoding: try JSONSerialization.data(withJSONObject: message), as: UTF8.self)
        return "__deliver(\(text))"
    }
}
