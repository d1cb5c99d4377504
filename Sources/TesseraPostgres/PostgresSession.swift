#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Logging
import NIOCore
import NIOPosix
import PostgresNIO
import TesseraResultsCore

/// Where a store connects: parsed from a `postgres://` URL.
struct PostgresEndpoint: Sendable, CustomStringConvertible {
    var host: String
    var port: Int
    var user: String
    var password: String?
    var database: String
    /// TLS: off on loopback unless `sslmode` says otherwise; preferred
    /// elsewhere.
    var tls: TLSChoice
    /// The longest a session waits for the answer to one statement (see
    /// ``PostgresSession/query(_:_:request:)``).
    var roundTripLimit: Duration = .seconds(600)
    /// The longest making a connection may take, TCP, TLS and the
    /// server's authentication (`connect_timeout=` in the URL, whole
    /// seconds; 30 by default: room for a server, or a client, that a busy
    /// machine holds up for a while).
    var connectTimeout: Duration = .seconds(30)

    /// The round trips the store's sessions waited for inside a Swift
    /// task on a thread Tessera did not start (see ``PostgresTaskWaits``).
    let taskWaits = PostgresTaskWaits()

    /// The longest `connect_timeout=` a URL may ask for, in seconds.
    static let longestConnectTimeout = 3_600

    enum TLSChoice: Sendable { case disable, prefer, require }

    /// `user@host:port/database`, never the password.
    var description: String { "\(user)@\(host):\(port)/\(database)" }

    /// Reads `postgres://user[:password]@host[:port]/database[?sslmode=…&connect_timeout=…]`
    /// (`postgresql://` too).
    ///
    /// - Throws: ``PostgresStoreError`` of kind `invalidURL`, naming what is wrong.
    init(url: String, roundTripLimit: Duration = .seconds(600)) throws(PostgresStoreError) {
        guard roundTripLimit > .zero else {
            throw PostgresStoreError(kind: .invalidURL, request: "connect", message: "the round-trip limit must be positive, not \(roundTripLimit)")
        }
        self.roundTripLimit = roundTripLimit
        func invalid(_ problem: String) -> PostgresStoreError {
            PostgresStoreError(kind: .invalidURL, request: "read the URL \(Self.redacted(url))", message: problem)
        }
        guard let components = URLComponents(string: url) else { throw invalid("it is not a URL") }
        guard let scheme = components.scheme?.lowercased(), scheme == "postgres" || scheme == "postgresql" else {
            throw invalid("it must start with postgres:// or postgresql://")
        }
        guard let host = components.host, !host.isEmpty else { throw invalid("it names no host") }
        self.host = host
        let port = components.port ?? 5432
        guard (1...65535).contains(port) else { throw invalid("port \(port) is out of range") }
        self.port = port
        user = components.user.flatMap { $0.removingPercentEncoding } ?? "postgres"
        password = components.password.flatMap { $0.removingPercentEncoding }
        let path = components.path.hasPrefix("/") ? String(components.path.dropFirst()) : components.path
        database = path.removingPercentEncoding ?? path
        if database.isEmpty { database = user }
        guard !database.contains("/") else { throw invalid("the database name holds a '/'") }
        let loopback = ["127.0.0.1", "localhost", "::1", "[::1]"].contains(host.lowercased())
        tls = loopback ? .disable : .prefer
        for item in components.queryItems ?? [] {
            switch (item.name, item.value) {
            case ("sslmode", "disable"?): tls = .disable
            case ("sslmode", "prefer"?), ("sslmode", "allow"?): tls = .prefer
            case ("sslmode", "require"?): tls = .require
            case ("sslmode", let value): throw invalid("sslmode \(value ?? "") is not one of disable, prefer, require")
            case ("connect_timeout", let value):
                // libpq's name, in whole seconds; unlike libpq, 0 or less
                // ("wait for ever") is refused (every wait here is
                // bounded), and 1 means 1 s.
                guard let text = value, let seconds = Int(text), (1...Self.longestConnectTimeout).contains(seconds) else {
                    throw invalid("connect_timeout '\(value ?? "")' is not a whole number of seconds from 1 to \(Self.longestConnectTimeout)")
                }
                connectTimeout = .seconds(seconds)
            default: throw invalid("unknown parameter \(item.name) (only sslmode and connect_timeout are read)")
            }
        }
    }

