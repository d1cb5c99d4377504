import Foundation
import Synchronization
import TesseraRender
import TesseraTestTraits
@testable import TesseraLiveHub
@testable import TesseraLiveProtocol
@testable import TesseraServe

#if canImport(Glibc)
import Glibc
#endif

/// A blocking HTTP and WebSocket client over a plain socket, so that tests
/// control every byte (the Origin and Host sent, oversized frames) and see
/// every byte (the status, the close code). Its calls block: tests run them
/// through ``ServerTestSupport/blocking(_:)``.
final class RawClient: @unchecked Sendable {
    private let socket: Int32
    private var buffer: [UInt8] = []

    /// Connects to 127.0.0.1:`port`, with reads that give up after
    /// `timeout` seconds: a limit against a hang only, since every read a
    /// test makes waits for something the server is bound to send
    /// (generous for a sanitizer build on a busy machine, where an
    /// in-process server shares two cores with other suites).
    init(port: Int, timeout: Int = 120) throws {
        socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { throw ServerTestError("socket() failed") }
        var time = timeval(tv_sec: timeout, tv_usec: 0)
        setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &time, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard result == 0 else {
            Glibc.close(socket)
            throw ServerTestError("cannot connect to 127.0.0.1:\(port)")
        }
    }

    deinit { Glibc.close(socket) }

    /// Sends bytes.
    func send(_ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes { Glibc.send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if sent < 0 && errno == EINTR { continue }
            guard sent > 0 else { throw ServerTestError("send failed") }
            offset += sent
        }
    }

    /// Reads more bytes into the buffer; false at the end of the stream.
    private func fill() throws -> Bool {
        var chunk = [UInt8](repeating: 0, count: 65_536)
        var count: Int
        // A signal (a debugger attaching, say) is not the server's silence.
        repeat {
            count = chunk.withUnsafeMutableBytes { Glibc.recv(socket, $0.baseAddress, $0.count, 0) }
        } while count < 0 && errno == EINTR
        if count < 0 { throw ServerTestError("read timed out or failed (errno \(errno))") }
        if count == 0 { return false }
        buffer += chunk[0..<count]
        return true
    }

    /// Discards exactly `count` bytes, without keeping them.
    private func skip(_ count: Int) throws {
        var left = count
        let buffered = min(left, buffer.count)
        buffer.removeFirst(buffered)
        left -= buffered
        var scratch = [UInt8](repeating: 0, count: 65_536)
        while left > 0 {
            var received: Int
            repeat {
                received = scratch.withUnsafeMutableBytes { Glibc.recv(socket, $0.baseAddress, min(left, $0.count), 0) }
            } while received < 0 && errno == EINTR
            if received < 0 { throw ServerTestError("read timed out or failed (errno \(errno))") }
            if received == 0 { throw ServerTestError("the server closed the connection") }
            left -= received
        }
    }

    /// Reads a server frame's head (unmasked): whether it is the last of
    /// its message, its opcode and its payload's length.
    private func readFrameHead() throws -> (fin: Bool, opcode: UInt8, length: Int) {
        let head = try read(2)
        var length = Int(head[1] & 0x7F)
        if length == 126 {
            let bytes = try read(2)
            length = Int(bytes[0]) << 8 | Int(bytes[1])
        } else if length == 127 {
            length = try read(8).reduce(0) { $0 << 8 | Int($1) }
        }
        return (head[0] & 0x80 != 0, head[0] & 0x0F, length)
    }

    /// Reads frames until a close frame, skipping every other frame's
    /// payload unread (so that a backlog of megabytes drains in
    /// milliseconds even in a debug build): the close, or `nil` when the
    /// stream ended, or stayed silent for the read timeout, first.
    func skipToClose() -> Message? {
        do {
            while true {
                let (_, opcode, length) = try readFrameHead()
                guard opcode == 0x8 else {
                    try skip(length)
                    continue
                }
                let data = try read(length)
                // Answered, as a browser does: the server then closes the
                // connection at once.
                try? sendFrame(opcode: 0x8, payload: Array(data.prefix(2)))
                return .close(code: data.count >= 2 ? Int(data[0]) << 8 | Int(data[1]) : nil)
            }
        } catch {
            return nil
        }
    }

