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
/// Not cancelled, and not a child task: a service group cancelled while
/// its merged streams wait for their next element can deadlock in
/// swift-async-algorithms 1.1.4, which a CI run met once in this helper;
/// a graceful shutdown lets the services end. The group runs in an
/// unstructured task, which prefers no task executor: as a child of a
/// test on `.ownThreads` its tasks inherited that trait's executor, and
/// switching such a task takes its status lock. A full run beside two
/// CPU hogs then hung for good when the group cancelled its own tasks at
/// the end of a graceful shutdown: that cancellation holds a task's
/// status lock and waits for the merge's lock, whose holder, switching
/// executors, waited for the status lock (two runs in five, stacks taken
/// with gdb).
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
    let running = Task { try await services.run() }
    var next = ports.makeAsyncIterator()
    let result: T
    do {
        let port = try #require(await next.next())
        result = try await body(port)
    } catch {
        await services.triggerGracefulShutdown()
        _ = try? await running.value
        throw error
    }
    await services.triggerGracefulShutdown()
    try await running.value
    return result
}
