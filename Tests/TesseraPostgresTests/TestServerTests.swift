import Foundation
import Testing
import TesseraPostgresTestSupport
import TesseraTestTraits

@Suite("PostgreSQL: the test server", .tags(.postgres), .ownThreads)
struct TestServerTests {
    @Test func theServerAnswersSelectOne() throws {
        #expect(try TestServer.psql(TestServer.url(), "SELECT 1") == "1")
    }

    @Test(arguments: [
        ("wal_level", "logical"),
        ("max_replication_slots", "64"),
        ("max_wal_senders", "64"),
        ("server_encoding", "UTF8"),
    ])
    func theServerHasTheSettingsTheControllersNeed(setting: String, value: String) throws {
        #expect(try TestServer.psql(TestServer.url(), "SHOW \(setting)") == value)
    }

    @Test func theURLConnectsAsASuperuserToTessera() throws {
        let row = try TestServer.psql(TestServer.url(), "SELECT current_database(), rolsuper FROM pg_roles WHERE rolname = current_user")
        #expect(row == "tessera|t")
    }

    @Test func freshDatabasesAreDistinctAndEmpty() throws {
        let urls = try (0..<3).map { _ in try TestServer.freshDatabase("fresh databases") }
        #expect(Set(urls).count == 3)
        let userTables = "SELECT count(*) FROM pg_tables WHERE schemaname NOT IN ('pg_catalog', 'information_schema')"
        for url in urls {
            let name = try #require(URLComponents(string: url)?.path.dropFirst())
            #expect(try TestServer.psql(url, "SELECT current_database()") == String(name))
            #expect(try TestServer.psql(url, userTables) == "0")
        }
        _ = try TestServer.psql(urls[0], "CREATE TABLE shot (id int PRIMARY KEY); INSERT INTO shot VALUES (1), (2);")
        #expect(try TestServer.psql(urls[0], "SELECT count(*) FROM shot") == "2")
        #expect(try TestServer.psql(urls[1], userTables) == "0")
    }

    @Test func databaseNamesAreValidIdentifiersWhateverTheLabel() {
        for label in ["", "Ünïcode label; DROP TABLE x", String(repeating: "long", count: 40)] {
            let name = TestServer.uniqueDatabaseName(label)
            #expect(name.utf8.count <= 63, "\(name)")
            #expect(name.unicodeScalars.allSatisfy { ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "_" }, "\(name)")
        }
        #expect(TestServer.uniqueDatabaseName("x") != TestServer.uniqueDatabaseName("x"))
    }

    @Test func theLogicalDecodingPluginIsThereAndSlotsAreListed() throws {
        let url = try TestServer.freshDatabase("slots")
        let slot = try #require(URLComponents(string: url)?.path.dropFirst()).appending("_slot")
        _ = try TestServer.psql(url, "SELECT pg_create_logical_replication_slot('\(slot)', 'test_decoding')")
        #expect(try TestServer.replicationSlots(url).contains(slot))
        _ = try TestServer.psql(url, "SELECT pg_drop_replication_slot('\(slot)')")
        #expect(try !TestServer.replicationSlots(url).contains(slot))
    }

    @Test func connectionsAreCountedByApplicationNameAndCanBeEnded() throws {
        let url = try TestServer.freshDatabase("connections")
        let name = try #require(URLComponents(string: url)?.path.dropFirst()).appending("_app")
        #expect(try TestServer.activeConnections(url, applicationName: name) == 0)
        let holder = Process()
        holder.executableURL = URL(fileURLWithPath: try TestServer.psqlPath.get())
        holder.arguments = ["-X", "-q", "-w", "-d", url + "?application_name=" + name, "-c", "SELECT pg_sleep(600)"]
        holder.standardOutput = FileHandle.nullDevice
        holder.standardError = FileHandle.nullDevice
        try holder.run()
        defer { if holder.isRunning { holder.terminate() } }
        #expect(try waitUntil { try TestServer.activeConnections(url, applicationName: name) == 1 }, "psql's connection did not show within 6,000 rounds of 20 ms")
        #expect(try TestServer.terminateConnections(url, applicationName: name) == 1)
        #expect(try waitUntil { try TestServer.activeConnections(url, applicationName: name) == 0 }, "the terminated connection still showed 6,000 rounds of 20 ms later")
        #expect(try !holder.exit(within: 300).succeeded)
    }

    @Test func theRoleWithAPasswordIsRefusedAWrongOneAndLetInWithSecret() throws {
        let url = try TestServer.url(TestServer.url(), user: "tessera_password")
        #expect {
            try TestServer.psql(url, "SELECT 1", password: "wrong")
        } throws: { error in
            "\(error)".contains("password authentication failed for user \"tessera_password\"")
        }
        #expect {
            try TestServer.psql(url, "SELECT 1")
        } throws: { error in
            "\(error)".contains("password")
        }
        #expect(try TestServer.psql(url, "SELECT current_user", password: "secret") == "tessera_password")
    }

    @Test func aPrivateClusterRestartsHaltsAndResumesOnTheSameURL() throws {
        let cluster = try TestCluster(label: "restart")
        let url = try cluster.freshDatabase("restart")
        _ = try TestServer.psql(url, "CREATE TABLE shot (id int); INSERT INTO shot VALUES (7);")
        let started = try TestServer.psql(url, "SELECT pg_postmaster_start_time()")
        #expect(try TestServer.psql(cluster.url(database: "postgres"), "SELECT current_database()") == "postgres")

        try cluster.restart()
        #expect(try TestServer.psql(url, "SELECT id FROM shot") == "7")
        #expect(try TestServer.psql(url, "SELECT pg_postmaster_start_time()") != started)

        try cluster.halt(immediately: true)
        #expect(throws: TestServer.Failure.self) { try TestServer.psql(url, "SELECT 1") }
        try cluster.resume()
        #expect(try TestServer.psql(url, "SELECT id FROM shot") == "7")

        cluster.stop()
        #expect(!FileManager.default.fileExists(atPath: cluster.folder))
        cluster.stop()
    }

    @Test func theSourceOfTheServerFollowsTheEnvironment() {
        #expect(TestServer.source(environment: ["TESSERA_POSTGRES_URL": "postgres://a@b/c", "CI": "true"]) == .url("postgres://a@b/c"))
        #expect(TestServer.source(environment: ["CI": "true"]) == .missingUnderCI)
        #expect(TestServer.source(environment: ["CI": "true", "TESSERA_POSTGRES_URL": ""]) == .missingUnderCI)
        #expect(TestServer.source(environment: [:]) == .privateCluster)
        #expect(TestServer.source(environment: ["CI": ""]) == .privateCluster)
    }

    @Test func withoutPostgreSQLTheErrorSaysHowToGetIt() throws {
        let empty = FileManager.default.temporaryDirectory.appendingPathComponent("tessera-no-postgres-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: empty) }
        #expect {
            _ = try TestServer.startCluster(label: "missing", environment: ["TESSERA_POSTGRES_BIN": empty.path])
        } throws: { error in
            "\(error)".contains("apt-get install postgresql") && "\(error)".contains("TESSERA_POSTGRES_URL")
        }
    }

    /// Asks `condition` every 20 ms until it holds, for at most 6,000
    /// rounds of a check and 20 ms (two minutes at the least: a limit
    /// against a hang only, generous for a sanitizer build on a busy
    /// machine; bounded in rounds, not by a clock).
    private func waitUntil(_ condition: () throws -> Bool) throws -> Bool {
        try waitInRounds(6_000, sleepingEvery: .milliseconds(20), until: condition)
    }
}
