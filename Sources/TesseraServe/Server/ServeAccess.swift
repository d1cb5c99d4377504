import TesseraLiveHub
import TesseraLiveProtocol

/// Who may open the live list and who may edit it: the checks the server
/// makes on every request, apart from the network.
///
/// A server bound to a loopback address (`127.0.0.1`, `::1`, `localhost`)
/// lets every client edit, and answers only requests whose `Host` names a
/// loopback address, so that a web page whose name resolves to 127.0.0.1
/// (DNS rebinding) cannot reach it. A server bound to any other address has
/// a token: clients that give it (`?token=` on `/live`) may edit, the others
/// may only read.
///
/// A WebSocket upgrade from a browser carries an `Origin`; it must be the
/// server's own, `http://` or `https://` (behind a proxy that ends TLS)
/// followed by the request's `Host`. Clients that are not browsers send
/// none, or one with a `ws:` or `wss:` scheme that no browser sends, and
/// are let in.
package struct ServeAccess: Sendable, Hashable {
    /// Whether the server is bound to a loopback address.
    package var isLoopback: Bool
    /// The token edits need; `nil` lets every client edit.
    package var token: String?

    /// Creates the checks of a server bound to `host` with `token`.
    package init(host: String, token: String?) {
        self.init(loopbackHostsOnly: Self.isLoopback(host: host), token: token)
    }

    /// Creates the checks of a list that answers only loopback host names
    /// (or any), with `token`.
    package init(loopbackHostsOnly: Bool, token: String?) {
        isLoopback = loopbackHostsOnly
        self.token = token
    }

    /// Whether a request with this `Host` (its authority: name and
    /// optional port) may be answered: always on a server bound to a
    /// public address; on a loopback server only for a loopback name.
    package func allowsHost(_ authority: String?) -> Bool {
        guard isLoopback else { return true }
        guard let authority, let name = Self.hostName(ofAuthority: authority) else { return false }
        return Self.isLoopback(host: name)
    }

    /// Whether a WebSocket upgrade with this `Origin` and `Host` is let in:
    /// no `Origin`, or one whose scheme is `ws:` or `wss:` (a client that is
    /// not a browser: a browser's page has an `http:` or `https:` origin,
    /// or `null`), or exactly `http://` or `https://` + `Host` (compared
    /// without regard to case).
    package func allowsOrigin(_ origin: String?, authority: String?) -> Bool {
        guard let origin else { return true }
        let lowered = origin.lowercased()
        if lowered.hasPrefix("ws://") || lowered.hasPrefix("wss://") { return true }
        guard let authority, !authority.isEmpty else { return false }
        return lowered == "http://" + authority.lowercased() || lowered == "https://" + authority.lowercased()
    }

    /// Whether a client that opened `/live` with this query string (the
    /// part after `?`, or `nil`) may edit: always without a token,
    /// otherwise only with `token=` equal to it.
    ///
    /// - Complexity: O(*n*) in the length of the query.
    package func canEdit(query: String?) -> Bool {
        guard let token else { return true }
        guard let given = Self.parameter("token", inQuery: query) else { return false }
        return Self.constantTimeEqual(given, token)
    }

    /// Whether `host` (a name or an address, IPv6 with or without
    /// brackets) is a loopback one: `localhost`, a name ending in
    /// `.localhost`, 127.0.0.0/8, or `::1`.
    package static func isLoopback(host: String) -> Bool {
        var name = host.lowercased()
        if name.hasPrefix("["), name.hasSuffix("]") { name = String(name.dropFirst().dropLast()) }
        if name.hasSuffix(".") { name.removeLast() }
        if name == "localhost" || name.hasSuffix(".localhost") { return true }
        if name == "::1" || name == "0:0:0:0:0:0:0:1" { return true }
        let parts = name.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4, parts.allSatisfy({ part in UInt8(part) != nil }) else { return false }
        return parts[0] == "127"
    }

    /// The host name of an authority (`name:port`, `[v6]:port`, or
    /// either without the port); `nil` when it is not one.
    package static func hostName(ofAuthority authority: String) -> String? {
        if authority.hasPrefix("[") {
            guard let end = authority.firstIndex(of: "]") else { return nil }
            return String(authority[authority.index(after: authority.startIndex)..<end])
        }
        let parts = authority.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count <= 2, let name = parts.first, !name.isEmpty else { return nil }
        return String(name)
    }

    /// The value of a parameter of a query string (`a=1&token=…`),
    /// percent-decoded; `nil` when absent.
    ///
    /// - Complexity: O(*n*) in the length of the query.
    package static func parameter(_ name: String, inQuery query: String?) -> String? {
        guard let query else { return nil }
        for pair in query.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard parts.first.map(String.init) == name else { continue }
            return parts.count == 2 ? percentDecoded(String(parts[1])) : ""
        }
        return nil
    }

    /// A new token: 32 hexadecimal digits (128 bits) from the system's
    /// random number generator.
    package static func makeToken() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<2).map { _ in
            let digits = String(generator.next() as UInt64, radix: 16)
            return String(repeating: "0", count: 16 - digits.count) + digits
        }.joined()
    }

    /// Compares two strings in a time that depends on their lengths only,
    /// not on where they first differ.
    ///
    /// - Complexity: O(*n*) in the lengths.
    static func constantTimeEqual(_ a: String, _ b: String) -> Bool {
        let x = Array(a.utf8), y = Array(b.utf8)
        var difference = UInt8(truncatingIfNeeded: x.count ^ y.count)
        if x.count != y.count { difference |= 1 }
        for index in 0..<min(x.count, y.count) { difference |= x[index] ^ y[index] }
        return difference == 0
    }

    /// `%xx` escapes and `+` decoded; the text as it is when an escape is
    /// not valid UTF-8.
    static func percentDecoded(_ text: String) -> String {
        var bytes: [UInt8] = []
        var utf8 = text.utf8.makeIterator()
        while let byte = utf8.next() {
            if byte == UInt8(ascii: "+") {
                bytes.append(UInt8(ascii: " "))
            } else if byte == UInt8(ascii: "%") {
                let digits = [utf8.next(), utf8.next()].compactMap { $0 }
                if digits.count == 2, let value = UInt8(String(decoding: digits, as: UTF8.self), radix: 16) {
                    bytes.append(value)
                } else {
                    bytes += [byte] + digits
                }
            } else {
                bytes.append(byte)
            }
        }
        return String(validating: bytes, as: UTF8.self) ?? text
    }
}
