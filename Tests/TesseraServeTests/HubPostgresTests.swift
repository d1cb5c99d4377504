import Foundation
import Testing
import TesseraTestTraits
@testable import TesseraLiveHub
@testable import TesseraLiveProtocol
import TesseraLivePostgres
import TesseraPostgres
import TesseraPostgresTestSupport
import TesseraTestSupport
import TesseraLayout
import TesseraRender

/// A photo table in a database of its own on the test server, and a
/// writer on a store of its own: another connection, as another process
/// would write.
///
/// What may wait on the server for long (making the database, a hub's
/// replication slot: the server makes one only once every transaction
/// holding a transaction ID has ended) runs on a thread of its own, never
/// on the cooperative pool (see ``make(photos:albums:)`` and
/// ``makeHub(_:)``).
final class PostgresHubLibrary: HubOracleDatabase, @unchecked Sendable {
    let url: String
    let writer: PostgresStore
    /// The backends of the hubs made over it, for ``settle(_:fully:)``.
    private var backends: [ObjectIdentifier: PostgresServeBackend] = [:]

    /// A library made on a thread of its own.
    static func make(photos: Int, albums: Int = 4) async throws -> PostgresHubLibrary {
        try await ServerTestSupport.blocking { try PostgresHubLibrary(photos: photos, albums: albums) }
    }

    private init(photos: Int, albums: Int) throws {
        url = try TestServer.freshDatabase("serve hub")
        writer = try PostgresStore(url: url, applicationName: "tessera test writer")
        _ = try writer.write(request: "create the photo table") { transaction in
            try transaction.rows("""
                CREATE TABLE photo (id bigserial PRIMARY KEY, album text NOT NULL, title text NOT NULL CHECK (title <> 'forbidden'),
                                    position integer NOT NULL DEFAULT 0)
                """)
            try transaction.rows("""
                INSERT INTO photo (album, title, position)
                SELECT (ARRAY['Alps', 'Berlin', 'Cairo', 'Dakar', 'Lisbon', 'Oslo', 'Porto', 'Quito'])[i % $1 + 1], 'Photo ' || i, i / $1
                FROM generate_series(0, $2 - 1) AS i
                """, [.integer(Int64(albums)), .integer(Int64(photos))])
        }
    }

    deinit {
        writer.close()
    }

    func configuration(capacity: Int = 1_000, order: Bool = true) -> ServeConfiguration {
        ServeConfiguration(
            databasePath: url, table: "photo", sectionColumn: "album", sortColumn: "position",
            titleColumn: "title", orderColumn: order ? "position" : nil, outboxCapacity: capacity
        )
    }

    func makeHub(_ configuration: ServeConfiguration) async throws -> ServeHub {
        try await makeHub(configuration, lockTimeout: PostgresServeBackend.lockTimeout)
    }

    /// A hub whose edits wait up to `lockTimeout` for a lock.
    func makeHub(_ configuration: ServeConfiguration, lockTimeout: String) async throws -> ServeHub {
        let (hub, backend) = try await Self.hub(configuration, lockTimeout: lockTimeout)
        backends[ObjectIdentifier(hub)] = backend
        return hub
    }

    /// A hub and its backend, made (and the list fetched, and the slot
    /// made) on a thread of its own.
    static func hub(_ configuration: ServeConfiguration, lockTimeout: String = PostgresServeBackend.lockTimeout) async throws -> (ServeHub, PostgresServeBackend) {
        try await ServerTestSupport.blocking {
            let backend = try PostgresServeBackend(configuration: configuration, lockTimeout: lockTimeout)
            return (try ServeHub(configuration: configuration, backend: backend), backend)
        }
    }

    /// SQLite's `?` placeholders as PostgreSQL's `$1`, `$2`….
    static func numbered(_ sql: String) -> String {
        var number = 0
        return sql.split(separator: "?", omittingEmptySubsequences: false).enumerated().map { index, part in
            guard index > 0 else { return String(part) }
            number += 1
            return "$\(number)" + part
        }.joined()
    }

