#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Foundation
import TesseraResultsCore

/// Wakes the change feed's thread: a transaction arrived, the stream
/// ended, or a round was asked for. A counter under a pthread mutex and
/// condition (the feed's thread is its own, never the cooperative pool's).
final class PostgresFeedSignal: Sendable {
    private let generation = PThreadCondition(0)

    /// The count of notifications so far.
    var current: Int {
        generation.withLock { $0 }
    }

    func notify() {
        generation.update { $0 += 1 }
    }

    /// Waits until a notification after `seen` (the count read before
    /// checking what the caller waits for), or `timeout`; the count then.
    @discardableResult
    func wait(after seen: Int, timeout: Duration) -> Int {
        generation.wait(until: { $0 != seen }, timeout: timeout) { generation, _ in generation }
    }
}

/// A write-ahead log position (`16/B374D848`).
struct PostgresLogPosition: Comparable, Hashable, Sendable, CustomStringConvertible {
    var value: UInt64

    init(_ value: UInt64) { self.value = value }

    /// Reads `X/Y` (hexadecimal halves).
    init?(_ text: String) {
        let parts = text.split(separator: "/")
        guard parts.count == 2, let high = UInt32(parts[0], radix: 16), let low = UInt32(parts[1], radix: 16) else { return nil }
        value = UInt64(high) << 32 | UInt64(low)
    }

    var description: String {
        String(UInt32(value >> 32), radix: 16, uppercase: true) + "/" + String(UInt32(value & 0xffff_ffff), radix: 16, uppercase: true)
    }

    static func < (lhs: Self, rhs: Self) -> Bool { lhs.value < rhs.value }
}

/// The store's replication slot, streamed: a replication connection
/// (`replication=database`) makes a temporary logical slot
/// (`test_decoding`) and the server pushes each transaction to it as it
/// commits, in commit order. A thread of its own reads the stream, answers
/// the server's keepalives, and keeps what arrived until the change feed
/// takes it.
///
/// The slot lives as long as the connection: a process that ends, even
/// killed, leaves none behind. Where the server has read the log to is
/// known from its messages, so a round can wait until every transaction
/// its snapshot sees has arrived (see ``wait(until:timeout:)``).
final class PostgresReplicationStream: @unchecked Sendable {
    private struct State {
        var arrived: [PostgresChangeFeed.Transaction] = []
        /// When the last message came: a transaction of millions of rows
        /// takes many seconds to arrive whole, and its lines are progress.
        var lastMessage = ContinuousClock.now
        /// Every transaction that committed before it has arrived.
        var position = PostgresLogPosition(0)
        var ended: PostgresStoreError?
        var closing = false
    }

    let slotName: String
    let request: String
    private let wire: PostgresWire
    private let signal: PostgresFeedSignal
    private let state = PThreadMutex(State())
    private var lines: [String] = []

    /// The server's process for the connection (`pg_stat_activity.pid`).
    let serverProcess: Int32

    private init(wire: PostgresWire, slotName: String, serverProcess: Int32, signal: PostgresFeedSignal, request: String) {
        self.wire = wire
        self.slotName = slotName
        self.serverProcess = serverProcess
        self.signal = signal
        self.request = request
    }

