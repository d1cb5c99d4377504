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

/// The oracles every built-in layout meets, run on the example layout.
@Suite("CalendarLayout example: oracles")
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
