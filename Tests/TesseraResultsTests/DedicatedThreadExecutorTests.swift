import Synchronization
import Testing
import TesseraResultsCore

/// An actor whose jobs run on a ``DedicatedThreadExecutor``.
private actor OnItsThread {
    let executor: DedicatedThreadExecutor
    nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }
    private(set) var order: [Int] = []
    /// Jobs of the actor running at once, most seen.
    private let running = Atomic<Int>(0)
    private(set) var mostAtOnce = 0

    init(_ executor: DedicatedThreadExecutor) {
        self.executor = executor
    }

    /// Records `step`, and whether it ran on a thread of Tessera's own.
    func record(_ step: Int) -> Bool {
        let now = running.add(1, ordering: .relaxed).newValue
        mostAtOnce = max(mostAtOnce, now)
        order.append(step)
        // Some work, so that jobs that ran at once would overlap.
        var sum = 0
        for value in 0..<2_000 { sum &+= value &* step }
        running.subtract(1, ordering: .relaxed)
        return OwnedThread.isCurrent && sum >= 0
    }
}

@Suite("DedicatedThreadExecutor")
struct DedicatedThreadExecutorTests {
    @Test("an actor on it runs each job on its thread, one at a time and in order; a task that prefers it runs there; a job after stop starts the thread again")
    func runsOnItsThread() async {
        let executor = DedicatedThreadExecutor(name: "tessera.test")
        let actor = OnItsThread(executor)
        // This test's own thread is not Tessera's: the mark is real.
        #expect(!OwnedThread.isCurrent)
        for step in 0..<100 {
            #expect(await actor.record(step), "step \(step) ran on a thread that is not the executor's")
        }
        #expect(await actor.order == Array(0..<100))
        // Many callers at once: the jobs still run one at a time.
        await withTaskGroup(of: Bool.self) { group in
            for step in 100..<400 { group.addTask { await actor.record(step) } }
            for await onItsThread in group { #expect(onItsThread) }
        }
        #expect(await actor.mostAtOnce == 1)
        #expect(await actor.order.count == 400)
        let preferring = await Task(executorPreference: executor) { OwnedThread.isCurrent }.value
        #expect(preferring, "a task that prefers the executor ran elsewhere")
        executor.stop()
        #expect(await actor.record(400), "a job after stop did not run on a thread of the executor's")
        executor.stop()
    }
}
