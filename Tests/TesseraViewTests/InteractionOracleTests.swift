import Foundation
import Testing
import TesseraTestTraits
import TesseraDiff
import TesseraLayout
import TesseraTestSupport
import TesseraView

/// A delegate whose didSelect runs a closure (which may change the data).
private final class ReentrantDelegate: CollectionViewDelegate {
    var onDidSelect: () -> Void = {}
    func collectionView(_ collectionView: CollectionView, didSelectItemAt indexPath: IndexPath) { onDidSelect() }
}

/// The layouts the interaction oracle drives.
enum InteractionLayoutKind: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case flow, list, listStack

    var testDescription: String { rawValue }
}

/// A flow layout delegate that gives each item a size read from a table.
private final class SizeTable: FlowLayoutDelegate {
    var sizes: [IndexPath: Size] = [:]
    func flowLayout(_ layout: FlowLayout, sizeForItemAt indexPath: IndexPath) -> Size? { sizes[indexPath] }
}

/// One view with every interaction at once: random snapshots through a
/// DiffableDataSource (sometimes at a time, while a plan plays), drags
/// begun, followed, ended, cancelled and silently cancelled, taps and
/// touches that span other changes, selection by id, scrolls, fitted sizes
/// that change, direction flips and reloads.
@MainActor
private final class InteractionWorld {
    var generator: SplitMix64
    var chain: RandomSnapshotChain
    let kind: InteractionLayoutKind
    let pinsHeaders: Bool
    let horizontal: Bool
    let hasHeaders: Bool
    /// The view's layout when it is a flow layout (whose frames a fresh one checks).
    var layout: FlowLayout?
    let view: CollectionView
    let source: DiffableDataSource<TestSection, TestItem>
    let selfSizing: Bool
    /// Extra height of an item's fitted size, by id (changed, then invalidated).
    var bumps: [Int: Double] = [:]
    /// The ids the user selected, as the model keeps them.
    var selected = Set<Int>()
    /// The id of the item a touch in progress is on (nil: none or cancelled).
    var touchedID: Int?
    var touchInProgress = false
    var time = 0.0
    /// The view of the moving item in the last plan.
    var movingView: ViewIdentity?
    var log: [String] = []
    /// The delegate, which sometimes applies a snapshot when an item is selected.
    let delegate = ReentrantDelegate()
    /// Plans made by changes the delegate ran during a step.
    var nestedPlans: [AnimationPlan] = []
    /// What a step found wrong by itself.
    var stepViolations: [String] = []
    /// The view of each element shown after the last plan, by category and
    /// index path (forgotten by a reload, or a batch that cancels a drag).
    var shownViews: [String: ViewIdentity] = [:]

