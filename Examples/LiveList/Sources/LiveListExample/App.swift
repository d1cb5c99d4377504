import Hummingbird
import HummingbirdWebSocket
import TesseraResults
import TesseraSQLite
import TesseraServe

/// The example's application: a home page of its own at `/`, and a task
/// board (the `task` table, in a section per status) as a live list at
/// `/board`, where clients may rename, move and add tasks but not delete
/// them.
///
/// - Parameters:
///   - database: The SQLite file holding the `task` table
///     (``Board/create(at:)`` makes one).
///   - host: The address to listen on.
///   - port: The port; 0 for any free one.
///   - onListening: Called with the port once the server listens.
func buildApplication(
    database: String, host: String = "127.0.0.1", port: Int = 8080,
    onListening: @escaping @Sendable (Int) async -> Void = { _ in }
) throws -> some ApplicationProtocol {
    let board = try LiveList(
        database: database,
        table: "task",
        columns: LiveList.Columns(section: "status", sort: "position", title: "title", order: "position"),
        edits: [.rename, .move, .add],
        access: LiveList.Access(loopbackHostsOnly: host == "127.0.0.1" || host == "localhost")
    )
    let router = Router(context: LiveListRequestContext.self)
    router.get("/") { _, _ -> Response in
        var headers = HTTPFields()
        headers[.contentType] = "text/html; charset=utf-8"
        let page = #"<!doctype html><title>Tasks</title><h1>Tasks</h1><p><a href="/board">Open the board</a></p>"#
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: page)))
    }
    board.mount(on: router, at: "/board")
    var app = Application(
        router: router,
        server: .http1WebSocketUpgrade(webSocketRouter: router),
        configuration: ApplicationConfiguration(address: .hostname(host, port: port)),
        onServerRunning: { channel in await onListening(channel.localAddress?.port ?? port) }
    )
    app.addServices(board)
    return app
}

/// The example's table: tasks in three statuses, each with its place on
/// the board.
enum Board {
    /// The statuses, in the board's order (its sections sort by name).
    static let statuses = ["1 To do", "2 Doing", "3 Done"]

    /// Creates the `task` table in a new SQLite file at `path`, with
    /// `count` tasks spread over the statuses, and a change log, so that
    /// other processes' commits (`sqlite3 FILE "UPDATE task …"`) reach the
    /// board row by row.
    ///
    /// - Throws: `SQLiteError` when the file cannot be written, or has a
    ///   `task` table already.
    static func create(at path: String, count: Int = 30) throws {
        let connection = try Connection(path: path)
        try connection.write { db in
            try db.execute("CREATE TABLE task (id INTEGER PRIMARY KEY, status TEXT NOT NULL, title TEXT NOT NULL, position INTEGER NOT NULL)")
            for index in 0..<count {
                let status = statuses[index % statuses.count]
                try db.execute(
                    "INSERT INTO task (status, title, position) VALUES (?, ?, ?)",
                    [.text(status), .text("Task \(index + 1)"), .integer(Int64(index / statuses.count))]
                )
            }
        }
        _ = try connection.installChangeLog(on: "task", columns: ["status", "position"])
    }
}
