import Foundation
import Logging
import PostgresNIO
import Testing
import TesseraPostgresTestSupport
import TesseraSQLite
@testable import TesseraPostgres

/// A connection to a fresh database on the tests' server (see
/// ``TestServer``), for the value, ordering and test_decoding oracles.
enum ValuesTestConnection {
    struct MissingServer: Error, CustomStringConvertible {
        var description: String
    }

    /// Runs `body` with a new connection to a database of its own, closed
    /// after it.
    static func with<T>(_ body: (PostgresConnection) async throws -> T) async throws -> T {
        let url = try TestServer.freshDatabase("values")
        guard let components = URLComponents(string: url), let host = components.host else {
            throw MissingServer(description: "TESSERA_POSTGRES_URL is not a postgres:// URL: \(url)")
        }
        let database = components.path.hasPrefix("/") ? String(components.path.dropFirst()) : components.path
        let configuration = PostgresConnection.Configuration(
            host: host, port: components.port ?? 5432, username: components.user ?? "postgres",
            password: components.password, database: database.isEmpty ? nil : database, tls: .disable
        )
        let connection = try await PostgresConnection.connect(
            on: MultiThreadedEventLoopGroup.singleton.next(), configuration: configuration, id: 1, logger: Logger(label: "test")
        )
        do {
            let result = try await body(connection)
            try await connection.close()
            return result
        } catch {
            try? await connection.close()
            throw error
        }
    }
}

extension PostgresConnection {
    /// The rows of a query, each row's cells read with
    /// ``PostgresValue/databaseValue(_:)``.
    func values(_ sql: String, _ parameters: [DatabaseValue] = []) async throws -> [[DatabaseValue]] {
        var bindings = PostgresBindings()
        for parameter in parameters { bindings.append(parameter) }
        let rows = try await query(PostgresQuery(unsafeSQL: sql, binds: bindings), logger: Logger(label: "test"))
        var result: [[DatabaseValue]] = []
        for try await row in rows {
            result.append(row.map(PostgresValue.databaseValue))
        }
        return result
    }

    /// Runs a statement and drops its rows.
    func run(_ sql: String, _ parameters: [DatabaseValue] = []) async throws {
        _ = try await values(sql, parameters)
    }
}