    init(seed: UInt64, kind: InteractionLayoutKind) {
        generator = SplitMix64(seed: seed)
        chain = RandomSnapshotChain(seed: seed &+ 1)
        self.kind = kind
        horizontal = kind == .flow && Bool.random(using: &generator)
        hasHeaders = Bool.random(using: &generator)
        pinsHeaders = hasHeaders && Bool.random(using: &generator)
        selfSizing = Int.random(in: 0..<3, using: &generator) > 0
        let initial = Self.makeLayout(kind: kind, selfSizing: selfSizing, horizontal: horizontal, hasHeaders: hasHeaders, pinsHeaders: pinsHeaders, lineSpacing: 5)
        layout = initial as? FlowLayout
        view = CollectionView(layout: initial, size: Size(width: 230, height: 260))
        view.allowsMultipleSelection = Bool.random(using: &generator)
        let reentrant = Bool.random(using: &generator)
        source = DiffableDataSource<TestSection, TestItem>(collectionView: view)
        source.reorderingHandlers.canReorderItem = { _ in true }
        let bumpsOf: () -> [Int: Double] = { [unowned self] in self.bumps }
        if selfSizing {
            source.fittedSize = { item, _ in
                var size = interactionFittedSize(of: item)
                size.height += bumpsOf()[item.id] ?? 0
                return size
            }
        }
        if reentrant {
            view.delegate = delegate
            delegate.onDidSelect = { [unowned self] in
                guard self.chance(30) else { return }
                // The app answers a selection with new data.
                if self.view.indexPathForInteractivelyMovingItem != nil {
                    self.shownViewsInDataSourceOrder()
                    self.movingView = nil
                }
                self.log.append("(didSelect applies)")
                let next = self.chain.next(after: self.source.snapshot, maxSections: 5)
                if let plan = try? self.source.apply(next) { self.nestedPlans.append(plan) }
            }
            source.reorderingHandlers.didReorder = { [unowned self] snapshot in
                guard self.chance(40) else { return }
                // The app stores the new order and shows what it stored, or newer data.
                self.log.append("(didReorder applies)")
                let next = self.chance(50) ? snapshot : self.chain.next(after: snapshot, maxSections: 5)
                if let plan = try? self.source.apply(next) { self.nestedPlans.append(plan) }
            }
        }
        let first = chain.start(maxSections: 4, maxItems: 14)
        _ = try? source.apply(first, animated: false)
    }

    static func makeLayout(kind: InteractionLayoutKind, selfSizing: Bool, horizontal: Bool, hasHeaders: Bool, pinsHeaders: Bool, lineSpacing: Double) -> CollectionViewLayout {
        switch kind {
        case .flow:
            let layout = FlowLayout()
            layout.itemSize = Size(width: 40, height: 40)
            layout.minimumLineSpacing = lineSpacing
            layout.minimumInteritemSpacing = 5
            if horizontal { layout.scrollDirection = .horizontal }
            if hasHeaders {
                layout.headerReferenceSize = Size(width: 30, height: 30)
                layout.sectionHeadersPinToVisibleBounds = pinsHeaders
            }
            if selfSizing { layout.estimatedItemSize = Size(width: 40, height: 40) }
            return layout
        case .list:
            let layout = ListLayout()
            layout.itemHeight = 40
            layout.interitemSpacing = lineSpacing
            if hasHeaders { layout.headerHeight = 30 }
            if selfSizing { layout.estimatedItemHeight = 40 }
            return layout
        case .listStack:
            let layout = ListStackLayout(stickyHeaders: pinsHeaders)
            layout.itemSize = Size(width: 40, height: 40)
            layout.minimumLineSpacing = lineSpacing
            layout.minimumInteritemSpacing = 5
            if hasHeaders { layout.headerLength = 30 }
            if selfSizing { layout.estimatedItemSize = Size(width: 40, height: 40) }
            return layout
        }
    }

    func chance(_ percent: Int) -> Bool { Int.random(in: 0..<100, using: &generator) < percent }

    var description: String { "\(kind), selfSizing \(selfSizing), horizontal \(horizontal), headers \(hasHeaders) pinned \(pinsHeaders), multiple \(view.allowsMultipleSelection), log \(log.suffix(8))" }

    /// The id of the item the view presents at an index path.
    func id(atPresented path: IndexPath) -> Int {
        source.snapshot[view.dataSourceIndexPath(forPresentedIndexPath: path)].id
    }

    /// Every item the view presents.
    var presentedPaths: [IndexPath] {
        (0..<view.numberOfSections).flatMap { s in (0..<view.numberOfItems(inSection: s)).map { IndexPath(item: $0, section: s) } }
    }

    func randomVisibleItem() -> IndexPath? {
        let cells = view.visibleElements.filter { $0.category == .cell }.map(\.indexPath)
        if !cells.isEmpty, chance(85) { return cells[Int.random(in: 0..<cells.count, using: &generator)] }
        let all = presentedPaths
        return all.isEmpty ? nil : all[Int.random(in: 0..<all.count, using: &generator)]
    }

