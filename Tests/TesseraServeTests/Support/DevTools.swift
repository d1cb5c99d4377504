import Foundation
import TesseraTestTraits
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A failure of the browser or of the page under test, with what happened.
struct DevToolsError: Error, CustomStringConvertible {
    var description: String
    /// Whether the browser itself failed (it exited, closed its pipe, or
    /// gave no answer in time), rather than the page: a wait stops then.
    var browserFailed = false
    init(_ description: String, browserFailed: Bool = false) {
        self.description = description
        self.browserFailed = browserFailed
    }
}

/// Headless Chromium driven through its DevTools protocol over a pipe
/// (`--remote-debugging-pipe`: the browser reads commands from file
/// descriptor 3 and writes answers and events to 4, each message a JSON
/// text ended by a NUL byte). One browser per page, so that every page is
/// the visible one (hidden pages get no animation frames).
///
/// Not thread-safe: one test drives it, synchronously.
final class Chromium {
    /// Chromium's path: `CHROMIUM` from the environment, or the usual names.
    static let path: String? = {
        if let given = ProcessInfo.processInfo.environment["CHROMIUM"], FileManager.default.isExecutableFile(atPath: given) { return given }
        for candidate in ["/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome", "/snap/bin/chromium"]
        where FileManager.default.isExecutableFile(atPath: candidate) {
            return candidate
        }
        return nil
    }()

    private let pid: pid_t
    private let commands: Int32
    private let answers: Int32
    private let profile: URL
    private var buffer: [UInt8] = []
    private var nextID = 0
    private var closed = false
    /// The window's size in CSS pixels.
    let width: Int, height: Int

