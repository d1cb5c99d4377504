#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif
public import TesseraLayout

/// One event of a week: the day it is on (0 = the first day shown) and its
/// start and end, in hours from the start of the day.
public struct CalendarEvent: Hashable, Sendable {
    /// The day, from 0.
    public var day: Int
    /// When it starts, in hours (9.5 is 9:30).
    public var start: Double
    /// When it ends, in hours.
    public var end: Double

    /// Creates an event.
    public init(day: Int, start: Double, end: Double) {
        self.day = day
        self.start = start
        self.end = end
    }
}

/// Where a ``CalendarLayout`` finds its events.
public protocol CalendarLayoutDataSource: AnyObject {
    /// The event shown by the item at an index path.
    func calendarLayout(_ layout: CalendarLayout, eventAt indexPath: IndexPath) -> CalendarEvent
}

/// A week view: one column per day, one band per hour, each event spanning
/// its time in its day's column; day headers across the top and hour headers
/// down the left. Written only against `CollectionViewLayout`'s public API,
/// as an example of a layout of your own (see the "Writing your own layout"
/// article).
open class CalendarLayout: CollectionViewLayout {
    /// The supplementary kind of the day headers (index path `[0, day]`).
    public static let dayHeaderKind = "DayHeader"
    /// The supplementary kind of the hour headers (index path `[0, hour]`).
    public static let hourHeaderKind = "HourHeader"

    /// The number of days (columns). 7.
    public var daysPerWeek = 7 { didSet { invalidateLayout() } }
    /// The number of hours (bands). 24.
    public var hoursPerDay = 24 { didSet { invalidateLayout() } }
    /// The height of an hour. 60.
    public var hourHeight: Double = 60 { didSet { invalidateLayout() } }
    /// The height of the day headers. 40.
    public var dayHeaderHeight: Double = 40 { didSet { invalidateLayout() } }
    /// The width of the hour headers. 50.
    public var hourHeaderWidth: Double = 50 { didSet { invalidateLayout() } }
    /// Where the events come from.
    public weak var dataSource: (any CalendarLayoutDataSource)? { didSet { invalidateLayout() } }

    /// Every event's frame, by section and item.
    private var frames: [[Rect]] = []
    /// Per day: the events of that day as (section, item), sorted by top.
    private var byDay: [[(section: Int, item: Int)]] = []
    /// Per day: the running maximum of event bottoms in `byDay` order, so a
    /// binary search can skip events that end above a rectangle.
    private var bottomsSoFar: [[Double]] = []
    private var width: Double = 0
    private var dayWidth: Double = 0
    /// The properties as the last `prepare()` checked them.
    private var hours = 0
    private var hourLength: Double = 0
    private var dayHeaderLength: Double = 0
    private var hourHeaderLength: Double = 0

    /// Creates a calendar layout.
    public override init() {
        super.init()
    }

    // MARK: Preparing

    /// Computes every event's frame and the per-day index.
    ///
    /// Bad values are recorded as a `LayoutError` by the rule every layout
    /// uses (`LayoutValue`), through `checkedLength(_:_:)`: a height or
    /// width that is negative, not finite or beyond 10¹² points is read as
    /// zero, and fewer than one day or no hours as one day and no hours.
    /// Events on a day outside `0..<daysPerWeek`, or with a time that is not
    /// finite, backward or outside `0...hoursPerDay`, are laid out with no
    /// height at the start of the first day.
    ///
    /// - Complexity: O(*n* log *n*) for *n* events (sorting each day).
    open override func prepare() {
        super.prepare()
        guard let environment = collectionView else {
            frames = []
            byDay = []
            bottomsSoFar = []
            return
        }
        width = environment.bounds.size.width
        hourLength = checkedLength(hourHeight, .property("hourHeight"))
        dayHeaderLength = checkedLength(dayHeaderHeight, .property("dayHeaderHeight"))
        hourHeaderLength = checkedLength(hourHeaderWidth, .property("hourHeaderWidth"))
        if daysPerWeek < 1 { recordError(LayoutError(subject: .property("daysPerWeek"), value: "\(daysPerWeek)")) }
        if hoursPerDay < 0 { recordError(LayoutError(subject: .property("hoursPerDay"), value: "\(hoursPerDay)")) }
        hours = max(hoursPerDay, 0)
        let days = max(daysPerWeek, 1)
        dayWidth = max(0, (width - hourHeaderLength) / Double(days))
        frames = []
        byDay = Array(repeating: [], count: days)
        for section in 0..<environment.numberOfSections {
            var sectionFrames: [Rect] = []
            for item in 0..<max(0, environment.numberOfItems(inSection: section)) {
                let path = IndexPath(item: item, section: section)
                var event = dataSource?.calendarLayout(self, eventAt: path) ?? CalendarEvent(day: 0, start: 0, end: 0)
                // `0 <= start <= end <= hours`, which NaN fails too.
                if !(0..<days).contains(event.day) || !(event.start >= 0 && event.start <= event.end && event.end <= Double(hours)) {
                    recordError(LayoutError(subject: .itemSize(path), value: "day \(event.day), \(event.start)–\(event.end) h"))
                    event = CalendarEvent(day: 0, start: 0, end: 0)
                }
                sectionFrames.append(Rect(
                    x: hourHeaderLength + Double(event.day) * dayWidth,
                    y: dayHeaderLength + event.start * hourLength,
                    width: dayWidth,
                    height: (event.end - event.start) * hourLength
                ))
                byDay[event.day].append((section, item))
            }
            frames.append(sectionFrames)
        }
        bottomsSoFar = byDay.indices.map { day in
            byDay[day].sort { frames[$0.section][$0.item].minY < frames[$1.section][$1.item].minY }
            var maximum = -Double.infinity
            return byDay[day].map { event in
                maximum = max(maximum, frames[event.section][event.item].maxY)
                return maximum
            }
        }
    }

