#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The frames of one layout pass in flat arrays, and the rect query over
/// them.
///
/// Items are grouped into *bands* along the scroll axis (S): a line of a flow
/// layout, or a single row of a list. A band records the first item it holds
/// and the S range its items cover; bands start in S order (their smallest S
/// never decreases), which is what lets a query stop early. Sections and bands are appended in S
/// order; queries binary-search sections, then bands, using running maxima of
/// the S ends so that the search stays right even where ends are not sorted.
///
/// Each section also keeps how far the frames of it and of the sections
/// before it reach right and down, so that the content can be grown to
/// enclose every frame in O(1) (see ``reach``).
///
/// Per item the store keeps one `Rect` (32 bytes); per band 20 bytes (none
/// when items are their own bands); per section about 120 bytes.
struct _FrameStore {
    var direction: ScrollDirection = .vertical
    /// Per section: whether every item is a band of its own, its frames' S
    /// starts and ends both ascending (a list, or a flow section with one
    /// item per line): then the section keeps no bands and queries search
    /// its frames themselves.
    var sectionItemsAreBands: [Bool] = []
    /// Bad values met while laying out each section, kept with the sections
    /// so that an incremental prepare still reports them.
    var sectionErrors: [(section: Int, error: LayoutError)] = []

    // Items, flat in section order.
    var itemFrames: [Rect] = []

    // Bands.
    var bandStart: [Int32] = []      // first item (flat offset) of each band
    var bandMinS: [Double] = []      // smallest S start of the band's items
    var bandMaxS: [Double] = []      // running max of S ends up to this band (monotone)

    // Sections.
    var sectionItemStart: [Int] = [0] // flat offset of each section's first item; one more than sections
    var sectionBandStart: [Int] = [0] // first band of each section; one more than sections
    var sectionBounds: [Rect] = []    // everything the section holds, including insets
    var sectionMaxS: [Double] = []    // running max of section S ends (monotone)
    /// The exact S where each section ends, as the pass computed it (a
    /// section's bounds give it back only up to a rounding): where a pass
    /// that keeps the sections before resumes.
    var sectionEndS: [Double] = []
    var headerFrames: [Rect?] = []
    var footerFrames: [Rect?] = []
    /// Running maxima of the max x and max y of every item, header and
    /// footer frame of each section and the sections before it (−∞ while
    /// there is none).
    var sectionReachX: [Double] = []
    var sectionReachY: [Double] = []

    var numberOfSections: Int { sectionBounds.count }

    /// The bytes the arrays reserve.
    var byteCount: Int {
        itemFrames.capacity * MemoryLayout<Rect>.stride
            + bandStart.capacity * MemoryLayout<Int32>.stride
            + (bandMinS.capacity + bandMaxS.capacity + sectionMaxS.capacity + sectionEndS.capacity
                + sectionReachX.capacity + sectionReachY.capacity) * MemoryLayout<Double>.stride
            + (sectionItemStart.capacity + sectionBandStart.capacity) * MemoryLayout<Int>.stride
            + sectionBounds.capacity * MemoryLayout<Rect>.stride
            + (headerFrames.capacity + footerFrames.capacity) * MemoryLayout<Rect?>.stride
            + sectionItemsAreBands.capacity
    }

    /// Drops every section from `section` on, keeping those before it.
    mutating func truncate(toSections section: Int) {
        guard section < numberOfSections else { return }
        itemFrames.removeSubrange(sectionItemStart[section]...)
        let bands = sectionBandStart[section]
        bandStart.removeSubrange(bands...)
        bandMinS.removeSubrange(bands...)
        bandMaxS.removeSubrange(bands...)
        sectionItemStart.removeSubrange((section + 1)...)
        sectionBandStart.removeSubrange((section + 1)...)
        sectionBounds.removeSubrange(section...)
        sectionMaxS.removeSubrange(section...)
        sectionEndS.removeSubrange(section...)
        headerFrames.removeSubrange(section...)
        footerFrames.removeSubrange(section...)
        sectionReachX.removeSubrange(section...)
        sectionReachY.removeSubrange(section...)
        sectionItemsAreBands.removeSubrange(section...)
        sectionErrors.removeAll { $0.section >= section }
    }

