import Foundation
import TesseraCommandKit
import TesseraDemoPhotos
@testable import TesseraPostgres
import TesseraPostgresTestSupport
import TesseraRender
import TesseraSQLite
import TesseraTestTraits
import Testing

/// The PostgreSQL server the tests use (``TestServer``): a
/// superuser's URL on a server with `wal_level = logical`. Each test works
/// in a database of its own.
enum WatchTestServer {
    /// The server's URL (see ``TestServer/url()``), or `nil` when there is
    /// none (the tests then fail: ``freshDatabase(_:)`` says why).
    static var url: String? { try? TestServer.url() }

    /// A new, empty database: its URL (with the server URL's password).
    static func freshDatabase(_ label: String) throws -> String {
        let url = try TestServer.url()
        let name = "tessera_watch_\(label)_\(UUID().uuidString.prefix(8).lowercased())"
        let admin = try PostgresSession.connect(PostgresEndpoint(url: url), applicationName: "test admin")
        defer { admin.close() }
        try admin.execute("CREATE DATABASE \"\(name)\"", request: "create \(name)")
        guard var components = URLComponents(string: url) else { throw ToolError("not a URL: \(url)") }
        components.path = "/" + name
        return components.string!
    }

    /// Drops the database of `databaseURL`, ending its sessions.
    static func drop(_ databaseURL: String) {
        guard let url, let name = URLComponents(string: databaseURL)?.path.dropFirst() else { return }
        guard let admin = try? PostgresSession.connect(PostgresEndpoint(url: url), applicationName: "test admin") else { return }
        defer { admin.close() }
        // A slot of a watch that just ended can outlive it a moment, and
        // holds the database until the server drops it (tried for up to
        // 480 rounds of a try and 250 ms, two minutes at the least: a busy
        // machine may take long; bounded in rounds, not by a clock).
        waitInRounds(480, sleepingEvery: .milliseconds(250)) {
            (try? admin.query("DROP DATABASE IF EXISTS \"\(name)\" WITH (FORCE)", request: "drop \(name)")) != nil
        }
    }

    /// Runs SQL with `psql` (another process, its own session), as one
    /// script; its output, unaligned.
    @discardableResult
    static func psql(_ databaseURL: String, _ sql: String) throws -> String {
        let result = try Tool.run(["-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1", databaseURL, "-c", sql], psql: true)
        guard result.status == 0 else { throw ToolError("psql failed (\(result.status)): \(result.stderr)") }
        return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// How many replication slots of the database exist.
    static func slots(_ databaseURL: String) throws -> Int {
        Int(try psql(databaseURL, "SELECT count(*) FROM pg_replication_slots WHERE database = current_database()")) ?? -1
    }

    /// How many sessions `tessera watch` has on the database.
    static func watchSessions(_ databaseURL: String) throws -> Int {
        Int(try psql(databaseURL, "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND application_name LIKE 'tessera watch%'")) ?? -1
    }

    /// Waits for `condition`, checking it for up to `rounds` rounds of a
    /// check and 50 ms (2,400 by default, two minutes at the least:
    /// generous for a sanitizer build on a busy machine; bounded in rounds,
    /// not by a clock).
    static func eventually(rounds: Int = 2_400, _ condition: () throws -> Bool) rethrows -> Bool {
        try waitInRounds(rounds, sleepingEvery: .milliseconds(50), until: condition)
    }
}

extension Tool {
    /// Runs `psql` (on the PATH) instead of `tessera`.
    static func run(_ arguments: [String], psql: Bool) throws -> Result {
        let (process, outPipe, errPipe) = try makeProcess(arguments, in: nil, executable: URL(fileURLWithPath: "/usr/bin/psql"))
        let output = try TestServer.runToEnd(process, out: outPipe, err: errPipe, timeout: 300, name: "psql \(arguments.joined(separator: " "))")
        return Result(status: output.status, stdout: output.stdout, stderr: output.stderr)
    }
}

/// A result rebuilt from `tessera watch --json --print-rows` output alone:
/// the `fetched` event's state, then each `change` event's changeset
/// replayed on it with the rows it places.
struct ReplayedResult: Equatable, CustomStringConvertible {
    struct Item: Equatable { var id: JSON; var values: JSON }
    struct Section: Equatable { var id: JSON; var items: [Item] }
    var sections: [Section]