    func advanceTime() -> Double {
        time += Double.random(in: 0...0.25, using: &generator)
        return time
    }

    /// Forgets what a change of the data leaves behind: deleted ids.
    func keepExisting() {
        let ids = Set(source.snapshot.allItems.map(\.id))
        selected.formIntersection(ids)
        if let touched = touchedID, !ids.contains(touched) { touchedID = nil }
    }

    /// One random operation; returns its plans.
    func step() throws -> [AnimationPlan] {
        let roll = Int.random(in: 0..<100, using: &generator)
        switch roll {
        case 0..<14:
            if view.indexPathForInteractivelyMovingItem != nil { shownViewsInDataSourceOrder() }
            let next = chain.next(after: source.snapshot, maxSections: 5)
            let timed = chance(50)
            log.append(timed ? "apply at \(time)" : "apply")
            let plan = timed ? try composed(at: advanceTime()) { try source.apply(next, animated: true, at: $0) } : try source.apply(next, animated: chance(80))
            movingView = nil
            keepExisting()
            return [plan]
        case 14..<24:
            guard view.indexPathForInteractivelyMovingItem == nil, let path = randomVisibleItem() else { return [] }
            log.append("begin \(path)")
            try view.beginInteractiveMovementForItem(at: path)
            movingView = nil
            return []
        case 24..<42:
            guard view.indexPathForInteractivelyMovingItem != nil else { return [] }
            let content = view.contentSize
            let position = Point(x: Double.random(in: -20...content.width + 20, using: &generator), y: Double.random(in: -20...content.height + 20, using: &generator))
            log.append("update \(position)")
            // The item whose frame holds the position (the lowest index
            // path), in the frames shown before the step, is the target.
            let probe = Rect(x: position.x - 1, y: position.y - 1, width: 2, height: 2)
            let holder = view.collectionViewLayout.layoutAttributesForElements(in: probe)
                .filter { $0.category == .cell && $0.frame.contains(position) }.map(\.indexPath).min()
            let plan = try view.updateInteractiveMovementTargetPosition(position)
            if let holder, view.indexPathForInteractivelyMovingItem != holder {
                stepViolations.append("position \(position) is in item \(holder), target \(String(describing: view.indexPathForInteractivelyMovingItem))")
            }
            if let shown = view.layoutAttributesForInteractivelyMovingItem, abs(shown.center.x - position.x) > 1e-6 || abs(shown.center.y - position.y) > 1e-6 {
                stepViolations.append("moving item centred at \(shown.center), position \(position)")
            }
            return [plan]
        case 42..<48:
            guard view.indexPathForInteractivelyMovingItem != nil else { return [] }
            log.append("end")
            let plan = try view.endInteractiveMovement()
            movingView = nil
            keepExisting()
            return [plan]
        case 48..<52:
            guard view.indexPathForInteractivelyMovingItem != nil else { return [] }
            log.append("cancel")
            let plan = try view.cancelInteractiveMovement()
            movingView = nil
            return [plan]
        case 52..<62:
            guard let path = randomVisibleItem() else { return [] }
            if touchInProgress {
                let selecting = chance(70)
                log.append("endTouch \(selecting)")
                try view.endTouch(selecting: selecting)
                if selecting, let touched = touchedID { toggle(touched) }
                touchInProgress = false
                touchedID = nil
                keepExisting()
            } else if chance(50) {
                log.append("tap \(path)")
                let tapped = id(atPresented: path)
                try view.tapItem(at: path)
                toggle(tapped)
                keepExisting()
            } else {
                log.append("beginTouch \(path)")
                try view.beginTouch(at: path)
                touchInProgress = true
                touchedID = id(atPresented: path)
            }
            return []
        case 62..<67:
            let ids = source.snapshot.allItems.map(\.id)
            guard !ids.isEmpty else { return [] }
            let id = ids[Int.random(in: 0..<ids.count, using: &generator)]
            log.append("select id \(id)")
            try source.selectItem(withID: id)
            if !view.allowsMultipleSelection { selected = [] }
            selected.insert(id)
            return []
        case 67..<78:
            let content = view.contentSize
            let origin = Point(x: Double.random(in: -10...Swift.max(0, content.width - 100), using: &generator), y: Double.random(in: -10...Swift.max(0, content.height - 100), using: &generator))
            let bounds = Rect(origin: origin, size: view.bounds.size)
            let timed = chance(50)
            log.append("scroll \(origin)\(timed ? " at \(time)" : "")")
            return [timed ? try composed(at: advanceTime()) { try view.setBounds(bounds, animated: true, at: $0) } : view.setBounds(bounds, animated: chance(80))]
        case 78..<85:
            guard selfSizing, let path = randomVisibleItem() else { return [] }
            let id = id(atPresented: path)
            bumps[id, default: 0] += Double(Int.random(in: -10...30, using: &generator))
            if (bumps[id] ?? 0) < -10 { bumps[id] = -10 }
            log.append("resize \(path) (id \(id))")
            return [try view.invalidateItemSizes(at: [path])]
        case 85..<88:
            // A transition to a layout like this one, its spacing changed.
            let next = Self.makeLayout(
                kind: kind, selfSizing: selfSizing, horizontal: horizontal, hasHeaders: hasHeaders, pinsHeaders: pinsHeaders,
                lineSpacing: Double(Int.random(in: 0...12, using: &generator))
            )
            layout = next as? FlowLayout
            let timed = chance(50)
            log.append("transition\(timed ? " at \(time)" : "")")
            return [timed ? try composed(at: advanceTime()) { try view.setCollectionViewLayout(next, animated: true, at: $0) } : view.setCollectionViewLayout(next, animated: chance(80))]
        case 88..<90:
            let direction: LayoutDirection = view.effectiveLayoutDirection == .leftToRight ? .rightToLeft : .leftToRight
            log.append("direction \(direction)")
            return [view.setLayoutDirection(direction)]
        case 90..<94:
            log.append("reloadData")
            shownViews = [:]
            view.reloadData()
            touchedID = nil
            movingView = nil
            return []
        case 94..<97:
            log.append("empty batch")
            if view.indexPathForInteractivelyMovingItem != nil { shownViewsInDataSourceOrder() }
            movingView = nil
            return [try view.performBatchUpdates([])]
        default:
            log.append("bad input")
            try badInput()
            return []
        }
    }