    /// The URL with its password hidden.
    ///
    /// Read from the text itself, not parsed: a URL that does not parse (a
    /// `#` or `/` in the password) is hidden too. The user's part ends at
    /// the last `@`, and the password starts after its first `:`.
    /// A `password=` in the query is hidden too.
    static func redacted(_ url: String) -> String {
        var url = hidingQueryPassword(url)
        guard let scheme = url.range(of: "://") else { return url }
        let rest = url[scheme.upperBound...]
        guard let at = rest.lastIndex(of: "@"), let colon = rest[..<at].firstIndex(of: ":") else { return url }
        url = String(url[...colon]) + "***" + String(url[at...])
        return url
    }

    /// The URL with the value of every `password=` of its query as `***`.
    static func hidingQueryPassword(_ url: String) -> String {
        guard let question = url.firstIndex(of: "?") else { return url }
        let items = url[url.index(after: question)...].split(separator: "&", omittingEmptySubsequences: false).map { item -> String in
            item.lowercased().hasPrefix("password=") ? "password=***" : String(item)
        }
        return String(url[...question]) + items.joined(separator: "&")
    }

    func configuration() throws(PostgresStoreError) -> PostgresConnection.Configuration {
        let tlsSetting: PostgresConnection.Configuration.TLS
        do {
            switch tls {
            case .disable: tlsSetting = .disable
            case .prefer: tlsSetting = .prefer(try .init(configuration: .makeClientConfiguration()))
            case .require: tlsSetting = .require(try .init(configuration: .makeClientConfiguration()))
            }
        } catch {
            throw PostgresStoreError(kind: .connection, request: "set up TLS for \(self)", message: "\(error)")
        }
        var configuration = PostgresConnection.Configuration(
            host: host, port: port, username: user, password: password, database: database, tls: tlsSetting
        )
        configuration.options.connectTimeout = .nanoseconds(PostgresSession.nanoseconds(connectTimeout))
        return configuration
    }
}

/// How many times a store's sessions waited for the server inside a Swift
/// task on a thread that Tessera did not start (``OwnedThread``): on Swift
/// concurrency's cooperative pool, or on an executor of the app's. Each
/// such wait holds a thread that other tasks need for the round trip.
///
/// Tessera's own tasks never do: the change feed and its stream read on
/// threads of their own, background loads and the live list's edits on
/// workers, deliveries to a controller's home on a dispatch thread, and
/// the live list's hub on its executor's thread. A call an app makes
/// from a task on the pool (`performFetch()` from a default actor, say)
/// waits there, as it would for a disk.
final class PostgresTaskWaits: Sendable {
    private let count = PThreadMutex(0)

    /// The waits so far.
    var value: Int { count.withLock { $0 } }

    /// Waits for `future`, counting the wait when it is one inside a task
    /// on a thread Tessera did not start.
    func wait<Value: Sendable>(for future: EventLoopFuture<Value>) throws -> Value {
        if !OwnedThread.isCurrent, withUnsafeCurrentTask(body: { $0 != nil }) {
            count.withLock { $0 += 1 }
        }
        return try future.wait()
    }
}

/// A statement sent, whose answer has not been read yet (see
/// ``PostgresSession/send(_:_:request:)``).
struct PostgresPendingQuery: Sendable {
    /// Fails with a ``PostgresStoreError`` only.
    let answer: EventLoopFuture<PostgresRows>
    let request: String
    /// Where a wait for the answer is counted.
    let waits: PostgresTaskWaits

    /// Waits for the answer (on a thread that is not the event loop's; see
    /// ``PostgresSession``).
    ///
    /// - Throws: ``PostgresStoreError`` naming the request.
    func rows() throws(PostgresStoreError) -> PostgresRows {
        do {
            return try waits.wait(for: answer)
        } catch let failure as PostgresStoreError {
            throw failure
        } catch {
            throw PostgresStoreError(error, request: request)
        }
    }

