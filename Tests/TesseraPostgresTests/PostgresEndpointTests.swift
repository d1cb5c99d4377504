import Foundation
import Testing
import TesseraTestTraits
@testable import TesseraPostgres

/// The URL a store connects with: what it reads, what it refuses (naming
/// the part that is wrong). No server needed (the connect timeout it sets
/// is tested against a silent listener in ``PostgresSessionEndTests``).
@Suite("PostgreSQL: the URL a store connects with", .ownThreads)
struct PostgresEndpointTests {
    @Test("keys are written into a text[] literal escaped byte by byte: a backslash or quote followed by a combining mark is escaped")
    func textArrayByBytes() {
        let written = PostgresSQL.textArray(["1", "a\\\u{301}", "\"\u{301}", "plain"])
        #expect(Array(written.utf8) == Array("{\"1\",\"a\\\\\u{301}\",\"\\\"\u{301}\",\"plain\"}".utf8))
        #expect(PostgresSQL.textArray([]) == "{}")
    }

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
        #expect(try PostgresEndpoint(url: "postgres://h/d?connect_timeout=05").connectTimeout == .seconds(5))
        #expect(try PostgresEndpoint(url: "postgres://h/d?connect_timeout=+5").connectTimeout == .seconds(5))
        #expect(try PostgresEndpoint(url: "postgres://h/d?connect_timeout=9&connect_timeout=4").connectTimeout == .seconds(4), "the last one counts, as in libpq")
    }

    @Test(
        "a URL Tessera cannot use is refused, naming what is wrong and never the password",
        arguments: [
            ("mysql://u:pw@h/d", "postgres://"),
            ("postgres:///d", "no host"),
            ("postgres://u:pw@h:70000/d", "port"),
            ("postgres://u:pw@h/d?sslmode=verify-full", "sslmode verify-full"),
            ("postgres://u:pw@h/d?connect_timeout=0", "connect_timeout '0'"),
            ("postgres://u:pw@h/d?connect_timeout=-5", "connect_timeout '-5'"),
            ("postgres://u:pw@h/d?connect_timeout=2.5", "connect_timeout '2.5'"),
            ("postgres://u:pw@h/d?connect_timeout=ten", "connect_timeout 'ten'"),
            ("postgres://u:pw@h/d?connect_timeout=3601", "connect_timeout '3601'"),
            ("postgres://u:pw@h/d?connect_timeout", "connect_timeout '' is not a whole number"),
            ("postgres://u:pw@h/d?connect_timeout=", "connect_timeout '' is not a whole number"),
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
}
