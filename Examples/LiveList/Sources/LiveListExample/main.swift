import Foundation
import Hummingbird

// LiveListExample [DATABASE] [--port N]
//
// Serves DATABASE's `task` table as a live board at http://127.0.0.1:N/board
// (port 8080 unless given). With no DATABASE, or one that does not exist
// yet, it creates one with 30 tasks first (board.sqlite in the current
// folder without DATABASE).

/// Writes a line to standard error and exits with `status`.
func fail(_ message: String, status: Int32) -> Never {
    FileHandle.standardError.write(Data((message + "\n").utf8))
    exit(status)
}

let usage = "usage: LiveListExample [DATABASE] [--port N]"
var arguments = Array(CommandLine.arguments.dropFirst())
if arguments.contains("--help") || arguments.contains("-h") {
    print(usage)
    exit(0)
}
var port = 8080
if let flag = arguments.firstIndex(of: "--port") {
    guard flag + 1 < arguments.count, let value = Int(arguments[flag + 1]), (0...65_535).contains(value) else {
        fail("LiveListExample: --port needs a port from 0 to 65535", status: 64)
    }
    port = value
    arguments.removeSubrange(flag...(flag + 1))
}
guard arguments.count <= 1, arguments.allSatisfy({ !$0.hasPrefix("-") }) else {
    fail(usage, status: 64)
}
let database = arguments.first ?? "board.sqlite"
do {
    if !FileManager.default.fileExists(atPath: database) {
        try Board.create(at: database)
        print("created \(database) with 30 tasks")
    }
    let app = try buildApplication(database: database, port: port) { port in
        print("the board is at http://127.0.0.1:\(port)/board")
    }
    try await app.runService()
} catch {
    fail("LiveListExample: \(error)", status: 1)
}