    func commit(_ statements: [(String, [DatabaseValue])]) throws {
        _ = try writer.write(request: "commit as another connection") { transaction in
            for (sql, arguments) in statements { try transaction.rows(Self.numbered(sql), arguments) }
        }
    }

    /// The transaction's statements run, then it throws: the store rolls
    /// it back.
    func rollBack(_ statements: [(String, [DatabaseValue])]) throws {
        struct RolledBack: Error {}
        do {
            _ = try writer.write(request: "roll back as another connection") { transaction in
                for (sql, arguments) in statements { try transaction.rows(Self.numbered(sql), arguments) }
                throw RolledBack()
            }
        } catch is RolledBack {}
    }

    /// Waits until the hub's store has handed over every commit made so
    /// far (when `fully`), then polls; the hub's store has waited for the
    /// server on no thread of the pool's.
    func settle(_ hub: ServeHub, fully: Bool) async {
        let backend = backends[ObjectIdentifier(hub)]
        if fully, let backend, let mark = backend.store.feedMark {
            let handed = await backend.store.waitUntilHandedOver(mark, timeout: .seconds(120))
            #expect(handed, "the hub's store did not hand the commits over within 120 s")
        }
        await hub.poll()
        if let backend {
            #expect(backend.store.waitsInsideTasks == 0, "the hub's store waited for the server inside a task on a thread of the pool's")
        }
    }

    func freshList() throws -> [HubReplica.Section] {
        try Self.freshList(writer)
    }

    /// The list as a fresh query of `store` gives it.
    static func freshList(_ store: PostgresStore) throws -> [HubReplica.Section] {
        let rows = try store.rows(HubReplica.freshListQuery, request: "read the list")
        return HubReplica.sections(rows.map { (album: $0[0].string ?? "", id: ServeSchema.text(of: $0[1])) })
    }

    /// Every row, for comparing the database before and after.
    func dump() throws -> String {
        try writer.rows("SELECT * FROM photo ORDER BY id", request: "dump").map { "\($0)" }.joined(separator: "\n")
    }
}

@Suite("The live list over PostgreSQL", .tags(.postgres, .oracle))
struct HubPostgresTests {
    @Test("every client's replayed list equals a fresh query (edits, other connections' commits and rollbacks)", arguments: 0..<2)
    func replicasMatchFreshQueries(round: Int) async throws {
        let seed = testSeed(default: 0x5E4E_9000 + UInt64(round))
        print("HubPostgresTests seed \(seed)")
        var random = SplitMix64(seed: seed)
        let library = try await PostgresHubLibrary.make(photos: Int.random(in: 20...120, using: &random))
        try await HubOracleTests.run(seed: seed, random: &random, library)
    }

