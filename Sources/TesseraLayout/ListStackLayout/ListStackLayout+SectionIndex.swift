#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension ListStackLayout {
    /// Replaces the section bounds the store searches with ones a query can
    /// stop on. Sections share rows, so a later section can start before an
    /// earlier one on S (a section with a smaller top inset on the same row);
    /// and a sticky header can leave its section's bounds, anywhere between
    /// its resting place and the next section's start (the end of the
    /// content, for the last section). So each searched bounds covers the
    /// section and where its sticky header can go, and its S start is
    /// lowered to the smallest start of it and every later section, which
    /// makes the starts ascend. The true bounds stay in `sectionStates`.
    ///
    /// - Complexity: O(*s*) for *s* sections.
    static func indexSections(in store: inout _FrameStore, states: [_ListStackSectionState], stickyHeaders: Bool) {
        let direction = store.direction
        let count = states.count
        var runningMax = -Double.infinity
        for section in 0..<count {
            let bounds = states[section].bounds
            var low = direction.minS(bounds)
            var high = direction.maxS(bounds)
            if stickyHeaders, let header = store.headerFrames[section] {
                let length = direction.sLength(header.size)
                let stop = (section + 1 < count ? direction.minS(states[section + 1].bounds) : states[section].contentEnd) - length
                low = Swift.min(low, stop)
                high = Swift.max(high, stop + length)
            }
            store.sectionBounds[section] = Self.bounds(bounds, s: low, end: high, direction: direction)
            runningMax = Swift.max(runningMax, high)
            store.sectionMaxS[section] = runningMax
        }
        var suffixMin = Double.infinity
        for section in stride(from: count - 1, through: 0, by: -1) {
            let searched = store.sectionBounds[section]
            let low = direction.minS(searched)
            if low > suffixMin {
                store.sectionBounds[section] = Self.bounds(searched, s: suffixMin, end: direction.maxS(searched), direction: direction)
            } else {
                suffixMin = low
            }
        }
    }

    /// `rect` with its S range replaced by `s..<end`.
    private static func bounds(_ rect: Rect, s: Double, end: Double, direction: ScrollDirection) -> Rect {
        direction == .vertical
            ? Rect(x: rect.minX, y: s, width: rect.width, height: end - s)
            : Rect(x: s, y: rect.minY, width: end - s, height: rect.height)
    }
}
