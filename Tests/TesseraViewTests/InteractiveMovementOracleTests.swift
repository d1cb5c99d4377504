import Foundation
import Testing
import TesseraTestTraits
import TesseraDiff
import TesseraLayout
import TesseraTestSupport
import TesseraView

/// A data source over arrays of ids that lets the user move items.
final class MovableSource: CollectionViewDataSource {
    var sections: [[Int]]
    /// Whether an item may move; every item by default.
    var canMove: (IndexPath) -> Bool = { _ in true }
    /// The moves the view asked for.
    var moves: [(from: IndexPath, to: IndexPath)] = []
    /// When set, a move also drops the last item of the first section (a
    /// data source that disagrees with the view).
    var losesAnItemOnMove = false

    init(sections: [[Int]]) {
        self.sections = sections
    }

    func numberOfSections(in collectionView: CollectionView) -> Int { sections.count }
    func collectionView(_ collectionView: CollectionView, numberOfItemsInSection section: Int) -> Int { sections[section].count }
    func collectionView(_ collectionView: CollectionView, itemIdentifierAt indexPath: IndexPath) -> String? { "\(sections[indexPath[0]][indexPath[1]])" }
    func collectionView(_ collectionView: CollectionView, reuseIdentifierForItemAt indexPath: IndexPath) -> String {
        sections[indexPath[0]][indexPath[1]] % 2 == 0 ? "Even" : "Odd"
    }
    func collectionView(_ collectionView: CollectionView, canMoveItemAt indexPath: IndexPath) -> Bool { canMove(indexPath) }
    func collectionView(_ collectionView: CollectionView, moveItemAt sourceIndexPath: IndexPath, to destinationIndexPath: IndexPath) {
        moves.append((sourceIndexPath, destinationIndexPath))
        let item = sections[sourceIndexPath[0]].remove(at: sourceIndexPath[1])
        sections[destinationIndexPath[0]].insert(item, at: destinationIndexPath[1])
        if losesAnItemOnMove, !sections[0].isEmpty { sections[0].removeLast() }
    }

    /// The order with one item taken out at `from` and put back at `to`.
    static func moving(_ sections: [[Int]], from: IndexPath, to: IndexPath) -> [[Int]] {
        var result = sections
        let item = result[from[0]].remove(at: from[1])
        result[to[0]].insert(item, at: to[1])
        return result
    }
}

/// A built-in layout of random settings in a collection view over random
/// sections of ids.
struct MovementScenario: CustomStringConvertible {
    let spec: RandomLayoutSpec
    let delegate: AnyLayoutDelegate
    let view: CollectionView
    let source: MovableSource

    init(kind: LayoutKind, using generator: inout SplitMix64) {
        var next = 0
        let sectionCount = Int.random(in: 1...5, using: &generator)
        var sections: [[Int]] = []
        for section in 0..<sectionCount {
            let count = section == 0 ? Int.random(in: 1...40, using: &generator) : Int.random(in: 0...40, using: &generator)
            sections.append(Array(next..<next + count))
            next += count
        }
        source = MovableSource(sections: sections)
        delegate = AnyLayoutDelegate.random(itemCounts: Array(repeating: 45, count: 6), using: &generator)
        spec = RandomLayoutSpec(kind: kind, seed: generator.next())
        let size = Int.random(in: 0..<4, using: &generator) == 0 ? randomViewSize(using: &generator) : Size(width: 390, height: 600)
        view = CollectionView(layout: spec.make(delegate: delegate), size: size, contentInset: randomContentInset(using: &generator))
        view.dataSource = source
        view.reloadData()
    }

    var description: String { "\(spec), sections \(source.sections.map(\.count)), bounds \(view.bounds)" }