    @Test("each edit is one transaction whose plan reaches every client before done; refused edits write nothing")
    func editsAndRefusals() async throws {
        let library = try await PostgresHubLibrary.make(photos: 12, albums: 2)
        let hub = try await library.makeHub(library.configuration())
        let editor = try await Self.client(hub, label: "editor", canEdit: true)
        let watcher = try await Self.client(hub, label: "watcher", canEdit: false)
        #expect(editor.replica.sections == (try library.freshList()))

        var request: Int64 = 0
        func send(_ body: String) async throws {
            request += 1
            let logged = editor.log.count
            await hub.receive("{\"request\":\(request),\(body)}", from: editor.id)
            try await editor.drain()
            try await watcher.drain()
            // An edit that commits: its plan, then its done, at the plan's seq.
            let since = editor.log[logged...]
            if since.contains(where: { $0.type == "done" }) {
                #expect(since.map(\.type) == ["plan", "done"] && since.first?.seq == since.last?.seq, "\(body): \(since.map { "\($0.type) \($0.seq)" })")
            }
        }
        let first = editor.replica.sections[0].ids[0]
        try await send("\"type\":\"rename\",\"id\":\"\(first)\",\"title\":\"Renamed\"")
        try await send("\"type\":\"move\",\"id\":\"\(first)\",\"to\":3")
        try await send("\"type\":\"add\",\"section\":\"Berlin\",\"title\":\"Added\"")
        let deleted = editor.replica.sections[1].ids.prefix(2).map { "\"\($0)\"" }.joined(separator: ",")
        try await send("\"type\":\"delete\",\"ids\":[\(deleted)]")
        #expect(editor.dones.count == 4, "\(editor.errors.map(\.compactText))")
        #expect(editor.errors.isEmpty, "\(editor.errors.map(\.compactText))")
        let fresh = try library.freshList()
        #expect(editor.replica.sections == fresh)
        #expect(watcher.replica.sections == fresh)
        #expect(fresh[0].ids[3] == first, "the moved item is at 3 of its section: \(fresh[0].ids)")
        #expect(try library.writer.rows("SELECT title FROM photo WHERE id = $1", [.text(first)], request: "read").first?.first == .text("Renamed"))

        // Refusals: nothing is written, the editor gets the error.
        let before = try library.dump()
        let refusals: [(String, String)] = [
            ("\"type\":\"rename\",\"id\":\"999999\",\"title\":\"x\"", "notFound"),
            ("\"type\":\"rename\",\"id\":\"not a number\",\"title\":\"x\"", "notFound"),
            ("\"type\":\"move\",\"id\":\"\(first)\",\"to\":500", "outOfRange"),
            ("\"type\":\"add\",\"section\":\"Nowhere\",\"title\":\"x\"", "notFound"),
            ("\"type\":\"delete\",\"ids\":[\"\(first)\",\"424242\"]", "notFound"),
            // The table's CHECK refuses it: the transaction rolls back.
            ("\"type\":\"rename\",\"id\":\"\(first)\",\"title\":\"forbidden\"", "database"),
        ]
        for (index, (body, code)) in refusals.enumerated() {
            try await send(body)
            #expect(editor.errors.count == index + 1, "\(body): \(editor.errors.map(\.compactText))")
            #expect(editor.errors.last?["code"] == .string(code), "\(body): \(editor.errors.last?.compactText ?? "no error")")
        }
        #expect(editor.errors.last?["message"].map { "\($0)" }?.contains("title_check") == true, "\(editor.errors.last?.compactText ?? "")")
        #expect(try library.dump() == before, "a refused edit wrote something")
        #expect(editor.dones.count == 4)
        await hub.stop()
    }

    @Test("a commit by another connection reaches every client once the store has it")
    func otherConnectionsCommits() async throws {
        let library = try await PostgresHubLibrary.make(photos: 8, albums: 2)
        let hub = try await library.makeHub(library.configuration())
        let client = try await Self.client(hub, label: "client", canEdit: false)
        try library.commit([
            ("INSERT INTO photo (album, title, position) VALUES ('Cairo', 'New album', 0)", []),
            ("UPDATE photo SET album = 'Berlin' WHERE id = ?", [.text(client.replica.sections[0].ids[0])]),
        ])
        await library.settle(hub, fully: true)
        try await client.drain()
        #expect(client.replica.sections == (try library.freshList()))
        #expect(client.replica.sections.map(\.id) == ["Alps", "Berlin", "Cairo"])
        await hub.stop()
    }

    @Test("a table the backend cannot serve is refused, naming what is wrong")
    func refusedTables() async throws {
        let library = try await PostgresHubLibrary.make(photos: 2)
        _ = try library.writer.write(request: "make a view and a keyless table") { transaction in
            try transaction.rows("CREATE VIEW photo_view AS SELECT * FROM photo")
            try transaction.rows("CREATE TABLE loose (name text, position int)")
        }
        func refusal(_ change: (inout ServeConfiguration) -> Void) -> String {
            var configuration = library.configuration()
            change(&configuration)
            do {
                _ = try PostgresServeBackend(configuration: configuration)
                return "accepted"
            } catch {
                return error.description
            }
        }
        #expect(refusal { $0.table = "nope" }.contains("no such table: nope"))
        #expect(refusal { $0.table = "nope" }.contains("photo"))
        #expect(refusal { $0.table = "photo_view" }.contains("is a view"))
        #expect(refusal { $0.table = "loose"; $0.sectionColumn = nil; $0.titleColumn = "name" }.contains("no single-column primary key"))
        #expect(refusal { $0.sortColumn = "taken" }.contains("sort column: no such column: taken"))
        #expect(refusal { $0.titleColumn = "caption" }.contains("its columns: id, album, title, position"))
        let wrongPassword = try TestServer.url(library.url, user: "nobody")
        #expect(refusal { $0.databasePath = wrongPassword } != "accepted")
        #expect(refusal { $0.table = "PHOTO" } == "accepted", "a name matches ignoring case")
    }

