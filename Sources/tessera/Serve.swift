#if LiveServer
import ArgumentParser
import Foundation
import TesseraCommandKit
import TesseraLiveHub
import TesseraLiveProtocol
import TesseraServe
import TesseraResultsCore
import TesseraSQLite
#if PostgreSQL
import TesseraLivePostgres
#endif

/// The subcommands that exist only in builds with the live server.
let serveSubcommands: [any ParsableCommand.Type] = [Serve.self]

/// How a server's run ended: `nil` while it runs, then `.some(nil)` or
/// `.some(error)`.
final class ServeOutcome: Sendable {
    private let value = PThreadMutex<ServeServerError??>(nil)

    func withLock<T>(_ body: (inout ServeServerError??) -> T) -> T {
        value.withLock { body(&$0) }
    }
}

struct Serve: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Serve a table as a live list: every connected browser shows it and animates each commit by the plan Tessera computes for its viewport.",
        discussion: """
        With no DATABASE, serves the demo photo library: \(DemoLibrary.defaultPhotoCount) photos (--photos) in \
        \(DemoLibrary.albums.count) albums, seeded anew on every run into tessera-serve/photos.sqlite in the temporary \
        folder (TMPDIR), sectioned by album, sorted and reordered by position; while another process has that file \
        open (another serve showing it), serve refuses to seed it, with status 3. \
        With a DATABASE (an SQLite file), serves --table sorted by --sort and showing --title, in sections by \
        --section when given; drag to reorder writes the integer --order column when given (otherwise the list \
        cannot be reordered). Commits by other processes (sqlite3, another app) are picked up through \
        PRAGMA data_version, as watch does: the list is fetched again, or patched row by row when the table \
        has a change log (tessera log install). \
        With a postgres://user[:password]@host[:port]/database URL in place of the file, serves a table of \
        PostgreSQL (the server with wal_level = logical, the table with a single-column primary key): every \
        commit to it, by any connection, process or machine, is followed through a replication slot of the \
        server's own, and an edit's done comes after its plan. Several servers can serve one table: each follows \
        the others' edits. The password is never printed. \
        Open the printed address in a browser; the page connects to /live, a WebSocket (the protocol is \
        documented in TesseraServe's Protocol article). \
        The server binds to 127.0.0.1 unless --host says otherwise, and then answers only requests that name a \
        loopback host. On any other address it prints a token at start: clients that open /live without \
        ?token=<token> (the printed address with it) may only read. A browser's WebSocket must come from the \
        server's own page (its Origin must be http:// or https:// and the Host it asked for). A message over 64 KiB closes \
        the connection (status 1009); over 200 messages a second are answered with an error and dropped. \
        GET /metrics gives the server's metrics in Prometheus' text format (clients, rows, changes, plans sent, \
        merged plans, slow clients closed, edits, the time from a change to its plans). --log-level says what it \
        logs to standard error, one line per event (by default warnings and errors: a slow client closed, a failed \
        read of the table). \
        Ctrl-C (or SIGTERM) stops the server, closing every connection, with status 0, as watch: each client is \
        sent a close, and waited for up to 15 s; a second Ctrl-C stops it at once. \
        Errors: bad usage 64; a database that does not exist or cannot be opened, or a table or column it lacks, \
        2; a database another process keeps locked, or a demo library another process has open, 3; an address it \
        cannot listen on (a port in use), 1, checked before anything is seeded or opened.
        """
    )

    @Argument(help: "The SQLite database file, or a postgres:// URL (default: the demo photo library).")
    var database: String?

    @Option(help: "With DATABASE: the table to serve (a view is refused: the list edits its rows).")
    var table: String?

    @Option(help: "With DATABASE: the column rows are grouped into sections by (default: one section).")
    var section: String?

    @Option(help: "With DATABASE: the sort column, as \"column\", \"column:desc\" or \"column desc\" (ascending unless desc).")
    var sort: String?

    @Option(help: "With DATABASE: the column an item shows as its title.")
    var title: String?

    @Option(help: "With DATABASE: an integer column that dragging to reorder writes (default: no reordering).")
    var order: String?

    @Option(help: "The address to bind to; any other than a loopback one makes edits need the printed token.")
    var host: String = "127.0.0.1"

    @Option(parsing: .unconditional, help: "The port, from 0 (any free port, printed) to 65535.")
    var port: Int = 8080

    @Option(name: .customLong("max-clients"), parsing: .unconditional, help: "The browsers served at once, from \(ServeLimits.maximumClientsRange.lowerBound) to \(ServeLimits.maximumClientsRange.upperBound); one more is answered 503. Clients with the same layout and width share one layout of the list.")
    var maxClients: Int = ServeLimits.defaultMaximumClients

    @Option(parsing: .unconditional, help: "Without DATABASE: how many photos the demo library has, from \(DemoLibrary.photoCountRange.lowerBound) to \(DemoLibrary.photoCountRange.upperBound) (default: \(DemoLibrary.defaultPhotoCount)).")
    var photos: Int?

    @Option(name: .customLong("log-level"), help: "What the server logs to standard error, from this level up: trace, debug, info, notice, warning, error or critical.")
    var logLevel: String = "warning"

    func run() throws {
        var (configuration, library) = try serveConfiguration()
        _ = configuration.logToStandardError(from: logLevel)
        // The address first: a server that cannot listen changes nothing.
        do {
            try ServeServer.checkAddress(host: host, port: port)
        } catch {
            throw CommandError(error.description, exitCode: CommandError.inputExitCode)
        }
        // The demo library's claim is held until the process ends: no
        // other process seeds it under this server. Status 3 for a library
        // another process has open, 2 for one that cannot be seeded.
        let claim = try library.map { library throws(CommandError) in
            do throws(DemoLibraryError) {
                let claim = try library.claim()
                try library.seed()
                return claim
            } catch {
                throw CommandError(error.description, exitCode: error.isInUse ? CommandError.lockedExitCode : CommandError.databaseExitCode)
            }
        }
        defer { withExtendedLifetime(claim) {} }
        let hub: ServeHub
        do {
            hub = try Self.isPostgresURL(configuration.databasePath)
                ? ServeHub(configuration: configuration, backend: Self.postgresBackend(configuration))
                : ServeHub(configuration: configuration)
        } catch {
            throw Self.commandError(error)
        }
        let server = ServeServer(hub: hub, host: host, port: port, limits: ServeLimits(maximumClients: maxClients))
        catchStopSignals()
        let ended = ServeOutcome()
        let task = Task {
            do throws(ServeServerError) {
                try await server.run()
                ended.withLock { $0 = .some(nil) }
            } catch {
                ended.withLock { $0 = .some(error) }
            }
        }
        var announced = false
        while !interrupted.load(ordering: .relaxed) {
            if let outcome = ended.withLock({ $0 }) {
                if let failure = outcome { throw CommandError(failure.description, exitCode: CommandError.inputExitCode) }
                return
            }
            if !announced, let address = server.address {
                announced = true
                announce(configuration, address: address, token: server.token)
            }
            usleep(10_000)
        }
        // Stopped: a graceful shutdown closes every client's WebSocket with
        // a close frame and stops following. It ends once every client has
        // answered its close, or the server's close timeout has passed
        // since its close was written. A busy machine may take seconds to
        // send the closes, which a fixed two seconds cut short, dropping
        // clients without one. Past the close timeout and ten seconds more
        // (a client that stopped reading holds its close's write), or at a
        // second stop signal, the run is cancelled, which drops what is
        // left: at most about 16 s in all.
        Task { await server.shutDownGracefully() }
        var deadline = ContinuousClock.now + ServeServer.closeTimeout + .seconds(10)
        while ended.withLock({ $0 }) == nil, ContinuousClock.now < deadline, stopSignalCount.load(ordering: .relaxed) < 2 { usleep(10_000) }
        if ended.withLock({ $0 }) == nil {
            task.cancel()
            deadline = ContinuousClock.now + .seconds(1)
            while ended.withLock({ $0 }) == nil, ContinuousClock.now < deadline { usleep(10_000) }
        }
        fflush(nil)
        FileHandle.standardError.write(Data("tessera: stopped serving\n".utf8))
        // A server is meant to run until it is stopped: that is its
        // normal end, as for watch.
        Foundation.exit(0)
    }

    /// Whether DATABASE is a PostgreSQL URL rather than an SQLite file.
    static func isPostgresURL(_ database: String) -> Bool {
        let lowered = database.lowercased()
        return lowered.hasPrefix("postgres://") || lowered.hasPrefix("postgresql://")
    }

    /// The backend that serves a PostgreSQL table, in builds with the
    /// PostgreSQL trait.
    static func postgresBackend(_ configuration: ServeConfiguration) throws(ServeError) -> any ServeBackend {
        #if PostgreSQL
        try PostgresServeBackend(configuration: configuration)
        #else
        throw ServeError("\(WatchRun.urlWithoutPassword(configuration.databasePath)): this build of tessera has no PostgreSQL support (build it with the PostgreSQL trait)")
        #endif
    }

    /// The hub's failure as the command says it: the option that names a
    /// missing column (`--sort: no such column: …`), status 3 for a
    /// database another process keeps locked, 2 for the others.
    static func commandError(_ error: ServeError) -> CommandError {
        var message = error.description
        for (role, option) in [("section column", "--section"), ("sort column", "--sort"), ("title column", "--title"), ("order column", "--order")] where message.hasPrefix(role + ":") {
            message = option + message.dropFirst(role.count)
        }
        let locked = message.contains("database is locked") || message.contains("database table is locked")
        return CommandError(message, exitCode: locked ? CommandError.lockedExitCode : CommandError.databaseExitCode)
    }

    /// Prints what is served, where, and the token.
    func announce(_ configuration: ServeConfiguration, address: String, token: String?) {
        var what = "serving \(configuration.table) of \(Self.isPostgresURL(configuration.databasePath) ? WatchRun.urlWithoutPassword(configuration.databasePath) : configuration.databasePath)"
        if database == nil { what += " (the demo library: \(photos ?? DemoLibrary.defaultPhotoCount) photos)" }
        if let section = configuration.sectionColumn { what += ", sectioned by \(section)" }
        what += ", sorted by \(configuration.sortColumn)\(configuration.sortDescending ? " (descending)" : "")"
        emit(what)
        if let token {
            emit("address: \(address) (read only without the token)")
            emit("token: \(token) (to edit, open \(address)?token=\(token))")
        } else {
            emit("address: \(address)")
        }
    }

    /// Checks the options and makes the hub's configuration, changing
    /// nothing: with no database, it is the demo library's, returned too
    /// for seeding.
    ///
    /// - Throws: ``CommandError``: usage (64) for options that do not go
    ///   together or are out of range, 2 for a database file that does not
    ///   exist.
    func serveConfiguration() throws(CommandError) -> (ServeConfiguration, DemoLibrary?) {
        func usage(_ message: String) -> CommandError { CommandError(message, exitCode: CommandError.usageExitCode) }
        guard ServeConfiguration.logLevelNames.contains(logLevel.lowercased()) else {
            throw usage("--log-level \(logLevel): expected one of \(ServeConfiguration.logLevelNames.joined(separator: ", "))")
        }
        guard (0...65_535).contains(port) else { throw usage("--port \(port): the port must be from 0 to 65535") }
        guard !host.trimmingCharacters(in: .whitespaces).isEmpty else { throw usage("--host: expected an address, such as 127.0.0.1 or 0.0.0.0") }
        let clients = ServeLimits.maximumClientsRange
        guard clients.contains(maxClients) else {
            throw usage("--max-clients \(maxClients): the number of clients must be from \(clients.lowerBound) to \(clients.upperBound)")
        }
        let listOptions: [(String, Bool)] = [("--table", table != nil), ("--section", section != nil), ("--sort", sort != nil), ("--title", title != nil), ("--order", order != nil)]
        guard let database else {
            if let option = listOptions.first(where: \.1) {
                throw usage("\(option.0) applies to a DATABASE: without one, serve shows the demo library")
            }
            let library = DemoLibrary(photoCount: photos ?? DemoLibrary.defaultPhotoCount)
            guard DemoLibrary.photoCountRange.contains(library.photoCount) else {
                let range = DemoLibrary.photoCountRange
                throw usage("--photos \(library.photoCount): the number of photos must be from \(range.lowerBound) to \(range.upperBound)")
            }
            return (library.configuration(), library)
        }
        if photos != nil { throw usage("--photos applies to the demo library: with a DATABASE, serve shows its --table") }
        let missing = [("--table", table), ("--sort", sort), ("--title", title)].filter { $0.1 == nil }.map(\.0)
        guard missing.isEmpty, let table, let sort, let title else {
            throw usage("serve DATABASE needs --table, --sort and --title: missing \(missing.joined(separator: ", "))")
        }
        for (option, value) in [("--table", table), ("--section", section), ("--title", title), ("--order", order)] {
            if let value, value.trimmingCharacters(in: .whitespaces).isEmpty { throw usage("\(option): expected a name, got an empty one") }
        }
        let (sortColumn, descending) = try Self.sortKey(sort)
        guard Self.isPostgresURL(database) || FileManager.default.fileExists(atPath: database) else {
            throw CommandError("\(database): no such database file", exitCode: CommandError.databaseExitCode)
        }
        let configuration = ServeConfiguration(
            databasePath: database, table: table, sectionColumn: section, sortColumn: sortColumn, sortDescending: descending,
            titleColumn: title, orderColumn: order, pollInterval: .milliseconds(10), outboxCapacity: 32
        )
        return (configuration, nil)
    }

    /// Reads `--sort`: `column`, `column:asc`, `column:desc`, or the same
    /// with a space as `watch` spells it.
    static func sortKey(_ spec: String) throws(CommandError) -> (column: String, descending: Bool) {
        let trimmed = spec.trimmingCharacters(in: .whitespaces)
        var column = trimmed
        var direction: Substring?
        if let colon = trimmed.lastIndex(of: ":") {
            column = String(trimmed[..<colon]).trimmingCharacters(in: .whitespaces)
            direction = trimmed[trimmed.index(after: colon)...]
        } else {
            let words = trimmed.split(whereSeparator: \.isWhitespace)
            if words.count == 2 {
                column = String(words[0])
                direction = words[1]
            } else if words.count > 2 {
                throw CommandError("--sort \"\(spec)\": expected \"column\", \"column:desc\" or \"column desc\"", exitCode: CommandError.usageExitCode)
            }
        }
        guard !column.isEmpty, !column.contains(where: \.isWhitespace) else {
            throw CommandError("--sort \"\(spec)\": expected \"column\", \"column:desc\" or \"column desc\"", exitCode: CommandError.usageExitCode)
        }
        switch direction?.lowercased() {
        case nil, "asc": return (column, false)
        case "desc": return (column, true)
        case let other?: throw CommandError("--sort \"\(spec)\": the order must be asc or desc, not \(other)", exitCode: CommandError.usageExitCode)
        }
    }
}
#else
import ArgumentParser

/// The subcommands that exist only in builds with the live server: none
/// in this one.
let serveSubcommands: [any ParsableCommand.Type] = []
#endif
