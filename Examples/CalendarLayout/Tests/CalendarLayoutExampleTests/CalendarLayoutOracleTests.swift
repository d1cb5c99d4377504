#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Testing
import TesseraTestTraits
import TesseraDiff
import TesseraLayout
import TesseraView
import CalendarLayoutExample
import TesseraTestSupport

/// The oracles every built-in layout meets, run on the example layout.
@Suite("CalendarLayout example: oracles", .tags(.oracle), .cpuBound)
struct CalendarLayoutOracleTests {
    static func randomWeek(using generator: inout SplitMix64) -> Week {
        Week((0..<Int.random(in: 0...40, using: &generator)).map { _ in
            let start = Double(Int.random(in: 0...46, using: &generator)) / 2
            return CalendarEvent(day: Int.random(in: 0...6, using: &generator), start: start, end: start + Double(Int.random(in: 0...4, using: &generator)) / 2)
        })
    }

    @Test("Every element lies within the content, and after any bounds change the layout equals a fresh one")
    func containmentAndBoundsChanges() throws {
        let seed = testSeed(default: 0xCA1E_DA4)
        var generator = SplitMix64(seed: seed)
        for round in 0..<30 {
            let week = Self.randomWeek(using: &generator)
            let layout = CalendarLayout()
            layout.dataSource = week
            let view = CollectionView(layout: layout, size: randomViewSize(using: &generator))
            view.dataSource = week
            view.reloadData()
            for step in 0..<6 {
                view.setBounds(Rect(origin: .zero, size: randomViewSize(using: &generator)))
                let outside = elementsOutsideContent(of: layout, itemCounts: view.itemCounts)
                #expect(outside.isEmpty, "seed \(seed), round \(round), step \(step): \(outside.prefix(3))")
                let fresh = CalendarLayout()
                fresh.dataSource = week
                let environment = StaticLayoutEnvironment(size: view.bounds.size, itemCounts: view.itemCounts)
                fresh.collectionView = environment
                fresh.prepare()
                let actual = LayoutState(of: layout, itemCounts: view.itemCounts)
                let expected = LayoutState(of: fresh, itemCounts: view.itemCounts)
                #expect(actual == expected, "seed \(seed), round \(round), step \(step): \(actual.difference(from: expected))")
            }
        }
    }

    /// Every element of a prepared calendar, one by one: its day and hour
    /// headers and its events.
    static func everyElement(of layout: CalendarLayout, eventCount: Int) -> [LayoutAttributes] {
        var result: [LayoutAttributes] = []
        for day in 0..<Swift.max(layout.daysPerWeek, 1) {
            result += layout.layoutAttributesForSupplementaryView(ofKind: CalendarLayout.dayHeaderKind, at: IndexPath(item: day, section: 0)).map { [$0] } ?? []
        }
        for hour in 0..<Swift.max(layout.hoursPerDay, 0) {
            result += layout.layoutAttributesForSupplementaryView(ofKind: CalendarLayout.hourHeaderKind, at: IndexPath(item: hour, section: 0)).map { [$0] } ?? []
        }
        result += (0..<eventCount).compactMap { layout.layoutAttributesForItem(at: IndexPath(item: $0, section: 0)) }
        return result
    }

    /// A random length: usually ordinary, sometimes zero or far wider or
    /// taller than the view.
    static func randomLength(_ ordinary: ClosedRange<Int>, using generator: inout SplitMix64) -> Double {
        RandomLengths.length(ordinary, using: &generator)
    }

    /// A random valid event of a calendar with `days` days and `hours` hours.
    static func randomEvent(days: Int, hours: Int, using generator: inout SplitMix64) -> CalendarEvent {
        let start = Double(Int.random(in: 0...2 * hours, using: &generator)) / 2
        let end = Swift.min(Double(hours), start + Double(Int.random(in: 0...4, using: &generator)) / 2)
        return CalendarEvent(day: Int.random(in: 0..<days, using: &generator), start: start, end: end)
    }

