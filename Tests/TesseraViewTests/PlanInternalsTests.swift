import Foundation
import Testing
import TesseraLayout
@testable import TesseraView
import TesseraTestTraits

@Suite("Plan internals", .cpuBound)
struct PlanInternalsTests {
    @Test("An element is unchanged only when nothing but its index path differs")
    func settledRule() {
        let start = LayoutAttributes(category: .cell, indexPath: IndexPath(item: 0, section: 0), frame: Rect(x: 0, y: 0, width: 10, height: 10))
        var renumbered = start
        renumbered.indexPath = IndexPath(item: 3, section: 0)
        #expect(AnimationPlan.Disposition.settled(from: start, to: renumbered) == .unchanged)
        var faded = start
        faded.alpha = 0.5
        #expect(AnimationPlan.Disposition.settled(from: start, to: faded) == .shift)
        var raised = start
        raised.zIndex = 2
        #expect(AnimationPlan.Disposition.settled(from: start, to: raised) == .shift)
        var moved = start
        moved.frame.origin.y = 5
        #expect(AnimationPlan.Disposition.settled(from: start, to: moved) == .shift)
    }

    @Test("The view pool reuses the lowest free instance first and makes new ones only when none is free")
    func poolOrder() {
        var pool = _ViewPool()
        let made = (0..<5).map { _ in pool.dequeue("Cell") }
        #expect(made.map(\.instance) == [0, 1, 2, 3, 4])
        for instance in [3, 0, 4, 1] { pool.recycle(made[instance]) }
        #expect((0..<5).map { _ in pool.dequeue("Cell").instance } == [0, 1, 3, 4, 5])
        #expect(pool.dequeue("Header").instance == 0)
    }
}