    /// Runs a change made at `time` and checks that every item the plan
    /// playing then shows, and the change's plan has from before, starts
    /// where the playing plan has it at that time.
    func composed(at time: Double, _ change: (Double) throws -> AnimationPlan) throws -> AnimationPlan {
        var current: [String: LayoutAttributes] = [:]
        if let playing = view.playingPlan, playing.isPlaying(at: time) {
            for (element, attributes) in zip(playing.plan.elements, playing.attributes(at: time))
            where element.category == .cell && element.indexPathAfter != nil && element.disposition != .delete {
                if let id = element.itemID { current[id] = attributes }
            }
        }
        let plan = try change(time)
        for element in plan.elements where element.category == .cell && element.indexPathBefore != nil {
            guard let id = element.itemID, let expected = current[id] else { continue }
            if element.from.frame != expected.frame {
                stepViolations.append("item \(id) starts at \(element.from.frame), the plan playing has it at \(expected.frame)")
            }
        }
        return plan
    }

    /// Before a change that cancels a drag: the cells shown, by their index
    /// paths in the data source's order (the order the view goes back to).
    func shownViewsInDataSourceOrder() {
        var remapped: [String: ViewIdentity] = [:]
        for (key, shown) in shownViews {
            guard key.hasPrefix("\(ElementCategory.cell) ") else { remapped[key] = shown; continue }
            let path = presentedPaths.first { "\(ElementCategory.cell) \($0)" == key }
            guard let path else { continue }
            remapped["\(ElementCategory.cell) \(view.dataSourceIndexPath(forPresentedIndexPath: path))"] = shown
        }
        shownViews = remapped
    }

