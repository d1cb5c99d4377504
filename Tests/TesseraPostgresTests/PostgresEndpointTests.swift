import Foundation
import Testing
import TesseraTestTraits
@testable import TesseraPostgres

/// The URL a store connects with: what it reads, what it refuses (naming
/// the part that is wrong), and the connect timeout it sets, against a
/// listener on loopback that never answers (no server needed).
@Suite("PostgreSQL: the URL a store connects with", .ownThreads)
struct PostgresEndpointTests {
    @Test("a URL's parts, its sslmode and its connect_timeout are read")
    func partsAreRead() throws {
        let endpoint = try PostgresEndpoint(url: "postgres://app:s%40cret@db.example:6543/photos?sslmode=require&connect_timeout=7")
        #expect(endpoint.host == "db.example")
        #expect(endpoint.port == 6543)
        #expect(endpoint.user == "app")
        #expect(endpoint.password == "s@cret")
        #expect(endpoint.database == "photos")
        #expect(endpoint.tls == .require)
        #expect(endpoint.connectTimeout == .seconds(7))

        let plain = try PostgresEndpoint(url: "postgresql://127.0.0.1/photos")
        #expect(plain.port == 5432)
        #expect(plain.user == "postgres")
        #expect(plain.tls == .disable)
        #expect(plain.connectTimeout == .seconds(30))
        #expect(try PostgresEndpoint(url: "postgres://h/d?connect_timeout=3600").connectTimeout == .seconds(3_600))
    }

    @Test(
        "a URL Tessera cannot use is refused, naming what is wrong and never the password",
        arguments: [
            ("mysql://u:pw@h/d", "postgres://"),
            ("postgres:///d", "no host"),
            ("postgres://u:pw@h:70000/d", "port"),
            ("postgres://u:pw@h/d?sslmode=verify-full", "sslmode verify-full"),
            ("postgres://u:pw@h/d?connect_timeout=0", "connect_timeout 0"),
            ("postgres://u:pw@h/d?connect_timeout=-5", "connect_timeout -5"),
            ("postgres://u:pw@h/d?connect_timeout=2.5", "connect_timeout 2.5"),
            ("postgres://u:pw@h/d?connect_timeout=ten", "connect_timeout ten"),
            ("postgres://u:pw@h/d?connect_timeout=3601", "connect_timeout 3601"),
            ("postgres://u:pw@h/d?connect_timeout", "connect_timeout"),
            ("postgres://u:pw@h/d?timeout=5", "unknown parameter timeout"),
        ]
    )
    func badURLsAreRefused(url: String, named: String) {
        #expect {
            _ = try PostgresEndpoint(url: url)
        } throws: { error in
            guard let failure = error as? PostgresStoreError else { return false }
            return failure.kind == .invalidURL && failure.description.contains(named) && !failure.description.contains("pw")
        }
    }

    @Test("a server that takes the connection and never answers: connecting fails after the URL's connect_timeout, for a session and for a replication stream")
    func connectTimeoutBoundsASilentServer() throws {
        let listener = try SilentListener()
        defer { listener.close() }
        let endpoint = try PostgresEndpoint(url: "postgres://u@127.0.0.1:\(listener.port)/d?connect_timeout=1")
        #expect {
            _ = try PostgresSession.connect(endpoint, applicationName: "silent")
        } throws: { error in
            guard let failure = error as? PostgresStoreError else { return false }
            // The driver's own timeout, set from the URL (the store's
            // backstop behind it waits 5 s more).
            return failure.kind == .connection && failure.description.contains("timeout (1 s)")
        }
        #expect(throws: PostgresStoreError.self) {
            _ = try PostgresReplicationStream.open(
                endpoint, slot: "tessera_silent", applicationName: "silent", timeout: .seconds(1), signal: PostgresFeedSignal()
            )
        }
    }
}

/// A TCP listener on 127.0.0.1 that never accepts: the kernel completes
/// each connection's handshake, and nothing is ever said on it.
private final class SilentListener {
    let descriptor: Int32
    let port: Int

    init() throws {
        let made = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard made >= 0 else { throw POSIXError(.EMFILE) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(made, $0, length) }
        }
        guard bound == 0, listen(made, 16) == 0 else {
            Glibc.close(made)
            throw POSIXError(.EADDRINUSE)
        }
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(made, $0, &length) }
        }
        descriptor = made
        port = Int(UInt16(bigEndian: address.sin_port))
    }

    func close() { Glibc.close(descriptor) }
}
