import Foundation
import Testing
import TesseraTestTraits
@testable import TesseraLiveHub
@testable import TesseraLiveProtocol
@testable import TesseraServe
import TesseraLayout
import TesseraRender
import TesseraSQLite
import TesseraTestSupport
import TesseraView

/// The viewport is the client's: every message that carries a rectangle
/// (`snapshot`, `elements`, a plan's offsets and `settled`) is for the
/// rectangle the client last sent, also far outside the content, and a
/// change never moves it.
@Suite("Hub viewport oracle", .tags(.oracle))
struct HubViewportOracleTests {
    /// What a client checks as it reads: the content size it was last told.
    final class Reader {
        let client: HubTestClient
        var contentSize = Size(width: 0, height: 0)
        var problems: [String] = []
        var plansChecked = 0

        init(_ client: HubTestClient) {
            self.client = client
        }

        /// Reads every waiting message, checking each one's rectangle.
        func drain() async throws {
            while client.outbox.count > 0 {
                guard let text = await client.outbox.next() else { return }
                try read(text)
            }
        }

        func read(_ text: String) throws {
            let message = try JSON.parse(text)
            let before = Set(client.elements.compactMap(Self.key))
            try client.take(text)
            let viewport = client.viewport
            let label = "\(client.label), \(client.layout.rawValue) at \(viewport)"
            if case let .array(size)? = message["contentSize"] ?? message["contentSizeAfter"], size.count == 2 {
                contentSize = Size(width: HubTestClient.double(size[0]), height: HubTestClient.double(size[1]))
            }
            switch message["type"] {
            case .string("snapshot")?, .string("elements")?:
                let sent = HubTestClient.rect(message["viewport"])
                if sent != viewport { problems.append("\(label): \(message["type"]!.compactText) for \(sent)") }
                check(HubReplica.array(message["elements"]), label: label)
            case .string("plan")? where message["unchanged"] != .bool(true):
                plansChecked += 1
                let offsets = [HubTestClient.point(message["contentOffsetBefore"]), HubTestClient.point(message["contentOffsetAfter"])]
                if offsets.contains(where: { $0 != viewport.origin }) {
                    problems.append("\(label): plan to seq \(client.seq) moves the viewport: offsets \(offsets)")
                }
                let settled = HubReplica.array(message["settled"])
                check(settled, label: label + ", plan to seq \(client.seq)")
                // The plan's elements: those of the rectangle before and after.
                let keys = Set(HubReplica.array(message["elements"]).compactMap(Self.key))
                let expected = before.union(settled.compactMap(Self.key))
                if keys != expected {
                    problems.append("\(label): plan to seq \(client.seq) has elements \(keys.subtracting(expected).sorted().prefix(5)) outside the rectangle and lacks \(expected.subtracting(keys).sorted().prefix(5))")
                }
            default:
                break
            }
        }

        /// Compares an element set with a brute-force filter of a fresh
        /// layout of the replica: every element whose frame meets the
        /// client's rectangle, with that frame.
        func check(_ elements: [JSON], label: String) {
            let expected = HubViewportOracleTests.bruteForce(replica: client.replica, layout: client.layout, viewport: client.viewport)
            var got: [String: Rect] = [:]
            for element in elements {
                guard let key = Self.key(element) else { continue }
                got[key] = HubTestClient.rect(element["frame"])
            }
            if got != expected {
                let extra = Set(got.keys).subtracting(expected.keys).sorted().prefix(5)
                let missing = Set(expected.keys).subtracting(got.keys).sorted().prefix(5)
                let moved = got.filter { expected[$0.key] != nil && expected[$0.key] != $0.value }.keys.sorted().prefix(5)
                problems.append("\(label): elements outside the rectangle \(extra), missing \(missing), at other frames \(moved)")
            }
        }

        static func key(_ element: JSON) -> String? {
            if case let .string(key)? = element["key"] { key } else { nil }
        }
    }

    /// The elements a fresh layout of `replica` puts in `viewport`: every
    /// element of the whole content (and of the viewport, wherever it is),
    /// filtered by its frame.
    static func bruteForce(replica: HubReplica, layout kind: ServeLayoutKind, viewport: Rect) -> [String: Rect] {
        let counts = CountsSource(counts: replica.sections.map(\.ids.count))
        let view = CollectionView(layout: kind.makeLayout(width: viewport.size.width, headers: true), size: viewport.size)
        view.anchorsScrollPosition = false
        view.dataSource = counts
        view.reloadData()
        view.setBounds(viewport, animated: false)
        let content = view.contentSize
        let everything = Rect(
            x: min(0, viewport.origin.x) - 1, y: min(0, viewport.origin.y) - 1,
            width: max(content.width, viewport.maxX) + 2, height: max(content.height, viewport.maxY) + 2
        )
        var result: [String: Rect] = [:]
        for attributes in view.collectionViewLayout.layoutAttributesForElements(in: everything) where attributes.frame.intersects(viewport) {
            let section = attributes.indexPath[0]
            switch attributes.category {
            case .cell: result["i:" + replica.sections[section].ids[attributes.indexPath[1]]] = attributes.frame
            case .supplementaryView(ElementKind.sectionHeader): result["h:" + replica.sections[section].id] = attributes.frame
            default: break
            }
        }
        return result
    }

