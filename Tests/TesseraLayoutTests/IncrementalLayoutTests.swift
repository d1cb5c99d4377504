import Foundation
import Testing
import TesseraDiff
@testable import TesseraLayout
import TesseraTestSupport
import TesseraTestTraits

/// A delegate of every built-in layout that answers nothing of its own and
/// counts the items each section was asked about: the items laid out.
final class CountingDelegate: FlowLayoutDelegate, ListLayoutDelegate, HorizontalListLayoutDelegate, ListStackLayoutDelegate, ColumnLayoutDelegate, StyledFlowLayoutDelegate {
    var itemsAsked: [Int: Int] = [:]

    private func ask(_ indexPath: IndexPath) { itemsAsked[indexPath[0], default: 0] += 1 }

    func flowLayout(_ layout: FlowLayout, sizeForItemAt indexPath: IndexPath) -> Size? { ask(indexPath); return nil }
    func listLayout(_ layout: ListLayout, heightForItemAt indexPath: IndexPath) -> Double? { ask(indexPath); return nil }
    func horizontalListLayout(_ layout: HorizontalListLayout, widthForItemAt indexPath: IndexPath) -> Double? { ask(indexPath); return nil }
    func listStackLayout(_ layout: ListStackLayout, sizeForItemAt indexPath: IndexPath) -> Size? { ask(indexPath); return nil }
    func columnLayout(_ layout: ColumnLayout, heightForItemAt indexPath: IndexPath) -> Double? { ask(indexPath); return nil }
    func styledFlowLayout(_ layout: StyledFlowLayout, styleForItemAt indexPath: IndexPath) -> StyledFlowLayout.ItemStyle {
        ask(indexPath)
        return layout.defaultItemStyle
    }
}

/// A built-in layout of each kind, with headers where it has them, reading
/// `delegate` when one is given.
func makeLayout(_ kind: LayoutKind, delegate: CountingDelegate?) -> FrameStorageLayout {
    switch kind {
    case .flow:
        let layout = FlowLayout()
        layout.itemSize = Size(width: 90, height: 90)
        layout.headerReferenceSize = Size(width: 0, height: 40)
        layout.delegate = delegate
        return layout
    case .styledFlow:
        let layout = StyledFlowLayout()
        layout.headerHeight = 30
        layout.delegate = delegate
        return layout
    case .list:
        let layout = ListLayout()
        layout.headerHeight = 20
        layout.delegate = delegate
        return layout
    case .horizontalList:
        let layout = HorizontalListLayout()
        layout.delegate = delegate
        return layout
    case .listStack:
        let layout = ListStackLayout()
        layout.headerLength = 30
        layout.delegate = delegate
        return layout
    case .column:
        let layout = ColumnLayout()
        layout.headerHeight = 20
        layout.delegate = delegate
        return layout
    }
}

/// Runs a batch on `layout` as a collection view does: the counts change,
/// and the context names the sections the batch changes, with its mapping.
func performBatch(_ items: [UpdateItem], changing sections: [Int], countsAfter: [Int], on layout: CollectionViewLayout, environment: StaticLayoutEnvironment) throws {
    let mapping = try BatchIndexMapping(items, itemCountsBefore: environment.itemCounts, itemCountsAfter: countsAfter)
    environment.itemCounts = countsAfter
    let context = InvalidationContext()
    context.invalidateSections(sections, updateIndexMapping: mapping)
    layout.invalidateLayout(with: context)
    layout.prepare()
}

/// What a new layout of the same kind prepared on `environment` answers.
func freshState(_ kind: LayoutKind, delegate: CountingDelegate?, environment: StaticLayoutEnvironment) -> LayoutState {
    let fresh = makeLayout(kind, delegate: delegate)
    fresh.collectionView = environment
    fresh.prepare()
    return LayoutState(of: fresh, itemCounts: environment.itemCounts)
}