    /// Hands the answer (`nil` for a failure) to `body`, on the event loop.
    func whenAnswered(_ body: @escaping @Sendable (PostgresRows?) -> Void) {
        answer.whenComplete { result in
            switch result {
            case let .success(rows): body(rows)
            case .failure: body(nil)
            }
        }
    }
}

/// Rows a query returned, with their values as ``TesseraSQLite/DatabaseValue``s.
struct PostgresRows {
    /// The column names and type OIDs, in order (empty when no row came).
    var columns: [(name: String, type: UInt32)] = []
    var rows: [[DatabaseValue]] = []
}

/// One connection to the server, used synchronously by one caller at a
/// time: each call blocks the calling thread until the server answers (on
/// a thread that is not one of the event loop's).
///
/// The answer comes on NIO's event loop, never through Swift concurrency's
/// cooperative pool, so a wait can never be one for work that needs the
/// pool. Every wait is bounded (``query(_:_:request:timeout:)``, the
/// endpoint's round-trip limit, its connect timeout). Tessera's own work
/// waits on threads it runs (``PostgresTaskWaits``); a call made from a
/// task on the pool (a controller's fetch from a default actor of the
/// app's) holds its thread for the round trip, and is counted.
final class PostgresSession: @unchecked Sendable {
    let connection: PostgresConnection
    let endpoint: PostgresEndpoint
    private static let logger = Logger(label: "tessera.postgres")
    private static let ids = PThreadMutex(0)

    private init(connection: PostgresConnection, endpoint: PostgresEndpoint) {
        self.connection = connection
        self.endpoint = endpoint
    }

    /// Connects, and names the session `application_name` (so that a
    /// server's `pg_stat_activity` shows whose it is).
    static func connect(_ endpoint: PostgresEndpoint, applicationName: String) throws(PostgresStoreError) -> PostgresSession {
        let configuration = try endpoint.configuration()
        let id = ids.withLock { value -> Int in
            value += 1
            return value
        }
        let connection: PostgresConnection
        do {
            // The driver gives up after the endpoint's connect timeout
            // (TCP, TLS, startup); the bound here is a backstop behind it.
            connection = try endpoint.taskWaits.wait(for: bounded(
                PostgresConnection.connect(on: MultiThreadedEventLoopGroup.singleton.next(), configuration: configuration, id: id, logger: logger),
                within: endpoint.connectTimeout + .seconds(5), late: { connection in connection.close().whenComplete { _ in } }
            ))
        } catch let late as TimedOut {
            throw PostgresStoreError(kind: .connection, request: "connect to \(endpoint)", message: "the server did not complete the connection within \(late.limit)")
        } catch {
            var failure = PostgresStoreError(error, request: "connect to \(endpoint)")
            if failure.kind == .server { failure.kind = .connection }
            throw failure
        }
        let session = PostgresSession(connection: connection, endpoint: endpoint)
        session.failAnswersOnClose()
        _ = try session.query("SELECT set_config('application_name', $1, false)", [.text(applicationName)], request: "name the session")
        return session
    }

    var isClosed: Bool { connection.isClosed }

    /// The server did not answer in time.
    private struct TimedOut: Error {
        let limit: Duration
    }

    /// `future`, or a failure (``TimedOut``) once `limit` has passed
    /// without its result; a result that comes later goes to `late`.
    private static func bounded<T: Sendable>(
        _ future: EventLoopFuture<T>, within limit: Duration, late: @escaping @Sendable (T) -> Void
    ) -> EventLoopFuture<T> {
        let answer = future.eventLoop.makePromise(of: T.self)
        let timer = future.eventLoop.scheduleTask(in: .nanoseconds(nanoseconds(limit))) {
            answer.fail(TimedOut(limit: limit))
        }
        future.whenComplete { result in
            timer.cancel()
            // On the event loop: the timer has either run or never will.
            answer.futureResult.whenFailure { error in
                if error is TimedOut, case let .success(value) = result { late(value) }
            }
            answer.completeWith(result)
        }
        return answer.futureResult
    }