    func toggle(_ id: Int) {
        if view.allowsMultipleSelection {
            if selected.contains(id) { selected.remove(id) } else { selected.insert(id) }
        } else {
            selected = [id]
        }
    }

    /// Everything a renderer or a user can read of the view.
    var dump: String {
        [
            "\(view.itemCounts)", "\(view.bounds)", "\(view.contentSize)", "\(view.indexPathsForSelectedItems)",
            "\(view.indexPathsForHighlightedItems)", "\(view.visibleElements)", "\(String(describing: view.indexPathForInteractivelyMovingItem))",
            "\(String(describing: view.layoutAttributesForInteractivelyMovingItem))", "\(String(describing: view.lastChangeTime))",
            "\(String(describing: view.playingPlan))", "\(view.effectiveLayoutDirection)", "\(source.snapshot)",
        ].joined(separator: "\n")
    }

    /// Calls that must throw and change nothing.
    func badInput() throws {
        let before = dump
        let counts = view.itemCounts
        let outside = IndexPath(item: (counts.first ?? 0) + 3, section: 0)
        switch Int.random(in: 0..<11, using: &generator) {
        case 6: #expect(throws: SelectionError.self) { try self.view.tapItem(at: outside) }
        case 7:
            if touchInProgress {
                #expect(throws: SelectionError.self) { try self.view.beginTouch(at: IndexPath(item: 0, section: 0)) }
            } else {
                #expect(throws: SelectionError.self) { try self.view.endTouch() }
            }
        case 8:
            if let last = view.lastChangeTime {
                let next = chain.next(after: source.snapshot, maxSections: 5)
                let chainBefore = chain
                #expect(throws: (any Error).self) { try self.source.apply(next, at: last - 0.5) }
                chain = chainBefore
            }
        case 9:
            // A fitted size that is not a size.
            guard selfSizing, let path = view.visibleElements.first(where: { $0.category == .cell })?.indexPath else { break }
            let id = id(atPresented: path)
            let kept = bumps[id]
            bumps[id] = .nan
            #expect(throws: SelfSizingError.self) { try self.view.invalidateItemSizes(at: [path]) }
            bumps[id] = kept
        case 10: #expect(throws: (any Error).self) { try self.view.setCollectionViewLayout(FlowLayout(), at: .infinity) }
        case 0: #expect(throws: SelectionError.self) { try self.view.selectItem(at: outside) }
        case 1: #expect(throws: InteractiveMovementError.self) { try self.view.beginInteractiveMovementForItem(at: IndexPath(item: -1, section: 0)) }
        case 2:
            if view.indexPathForInteractivelyMovingItem != nil {
                #expect(throws: InteractiveMovementError.self) { try self.view.updateInteractiveMovementTargetPosition(Point(x: .nan, y: 0)) }
            } else {
                #expect(throws: InteractiveMovementError.self) { try self.view.endInteractiveMovement() }
            }
        case 3: #expect(throws: SelfSizingError.self) { try self.view.invalidateItemSizes(at: [outside]) }
        case 4: #expect(throws: (any Error).self) { try self.view.setBounds(self.view.bounds, at: .nan) }
        default:
            // A batch whose counts disagree with the data source (which did not change).
            if view.indexPathForInteractivelyMovingItem == nil {
                #expect(throws: BatchValidationError.self) { try self.view.performBatchUpdates([.insertItem(at: IndexPath(item: 0, section: 0))]) }
            }
        }
        #expect(dump == before, "bad input changed the view: \(description)")
    }

