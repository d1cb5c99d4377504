import Foundation
import Testing
import TesseraDiff
import TesseraLayout
import TesseraTestSupport
import TesseraTestTraits

struct Tilt: LayoutAttributesExtension {
    var angle: Double
    func interpolated(to other: Tilt, progress: Double) -> Tilt {
        Tilt(angle: angle + (other.angle - angle) * progress)
    }
}

struct Badge: LayoutAttributesExtension {
    var text: String
}

@Suite("LayoutAttributes", .cpuBound)
struct LayoutAttributesTests {
    @Test("Center and size are derived from the frame; setting size keeps the center")
    func derived() {
        var attributes = LayoutAttributes.cell(at: IndexPath(item: 0, section: 0), frame: Rect(x: 0, y: 0, width: 10, height: 20))
        #expect(attributes.center == Point(x: 5, y: 10))
        attributes.size = Size(width: 20, height: 10)
        #expect(attributes.frame == Rect(x: -5, y: 5, width: 20, height: 10))
        attributes.center = Point(x: 100, y: 100)
        #expect(attributes.frame == Rect(x: 90, y: 95, width: 20, height: 10))
        #expect(attributes.bounds == Rect(x: 0, y: 0, width: 20, height: 10))
    }

    @Test("Custom values take part in equality and hashing")
    func extensionEquality() {
        var a = LayoutAttributes.cell(at: IndexPath(item: 0, section: 0), frame: .zero)
        var b = a
        a[Tilt.self] = Tilt(angle: 1)
        #expect(a != b)
        b[Tilt.self] = Tilt(angle: 1)
        #expect(a == b && a.hashValue == b.hashValue)
        b[Badge.self] = Badge(text: "new")
        #expect(a != b)
        #expect(b[Badge.self]?.text == "new" && b.extensionKeys == [Badge.extensionKey, Tilt.extensionKey].sorted())
        #expect(Badge.extensionKey == "TesseraLayoutTests.Badge")
    }

    @Test("Interpolation mixes frame, alpha, transform and custom values")
    func interpolation() {
        var from = LayoutAttributes.cell(at: IndexPath(item: 0, section: 0), frame: Rect(x: 0, y: 0, width: 10, height: 10))
        from[Tilt.self] = Tilt(angle: 0)
        from[Badge.self] = Badge(text: "old")
        from.alpha = 0
        var to = from
        to.frame = Rect(x: 100, y: 50, width: 20, height: 10)
        to.alpha = 1
        to.transform = .scale(3, 3)
        to[Tilt.self] = Tilt(angle: 1)
        to[Badge.self] = Badge(text: "new")
        let quarter = from.interpolated(to: to, progress: 0.25)
        #expect(quarter.frame == Rect(x: 25, y: 12.5, width: 12.5, height: 10))
        #expect(quarter.alpha == 0.25)
        #expect(quarter.transform == .scale(1.5, 1.5))
        #expect(quarter[Tilt.self] == Tilt(angle: 0.25))
        #expect(quarter[Badge.self] == Badge(text: "old"))
        #expect(from.interpolated(to: to, progress: 0.75)[Badge.self] == Badge(text: "new"))
        #expect(from.interpolated(to: to, progress: 1) == to)
    }
}

@Suite("LayoutAttributes coding", .cpuBound)
struct LayoutAttributesCodingTests {
    @Test("Attributes with custom values round-trip when the decoder knows the extension types")
    func roundTrip() throws {
        var attributes = LayoutAttributes.supplementaryView(ofKind: ElementKind.sectionHeader, at: IndexPath(item: 0, section: 3), frame: Rect(x: 1, y: 2, width: 3, height: 4))
        attributes.alpha = 0.5
        attributes.zIndex = 10
        attributes[Tilt.self] = Tilt(angle: 0.3)
        attributes[Badge.self] = Badge(text: "hi")
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let data = try encoder.encode(attributes)
        let decoder = JSONDecoder()
        decoder.userInfo[.layoutAttributesExtensions] = [Tilt.self, Badge.self] as [any LayoutAttributesExtension.Type]
        #expect(try decoder.decode(LayoutAttributes.self, from: data) == attributes)
        #expect(try encoder.encode(attributes) == data)
    }