    /// A fresh layout of the same spec prepared for `counts` at the view's
    /// bounds, and its environment (which the layout holds weakly).
    func freshLayout(counts: [Int]) -> (layout: CollectionViewLayout, environment: StaticLayoutEnvironment) {
        let layout = spec.make(delegate: delegate)
        let environment = StaticLayoutEnvironment(size: view.bounds.size, itemCounts: counts, contentInset: view.contentInset)
        environment.bounds = view.bounds
        layout.collectionView = environment
        layout.prepare()
        return (layout, environment)
    }

    /// A random position: mostly within the content, sometimes well outside.
    func randomPosition(using generator: inout SplitMix64) -> Point {
        let content = view.contentSize
        if Int.random(in: 0..<5, using: &generator) == 0 {
            return Point(x: Double.random(in: -500...content.width + 500, using: &generator), y: Double.random(in: -500...content.height + 500, using: &generator))
        }
        return Point(x: Double.random(in: 0...Swift.max(content.width, 1), using: &generator), y: Double.random(in: 0...Swift.max(content.height, 1), using: &generator))
    }
}

/// What is wrong with a plan against a fresh layout of `order`: every
/// element the plan ends (other than the moving item) must end where the
/// fresh layout puts it, every element the fresh layout shows must be in
/// the plan, and every item must carry the id of the item at its place.
func planViolations(
    _ plan: AnimationPlan, fresh layout: CollectionViewLayout, order: [[Int]], bounds: Rect,
    moving: IndexPath?, movingAttributes: LayoutAttributes?
) -> [String] {
    var violations: [String] = []
    var keys = Set<String>()
    for element in plan.elements {
        guard let path = element.indexPathAfter else { continue }
        keys.insert("\(element.category) \(path)")
        if element.category == .cell {
            if element.itemID != "\(order[path[0]][path[1]])" { violations.append("item \(path) has id \(element.itemID ?? "nil"), expected \(order[path[0]][path[1]])") }
            if path == moving {
                if element.to.frame != movingAttributes?.frame || element.to.zIndex != movingAttributes?.zIndex {
                    violations.append("the moving item \(path) ends at \(element.to.frame) z \(element.to.zIndex), the hook says \(String(describing: movingAttributes?.frame))")
                }
                continue
            }
            let expected = layout.layoutAttributesForItem(at: path)
            if element.to.frame != expected?.frame { violations.append("item \(path) ends at \(element.to.frame), fresh layout \(String(describing: expected?.frame))") }
        } else if case let .supplementaryView(kind) = element.category {
            let expected = layout.layoutAttributesForSupplementaryView(ofKind: kind, at: path)
            if element.to.frame != expected?.frame, element.disposition != .delete { violations.append("\(kind) \(path) ends at \(element.to.frame), fresh layout \(String(describing: expected?.frame))") }
        }
    }
    for attributes in layout.layoutAttributesForElements(in: bounds) where !keys.contains("\(attributes.category) \(attributes.indexPath)") {
        violations.append("\(attributes.category) \(attributes.indexPath) is visible in the fresh layout but not in the plan")
    }
    if let moving, !keys.contains("\(ElementCategory.cell) \(moving)"), movingAttributes != nil {
        violations.append("the moving item \(moving) is not in the plan")
    }
    return violations
}