    /// A duration in nanoseconds, for NIO (at most about 292 years).
    static func nanoseconds(_ duration: Duration) -> Int64 {
        let components = duration.components
        return max(0, min(components.seconds, Int64.max / 1_000_000_000 - 1) * 1_000_000_000 + components.attoseconds / 1_000_000_000)
    }

    /// Runs one statement (parameters `$1`, `$2`…, each sent as text for
    /// the server to type) and returns its rows, waiting at most the
    /// endpoint's ``PostgresEndpoint/roundTripLimit`` for the answer (see
    /// ``query(_:_:request:timeout:)``).
    ///
    /// - Throws: ``PostgresStoreError`` naming `request`.
    @discardableResult
    func query(_ sql: String, _ arguments: [DatabaseValue] = [], request: String) throws(PostgresStoreError) -> PostgresRows {
        try query(sql, arguments, request: request, timeout: endpoint.roundTripLimit)
    }

    /// Sends one statement and returns at once: its answer is read later
    /// (``PostgresPendingQuery/rows()``), or handed to a callback on the
    /// event loop (``PostgresPendingQuery/whenAnswered(_:)``), so that the
    /// caller can send another on another session meanwhile.
    func send(_ sql: String, _ arguments: [DatabaseValue] = [], request: String) -> PostgresPendingQuery {
        // A query sent on a connection the server has ended may never be
        // answered (postgres-nio leaves its future pending): fail at once.
        if connection.isClosed {
            return PostgresPendingQuery(
                answer: connection.eventLoop.makeFailedFuture(PostgresStoreError(kind: .serverGone, request: request, message: "the connection has ended")),
                request: request, waits: endpoint.taskWaits
            )
        }
        var bindings = PostgresBindings(capacity: arguments.count)
        for argument in arguments { bindings.append(argument) }
        let answer = answer(to: connection.query(PostgresQuery(unsafeSQL: sql, binds: bindings), logger: Self.logger))
            .map { Self.rows($0.rows) }
            .flatMapErrorThrowing { error in throw Self.failure(error, request: request) }
        return PostgresPendingQuery(answer: answer, request: request, waits: endpoint.taskWaits)
    }

    /// Ends the transaction under way without waiting for the server, and
    /// then hands the session to `done` (with `true` when it committed;
    /// the session is closed otherwise, and when the server has not
    /// answered within the endpoint's round-trip limit). `done` runs on
    /// the event loop.
    func commitInBackground(request: String, then done: @escaping @Sendable (_ committed: Bool) -> Void) {
        send("COMMIT", request: request, timeout: endpoint.roundTripLimit).whenAnswered { [self] result in
            let committed = result != nil && !isClosed
            if !committed { close() }
            done(committed)
        }
    }

    /// Rows as ``PostgresRows``.
    private static func rows(_ result: some Collection<PostgresRow>) -> PostgresRows {
        var rows = PostgresRows()
        rows.rows.reserveCapacity(result.count)
        for row in result {
            if rows.columns.isEmpty {
                rows.columns = row.map { ($0.columnName, $0.dataType.rawValue) }
            }
            var values: [DatabaseValue] = []
            values.reserveCapacity(rows.columns.count)
            for cell in row { values.append(PostgresValue.databaseValue(cell)) }
            rows.rows.append(values)
        }
        return rows
    }

    /// A promise failed when the connection closes without its answer.
    private protocol FailablePromise {
        func fail(_ error: any Error)
    }

    private struct PendingAnswer<Answer: Sendable>: FailablePromise {
        let promise: EventLoopPromise<Answer>
        func fail(_ error: any Error) { promise.fail(error) }
    }

    /// The connection closed, and the query sent on it had no answer.
    private struct SessionEnded: Error {
        let message = "the connection ended before the server answered"
    }

    /// The answers queries wait for, failed once the connection closes
    /// without them.
    private struct WaitingAnswers {
        var closed = false
        var next = 0
        var promises: [Int: any FailablePromise] = [:]
    }