    /// Reads exactly `count` bytes.
    private func read(_ count: Int) throws -> [UInt8] {
        while buffer.count < count {
            guard try fill() else { throw ServerTestError("the server closed the connection") }
        }
        let bytes = Array(buffer[0..<count])
        buffer.removeFirst(count)
        return bytes
    }

    /// An HTTP response: its status, headers (names in lower case) and body.
    struct Response {
        var status: Int
        var headers: [String: String]
        var body: String
    }

    /// Reads a response's head and, when it gives a Content-Length, its
    /// body.
    func readResponse() throws -> Response {
        var headEnd: Int?
        while headEnd == nil {
            if let range = findSubsequence(Array("\r\n\r\n".utf8)) { headEnd = range } else if try !fill() { throw ServerTestError("no response head") }
        }
        let head = String(decoding: try read(headEnd! + 4), as: UTF8.self)
        let lines = head.components(separatedBy: "\r\n").filter { !$0.isEmpty }
        let status = Int(lines[0].split(separator: " ")[1]) ?? 0
        var headers: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        let length = headers["content-length"].flatMap(Int.init) ?? 0
        let body = String(decoding: try read(length), as: UTF8.self)
        return Response(status: status, headers: headers, body: body)
    }

    private func findSubsequence(_ needle: [UInt8]) -> Int? {
        guard buffer.count >= needle.count else { return nil }
        for start in 0...(buffer.count - needle.count) where Array(buffer[start..<(start + needle.count)]) == needle { return start }
        return nil
    }

    /// Sends a GET with the given headers (`Host` included unless
    /// `host` is nil) and reads the response.
    func get(_ path: String, host: String?, headers: [(String, String)] = []) throws -> Response {
        var request = "GET \(path) HTTP/1.1\r\n"
        if let host { request += "Host: \(host)\r\n" }
        for (name, value) in headers { request += "\(name): \(value)\r\n" }
        request += "\r\n"
        try send(Array(request.utf8))
        return try readResponse()
    }

    /// Asks for a WebSocket upgrade of `path`; the response (101 when it
    /// upgraded).
    func upgrade(_ path: String = "/live", host: String?, origin: String? = nil) throws -> Response {
        var headers = [("Upgrade", "websocket"), ("Connection", "Upgrade"), ("Sec-WebSocket-Key", "dGhlIHNhbXBsZSBub25jZQ=="), ("Sec-WebSocket-Version", "13")]
        if let origin { headers.append(("Origin", origin)) }
        return try get(path, host: host, headers: headers)
    }

    /// Sends one masked frame.
    func sendFrame(opcode: UInt8, payload: [UInt8], fin: Bool = true) throws {
        var frame: [UInt8] = [(fin ? 0x80 : 0) | opcode]
        let mask: [UInt8] = [0x12, 0x34, 0x56, 0x78]
        if payload.count < 126 {
            frame.append(0x80 | UInt8(payload.count))
        } else if payload.count <= 0xFFFF {
            frame.append(0x80 | 126)
            frame += [UInt8(payload.count >> 8), UInt8(payload.count & 0xFF)]
        } else {
            frame.append(0x80 | 127)
            frame += (0..<8).reversed().map { UInt8((UInt64(payload.count) >> (UInt64($0) * 8)) & 0xFF) }
        }
        frame += mask
        frame += payload.enumerated().map { $0.element ^ mask[$0.offset % 4] }
        try send(frame)
    }

    /// Sends a text message in one frame.
    func sendText(_ text: String) throws {
        try sendFrame(opcode: 1, payload: Array(text.utf8))
    }

    /// A message from the server.
    enum Message: Equatable {
        case text(String)
        case binary([UInt8])
        case close(code: Int?)
    }

    /// Reads the next data or close message (answering pings and the
    /// close, concatenating fragments).
    func readMessage() throws -> Message {
        var opcode: UInt8?
        var payload: [UInt8] = []
        while true {
            let (fin, frameOpcode, length) = try readFrameHead()
            let data = try read(length)
            switch frameOpcode {
            case 0x8:
                // Answered, as a browser does.
                try? sendFrame(opcode: 0x8, payload: Array(data.prefix(2)))
                let code = data.count >= 2 ? Int(data[0]) << 8 | Int(data[1]) : nil
                return .close(code: code)
            case 0x9:
                try sendFrame(opcode: 0xA, payload: data)
                continue
            case 0xA:
                continue
            default:
                if frameOpcode != 0 { opcode = frameOpcode }
                payload += data
            }
            if fin { break }
        }
        return opcode == 2 ? .binary(payload) : .text(String(decoding: payload, as: UTF8.self))
    }

