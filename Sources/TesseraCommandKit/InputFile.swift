import Foundation

/// Reads input files with errors that name them.
enum InputFile {
    /// The file's text.
    ///
    /// - Throws: ``CommandError`` naming the path when it is missing, a
    ///   folder, unreadable, or not UTF-8.
    static func text(at path: String) throws(CommandError) -> String {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw CommandError("\(path): no such file", exitCode: CommandError.inputExitCode)
        }
        guard !isDirectory.boolValue else {
            throw CommandError("\(path): is a directory, not a file", exitCode: CommandError.inputExitCode)
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw CommandError("\(path): cannot be read (permission denied?)", exitCode: CommandError.inputExitCode)
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw CommandError("\(path): is not UTF-8 text", exitCode: CommandError.inputExitCode)
        }
        return text
    }

    /// The file's JSON.
    ///
    /// - Throws: ``CommandError`` naming the path, and the line and column
    ///   for text that is not JSON.
    static func json(at path: String) throws(CommandError) -> JSON {
        let text = try text(at: path)
        do {
            return try JSON.parse(text)
        } catch {
            throw CommandError("\(path): invalid JSON at \(error)", exitCode: CommandError.inputExitCode)
        }
    }

    /// Writes text to a file.
    ///
    /// - Throws: ``CommandError`` naming the path.
    static func write(_ text: String, to path: String) throws(CommandError) {
        do {
            try text.write(toFile: path, atomically: true, encoding: .utf8)
        } catch {
            throw CommandError("\(path): cannot be written (\(error.localizedDescription))", exitCode: CommandError.inputExitCode)
        }
    }
}