    var description: String {
        sections.map { "\($0.id.compactText): " + $0.items.map(\.id.compactText).joined(separator: ",") }.joined(separator: " | ")
    }

    var rowCount: Int { sections.reduce(0) { $0 + $1.items.count } }

    init(sections: [Section]) { self.sections = sections }

    /// The state of a `fetched` event.
    init(fetched: JSON) throws {
        guard case let .array(state)? = fetched["state"] else { throw ToolError("no state in the fetched event") }
        sections = try state.map(Self.section)
    }

    static func section(_ json: JSON) throws -> Section {
        guard let id = json["section"], case let .array(items)? = json["items"] else { throw ToolError("not a section: \(json.compactText)") }
        return Section(id: id, items: try items.map(item))
    }

    static func item(_ json: JSON) throws -> Item {
        guard let id = json["id"], let values = json["values"] else { throw ToolError("not a row: \(json.compactText)") }
        return Item(id: id, values: values)
    }

    static func int(_ json: JSON?) throws -> Int {
        guard case let .number(text)? = json, let value = Int(text) else { throw ToolError("not an integer: \(json?.compactText ?? "nothing")") }
        return value
    }

    static func array(_ json: JSON?) throws -> [JSON] {
        guard case let .array(values)? = json else { throw ToolError("not an array: \(json?.compactText ?? "nothing")") }
        return values
    }

    static func indexPath(_ json: JSON) throws -> [Int] { try array(json["indexes"]).map { try int($0) } }

    /// Replays a `change` event: deletes at old positions, sections and
    /// items moved, and inserts, moves' and updates' destinations filled
    /// with the rows the event places.
    mutating func apply(_ event: JSON) throws {
        guard let changeset = event["changeset"] else { throw ToolError("no changeset: \(event.compactText)") }
        let sectionDeletes = Set(try Self.array(changeset["sectionDeletes"]).map { try Self.int($0) })
        let sectionInserts = Set(try Self.array(changeset["sectionInserts"]).map { try Self.int($0) })
        var sectionMoves: [Int: Int] = [:]   // new → old
        for move in try Self.array(changeset["sectionMoves"]) { sectionMoves[try Self.int(move["to"])] = try Self.int(move["from"]) }
        let itemDeletes = Set(try Self.array(changeset["itemDeletes"]).map(Self.indexPath))
        var movedOut = Set<[Int]>()
        for move in try Self.array(changeset["itemMoves"]) { movedOut.insert(try Self.indexPath(move["from"]!)) }
        var placed: [[Int]: Item] = [:]
        for entry in try Self.array(event["placed"]) {
            placed[try Self.array(entry["at"]).map { try Self.int($0) }] = try Self.item(entry)
        }
        var inserted: [Int: Section] = [:]
        for entry in try Self.array(event["insertedSections"]) { inserted[try Self.int(entry["index"])] = try Self.section(entry) }
        guard Set(inserted.keys) == sectionInserts else { throw ToolError("inserted sections \(inserted.keys.sorted()) ≠ \(sectionInserts.sorted())") }

        let newCount = try Self.int(event["sections"])
        let movedFrom = Set(sectionMoves.values)
        var survivors = sections.indices.filter { !sectionDeletes.contains($0) && !movedFrom.contains($0) }[...]
        var result: [Section] = []
        for j in 0..<newCount {
            if let section = inserted[j] {
                result.append(section)
                continue
            }
            guard let old = sectionMoves[j] ?? survivors.popFirst() else { throw ToolError("no old section for new section \(j)") }
            let stayers = sections[old].items.enumerated().filter { !itemDeletes.contains([old, $0.offset]) && !movedOut.contains([old, $0.offset]) }.map(\.element)
            // A row updated in place is a stayer and is placed too: its
            // place takes the placed row.
            let placedHere = placed.filter { $0.key[0] == j }
            let placedIDs = Set(placedHere.values.map(\.id.compactText))
            let kept = stayers.filter { !placedIDs.contains($0.id.compactText) }
            var remaining = kept.makeIterator()
            var items: [Item] = []
            for i in 0..<(kept.count + placedHere.count) {
                if let item = placed[[j, i]] {
                    items.append(item)
                } else if let item = remaining.next() {
                    items.append(item)
                } else {
                    throw ToolError("section \(j) ran out of rows at \(i)")
                }
            }
            if remaining.next() != nil { throw ToolError("section \(j) has rows left over") }
            result.append(Section(id: sections[old].id, items: items))
        }
        guard survivors.isEmpty else { throw ToolError("old sections \(Array(survivors)) have no place") }
        sections = result
        guard rowCount == (try Self.int(event["rows"])) else { throw ToolError("replayed \(rowCount) rows, the event says \(event["rows"]!.compactText)") }
    }
}

/// Serialized: a transaction held open anywhere on the server holds up
/// every new replication slot (the test of a stop while held up holds
/// one, the oracle's writers leave theirs open a while).
@Suite("tessera watch over PostgreSQL", .tags(.postgres, .process), .ownThreads, .serialized, .startsEarly)
struct WatchPostgresTests {
    typealias Server = WatchTestServer

