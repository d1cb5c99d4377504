import Foundation

/// Runs `body` with the path of a new file in the temporary folder (not
/// made yet), and removes it (and an SQLite file's `-wal` and `-shm`
/// beside it) afterwards, whether `body` throws or not.
public func withScratchFile<T>(named name: String, _ body: (String) throws -> T) rethrows -> T {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("tessera-\(name)-\(UUID().uuidString)").path
    defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
    return try body(path)
}
