import Dispatch

/// Whether the running code is on the main dispatch queue: the main
/// actor's executor on Linux, so code there holds the main actor whether or
/// not the compiler knows it (a nonisolated function called from the main
/// actor, say).
///
/// It asks the queue itself, not the thread: after top-level code's first
/// `await`, the main queue's jobs run on a worker thread (`dispatch_main()`
/// ends the main thread), while before it the main thread runs the main
/// queue. A marker is set on the main queue, under a key only this type
/// knows; `DispatchQueue.getSpecific(key:)` finds it exactly when the
/// current queue is the main queue, or a queue that targets it (whose work
/// runs as the main queue's), or inside `DispatchQueue.main.sync` — each
/// excludes every other job of the main queue, as the main actor's
/// isolation does.
enum _MainQueue {
    // The marker is set once, by the `static let`'s thread-safe
    // initializer, before any read.
    private static let key: DispatchSpecificKey<Bool> = {
        let key = DispatchSpecificKey<Bool>()
        DispatchQueue.main.setSpecific(key: key, value: true)
        return key
    }()

    /// Whether the running code is on the main queue.
    static var isCurrent: Bool {
        DispatchQueue.getSpecific(key: key) ?? false
    }
}
