#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension ListStackLayout {
    /// Sets the S ranges the store searches for each section to ones a query
    /// can stop on. Sections share rows, so a later section can start before
    /// an earlier one on S (a section with a smaller top inset on the same
    /// row); and a sticky header can leave its section's bounds, anywhere
    /// between its resting place and the next section's start (the end of
    /// the content, for the last section). So each searched range covers the
    /// section and where its sticky header can go, and its start is lowered
    /// to the smallest start of it and every later section, which makes the
    /// starts ascend. The true bounds stay in `sectionStates`.
    ///
    /// - Complexity: O(*s*) for *s* sections.
    static func indexSections(in store: inout _FrameStore, states: [_ListStackSectionState], stickyHeaders: Bool) {
        let direction = store.direction
        let count = states.count
        var lows = [Double](repeating: 0, count: count)
        var highs = [Double](repeating: 0, count: count)
        for section in 0..<count {
            let bounds = states[section].bounds
            var low = direction.minS(bounds)
            var high = direction.maxS(bounds)
            if stickyHeaders, let header = store.sections[section].header {
                let length = direction.sLength(header.size)
                let stop = (section + 1 < count ? direction.minS(states[section + 1].bounds) : states[section].contentEnd) - length
                low = Swift.min(low, stop)
                high = Swift.max(high, stop + length)
            }
            lows[section] = low
            highs[section] = high
        }
        var suffixMin = Double.infinity
        for section in stride(from: count - 1, through: 0, by: -1) {
            suffixMin = Swift.min(suffixMin, lows[section])
            lows[section] = suffixMin
        }
        store.setSearchBounds(minS: lows, maxS: highs)
    }
}