    static let schema = """
        CREATE TABLE photo (id bigint PRIMARY KEY, album text COLLATE "C" NOT NULL, title text, taken bigint NOT NULL);
        CREATE TABLE note (id bigint PRIMARY KEY, text text);
        """

    /// The result a fresh query gives, as the replay holds it.
    static func fresh(_ url: String) throws -> ReplayedResult {
        let session = try PostgresSession.connect(PostgresEndpoint(url: url), applicationName: "test reader")
        defer { session.close() }
        let rows = try session.query("SELECT id, album, title, taken FROM photo ORDER BY album, taken DESC, id", request: "read").rows
        var sections: [ReplayedResult.Section] = []
        for row in rows {
            let item = ReplayedResult.Item(id: JSON.value(row[0]), values: .array(row.map(JSON.value)))
            if sections.last?.id == JSON.value(row[1]) {
                sections[sections.count - 1].items.append(item)
            } else {
                sections.append(.init(id: JSON.value(row[1]), items: [item]))
            }
        }
        return ReplayedResult(sections: sections)
    }

    static func counts(_ event: JSON) -> [String: Int] {
        guard case let .object(members)? = event["counts"] else { return [:] }
        var result: [String: Int] = [:]
        for (key, value) in members { if case let .number(text) = value, let n = Int(text), n != 0 { result[key] = n } }
        return result
    }

