/// The `AsyncStream`s a controller hands out, each fed every later report.
/// Not thread-safe, like the controllers that own it.
final class ReportStreams<Report: Sendable> {
    private var continuations: [Int: AsyncStream<Report>.Continuation] = [:]
    private var nextKey = 0

    /// A new stream that receives every later report.
    func makeStream() -> AsyncStream<Report> {
        let (stream, continuation) = AsyncStream<Report>.makeStream(bufferingPolicy: .unbounded)
        continuations[nextKey] = continuation
        nextKey += 1
        return stream
    }

    /// Gives a report to every stream.
    func yield(_ report: Report) {
        for continuation in continuations.values { continuation.yield(report) }
    }

    deinit {
        for continuation in continuations.values { continuation.finish() }
    }
}