    @Test("Whatever its lengths and view, after batch updates and bounds changes, every element lies within the content and rect queries equal a brute-force filter")
    func widenedContainmentAndQueries() throws {
        let seed = testSeed(default: 0xCA1E_DA5)
        var generator = SplitMix64(seed: seed)
        for round in 0..<60 {
            let days = Int.random(in: 1...10, using: &generator)
            let hours = Int.random(in: 0...30, using: &generator)
            let week = Week((0..<Int.random(in: 0...30, using: &generator)).map { _ in
                Self.randomEvent(days: days, hours: hours, using: &generator)
            })
            let layout = CalendarLayout()
            layout.daysPerWeek = days
            layout.hoursPerDay = hours
            layout.hourHeight = Self.randomLength(0...80, using: &generator)
            layout.dayHeaderHeight = Self.randomLength(0...60, using: &generator)
            layout.hourHeaderWidth = Self.randomLength(0...80, using: &generator)
            layout.dataSource = week
            let view = CollectionView(layout: layout, size: randomViewSize(using: &generator), contentInset: randomContentInset(using: &generator))
            view.dataSource = week
            view.reloadData()
            for step in 0..<8 {
                switch Int.random(in: 0..<3, using: &generator) {
                case 0:
                    let index = Int.random(in: 0...week.events.count, using: &generator)
                    week.events.insert(Self.randomEvent(days: days, hours: hours, using: &generator), at: index)
                    try view.performBatchUpdates([.insertItem(at: IndexPath(item: index, section: 0))])
                case 1 where !week.events.isEmpty:
                    let index = Int.random(in: 0..<week.events.count, using: &generator)
                    week.events.remove(at: index)
                    try view.performBatchUpdates([.deleteItem(at: IndexPath(item: index, section: 0))])
                default:
                    view.setBounds(Rect(origin: view.bounds.origin, size: randomViewSize(using: &generator)))
                }
                #expect(layout.layoutError == nil, "seed \(seed), round \(round), step \(step)")
                let offsets = allowedContentOffsets(content: view.contentSize, size: view.bounds.size, contentInset: view.contentInset, random: 1, using: &generator)
                for offset in offsets {
                    view.setBounds(Rect(origin: offset, size: view.bounds.size))
                    let elements = Self.everyElement(of: layout, eventCount: week.events.count)
                    let rects = [view.bounds] + randomQueryRects(count: 4, content: view.contentSize, elements: elements, using: &generator)
                    let violations = contentAndQueryViolations(of: layout, itemCounts: view.itemCounts, elements: elements, rects: rects)
                    #expect(violations.isEmpty, "seed \(seed), round \(round), step \(step), view \(view.bounds), content \(view.contentSize): \(violations.prefix(3))")
                }
            }
        }
    }

    @Test("Hostile lengths and event times are named, never trapped on, and leave finite frames")
    func hostileValues() throws {
        let hostile: [Double] = [.nan, .infinity, -.infinity, -1, 1e13]
        let properties: [(String, (CalendarLayout, Double) -> Void)] = [
            ("hourHeight", { $0.hourHeight = $1 }),
            ("dayHeaderHeight", { $0.dayHeaderHeight = $1 }),
            ("hourHeaderWidth", { $0.hourHeaderWidth = $1 }),
        ]
        for value in hostile {
            for (name, set) in properties {
                let week = Week([CalendarEvent(day: 1, start: 2, end: 3)])
                let (layout, view) = try make(week) { set($0, value) }
                #expect(layout.layoutError?.subject == .property(name), "\(name) = \(value)")
                #expect(everyFrameIsFinite(layout, itemCounts: view.itemCounts), "\(name) = \(value)")
            }
            for event in [CalendarEvent(day: 0, start: value, end: 3), CalendarEvent(day: 0, start: 1, end: value)] {
                let (layout, view) = try make(Week([CalendarEvent(day: 1, start: 2, end: 3), event]))
                #expect(layout.layoutError?.subject == .itemSize(IndexPath(item: 1, section: 0)), "\(event)")
                #expect(everyFrameIsFinite(layout, itemCounts: view.itemCounts), "\(event)")
            }
        }
        // An event past the last hour, and counts of days and hours below
        // what a week can have.
        let (late, lateView) = try make(Week([CalendarEvent(day: 0, start: 23, end: 25)]))
        #expect(late.layoutError?.subject == .itemSize(IndexPath(item: 0, section: 0)))
        #expect(elementsOutsideContent(of: late, itemCounts: lateView.itemCounts).isEmpty)
        let (noHours, noHoursView) = try make(Week([])) { $0.hoursPerDay = -3 }
        #expect(noHours.layoutError?.subject == .property("hoursPerDay"))
        #expect(noHours.layoutAttributesForElements(in: Rect(x: 0, y: 0, width: 1000, height: 1000)).count == 7)
        withExtendedLifetime((lateView, noHoursView)) {}
    }

    func make(_ week: Week, configure: (CalendarLayout) -> Void = { _ in }) throws -> (CalendarLayout, CollectionView) {
        let layout = CalendarLayout()
        layout.dataSource = week
        configure(layout)
        let view = CollectionView(layout: layout, size: Size(width: 750, height: 600))
        view.dataSource = week
        view.reloadData()
        return (layout, view)
    }
}
