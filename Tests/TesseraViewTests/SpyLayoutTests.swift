import Foundation
import Testing
import TesseraDiff
import TesseraLayout
import TesseraTestSupport
import TesseraView
import TesseraTestTraits

/// A list layout that records every call of the update cycle.
final class SpyLayout: ListLayout {
    var calls: [String] = []
    override func prepare() { calls.append("prepare"); super.prepare() }
    override func invalidateLayout(with context: InvalidationContext) { calls.append("invalidateLayout(with:)"); super.invalidateLayout(with: context) }
    override func prepare(forCollectionViewUpdates updateItems: [UpdateItem]) { calls.append("prepare(forCollectionViewUpdates:)"); super.prepare(forCollectionViewUpdates: updateItems) }
    override func finalizeCollectionViewUpdates() { calls.append("finalizeCollectionViewUpdates"); super.finalizeCollectionViewUpdates() }
    override func initialLayoutAttributesForAppearingItem(at itemIndexPath: IndexPath) -> LayoutAttributes? {
        calls.append("initialLayoutAttributesForAppearingItem"); return super.initialLayoutAttributesForAppearingItem(at: itemIndexPath)
    }
    override func finalLayoutAttributesForDisappearingItem(at itemIndexPath: IndexPath) -> LayoutAttributes? {
        calls.append("finalLayoutAttributesForDisappearingItem"); return super.finalLayoutAttributesForDisappearingItem(at: itemIndexPath)
    }
    override func targetContentOffset(forProposedContentOffset proposedContentOffset: Point) -> Point {
        calls.append("targetContentOffset(forProposedContentOffset:)"); return super.targetContentOffset(forProposedContentOffset: proposedContentOffset)
    }
    override func shouldInvalidateLayout(forBoundsChange newBounds: Rect) -> Bool {
        calls.append("shouldInvalidateLayout(forBoundsChange:)"); return super.shouldInvalidateLayout(forBoundsChange: newBounds)
    }
    override func invalidationContext(forBoundsChange newBounds: Rect) -> InvalidationContext {
        calls.append("invalidationContext(forBoundsChange:)"); return super.invalidationContext(forBoundsChange: newBounds)
    }
    override func prepare(forAnimatedBoundsChange oldBounds: Rect) { calls.append("prepare(forAnimatedBoundsChange:)"); super.prepare(forAnimatedBoundsChange: oldBounds) }
    override func finalizeAnimatedBoundsChange() { calls.append("finalizeAnimatedBoundsChange"); super.finalizeAnimatedBoundsChange() }
    override func prepareForTransition(to newLayout: CollectionViewLayout) { calls.append("prepareForTransition(to:)"); super.prepareForTransition(to: newLayout) }
    override func prepareForTransition(from oldLayout: CollectionViewLayout) { calls.append("prepareForTransition(from:)"); super.prepareForTransition(from: oldLayout) }
    override func finalizeLayoutTransition() { calls.append("finalizeLayoutTransition"); super.finalizeLayoutTransition() }

    /// The calls without repeats of the same call in a row.
    var collapsedCalls: [String] {
        calls.reduce(into: []) { result, call in if result.last != call { result.append(call) } }
    }
}

@Suite("Update cycle order", .cpuBound)
struct SpyLayoutTests {
    @Test("A batch runs the cycle in UIKit's order")
    func batchOrder() throws {
        let layout = SpyLayout()
        let view = CollectionView(layout: layout, size: Size(width: 320, height: 200))
        let source = DiffableDataSource<TestSection, TestItem>(collectionView: view)
        try source.apply(TestSnapshot([0: [1, 2, 3]]), animated: false)
        layout.calls = []
        try source.apply(TestSnapshot([0: [4, 1, 3]]))
        #expect(layout.collapsedCalls == [
            "invalidateLayout(with:)", "prepare", "prepare(forCollectionViewUpdates:)",
            "targetContentOffset(forProposedContentOffset:)",
            "initialLayoutAttributesForAppearingItem", "finalLayoutAttributesForDisappearingItem",
            "finalizeCollectionViewUpdates",
        ])
    }

    @Test("A bounds change that invalidates runs its cycle in order; a scroll that does not, only asks")
    func boundsOrder() throws {
        let layout = SpyLayout()
        let view = CollectionView(layout: layout, size: Size(width: 320, height: 200))
        let source = DiffableDataSource<TestSection, TestItem>(collectionView: view)
        try source.apply(TestSnapshot([0: Array(0..<20)]), animated: false)
        layout.calls = []
        view.setBounds(Rect(x: 0, y: 0, width: 400, height: 200))
        #expect(layout.collapsedCalls == [
            "shouldInvalidateLayout(forBoundsChange:)", "invalidationContext(forBoundsChange:)", "invalidateLayout(with:)",
            "prepare", "prepare(forAnimatedBoundsChange:)", "finalizeAnimatedBoundsChange",
        ])
        layout.calls = []
        view.setBounds(Rect(x: 0, y: 50, width: 400, height: 200))
        #expect(layout.calls == ["shouldInvalidateLayout(forBoundsChange:)"])
    }

    @Test("A layout transition runs its cycle in order")
    func transitionOrder() throws {
        let old = SpyLayout()
        let view = CollectionView(layout: old, size: Size(width: 320, height: 200))
        let source = DiffableDataSource<TestSection, TestItem>(collectionView: view)
        try source.apply(TestSnapshot([0: [1, 2]]), animated: false)
        let new = SpyLayout()
        new.itemHeight = 80
        old.calls = []
        view.setCollectionViewLayout(new)
        #expect(old.calls == ["prepareForTransition(to:)", "finalizeLayoutTransition"])
        #expect(new.collapsedCalls == [
            "invalidateLayout(with:)", "prepare", "prepareForTransition(from:)",
            "targetContentOffset(forProposedContentOffset:)", "finalizeLayoutTransition",
        ])
        #expect(view.collectionViewLayout === new)
    }
}
