import Foundation
import Testing
import TesseraResultsCore
import TesseraTestSupport
import TesseraTestTraits

/// ``BlockingWorkers``: every piece of work runs once, in the order it
/// came when one worker runs it, never more than the limit at once, and
/// work that blocks holds up nothing beyond its own worker.
@Suite("Blocking work on threads of its own, a bounded number at once", .ownThreads)
struct BlockingWorkersTests {
    /// Work that waits until opened (at a ``LoadGate``), and counts how
    /// many wait at once.
    final class Gate: Sendable {
        struct Counts {
            var inside = 0
            var mostInside = 0
            var finished: [Int] = []
        }

        private let gate = LoadGate()
        private let counts = PThreadMutex(Counts())

        func pass(_ index: Int) {
            counts.withLock { counts in
                counts.inside += 1
                counts.mostInside = max(counts.mostInside, counts.inside)
            }
            gate.wait()
            counts.withLock { counts in
                counts.inside -= 1
                counts.finished.append(index)
            }
        }

        func open() { gate.open() }

        /// Reads the counts.
        func read<T>(_ body: (Counts) -> T) -> T { counts.withLock { body($0) } }
    }

    @Test("one worker runs every piece in the order it came", arguments: [1, 50, 300])
    func oneWorkerKeepsTheOrder(count: Int) throws {
        let workers = BlockingWorkers(limit: 1)
        let gate = Gate()
        gate.open()
        for index in 0..<count { workers.run { gate.pass(index) } }
        // A limit against a hang only, counted in rounds.
        #expect(waitInRounds(24_000, sleepingEvery: .milliseconds(5)) { gate.read { $0.finished.count } == count })
        #expect(gate.read { $0.finished } == Array(0..<count))
        #expect(gate.read { $0.mostInside } == 1)
    }

    @Test("with every worker blocked, exactly the limit runs at once; the rest waits and runs, once each, after", arguments: [1, 3, 16])
    func theLimitHolds(limit: Int) throws {
        let seed = testSeed(default: 0xB10C)
        print("BlockingWorkersTests.theLimitHolds seed \(seed) (TESSERA_SEED to replay)")
        var generator = SplitMix64(seed: seed)
        let workers = BlockingWorkers(limit: limit)
        let gate = Gate()
        let count = limit + Int.random(in: 1...40, using: &generator)
        for index in 0..<count { workers.run { gate.pass(index) } }
        #expect(waitInRounds(24_000, sleepingEvery: .milliseconds(5)) { gate.read { $0.inside } == limit })
        // More work comes while every worker is blocked: it waits too.
        for index in count..<(count + 5) { workers.run { gate.pass(index) } }
        #expect(gate.read { ($0.inside, $0.finished.count) } == (limit, 0))
        gate.open()
        #expect(waitInRounds(24_000, sleepingEvery: .milliseconds(5)) { gate.read { $0.finished.count } == count + 5 })
        #expect(gate.read { $0.finished.sorted() } == Array(0..<(count + 5)))
        #expect(gate.read { $0.mostInside } == limit)
        // The workers ended with the work: more starts them again.
        let again = Gate()
        again.open()
        workers.run { again.pass(0) }
        #expect(waitInRounds(24_000, sleepingEvery: .milliseconds(5)) { again.read { $0.finished } == [0] })
    }
}