    @Test("An unknown custom value is an error naming its key")
    func unknownExtension() throws {
        var attributes = LayoutAttributes.cell(at: IndexPath(item: 0, section: 0), frame: .zero)
        attributes[Badge.self] = Badge(text: "x")
        let data = try JSONEncoder().encode(attributes)
        #expect {
            try JSONDecoder().decode(LayoutAttributes.self, from: data)
        } throws: { error in
            "\(error)".contains("unknown layout attributes extension 'TesseraLayoutTests.Badge'")
        }
    }
}

@Suite("Abstract layout defaults", .cpuBound)
struct AbstractLayoutTests {
    @Test("Inserted items appear at their final frame with alpha 0; deleted ones leave from their old frame")
    func updateDefaults() {
        let environment = StaticLayoutEnvironment(size: Size(width: 300, height: 600), itemCounts: [3])
        let layout = ListLayout()
        layout.collectionView = environment
        layout.itemHeight = 10
        layout.prepare()
        let deleted = IndexPath(item: 0, section: 0)
        let inserted = IndexPath(item: 2, section: 0)
        let batch: [UpdateItem] = [.deleteItem(at: deleted), .insertItem(at: inserted)]
        // The collection view's order: capture, re-prepare, then tell the layout.
        layout._beginBatchUpdate(batch)
        environment.itemCounts = [3]
        layout.invalidateLayout()
        layout.prepare()
        layout.prepare(forCollectionViewUpdates: batch)
        var appearing = layout.layoutAttributesForItem(at: inserted)
        appearing?.alpha = 0
        #expect(layout.initialLayoutAttributesForAppearingItem(at: inserted) == appearing)
        // Item 1 before the update is item 0 after it: it starts where it was.
        #expect(layout.initialLayoutAttributesForAppearingItem(at: IndexPath(item: 0, section: 0))?.frame == Rect(x: 0, y: 10, width: 300, height: 10))
        var leaving = LayoutAttributes.cell(at: deleted, frame: Rect(x: 0, y: 0, width: 300, height: 10))
        leaving.alpha = 0
        #expect(layout.finalLayoutAttributesForDisappearingItem(at: deleted) == leaving)
        #expect(layout.finalLayoutAttributesForDisappearingItem(at: IndexPath(item: 1, section: 0)) == nil)
        layout.finalizeCollectionViewUpdates()
        #expect(layout.updateItems.isEmpty && layout.finalLayoutAttributesForDisappearingItem(at: deleted) == nil)
    }

    @Test("Invalidation contexts accumulate until prepare, and decoration kinds register once")
    func contextsAndDecorations() {
        let layout = CollectionViewLayout()
        let first = InvalidationContext()
        first.invalidateSections([4])
        let second = InvalidationContext()
        second.invalidateItems(at: [IndexPath(item: 3, section: 2)])
        layout.invalidateLayout(with: first)
        layout.invalidateLayout(with: second)
        #expect(layout.pendingInvalidation?.firstInvalidatedSection == 2)
        #expect(layout.pendingInvalidation?.invalidatedItemIndexPaths == [IndexPath(item: 3, section: 2)])
        layout.prepare()
        #expect(layout.pendingInvalidation == nil)
        layout.register(decorationViewOfKind: "Shelf")
        layout.register(decorationViewOfKind: "Shelf")
        #expect(layout.registeredDecorationKinds == ["Shelf"])
        #expect(layout.targetContentOffset(forProposedContentOffset: Point(x: 1, y: 2)) == Point(x: 1, y: 2))
    }
}
