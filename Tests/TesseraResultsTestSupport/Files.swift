import Foundation
import TesseraSQLite

/// A fresh temporary directory for database files.
public func temporaryDirectory() throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("tessera-sqlite-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}

/// What a test throws from inside a transaction or savepoint to roll it
/// back.
public struct Rollback: Error {
    public init() {}
}

/// A new SQLite file in a temporary directory of its own, made with
/// `schema` in one transaction, and two connections on it: a controller's
/// and another one (whose commits it sees as another process's).
///
/// - Returns: The connections, and the directory to remove afterwards.
public func makeSharedDatabase(_ schema: [String], walMode: Bool = true) throws -> (connection: Connection, other: Connection, directory: URL) {
    let directory = try temporaryDirectory()
    let path = directory.appendingPathComponent("items.sqlite").path
    let connection = try Connection(path: path, journalModeWAL: walMode)
    try connection.write { db in
        for statement in schema { try db.execute(statement) }
    }
    return (connection, try Connection(path: path, journalModeWAL: walMode), directory)
}
