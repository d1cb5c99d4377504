import Foundation
import TesseraRender
import TesseraResultsCore
import TesseraSQLite
import TesseraTestTraits
import Testing
@testable import TesseraLiveHub
@testable import TesseraLiveProtocol
@testable import TesseraServe

/// ``ServeLimits/maximumClients``: each client costs the server its view and
/// its layout, so the count it holds is bounded.
@Suite("Server client limit", .ownThreads)
struct ServerClientLimitTests {
    /// Upgrades a client and reads its snapshot; the status when there is
    /// no upgrade.
    static func connect(_ port: Int) throws -> (client: RawClient?, status: Int, body: String) {
        let client = try RawClient(port: port)
        let response = try client.upgrade(host: "127.0.0.1:\(port)")
        guard response.status == 101 else { return (nil, response.status, response.body) }
        try client.sendText(#"{"type":"hello","layout":"list","viewport":[0,0,400,600]}"#)
        _ = try client.readMessage(ofType: "snapshot")
        return (client, 101, "")
    }

    @Test("at the limit, an upgrade is answered 503 saying why; once a client leaves, the next one is served")
    func limitRefusesThenAdmits() async throws {
        try await ServerTestSupport.withServer(limits: ServeLimits(maximumClients: 2)) { server, port in
            try await ServerTestSupport.blocking {
                var first = try Self.connect(port).client
                let second = try Self.connect(port).client
                #expect(first != nil && second != nil)
                let refused = try Self.connect(port)
                #expect(refused.status == 503, "the third client: \(refused.status)")
                #expect(refused.body.contains("holds its most clients (2)"), "\(refused.body)")
                #expect(server.connectedClients == 2)
                // One leaves: its place is free once the server sees it go.
                first = nil
                // 12,000 rounds of at least 10 ms (generous for a sanitizer
                // build on a busy machine; bounded in rounds, not by a
                // clock): the server is bound to see it.
                waitInRounds(12_000, sleepingEvery: .milliseconds(10)) { server.connectedClients <= 1 }
                #expect(server.connectedClients == 1, "the server still counted \(server.connectedClients) clients 12,000 rounds of 10 ms after one left")
                let next = try Self.connect(port)
                #expect(next.status == 101, "after a client left: \(next.status) \(next.body)")
                withExtendedLifetime((first, second, next.client)) {}
            }
        }
    }

    @Test("upgrades that race past the limit: no more clients are served than the limit; the ones over it are refused (503) or closed (1013, code full)")
    func racingUpgrades() async throws {
        try await ServerTestSupport.withServer(limits: ServeLimits(maximumClients: 3)) { server, port in
            try await ServerTestSupport.blocking {
                let outcomes = PThreadMutex<[String]>([])
                let clients = PThreadMutex<[RawClient]>([])
                let group = DispatchGroup()
                for _ in 0..<12 {
                    group.enter()
                    Thread {
                        defer { group.leave() }
                        do {
                            let client = try RawClient(port: port)
                            let response = try client.upgrade(host: "127.0.0.1:\(port)")
                            guard response.status == 101 else {
                                outcomes.withLock { $0.append("status \(response.status)") }
                                return
                            }
                            try client.sendText(#"{"type":"hello","layout":"list","viewport":[0,0,400,600]}"#)
                            switch try client.readMessage() {
                            case let .text(text) where text.contains(#""type":"snapshot""#):
                                outcomes.withLock { $0.append("served") }
                                clients.withLock { $0.append(client) }
                            case let .text(text) where text.contains(#""code":"full""#):
                                let close = try client.readMessage()
                                outcomes.withLock { $0.append(close == .close(code: 1013) ? "closed 1013" : "closed \(close)") }
                            case let other:
                                outcomes.withLock { $0.append("unexpected \(other)") }
                            }
                        } catch {
                            outcomes.withLock { $0.append("error \(error)") }
                        }
                    }.start()
                }
                group.wait()
                let all = outcomes.withLock { $0 }
                let served = all.filter { $0 == "served" }.count
                #expect(all.count == 12, "\(all)")
                #expect(served == 3, "\(all)")
                #expect(all.allSatisfy { ["served", "status 503", "closed 1013"].contains($0) }, "\(all)")
                #expect(server.connectedClients == 3)
                withExtendedLifetime(clients.withLock { $0 }) {}
            }
        }
    }
}
