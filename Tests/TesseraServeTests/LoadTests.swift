import Foundation
import TesseraRender
import TesseraLoad
import TesseraLiveHub
import TesseraLiveProtocol
import TesseraServe
import TesseraResultsCore
import TesseraSQLite
import TesseraTestSupport
import TesseraTestTraits
import Testing

/// `tessera bench serve`: a small run through the built `tessera` against
/// the `tessera serve` it starts, the refusal of every host off the loopback
/// interface, bad options, and the cheap reading of the server's messages.
@Suite("Load generator", .tags(.process), .ownThreads)
struct LoadTests {
    /// 20 clients, 10 renames: every client gets every change exactly once,
    /// and the counts add up.
    @Test func smallRunDeliversEveryChangeExactlyOnce() throws {
        let result = try LoadTool.run(["bench", "serve", "--clients", "20", "--rate", "10", "--seconds", "1", "--photos", "2000", "--json"], timeout: 300)
        #expect(result.status == 0, "stderr: \(result.stderr)")
        let report = try JSON.parse(result.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
        #expect(report["startedServer"] == .bool(true))
        #expect(report["exact"] == .bool(true), "\(result.stdout)")
        guard case .array(let steps)? = report["steps"], steps.count == 1 else {
            Issue.record("no single step in \(result.stdout)")
            return
        }
        let step = steps[0]
        #expect(step["clients"] == .int(20))
        #expect(step["edits"] == .int(10))
        #expect(step["done"] == .int(10))
        #expect(step["editErrors"] == .int(0))
        #expect(step["changes"] == .int(10))
        #expect(step["plans"] == .int(200))
        #expect(step["plansExpected"] == .int(200))
        for key in ["lost", "duplicated", "outOfOrder", "missingAtEnd", "failedClients", "clientErrors", "unattributed"] {
            #expect(step[key] == .int(0), "\(key) in \(result.stdout)")
        }
        #expect(step["latency"]?["count"] == .int(200))
        // Measured from /proc: present, whatever their values.
        #expect(step["serverCPU"].map { $0 != .null } == true)
        #expect(step["residentBytesAfter"].map { $0 != .null } == true)
    }

    /// Every URL whose host is not on the loopback interface is refused
    /// before anything connects, as bad usage, in one line.
    @Test(arguments: [
        "ws://10.0.0.1:8080/live", "ws://192.168.1.2:8080/live", "ws://example.com:8080/live", "ws://127.0.0.1.example.com:8080/live",
        "ws://0.0.0.0:8080/live", "ws://[::2]:8080/live", "ws://[::ffff:10.0.0.1]:8080/live", "ws://128.0.0.1:8080/live",
        "ws://user@127.0.0.1:8080/live", "http://127.0.0.1:8080/live", "wss://127.0.0.1:8080/live", "ws://127.0.0.1/live",
        "ws://127.0.0.1:0/live", "ws://127.0.0.1:70000/live", "ws://127.0.0.1.1:8080/live", "ws://127.0.0.256:8080/live",
    ])
    func refusesHostsOffTheLoopbackInterface(url: String) throws {
        let result = try LoadTool.run(["bench", "serve", "--clients", "1", "--seconds", "1", "--url", url])
        #expect(result.status == 64, "\(url): \(result.stderr)")
        #expect(result.stdout.isEmpty)
        let lines = result.stderr.split(separator: "\n")
        #expect(lines.count == 1 && lines[0].hasPrefix("tessera: error: --url \(url): "), "\(url): \(result.stderr)")
    }

    /// The loopback forms are read as the address connected to.
    @Test func readsLoopbackURLs() throws {
        #expect(try LoadTarget.parse("ws://127.0.0.1:8080/live") == LoadTarget(address: "127.0.0.1", port: 8080, hostHeader: "127.0.0.1:8080", path: "/live"))
        #expect(try LoadTarget.parse("ws://localhost:9/live?token=ab") == LoadTarget(address: "127.0.0.1", port: 9, hostHeader: "localhost:9", path: "/live?token=ab"))
        #expect(try LoadTarget.parse("ws://127.1.2.3:65535") == LoadTarget(address: "127.1.2.3", port: 65_535, hostHeader: "127.1.2.3:65535", path: "/live"))
        #expect(try LoadTarget.parse("ws://[::1]:80/x") == LoadTarget(address: "::1", port: 80, hostHeader: "[::1]:80", path: "/x"))
        #expect(try LoadTarget.parse("ws://[::1]:80/x").url == "ws://[::1]:80/x")
    }

    /// Options out of range or that do not go together: status 64, one
    /// line naming the option, nothing run.
    @Test(arguments: [
        (["--clients", "0"], "--clients"), (["--clients", "50001"], "--clients"), (["--rate", "0"], "--rate"),
        (["--rate", "nan"], "--rate"), (["--rate", "5000"], "--rate"), (["--seconds", "0"], "--seconds"),
        (["--seconds", "inf"], "--seconds"), (["--ramp", "10,abc"], "--ramp"), (["--ramp", "0,10"], "--ramp"),
        (["--ramp", "10,20", "--clients", "5"], "--clients and --ramp"), (["--photos", "0"], "--photos"),
        (["--url", "ws://127.0.0.1:9/live", "--photos", "2000"], "--photos"), (["--server-pid", "1"], "--server-pid"),
        (["--url", "ws://127.0.0.1:9/live", "--server-pid", "0"], "--server-pid"), (["--clients"], "--clients"),
    ])
    func badOptions(options: [String], named: String) throws {
        let result = try LoadTool.run(["bench", "serve"] + options)
        #expect(result.status == 64, "\(options): \(result.stderr)")
        #expect(result.stdout.isEmpty)
        let lines = result.stderr.split(separator: "\n")
        #expect(lines.count == 1 && lines[0].hasPrefix("tessera: error: ") && lines[0].contains(named), "\(options): \(result.stderr)")
    }

    /// A server that is not there: status 1, one line naming the URL.
    @Test func serverNotListening() throws {
        let port = try LoadTool.closedPort()
        let result = try LoadTool.run(["bench", "serve", "--clients", "2", "--seconds", "1", "--url", "ws://127.0.0.1:\(port)/live"])
        #expect(result.status == 1, "\(result.stderr)")
        let lines = result.stderr.split(separator: "\n")
        #expect(lines.count == 1 && lines[0].contains("ws://127.0.0.1:\(port)/live"), "\(result.stderr)")
    }

    /// Oracle: the cheap reading of a message's head equals a full parse,
    /// over random messages shaped as the server's (the head's keys first,
    /// in any order, then content that may hold the same keys nested).
    @Test func messageHeadMatchesFullParse() throws {
        let seed = testSeed(default: 0x10AD_5EED)
        var generator = SplitMix64(seed: seed)
        let types = ["plan", "snapshot", "elements", "done", "error", "hello", "pong"]
        for round in 0..<2_000 {
            var head: [(String, String)] = []
            let type = types[Int(generator.next() % UInt64(types.count))]
            head.append(("type", "\"\(type)\""))
            // The keys the protocol gives each kind are always there; the
            // others sometimes.
            let required: [String: [String]] = ["plan": ["fromSeq", "seq"], "snapshot": ["seq"], "elements": ["seq"], "done": ["request", "seq"]]
            for key in ["fromSeq", "seq", "request"] where required[type, default: []].contains(key) || generator.next() % 4 == 0 {
                head.append((key, String(generator.next() % 1_000_000)))
            }
            head.shuffle(using: &generator)
            let space = generator.next() % 3 == 0 ? " " : ""
            var text = "{" + head.map { "\"\($0.0)\":\(space)\($0.1)" }.joined(separator: ",")
            // Content after the head: nested objects with the head's own
            // keys, and strings that spell a key inside escapes.
            let nestedKeys = head.map(\.0).filter { $0 != "type" }
            for index in 0..<Int(generator.next() % 6) {
                let fields = nestedKeys.map { #""\#($0)":\#(generator.next() % 100)"# } + [#""type":"x""#, #""title":"a \"seq\":7 \\""#]
                let padding = String(repeating: "é", count: Int(generator.next() % 400))
                text += #","k\#(index)":[{\#(fields.joined(separator: ","))},"\#(padding)"]"#
            }
            text += "}"
            let parsed = try JSON.parse(text)
            func number(_ key: String) -> Int? {
                if case .number(let digits)? = parsed[key] { return Int(digits) }
                return nil
            }
            let scanned = LoadMessageHead.scan(text)
            let kinds: [String: LoadMessageHead.Kind] = ["plan": .plan, "snapshot": .snapshot, "elements": .elements, "done": .done, "error": .error]
            let kind = kinds[type] ?? .other
            #expect(scanned.kind == kind, "seed \(seed), round \(round): \(text)")
            switch kind {
            case .plan:
                #expect(scanned.seq == number("seq") && scanned.fromSeq == number("fromSeq"), "seed \(seed), round \(round): \(text)")
            case .snapshot, .elements:
                #expect(scanned.seq == number("seq"), "seed \(seed), round \(round): \(text)")
            case .done:
                #expect(scanned.seq == number("seq") && scanned.request == number("request"), "seed \(seed), round \(round): \(text)")
            case .error:
                #expect(scanned.request == number("request"), "seed \(seed), round \(round): \(text)")
            case .other:
                break
            }
        }
    }
}

extension JSON {
    /// The value of `key` when this is an object.
    fileprivate subscript(key: String) -> JSON? {
        guard case .object(let fields) = self else { return nil }
        return fields.first { $0.key == key }?.value
    }
}

/// Runs the built `tessera` and collects what it prints.
enum LoadTool {
    /// The built `tessera` (see ``LiveServer/executable``).
    static var executable: URL { LiveServer.executable }

    /// What a run printed and how it ended.
    struct Result {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    /// A failure of the runner itself.
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// Collects one pipe's bytes on a thread of its own.
    final class Collector: Sendable {
        let data = PThreadMutex(Data())
        let finished = DispatchSemaphore(value: 0)

        init(_ pipe: Pipe) {
            let handle = pipe.fileHandleForReading
            Thread.detachNewThread { [self] in
                while true {
                    let chunk = handle.availableData
                    if chunk.isEmpty { break }
                    data.withLock { $0.append(chunk) }
                }
                finished.signal()
            }
        }

        var text: String { data.withLock { String(decoding: $0, as: UTF8.self) } }
    }

    /// Runs `tessera` and waits (at most `timeout` seconds, a hang guard of
    /// the child process only, its clock started with the child) for it to
    /// exit.
    static func run(_ arguments: [String], timeout: Double = 120) throws -> Result {
        guard FileManager.default.isExecutableFile(atPath: executable.path) else {
            throw Failure(description: "no tessera executable at \(executable.path): run `swift build --build-tests` first")
        }
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        process.standardInput = FileHandle.nullDevice
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        let outCollector = Collector(out), errCollector = Collector(err)
        try process.run()
        let ended: ChildExit
        do {
            ended = try process.exit(within: timeout)
        } catch {
            throw Failure(description: "\(error): \(errCollector.text)")
        }
        // The last output may still be on its way through the pipes.
        _ = outCollector.finished.wait(timeout: .now() + 120)
        _ = errCollector.finished.wait(timeout: .now() + 120)
        return Result(status: ended.shellStatus, stdout: outCollector.text, stderr: errCollector.text)
    }

    /// A loopback port nothing listens on (bound, then released).
    static func closedPort() throws -> Int {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { throw Failure(description: "socket failed") }
        defer { close(socket) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(socket, $0, length) == 0 && getsockname(socket, $0, &length) == 0 }
        }
        guard bound else { throw Failure(description: "bind failed") }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}