    /// A random rectangle: near the top, at or past the end of the content,
    /// far below it, or off to the right.
    static func randomViewport(contentSize: Size, using random: inout SplitMix64) -> Rect {
        let width = Double(Int.random(in: 200...1_400, using: &random))
        let height = Double(Int.random(in: 100...1_200, using: &random))
        let bottom = max(0, contentSize.height - height)
        switch Int.random(in: 0..<5, using: &random) {
        case 0: return Rect(x: 0, y: Double(Int.random(in: 0...3_000, using: &random)), width: width, height: height)
        case 1: return Rect(x: 0, y: (bottom + Double(Int.random(in: 0...Int(height), using: &random))).rounded(), width: width, height: height)
        case 2: return Rect(x: 0, y: Double(Int.random(in: 0...10_000_000, using: &random)), width: width, height: height)
        case 3: return Rect(x: Double(Int.random(in: 1...2_000, using: &random)), y: Double(Int.random(in: 0...2_000, using: &random)), width: width, height: height)
        default: return Rect(x: 0, y: bottom.rounded(), width: width, height: height)
        }
    }

    @Test("every plan keeps the client's viewport, and its settled elements are a brute-force filter of a fresh layout", arguments: 0..<4)
    func plansKeepTheViewport(round: Int) async throws {
        let seed = testSeed(default: 0x7E1E_0000 + UInt64(round))
        print("HubViewportOracleTests seed \(seed)")
        var random = SplitMix64(seed: seed)
        let library = try HubLibrary(photos: Int.random(in: 30...150, using: &random))
        let hub = try ServeHub(configuration: library.configuration(capacity: 6))
        // Fast readers move their viewports; slow ones fall behind and
        // catch up, keeping the viewport of their hello.
        var readers: [(reader: Reader, fast: Bool)] = []
        for index in 0..<Int.random(in: 3...7, using: &random) {
            let (id, outbox) = await hub.connect(canEdit: true)
            let client = HubTestClient(
                id: id, outbox: outbox, label: "seed \(seed), client \(index)",
                layout: ServeLayoutKind.allCases.randomElement(using: &random)!,
                viewport: Self.randomViewport(contentSize: Size(width: 1_000, height: 3_000), using: &random)
            )
            await hub.receive(HubOracleTests.hello(client), from: id)
            let reader = Reader(client)
            try await reader.drain()
            readers.append((reader, index % 3 != 2))
        }
        var request: Int64 = 0
        for _ in 0..<Int.random(in: 60...120, using: &random) {
            switch Int.random(in: 0..<10, using: &random) {
            case 0...2:
                let client = readers.randomElement(using: &random)!.reader.client
                request += 1
                await hub.receive(HubOracleTests.randomEdit(client, request: request, using: &random), from: client.id)
            case 3...4:
                try HubOracleTests.externalCommit(library, using: &random)
                await hub.poll()
            case 5...6:
                // The end of the list shrinks under the clients scrolled there.
                try library.writer.write { db in
                    try db.execute("DELETE FROM photo WHERE id IN (SELECT id FROM photo ORDER BY album DESC, position DESC, id DESC LIMIT ?)",
                                   [.integer(Int64.random(in: 1...6, using: &random))])
                }
                await hub.poll()
            default:
                guard let (reader, _) = readers.filter(\.fast).randomElement(using: &random) else { break }
                // Everything sent for the old viewport is read first.
                try await reader.drain()
                reader.client.viewport = Self.randomViewport(contentSize: reader.contentSize, using: &random)
                var text = "{\"type\":\"viewport\",\"viewport\":\(HubOracleTests.rect(reader.client.viewport))"
                if Bool.random(using: &random) {
                    reader.client.layout = ServeLayoutKind.allCases.randomElement(using: &random)!
                    text += ",\"layout\":\"\(reader.client.layout.rawValue)\""
                }
                await hub.receive(text + "}", from: reader.client.id)
            }
            for (reader, fast) in readers where fast || Int.random(in: 0..<5, using: &random) == 0 {
                try await reader.drain()
            }
        }
        // Quiescence: every client caught up.
        await hub.poll()
        let last = await hub.seq
        // A limit against a hang only, counted in rounds of this loop, not
        // in time: while long synchronous tests hold the cooperative pool,
        // neither the hub nor this loop runs, and a clock would run out
        // with nothing to blame (120,000 rounds of at least 1 ms).
        for _ in 0..<120_000 {
            for (reader, _) in readers { try await reader.drain() }
            if readers.allSatisfy({ $0.reader.client.seq == last && $0.reader.client.outbox.count == 0 }) { break }
            try await Task.sleep(for: .milliseconds(1))
        }
        let fresh = try library.freshList()
        for (reader, _) in readers {
            #expect(reader.client.seq == last, "\(reader.client.label): at seq \(reader.client.seq), the hub at \(last)")
            #expect(reader.client.replica.sections == fresh, "\(reader.client.label): replica \(reader.client.replica)")
            #expect(reader.problems.isEmpty, "\(reader.problems.prefix(5))")
        }
        #expect(readers.map(\.reader.plansChecked).reduce(0, +) > 0, "seed \(seed): no plan was checked")
        await hub.stop()
    }