    private let waiting = PThreadMutex(WaitingAnswers())

    /// Fails every answer still awaited a moment after the connection
    /// closes. Called once, when the session is made.
    private func failAnswersOnClose() {
        let eventLoop = connection.eventLoop
        connection.closeFuture.whenComplete { [waiting] _ in
            waiting.withLock { $0.closed = true }
            // The query's own answer, or the error the server ended the
            // session with, comes first when it comes.
            eventLoop.scheduleTask(in: .milliseconds(250)) {
                let promises = waiting.withLock { state in
                    defer { state.promises = [:] }
                    return Array(state.promises.values)
                }
                for promise in promises { promise.fail(SessionEnded()) }
            }
        }
    }

    /// `query`'s answer, or a failure once the connection has closed
    /// without one.
    ///
    /// The driver drops a query written just as the connection closes (the
    /// server ended the session, or the network did), and never completes
    /// its future: a thread waiting on it would wait for ever.
    private func answer<Answer: Sendable>(to query: EventLoopFuture<Answer>) -> EventLoopFuture<Answer> {
        let eventLoop = connection.eventLoop
        let answer = eventLoop.makePromise(of: Answer.self)
        let (id, closed) = waiting.withLock { state in
            state.next += 1
            state.promises[state.next] = PendingAnswer(promise: answer)
            return (state.next, state.closed)
        }
        query.whenComplete { [waiting] result in
            waiting.withLock { _ = $0.promises.removeValue(forKey: id) }
            // A promise completed twice keeps its first result.
            answer.completeWith(result)
        }
        if closed {
            eventLoop.scheduleTask(in: .milliseconds(250)) { [waiting] in
                waiting.withLock { _ = $0.promises.removeValue(forKey: id) }
                answer.fail(SessionEnded())
            }
        }
        return answer.futureResult
    }

    /// Runs one statement, as ``query(_:_:request:)`` does, and closes the
    /// session when the server has not answered within `timeout`: the
    /// call then fails with ``PostgresStoreError/Kind/serverGone``. For a
    /// round trip that must not wait forever on a server, or a network,
    /// that no longer answers (a statement the server itself cancels has
    /// `statement_timeout`).
    ///
    /// - Throws: ``PostgresStoreError`` naming `request`.
    @discardableResult
    func query(_ sql: String, _ arguments: [DatabaseValue] = [], request: String, timeout: Duration) throws(PostgresStoreError) -> PostgresRows {
        try send(sql, arguments, request: request, timeout: timeout).rows()
    }

    /// Sends one statement, as ``send(_:_:request:)`` does, and closes the
    /// session when the server has not answered within `timeout`: the
    /// answer is then a ``PostgresStoreError/Kind/serverGone`` failure.
    func send(_ sql: String, _ arguments: [DatabaseValue] = [], request: String, timeout: Duration) -> PostgresPendingQuery {
        PostgresPendingQuery(answer: watched(send(sql, arguments, request: request).answer, request: request, timeout: timeout), request: request, waits: endpoint.taskWaits)
    }

    /// `answer`, failed with a ``PostgresStoreError`` (any error, mapped),
    /// and the session closed, when it has not come within `timeout`.
    private func watched<Answer: Sendable>(_ answer: EventLoopFuture<Answer>, request: String, timeout: Duration) -> EventLoopFuture<Answer> {
        let expired = PThreadMutex(false)
        let watchdog = connection.eventLoop.scheduleTask(in: .nanoseconds(Self.nanoseconds(timeout))) { [weak self] in
            expired.withLock { $0 = true }
            self?.close()
        }
        return answer
            .always { _ in watchdog.cancel() }
            .flatMapErrorThrowing { error in
                guard expired.withLock({ $0 }) else { throw Self.failure(error, request: request) }
                throw PostgresStoreError(
                    kind: .serverGone, request: request,
                    message: "the server did not answer within \(timeout), and the connection was closed"
                )
            }
    }

