import Hummingbird
import HummingbirdWebSocket
import Logging
import ServiceLifecycle
import TesseraLiveHub
import TesseraLiveProtocol
import TesseraServe
import Testing

/// Runs a Hummingbird application on `router` (which has `list` mounted),
/// with `list` as one of its services unless `runsList` is false, on a
/// free port of 127.0.0.1 for the body's length: the body gets the port;
/// then the application is shut down gracefully and waited for.
///
/// Not cancelled: a service group cancelled while its merged streams wait
/// for their next element can deadlock in swift-async-algorithms 1.1.4
/// (its merge holds its lock while a waiting task is suspended, and task
/// cancellation takes the two locks in the other order), which a CI run
/// met once in this helper; a graceful shutdown lets the services end.
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
    var logger = Logger(label: "withMountedApplication")
    logger.logLevel = .critical
    let services = ServiceGroup(configuration: .init(services: [application], gracefulShutdownSignals: [], logger: logger))
    return try await withThrowingTaskGroup(of: Void.self) { group in
        group.addTask { try await services.run() }
        var next = ports.makeAsyncIterator()
        let port = try #require(await next.next())
        let result: T
        do {
            result = try await body(port)
        } catch {
            await services.triggerGracefulShutdown()
            try? await group.waitForAll()
            throw error
        }
        await services.triggerGracefulShutdown()
        try await group.waitForAll()
        return result
    }
}
