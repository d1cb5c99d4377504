import Hummingbird
import HummingbirdWebSocket
import TesseraLiveHub
import TesseraLiveProtocol
import TesseraServe
import Testing

/// Runs a Hummingbird application on `router` (which has `list` mounted),
/// with `list` as one of its services unless `runsList` is false, on a
/// free port of 127.0.0.1 for the body's length: the body gets the port;
/// then the application is cancelled and waited for.
func withMountedApplication<Context: RequestContext & WebSocketRequestContext, T: Sendable>(
    router: Router<Context>, list: LiveList, runsList: Bool = true, _ body: (Int) async throws -> T
) async throws -> T {
    let (ports, listening) = AsyncStream.makeStream(of: Int.self)
    var application = Application(
        router: router,
        server: .http1WebSocketUpgrade(webSocketRouter: router),
        configuration: ApplicationConfiguration(address: .hostname("127.0.0.1", port: 0)),
        onServerRunning: { channel in listening.yield(channel.localAddress?.port ?? 0) }
    )
    if runsList { application.addServices(list) }
    let app = application
    return try await withThrowingTaskGroup(of: Void.self) { group in
        group.addTask { try await app.runService(gracefulShutdownSignals: []) }
        var next = ports.makeAsyncIterator()
        let port = try #require(await next.next())
        let result: T
        do {
            result = try await body(port)
        } catch {
            group.cancelAll()
            throw error
        }
        group.cancelAll()
        try await group.waitForAll()
        return result
    }
}
