import Foundation
import Testing
import TesseraTestTraits
@testable import TesseraLiveHub
@testable import TesseraLiveProtocol
@testable import TesseraServe
import TesseraRender

/// The codes the server answers bad input with over a real connection, as
/// the protocol article's table lists them: each `error` code with the
/// `request` it echoes, the HTTP status of a refused request, and the
/// close codes.
@Suite("Server error codes", .ownThreads)
struct ServerErrorCodeTests {
    /// An upgraded client that said hello.
    static func client(port: Int) throws -> RawClient {
        let client = try RawClient(port: port)
        _ = try client.upgrade(host: "127.0.0.1:\(port)", origin: "http://127.0.0.1:\(port)")
        try client.sendText(#"{"type":"hello","layout":"list","viewport":[0,0,400,600]}"#)
        _ = try client.readMessage(ofType: "snapshot")
        return client
    }

    @Test("each bad message gets the error code and request the protocol article lists")
    func messageErrors() async throws {
        let longID = String(repeating: "7", count: 257)
        let manyIDs = (0..<1_001).map { "\"\($0)\"" }.joined(separator: ",")
        let cases: [(what: String, text: String, code: String, request: Int?)] = [
            ("a control character in a title", #"{"type":"rename","request":1,"id":"2","title":"bell\u0007"}"#, "malformed", 1),
            ("a control character in a new item's title", #"{"type":"add","request":2,"section":"Paris","title":"tab\there"}"#, "malformed", 2),
            ("a request above 2^53 - 1", #"{"type":"move","request":9007199254740992,"id":"2","to":0}"#, "malformed", nil),
            ("a request of 2^53 - 1 is read", #"{"type":"move","request":9007199254740991,"id":"2","to":-1}"#, "outOfRange", 9_007_199_254_740_991),
            ("1,001 ids", "{\"type\":\"delete\",\"request\":3,\"ids\":[\(manyIDs)]}", "outOfRange", 3),
            ("an empty id list", #"{"type":"delete","request":4,"ids":[]}"#, "malformed", 4),
            ("an id over 256 characters", "{\"type\":\"rename\",\"request\":5,\"id\":\"\(longID)\",\"title\":\"x\"}", "malformed", 5),
            ("an id over 256 characters in a delete", "{\"type\":\"delete\",\"request\":6,\"ids\":[\"\(longID)\"]}", "malformed", 6),
            ("an unknown layout", #"{"type":"viewport","viewport":[0,0,400,600],"layout":"grid"}"#, "malformed", nil),
            ("to: 1e300, no integer", #"{"type":"move","request":7,"id":"2","to":1e300}"#, "malformed", 7),
            ("to: past 2^31 - 1", #"{"type":"move","request":8,"id":"2","to":3000000000}"#, "outOfRange", 8),
            ("a title over 200 characters", "{\"type\":\"rename\",\"request\":9,\"id\":\"2\",\"title\":\"\(String(repeating: "a", count: 201))\"}", "tooLong", 9),
            ("an unknown type", #"{"type":"scroll","request":10}"#, "unknownType", nil),
            ("a rectangle out of range", #"{"type":"viewport","viewport":[0,0,400,1e6]}"#, "outOfRange", nil),
        ]
        try await ServerTestSupport.withServer { _, port in
            let answers = try await ServerTestSupport.blocking {
                let client = try Self.client(port: port)
                var answers: [JSON] = []
                for (_, text, _, _) in cases {
                    try client.sendText(text)
                    answers.append(try client.readMessage(ofType: "error"))
                }
                return answers
            }
            for (answer, (what, _, code, request)) in zip(answers, cases) {
                #expect(answer["code"] == .string(code), "\(what): \(answer.compactText)")
                #expect(answer["request"] == request.map { .int($0) }, "\(what): \(answer.compactText)")
            }
        }
    }

    @Test("a refused Host is answered 403; a text frame that is not UTF-8 closes with 1007")
    func refusalsAndCloses() async throws {
        try await ServerTestSupport.withServer { _, port in
            let (page, upgrade, close) = try await ServerTestSupport.blocking {
                let page = try RawClient(port: port).get("/", host: "evil.example:\(port)")
                let upgrade = try RawClient(port: port).upgrade(host: "evil.example:\(port)", origin: "http://evil.example:\(port)")
                let client = try Self.client(port: port)
                try client.sendFrame(opcode: 1, payload: [0x7B, 0xFF, 0xFE, 0x7D])
                return (page.status, upgrade.status, try client.readMessage())
            }
            #expect(page == 403)
            #expect(upgrade == 403)
            #expect(close == .close(code: 1007))
        }
    }

    @Test("a client that never reads while it keeps asking is closed with 1000 once its replies pass the bound")
    func neverReads() async throws {
        try await ServerTestSupport.withServer(photos: 5_000) { server, port in
            let client = try await ServerTestSupport.blocking { try Self.client(port: port) }
            // Large replies, never read: the socket fills, then the replies
            // waiting for it pass the bound.
            try await ServerTestSupport.blocking {
                for index in 0..<150 {
                    try client.sendText("{\"type\":\"viewport\",\"viewport\":[0,\(index),8192,8192],\"layout\":\"flow\"}")
                }
            }
            // 12,000 rounds of at least 10 ms (generous for a sanitizer
            // build on a busy machine), bounded in rounds, not by a clock.
            var count = await server.hub.clientCount
            try await waitInRounds(12_000, every: .milliseconds(10)) {
                count = await server.hub.clientCount
                return count == 0
            }
            #expect(count == 0, "the client was not disconnected within 12,000 rounds of 10 ms")
            // The close frame waits behind the megabytes of replies the
            // socket holds, and the server waits for the client's answer to
            // it only so long (15 s) before it drops the connection with
            // what it still holds: the client drains them without reading
            // them, so that it reaches the close in time on a busy machine.
            let close = try await ServerTestSupport.blocking { client.skipToClose() }
            #expect(close == .close(code: 1000), "the stream ended, or stayed silent for 120 s, before a close with 1000: \(String(describing: close))")
        }
    }
}