@Suite("Interactive movement oracles", .tags(.oracle), .cpuBound)
struct InteractiveMovementOracleTests {
    @Test("Random drags: each step's plan ends where a fresh layout of the presented order puts every element, the moving item where the hook says; ending applies one move to the data source, cancelling none", arguments: LayoutKind.allCases)
    func randomDrags(kind: LayoutKind) throws {
        let seed = testSeed(default: 0xD4A6) &+ UInt64(LayoutKind.allCases.firstIndex(of: kind)!)
        var generator = SplitMix64(seed: seed)
        var crossSection = 0
        var moved = 0
        for round in 0..<25 {
            let scenario = MovementScenario(kind: kind, using: &generator)
            let view = scenario.view
            let source = scenario.source
            let original = source.sections
            let counts = original.map(\.count)
            let section = (0..<counts.count).filter { counts[$0] > 0 }.randomElement(using: &generator)!
            let start = IndexPath(item: Int.random(in: 0..<counts[section], using: &generator), section: section)
            let context = "seed \(seed), round \(round), \(scenario), from \(start)"
            try view.beginInteractiveMovementForItem(at: start)
            var movingView: ViewIdentity?
            // Where the moving item was last shown: each step starts it there.
            var shown = view.layoutAttributesForInteractivelyMovingItem?.frame
            let resting = view.collectionViewLayout.layoutAttributesForItem(at: start)
            let lifted = view.collectionViewLayout.layoutAttributesForInteractivelyMovingItem(at: start, withTargetPosition: resting?.center ?? .zero)
            #expect(shown == lifted?.frame && view.layoutAttributesForInteractivelyMovingItem?.zIndex == lifted?.zIndex, "\(context): the item is lifted where it is")
            for step in 0..<Int.random(in: 1...20, using: &generator) {
                let position = scenario.randomPosition(using: &generator)
                let plan = try view.updateInteractiveMovementTargetPosition(position)
                let target = try #require(view.indexPathForInteractivelyMovingItem)
                if target != start { moved += 1 }
                if target[0] != start[0] { crossSection += 1 }
                let order = MovableSource.moving(original, from: start, to: target)
                #expect(view.itemCounts == order.map(\.count), "\(context), step \(step)")
                #expect(source.sections == original, "\(context), step \(step): the data source changed during the movement")
                let (fresh, environment) = scenario.freshLayout(counts: order.map(\.count))
                defer { withExtendedLifetime(environment) {} }
                let hook = fresh.layoutAttributesForInteractivelyMovingItem(at: target, withTargetPosition: position)
                let violations = planViolations(plan, fresh: fresh, order: order, bounds: view.bounds, moving: target, movingAttributes: hook)
                #expect(violations.isEmpty, "\(context), step \(step) to \(position) → \(target): \(violations.prefix(3))")
                let element = plan.elements.first { $0.category == .cell && $0.indexPathAfter == target }
                if let movingView, let element { #expect(element.view == movingView, "\(context), step \(step): the moving item changed views") }
                movingView = element?.view ?? movingView
                if let element, let shown { #expect(element.from.frame == shown, "\(context), step \(step): the moving item jumps") }
                shown = hook?.frame ?? shown
                #expect(view.layoutAttributesForInteractivelyMovingItem?.frame == hook?.frame, "\(context), step \(step)")
            }
            let target = try #require(view.indexPathForInteractivelyMovingItem)
            let plan: AnimationPlan
            let expected: [[Int]]
            if Bool.random(using: &generator) {
                plan = try view.endInteractiveMovement()
                expected = MovableSource.moving(original, from: start, to: target)
                #expect(source.moves.count == (target == start ? 0 : 1), "\(context)")
            } else {
                plan = try view.cancelInteractiveMovement()
                expected = original
                #expect(source.moves.isEmpty, "\(context)")
            }
            #expect(source.sections == expected, "\(context): the data source's order after the movement")
            let settled = plan.elements.first { $0.category == .cell && $0.itemID == "\(original[start[0]][start[1]])" }
            if let settled, let shown { #expect(settled.from.frame == shown, "\(context): the moving item jumps as it settles") }
            #expect(view.itemCounts == expected.map(\.count), "\(context)")
            #expect(view.indexPathForInteractivelyMovingItem == nil, "\(context)")
            let (fresh, environment) = scenario.freshLayout(counts: expected.map(\.count))
            defer { withExtendedLifetime(environment) {} }
            let violations = planViolations(plan, fresh: fresh, order: expected, bounds: view.bounds, moving: nil, movingAttributes: nil)
            #expect(violations.isEmpty, "\(context), last step: \(violations.prefix(3))")
        }
        // The drags reach other places, and other sections when there are
        // several.
        #expect(moved > 0, "seed \(seed)")
        #expect(crossSection > 0, "seed \(seed)")
    }
}