    /// Starts the browser with a window of `width` × `height`.
    init(width: Int = 1000, height: Int = 700) throws {
        guard let path = Self.path else { throw DevToolsError("chromium is not installed (apt-get install chromium, or set CHROMIUM)") }
        self.width = width
        self.height = height
        profile = FileManager.default.temporaryDirectory.appendingPathComponent("tessera-chromium-\(UUID().uuidString)")
        var toBrowser: [Int32] = [0, 0], fromBrowser: [Int32] = [0, 0]
        guard pipe(&toBrowser) == 0, pipe(&fromBrowser) == 0 else { throw DevToolsError("pipe failed: errno \(errno)") }
        // Out of the way of 3 and 4, which the child's copies take.
        func high(_ fd: Int32) -> Int32 { let moved = fcntl(fd, F_DUPFD_CLOEXEC, 10); close(fd); return moved }
        let childReads = high(toBrowser[0]), parentWrites = high(toBrowser[1])
        let parentReads = high(fromBrowser[0]), childWrites = high(fromBrowser[1])
        defer { close(childReads); close(childWrites) }

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, childReads, 3)
        posix_spawn_file_actions_adddup2(&actions, childWrites, 4)
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        // Nothing else of this process: a descriptor another test's child
        // process or pipe holds, inherited by a browser that lives for a
        // whole test, would keep that test waiting (TesseraTestTraits'
        // ChildProcesses.swift).
        closeInheritedDescriptors(&actions, from: 5)
        let arguments = [path, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
                         "--hide-scrollbars", "--mute-audio", "--window-size=\(width),\(height)",
                         "--user-data-dir=\(profile.path)", "--remote-debugging-pipe", "about:blank"]
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var child: pid_t = 0
        let status = posix_spawn(&child, path, &actions, nil, &argv, environ)
        guard status == 0 else {
            close(parentWrites); close(parentReads)
            throw DevToolsError("could not start \(path): error \(status)")
        }
        pid = child
        commands = parentWrites
        answers = parentReads
    }

    deinit { shutDown() }

    /// Ends the browser and removes its profile.
    func shutDown() {
        guard !closed else { return }
        closed = true
        close(commands)
        close(answers)
        kill(pid, SIGKILL)
        var status: Int32 = 0
        waitpid(pid, &status, 0)
        try? FileManager.default.removeItem(at: profile)
    }

    /// Sends a command and waits (at most `timeout` seconds, a hang guard
    /// of the browser only, generous for a busy machine, its clock started
    /// when the command is sent) for its answer; events that arrive
    /// meanwhile are dropped.
    @discardableResult
    func call(_ method: String, _ parameters: [String: Any] = [:], session: String? = nil, timeout: Double = 120) throws -> [String: Any] {
        nextID += 1
        let id = nextID
        var message: [String: Any] = ["id": id, "method": method, "params": parameters]
        if let session { message["sessionId"] = session }
        var bytes = [UInt8](try JSONSerialization.data(withJSONObject: message))
        bytes.append(0)
        var written = 0
        while written < bytes.count {
            let n = bytes[written...].withUnsafeBytes { write(commands, $0.baseAddress, $0.count) }
            guard n > 0 else { throw DevToolsError("\(method): the browser closed its pipe", browserFailed: true) }
            written += n
        }
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            while let end = buffer.firstIndex(of: 0) {
                let text = Data(buffer[..<end])
                buffer.removeSubrange(...end)
                guard let answer = try JSONSerialization.jsonObject(with: text) as? [String: Any], answer["id"] as? Int == id else { continue }
                if let error = answer["error"] { throw DevToolsError("\(method): \(error)") }
                return answer["result"] as? [String: Any] ?? [:]
            }
            let left = deadline.timeIntervalSinceNow
            guard left > 0 else { throw DevToolsError("\(method): no answer in \(timeout) s", browserFailed: true) }
            var poller = pollfd(fd: answers, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, Int32(max(1, min(left, 1) * 1000))) >= 0 else { continue }
            guard poller.revents != 0 else { continue }
            var chunk = [UInt8](repeating: 0, count: 1 << 16)
            let n = chunk.withUnsafeMutableBytes { read(answers, $0.baseAddress, $0.count) }
            guard n > 0 else { throw DevToolsError("\(method): the browser exited", browserFailed: true) }
            buffer.append(contentsOf: chunk[..<n])
        }
    }

    /// Opens `url` in a new page of the window's size and returns it.
    /// `script` runs in the page before any of its own.
    func open(_ url: String, before script: String? = nil) throws -> BrowserPage {
        let target = try call("Target.createTarget", ["url": "about:blank"])["targetId"] as? String ?? ""
        let session = try call("Target.attachToTarget", ["targetId": target, "flatten": true])["sessionId"] as? String ?? ""
        let page = BrowserPage(browser: self, session: session)
        try page.call("Page.enable")
        try page.call("Runtime.enable")
        try page.call("Emulation.setDeviceMetricsOverride", ["width": width, "height": height, "deviceScaleFactor": 1, "mobile": false])
        if let script { try page.call("Page.addScriptToEvaluateOnNewDocument", ["source": script]) }
        try page.call("Page.navigate", ["url": url])
        return page
    }
}

/// One page of a ``Chromium``.
struct BrowserPage {
    let browser: Chromium
    let session: String

    /// Sends a command to the page.
    @discardableResult
    func call(_ method: String, _ parameters: [String: Any] = [:]) throws -> [String: Any] {
        try browser.call(method, parameters, session: session)
    }

    /// The JSON text of what `expression` evaluates to (promises awaited).
    func json(_ expression: String) throws -> String {
        let result = try call("Runtime.evaluate", ["expression": "(async () => JSON.stringify(await (\(expression))))()", "returnByValue": true, "awaitPromise": true])
        if let exception = result["exceptionDetails"] as? [String: Any] {
            let text = (exception["exception"] as? [String: Any])?["description"] ?? exception["text"] ?? "?"
            throw DevToolsError("\(expression): \(text)")
        }
        return (result["result"] as? [String: Any])?["value"] as? String ?? "null"
    }

