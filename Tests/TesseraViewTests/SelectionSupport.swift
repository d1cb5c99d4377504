import Foundation
import TesseraDiff
import TesseraLayout
import TesseraTestSupport
import TesseraView

/// A delegate that writes down every call, in order, and answers the
/// `should…` questions from its settings.
final class RecordingSelectionDelegate: CollectionViewDelegate {
    enum Call: Hashable, CustomStringConvertible {
        case shouldHighlight(IndexPath), didHighlight(IndexPath), didUnhighlight(IndexPath)
        case shouldSelect(IndexPath), didSelect(IndexPath), shouldDeselect(IndexPath), didDeselect(IndexPath)

        var description: String {
            func text(_ path: IndexPath) -> String { "[\(path[0]), \(path[1])]" }
            switch self {
            case let .shouldHighlight(path): return "shouldHighlight \(text(path))"
            case let .didHighlight(path): return "didHighlight \(text(path))"
            case let .didUnhighlight(path): return "didUnhighlight \(text(path))"
            case let .shouldSelect(path): return "shouldSelect \(text(path))"
            case let .didSelect(path): return "didSelect \(text(path))"
            case let .shouldDeselect(path): return "shouldDeselect \(text(path))"
            case let .didDeselect(path): return "didDeselect \(text(path))"
            }
        }
    }

    var calls: [Call] = []
    var allowsHighlight = true
    var allowsSelect = true
    var allowsDeselect = true

    func collectionView(_ collectionView: CollectionView, shouldHighlightItemAt indexPath: IndexPath) -> Bool {
        calls.append(.shouldHighlight(indexPath))
        return allowsHighlight
    }
    func collectionView(_ collectionView: CollectionView, didHighlightItemAt indexPath: IndexPath) { calls.append(.didHighlight(indexPath)) }
    func collectionView(_ collectionView: CollectionView, didUnhighlightItemAt indexPath: IndexPath) { calls.append(.didUnhighlight(indexPath)) }
    func collectionView(_ collectionView: CollectionView, shouldSelectItemAt indexPath: IndexPath) -> Bool {
        calls.append(.shouldSelect(indexPath))
        return allowsSelect
    }
    func collectionView(_ collectionView: CollectionView, didSelectItemAt indexPath: IndexPath) { calls.append(.didSelect(indexPath)) }
    func collectionView(_ collectionView: CollectionView, shouldDeselectItemAt indexPath: IndexPath) -> Bool {
        calls.append(.shouldDeselect(indexPath))
        return allowsDeselect
    }
    func collectionView(_ collectionView: CollectionView, didDeselectItemAt indexPath: IndexPath) { calls.append(.didDeselect(indexPath)) }
}

/// Random changes to a snapshot, one after another (a chain, unlike
/// `RandomSnapshotPairs`, which makes independent pairs): section deletes,
/// moves, content changes and inserts; item deletes, content changes, moves
/// within and across sections, and inserts.
struct RandomSnapshotChain {
    var generator: SplitMix64
    var nextID = 0

    init(seed: UInt64) {
        generator = SplitMix64(seed: seed)
    }

    mutating func freshID() -> Int {
        nextID += 1
        return nextID
    }

    mutating func chance(_ percent: Int) -> Bool {
        Int.random(in: 0..<100, using: &generator) < percent
    }

    /// A first snapshot.
    mutating func start(maxSections: Int = 6, maxItems: Int = 20) -> TestSnapshot {
        var snapshot = TestSnapshot()
        for _ in 0..<Int.random(in: 1...maxSections, using: &generator) {
            let count = Int.random(in: 0...maxItems, using: &generator)
            snapshot.appendSection(TestSection(id: freshID()), items: (0..<count).map { _ in TestItem(id: freshID()) })
        }
        return snapshot
    }

    /// The next snapshot after `snapshot`.
    mutating func next(after snapshot: TestSnapshot, maxSections: Int = 8) -> TestSnapshot {
        var sections: [(TestSection, [TestItem])] = (0..<snapshot.numberOfSections).map {
            (snapshot[section: $0], Array(snapshot.items(inSection: $0)))
        }
        let intensity = Int.random(in: 0...60, using: &generator)
        sections.removeAll { _ in chance(intensity / 4) }
        if !sections.isEmpty, chance(intensity) {
            for _ in 0..<Int.random(in: 1...3, using: &generator) {
                let moved = sections.remove(at: Int.random(in: 0..<sections.count, using: &generator))
                sections.insert(moved, at: Int.random(in: 0...sections.count, using: &generator))
            }
        }
        for s in sections.indices where chance(intensity / 3) { sections[s].0.content += 1 }
        for _ in 0..<Int.random(in: 0...2, using: &generator) where chance(intensity) && sections.count < maxSections {
            let count = Int.random(in: 0...6, using: &generator)
            sections.insert(
                (TestSection(id: freshID()), (0..<count).map { _ in TestItem(id: freshID()) }),
                at: Int.random(in: 0...sections.count, using: &generator)
            )
        }
        for s in sections.indices {
            sections[s].1.removeAll { _ in chance(intensity / 4) }
            for i in sections[s].1.indices where chance(intensity / 3) { sections[s].1[i].content += 1 }
        }
        if !sections.isEmpty {
            for _ in 0..<Int.random(in: 0...8, using: &generator) where chance(intensity) {
                let from = Int.random(in: 0..<sections.count, using: &generator)
                guard !sections[from].1.isEmpty else { continue }
                let item = sections[from].1.remove(at: Int.random(in: 0..<sections[from].1.count, using: &generator))
                let to = chance(50) ? from : Int.random(in: 0..<sections.count, using: &generator)
                sections[to].1.insert(item, at: Int.random(in: 0...sections[to].1.count, using: &generator))
            }
            for _ in 0..<Int.random(in: 0...6, using: &generator) where chance(intensity) {
                let to = Int.random(in: 0..<sections.count, using: &generator)
                sections[to].1.insert(TestItem(id: freshID()), at: Int.random(in: 0...sections[to].1.count, using: &generator))
            }
        }
        return TestSnapshot(sections)
    }
}

/// A small grid view: 40-point items in a 200 × 240 viewport, so a plan
/// holds a few dozen cells and some items are off screen.
func makeSelectionTestView() -> CollectionView {
    let layout = FlowLayout()
    layout.itemSize = Size(width: 40, height: 40)
    return CollectionView(layout: layout, size: Size(width: 200, height: 240))
}

/// The index path of every item of a snapshot, by id.
func indexPathsByID(_ snapshot: TestSnapshot) -> [Int: IndexPath] {
    var result: [Int: IndexPath] = [:]
    for section in 0..<snapshot.numberOfSections {
        for (item, element) in snapshot.items(inSection: section).enumerated() {
            result[element.id] = IndexPath(item: item, section: section)
        }
    }
    return result
}
