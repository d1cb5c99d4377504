import Dispatch
import Foundation
import TesseraResultsCore
import TesseraSQLite
import TesseraTestTraits
import Testing

/// ``OwnThreadsTrait``: tests that block their thread (child processes,
/// browsers, synchronous sockets) run on threads of their own, so that the
/// cooperative pool stays free for what runs on it (an in-process server,
/// actors), however many of them block at once.
@Suite("Tests that block their thread leave the cooperative pool free")
struct OwnThreadsTests {
    @Test("one more blocked job than the cooperative pool has threads: all of them block at once, none waiting for a thread")
    func blockedJobsTakeNoPoolThread() async {
        // The pool has a thread per core: on it, this many jobs could not
        // all be blocked at once, and the last would never come to the
        // gate that only it opens.
        let count = ProcessInfo.processInfo.activeProcessorCount + 1
        let gate = Gate(opensAt: count)
        let released = await withTaskGroup(of: Bool.self) { group in
            for _ in 0..<count {
                group.addTask(executorPreference: OwnThreadsExecutor.shared) {
                    // Bounded, so that a regression fails instead of hanging
                    // (generous for a sanitizer build on a busy machine).
                    gate.wait(seconds: 120)
                }
            }
            var released = 0
            for await passed in group where passed { released += 1 }
            return released
        }
        #expect(released == count, "\(released) of \(count) jobs got through the gate within 120 s; it opens only when all of them are blocked at it")
    }

    /// A gate threads wait at, blocked, until `opensAt` of them wait at
    /// once.
    final class Gate: Sendable {
        private let opensAt: Int
        private let waiting = PThreadMutex(0)
        private let semaphore = DispatchSemaphore(value: 0)

        init(opensAt: Int) {
            self.opensAt = opensAt
        }

        /// Blocks until the gate opens, for at most `seconds`; whether it
        /// opened.
        func wait(seconds: Int) -> Bool {
            let arrived = waiting.withLock { count in
                count += 1
                return count
            }
            if arrived == opensAt {
                for _ in 0..<opensAt { semaphore.signal() }
            }
            let opened = semaphore.wait(timeout: .now() + .seconds(seconds)) == .success
            if !opened { waiting.withLock { $0 -= 1 } }
            return opened
        }
    }

    static func currentExecutor() -> UnownedTaskExecutor? {
        withUnsafeCurrentTask { $0?.unownedTaskExecutor }
    }

    @Test("a test in a suite without the trait runs on no executor of its own")
    func unmarkedTestRunsOnThePool() {
        #expect(Self.currentExecutor() == nil)
    }

    /// A suite with the trait.
    @Suite(.ownThreads)
    struct Marked {
        @Test("a synchronous test of a suite with the trait runs on the own-threads executor")
        func synchronousTest() {
            #expect(OwnThreadsTests.currentExecutor() == OwnThreadsExecutor.shared.asUnownedTaskExecutor())
        }

        @Test("an asynchronous test of a suite with the trait, and its child tasks, run on the own-threads executor")
        func asynchronousTest() async {
            async let child = OwnThreadsTests.currentExecutor()
            #expect(OwnThreadsTests.currentExecutor() == OwnThreadsExecutor.shared.asUnownedTaskExecutor())
            #expect(await child == OwnThreadsExecutor.shared.asUnownedTaskExecutor())
        }
    }

    /// A suite with the trait for synchronous tests that compute.
    @Suite(.cpuBound)
    struct MarkedCPUBound {
        @Test("a synchronous test of a .cpuBound suite runs on the own-threads executor")
        func synchronousTest() {
            #expect(OwnThreadsTests.currentExecutor() == OwnThreadsExecutor.shared.asUnownedTaskExecutor())
        }

        @Test("each case of a parameterized test of a .cpuBound suite runs on the own-threads executor", arguments: 0..<3)
        func parameterizedTest(index: Int) {
            #expect(OwnThreadsTests.currentExecutor() == OwnThreadsExecutor.shared.asUnownedTaskExecutor(), "case \(index)")
        }
    }
}