    /// Becomes the first `sections` sections of `other`, copied into this
    /// store's own buffers (so a layout can lay out a batch's new state into
    /// spare buffers while `other` keeps the old one).
    ///
    /// - Complexity: O(*p*) for the *p* items and bands copied.
    mutating func assignPrefix(of other: _FrameStore, sections: Int) {
        direction = other.direction
        let items = other.sectionItemStart[sections]
        let bands = other.sectionBandStart[sections]
        itemFrames.removeAll(keepingCapacity: true)
        itemFrames.append(contentsOf: other.itemFrames[..<items])
        bandStart.removeAll(keepingCapacity: true)
        bandStart.append(contentsOf: other.bandStart[..<bands])
        bandMinS.removeAll(keepingCapacity: true)
        bandMinS.append(contentsOf: other.bandMinS[..<bands])
        bandMaxS.removeAll(keepingCapacity: true)
        bandMaxS.append(contentsOf: other.bandMaxS[..<bands])
        sectionItemStart = Array(other.sectionItemStart[...sections])
        sectionBandStart = Array(other.sectionBandStart[...sections])
        sectionBounds = Array(other.sectionBounds[..<sections])
        sectionMaxS = Array(other.sectionMaxS[..<sections])
        sectionEndS = Array(other.sectionEndS[..<sections])
        headerFrames = Array(other.headerFrames[..<sections])
        footerFrames = Array(other.footerFrames[..<sections])
        sectionReachX = Array(other.sectionReachX[..<sections])
        sectionReachY = Array(other.sectionReachY[..<sections])
        sectionItemsAreBands = Array(other.sectionItemsAreBands[..<sections])
        sectionErrors = other.sectionErrors.filter { $0.section < sections }
    }

    /// Empties the store, keeping its capacity unless it is far more than
    /// `items` needs.
    mutating func removeAll(reservingItems items: Int) {
        if itemFrames.capacity > 2 * items + 1_024 {
            self = _FrameStore(direction: direction)
        }
        itemFrames.removeAll(keepingCapacity: true)
        if itemFrames.capacity < items {
            // With room to grow, so that a layout that gains a few items per
            // update does not reallocate its frames every time.
            itemFrames.reserveCapacity(items + items / 16)
        }
        sectionItemsAreBands.removeAll(keepingCapacity: true)
        sectionErrors.removeAll()
        bandStart.removeAll(keepingCapacity: true)
        bandMinS.removeAll(keepingCapacity: true)
        bandMaxS.removeAll(keepingCapacity: true)
        sectionItemStart = [0]
        sectionBandStart = [0]
        sectionBounds.removeAll(keepingCapacity: true)
        sectionMaxS.removeAll(keepingCapacity: true)
        sectionEndS.removeAll(keepingCapacity: true)
        headerFrames.removeAll(keepingCapacity: true)
        footerFrames.removeAll(keepingCapacity: true)
        sectionReachX.removeAll(keepingCapacity: true)
        sectionReachY.removeAll(keepingCapacity: true)
    }

    /// Records a band that starts at item `start` (a flat offset).
    mutating func addBand(start: Int, minS: Double, maxS: Double) {
        bandStart.append(Int32(truncatingIfNeeded: start))
        bandMinS.append(minS)
        bandMaxS.append(Swift.max(maxS, bandMaxS.last ?? -.infinity))
    }

    init(direction: ScrollDirection = .vertical) {
        self.direction = direction
    }

    /// Closes a section: its header, footer and bounds, and how far its
    /// frames reach. When its items are their own bands, the bands recorded
    /// for it are dropped.
    ///
    /// - Complexity: O(*m*) for the section's *m* items.
    mutating func endSection(bounds: Rect, header: Rect?, footer: Rect?, itemsAreBands: Bool, endS: Double? = nil) {
        var reachX = sectionReachX.last ?? -.infinity
        var reachY = sectionReachY.last ?? -.infinity
        func extend(to frame: Rect?) {
            guard let frame else { return }
            reachX = Swift.max(reachX, frame.maxX)
            reachY = Swift.max(reachY, frame.maxY)
        }
        for flat in sectionItemStart[sectionItemStart.count - 1]..<itemFrames.count { extend(to: itemFrames[flat]) }
        extend(to: header)
        extend(to: footer)
        sectionReachX.append(reachX)
        sectionReachY.append(reachY)
        if itemsAreBands {
            let first = sectionBandStart[sectionBandStart.count - 1]
            bandStart.removeSubrange(first...)
            bandMinS.removeSubrange(first...)
            bandMaxS.removeSubrange(first...)
        }
        sectionItemsAreBands.append(itemsAreBands)
        sectionItemStart.append(itemFrames.count)
        sectionBandStart.append(bandStart.count)
        sectionBounds.append(bounds)
        let end = endS ?? direction.maxS(bounds)
        sectionEndS.append(end)
        sectionMaxS.append(Swift.max(direction.maxS(bounds), end, sectionMaxS.last ?? -.infinity))
        headerFrames.append(header)
        footerFrames.append(footer)
    }

    /// How far every frame reaches: the largest max x and max y of the
    /// items, headers and footers (at their resting places), or −∞ while
    /// there is no frame.
    ///
    /// - Complexity: O(1).
    var reach: (x: Double, y: Double) {
        (sectionReachX.last ?? -.infinity, sectionReachY.last ?? -.infinity)
    }

    /// `size` grown, where a frame reaches past it, to the frame's max x or
    /// max y: a content size that encloses every frame.
    ///
    /// - Complexity: O(1).
    func enclosing(_ size: Size) -> Size {
        let reach = reach
        return Size(width: Swift.max(size.width, reach.x), height: Swift.max(size.height, reach.y))
    }

    func itemCount(inSection section: Int) -> Int {
        sectionItemStart[section + 1] - sectionItemStart[section]
    }