    /// What is wrong now, after `plans`.
    func violations(after stepPlans: [AnimationPlan]) -> [String] {
        let plans = nestedPlans + stepPlans
        nestedPlans = []
        var found = stepViolations
        stepViolations = []
        // An element keeps the view it was shown with.
        for plan in plans {
            let recycled = Set(plan.recycledViews)
            for element in plan.elements {
                guard let before = element.indexPathBefore, let shown = shownViews["\(element.category) \(before)"] else { continue }
                if element.view != shown { found.append("\(element.category) \(before) was shown with \(shown), the plan gives it \(element.view)") }
            }
            shownViews = [:]
            for element in plan.elements where !recycled.contains(element.view) {
                if let after = element.indexPathAfter { shownViews["\(element.category) \(after)"] = element.view }
            }
        }
        // Selection and highlight by id.
        let viewIDs = view.indexPathsForSelectedItems.map { id(atPresented: $0) }.sorted()
        if viewIDs != selected.sorted() { found.append("selected ids \(viewIDs), model \(selected.sorted())") }
        if source.selectedItemIDs.sorted() != selected.sorted() { found.append("source.selectedItemIDs \(source.selectedItemIDs.sorted()), model \(selected.sorted())") }
        let highlighted = view.indexPathsForHighlightedItems.map { id(atPresented: $0) }
        if highlighted != (touchedID.map { [$0] } ?? []) { found.append("highlighted ids \(highlighted), model \(String(describing: touchedID))") }
        // Fitted sizes follow their items.
        let moving = view.indexPathForInteractivelyMovingItem
        if selfSizing {
            for attributes in view.visibleElements where attributes.category == .cell {
                var fitted = interactionFittedSize(of: source.snapshot[view.dataSourceIndexPath(forPresentedIndexPath: attributes.indexPath)])
                fitted.height += bumps[id(atPresented: attributes.indexPath)] ?? 0
                if kind == .list { fitted.width = attributes.size.width }
                if attributes.size != fitted { found.append("item \(attributes.indexPath) (id \(id(atPresented: attributes.indexPath))) is \(attributes.size), fitted \(fitted)") }
            }
        }
        // A fresh layout given every item's current size puts every element where the view's layout does.
        guard let layout else { return found + planViolations(plans, freshVisible: nil, fresh: nil, moving: moving) }
        let table = SizeTable()
        for path in presentedPaths { table.sizes[path] = view.collectionViewLayout.layoutAttributesForItem(at: path)?.size }
        let fresh = FlowLayout()
        fresh.itemSize = layout.itemSize
        fresh.minimumLineSpacing = layout.minimumLineSpacing
        fresh.minimumInteritemSpacing = layout.minimumInteritemSpacing
        fresh.scrollDirection = layout.scrollDirection
        fresh.headerReferenceSize = layout.headerReferenceSize
        fresh.sectionHeadersPinToVisibleBounds = layout.sectionHeadersPinToVisibleBounds
        fresh.delegate = table
        let environment = StaticLayoutEnvironment(size: view.bounds.size, itemCounts: view.itemCounts, contentInset: view.contentInset)
        environment.bounds = view.bounds
        environment.effectiveLayoutDirection = view.effectiveLayoutDirection
        fresh.collectionView = environment
        fresh.prepare()
        if fresh.collectionViewContentSize != view.contentSize { found.append("content size \(view.contentSize), fresh \(fresh.collectionViewContentSize)") }
        for attributes in fresh.layoutAttributesForElements(in: view.bounds) where attributes.category != .cell {
            guard case let .supplementaryView(kind) = attributes.category else { continue }
            let own = view.collectionViewLayout.layoutAttributesForSupplementaryView(ofKind: kind, at: attributes.indexPath)
            if own?.frame != attributes.frame { found.append("\(kind) \(attributes.indexPath) at \(String(describing: own?.frame)), fresh \(attributes.frame)") }
        }
        let freshVisible = Set(fresh.layoutAttributesForElements(in: view.bounds).filter { $0.category == .cell }.map(\.indexPath))
        for attributes in fresh.layoutAttributesForElements(in: view.bounds) where attributes.category == .cell {
            let own = view.collectionViewLayout.layoutAttributesForItem(at: attributes.indexPath)
            if own?.frame != attributes.frame { found.append("item \(attributes.indexPath) at \(String(describing: own?.frame)), fresh \(attributes.frame)") }
        }
        return found + planViolations(plans, freshVisible: freshVisible, fresh: fresh, moving: moving)
    }

