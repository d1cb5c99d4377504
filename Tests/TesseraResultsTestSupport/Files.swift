import Foundation

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