    @Test("a commit by psql appears as a change event that replays to a fresh query; rollbacks and other tables print nothing; SIGTERM leaves no slot and no session")
    func commitsReplayAndStopCleanly() throws {
        let url = try Server.freshDatabase("commits")
        defer { Server.drop(url) }
        try Server.psql(url, Self.schema + "INSERT INTO photo VALUES (1, 'Paris', 'Seine', 10), (2, 'Rome', 'Forum', 20);")
        let tool = try Tool.start(["watch", url, "--table", "photo", "--section", "album", "--sort", "taken desc", "--json", "--print-rows"])
        defer { if tool.process.isRunning { kill(tool.process.processIdentifier, SIGKILL) } }
        let fetched = try JSON.parse(try tool.waitForLines(1)[0])
        #expect(fetched["event"] == .string("fetched"))
        #expect(fetched["database"] == .string(WatchRun.urlWithoutPassword(url)))
        #expect(fetched["rows"] == .int(2))
        var replayed = try ReplayedResult(fetched: fetched)
        #expect(replayed == (try Self.fresh(url)))
        #expect(try Server.slots(url) == 1)

        let commits: [(sql: String, counts: [String: Int]?)] = [
            ("INSERT INTO photo VALUES (3, 'Paris', 'Louvre', 30)", ["itemInserts": 1]),
            ("UPDATE photo SET title = 'Seine at night' WHERE id = 1", ["itemUpdates": 1]),
            ("UPDATE note SET text = 'unrelated' WHERE id = 1; INSERT INTO note VALUES (1, 'elsewhere')", nil),
            ("UPDATE photo SET taken = 40 WHERE id = 1", ["itemMoves": 1, "itemUpdates": 1]),
            ("DELETE FROM photo WHERE id = 2", ["sectionDeletes": 1]),
            ("INSERT INTO photo VALUES (4, 'Athens', 'Acropolis', 5), (5, 'Athens', NULL, 6)", ["sectionInserts": 1]),
            ("BEGIN; DELETE FROM photo; ROLLBACK", nil),
            ("UPDATE photo SET album = 'Athens' WHERE id = 3", ["itemMoves": 1, "itemUpdates": 1]),
        ]
        var reports = 0
        for commit in commits {
            try Server.psql(url, commit.sql)
            guard let expected = commit.counts else {
                usleep(500_000)
                #expect(try tool.waitForLines(1).count == 1 + reports, "\(commit.sql) was reported")
                continue
            }
            reports += 1
            let event = try JSON.parse(try tool.waitForLines(1 + reports)[reports])
            #expect(event["event"] == .string("change"))
            #expect(event["report"] == .int(reports))
            #expect(event["dataVersion"] == nil)
            #expect(Self.counts(event) == expected, "\(commit.sql): \(event.compactText)")
            try replayed.apply(event)
            #expect(replayed == (try Self.fresh(url)), "\(commit.sql): \(event.compactText)")
        }

        kill(tool.process.processIdentifier, SIGTERM)
        #expect(try tool.process.exit(within: 300) == ChildExit(status: 0, signaled: false))
        #expect(tool.stdout(waitingForEOF: true).split(separator: "\n").count == 1 + reports)
        #expect(tool.stderr(waitingForEOF: true) == "")
        #expect(try Server.eventually { try Server.slots(url) == 0 }, "the replication slot outlived watch by 2,400 rounds of 50 ms")
        #expect(try Server.eventually { try Server.watchSessions(url) == 0 }, "a session of watch outlived it by 2,400 rounds of 50 ms")
    }

    @Test("text reports name the URL without its password; Ctrl-C says it stopped")
    func textReports() throws {
        let url = try Server.freshDatabase("text")
        defer { Server.drop(url) }
        try Server.psql(url, Self.schema + "INSERT INTO photo VALUES (1, 'Paris', 'Seine', 10), (2, 'Paris', 'Forum', 20);")
        let tool = try Tool.start(["watch", url, "--table", "PHOTO", "--sort", "taken", "--interval", "0.02"])
        defer { if tool.process.isRunning { kill(tool.process.processIdentifier, SIGKILL) } }
        #expect(try tool.waitForLines(1)[0] == "watching PHOTO in \(WatchRun.urlWithoutPassword(url)): 1 section, 2 rows (Ctrl-C to stop)")
        try Server.psql(url, "INSERT INTO photo VALUES (3, 'Oslo', 'Fjord', 15)")
        let lines = try tool.waitForLines(5)
        #expect(lines[1] == "report 1: 1 section, 3 rows")
        #expect(lines[2] == "  changeset: sections: 0 deleted, 0 inserted, 0 moved, 0 updated; items: 0 deleted, 1 inserted, 0 moved, 0 updated")
        #expect(lines[4] == "    insert → [section 0, item 1]")
        tool.process.interrupt()
        #expect(try tool.process.exit(within: 300).succeeded)
        #expect(tool.stderr(waitingForEOF: true) == "tessera: stopped watching PHOTO\n")
        if let password = URLComponents(string: url)?.password, !password.isEmpty {
            #expect(!tool.stdout(waitingForEOF: true).contains(password))
        }
    }

