import Foundation
import Testing
@testable import TesseraLiveHub
@testable import TesseraLiveProtocol
@testable import TesseraServe
import TesseraLayout
import TesseraRender
import TesseraSQLite

/// What one client can make the hub do with messages the protocol allows.
@Suite("The hub bounds what one client's messages can make it do")
struct ServeAmplificationTests {
    /// The largest reply a client's one small message should cost.
    static let replyBound = 1024 * 1024

    @Test("a viewport larger than 8,192 × 8,192 is refused (outOfRange) and changes nothing; the largest allowed, in every layout and shape, is answered with a bounded reply", arguments: ServeLayoutKind.allCases)
    func viewportAreaIsBounded(layout: ServeLayoutKind) async throws {
        let library = try HubLibrary(photos: 10_000, albums: 8)
        let hub = try ServeHub(configuration: library.configuration())
        let (id, outbox) = await hub.connect(canEdit: false)
        await hub.receive("{\"type\":\"hello\",\"layout\":\"\(layout.rawValue)\",\"viewport\":[0,0,1000,2000]}", from: id)
        _ = await outbox.next()
        // Too large: refused, naming the area.
        for rect in ["[0,0,100000,100000]", "[0,0,8193,8192]", "[0,0,100000,672]"] {
            await hub.receive("{\"type\":\"viewport\",\"viewport\":\(rect)}", from: id)
            let reply = await outbox.next() ?? ""
            #expect(reply.contains("\"outOfRange\"") && reply.contains("8192 × 8192"), "\(layout) \(rect): \(reply.prefix(200))")
        }
        // The largest allowed, square and thin, anywhere in the list.
        var largest = 0
        for rect in ["[0,0,8192,8192]", "[0,0,100000,671]", "[0,0,671,100000]", "[0,40000,8192,8192]"] {
            await hub.receive("{\"type\":\"viewport\",\"viewport\":\(rect)}", from: id)
            let reply = await outbox.next() ?? ""
            #expect(reply.hasPrefix("{\"type\":\"elements\""), "\(layout) \(rect): \(reply.prefix(200))")
            largest = max(largest, reply.utf8.count)
        }
        print("\(layout): the largest elements reply to a viewport of at most 8,192 × 8,192 is \(largest) bytes")
        #expect(largest <= Self.replyBound, "\(layout): an elements reply of \(largest) bytes")
        await hub.stop()
    }

    @Test("switching layouts on every viewport message lays the whole list out each time (printed, not asserted)")
    func layoutFlipsCostTheWholeList() async throws {
        let library = try HubLibrary(photos: 10_000, albums: 8)
        let hub = try ServeHub(configuration: library.configuration())
        let (id, outbox) = await hub.connect(canEdit: false)
        await hub.receive(#"{"type":"hello","layout":"flow","viewport":[0,0,1000,2000]}"#, from: id)
        _ = await outbox.next()
        let started = ContinuousClock.now
        for i in 0..<20 {
            let layout = ["list", "flow", "column"][i % 3]
            await hub.receive("{\"type\":\"viewport\",\"layout\":\"\(layout)\",\"viewport\":[0,0,1000,2000]}", from: id)
            #expect(await outbox.next()?.hasPrefix("{\"type\":\"elements\"") == true)
        }
        print("twenty layout switches over 10,000 photos took \(ContinuousClock.now - started)")
        await hub.stop()
    }
}