    /// Connects, makes the temporary slot and starts streaming it.
    ///
    /// - Parameters:
    ///   - timeout: How long the server may take to make the slot: it
    ///     makes a logical slot only once every transaction that holds a
    ///     transaction ID when it starts has ended, in every database of
    ///     the server.
    ///   - connected: Told of the stream's wire as soon as it exists, so
    ///     that it can be shut from another thread meanwhile (`stop()`).
    /// - Throws: ``PostgresStoreError``: `cannotFollow` with the setting to
    ///   change when the server has no replication connection
    ///   (`max_wal_senders`) or slot (`max_replication_slots`) free, when
    ///   `wal_level` is not `logical`, or when the user may not replicate.
    static func open(
        _ endpoint: PostgresEndpoint, slot: String, applicationName: String, timeout: Duration,
        signal: PostgresFeedSignal, connected: (PostgresWire?) -> Void = { _ in }
    ) throws(PostgresStoreError) -> PostgresReplicationStream {
        let request = "stream the replication slot \(slot) from \(endpoint)"
        let deadline = ContinuousClock.now + timeout
        let wire: PostgresWire
        let connectDeadline = ContinuousClock.now + endpoint.connectTimeout
        do throws(PostgresStoreError) {
            wire = try PostgresWire.connect(
                endpoint,
                parameters: [("replication", "database"), ("application_name", applicationName)],
                request: request, deadline: connectDeadline
            )
        } catch {
            var failure = explained(error, request: request)
            if ContinuousClock.now >= connectDeadline, failure.kind == .serverGone || failure.kind == .connection {
                failure.kind = .connection
                failure.message = "the server did not complete the connection within \(endpoint.connectTimeout) (the URL's connect_timeout)"
            }
            throw failure
        }
        connected(wire)
        defer { connected(nil) }
        do throws(PostgresStoreError) {
            var pid: Int32 = 0
            try wire.simpleQuery("SELECT pg_backend_pid(), current_setting('wal_level')", deadline: deadline)
            var level = ""
            try wire.readUntilReady(deadline: deadline) { row in
                pid = Int32(row.first.flatMap { $0 } ?? "") ?? 0
                level = (row.count > 1 ? row[1] : nil) ?? ""
            }
            guard level == "logical" else {
                throw PostgresStoreError(
                    kind: .cannotFollow, request: "follow commits on \(endpoint)",
                    message: "the server's wal_level is \(level), and following commits needs logical: set wal_level = logical in postgresql.conf and restart the server"
                )
            }
            try wire.simpleQuery("CREATE_REPLICATION_SLOT \(quoted(slot)) TEMPORARY LOGICAL test_decoding NOEXPORT_SNAPSHOT", deadline: deadline)
            try wire.readUntilReady(deadline: deadline)
            try wire.simpleQuery(
                "START_REPLICATION SLOT \(quoted(slot)) LOGICAL 0/0 (\"include-xids\" '1', \"skip-empty-xacts\" '1')", deadline: deadline
            )
            while true {
                guard let message = try wire.receive(deadline: deadline) else { continue }
                if message.type == UInt8(ascii: "W") { break }
                if message.type == UInt8(ascii: "E") { throw wire.serverError(message.body) }
            }
            let stream = PostgresReplicationStream(wire: wire, slotName: slot, serverProcess: pid, signal: signal, request: request)
            let thread = Thread {
                OwnedThread.mark()
                stream.read()
            }
            thread.name = "tessera.postgres.stream"
            thread.start()
            return stream
        } catch {
            // The server may still be making the slot (it waits for other
            // transactions): a wait given up here must end there too, or
            // each try would hold one of the server's replication
            // connections until those transactions end.
            wire.cancel()
            wire.close()
            throw explained(error, request: request)
        }
    }

    /// `error` with what to change on the server, where that is the cause.
    static func explained(_ error: PostgresStoreError, request: String) -> PostgresStoreError {
        var error = error
        switch error.code {
        case "53300" where error.message.contains("max_wal_senders") || error.message.contains("standby"):
            error.kind = .cannotFollow
            error.message += "; every replication connection the server allows (max_wal_senders) is in use: each store that follows commits holds one, so raise max_wal_senders in postgresql.conf (and restart the server) or close a store"
        case "53400":
            error.kind = .cannotFollow
            error.message += "; every replication slot the server allows (max_replication_slots) is in use: each store that follows commits holds one, so raise max_replication_slots in postgresql.conf (and restart the server) or close a store"
        case "42501":
            error.kind = .cannotFollow
            error.message += "; following commits needs a role with the REPLICATION attribute (ALTER ROLE … REPLICATION)"
        default:
            break
        }
        return error
    }

    static func quoted(_ name: String) -> String {
        quotedIdentifier(name)
    }

    /// Ends the stream (the server drops the slot).
    func close() {
        state.withLock { $0.closing = true }
        wire.shutdown()
    }

    /// Why the stream ended, or `nil` while it runs.
    var ended: PostgresStoreError? { state.withLock { $0.ended } }

    /// Where every transaction committed before has arrived.
    var position: PostgresLogPosition { state.withLock { $0.position } }

    /// Whether a transaction arrived that the feed has not taken.
    var hasArrivals: Bool { state.withLock { !$0.arrived.isEmpty } }

    /// What arrived and was not taken yet, in commit order (left for
    /// ``take()``).
    func peek() -> [PostgresChangeFeed.Transaction] {
        state.withLock { $0.arrived }
    }

    /// Takes what arrived, in commit order.
    func take() -> [PostgresChangeFeed.Transaction] {
        state.withLock { state in
            defer { state.arrived = [] }
            return state.arrived
        }
    }

