#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Crypto
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A blocking PostgreSQL protocol connection on a socket of its own: what
/// the replication stream speaks (postgres-nio has no replication mode).
/// Every read and write is bounded by a deadline; the thread that owns the
/// connection is never one of Swift's cooperative pool.
final class PostgresWire {
    /// A message from the server: its type byte and body.
    struct Message {
        var type: UInt8
        var body: [UInt8]
    }

    /// The socket. Read and written by the thread that owns the
    /// connection; closed under ``closing``, which `shutdown()` takes too,
    /// so that a shutdown from another thread never reaches a descriptor
    /// number the system has given to another file since.
    private(set) var descriptor: Int32
    private let closing = PThreadMutex(false)
    /// The server's key for a cancel request (BackendKeyData).
    private(set) var cancelKey: (process: UInt32, secret: UInt32)?
    private var buffer: [UInt8] = []
    private var start = 0
    /// What one `recv` reads into, kept from read to read.
    private var chunk = [UInt8](repeating: 0, count: 65_536)
    let endpoint: PostgresEndpoint
    let request: String

    /// The largest message accepted: a server that sends more is not
    /// believed (a decoded transaction's line holds one row's values).
    static let largestMessage = 1 << 30

    private init(descriptor: Int32, endpoint: PostgresEndpoint, request: String) {
        self.descriptor = descriptor
        self.endpoint = endpoint
        self.request = request
    }

    deinit { close() }

    /// Closes the socket (once). By the thread that owns the connection.
    func close() {
        closing.withLock { closed in
            guard !closed else { return }
            closed = true
            _ = Glibc.close(descriptor)
        }
    }

    /// Wakes a thread blocked on the socket, which then sees it ended.
    /// From any thread.
    func shutdown() {
        closing.withLock { closed in
            if !closed { _ = Glibc.shutdown(descriptor, Int32(SHUT_RDWR)) }
        }
    }

    /// Asks the server to cancel what this connection runs (a cancel
    /// request, on a connection of its own), so that a wait given up here
    /// does not go on there: a server process that makes a slot waits for
    /// other transactions, and a client gone does not end that wait.
    /// Bounded by 5 s; nothing when the server gave no key.
    func cancel() {
        guard let cancelKey else { return }
        guard let other = try? Self.open(endpoint, request: request, deadline: .now + .seconds(5)) else { return }
        defer { other.close() }
        var body: [UInt8] = []
        Self.append(UInt32(80_877_102), to: &body)
        Self.append(cancelKey.process, to: &body)
        Self.append(cancelKey.secret, to: &body)
        try? other.send(nil, body, deadline: .now + .seconds(5))
        // The server closes the connection once it has read the request.
        _ = try? other.receive(deadline: .now + .seconds(5), orNil: true)
    }

    func failure(_ kind: PostgresStoreError.Kind, _ message: String, code: String? = nil) -> PostgresStoreError {
        PostgresStoreError(kind: kind, request: request, code: code, message: message)
    }

    // MARK: Connecting

    /// Connects to `endpoint` (TCP), sends the startup message with
    /// `parameters` and authenticates (trust, password, MD5 or
    /// SCRAM-SHA-256), then reads up to the first ReadyForQuery.
    static func connect(
        _ endpoint: PostgresEndpoint, parameters: [(String, String)], request: String, deadline: ContinuousClock.Instant
    ) throws(PostgresStoreError) -> PostgresWire {
        let wire = try open(endpoint, request: request, deadline: deadline)
        do throws(PostgresStoreError) {
            try wire.startUp(parameters: parameters, deadline: deadline)
        } catch {
            wire.close()
            throw error
        }
        return wire
    }