    /// The view's width (or the hour headers' width, when they are wider:
    /// the content encloses every frame), and the day headers plus every
    /// hour.
    open override var collectionViewContentSize: Size {
        Size(width: max(width, hourHeaderLength), height: dayHeaderLength + hourLength * Double(hours))
    }

    // MARK: Queries

    /// The day and hour headers and the events that intersect `rect`:
    /// headers first, then events by index path.
    ///
    /// - Complexity: O(*d* log *n* + *k* log *k*) for *d* days and *k*
    ///   results.
    open override func layoutAttributesForElements(in rect: Rect) -> [LayoutAttributes] {
        var result: [LayoutAttributes] = []
        for day in 0..<byDay.count {
            if let header = dayHeader(day), header.frame.intersects(rect) { result.append(header) }
        }
        for hour in 0..<hours {
            if let header = hourHeader(hour), header.frame.intersects(rect) { result.append(header) }
        }
        var events: [LayoutAttributes] = []
        for day in 0..<byDay.count {
            let columnX = hourHeaderLength + Double(day) * dayWidth
            guard columnX < rect.maxX && columnX + dayWidth > rect.minX else { continue }
            // The first event of the day whose running bottom passes the top
            // of the rectangle; stop once events start below its bottom.
            var low = 0
            var high = byDay[day].count
            while low < high {
                let mid = (low + high) / 2
                if bottomsSoFar[day][mid] > rect.minY { high = mid } else { low = mid + 1 }
            }
            for index in low..<byDay[day].count {
                let (section, item) = byDay[day][index]
                let frame = frames[section][item]
                if frame.minY >= rect.maxY { break }
                if frame.intersects(rect) { events.append(.cell(at: IndexPath(item: item, section: section), frame: frame)) }
            }
        }
        events.sort { $0.indexPath < $1.indexPath }
        return result + events
    }

    /// The frame of an event.
    open override func layoutAttributesForItem(at indexPath: IndexPath) -> LayoutAttributes? {
        guard indexPath.count == 2, frames.indices.contains(indexPath[0]), frames[indexPath[0]].indices.contains(indexPath[1]) else { return nil }
        return .cell(at: indexPath, frame: frames[indexPath[0]][indexPath[1]])
    }

    /// A day header (`[0, day]`) or an hour header (`[0, hour]`).
    open override func layoutAttributesForSupplementaryView(ofKind kind: String, at indexPath: IndexPath) -> LayoutAttributes? {
        guard indexPath.count == 2 else { return nil }
        switch kind {
        case Self.dayHeaderKind: return dayHeader(indexPath[1])
        case Self.hourHeaderKind: return hourHeader(indexPath[1])
        default: return nil
        }
    }

    private func dayHeader(_ day: Int) -> LayoutAttributes? {
        guard (0..<byDay.count).contains(day) else { return nil }
        let frame = Rect(x: hourHeaderLength + Double(day) * dayWidth, y: 0, width: dayWidth, height: dayHeaderLength)
        return .supplementaryView(ofKind: Self.dayHeaderKind, at: IndexPath(item: day, section: 0), frame: frame)
    }

    private func hourHeader(_ hour: Int) -> LayoutAttributes? {
        guard (0..<hours).contains(hour) else { return nil }
        let frame = Rect(x: 0, y: dayHeaderLength + Double(hour) * hourLength, width: hourHeaderLength, height: hourLength)
        return .supplementaryView(ofKind: Self.hourHeaderKind, at: IndexPath(item: hour, section: 0), frame: frame)
    }

    // MARK: Invalidation and animation

    /// The columns depend on the width only.
    open override func shouldInvalidateLayout(forBoundsChange newBounds: Rect) -> Bool {
        newBounds.size.width != (collectionView?.bounds.size.width ?? -1)
    }

    /// An inserted event grows from its center: the base class's fade, plus
    /// a small scale.
    open override func initialLayoutAttributesForAppearingItem(at itemIndexPath: IndexPath) -> LayoutAttributes? {
        guard var attributes = super.initialLayoutAttributesForAppearingItem(at: itemIndexPath) else { return nil }
        if attributes.alpha == 0 { attributes.transform = .scale(0.2, 0.2) }
        return attributes
    }
}
