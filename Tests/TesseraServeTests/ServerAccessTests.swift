import Foundation
import Testing
import TesseraTestTraits
import TesseraRender
@testable import TesseraLiveHub
@testable import TesseraLiveProtocol
@testable import TesseraServe

/// Who may connect and who may edit: ``ServeAccess`` on its own, and a
/// server bound to every address (not loopback) with its token.
@Suite("Server access", .ownThreads)
struct ServerAccessTests {
    @Test("loopback addresses and names")
    func loopback() {
        for host in ["127.0.0.1", "127.1.2.3", "localhost", "LOCALHOST", "app.localhost", "::1", "[::1]", "localhost."] {
            #expect(ServeAccess.isLoopback(host: host), "\(host)")
        }
        for host in ["0.0.0.0", "::", "192.168.1.10", "10.0.0.1", "example.com", "127.0.0", "127.0.0.1.example", "localhost.example", "", "128.0.0.1"] {
            #expect(!ServeAccess.isLoopback(host: host), "\(host)")
        }
    }

    @Test("the host name of an authority")
    func hostName() {
        #expect(ServeAccess.hostName(ofAuthority: "127.0.0.1:8080") == "127.0.0.1")
        #expect(ServeAccess.hostName(ofAuthority: "localhost") == "localhost")
        #expect(ServeAccess.hostName(ofAuthority: "[::1]:8080") == "::1")
        #expect(ServeAccess.hostName(ofAuthority: "[::1") == nil)
        #expect(ServeAccess.hostName(ofAuthority: "a:b:c") == nil)
        #expect(ServeAccess.hostName(ofAuthority: ":80") == nil)
    }

    @Test("a loopback server answers loopback Hosts only; another server any")
    func hosts() {
        let loopback = ServeAccess(host: "127.0.0.1", token: nil)
        #expect(loopback.allowsHost("127.0.0.1:8080"))
        #expect(loopback.allowsHost("localhost:8080"))
        #expect(loopback.allowsHost("[::1]:8080"))
        #expect(!loopback.allowsHost("evil.example:8080"))
        #expect(!loopback.allowsHost(nil))
        let open = ServeAccess(host: "0.0.0.0", token: "t")
        #expect(open.allowsHost("photos.example:8080"))
        #expect(open.allowsHost(nil))
    }

    @Test("an Origin must be http:// or https:// and the Host; none, or a ws: or wss: one (not a browser's), is let in")
    func origins() {
        let access = ServeAccess(host: "127.0.0.1", token: nil)
        #expect(access.allowsOrigin(nil, authority: "127.0.0.1:8080"))
        #expect(access.allowsOrigin(nil, authority: nil))
        #expect(access.allowsOrigin("http://127.0.0.1:8080", authority: "127.0.0.1:8080"))
        #expect(access.allowsOrigin("http://LocalHost:8080", authority: "localhost:8080"))
        #expect(!access.allowsOrigin("http://127.0.0.1:8081", authority: "127.0.0.1:8080"))
        #expect(access.allowsOrigin("https://photos.example", authority: "photos.example"))
        #expect(access.allowsOrigin("ws://127.0.0.1", authority: "127.0.0.1:8080"))
        #expect(access.allowsOrigin("WSS://anything.example", authority: nil))
        #expect(!access.allowsOrigin("https://127.0.0.1:8081", authority: "127.0.0.1:8080"))
        #expect(!access.allowsOrigin("https://evil.example", authority: "photos.example"))
        #expect(!access.allowsOrigin("file://", authority: "127.0.0.1:8080"))
        #expect(!access.allowsOrigin("http://127.0.0.1:8080", authority: nil))
        #expect(!access.allowsOrigin("null", authority: "127.0.0.1:8080"))
        #expect(!access.allowsOrigin("http://evil.example", authority: "127.0.0.1:8080"))
    }

    @Test("edits need the token when there is one")
    func tokens() {
        let token = ServeAccess.makeToken()
        let access = ServeAccess(host: "0.0.0.0", token: token)
        #expect(access.canEdit(query: "token=\(token)"))
        #expect(access.canEdit(query: "layout=flow&token=\(token)"))
        #expect(!access.canEdit(query: nil))
        #expect(!access.canEdit(query: ""))
        #expect(!access.canEdit(query: "token="))
        #expect(!access.canEdit(query: "token=\(token.dropLast())"))
        #expect(!access.canEdit(query: "token=\(token)0"))
        #expect(!access.canEdit(query: "token=\(token.uppercased())") || token.uppercased() == token, "tokens compare exactly")
        #expect(!access.canEdit(query: "tokens=\(token)"))
        #expect(ServeAccess(host: "127.0.0.1", token: nil).canEdit(query: nil))
        #expect(ServeAccess.parameter("token", inQuery: "a=1&token=ab%20c+d") == "ab c d")
        #expect(ServeAccess.parameter("token", inQuery: "token=%zz%4") == "%zz%4")
        #expect(ServeAccess.parameter("token", inQuery: "a=1") == nil)
    }

    @Test("tokens are 32 hexadecimal digits and differ")
    func madeTokens() {
        let tokens = (0..<100).map { _ in ServeAccess.makeToken() }
        for token in tokens {
            #expect(token.count == 32 && token.allSatisfy(\.isHexDigit), "\(token)")
        }
        #expect(Set(tokens).count == tokens.count)
    }

    @Test("a server on a public address makes a token; a loopback one needs none")
    func serverTokens() throws {
        let hub = try ServeHub(configuration: try ServerTestSupport.library(photos: 10))
        let open = ServeServer(hub: hub, host: "0.0.0.0", port: 0)
        #expect(open.token?.count == 32)
        #expect(open.access.token == open.token)
        #expect(ServeServer(hub: hub, host: "127.0.0.1", port: 0).token == nil)
        #expect(ServeServer(hub: hub, host: "127.0.0.1", port: 0, token: "given").token == "given")
    }

    @Test("on 0.0.0.0, a client without the token reads but cannot edit; with it, it can")
    func publicServer() async throws {
        let token = ServeAccess.makeToken()
        try await ServerTestSupport.withServer(host: "0.0.0.0", token: token) { server, port in
            #expect(server.address == "http://0.0.0.0:\(port)/")
            for (query, canEdit) in [("", false), ("?token=\(token.prefix(31))x", false), ("?token=\(token)", true)] {
                let (snapshot, answer) = try await ServerTestSupport.blocking {
                    let client = try RawClient(port: port)
                    let response = try client.upgrade("/live\(query)", host: "127.0.0.1:\(port)", origin: "http://127.0.0.1:\(port)")
                    guard response.status == 101 else { throw ServerTestError("not upgraded: \(response.status)") }
                    try client.sendText(#"{"type":"hello","layout":"list","viewport":[0,0,400,600]}"#)
                    let snapshot = try client.readMessage(ofType: "snapshot")
                    try client.sendText(#"{"type":"rename","request":5,"id":"1","title":"Renamed"}"#)
                    while true {
                        let message = try client.readMessage(ofType: canEdit ? "done" : "error", skipping: 10)
                        if message["request"] == .int(5) { return (snapshot, message) }
                    }
                }
                #expect(snapshot["editable"] == .bool(canEdit), "query \(query)")
                if canEdit {
                    #expect(answer["type"] == .string("done"), "\(answer.compactText)")
                } else {
                    #expect(answer["code"] == .string("forbidden"), "\(answer.compactText)")
                }
            }
        }
    }
}