    /// A TCP connection to `endpoint`, before any message.
    private static func open(_ endpoint: PostgresEndpoint, request: String, deadline: ContinuousClock.Instant) throws(PostgresStoreError) -> PostgresWire {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var found: UnsafeMutablePointer<addrinfo>?
        let host = endpoint.host.hasPrefix("[") ? String(endpoint.host.dropFirst().dropLast()) : endpoint.host
        let status = getaddrinfo(host, "\(endpoint.port)", &hints, &found)
        guard status == 0, let first = found else {
            throw PostgresStoreError(kind: .connection, request: request, message: "cannot resolve \(endpoint.host): \(String(cString: gai_strerror(status)))")
        }
        defer { freeaddrinfo(first) }
        var lastProblem = "no address"
        var candidate: UnsafeMutablePointer<addrinfo>? = first
        while let address = candidate {
            candidate = address.pointee.ai_next
            let socketDescriptor = socket(address.pointee.ai_family, address.pointee.ai_socktype | Int32(SOCK_CLOEXEC.rawValue), address.pointee.ai_protocol)
            guard socketDescriptor >= 0 else { lastProblem = String(cString: strerror(errno)); continue }
            let wire = PostgresWire(descriptor: socketDescriptor, endpoint: endpoint, request: request)
            do throws(PostgresStoreError) {
                try wire.connectSocket(address.pointee.ai_addr, length: address.pointee.ai_addrlen, deadline: deadline)
            } catch {
                wire.close()
                lastProblem = error.message
                continue
            }
            var yes: Int32 = 1
            _ = setsockopt(socketDescriptor, Int32(IPPROTO_TCP), TCP_NODELAY, &yes, socklen_t(MemoryLayout<Int32>.size))
            return wire
        }
        throw PostgresStoreError(kind: .connection, request: request, message: "cannot connect to \(endpoint.host):\(endpoint.port): \(lastProblem)")
    }

    private func connectSocket(_ address: UnsafeMutablePointer<sockaddr>?, length: socklen_t, deadline: ContinuousClock.Instant) throws(PostgresStoreError) {
        let flags = fcntl(descriptor, F_GETFL)
        _ = fcntl(descriptor, F_SETFL, flags | O_NONBLOCK)
        if Glibc.connect(descriptor, address, length) != 0 {
            guard errno == EINPROGRESS else { throw failure(.connection, String(cString: strerror(errno))) }
            try waitFor(Int16(POLLOUT), deadline: deadline, what: "the connection")
            var problem: Int32 = 0
            var size = socklen_t(MemoryLayout<Int32>.size)
            _ = getsockopt(descriptor, SOL_SOCKET, SO_ERROR, &problem, &size)
            guard problem == 0 else { throw failure(.connection, String(cString: strerror(problem))) }
        }
    }

    /// Waits until the socket is ready for `events`, or throws at the
    /// deadline.
    func waitFor(_ events: Int16, deadline: ContinuousClock.Instant, what: String) throws(PostgresStoreError) {
        while true {
            let left = deadline - .now
            guard left > .zero else {
                throw failure(.serverGone, "the server did not answer within the time allowed (\(what)), and the connection was closed")
            }
            let milliseconds = Int32(min(left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000 + 1, 1000))
            var entry = pollfd(fd: descriptor, events: events, revents: 0)
            let ready = poll(&entry, 1, milliseconds)
            if ready > 0 { return }
            if ready < 0 && errno != EINTR { throw failure(.serverGone, String(cString: strerror(errno))) }
        }
    }

    // MARK: Writing

