import Foundation
import Testing
import TesseraTestTraits
import TesseraLiveProtocol
import TesseraPostgres
import TesseraPostgresTestSupport
import TesseraRender

/// `tessera serve postgres://…` processes under the faults of a real
/// deployment: several of them over one table, one killed with `kill -9`
/// in the middle of edits, the database restarted under them, their
/// replication connections ended by an operator, and a server with no
/// replication connection left for one more.
@Suite("Command serve over PostgreSQL: several processes, and faults", .tags(.postgres, .process), .ownThreads)
struct ServePostgresFaultTests {
    static func serve(_ url: String, table: String = "photo") throws -> ServeProcess {
        try ServeProcess([
            "serve", url, "--table", table, "--section", "album", "--sort", "position", "--title", "title", "--order", "position", "--port", "0",
        ])
    }

    /// A started server's port.
    static func port(_ serve: ServeProcess) async throws -> Int {
        let lines = try await serve.waitForLines(2)
        return try #require(serve.port(), "\(lines); \(serve.stderr)")
    }

    @Test("three processes: an edit through any reaches every client; kill -9 of one in the middle of edits loses or doubles none, and the others go on")
    func threeProcessesAndKill() async throws {
        let library = try await PostgresHubLibrary.make(photos: 40)
        let servers = try (0..<3).map { _ in try Self.serve(library.url) }
        defer { for server in servers { server.kill() } }
        var found: [Int] = []
        for server in servers { found.append(try await Self.port(server)) }
        let ports = found
        let writer = library.writer
        let outcome = try await ServerTestSupport.blocking { () throws -> (dones: [Int64], sent: Int, clients: [ServeTestReplica], editor: ServeTestReplica) in
            let clients = try ports.map { port in try ServeTestReplica(port: port) }
            // An edit through each of the two that live.
            try clients[1].client.sendText(#"{"type":"rename","request":1,"id":"3","title":"Through one"}"#)
            try clients[2].client.sendText(#"{"type":"rename","request":1,"id":"4","title":"Through two"}"#)
            // The first gets a burst of adds, and is killed after some dones.
            let editor = try ServeTestReplica(port: ports[0])
            let sent = 40
            for index in 1...sent {
                try editor.client.sendText("{\"type\":\"add\",\"request\":\(index),\"section\":\"Alps\",\"title\":\"burst \(index)\"}")
            }
            var dones: [Int64] = []
            while dones.count < 5 {
                let message = try editor.next()
                if message["type"] == .string("done"), case let .number(text)? = message["request"], let request = Int64(text) { dones.append(request) }
            }
            Glibc.kill(servers[0].process.processIdentifier, SIGKILL)
            // What was already on its way still arrives; then the end.
            while let message = try? editor.next() {
                if message["type"] == .string("done"), case let .number(text)? = message["request"], let request = Int64(text) { dones.append(request) }
            }
            // A marker commit: once a client shows it, it shows every
            // commit before it (commit order).
            let marker = try writer.write(request: "commit a marker") { transaction in
                try transaction.rows("INSERT INTO photo (album, title, position) VALUES ('Alps', 'marker', 1000) RETURNING id")
            }.value.first?.first.map(ServeSchema.text(of:)) ?? ""
            for client in clients[1...] { try client.readUntil(shows: marker) }
            return (dones, sent, Array(clients[1...]), editor)
        }
        let titles = try library.writer.rows("SELECT title FROM photo WHERE title LIKE 'burst %'", request: "read").compactMap { $0.first?.string }
        print("ServePostgresFaultTests: kill -9 after \(outcome.dones.count) dones of \(outcome.sent) adds sent; \(titles.count) in the table")
        #expect(Set(titles).count == titles.count, "an edit was applied twice: \(titles.sorted())")
        for request in outcome.dones {
            #expect(titles.contains("burst \(request)"), "edit \(request) got done but is not in the table")
        }
        #expect(titles.count <= outcome.sent)
        let fresh = try library.freshList()
        for client in outcome.clients {
            #expect(client.replica.sections == fresh, "a client of a process that lives: \(client.replica) != \(HubReplica(sections: fresh))")
            #expect(client.dones.count == 1 && client.errors.isEmpty, "its own edit: \(client.dones.map(\.compactText)) \(client.errors.map(\.compactText))")
        }
        #expect(try library.writer.rows("SELECT title FROM photo WHERE id IN (3, 4) ORDER BY id", request: "read").compactMap { $0.first?.string } == ["Through one", "Through two"])
        // The client of the killed process connects to another, naming the
        // state it shows: the list as the table has it (by one plan from
        // that state when the other process kept it, else a snapshot);
        // and so does a new client.
        let port = ports[1]
        let editor = outcome.editor
        let (resumed, reconnected) = try await ServerTestSupport.blocking { () throws -> (ServeTestReplica, ServeTestReplica) in
            let resumed = try ServeTestReplica(port: port, resuming: editor)
            let marker = try writer.write(request: "commit a marker") { transaction in
                try transaction.rows("INSERT INTO photo (album, title, position) VALUES ('Berlin', 'marker', 1000) RETURNING id")
            }.value.first?.first.map(ServeSchema.text(of:)) ?? ""
            try resumed.readUntil(shows: marker)
            return (resumed, try ServeTestReplica(port: port))
        }
        print("ServePostgresFaultTests: the killed process's client \(resumed.resumed ? "resumed from the state it named" : "got a snapshot")")
        let now = try library.freshList()
        #expect(resumed.replica.sections == now, "\(resumed.replica) != \(HubReplica(sections: now))")
        #expect(reconnected.replica.sections == now)
        // The killed process's slot went with its connection.
        let database = String(library.url.split(separator: "/").last ?? "")
        var slots = -1
        try await waitInRounds(12_000, every: .milliseconds(10)) {
            slots = Int((try? library.writer.rows("SELECT count(*) FROM pg_replication_slots WHERE database = $1", [.text(database)], request: "slots"))?.first?.first?.int64 ?? -1)
            return slots == 2
        }
        #expect(slots == 2, "the slots of the two processes that live, and none of the killed one's")
    }

    @Test("the database restarted under two processes: every client catches up, and edits work again")
    func databaseRestart() async throws {
        let (cluster, url) = try await ServerTestSupport.blocking { () throws -> (TestCluster, String) in
            let cluster = try TestCluster(label: "serve restart")
            let url = try cluster.freshDatabase("serve restart")
            try Self.createPhotos(url)
            return (cluster, url)
        }
        defer { cluster.stop() }
        let servers = try (0..<2).map { _ in try Self.serve(url) }
        defer { for server in servers { server.kill() } }
        var found: [Int] = []
        for server in servers { found.append(try await Self.port(server)) }
        let ports = found
        let result = try await ServerTestSupport.blocking { () throws -> ([ServeTestReplica], [HubReplica.Section]) in
            let clients = try ports.map { port in try ServeTestReplica(port: port) }
            try cluster.restart()
            let writer = try PostgresStore(url: url, applicationName: "tessera test writer")
            defer { writer.close() }
            let marker = try writer.write(request: "commit a marker") { transaction in
                try transaction.rows("UPDATE photo SET title = 'after the restart' WHERE id = 2")
                return try transaction.rows("INSERT INTO photo (album, title, position) VALUES ('Berlin', 'marker', 1000) RETURNING id")
            }.value.first?.first.map(ServeSchema.text(of:)) ?? ""
            for client in clients { try client.readUntil(shows: marker) }
            // An edit through each server, once it has its sessions again.
            for (index, client) in clients.enumerated() {
                try client.client.sendText("{\"type\":\"add\",\"request\":\(index + 1),\"section\":\"Alps\",\"title\":\"edit after the restart \(index)\"}")
                try client.readUntilDone(request: index + 1)
            }
            let last = try writer.write(request: "commit a marker") { transaction in
                try transaction.rows("INSERT INTO photo (album, title, position) VALUES ('Berlin', 'last marker', 1001) RETURNING id")
            }.value.first?.first.map(ServeSchema.text(of:)) ?? ""
            for client in clients { try client.readUntil(shows: last) }
            return (clients, try PostgresHubLibrary.freshList(writer))
        }
        for client in result.0 {
            #expect(client.replica.sections == result.1, "\(client.replica) != \(HubReplica(sections: result.1))")
            #expect(client.dones.count == 1, "the edit after the restart: \(client.errors.map(\.compactText))")
        }
    }

    @Test("an operator ends the servers' replication connections and drops their slots: the servers make them again, and every client catches up")
    func slotsDropped() async throws {
        let library = try await PostgresHubLibrary.make(photos: 12)
        let server = try Self.serve(library.url)
        defer { server.kill() }
        let port = try await Self.port(server)
        let writer = library.writer
        let database = String(library.url.split(separator: "/").last ?? "")
        let client = try await ServerTestSupport.blocking { () throws -> ServeTestReplica in
            let client = try ServeTestReplica(port: port)
            // End the walsender and drop its (now inactive) slot.
            _ = try writer.rows(
                "SELECT pg_terminate_backend(active_pid) FROM pg_replication_slots WHERE database = $1 AND active_pid IS NOT NULL", [.text(database)],
                request: "end the replication connections"
            )
            _ = try? writer.rows(
                "SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots WHERE database = $1 AND NOT active", [.text(database)],
                request: "drop the slots"
            )
            let marker = try writer.write(request: "commit a marker") { transaction in
                try transaction.rows("DELETE FROM photo WHERE id = 5")
                return try transaction.rows("INSERT INTO photo (album, title, position) VALUES ('Alps', 'marker', 1000) RETURNING id")
            }.value.first?.first.map(ServeSchema.text(of:)) ?? ""
            try client.readUntil(shows: marker)
            return client
        }
        #expect(client.replica.sections == (try library.freshList()))
    }

    @Test("a server with no replication connection left: serve refuses to start, naming the setting to raise")
    func noWalSenderLeft() async throws {
        let (cluster, url) = try await ServerTestSupport.blocking { () throws -> (TestCluster, String) in
            let cluster = try TestCluster(label: "serve senders")
            _ = try TestServer.psql(cluster.url, "ALTER SYSTEM SET max_wal_senders = 1")
            try cluster.restart()
            let url = try cluster.freshDatabase("serve senders")
            try Self.createPhotos(url)
            return (cluster, url)
        }
        defer { cluster.stop() }
        let first = try Self.serve(url)
        defer { first.kill() }
        _ = try await Self.port(first)
        let (status, stdout, stderr) = try await ServeProcess.run([
            "serve", url, "--table", "photo", "--section", "album", "--sort", "position", "--title", "title", "--port", "0",
        ])
        #expect(status == 2, "\(stderr)")
        #expect(stdout.isEmpty)
        #expect(stderr.contains("max_wal_senders") && stderr.split(separator: "\n").count == 1, "\(stderr)")
    }

    static func createPhotos(_ url: String) throws {
        let store = try PostgresStore(url: url, applicationName: "tessera test setup")
        defer { store.close() }
        _ = try store.write(request: "create the photo table") { transaction in
            try transaction.rows("CREATE TABLE photo (id bigserial PRIMARY KEY, album text NOT NULL, title text NOT NULL, position integer NOT NULL DEFAULT 0)")
            try transaction.rows("INSERT INTO photo (album, title, position) SELECT (ARRAY['Alps', 'Berlin'])[i % 2 + 1], 'Photo ' || i, i / 2 FROM generate_series(0, 19) AS i")
        }
    }
}

/// A WebSocket client of a running server that keeps its copy of the list
/// by replaying every plan (blocking reads: for threads of their own).
final class ServeTestReplica: @unchecked Sendable {
    let client: RawClient
    var replica = HubReplica()
    var seq = 0
    /// The `state` of the last snapshot or plan.
    var state: String?
    /// Whether the `hello` was answered by a plan from the state it named.
    private(set) var resumed = false
    var dones: [JSON] = []
    var errors: [JSON] = []

    /// Connects, says hello (with ids) and takes the snapshot; or, resuming
    /// what `previous` shows (naming its seq and state), takes the snapshot
    /// or the resumed plan that answers.
    init(port: Int, path: String = "/live", layout: String = "list", resuming previous: ServeTestReplica? = nil) throws {
        client = try RawClient(port: port)
        _ = try client.upgrade(path, host: "127.0.0.1:\(port)", origin: "http://127.0.0.1:\(port)")
        var resume = "null"
        if let previous, let state = previous.state {
            replica = previous.replica
            seq = previous.seq
            resume = "{\"seq\":\(previous.seq),\"state\":\"\(state)\"}"
        }
        try client.sendText("{\"type\":\"hello\",\"layout\":\"\(layout)\",\"viewport\":[0,0,400,800],\"ids\":true,\"resume\":\(resume)}")
        guard case let .text(text) = try client.readMessage() else { throw ServerTestError("the connection ended before the hello's answer") }
        let answer = try JSON.parse(text)
        switch answer["type"] {
        case .string("snapshot"):
            take(snapshot: answer)
        case .string("plan") where resume != "null" && answer["resumed"] == .bool(true):
            try take(plan: answer)
            resumed = true
        default:
            throw ServerTestError("a hello answered by \(text.prefix(300))")
        }
    }

    private func take(snapshot: JSON) {
        seq = HubTestClient.int(snapshot["seq"])
        if case let .string(text)? = snapshot["state"] { state = text } else { state = nil }
        let names = HubReplica.array(snapshot["sections"]).compactMap { section -> String? in
            if case let .string(id)? = section["id"] { id } else { nil }
        }
        replica.sections = []
        for (name, list) in zip(names, HubReplica.array(snapshot["ids"])) {
            replica.sections.append(.init(id: name, ids: HubReplica.strings(list)))
        }
    }

    /// The next message, after taking it: a plan is replayed (from the
    /// seq the client is at, and never showing among its elements the
    /// title "never", which the oracles' rolled-back transactions write),
    /// a `done` must come at or after the seq of the plans before it, and
    /// a second `snapshot` is an error (a server sends one per `hello`).
    func next() throws -> JSON {
        guard case let .text(text) = try client.readMessage() else { throw ServerTestError("the connection ended") }
        let message = try JSON.parse(text)
        switch message["type"] {
        case .string("plan"):
            guard message["resumed"] == nil else { throw ServerTestError("a resumed plan not answering a hello: \(text.prefix(300))") }
            try take(plan: message)
        case .string("snapshot"):
            throw ServerTestError("a second snapshot, at seq \(HubTestClient.int(message["seq"])), while at \(seq)")
        case .string("done"):
            guard HubTestClient.int(message["seq"]) <= seq else {
                throw ServerTestError("done at seq \(HubTestClient.int(message["seq"])) before its plan (the client at \(seq))")
            }
            dones.append(message)
        case .string("error"): errors.append(message)
        default: break
        }
        return message
    }

    /// Replays a plan: from the seq the client is at, never showing the
    /// title "never".
    private func take(plan message: JSON) throws {
        guard HubTestClient.int(message["fromSeq"]) == seq, let changeset = message["changeset"] else {
            throw ServerTestError("a plan from seq \(HubTestClient.int(message["fromSeq"])) while at \(seq)")
        }
        try replica.apply(changeset)
        seq = HubTestClient.int(message["seq"])
        if case let .string(text)? = message["state"] { state = text } else { state = nil }
        for element in HubReplica.array(message["elements"]) + HubReplica.array(message["settled"]) where element["title"] == .string("never") {
            throw ServerTestError("a title of a rolled-back transaction in the plan to seq \(seq): \(element.compactText)")
        }
    }

    /// Reads until the list shows the item `id` (the client's read timeout
    /// bounds it).
    func readUntil(shows id: String) throws {
        while !replica.sections.contains(where: { $0.ids.contains(id) }) { _ = try next() }
    }

    /// Reads until the `done` or `error` of `request`.
    func readUntilDone(request: Int) throws {
        while true {
            let message = try next()
            guard message["type"] == .string("done") || message["type"] == .string("error") else { continue }
            if message["request"] == .int(request) { return }
        }
    }
}
