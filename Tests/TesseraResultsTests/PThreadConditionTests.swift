import Testing
import TesseraResultsCore
import TesseraTestSupport
import TesseraTestTraits

@Suite("PThreadCondition and FIFOQueue: the waits and the queue of Tessera's own threads", .ownThreads)
struct PThreadConditionTests {
    @Test("20,000 random appends and takes: the queue gives what an array model gives, in order")
    func queueMatchesAnArray() {
        let seed = testSeed(default: 0xF1F0)
        print("PThreadConditionTests.queueMatchesAnArray seed \(seed) (TESSERA_SEED to replay)")
        var generator = SplitMix64(seed: seed)
        var queue = FIFOQueue<Int>()
        var model: [Int] = []
        var next = 0
        for step in 0..<20_000 {
            // Runs of appends and of takes, so the queue grows past the
            // compaction's threshold and drains to empty.
            let appends = (step / 500).isMultiple(of: 2) ? 3 : 1
            if Int.random(in: 0..<4, using: &generator) < appends {
                queue.append(next)
                model.append(next)
                next += 1
            } else {
                let taken = queue.popFirst()
                #expect(taken == (model.isEmpty ? nil : model.removeFirst()), "step \(step)")
            }
            #expect(queue.count == model.count && queue.isEmpty == model.isEmpty, "step \(step)")
        }
        while let taken = queue.popFirst() { #expect(taken == model.removeFirst()) }
        #expect(model.isEmpty)
    }

    @Test("a wait returns once another thread makes the state ready, and runs its body with the state then")
    func waitSeesTheUpdate() {
        let condition = PThreadCondition(0)
        let started = PThreadCondition(false)
        let workers = BlockingWorkers(limit: 1)
        workers.run {
            started.update { $0 = true }
            for _ in 0..<5 { condition.update { $0 += 1 } }
        }
        started.wait(until: { $0 }) { _ in }
        let seen = condition.wait(until: { $0 == 5 }) { $0 }
        #expect(seen == 5)
    }

    @Test("a timed wait that nothing makes ready returns after its timeout, told it is not ready; one made ready is told so")
    func timedWait() {
        let condition = PThreadCondition(0)
        let clock = ContinuousClock()
        let start = clock.now
        let (value, ready) = condition.wait(until: { $0 > 0 }, timeout: .milliseconds(30)) { ($0, $1) }
        #expect(clock.now - start >= .milliseconds(30))
        #expect(value == 0 && !ready)
        condition.update { $0 = 1 }
        let again = condition.wait(until: { $0 > 0 }, timeout: .seconds(600)) { $1 }
        #expect(again)
        // A timeout of zero or less checks once.
        #expect(condition.wait(until: { $0 > 1 }, timeout: .zero) { $1 } == false)
        #expect(condition.wait(until: { $0 > 1 }, timeout: .seconds(-5)) { $1 } == false)
    }
}