    @Test("a list client far below the content and a flow client off to the right keep their viewports through a plan")
    func viewportsOutsideTheContent() async throws {
        let library = try HubLibrary(photos: 2_000, albums: 4)
        let hub = try ServeHub(configuration: library.configuration())
        var readers: [Reader] = []
        for (index, (layout, viewport)) in [
            (ServeLayoutKind.list, Rect(x: 0, y: 5_000_000, width: 400, height: 800)),
            (ServeLayoutKind.flow, Rect(x: 200, y: 0, width: 800, height: 600)),
        ].enumerated() {
            let (id, outbox) = await hub.connect(canEdit: true)
            let client = HubTestClient(id: id, outbox: outbox, label: "client \(index)", layout: layout, viewport: viewport)
            await hub.receive(HubOracleTests.hello(client), from: id)
            let reader = Reader(client)
            try await reader.drain()
            readers.append(reader)
        }
        try library.writer.write { db in try db.execute("DELETE FROM photo WHERE album = 'Alps' AND position < 3") }
        await hub.poll()
        for reader in readers {
            let text = try #require(await reader.client.outbox.next())
            let plan = try JSON.parse(text)
            try reader.read(text)
            #expect(HubTestClient.point(plan["contentOffsetAfter"]) == reader.client.viewport.origin, "\(reader.client.label)")
            #expect(reader.problems.isEmpty, "\(reader.problems)")
        }
        #expect(readers[0].client.elements.isEmpty)
        #expect(readers[1].client.elements.allSatisfy { HubTestClient.rect($0["frame"]).maxX > 200 })
        await hub.stop()
    }

    @Test("a client scrolled to the bottom stays there when deletes shrink the list under it")
    func bottomOfAShrinkingList() async throws {
        let library = try HubLibrary(photos: 200, albums: 2)
        let hub = try ServeHub(configuration: library.configuration())
        let (id, outbox) = await hub.connect(canEdit: true)
        // 200 rows of 56 points under two 40-point headers.
        let bottom = Rect(x: 0, y: 200 * 56 + 2 * 40 - 800, width: 400, height: 800)
        let reader = Reader(HubTestClient(id: id, outbox: outbox, label: "bottom", layout: .list, viewport: bottom))
        await hub.receive(HubOracleTests.hello(reader.client), from: id)
        try await reader.drain()
        #expect(reader.contentSize.height == bottom.maxY)
        for round in 0..<3 {
            try library.writer.write { db in
                try db.execute("DELETE FROM photo WHERE id IN (SELECT id FROM photo WHERE album = 'Berlin' ORDER BY position DESC LIMIT 5)")
            }
            await hub.poll()
            let text = try #require(await outbox.next())
            let plan = try JSON.parse(text)
            try reader.read(text)
            #expect(HubTestClient.point(plan["contentOffsetAfter"]) == bottom.origin, "round \(round): \(plan["contentOffsetAfter"]?.compactText ?? "")")
            #expect(reader.contentSize.height == bottom.maxY - Double(5 * 56 * (round + 1)))
        }
        #expect(reader.problems.isEmpty, "\(reader.problems)")
        // Its next viewport (the page's, kept within the content) is answered as sent.
        reader.client.viewport = Rect(x: 0, y: reader.contentSize.height - 800, width: 400, height: 800)
        await hub.receive("{\"type\":\"viewport\",\"viewport\":\(HubOracleTests.rect(reader.client.viewport))}", from: id)
        try await reader.drain()
        #expect(reader.problems.isEmpty, "\(reader.problems)")
        #expect(!reader.client.elements.isEmpty)
        await hub.stop()
    }
}