    @Test("a password is never shown: in the user part (percent-encoded or not) or in the query")
    func passwordsHidden() throws {
        #expect(PostgresStore.redacted("postgres://app:pa%23ss@db:5432/photos") == "postgres://app:***@db:5432/photos")
        #expect(PostgresStore.redacted("postgres://app:pa#ss/word@db/photos") == "postgres://app:***@db/photos")
        #expect(PostgresStore.redacted("postgres://app@db/photos?sslmode=disable&password=hunter2") == "postgres://app@db/photos?sslmode=disable&password=***")
        for url in ["postgres://app:se#cret@127.0.0.1:1/photos", "postgres://app@127.0.0.1:1/photos?password=secret"] {
            var configuration = ServeConfiguration(databasePath: url, table: "photo", sortColumn: "position", titleColumn: "title")
            configuration.outboxCapacity = 1
            do {
                _ = try PostgresServeBackend(configuration: configuration)
                Issue.record("\(url) was accepted")
            } catch {
                #expect(!error.description.contains("secret") && !error.description.contains("cret"), "\(error)")
            }
        }
    }

    @Test("the hub reads, follows and edits without waiting for the server on a thread of the pool's")
    func noWaitsOnThePool() async throws {
        let library = try await PostgresHubLibrary.make(photos: 8, albums: 2)
        let (hub, backend) = try await PostgresHubLibrary.hub(library.configuration())
        await hub.start()
        let editor = try await Self.client(hub, label: "editor", canEdit: true)
        let first = editor.replica.sections[0].ids[0]
        await hub.receive(#"{"request":1,"type":"rename","id":"\#(first)","title":"Renamed"}"#, from: editor.id)
        try await editor.drain()
        #expect(editor.dones.count == 1, "\(editor.errors.map(\.compactText))")
        let before = await hub.seq
        // A row moved across sections: its record is read again.
        try library.commit([
            ("INSERT INTO photo (album, title, position) VALUES ('Cairo', 'From elsewhere', 0)", []),
            ("UPDATE photo SET album = 'Berlin' WHERE id = ?", [.text(editor.replica.sections[0].ids[1])]),
        ])
        // The hub's following task takes the commit in.
        let deadline = ContinuousClock.now + .seconds(120)
        while await hub.seq == before, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(10))
        }
        #expect(await hub.seq > before, "the hub did not take another connection's commit in within 120 s")
        try await editor.drain()
        #expect(editor.replica.sections == (try library.freshList()))
        #expect(backend.store.waitsInsideTasks == 0, "the hub's store waited for the server inside a task on a thread of the pool's")
        // The count is real: a read from this test's task is one.
        _ = try backend.store.rows("SELECT 1", request: "read from a task on the pool")
        #expect(backend.store.waitsInsideTasks >= 1)
        await hub.stop()
    }

    /// A client that said hello and took its snapshot.
    static func client(_ hub: ServeHub, label: String, canEdit: Bool) async throws -> HubTestClient {
        let (id, outbox) = await hub.connect(canEdit: canEdit)
        let client = HubTestClient(id: id, outbox: outbox, label: label, layout: .list, viewport: Rect(x: 0, y: 0, width: 400, height: 4_000))
        await hub.receive(HubOracleTests.hello(client), from: id)
        try await client.drain()
        return client
    }
}