    /// What `expression` evaluates to, decoded from its JSON.
    func value<T: Decodable>(_ expression: String, as type: T.Type = T.self) throws -> T {
        let text = try json(expression)
        do {
            return try JSONDecoder().decode(T.self, from: Data(text.utf8))
        } catch {
            throw DevToolsError("\(expression) gave \(text.prefix(300)), not a \(T.self): \(error)")
        }
    }

    /// Runs `statement` in the page.
    func run(_ statement: String) throws {
        _ = try json("(() => { \(statement); return null; })()")
    }

    /// Waits until `condition` is true in the page, polling for at most
    /// `rounds` rounds of a poll and 20 ms (6,000 by default, two minutes
    /// at the least: generous for a busy machine; bounded in rounds, not by
    /// a clock). The condition must stay true once it holds: a state that
    /// passes (an animation under way) could be missed between two polls.
    /// A browser that fails (no answer in a poll's 120 s, or gone) ends the
    /// wait with its error: each poll would otherwise wait the 120 s again.
    func wait(until condition: String, rounds: Int = 6_000, _ what: @autoclosure () -> String = "") throws {
        var failure: DevToolsError?
        let held = waitInRounds(rounds, sleepingEvery: .milliseconds(20)) {
            do {
                return try value("!!(\(condition))", as: Bool.self)
            } catch let error as DevToolsError where error.browserFailed {
                failure = error
                return true
            } catch {
                return false
            }
        }
        if let failure { throw DevToolsError("\(what().isEmpty ? condition : what()): \(failure)", browserFailed: true) }
        if held { return }
        throw DevToolsError("\(what().isEmpty ? condition : what()): still false after \(rounds) rounds of a poll and 20 ms")
    }

    /// Waits for two animation frames: what the page drew by then is on
    /// the screen.
    func nextFrames() throws {
        _ = try json("new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(() => done(true))))")
    }

    /// A mouse event at (x, y) in the window (CSS pixels); `modifiers`
    /// as DevTools numbers them (1 Alt, 2 Ctrl, 4 Meta, 8 Shift).
    func mouse(_ type: String, _ x: Double, _ y: Double, pressed: Bool = true, modifiers: Int = 0, clicks: Int = 1) throws {
        try call("Input.dispatchMouseEvent", ["type": type, "x": x, "y": y, "button": "left", "buttons": pressed ? 1 : 0,
                                              "clickCount": clicks, "modifiers": modifiers])
    }

    /// A click at (x, y).
    func click(_ x: Double, _ y: Double, modifiers: Int = 0) throws {
        try mouse("mousePressed", x, y, modifiers: modifiers)
        try mouse("mouseReleased", x, y, pressed: false, modifiers: modifiers)
    }

    /// A drag from one point to another in `steps` moves, a frame apart.
    func drag(from start: (Double, Double), to end: (Double, Double), steps: Int = 12) throws {
        try mouse("mousePressed", start.0, start.1)
        for step in 1...steps {
            let t = Double(step) / Double(steps)
            try mouse("mouseMoved", start.0 + (end.0 - start.0) * t, start.1 + (end.1 - start.1) * t)
            try nextFrames()
        }
        try mouse("mouseReleased", end.0, end.1, pressed: false)
    }

    /// A key press: `key` as the DOM names it, `code` Windows' virtual key.
    func press(_ key: String, code: Int, modifiers: Int = 0) throws {
        for type in ["keyDown", "keyUp"] {
            try call("Input.dispatchKeyEvent", ["type": type, "key": key, "code": key, "windowsVirtualKeyCode": code, "modifiers": modifiers])
        }
    }

    /// A PNG of what the page shows.
    func screenshot() throws -> Data {
        let result = try call("Page.captureScreenshot", ["format": "png"])
        guard let text = result["data"] as? String, let data = Data(base64Encoded: text) else { throw DevToolsError("no screenshot") }
        return data
    }
}