    @Test("--key names a column that is not the first: rows are told apart by it")
    func keyNotFirst() throws {
        let url = try Server.freshDatabase("key")
        defer { Server.drop(url) }
        try Server.psql(url, """
            CREATE TABLE tag (name text COLLATE "C" NOT NULL, weight bigint NOT NULL, code text PRIMARY KEY);
            INSERT INTO tag VALUES ('beach', 3, 'b'), ('city', 5, 'c');
            """)
        let tool = try Tool.start(["watch", url, "--table", "tag", "--key", "code", "--sort", "weight desc", "--json", "--print-rows"])
        defer { if tool.process.isRunning { kill(tool.process.processIdentifier, SIGKILL) } }
        let fetched = try JSON.parse(try tool.waitForLines(1)[0])
        var replayed = try ReplayedResult(fetched: fetched)
        #expect(replayed.sections.first?.items.map(\.id) == [.string("c"), .string("b")])
        // Two rows with the same name and weight stay two rows.
        try Server.psql(url, "INSERT INTO tag VALUES ('beach', 3, 'b2'); UPDATE tag SET weight = 9 WHERE code = 'b'")
        let event = try JSON.parse(try tool.waitForLines(2)[1])
        #expect(Self.counts(event) == ["itemInserts": 1, "itemMoves": 1, "itemUpdates": 1], "\(event.compactText)")
        try replayed.apply(event)
        #expect(replayed.sections.first?.items.map(\.id) == [.string("b"), .string("c"), .string("b2")])
        tool.process.interrupt()
        #expect(try tool.process.exit(within: 300).succeeded)
    }