/// `tessera serve postgres://…`, run as a process.
@Suite("Command serve over PostgreSQL", .tags(.postgres, .process), .ownThreads)
struct CommandServePostgresTests {
    @Test("serve postgres://… serves the table: an edit's plan comes before its done, another connection's commit comes as a plan")
    func servesATable() async throws {
        let library = try await PostgresHubLibrary.make(photos: 20)
        let serve = try ServeProcess([
            "serve", library.url, "--table", "photo", "--section", "album", "--sort", "position",
            "--title", "title", "--order", "position", "--port", "0",
        ])
        defer { serve.kill() }
        let lines = try await serve.waitForLines(2)
        let port = try #require(serve.port(), "\(lines)")
        #expect(lines[0] == "serving photo of \(PostgresStore.redacted(library.url)), sectioned by album, sorted by position", "\(lines)")
        let writer = library.writer
        let (snapshot, edit, external) = try await ServerTestSupport.blocking { () throws -> (JSON, [JSON], JSON) in
            let client = try RawClient(port: port)
            _ = try client.upgrade(host: "127.0.0.1:\(port)", origin: "http://127.0.0.1:\(port)")
            try client.sendText(#"{"type":"hello","layout":"list","viewport":[0,0,400,800],"ids":true}"#)
            let snapshot = try client.readMessage(ofType: "snapshot")
            try client.sendText(#"{"type":"rename","request":7,"id":"1","title":"Renamed by a client"}"#)
            var edit: [JSON] = []
            while edit.last?["type"] != .string("done"), edit.count < 20 {
                guard case let .text(text) = try client.readMessage() else { break }
                edit.append(try JSON.parse(text))
            }
            _ = try writer.write(request: "delete a row as another connection") { try $0.rows("DELETE FROM photo WHERE id = 2") }
            return (snapshot, edit, try client.readMessage(ofType: "plan"))
        }
        #expect(snapshot["seq"] == .int(0), "\(snapshot.compactText)")
        #expect(edit.map { $0["type"] } == [.string("plan"), .string("done")], "\(edit.map(\.compactText))")
        #expect(edit.last?["request"] == .int(7) && edit.last?["seq"] == .int(1), "\(edit.map(\.compactText))")
        #expect(external["fromSeq"] == .int(1) && external["seq"] == .int(2), "\(external.compactText)")
        #expect(try library.writer.rows("SELECT title FROM photo WHERE id = 1", request: "read").first?.first == .text("Renamed by a client"))
        let (status, _, stderr) = try await serve.stop(signal: SIGINT)
        #expect(status == 0)
        #expect(stderr == "tessera: stopped serving\n")
    }

    @Test("serve postgres://… with a table it lacks is status 2, one line naming it and the tables there are")
    func missingTable() async throws {
        let library = try await PostgresHubLibrary.make(photos: 2)
        let (status, stdout, stderr) = try await ServeProcess.run([
            "serve", library.url, "--table", "nope", "--sort", "position", "--title", "title", "--port", "0",
        ])
        #expect(status == 2)
        #expect(stdout.isEmpty)
        #expect(stderr == "tessera: error: no such table: nope in \(PostgresStore.redacted(library.url).replacingOccurrences(of: "postgres://", with: "")) (it has: photo)\n", "\(stderr)")
    }
}

/// The edits over key and section columns of the types PostgreSQL keeps
/// apart from text: each committed edit reaches the client as the table
/// has it, and an id no key of the type spells is `notFound`, never a
/// database error.
@Suite("The live list over PostgreSQL: keys and sections of every type", .tags(.postgres))
struct HubPostgresTypesTests {
    /// A key type, the SQL of three keys of it, and a section type with
    /// the SQL of two sections and the names clients see them by (as the
    /// server prints them, in UTC).
    struct Case: Sendable, CustomTestStringConvertible {
        var key: String
        var keys: [String]
        var section: String
        var sections: [String]
        var names: [String]
        /// Another connection's row in a new section: its SQL and name.
        var newSection: (sql: String, name: String)?
        var testDescription: String { "\(key) keys, \(section) sections" }
    }

    static let cases = [
        Case(key: "integer", keys: ["1", "2", "3"], section: "varchar(20)", sections: ["'Alps'", "'Berlin'"], names: ["Alps", "Berlin"]),
        Case(
            key: "smallint", keys: ["10", "20", "30"], section: "date", sections: ["'2024-01-01'", "'2024-02-01'"], names: ["2024-01-01", "2024-02-01"],
            newSection: ("'2030-05-05'", "2030-05-05")
        ),
        Case(key: "text", keys: ["'a'", "'b'", "'c'"], section: "integer", sections: ["1", "2"], names: ["1", "2"]),
        Case(key: "uuid", keys: ["'00000000-0000-0000-0000-00000000000a'", "'00000000-0000-0000-0000-00000000000b'", "'00000000-0000-0000-0000-00000000000c'"], section: "boolean", sections: ["false", "true"], names: ["false", "true"]),
        Case(key: "timestamptz", keys: ["'2024-01-01 10:00+00'", "'2024-01-01 11:00+00'", "'2024-01-01 12:00+00'"], section: "text", sections: ["'x'", "'y'"], names: ["x", "y"]),
        Case(key: "numeric", keys: ["1.5", "2.5", "3.5"], section: "char(3)", sections: ["'one'", "'two'"], names: ["one", "two"]),
        Case(
            key: "bigint", keys: ["7", "8", "9"], section: "timestamptz", sections: ["'2024-01-01 10:00+00'", "'2024-06-01 12:30:15.5+02'"],
            names: ["2024-01-01 10:00:00+00", "2024-06-01 10:30:15.5+00"], newSection: ("'2031-01-01 00:00:00.125+00'", "2031-01-01 00:00:00.125+00")
        ),
        Case(
            key: "integer", keys: ["4", "5", "6"], section: "timestamp", sections: ["'1999-12-31 23:59:59'", "'2000-01-01 00:00:00.25'"],
            names: ["1999-12-31 23:59:59", "2000-01-01 00:00:00.25"], newSection: ("'1969-12-31 23:59:59.5'", "1969-12-31 23:59:59.5")
        ),
        Case(
            key: "integer", keys: ["1", "2", "3"], section: "date", sections: ["'0044-03-15 BC'", "'2024-02-29'"], names: ["0044-03-15 BC", "2024-02-29"],
            newSection: ("'infinity'", "infinity")
        ),
    ]

    @Test("rename, move, add and delete write what the client then shows", arguments: cases)
    func editsOverTypes(_ typed: Case) async throws {
        let url = try await ServerTestSupport.blocking { try TestServer.freshDatabase("serve types") }
        let writer = try PostgresStore(url: url, applicationName: "tessera test writer")
        defer { writer.close() }
        _ = try writer.write(request: "create the table") { transaction in
            // The added row's key: a default of the key's type.
            let generated = switch typed.key {
            case "integer", "smallint", "bigint": "GENERATED BY DEFAULT AS IDENTITY (START WITH 100)"
            case "text": "DEFAULT md5(random()::text)"
            case "uuid": "DEFAULT gen_random_uuid()"
            case "timestamptz": "DEFAULT clock_timestamp()"
            default: "DEFAULT (random() * 1000)::numeric(10, 3)"
            }
            try transaction.rows("CREATE TABLE item (k \(typed.key) PRIMARY KEY \(generated), s \(typed.section), title text NOT NULL, position integer NOT NULL)")
            for (index, key) in typed.keys.enumerated() {
                try transaction.rows("INSERT INTO item (k, s, title, position) VALUES (\(key), \(typed.sections[index % 2]), 'Item \(index)', \(index))")
            }
        }
        let configuration = ServeConfiguration(
            databasePath: url, table: "item", sectionColumn: "s", sortColumn: "position", titleColumn: "title", orderColumn: "position"
        )
        let (hub, backend) = try await PostgresHubLibrary.hub(configuration)
        let client = try await HubPostgresTests.client(hub, label: typed.testDescription, canEdit: true)
        // Sections named as the server prints them, in UTC.
        func fresh() throws -> [HubReplica.Section] {
            var sections: [HubReplica.Section] = []
            let rows = try writer.write(request: "read the list") { transaction in
                try transaction.rows("SET LOCAL TimeZone = 'UTC'")
                return try transaction.rows("SELECT s::text, k FROM item ORDER BY s, position, k")
            }.value
            for row in rows {
                let section = ServeSchema.text(of: row[0])
                if sections.last?.id != section { sections.append(HubReplica.Section(id: section, ids: [])) }
                sections[sections.count - 1].ids.append(ServeSchema.text(of: row[1]))
            }
            return sections
        }
        #expect(client.replica.sections == (try fresh()))
        #expect(client.replica.sections.map(\.id) == typed.names)
        // The headers, as the page shows them.
        #expect(client.elements.filter { $0["kind"] == .string("header") }.compactMap { element -> String? in
            if case let .string(title)? = element["title"] { title } else { nil }
        } == typed.names)
        let first = client.replica.sections[0].ids[0]
        let sectionName = client.replica.sections[0].id
        var request: Int64 = 0
        for body in [
            "\"type\":\"rename\",\"id\":\"\(first)\",\"title\":\"Renamed\"",
            "\"type\":\"add\",\"section\":\"\(sectionName)\",\"title\":\"Added\"",
            "\"type\":\"move\",\"id\":\"\(first)\",\"to\":1",
            "\"type\":\"delete\",\"ids\":[\"\(first)\"]",
        ] {
            request += 1
            await hub.receive("{\"request\":\(request),\(body)}", from: client.id)
            try await client.drain()
            #expect(client.errors.isEmpty, "\(typed.testDescription), \(body): \(client.errors.map(\.compactText))")
            #expect(client.replica.sections == (try fresh()), "\(typed.testDescription), \(body)")
        }
        #expect(client.dones.count == 4)
        // Another connection's row in a section of its own: the section
        // comes in a plan's changeset, named as the snapshot names them.
        if let newSection = typed.newSection {
            _ = try writer.write(request: "add a row in a new section") { transaction in
                try transaction.rows("INSERT INTO item (s, title, position) VALUES (\(newSection.sql), 'Elsewhere', 50)")
            }
            if let mark = backend.store.feedMark {
                #expect(await backend.store.waitUntilHandedOver(mark, timeout: .seconds(120)))
            }
            await hub.poll()
            try await client.drain()
            #expect(client.replica.sections == (try fresh()), "\(typed.testDescription), a new section")
            #expect(client.replica.sections.contains { $0.id == newSection.name }, "\(typed.testDescription): \(client.replica)")
        }
        // Ids no key of the type spells: notFound, and nothing written.
        for id in ["zzz", "99999999999999999999", "2147483648", "00000000-0000-0000-0000-00000000000A", ""] {
            request += 1
            let errors = client.errors.count
            let dones = client.dones.count
            await hub.receive("{\"request\":\(request),\"type\":\"rename\",\"id\":\"\(id)\",\"title\":\"x\"}", from: client.id)
            try await client.drain()
            #expect(client.errors.count == errors + 1 && client.dones.count == dones, "\(typed.testDescription), id \(id)")
            #expect(client.errors.last?["code"] == .string("notFound"), "\(typed.testDescription), id \(id): \(client.errors.last?.compactText ?? "")")
        }
        #expect(try writer.rows("SELECT count(*) FROM item WHERE title = 'x'", request: "count").first?.first == .integer(0))
        await hub.stop()
    }
}

