import Foundation

/// The PostgreSQL server `.ci/run` starts, when the tests are given one
/// (`TESSERA_POSTGRES_URL`).
enum PostgresServerVariable {
    static var url: String? { ProcessInfo.processInfo.environment["TESSERA_POSTGRES_URL"] }
}