    @Test("errors: one line naming the URL without its password and the cause, with the status of its kind")
    func errors() throws {
        let url = try Server.freshDatabase("errors")
        defer { Server.drop(url) }
        try Server.psql(url, Self.schema)
        let shown = WatchRun.urlWithoutPassword(url)
        var components = URLComponents(string: url)!
        let password = components.password
        func expectError(_ arguments: [String], _ message: String, status: Int32, _ comment: Comment? = nil) throws {
            let result = try Tool.run(arguments)
            #expect(result.status == status, "\(arguments): \(result.stderr)")
            #expect(result.stdout == "")
            #expect(result.stderr.hasPrefix("tessera: error: " + message), "\(result.stderr)")
            #expect(result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
            if let password, !password.isEmpty { #expect(!result.stderr.contains(password)) }
        }
        try expectError(["watch", url, "--table", "nope"], "no such table: nope in \(shown) (it has: note, photo)", status: 2)
        try expectError(["watch", url, "--table", "photo", "--sort", "nope desc"],
                        "--sort: no such column: nope in table photo (its columns: id, album, title, taken)", status: 2)
        try expectError(["watch", url, "--table", "photo", "--key", "rowid"],
                        "--key: no such column: rowid in table photo (its columns: id, album, title, taken; PostgreSQL tables have no row id", status: 2)
        try expectError(["watch", url, "--table", "photo", "--where", "taken >>> ?", "--arg", "1"], "--where \"taken >>> ?\": ", status: 64)
        try expectError(["watch", url, "--table", "photo", "--where", "nope = 1"], "--where \"nope = 1\": column \"nope\" does not exist", status: 2)
        try expectError(["watch", url, "--table", "photo", "--busy-timeout", "2"], "--busy-timeout applies to SQLite files only", status: 64)
        try expectError(["watch", url, "--table", "photo", "--interval", "0"], "--interval 0: the seconds between polls must be from 0.001 to 3600", status: 64)
        try expectError(["watch", url, "--table", "photo", "--print-rows"], "--print-rows adds the rows to the JSON lines: it needs --json", status: 64)

        var badPort = components
        badPort.port = 99_999
        try expectError(["watch", badPort.string!, "--table", "photo"], "\(WatchRun.urlWithoutPassword(badPort.string!)): not a PostgreSQL URL watch can use", status: 64)
        try expectError(["watch", "postgres://", "--table", "photo"], "postgres://: not a PostgreSQL URL watch can use", status: 64)
        var closed = components
        closed.port = 1
        try expectError(["watch", closed.string!, "--table", "photo"], "\(WatchRun.urlWithoutPassword(closed.string!)): cannot connect: ", status: 2)

        // A wrong password, when the server checks passwords at all.
        components.password = "not-the-password-\(UInt32.random(in: 0...UInt32.max))"
        let wrong = components.string!
        if (try? PostgresSession.connect(PostgresEndpoint(url: wrong), applicationName: "test probe"))?.close() == nil {
            let result = try Tool.run(["watch", wrong, "--table", "photo"])
            #expect(result.status == 2)
            #expect(result.stderr.hasPrefix("tessera: error: \(shown): the server refused the login: "), "\(result.stderr)")
            #expect(!result.stderr.contains(components.password!))
        }
    }

    @Test("a watch killed with SIGKILL leaves no replication slot and no session behind")
    func killedLeavesNoSlot() throws {
        let url = try Server.freshDatabase("killed")
        defer { Server.drop(url) }
        try Server.psql(url, Self.schema + "INSERT INTO photo VALUES (1, 'Paris', 'Seine', 10);")
        let tool = try Tool.start(["watch", url, "--table", "photo", "--json"])
        defer { if tool.process.isRunning { kill(tool.process.processIdentifier, SIGKILL) } }
        _ = try tool.waitForLines(1)
        #expect(try Server.slots(url) == 1)
        #expect(try Server.watchSessions(url) >= 2)
        kill(tool.process.processIdentifier, SIGKILL)
        #expect(try tool.process.exit(within: 300).signaled)
        #expect(try Server.eventually { try Server.slots(url) == 0 }, "the killed watch's slot is still there after 2,400 rounds of 50 ms")
        #expect(try Server.eventually { try Server.watchSessions(url) == 0 }, "the killed watch's session is still there after 2,400 rounds of 50 ms")
    }

    @Test("SIGTERM while the server holds watch up (its slot waits for another session's open transaction): status 0 at once, nothing printed, nothing left")
    func stopsWhileTheServerWaits() throws {
        // A cluster of its own: the transaction it holds open holds up the
        // making of every logical slot on its server, in every database.
        let cluster = try TestCluster(label: "held")
        defer { cluster.stop() }
        let url = try cluster.freshDatabase("held")
        try Server.psql(url, Self.schema)
        let holder = try PostgresSession.connect(PostgresEndpoint(url: url), applicationName: "test holder")
        defer { holder.close() }
        try holder.execute("BEGIN", "SELECT txid_current()", request: "hold a transaction open")
        let tool = try Tool.start(["watch", url, "--table", "photo", "--json"])
        defer { if tool.process.isRunning { kill(tool.process.processIdentifier, SIGKILL) } }
        let waiting = try Server.eventually {
            Int(try Server.psql(url, "SELECT count(*) FROM pg_stat_activity WHERE application_name = 'tessera watch (following)'")) == 1
        }
        try #require(waiting, "watch did not start making its slot within 2,400 rounds of 50 ms: \(tool.stderr()) \((try? Server.psql(url, "SELECT application_name, state, wait_event_type, wait_event, left(query, 60) FROM pg_stat_activity")) ?? "")")
        try WatchTests().waitUntilCatching(SIGTERM, tool)
        usleep(300_000)
        // Still held up: nothing fetched.
        #expect(tool.stdout() == "")
        kill(tool.process.processIdentifier, SIGTERM)
        let exited = try #require(WatchTests().waitForExit(tool, timeout: 120), "watch was still running 120 s after SIGTERM")
        // A watch that waited for its slot's making to time out would say
        // so on stderr: nothing there means SIGTERM ended the wait, with
        // no clock to ask on a busy machine.
        #expect(tool.stderr() == "", "watch said: \(tool.stderr())")
        #expect(exited == ChildExit(status: 0, signaled: false))
        #expect(tool.stdout(waitingForEOF: true) == "")
        try holder.execute("ROLLBACK", request: "let go")
        #expect(try Server.eventually { try Server.slots(url) == 0 && Server.watchSessions(url) == 0 }, "watch's slot or session outlived it by 2,400 rounds of 50 ms")
    }

    @Test("two watch processes follow 300 random commits (and rollbacks) from three connections: each one's output replays, event by event, to a sorted result with the counts it states, and at the end to a fresh query")
    func twoProcessesReplayRandomTransactions() throws {
        let seed = UInt64.random(in: 0...UInt64.max)
        var random = SplitMix64(seed: seed)
        let url = try Server.freshDatabase("oracle")
        defer { Server.drop(url) }
        let albums = ["A", "B", "C", "D", "E", "F"]
        var initial: [String] = []
        for id in 0..<60 { initial.append("(\(id), '\(albums[id % albums.count])', 'photo \(id)', \(id % 17))") }
        try Server.psql(url, Self.schema + "INSERT INTO photo VALUES \(initial.joined(separator: ", "));")
        let arguments = ["watch", url, "--table", "photo", "--section", "album", "--sort", "taken desc", "--json", "--print-rows"]
        let tools = [try Tool.start(arguments), try Tool.start(arguments + ["--interval", "0.01"])]
        defer { for tool in tools where tool.process.isRunning { kill(tool.process.processIdentifier, SIGKILL) } }
        for tool in tools { _ = try tool.waitForLines(1) }

        // Each connection owns the ids ≡ its number (mod 3), so that open
        // transactions of different connections never wait for each other.
        let writers = try (0..<3).map { _ in try PostgresSession.connect(PostgresEndpoint(url: url), applicationName: "test writer") }
        defer { for writer in writers { writer.close() } }
        var committed = (0..<3).map { c in Set((0..<60).filter { $0 % 3 == c }.map(Int64.init)) }
        var working: [Set<Int64>?] = [nil, nil, nil]
        var nextID: [Int64] = [999, 1000, 1001]
        var commits = 0, rollbacks = 0
        while commits < 300 {
            let c = Int(random.next() % 3)
            if working[c] == nil {
                try writers[c].execute("BEGIN", request: "begin")
                working[c] = committed[c]
            }
            for _ in 0..<(1 + Int(random.next() % 3)) {
                let owned = working[c]!.sorted()
                let album = albums[Int(random.next() % UInt64(albums.count))]
                let taken = Int64(random.next() % 20)
                switch random.next() % 10 {
                case 0...3:
                    let id = nextID[c]
                    nextID[c] += 3
                    let title: DatabaseValue = random.next() % 5 == 0 ? .null : .text("new \(id)")
                    try writers[c].query("INSERT INTO photo VALUES ($1, $2, $3, $4)", [.integer(id), .text(album), title, .integer(taken)], request: "insert")
                    working[c]!.insert(id)
                case 4...6 where !owned.isEmpty:
                    let id = owned[Int(random.next() % UInt64(owned.count))]
                    switch random.next() % 3 {
                    case 0: try writers[c].query("UPDATE photo SET album = $1 WHERE id = $2", [.text(album), .integer(id)], request: "update")
                    case 1: try writers[c].query("UPDATE photo SET taken = $1 WHERE id = $2", [.integer(taken), .integer(id)], request: "update")
                    default: try writers[c].query("UPDATE photo SET title = $1 WHERE id = $2", [.text("retitled \(random.next() % 1000)"), .integer(id)], request: "update")
                    }
                case 7 where !owned.isEmpty:
                    // Several rows at once, across sections.
                    try writers[c].query("UPDATE photo SET album = $1 WHERE id % 3 = $2 AND taken = $3", [.text(album), .integer(Int64(c)), .integer(taken)], request: "update many")
                case 8...9 where !owned.isEmpty:
                    let id = owned[Int(random.next() % UInt64(owned.count))]
                    try writers[c].query("DELETE FROM photo WHERE id = $1", [.integer(id)], request: "delete")
                    working[c]!.remove(id)
                default:
                    break
                }
            }
            // End the transaction, or leave it open while others work.
            switch random.next() % 10 {
            case 0:
                try writers[c].execute("ROLLBACK", request: "rollback")
                working[c] = nil
                rollbacks += 1
            case 1...6:
                try writers[c].execute("COMMIT", request: "commit")
                committed[c] = working[c]!
                working[c] = nil
                commits += 1
            default:
                break
            }
            if random.next() % 4 == 0 { usleep(UInt32(random.next() % 3_000)) }
        }
        for c in 0..<3 where working[c] != nil {
            try writers[c].execute("COMMIT", request: "commit")
            commits += 1
        }
        let expected = try Self.fresh(url)

        var linesAtTheEnd: [Int] = []
        for (n, tool) in tools.enumerated() {
            var final: ReplayedResult?
            var lines: [String] = []
            var failure: String?
            let settled = Server.eventually {
                // Whole lines only: the last one may be on its way.
                let text = tool.stdout()
                lines = text[..<(text.lastIndex(of: "\n") ?? text.startIndex)].split(separator: "\n").map(String.init)
                do {
                    final = try Self.replay(lines)
                } catch {
                    // Broken, not merely behind: no use waiting.
                    failure = "\(error)"
                    return true
                }
                return final == expected
            }
            #expect(failure == nil, "seed \(seed): process \(n + 1): \(failure ?? "")")
            #expect(settled && final == expected, "seed \(seed): process \(n + 1) replays to \(final?.description ?? "nothing") after \(lines.count - 1) reports, and a fresh query gives \(expected)")
            linesAtTheEnd.append(lines.count)
            print("seed \(seed): process \(n + 1): \(lines.count - 1) reports for \(commits) commits and \(rollbacks) rollbacks, \(expected.rowCount) rows in \(expected.sections.count) sections")
        }
        // Quiet: nothing more comes. A fence rather than a pause: one more
        // commit, whose report must be each process's next (a report after
        // the end would come before it).
        try Server.psql(url, "INSERT INTO photo VALUES (9000000, 'Fence', 'fence', 0)")
        let fenced = try Self.fresh(url)
        for (n, tool) in tools.enumerated() {
            var lines: [String] = []
            let reached = Server.eventually {
                let text = tool.stdout()
                lines = text[..<(text.lastIndex(of: "\n") ?? text.startIndex)].split(separator: "\n").map(String.init)
                return lines.count > linesAtTheEnd[n] && (try? Self.replay(lines)) == fenced
            }
            #expect(reached, "seed \(seed): process \(n + 1) did not report the fence commit within 2,400 rounds of 50 ms")
            #expect(lines.count == linesAtTheEnd[n] + 1, "seed \(seed): process \(n + 1) reported after the end: \(lines.count - linesAtTheEnd[n]) reports up to the fence commit's")
        }
        for tool in tools {
            kill(tool.process.processIdentifier, SIGTERM)
            #expect(try tool.process.exit(within: 300).succeeded, "seed \(seed): \(tool.stderr())")
        }
        #expect(try Server.eventually { try Server.slots(url) == 0 }, "a slot outlived the watch processes by 2,400 rounds of 50 ms")
    }

    /// Replays the lines of one process, checking after every event that
    /// the state is sorted as asked (album, taken descending, id) and has
    /// the sections and rows the event states (it throws when not).
    static func replay(_ lines: [String]) throws -> ReplayedResult {
        guard let first = lines.first else { throw ToolError("no output") }
        var state = try ReplayedResult(fetched: try JSON.parse(first))
        for line in lines.dropFirst() {
            let event = try JSON.parse(line)
            try state.apply(event)
            guard state.sections.count == (try ReplayedResult.int(event["sections"])) else {
                throw ToolError("replayed \(state.sections.count) sections after \(line)")
            }
            let flat = state.sections.flatMap { section in section.items.map { (section.id, $0) } }
            let keys = try flat.map { (section, item) -> (String, Int64, Int64) in
                let values = try ReplayedResult.array(item.values)
                guard case let .string(album) = section, case let .number(taken) = values[3], case let .number(id) = values[0] else {
                    throw ToolError("unexpected row \(item.values.compactText)")
                }
                return (album, -Int64(taken)!, Int64(id)!)
            }
            guard zip(keys, keys.dropFirst()).allSatisfy({ $0 < $1 }) else { throw ToolError("not sorted after \(line)") }
        }
        return state
    }
}