/// Edits in flight while the hub takes other messages.
@Suite("The live list over PostgreSQL: edits in flight", .tags(.postgres))
struct HubPostgresConcurrentEditTests {
    @Test("edits of several clients at once each commit once, and every client ends at a fresh query")
    func concurrentEdits() async throws {
        let library = try await PostgresHubLibrary.make(photos: 30, albums: 3)
        let hub = try await library.makeHub(library.configuration())
        var clients: [HubTestClient] = []
        for index in 0..<4 { clients.append(try await HubPostgresTests.client(hub, label: "client \(index)", canEdit: true)) }
        await withTaskGroup(of: Void.self) { group in
            for (index, client) in clients.enumerated() {
                let id = client.id
                group.addTask {
                    for step in 0..<5 {
                        await hub.receive("{\"type\":\"add\",\"request\":\(step),\"section\":\"Alps\",\"title\":\"c\(index)-\(step)\"}", from: id)
                    }
                }
            }
        }
        await library.settle(hub, fully: true)
        for client in clients { try await client.drain() }
        let fresh = try library.freshList()
        for client in clients {
            #expect(client.replica.sections == fresh, "\(client.label)")
            #expect(client.dones.count == 5 && client.errors.isEmpty, "\(client.label): \(client.errors.map(\.compactText))")
        }
        let titles = try library.writer.rows("SELECT title FROM photo WHERE title LIKE 'c%-%' ORDER BY title", request: "read").compactMap { $0.first?.string }
        #expect(titles.count == 20 && Set(titles).count == 20, "\(titles)")
        await hub.stop()
    }