    /// Reads messages until one is a JSON object whose type is `type`
    /// (skipping others); the object.
    func readMessage(ofType type: String, skipping limit: Int = 1_000) throws -> JSON {
        for _ in 0..<limit {
            let message = try readMessage()
            guard case let .text(text) = message else { throw ServerTestError("expected a \(type) message, got \(message)") }
            let json = try JSON.parse(text)
            if json["type"] == .string(type) { return json }
        }
        throw ServerTestError("no \(type) message within \(limit) messages")
    }

    /// Whether the server ends the stream (without a close frame, or after
    /// one) within the read timeout.
    func readsToEnd() -> Bool {
        while true {
            do {
                guard try fill() else { return true }
                buffer.removeAll()
            } catch {
                return false
            }
        }
    }
}

struct ServerTestError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

enum ServerTestSupport {
    /// GET `path` from the server on `port`, by a client that names it
    /// 127.0.0.1, off the cooperative pool.
    static func get(_ path: String, port: Int) async throws -> RawClient.Response {
        try await blocking { try RawClient(port: port).get(path, host: "127.0.0.1:\(port)") }
    }

    /// Runs blocking work off the cooperative pool, which the server's hub
    /// needs.
    static func blocking<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread {
                continuation.resume(with: Result { try body() })
            }
        }
    }

    /// Runs `sqlite3` (Debian's) on a database, as another process.
    static func sqlite3(_ database: String, _ sql: String) throws {
        guard let path = ["/usr/bin/sqlite3", "/bin/sqlite3", "/usr/local/bin/sqlite3"].first(where: FileManager.default.isExecutableFile(atPath:)) else {
            throw ServerTestError("sqlite3 is not installed")
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = [database, sql]
        try process.run()
        let ended = try process.exit(within: 300)
        guard ended.succeeded else { throw ServerTestError("sqlite3 \(sql) failed: \(ended)") }
    }

    /// A port of 127.0.0.1 free now and below the kernel's ephemeral
    /// range, for a test that stops a server and listens on its port
    /// again: a port the kernel handed out (a port 0 listener's, or a
    /// client's local port) can be handed to another test's socket in
    /// between, one below the range only by a bind that names it.
    static func portBelowEphemeralRange() throws -> Int {
        let range = (try? String(contentsOfFile: "/proc/sys/net/ipv4/ip_local_port_range", encoding: .utf8))?
            .split(whereSeparator: \.isWhitespace).compactMap { Int($0) }
        let lowest = Swift.max(2_048, (range?.first ?? 32_768))
        var random = SystemRandomNumberGenerator()
        for _ in 0..<200 {
            let port = Int.random(in: (lowest - 1_024)..<lowest, using: &random)
            if (try? ServeServer.checkAddress(host: "127.0.0.1", port: port)) != nil { return port }
        }
        throw ServerTestError("no free port below \(lowest) after 200 tries")
    }

    /// A fresh temporary folder.
    static func temporaryFolder() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("tessera-serve-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// A small demo library in a fresh folder, and its configuration.
    static func library(photos: Int = 200) throws -> ServeConfiguration {
        let library = DemoLibrary(path: try temporaryFolder().appendingPathComponent("photos.sqlite").path, photoCount: photos)
        try library.seed()
        return library.configuration()
    }

    /// Runs a server on a free port of `host` for the body's length, then
    /// stops it.
    static func withServer<T: Sendable>(
        host: String = "127.0.0.1", token: String? = nil, limits: ServeLimits = ServeLimits(), photos: Int = 200,
        _ body: @Sendable (ServeServer, Int) async throws -> T
    ) async throws -> T {
        let hub = try ServeHub(configuration: try library(photos: photos))
        let server = ServeServer(hub: hub, host: host, port: 0, token: token, limits: limits)
        let task = Task { try await server.run() }
        do {
            let port = try await server.waitUntilListening()
            let result = try await body(server, port)
            task.cancel()
            try await task.value
            return result
        } catch {
            task.cancel()
            _ = try? await task.value
            throw error
        }
    }
}