    /// What is wrong with the plans of a step: views used twice, cells that
    /// end twice at one place, the moving item, ids, selection flags, and
    /// (with a fresh flow layout) where the cells visible after end.
    func planViolations(_ plans: [AnimationPlan], freshVisible: Set<IndexPath>?, fresh: FlowLayout?, moving: IndexPath?) -> [String] {
        var found: [String] = []
        let freshVisible = freshVisible ?? Set(view.visibleElements.filter { $0.category == .cell }.map(\.indexPath))
        // Plans.
        for plan in plans {
            var views = Set<ViewIdentity>()
            var after = Set<IndexPath>()
            let recycled = Set(plan.recycledViews)
            for element in plan.elements {
                if !views.insert(element.view).inserted { found.append("view \(element.view) used twice in a plan") }
                guard element.category == .cell, let path = element.indexPathAfter, element.disposition != .delete else { continue }
                let isVisible = freshVisible.contains(path)
                if isVisible, !after.insert(path).inserted { found.append("two cells end at \(path)") }
                if path == moving {
                    if let shown = view.layoutAttributesForInteractivelyMovingItem, element.to.frame != shown.frame {
                        found.append("moving item ends at \(element.to.frame), shown \(shown.frame)")
                    }
                    if let movingView, element.view != movingView { found.append("moving item changed view \(movingView) → \(element.view)") }
                    movingView = element.view
                } else if isVisible {
                    let expected = (fresh ?? view.collectionViewLayout).layoutAttributesForItem(at: path)?.frame
                    if element.to.frame != expected { found.append("plan item \(path) ends at \(element.to.frame), fresh \(String(describing: expected))") }
                }
                if isVisible {
                    if element.itemID != "\(id(atPresented: path))" { found.append("plan item \(path) has id \(element.itemID ?? "nil"), expected \(id(atPresented: path))") }
                    if element.isSelected != selected.contains(id(atPresented: path)) { found.append("plan item \(path) isSelected \(element.isSelected)") }
                    if recycled.contains(element.view) { found.append("plan item \(path) shown after with a recycled view") }
                }
            }
        }
        return found
    }
}

@MainActor
@Suite("Interaction oracle", .tags(.oracle))
struct InteractionOracleTests {
    @Test(
        "Selection, drags, self-sizing, right to left and changes at a time mixed on one view keep selection by id, sizes by item, a fresh layout's frames (for a flow layout) and one view per element",
        arguments: InteractionLayoutKind.allCases
    )
    func mixedInteractions(kind: InteractionLayoutKind) throws {
        let base = testSeed(default: 0x1A7E_5EED) &+ UInt64(InteractionLayoutKind.allCases.firstIndex(of: kind)!) &* 1_000
        var failures = 0
        for round in 0..<60 {
            let seed = base &+ UInt64(round)
            let world = InteractionWorld(seed: seed, kind: kind)
            for stepIndex in 0..<120 {
                let plans: [AnimationPlan]
                do {
                    plans = try world.step()
                } catch {
                    Issue.record("seed \(seed) step \(stepIndex): unexpected error \(error); \(world.description)")
                    failures += 1
                    break
                }
                let found = world.violations(after: plans)
                if !found.isEmpty {
                    Issue.record("seed \(seed) step \(stepIndex): \(found.prefix(4)); \(world.description)")
                    failures += 1
                    break
                }
            }
            if failures >= 5 { break }
        }
    }
}