@Suite("Incremental layout: a batch lays out only the sections it changes", .cpuBound)
struct IncrementalLayoutTests {
    @Test("A one-item insert in one section asks the delegate about that section's items only, and the layout equals a fresh one", arguments: LayoutKind.allCases)
    func oneSectionInsertLaysOutOneSection(kind: LayoutKind) throws {
        let delegate = CountingDelegate()
        let layout = makeLayout(kind, delegate: delegate)
        let environment = StaticLayoutEnvironment(size: Size(width: 390, height: 844), itemCounts: Array(repeating: 25, count: 40))
        layout.collectionView = environment
        layout.prepare()
        #expect(delegate.itemsAsked.count == 40)
        delegate.itemsAsked = [:]

        var counts = environment.itemCounts
        counts[17] += 1
        try performBatch([.insertItem(at: IndexPath(item: 3, section: 17))], changing: [17], countsAfter: counts, on: layout, environment: environment)
        if kind == .listStack {
            // Sections share rows: the sections after the one that grew
            // start from another row state and are laid out again.
            #expect(delegate.itemsAsked[17] == 26)
            #expect(delegate.itemsAsked.keys.allSatisfy { $0 >= 17 })
        } else {
            #expect(delegate.itemsAsked == [17: 26], "\(kind): \(delegate.itemsAsked)")
        }
        let actual = LayoutState(of: layout, itemCounts: environment.itemCounts)
        let expected = freshState(kind, delegate: delegate, environment: environment)
        #expect(actual == expected, "\(kind): \(actual.difference(from: expected))")
    }

    @Test("A reload that changes no size lays out its section only, ListStackLayout's too (the row state after it is the same)", arguments: LayoutKind.allCases)
    func reloadLaysOutOneSection(kind: LayoutKind) throws {
        let delegate = CountingDelegate()
        let layout = makeLayout(kind, delegate: delegate)
        let environment = StaticLayoutEnvironment(size: Size(width: 390, height: 844), itemCounts: Array(repeating: 25, count: 40))
        layout.collectionView = environment
        layout.prepare()
        delegate.itemsAsked = [:]
        try performBatch([.reloadItem(at: IndexPath(item: 3, section: 9))], changing: [9], countsAfter: environment.itemCounts, on: layout, environment: environment)
        #expect(delegate.itemsAsked == [9: 25], "\(kind): \(delegate.itemsAsked)")
    }

    @Test("Without a delegate, a section inserted at the top lays out only itself: every other section keeps its frames, shared with the state before and shifted", arguments: LayoutKind.allCases)
    func sectionInsertWithoutDelegateSharesEverySection(kind: LayoutKind) throws {
        let layout = makeLayout(kind, delegate: nil)
        let environment = StaticLayoutEnvironment(size: Size(width: 390, height: 844), itemCounts: (0..<30).map { 5 + $0 % 7 })
        layout.collectionView = environment
        layout.prepare()
        let before = layout.store.sections
        try performBatch([.insertSection(0)], changing: [0], countsAfter: [3] + environment.itemCounts, on: layout, environment: environment)
        let after = layout.store.sections
        #expect(after.count == before.count + 1)
        if kind == .listStack {
            // Its sections share rows: a section that starts from another
            // row state is laid out again, so this checks only the frames.
            #expect(after.count == 31)
        } else {
            for section in before.indices {
                #expect(after[section + 1] === before[section], "\(kind): section \(section) was laid out again")
            }
        }
        let actual = LayoutState(of: layout, itemCounts: environment.itemCounts)
        let expected = freshState(kind, delegate: nil, environment: environment)
        #expect(actual == expected, "\(kind): \(actual.difference(from: expected))")
    }

    @Test("With a delegate, a section inserted at the top lays out every section whose index changes (the delegate answers by index)")
    func sectionInsertWithDelegateLaysOutShiftedSections() throws {
        let delegate = CountingDelegate()
        let layout = makeLayout(.flow, delegate: delegate)
        let environment = StaticLayoutEnvironment(size: Size(width: 390, height: 844), itemCounts: Array(repeating: 4, count: 10))
        layout.collectionView = environment
        layout.prepare()
        delegate.itemsAsked = [:]
        try performBatch([.insertSection(3)], changing: [3], countsAfter: Array(repeating: 4, count: 11), on: layout, environment: environment)
        #expect(delegate.itemsAsked == Dictionary(uniqueKeysWithValues: (3..<11).map { ($0, 4) }))
    }

