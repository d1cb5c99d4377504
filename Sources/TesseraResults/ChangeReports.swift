import Synchronization
import TesseraDiff

/// A results controller's reports as an `AsyncSequence`: one per committed
/// transaction that changed the result, in commit order.
///
/// ```swift
/// for await report in controller.reports {
///     try collectionView.performBatchUpdates(report.changeset)
/// }
/// ```
///
/// A slow consumer loses nothing and the buffer stays bounded: once
/// `bufferLimit` reports wait, each new report is merged into the last
/// waiting one, which then goes from the older result straight to the newest.
/// Its changeset is computed (by ``TesseraDiff/diff(from:to:)``) when it is
/// taken, so it is exact: replaying the reports a consumer receives, in
/// order, always leads to the controller's result. Each sequence is meant
/// for one consumer; ask the controller for another to have two.
public struct ChangeReports<Record: FetchableRecord>: AsyncSequence, Sendable {
    /// A report.
    public typealias Element = ChangeReport<Record>

    let buffer: _ReportBuffer<Record>

    /// The iterator.
    public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(buffer: buffer) }

    /// Takes the reports in order; `nil` once the controller is gone or the
    /// task is cancelled.
    public struct AsyncIterator: AsyncIteratorProtocol {
        let buffer: _ReportBuffer<Record>

        /// The next report, waiting for it if none is pending.
        public mutating func next() async -> ChangeReport<Record>? {
            await buffer.next()
        }
    }
}

/// The reports a consumer has not taken yet.
final class _ReportBuffer<Record: FetchableRecord>: Sendable {
    enum Entry: Sendable {
        case report(ChangeReport<Record>)
        /// Reports merged under load: everything from `old` to `new`.
        case merged(old: FetchedResult<Record>, new: FetchedResult<Record>)

        var old: FetchedResult<Record> {
            switch self {
            case let .report(report): return report.old
            case let .merged(old, _): return old
            }
        }

        /// The report, computing a merged one's changeset.
        ///
        /// - Complexity: O(1) for a report, O(*n*) for a merged one.
        var report: ChangeReport<Record> {
            switch self {
            case let .report(report): return report
            case let .merged(old, new):
                do {
                    return ChangeReport(changeset: try diff(from: old.snapshot, to: new.snapshot), old: old, new: new)
                } catch {
                    // Results never hold two records with one key.
                    preconditionFailure("a result held a repeated key: \(error)")
                }
            }
        }
    }

    struct State: Sendable {
        var pending: [Entry] = []
        var finished = false
        var waiter: CheckedContinuation<ChangeReport<Record>?, Never>?
    }

    let limit: Int
    private let state = Mutex(State())

    init(limit: Int) {
        self.limit = Swift.max(1, limit)
    }

    /// Hands a report to the consumer, or keeps it.
    func yield(_ report: ChangeReport<Record>) {
        let waiter = state.withLock { state -> CheckedContinuation<ChangeReport<Record>?, Never>? in
            guard !state.finished else { return nil }
            if let waiter = state.waiter, state.pending.isEmpty {
                state.waiter = nil
                return waiter
            }
            if state.pending.count >= limit, let last = state.pending.popLast() {
                state.pending.append(.merged(old: last.old, new: report.new))
            } else {
                state.pending.append(.report(report))
            }
            return nil
        }
        waiter?.resume(returning: report)
    }

    /// No more reports will come; a waiting consumer gets `nil` once the
    /// pending ones are taken.
    func finish() {
        let waiter = state.withLock { state -> CheckedContinuation<ChangeReport<Record>?, Never>? in
            state.finished = true
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(returning: nil)
    }

    /// The number of reports waiting (merged ones count once).
    var pendingCount: Int { state.withLock { $0.pending.count } }

    func next() async -> ChangeReport<Record>? {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<ChangeReport<Record>?, Never>) in
                let ready = state.withLock { state -> Entry?? in
                    if !state.pending.isEmpty { return .some(state.pending.removeFirst()) }
                    if state.finished || Task.isCancelled { return .some(nil) }
                    state.waiter = continuation
                    return nil
                }
                if let ready { continuation.resume(returning: ready?.report) }
            }
        } onCancel: {
            let waiter = state.withLock { state -> CheckedContinuation<ChangeReport<Record>?, Never>? in
                defer { state.waiter = nil }
                return state.waiter
            }
            waiter?.resume(returning: nil)
        }
    }
}
