import CalendarLayoutExample
import Testing
import TesseraLayout
import TesseraView

/// The pieces of `CalendarLayout` the "Writing your own layout" article
/// shows, compiled in a subclass of the example's layout, which declares the
/// properties they use (the example keeps its own private).
open class ArticleCalendarLayout: CalendarLayout {
    var width: Double = 0
    var dayWidth: Double = 0
    var hourLength: Double = 0
    var hourHeaderLength: Double = 0
    var dayHeaderLength: Double = 0
    var hours = 0
    var frames: [[Rect]] = []

    // sample: Sources/TesseraLayout/TesseraLayout.docc/WritingYourOwnLayout.md
    open override func prepare() {
        super.prepare()
        guard let environment = collectionView else { return }
        width = environment.bounds.size.width
        hourLength = checkedLength(hourHeight, .property("hourHeight"))
        hourHeaderLength = checkedLength(hourHeaderWidth, .property("hourHeaderWidth"))
        dayHeaderLength = checkedLength(dayHeaderHeight, .property("dayHeaderHeight"))
        hours = max(hoursPerDay, 0)
        dayWidth = max(0, (width - hourHeaderLength) / Double(max(daysPerWeek, 1)))
        frames = []
        for section in 0..<environment.numberOfSections {
            var sectionFrames: [Rect] = []
            for item in 0..<environment.numberOfItems(inSection: section) {
                let event = dataSource?.calendarLayout(self, eventAt: IndexPath(item: item, section: section))
                    ?? CalendarEvent(day: 0, start: 0, end: 0)
                sectionFrames.append(Rect(x: hourHeaderLength + Double(event.day) * dayWidth,   // from the day
                                          y: dayHeaderLength + event.start * hourLength,        // from the times
                                          width: dayWidth,
                                          height: (event.end - event.start) * hourLength))
            }
            frames.append(sectionFrames)
        }
        // index the frames for queries (below)
    }
    // end of sample

    // sample: Sources/TesseraLayout/TesseraLayout.docc/WritingYourOwnLayout.md
    open override var collectionViewContentSize: Size {
        Size(width: max(width, hourHeaderLength), height: dayHeaderLength + hourLength * Double(hours))
    }
    // end of sample

    // sample: Sources/TesseraLayout/TesseraLayout.docc/WritingYourOwnLayout.md
    open override func shouldInvalidateLayout(forBoundsChange newBounds: Rect) -> Bool {
        newBounds.size.width != (collectionView?.bounds.size.width ?? -1)
    }
    // end of sample

    // sample: Sources/TesseraLayout/TesseraLayout.docc/WritingYourOwnLayout.md
    open override func initialLayoutAttributesForAppearingItem(at itemIndexPath: IndexPath) -> LayoutAttributes? {
        guard var attributes = super.initialLayoutAttributesForAppearingItem(at: itemIndexPath) else { return nil }
        if attributes.alpha == 0 { attributes.transform = .scale(0.2, 0.2) }
        return attributes
    }
    // end of sample
}

/// The "Writing your own layout" article's samples, run against the
/// example layout they come from.
@Suite("Writing your own layout samples")
struct CalendarLayoutSamples {
    final class Week: CalendarLayoutDataSource {
        var events: [[CalendarEvent]]

        init(events: [[CalendarEvent]]) {
            self.events = events
        }

        func calendarLayout(_ layout: CalendarLayout, eventAt indexPath: IndexPath) -> CalendarEvent {
            events[indexPath.section][indexPath.item]
        }
    }

    @Test("The article's prepare() places events where the example does; its content size and invalidation are as it says")
    func calendar() {
        let week = Week(events: [
            [CalendarEvent(day: 0, start: 9, end: 10.5), CalendarEvent(day: 3, start: 13, end: 14)],
            [CalendarEvent(day: 6, start: 0, end: 24)],
        ])
        let environment = StaticLayoutEnvironment(size: Size(width: 400, height: 600), itemCounts: [2, 1])
        let layout = ArticleCalendarLayout()
        layout.dataSource = week
        layout.collectionView = environment
        layout.prepare()

        let paths = [IndexPath(item: 0, section: 0), IndexPath(item: 1, section: 0), IndexPath(item: 0, section: 1)]
        #expect(paths.map { layout.frames[$0.section][$0.item] } == paths.map { layout.layoutAttributesForItem(at: $0)?.frame })
        #expect(layout.frames[0][0] == Rect(x: 50, y: 40 + 9 * 60, width: 50, height: 90))
        #expect(layout.collectionViewContentSize == Size(width: 400, height: 40 + 24 * 60))

        var scrolled = environment.bounds
        scrolled.origin.y = 300
        #expect(!layout.shouldInvalidateLayout(forBoundsChange: scrolled))
        var wider = environment.bounds
        wider.size.width = 500
        #expect(layout.shouldInvalidateLayout(forBoundsChange: wider))
    }

    struct Day: Identifiable, Equatable {
        var id: Int
    }

    struct Event: Identifiable, Equatable {
        var id: Int
        var event: CalendarEvent
    }

    /// The events of a diffable data source's snapshot.
    final class SnapshotEvents: CalendarLayoutDataSource {
        var snapshot = Snapshot<Day, Event>()

        func calendarLayout(_ layout: CalendarLayout, eventAt indexPath: IndexPath) -> CalendarEvent {
            snapshot[indexPath].event
        }
    }

    @Test("The article's appearing-item override grows an inserted event from a fifth of its size")
    func insertedEventGrows() throws {
        let layout = ArticleCalendarLayout()
        let events = SnapshotEvents()
        layout.dataSource = events
        let view = CollectionView(layout: layout, size: Size(width: 400, height: 600))
        let source = DiffableDataSource<Day, Event>(collectionView: view)
        events.snapshot.appendSection(Day(id: 0), items: [Event(id: 1, event: CalendarEvent(day: 0, start: 1, end: 2))])
        try source.apply(events.snapshot, animated: false)

        events.snapshot.appendItems([Event(id: 2, event: CalendarEvent(day: 1, start: 3, end: 4))], toSection: 0)
        let plan = try source.apply(events.snapshot)
        let inserted = try #require(plan.elements.first { $0.itemID == "2" })
        #expect(inserted.disposition == .insert)
        #expect(inserted.from.alpha == 0 && inserted.from.transform == .scale(0.2, 0.2))
        #expect(inserted.to.frame == Rect(x: 100, y: 40 + 3 * 60, width: 50, height: 60))
    }
}