    @Test("A batch keeps the state before it without copying: the layout answers for it until the batch ends, and the frames of the sections it keeps exist once")
    func previousStateIsShared() throws {
        let layout = makeLayout(.flow, delegate: nil)
        let environment = StaticLayoutEnvironment(size: Size(width: 390, height: 844), itemCounts: Array(repeating: 100, count: 20))
        layout.collectionView = environment
        layout.prepare()
        let items: [UpdateItem] = [.deleteItem(at: IndexPath(item: 0, section: 5))]
        var counts = environment.itemCounts
        counts[5] -= 1
        let mapping = try BatchIndexMapping(items, itemCountsBefore: environment.itemCounts, itemCountsAfter: counts)
        layout._beginBatchUpdate(items, mapping: mapping)
        try performBatch(items, changing: [5], countsAfter: counts, on: layout, environment: environment)
        let previous = try #require(layout.buffers.previous)
        for section in 0..<20 where section != 5 {
            #expect(previous.sections[section] === layout.store.sections[section])
        }
        #expect(previous.sections[5] !== layout.store.sections[5])
        // Items after the deleted one start where they were.
        let moved = layout.initialLayoutAttributesForAppearingItem(at: IndexPath(item: 0, section: 5))
        #expect(moved?.frame == previous.itemFrame(at: IndexPath(item: 1, section: 5)))
        layout.finalizeCollectionViewUpdates()
        #expect(layout.buffers.previous == nil)
    }

    @Test("Memory: 32 bytes per item frame plus bands, and a few hundred bytes per section")
    func storagePerItem() {
        let layout = makeLayout(.flow, delegate: nil)
        let environment = StaticLayoutEnvironment(size: Size(width: 390, height: 844), itemCounts: Array(repeating: 1_000, count: 100))
        layout.collectionView = environment
        layout.prepare()
        // 4 items per line: 32 bytes per item and 20 per band of 4.
        #expect(layout.storageByteCount <= 100_000 * (32 + 5) + 100 * 600, "\(layout.storageByteCount) bytes")
    }

    @Test("InvalidationContext: sections are named without repeats, a batch carries its mapping, and merging two batches falls back to recomputing from the first section named")
    func invalidationContextSections() throws {
        let mapping = try BatchIndexMapping([.insertItem(at: IndexPath(item: 0, section: 2))], itemCountsBefore: [1, 1, 1], itemCountsAfter: [1, 1, 2])
        let context = InvalidationContext()
        context.invalidateSections([4, 2, -3, 2])
        context.invalidateItems(at: [IndexPath(item: 1, section: 7)])
        #expect(context.invalidatedSections == [0, 2, 4, 7])
        #expect(context.updateIndexMapping == nil)
        #expect(context.firstSectionToRecompute == 0)

        let batch = InvalidationContext()
        batch.invalidateSections([2], updateIndexMapping: mapping)
        #expect(batch.invalidateDataSourceCounts)
        #expect(batch.updateIndexMapping != nil)
        #expect(batch.invalidatedSections == [2])
        #expect(batch.firstInvalidatedSection == 2)

        let other = InvalidationContext()
        other.invalidateSections([1], updateIndexMapping: mapping)
        batch.merge(other)
        #expect(batch.updateIndexMapping == nil)
        #expect(batch.invalidatedSections == [1, 2])
        #expect(batch.firstSectionToRecompute == 1)

        let supplementary = InvalidationContext()
        supplementary.invalidateSupplementaryElements(ofKind: ElementKind.sectionHeader, at: [IndexPath(item: 0, section: 3), IndexPath(item: 0, section: 1)])
        #expect(supplementary.invalidatedSupplementarySections == [1, 3])
    }

    @Test("Without counts changed, a context that names sections lays out those sections only; with counts changed and no mapping, every section from the first named on")
    func namedSectionsWithoutMapping() {
        let delegate = CountingDelegate()
        let layout = makeLayout(.flow, delegate: delegate)
        let environment = StaticLayoutEnvironment(size: Size(width: 390, height: 844), itemCounts: Array(repeating: 3, count: 8))
        layout.collectionView = environment
        layout.prepare()
        delegate.itemsAsked = [:]
        let named = InvalidationContext()
        named.invalidateSections([2, 5])
        layout.invalidateLayout(with: named)
        layout.prepare()
        #expect(delegate.itemsAsked == [2: 3, 5: 3])

        delegate.itemsAsked = [:]
        environment.itemCounts[6] = 4
        let counts = InvalidationContext(invalidateDataSourceCounts: true)
        counts.invalidateSections([5])
        layout.invalidateLayout(with: counts)
        layout.prepare()
        #expect(delegate.itemsAsked == [5: 3, 6: 4, 7: 3])
        let expected = freshState(.flow, delegate: delegate, environment: environment)
        #expect(LayoutState(of: layout, itemCounts: environment.itemCounts) == expected)
    }
}