    @Test("a client that leaves while its edit is in flight: the edit commits, the others get its plan, nothing is sent to it")
    func editorLeaves() async throws {
        let library = try await PostgresHubLibrary.make(photos: 8, albums: 2)
        // The edit waits for the lock below until the editor has left,
        // which a busy machine may take longer than the default
        // `lock_timeout` (5 s) to get to: 25 s, just under the 30 s every
        // statement of a write is bounded by, is a limit against a hang.
        let hub = try await library.makeHub(library.configuration(), lockTimeout: "25s")
        let editor = try await HubPostgresTests.client(hub, label: "editor", canEdit: true)
        let watcher = try await HubPostgresTests.client(hub, label: "watcher", canEdit: false)
        let id = editor.id
        // A table lock held by another transaction keeps the edit in flight
        // until the editor has left. (EXCLUSIVE lets the hub's reads go on,
        // and holds no transaction ID, which would hold up every other
        // test's replication slot.)
        let locker = try PostgresStore(url: library.url, applicationName: "tessera test locker")
        defer { locker.close() }
        let first = editor.replica.sections[0].ids[0]
        let release = PThreadMutex(false)
        let locked = PThreadMutex(false)
        let locking = Thread {
            _ = try? locker.write(request: "hold the table") { transaction in
                try transaction.rows("LOCK TABLE photo IN EXCLUSIVE MODE")
                locked.withLock { $0 = true }
                while !release.withLock({ $0 }) { usleep(1_000) }
            }
        }
        locking.start()
        try await waitInRounds(12_000, every: .milliseconds(10)) { locked.withLock { $0 } }
        let editing = Task { await hub.receive("{\"type\":\"rename\",\"request\":1,\"id\":\"\(first)\",\"title\":\"After leaving\"}", from: id) }
        let database = String(library.url.split(separator: "/").last ?? "")
        try await waitInRounds(12_000, every: .milliseconds(10)) {
            (try? library.writer.rows(
                "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND datname = $1 AND application_name = 'tessera serve'", [.text(database)],
                request: "waits"
            ))?.first?.first != .integer(0)
        }
        await hub.disconnect(id)
        release.withLock { $0 = true }
        await editing.value
        await library.settle(hub, fully: true)
        try await watcher.drain()
        #expect(watcher.replica.sections == (try library.freshList()))
        #expect(try library.writer.rows("SELECT title FROM photo WHERE id = $1", [.text(first)], request: "read").first?.first == .text("After leaving"))
        let metrics = await hub.metrics
        #expect(metrics.clientsDropped == 0, "a client that left is not a client dropped for not reading")
        #expect(editor.outbox.count == 0)
        await hub.stop()
    }
}