    /// Waits until every transaction committed before `target` has
    /// arrived; `false` once `timeout` has passed with no message from the
    /// server (a large transaction's lines keep it waiting), or when
    /// `stopped` says so.
    ///
    /// - Throws: Why the stream ended, if it did.
    func wait(until target: PostgresLogPosition, timeout: Duration, stopped: () -> Bool = { false }) throws(PostgresStoreError) -> Bool {
        let start = ContinuousClock.now
        while true {
            let seen = signal.current
            let (position, ended, lastMessage) = state.withLock { ($0.position, $0.ended, $0.lastMessage) }
            if let ended { throw ended }
            if position >= target { return true }
            if stopped() { return false }
            let left = max(start, lastMessage) + timeout - .now
            guard left > .zero else { return false }
            signal.wait(after: seen, timeout: min(left, .seconds(1)))
        }
    }

    // MARK: The stream's thread

    private func read() {
        var lastReply = ContinuousClock.now
        var replied = PostgresLogPosition(0)
        do throws(PostgresStoreError) {
            while !state.withLock({ $0.closing }) {
                let message = try wire.receive(deadline: .now + .seconds(1), orNil: true)
                if let message {
                    state.withLock { $0.lastMessage = .now }
                    switch message.type {
                    case UInt8(ascii: "d"): try copyData(message.body)
                    case UInt8(ascii: "E"): throw wire.serverError(message.body)
                    case UInt8(ascii: "c"), UInt8(ascii: "C"), UInt8(ascii: "Z"):
                        throw wire.failure(.serverGone, "the server ended the stream")
                    default: break
                    }
                }
                // Confirms what arrived: the server may recycle the log
                // before it. At once for a keepalive that asks, else when
                // the position moved (so that the server's next keepalive,
                // which it sends when it has read further and waits, says
                // how far) or every 10 s.
                let position = self.position
                let asked = replyAsked
                replyAsked = false
                if asked || position != replied || ContinuousClock.now - lastReply > .seconds(10) {
                    try reply(position)
                    replied = position
                    lastReply = .now
                }
            }
            throw wire.failure(.serverGone, "the store closed the stream")
        } catch {
            state.withLock { $0.ended = $0.ended ?? error }
        }
        wire.close()
        signal.notify()
    }

    /// Set by a keepalive that asks for an answer; read by `read()`.
    private var replyAsked = false

    private func copyData(_ body: [UInt8]) throws(PostgresStoreError) {
        guard let kind = body.first else { return }
        switch kind {
        case UInt8(ascii: "w"):
            guard body.count >= 25 else { throw wire.failure(.server, "the server sent a short log record") }
            let start = PostgresWire.uint64(body, at: 1)
            line(String(decoding: body[25...], as: UTF8.self), at: PostgresLogPosition(start))
        case UInt8(ascii: "k"):
            guard body.count >= 18 else { throw wire.failure(.server, "the server sent a short keepalive") }
            let end = PostgresLogPosition(PostgresWire.uint64(body, at: 1))
            let moved = state.withLock { state -> Bool in
                guard end > state.position, lines.isEmpty else { return false }
                state.position = end
                return true
            }
            if body[17] != 0 { replyAsked = true }
            if moved { signal.notify() }
        default:
            break
        }
    }

    /// One line of `test_decoding`'s output; a COMMIT line hands its
    /// transaction over (`at` is then the end of its commit record).
    private func line(_ text: String, at position: PostgresLogPosition) {
        if text.hasPrefix("message:") { return }
        lines.append(text)
        guard text.hasPrefix("COMMIT") else { return }
        // A transaction that changed no row only moves the position. (The
        // feed's own log flush, a logical message in a transaction of no
        // row, comes as a `message:` line with no BEGIN or COMMIT; the
        // keepalive after it moves the position.)
        let transactions = PostgresChangeFeed.transactions(lines).filter { !$0.changes.isEmpty || $0.unreadable }
        lines = []
        state.withLock { state in
            state.arrived += transactions
            if position > state.position { state.position = position }
        }
        signal.notify()
    }

    /// A standby status update: `position` written, flushed and applied.
    private func reply(_ position: PostgresLogPosition) throws(PostgresStoreError) {
        var body: [UInt8] = [UInt8(ascii: "r")]
        PostgresWire.append(position.value, to: &body)
        PostgresWire.append(position.value, to: &body)
        PostgresWire.append(position.value, to: &body)
        let microseconds = (Date().timeIntervalSince1970 - 946_684_800) * 1_000_000
        PostgresWire.append(UInt64(bitPattern: Int64(microseconds)), to: &body)
        body.append(0)
        try wire.send(UInt8(ascii: "d"), body, deadline: .now + .seconds(10))
    }
}