    /// `error` as a ``PostgresStoreError`` naming `request`.
    private static func failure(_ error: any Error, request: String) -> PostgresStoreError {
        if let failure = error as? PostgresStoreError { return failure }
        if let ended = error as? SessionEnded {
            return PostgresStoreError(kind: .serverGone, request: request, message: ended.message)
        }
        return PostgresStoreError(error, request: request)
    }

    /// Prepares `sql` (a statement without arguments) on this session,
    /// unless it is prepared already: the server parses and plans it once,
    /// and ``sendPrepared(_:request:timeout:)`` then only executes it. For a
    /// statement a session runs over and over (a change-capture round's).
    /// At most ``preparedLimit`` are kept per session; past it the oldest
    /// is let go. Waits at most the endpoint's round-trip limit.
    ///
    /// - Throws: ``PostgresStoreError`` naming `request`.
    func prepare(_ sql: String, request: String) throws(PostgresStoreError) {
        let known = prepared.withLock { kept -> Bool in
            guard kept.statements[sql] != nil else { return false }
            // The last used is let go last.
            if let index = kept.order.firstIndex(of: sql) { kept.order.append(kept.order.remove(at: index)) }
            return true
        }
        if known { return }
        let made = connection.isClosed
            ? connection.eventLoop.makeFailedFuture(PostgresStoreError(kind: .serverGone, request: request, message: "the connection has ended"))
            : answer(to: connection.prepare(query: sql))
        let statement: PreparedQuery
        do {
            statement = try endpoint.taskWaits.wait(for: watched(made, request: request, timeout: endpoint.roundTripLimit))
        } catch {
            throw Self.failure(error, request: request)
        }
        let evicted = prepared.withLock { kept -> PreparedQuery? in
            kept.statements[sql] = statement
            kept.order.append(sql)
            guard kept.order.count > Self.preparedLimit else { return nil }
            return kept.statements.removeValue(forKey: kept.order.removeFirst())
        }
        evicted?.deallocate().whenComplete { _ in }
    }

    /// Sends the statement ``prepare(_:request:)`` prepared, as
    /// ``send(_:_:request:timeout:)`` sends one: its answer is read later.
    /// A statement not prepared fails.
    func sendPrepared(_ sql: String, request: String, timeout: Duration) -> PostgresPendingQuery {
        let rows: EventLoopFuture<PostgresRows>
        if connection.isClosed {
            rows = connection.eventLoop.makeFailedFuture(PostgresStoreError(kind: .serverGone, request: request, message: "the connection has ended"))
        } else if let statement = prepared.withLock({ $0.statements[sql] }) {
            rows = answer(to: statement.execute()).map { Self.rows($0) }
        } else {
            rows = connection.eventLoop.makeFailedFuture(PostgresStoreError(kind: .server, request: request, message: "the statement was not prepared"))
        }
        return PostgresPendingQuery(answer: watched(rows, request: request, timeout: timeout), request: request, waits: endpoint.taskWaits)
    }

    /// The most statements ``prepare(_:request:)`` keeps prepared on
    /// one session.
    static let preparedLimit = 8

    /// The statements prepared on this session, by text, oldest first.
    private struct Prepared {
        var statements: [String: PreparedQuery] = [:]
        var order: [String] = []
    }

    private let prepared = PThreadMutex(Prepared())

    /// Runs statements that return nothing, one after another.
    func execute(_ statements: String..., request: String) throws(PostgresStoreError) {
        for sql in statements { try query(sql, request: request) }
    }

    private let closing = PThreadMutex(false)

    /// Closes the connection (without waiting for the server). Once.
    ///
    /// The connection is kept until its channel has closed: postgres-nio
    /// asserts that a connection it releases is closed, and a session
    /// released just after `close()` would otherwise release it first.
    func close() {
        let first = closing.withLock { closing -> Bool in
            defer { closing = true }
            return !closing
        }
        guard first else { return }
        // The connection must outlive its closing (postgres-nio checks
        // that a connection is closed when it goes).
        let connection = connection
        connection.close().whenComplete { _ in withExtendedLifetime(connection) {} }
    }

    deinit {
        close()
    }
}