    func itemFrame(at indexPath: IndexPath) -> Rect? {
        guard indexPath.count == 2 else { return nil }
        let section = indexPath[0]
        let item = indexPath[1]
        guard section >= 0 && section < numberOfSections && item >= 0 && item < itemCount(inSection: section) else { return nil }
        return itemFrames[sectionItemStart[section] + item]
    }

    /// `value` moved outward by a tiny relative margin (about 4,500 units in
    /// the last place), for searches: a section's or band's end is computed
    /// by other arithmetic than its items' frames and can fall a rounding
    /// short of them, so searches use widened bounds and the final
    /// `intersects` test stays exact.
    @inline(__always)
    static func widened(_ value: Double, down: Bool) -> Double {
        let margin = Swift.max(abs(value), 1) * 1e-12
        return down ? value - margin : value + margin
    }

    /// The sections whose bounds may meet `rect` on the S axis.
    ///
    /// - Complexity: O(log *s* + *r*) for *r* sections returned.
    func sections(meeting rect: Rect) -> Range<Int> {
        let low = Self.widened(direction.minS(rect), down: true)
        let high = Self.widened(direction.maxS(rect), down: false)
        let first = Self.firstIndex(in: sectionMaxS, from: 0, to: numberOfSections, above: low)
        var end = first
        while end < numberOfSections && direction.minS(sectionBounds[end]) < high { end += 1 }
        return first..<end
    }

    /// Checks that bands start in order and that running maxima never fall.
    /// Compiled in with `TESSERA_INTERNAL_CHECKS`.
    func checkInvariants() {
        #if TESSERA_INTERNAL_CHECKS
        precondition(sectionItemStart.count == numberOfSections + 1 && sectionBandStart.count == numberOfSections + 1, "section arrays out of step")
        precondition(sectionItemsAreBands.count == numberOfSections, "section flags out of step")
        precondition(sectionEndS.count == numberOfSections, "section ends out of step")
        precondition(sectionReachX.count == numberOfSections && sectionReachY.count == numberOfSections, "section reaches out of step")
        for section in sectionReachX.indices.dropFirst() {
            precondition(sectionReachX[section] >= sectionReachX[section - 1] && sectionReachY[section] >= sectionReachY[section - 1], "section reaches fall at \(section)")
        }
        for band in bandStart.indices.dropFirst() {
            precondition(bandMaxS[band] >= bandMaxS[band - 1], "band maxima fall at \(band)")
            precondition(bandStart[band] >= bandStart[band - 1], "bands out of order at \(band)")
        }
        for section in sectionMaxS.indices.dropFirst() {
            precondition(sectionMaxS[section] >= sectionMaxS[section - 1], "section maxima fall at \(section)")
        }
        #endif
    }

    /// The first index in `0..<count` whose running maximum exceeds `value`.
    static func firstIndex(in maxima: [Double], from lower: Int, to upper: Int, above value: Double) -> Int {
        var low = lower
        var high = upper
        while low < high {
            let mid = (low + high) / 2
            if maxima[mid] > value { high = mid } else { low = mid + 1 }
        }
        return low
    }

    /// Calls `body` for every section whose bounds may meet `rect` on the S
    /// axis, in order, then for every item of it that intersects `rect`.
    ///
    /// - Complexity: O(log *s* + log *b* + *k*) for *s* sections, *b* bands
    ///   and *k* visited bands and items.
    func forEachSection(
        meeting rect: Rect,
        section sectionBody: (Int) -> Void,
        item itemBody: (Int, Int, Rect) -> Void
    ) {
        guard !rect.isEmpty else { return }
        let low = Self.widened(direction.minS(rect), down: true)
        let high = Self.widened(direction.maxS(rect), down: false)
        for section in sections(meeting: rect) {
            sectionBody(section)
            if sectionItemsAreBands[section] {
                let start = sectionItemStart[section]
                let end = sectionItemStart[section + 1]
                var lower = start
                var upper = end
                while lower < upper {
                    let mid = (lower + upper) / 2
                    if direction.maxS(itemFrames[mid]) > low { upper = mid } else { lower = mid + 1 }
                }
                var flat = lower
                while flat < end && direction.minS(itemFrames[flat]) < high {
                    if itemFrames[flat].intersects(rect) { itemBody(section, flat - start, itemFrames[flat]) }
                    flat += 1
                }
                continue
            }
            let firstBand = sectionBandStart[section]
            let endBand = sectionBandStart[section + 1]
            var band = Self.firstIndex(in: bandMaxS, from: firstBand, to: endBand, above: low)
            let sectionStart = sectionItemStart[section]
            while band < endBand && bandMinS[band] < high {
                let start = Int(bandStart[band])
                let end = band + 1 < bandStart.count ? Int(bandStart[band + 1]) : itemFrames.count
                for flat in start..<Swift.min(end, sectionItemStart[section + 1]) where itemFrames[flat].intersects(rect) {
                    itemBody(section, flat - sectionStart, itemFrames[flat])
                }
                band += 1
            }
        }
    }
}
