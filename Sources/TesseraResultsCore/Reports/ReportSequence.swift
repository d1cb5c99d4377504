
/// A controller's reports as an `AsyncSequence`: one per committed
/// transaction (or batch of edits) that changed the result, in order.
///
/// ```swift
/// for await report in controller.reports {
///     try collectionView.performBatchUpdates(report.changeset)
/// }
/// ```
///
/// A slow consumer loses nothing and the buffer stays bounded: once
/// `bufferLimit` reports wait (64 unless the controller's
/// `reports(bufferLimit:)` says otherwise), each new report is merged into
/// the last waiting one, which then goes from the older result straight to
/// the newest. Work a merge needs the whole result for — a changeset — is
/// done when the merged report is taken, so the producer never waits, and
/// the merged report is exact: replaying the reports a consumer receives,
/// in order, always leads to the controller's result. Each sequence is
/// meant for one consumer; ask the controller again for another.
public struct ReportSequence<Report: Sendable>: AsyncSequence, Sendable {
    /// A report.
    public typealias Element = Report

    let buffer: _ReportBuffer<Report>

    /// The iterator.
    public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(buffer: buffer) }

    /// Takes the reports in order; `nil` once the controller is gone and
    /// every waiting report is taken, or once the task is cancelled.
    public struct AsyncIterator: AsyncIteratorProtocol {
        let buffer: _ReportBuffer<Report>

        /// The next report, waiting for it if none is pending.
        public mutating func next() async -> Report? {
            await buffer.next()
        }
    }
}

/// A ``FetchedResultsController``'s reports.
public typealias ChangeReports<Record: FetchableRecord> = ReportSequence<ChangeReport<Record>>

/// How reports of one kind merge under load.
struct _ReportMerging<Report: Sendable>: Sendable {
    /// One report for two consecutive ones, made cheaply (no changeset).
    var merge: @Sendable (_ earlier: Report, _ later: Report) -> Report
    /// A merged report made whole, when the consumer takes it.
    var resolve: @Sendable (Report) -> Report
    /// Whether a report starts from a change the view already shows (see
    /// <doc:UserDrivenChanges>): it is never merged into the report before
    /// it, whose consumer has not applied that change yet.
    var startsUserDrivenStep: @Sendable (Report) -> Bool = { _ in false }
}

/// The reports a consumer has not taken yet.
final class _ReportBuffer<Report: Sendable>: Sendable {
    struct State: Sendable {
        var pending: [(report: Report, merged: Bool)] = []
        var finished = false
        var waiter: CheckedContinuation<Report?, Never>?
    }

    let limit: Int
    let merging: _ReportMerging<Report>
    private let state = PThreadMutex(State())

    init(limit: Int, merging: _ReportMerging<Report>) {
        self.limit = Swift.max(1, limit)
        self.merging = merging
    }

    /// Hands a report to the waiting consumer, or keeps it.
    func yield(_ report: Report) {
        let waiter = state.withLock { state -> CheckedContinuation<Report?, Never>? in
            guard !state.finished else { return nil }
            if let waiter = state.waiter, state.pending.isEmpty {
                state.waiter = nil
                return waiter
            }
            if state.pending.count >= limit, !merging.startsUserDrivenStep(report), let last = state.pending.popLast() {
                state.pending.append((merging.merge(last.report, report), true))
            } else {
                state.pending.append((report, false))
            }
            return nil
        }
        waiter?.resume(returning: report)
    }

    /// No more reports will come; a waiting consumer gets `nil` once the
    /// pending ones are taken.
    func finish() {
        let waiter = state.withLock { state -> CheckedContinuation<Report?, Never>? in
            state.finished = true
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(returning: nil)
    }

    func next() async -> Report? {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Report?, Never>) in
                let ready = state.withLock { state -> (report: Report, merged: Bool)?? in
                    if !state.pending.isEmpty { return .some(state.pending.removeFirst()) }
                    // One consumer a sequence: a second one waiting at the
                    // same time ends at once rather than strand the first.
                    if state.finished || Task.isCancelled || state.waiter != nil { return .some(nil) }
                    state.waiter = continuation
                    return nil
                }
                if let ready {
                    continuation.resume(returning: ready.map { $0.merged ? merging.resolve($0.report) : $0.report })
                }
            }
        } onCancel: {
            let waiter = state.withLock { state -> CheckedContinuation<Report?, Never>? in
                defer { state.waiter = nil }
                return state.waiter
            }
            waiter?.resume(returning: nil)
        }
    }
}

/// The sequences a controller hands out, each fed every later report.
/// Not thread-safe, like the controllers that own it.
final class _ReportHub<Report: Sendable> {
    private final class Weak {
        weak var buffer: _ReportBuffer<Report>?
        init(_ buffer: _ReportBuffer<Report>) { self.buffer = buffer }
    }

    private let merging: _ReportMerging<Report>
    private var buffers: [Weak] = []

    init(merging: _ReportMerging<Report>) {
        self.merging = merging
    }

    /// A new sequence that receives every later report.
    func makeSequence(limit: Int) -> ReportSequence<Report> {
        let buffer = _ReportBuffer(limit: limit, merging: merging)
        buffers.removeAll { $0.buffer == nil }
        buffers.append(Weak(buffer))
        return ReportSequence(buffer: buffer)
    }

    /// Gives a report to every live sequence.
    func yield(_ report: Report) {
        buffers.removeAll { $0.buffer == nil }
        for box in buffers { box.buffer?.yield(report) }
    }

    deinit {
        for box in buffers { box.buffer?.finish() }
    }
}
