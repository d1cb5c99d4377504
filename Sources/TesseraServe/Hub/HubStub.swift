import Foundation
import TesseraRender
import TesseraSQLite

// A stand-in for the hub with its interface only: it answers `hello` with a
// bare snapshot, edits without the right with `forbidden`, anything
// unreadable with `malformed`, and sends a bare plan for every commit it
// sees through `PRAGMA data_version`. The real hub replaces this file.

/// Where `tessera serve` reads the list from.
package struct ServeConfiguration: Sendable {
    /// The SQLite database file.
    package var databasePath: String
    /// The table or view.
    package var table: String
    /// The column rows are grouped into sections by; `nil` for one section.
    package var sectionColumn: String?
    /// The sort column.
    package var sortColumn: String
    /// Whether the sort is descending.
    package var sortDescending: Bool
    /// What an item shows.
    package var titleColumn: String
    /// The integer column reordering writes; `nil` for none.
    package var orderColumn: String?
    /// How often `data_version` is read.
    package var pollInterval: Duration
    /// Messages waiting per client before it is treated as slow.
    package var outboxCapacity: Int

    /// Creates a configuration.
    package init(
        databasePath: String, table: String, sectionColumn: String? = nil, sortColumn: String, sortDescending: Bool = false,
        titleColumn: String, orderColumn: String? = nil, pollInterval: Duration = .milliseconds(10), outboxCapacity: Int = 32
    ) {
        self.databasePath = databasePath
        self.table = table
        self.sectionColumn = sectionColumn
        self.sortColumn = sortColumn
        self.sortDescending = sortDescending
        self.titleColumn = titleColumn
        self.orderColumn = orderColumn
        self.pollInterval = pollInterval
        self.outboxCapacity = outboxCapacity
    }
}

/// A connected client's messages waiting to be sent.
package final class ClientOutbox: @unchecked Sendable {
    fileprivate let continuation: AsyncStream<String>.Continuation
    // Read by one task only, the connection's writer.
    private var iterator: AsyncStream<String>.Iterator

    fileprivate init() {
        let (stream, continuation) = AsyncStream<String>.makeStream()
        self.continuation = continuation
        iterator = stream.makeAsyncIterator()
    }

    /// The next message to send, or nil once the client is closed.
    package func next() async -> String? {
        await iterator.next()
    }
}

/// A connected client.
package struct ServeClientID: Hashable, Sendable {
    fileprivate var value: Int
}

/// A failure of the hub.
package struct ServeError: Error, CustomStringConvertible, Sendable {
    /// The message, one line.
    package var description: String
}

/// The hub: every connected client and the list they follow.
package actor ServeHub {
    private let configuration: ServeConfiguration
    private let connection: Connection
    private var clients: [ServeClientID: (outbox: ClientOutbox, canEdit: Bool, ready: Bool)] = [:]
    private var nextID = 0
    private var seq = 0
    private var following: Task<Void, Never>?

    /// Opens the database and checks the table.
    package init(configuration: ServeConfiguration) throws(ServeError) {
        self.configuration = configuration
        do {
            connection = try Connection(path: configuration.databasePath, mode: .readWrite)
            _ = try connection.read { db in try db.rows("SELECT count(*) FROM \"\(configuration.table)\"") }
        } catch {
            throw ServeError(description: "\(configuration.databasePath): \(error)")
        }
    }

    /// Begins following other processes' commits.
    package func start() {
        guard following == nil else { return }
        let interval = configuration.pollInterval
        following = Task { [weak self] in
            var version: Int64?
            while !Task.isCancelled {
                guard let self else { return }
                let current = try? await self.dataVersion()
                if let current, let version, current != version { await self.commitSeen() }
                if current != nil { version = current }
                try? await Task.sleep(for: interval)
            }
        }
    }

    private func dataVersion() throws -> Int64 {
        try connection.read { db in try db.dataVersion() }
    }

    private func commitSeen() {
        seq += 1
        for (_, client) in clients where client.ready {
            client.outbox.continuation.yield(#"{"type":"plan","fromSeq":\#(seq - 1),"seq":\#(seq),"animated":true}"#)
        }
    }

    /// Stops following and closes every outbox.
    package func stop() {
        following?.cancel()
        following = nil
        for client in clients.values { client.outbox.continuation.finish() }
        clients.removeAll()
    }

    /// Adds a client.
    package func connect(canEdit: Bool) -> (ServeClientID, ClientOutbox) {
        nextID += 1
        let id = ServeClientID(value: nextID)
        let outbox = ClientOutbox()
        clients[id] = (outbox, canEdit, false)
        return (id, outbox)
    }

    /// Handles one text frame from a client.
    package func receive(_ text: String, from client: ServeClientID) {
        guard let entry = clients[client] else { return }
        func send(_ message: JSON) { entry.outbox.continuation.yield(message.compactText) }
        func error(_ code: String, _ message: String, request: JSON? = nil) {
            var members: [(key: String, value: JSON)] = [("type", .string("error"))]
            if let request { members.append(("request", request)) }
            members += [("code", .string(code)), ("message", .string(message))]
            send(.object(members))
        }
        guard let message = try? JSON.parse(text), case let .string(type)? = message["type"] else {
            return error("malformed", "not a JSON object with a type")
        }
        switch type {
        case "hello":
            clients[client]?.ready = true
            send(.object([("type", .string("snapshot")), ("seq", .int(seq)), ("editable", .bool(entry.canEdit))]))
        case "viewport":
            send(.object([("type", .string("elements")), ("seq", .int(seq))]))
        case "move", "rename", "delete", "add":
            guard entry.canEdit else { return error("forbidden", "edits need the token", request: message["request"]) }
            send(.object([("type", .string("done")), ("request", message["request"] ?? .null), ("seq", .int(seq))]))
        default:
            error("unknownType", "unknown type \(type)")
        }
    }

    /// Removes a client and closes its outbox.
    package func disconnect(_ client: ServeClientID) {
        clients.removeValue(forKey: client)?.outbox.continuation.finish()
    }

    /// The number of connected clients.
    package var clientCount: Int { clients.count }
}
