#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Testing
import TesseraDiff
import TesseraLayout
import TesseraView
import CalendarLayoutExample
import TesseraTestSupport
import TesseraTestTraits

final class Week: CalendarLayoutDataSource, CollectionViewDataSource {
    var events: [CalendarEvent]
    init(_ events: [CalendarEvent]) { self.events = events }
    func calendarLayout(_ layout: CalendarLayout, eventAt indexPath: IndexPath) -> CalendarEvent { events[indexPath.item] }
    func numberOfSections(in collectionView: CollectionView) -> Int { 1 }
    func collectionView(_ collectionView: CollectionView, numberOfItemsInSection section: Int) -> Int { events.count }
}

@Suite("CalendarLayout example", .cpuBound)
struct CalendarLayoutTests {
    /// 50 + 7 × 100 = 750 wide; hours of 60 under 40 of day headers.
    func make(_ week: Week) throws -> (CalendarLayout, CollectionView) {
        let layout = CalendarLayout()
        layout.dataSource = week
        let view = CollectionView(layout: layout, size: Size(width: 750, height: 600))
        view.dataSource = week
        view.reloadData()
        return (layout, view)
    }

    @Test("Events span their time in their day's column; the content holds every hour")
    func frames() throws {
        let week = Week([CalendarEvent(day: 0, start: 9, end: 10.5), CalendarEvent(day: 3, start: 13, end: 14)])
        let (layout, view) = try make(week)
        #expect(layout.layoutAttributesForItem(at: IndexPath(item: 0, section: 0))?.frame == Rect(x: 50, y: 580, width: 100, height: 90))
        #expect(layout.layoutAttributesForItem(at: IndexPath(item: 1, section: 0))?.frame == Rect(x: 350, y: 820, width: 100, height: 60))
        #expect(layout.collectionViewContentSize == Size(width: 750, height: 40 + 24 * 60))
        #expect(layout.layoutAttributesForSupplementaryView(ofKind: CalendarLayout.dayHeaderKind, at: IndexPath(item: 2, section: 0))?.frame
            == Rect(x: 250, y: 0, width: 100, height: 40))
        #expect(layout.layoutAttributesForSupplementaryView(ofKind: CalendarLayout.hourHeaderKind, at: IndexPath(item: 9, section: 0))?.frame
            == Rect(x: 0, y: 580, width: 50, height: 60))
        withExtendedLifetime(view) {}
    }

    @Test("Rect queries equal a brute-force filter over every element")
    func queries() throws {
        let seed = testSeed(default: 0xCA1)
        var generator = SplitMix64(seed: seed)
        let events = (0..<300).map { _ -> CalendarEvent in
            let start = Double(Int.random(in: 0..<46, using: &generator)) / 2
            return CalendarEvent(day: Int.random(in: 0..<7, using: &generator), start: start, end: start + Double(Int.random(in: 1...6, using: &generator)) / 2)
        }
        let (layout, view) = try make(Week(events))
        var everything: [LayoutAttributes] = []
        for day in 0..<7 { everything += layout.layoutAttributesForSupplementaryView(ofKind: CalendarLayout.dayHeaderKind, at: IndexPath(item: day, section: 0)).map { [$0] } ?? [] }
        for hour in 0..<24 { everything += layout.layoutAttributesForSupplementaryView(ofKind: CalendarLayout.hourHeaderKind, at: IndexPath(item: hour, section: 0)).map { [$0] } ?? [] }
        everything += (0..<events.count).compactMap { layout.layoutAttributesForItem(at: IndexPath(item: $0, section: 0)) }
        for _ in 0..<200 {
            let rect = Rect(x: Double(Int.random(in: -50...760, using: &generator)), y: Double(Int.random(in: -50...1500, using: &generator)),
                            width: Double(Int.random(in: 1...400, using: &generator)), height: Double(Int.random(in: 1...700, using: &generator)))
            #expect(layout.layoutAttributesForElements(in: rect) == everything.filter { $0.frame.intersects(rect) }, "seed \(seed): \(rect)")
        }
        withExtendedLifetime(view) {}
    }

    @Test("Only a change of width invalidates the layout")
    func invalidation() throws {
        let (layout, view) = try make(Week([]))
        #expect(!layout.shouldInvalidateLayout(forBoundsChange: Rect(x: 0, y: 300, width: 750, height: 600)))
        #expect(layout.shouldInvalidateLayout(forBoundsChange: Rect(x: 0, y: 0, width: 800, height: 600)))
        withExtendedLifetime(view) {}
    }

    @Test("An inserted event grows in: it starts faded and scaled down at its final frame")
    func insertedEventAnimation() throws {
        let week = Week([CalendarEvent(day: 1, start: 1, end: 2)])
        let (_, view) = try make(week)
        week.events.append(CalendarEvent(day: 2, start: 1, end: 3))
        let plan = try view.performBatchUpdates([.insertItem(at: IndexPath(item: 1, section: 0))])
        let inserted = try #require(plan.elements.first { $0.category == .cell && $0.indexPathAfter == IndexPath(item: 1, section: 0) })
        #expect(inserted.disposition == .insert && inserted.from.alpha == 0 && inserted.from.transform == .scale(0.2, 0.2))
        #expect(inserted.to.frame == Rect(x: 250, y: 100, width: 100, height: 120))
    }

    @Test("An event on a day that does not exist is a layout error, not a trap")
    func badEvent() throws {
        let (layout, view) = try make(Week([CalendarEvent(day: 9, start: 1, end: 2)]))
        #expect(layout.layoutError?.subject == .itemSize(IndexPath(item: 0, section: 0)))
        withExtendedLifetime(view) {}
    }
}