    /// Writes a message: `type` (none for the startup message), its
    /// length, and `body`.
    func send(_ type: UInt8?, _ body: [UInt8], deadline: ContinuousClock.Instant) throws(PostgresStoreError) {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(body.count + 5)
        if let type { bytes.append(type) }
        Self.append(UInt32(body.count + 4), to: &bytes)
        bytes += body
        var sent = 0
        while sent < bytes.count {
            let count = bytes.withUnsafeBytes { raw in
                Glibc.send(descriptor, raw.baseAddress! + sent, raw.count - sent, Int32(MSG_NOSIGNAL))
            }
            if count > 0 { sent += count; continue }
            if count < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) {
                try waitFor(Int16(POLLOUT), deadline: deadline, what: "a write")
                continue
            }
            throw failure(.serverGone, "the connection ended (\(String(cString: strerror(errno))))")
        }
    }

    static func append(_ value: UInt32, to bytes: inout [UInt8]) {
        bytes += [UInt8(value >> 24), UInt8(value >> 16 & 0xff), UInt8(value >> 8 & 0xff), UInt8(value & 0xff)]
    }

    static func append(_ value: UInt64, to bytes: inout [UInt8]) {
        append(UInt32(value >> 32), to: &bytes)
        append(UInt32(value & 0xffff_ffff), to: &bytes)
    }

    static func append(cString text: String, to bytes: inout [UInt8]) {
        bytes += Array(text.utf8)
        bytes.append(0)
    }

    // MARK: Reading

    /// The next message, or `nil` when none came before `deadline` (then
    /// only when `orNil`; else it throws).
    func receive(deadline: ContinuousClock.Instant, orNil: Bool = false) throws(PostgresStoreError) -> Message? {
        while true {
            if buffer.count - start >= 5 {
                let length = Int(Self.uint32(buffer, at: start + 1))
                guard length >= 4, length <= Self.largestMessage else {
                    throw failure(.server, "the server sent a message of \(length) bytes, which is not a valid length")
                }
                if buffer.count - start >= length + 1 {
                    let message = Message(type: buffer[start], body: Array(buffer[(start + 5)..<(start + 1 + length)]))
                    start += length + 1
                    if start > 65_536 && start * 2 > buffer.count {
                        buffer.removeFirst(start)
                        start = 0
                    }
                    return message
                }
            }
            let left = deadline - .now
            if left <= .zero {
                if orNil { return nil }
                throw failure(.serverGone, "the server did not answer within the time allowed, and the connection was closed")
            }
            var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            let milliseconds = Int32(min(left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000 + 1, 1000))
            let ready = poll(&entry, 1, milliseconds)
            if ready < 0 {
                if errno == EINTR { continue }
                throw failure(.serverGone, String(cString: strerror(errno)))
            }
            if ready == 0 { continue }
            let count = chunk.withUnsafeMutableBytes { raw in recv(descriptor, raw.baseAddress!, raw.count, 0) }
            if count > 0 {
                if start == buffer.count {
                    buffer.removeAll(keepingCapacity: true)
                    start = 0
                }
                buffer += chunk[0..<count]
            } else if count == 0 {
                throw failure(.serverGone, "the server closed the connection")
            } else if errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR {
                throw failure(.serverGone, "the connection ended (\(String(cString: strerror(errno))))")
            }
        }
    }

    static func uint32(_ bytes: [UInt8], at index: Int) -> UInt32 {
        UInt32(bytes[index]) << 24 | UInt32(bytes[index + 1]) << 16 | UInt32(bytes[index + 2]) << 8 | UInt32(bytes[index + 3])
    }

    static func uint64(_ bytes: [UInt8], at index: Int) -> UInt64 {
        UInt64(uint32(bytes, at: index)) << 32 | UInt64(uint32(bytes, at: index + 4))
    }

    /// An ErrorResponse's fields, as an error of the kind its SQLSTATE
    /// gives.
    func serverError(_ body: [UInt8]) -> PostgresStoreError {
        var fields: [UInt8: String] = [:]
        var index = 0
        while index < body.count, body[index] != 0 {
            let field = body[index]
            var end = index + 1
            while end < body.count, body[end] != 0 { end += 1 }
            fields[field] = String(decoding: body[(index + 1)..<min(end, body.count)], as: UTF8.self)
            index = end + 1
        }
        let code = fields[UInt8(ascii: "C")]
        var message = fields[UInt8(ascii: "M")] ?? "the server sent an error without a message"
        if let detail = fields[UInt8(ascii: "D")] { message += " (\(detail))" }
        let kind: PostgresStoreError.Kind
        switch code {
        case "28P01", "28000": kind = .authentication
        case "53300": kind = message.contains("max_wal_senders") ? .cannotFollow : .connection
        case "53400", "55000", "55006", "42704": kind = .cannotFollow
        case let state? where state.hasPrefix("57P") || state.hasPrefix("08"): kind = .serverGone
        case let state? where state.hasPrefix("42"): kind = code == "42501" ? .cannotFollow : .badSQL
        default: kind = .server
        }
        return failure(kind, message, code: code)
    }

    /// Reads messages up to ReadyForQuery, throwing the first
    /// ErrorResponse (after ReadyForQuery, so the connection stays usable).
    func readUntilReady(deadline: ContinuousClock.Instant, onRow: ([String?]) -> Void = { _ in }) throws(PostgresStoreError) {
        var problem: PostgresStoreError?
        while let message = try receive(deadline: deadline) {
            switch message.type {
            case UInt8(ascii: "E"): problem = problem ?? serverError(message.body)
            case UInt8(ascii: "D"): onRow(Self.dataRow(message.body))
            case UInt8(ascii: "Z"):
                if let problem { throw problem }
                return
            default: break
            }
        }
    }

    /// A DataRow's values as text (`nil`: NULL).
    static func dataRow(_ body: [UInt8]) -> [String?] {
        guard body.count >= 2 else { return [] }
        let count = Int(body[0]) << 8 | Int(body[1])
        var values: [String?] = []
        var index = 2
        for _ in 0..<count {
            guard index + 4 <= body.count else { break }
            let length = Int(Int32(bitPattern: uint32(body, at: index)))
            index += 4
            if length < 0 { values.append(nil); continue }
            let end = min(index + length, body.count)
            values.append(String(decoding: body[index..<end], as: UTF8.self))
            index = end
        }
        return values
    }

    /// Sends one statement with the simple query protocol.
    func simpleQuery(_ sql: String, deadline: ContinuousClock.Instant) throws(PostgresStoreError) {
        var body: [UInt8] = []
        Self.append(cString: sql, to: &body)
        try send(UInt8(ascii: "Q"), body, deadline: deadline)
    }

    // MARK: Startup and authentication

    private func startUp(parameters: [(String, String)], deadline: ContinuousClock.Instant) throws(PostgresStoreError) {
        var body: [UInt8] = []
        Self.append(UInt32(196_608), to: &body)
        for (name, value) in [("user", endpoint.user), ("database", endpoint.database)] + parameters {
            Self.append(cString: name, to: &body)
            Self.append(cString: value, to: &body)
        }
        body.append(0)
        try send(nil, body, deadline: deadline)
        var scram: PostgresSCRAM?
        while true {
            guard let message = try receive(deadline: deadline) else { continue }
            switch message.type {
            case UInt8(ascii: "E"):
                throw serverError(message.body)
            case UInt8(ascii: "R"):
                guard message.body.count >= 4 else { throw failure(.authentication, "the server sent a short authentication request") }
                let code = Self.uint32(message.body, at: 0)
                let payload = Array(message.body.dropFirst(4))
                switch code {
                case 0: break
                case 3:
                    var reply: [UInt8] = []
                    Self.append(cString: try password(), to: &reply)
                    try send(UInt8(ascii: "p"), reply, deadline: deadline)
                case 5:
                    guard payload.count >= 4 else { throw failure(.authentication, "the server sent no MD5 salt") }
                    let user = try password() + endpoint.user
                    let inner = Self.hex(Insecure.MD5.hash(data: Array(user.utf8)))
                    let outer = Self.hex(Insecure.MD5.hash(data: Array(inner.utf8) + payload[0..<4]))
                    var reply: [UInt8] = []
                    Self.append(cString: "md5" + outer, to: &reply)
                    try send(UInt8(ascii: "p"), reply, deadline: deadline)
                case 10:
                    let mechanisms = payload.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
                    guard mechanisms.contains("SCRAM-SHA-256") else {
                        throw failure(.authentication, "the server asks for \(mechanisms.joined(separator: ", ")), and only SCRAM-SHA-256 is spoken")
                    }
                    let exchange = PostgresSCRAM(password: try password())
                    scram = exchange
                    var reply: [UInt8] = []
                    Self.append(cString: "SCRAM-SHA-256", to: &reply)
                    let first = Array(exchange.clientFirst.utf8)
                    Self.append(UInt32(first.count), to: &reply)
                    reply += first
                    try send(UInt8(ascii: "p"), reply, deadline: deadline)
                case 11:
                    guard var exchange = scram, let final = exchange.clientFinal(serverFirst: String(decoding: payload, as: UTF8.self)) else {
                        throw failure(.authentication, "the server's SCRAM challenge could not be read")
                    }
                    scram = exchange
                    try send(UInt8(ascii: "p"), Array(final.utf8), deadline: deadline)
                case 12:
                    guard let exchange = scram, exchange.verify(serverFinal: String(decoding: payload, as: UTF8.self)) else {
                        throw failure(.authentication, "the server's SCRAM signature is not the one the password gives: it is not the server it claims to be")
                    }
                default:
                    throw failure(.authentication, "the server asks for an authentication method (\(code)) that is not spoken: use trust, password, md5 or scram-sha-256")
                }
            case UInt8(ascii: "K"):
                if message.body.count >= 8 {
                    cancelKey = (Self.uint32(message.body, at: 0), Self.uint32(message.body, at: 4))
                }
            case UInt8(ascii: "Z"):
                return
            default:
                break
            }
        }
    }

    private func password() throws(PostgresStoreError) -> String {
        guard let password = endpoint.password else {
            throw failure(.authentication, "the server asks for a password, and the URL gives none")
        }
        return password
    }

    static func hex<D: Sequence>(_ digest: D) -> String where D.Element == UInt8 {
        let digits = Array("0123456789abcdef".utf8)
        var bytes: [UInt8] = []
        for byte in digest {
            bytes.append(digits[Int(byte >> 4)])
            bytes.append(digits[Int(byte & 0xf)])
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}

/// One SCRAM-SHA-256 exchange (RFC 7677, without channel binding), as
/// PostgreSQL asks for it.
struct PostgresSCRAM {
    let password: String
    let nonce: String
    /// The user named in the exchange: PostgreSQL ignores it (the startup
    /// message named the user), so it is empty.
    let user: String
    var clientFirstBare: String { "n=\(user),r=\(nonce)" }
    var clientFirst: String { "n,," + clientFirstBare }
    private var serverSignature: [UInt8] = []

    init(password: String, nonce: String? = nil, user: String = "") {
        self.password = password
        self.user = user.replacingOccurrences(of: "=", with: "=3D").replacingOccurrences(of: ",", with: "=2C")
        var generator = SystemRandomNumberGenerator()
        self.nonce = nonce ?? Data((0..<18).map { _ in UInt8.random(in: 0...255, using: &generator) }).base64EncodedString()
    }

    /// The client's final message for the server's first one, or `nil`
    /// when that message cannot be read or does not extend our nonce.
    mutating func clientFinal(serverFirst: String) -> String? {
        var fields: [Character: String] = [:]
        for part in serverFirst.split(separator: ",") where part.count >= 2 && part.dropFirst().first == "=" {
            fields[part.first!] = String(part.dropFirst(2))
        }
        guard let serverNonce = fields["r"], serverNonce.hasPrefix(nonce), let saltText = fields["s"],
              let salt = Data(base64Encoded: saltText), let iterationsText = fields["i"], let iterations = Int(iterationsText),
              (1...10_000_000).contains(iterations)
        else { return nil }
        let salted = Self.pbkdf2(password: Array(password.utf8), salt: Array(salt), iterations: iterations)
        let key = SymmetricKey(data: salted)
        let clientKey = Array(HMAC<SHA256>.authenticationCode(for: Array("Client Key".utf8), using: key))
        let storedKey = Array(SHA256.hash(data: clientKey))
        let withoutProof = "c=biws,r=\(serverNonce)"
        let authMessage = Array("\(clientFirstBare),\(serverFirst),\(withoutProof)".utf8)
        let clientSignature = Array(HMAC<SHA256>.authenticationCode(for: authMessage, using: SymmetricKey(data: storedKey)))
        let proof = zip(clientKey, clientSignature).map { $0 ^ $1 }
        let serverKey = Array(HMAC<SHA256>.authenticationCode(for: Array("Server Key".utf8), using: key))
        serverSignature = Array(HMAC<SHA256>.authenticationCode(for: authMessage, using: SymmetricKey(data: serverKey)))
        return "\(withoutProof),p=\(Data(proof).base64EncodedString())"
    }

    /// Whether the server's final message carries the signature the
    /// password gives.
    func verify(serverFinal: String) -> Bool {
        guard serverFinal.hasPrefix("v="), let signature = Data(base64Encoded: String(serverFinal.dropFirst(2))) else { return false }
        return !serverSignature.isEmpty && Array(signature) == serverSignature
    }

    /// PBKDF2 with HMAC-SHA-256, one block (SCRAM's `Hi`).
    static func pbkdf2(password: [UInt8], salt: [UInt8], iterations: Int) -> [UInt8] {
        let key = SymmetricKey(data: password)
        var block = Array(HMAC<SHA256>.authenticationCode(for: salt + [0, 0, 0, 1], using: key))
        var result = block
        for _ in 1..<max(iterations, 1) {
            block = Array(HMAC<SHA256>.authenticationCode(for: block, using: key))
            for index in result.indices { result[index] ^= block[index] }
        }
        return result
    }
}
