#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The frames of a layout: one ``_SectionFrames`` per section, frames
/// relative to the section's origin on the scroll axis (S), and per section
/// its origin and running maxima for the rect query.
///
/// In a *stacked* store (every layout but ``ListStackLayout``) sections
/// abut: a section's origin is the origin of the first plus the extents of
/// the sections before it, so a section laid out again moves every later one
/// by the change in its extent, at O(1) per section and none per item. An
/// unstacked store puts every origin at the base (its sections' frames are
/// absolute).
///
/// Queries binary-search the sections on running maxima of their S ends,
/// then the bands (or items) of each section met, in local coordinates.
///
/// A pass fills the store in two steps: the sections it keeps are set with
/// ``reset(keeping:from:)``, the others laid out one at a time into the scratch
/// arrays (``itemFrames``, ``bandStart``…) and closed with
/// ``endSection(bounds:header:footer:itemsAreBands:extent:columns:)``; then
/// ``layOutOrigins(base:)`` places every section.
struct _FrameStore {
    var direction: ScrollDirection = .vertical
    /// Whether sections abut (origins are running sums of extents) or all
    /// sit at the base.
    var stacksSections = true

    /// Per section: its frames.
    private(set) var sections: [_SectionFrames] = []
    /// Per section: its items as a self-sizing list (``_SizedList``), or
    /// `nil` when its ``_SectionFrames`` hold them.
    private(set) var sizedLists: [_SizedList?] = []
    /// Per section: its origin on S; one more entry than sections, the last
    /// being where the content ends (stacked) or the base.
    private(set) var sectionOrigin: [Double] = [0]
    /// Per section: where the query's search of it starts on S (absolute);
    /// its bounds' start unless a layout sets others (``setSearchBounds``).
    private(set) var searchMinS: [Double] = []
    /// Per section: the running maximum of the searched S ends (monotone).
    private(set) var sectionMaxS: [Double] = []
    /// Per section: running maxima of the max x and max y of every item,
    /// header and footer frame of it and the sections before it (−∞ while
    /// there is none).
    private(set) var sectionReachX: [Double] = []
    private(set) var sectionReachY: [Double] = []

    // The section in progress, local on S.
    var itemFrames: [Rect] = []
    var bandStart: [Int32] = []
    var bandMinS: [Double] = []
    var bandMaxS: [Double] = []
    /// The section the scratch arrays hold.
    private var current = 0

    init(direction: ScrollDirection = .vertical, stacksSections: Bool = true) {
        self.direction = direction
        self.stacksSections = stacksSections
    }

    var numberOfSections: Int { sections.count }

    /// The bytes the store reserves: every section's object and arrays, and
    /// the per-section arrays.
    ///
    /// - Complexity: O(*s*) for *s* sections.
    var byteCount: Int {
        var bytes = sections.capacity * MemoryLayout<_SectionFrames>.stride
            + (sectionOrigin.capacity + searchMinS.capacity + sectionMaxS.capacity + sectionReachX.capacity + sectionReachY.capacity) * MemoryLayout<Double>.stride
        for section in sections { bytes += section.byteCount }
        for list in sizedLists { bytes += list?.byteCount ?? 0 }
        return bytes
    }

    // MARK: Passes

    /// Starts a pass that keeps, at each index, the section of `old` that
    /// `kept` names, and leaves a placeholder where it names none (−1).
    ///
    /// - Complexity: O(*s*).
    mutating func reset(keeping kept: [Int], from old: _FrameStore) {
        sections = kept.map { $0 >= 0 ? old.sections[$0] : .placeholder }
        sizedLists = kept.map { $0 >= 0 ? old.sizedLists[$0] : nil }
    }

    /// Closes the section in progress as a self-sizing list: no frame is
    /// kept, `list` gives them (the scratch arrays must be empty).
    ///
    /// - Complexity: O(log *m*).
    mutating func endSection(sizedList list: _SizedList) {
        let frames = list.sectionFrames(errors: [])
        frames.checkInvariants()
        sections[current] = frames
        sizedLists[current] = list
    }

    /// Sets the height of an item of a self-sizing list section and makes
    /// the section's bounds and extent again; the origins are left for
    /// ``layOutOrigins(base:)``. Returns `false` when the section is not a
    /// self-sizing list or has no such item.
    ///
    /// - Complexity: O(log *m*) for the section's *m* items (the heights
    ///   are copied first when another store shares them).
    mutating func setSizedItemHeight(_ height: Double, at indexPath: IndexPath) -> Bool {
        guard indexPath.count == 2 else { return false }
        let section = indexPath[0]
        let item = indexPath[1]
        guard section >= 0 && section < sizedLists.count, var list = sizedLists[section], item >= 0 && item < list.count else { return false }
        // Taken out of the array so that the heights are uniquely referenced.
        sizedLists[section] = nil
        list.setHeight(height, ofItem: item)
        sections[section] = list.sectionFrames(errors: sections[section].errors)
        sizedLists[section] = list
        return true
    }

    /// Starts laying out `section` into the scratch arrays.
    mutating func beginSection(_ section: Int, itemCount: Int) {
        current = section
        itemFrames.removeAll(keepingCapacity: true)
        itemFrames.reserveCapacity(itemCount)
        bandStart.removeAll(keepingCapacity: true)
        bandMinS.removeAll(keepingCapacity: true)
        bandMaxS.removeAll(keepingCapacity: true)
    }

    /// Records a band of the section in progress that starts at item
    /// `start` (local).
    mutating func addBand(start: Int, minS: Double, maxS: Double) {
        bandStart.append(Int32(truncatingIfNeeded: start))
        bandMinS.append(minS)
        bandMaxS.append(Swift.max(maxS, bandMaxS.last ?? -.infinity))
    }

    /// Closes the section in progress: copies its frames and bands into a
    /// section of their own (exactly as large as they need), with its
    /// header, footer, bounds and extent (all local on S). When its items are
    /// their own bands, the bands recorded are dropped.
    ///
    /// - Complexity: O(*m*) for the section's *m* items and bands.
    @discardableResult
    mutating func endSection(bounds: Rect, header: Rect?, footer: Rect?, itemsAreBands: Bool, extent: Double, columns: _ColumnSection? = nil) -> _SectionFrames {
        var reachF = -Double.infinity
        var reachS = -Double.infinity
        let direction = direction
        func extend(to frame: Rect?) {
            guard let frame else { return }
            reachF = Swift.max(reachF, direction.maxF(frame))
            reachS = Swift.max(reachS, direction.maxS(frame))
        }
        for frame in itemFrames { extend(to: frame) }
        extend(to: header)
        extend(to: footer)
        let frames = _SectionFrames(
            itemFrames: Array(itemFrames),
            bandStart: itemsAreBands ? [] : Array(bandStart),
            bandMinS: itemsAreBands ? [] : Array(bandMinS),
            bandMaxS: itemsAreBands ? [] : Array(bandMaxS),
            itemsAreBands: itemsAreBands,
            header: header, footer: footer, bounds: bounds, extent: extent,
            reachF: reachF, reachS: reachS, columns: columns
        )
        frames.checkInvariants()
        sections[current] = frames
        sizedLists[current] = nil
        return frames
    }

    /// Closes the section in progress as uniform lines: no frame is kept,
    /// `lines` gives them (the scratch arrays must be empty).
    ///
    /// - Complexity: O(*p*) for the *p* items of a line.
    @discardableResult
    mutating func endSection(bounds: Rect, header: Rect?, footer: Rect?, lines: _UniformLines, extent: Double) -> _SectionFrames {
        var reachF = lines.count == 0 ? -Double.infinity : lines.reachF
        var reachS = lines.endS ?? -Double.infinity
        let direction = direction
        func extend(to frame: Rect?) {
            guard let frame else { return }
            reachF = Swift.max(reachF, direction.maxF(frame))
            reachS = Swift.max(reachS, direction.maxS(frame))
        }
        extend(to: header)
        extend(to: footer)
        let frames = _SectionFrames(
            itemFrames: [], bandStart: [], bandMinS: [], bandMaxS: [], itemsAreBands: false,
            header: header, footer: footer, bounds: bounds, extent: extent,
            reachF: reachF, reachS: reachS, columns: nil, lines: lines
        )
        frames.checkInvariants()
        sections[current] = frames
        sizedLists[current] = nil
        return frames
    }

    /// Records the bad values met while laying out `section` in this pass.
    mutating func recordErrors(_ errors: [LayoutError], section: Int) {
        guard section >= 0 && section < sections.count, !errors.isEmpty else { return }
        sections[section] = sections[section].recording(errors)
    }

    /// Places every section: origins from `base` (stacked: each the one
    /// before plus its extent), the searched S ranges and the running
    /// maxima. Returns where the content ends on S (stacked) or `base`.
    ///
    /// - Complexity: O(*s*) for *s* sections, none per item.
    @discardableResult
    mutating func layOutOrigins(base: Double = 0) -> Double {
        let count = sections.count
        var origins = [Double]()
        origins.reserveCapacity(count + 1)
        var minS = [Double]()
        minS.reserveCapacity(count)
        var maxS = [Double]()
        maxS.reserveCapacity(count)
        var reachX = [Double]()
        reachX.reserveCapacity(count)
        var reachY = [Double]()
        reachY.reserveCapacity(count)
        var origin = base
        var runningS = -Double.infinity
        var runningX = -Double.infinity
        var runningY = -Double.infinity
        for section in sections {
            origins.append(origin)
            minS.append(origin + direction.minS(section.bounds))
            runningS = Swift.max(runningS, origin + direction.maxS(section.bounds), origin + section.extent)
            maxS.append(runningS)
            let reachS = origin + section.reachS
            if direction == .vertical {
                runningX = Swift.max(runningX, section.reachF)
                runningY = Swift.max(runningY, reachS)
            } else {
                runningX = Swift.max(runningX, reachS)
                runningY = Swift.max(runningY, section.reachF)
            }
            reachX.append(runningX)
            reachY.append(runningY)
            if stacksSections { origin += section.extent }
        }
        origins.append(origin)
        sectionOrigin = origins
        searchMinS = minS
        sectionMaxS = maxS
        sectionReachX = reachX
        sectionReachY = reachY
        itemFrames = []
        bandStart = []
        bandMinS = []
        bandMaxS = []
        return origin
    }

    /// Replaces the S range the query searches for each section (a layout
    /// whose sections overlap or whose elements leave their bounds): starts
    /// must ascend, and the maxima are made running.
    ///
    /// - Complexity: O(*s*).
    mutating func setSearchBounds(minS: [Double], maxS: [Double]) {
        searchMinS = minS
        var running = -Double.infinity
        sectionMaxS = maxS.map { value in
            running = Swift.max(running, value)
            return running
        }
    }

    // MARK: Reading

    /// `frame` (local on S in `section`) where it is.
    @inline(__always)
    func placed(_ frame: Rect, section: Int) -> Rect {
        let origin = sectionOrigin[section]
        return direction == .vertical ? frame.offsetBy(dx: 0, dy: origin) : frame.offsetBy(dx: origin, dy: 0)
    }

    func itemCount(inSection section: Int) -> Int { sections[section].itemCount }

    /// The frame of an item, or `nil` when there is no such item.
    ///
    /// - Complexity: O(1).
    func itemFrame(at indexPath: IndexPath) -> Rect? {
        guard indexPath.count == 2 else { return nil }
        let section = indexPath[0]
        let item = indexPath[1]
        guard section >= 0 && section < numberOfSections && item >= 0 && item < sections[section].itemCount else { return nil }
        if let list = sizedLists[section] { return placed(list.frame(ofItem: item), section: section) }
        return placed(sections[section].frame(ofItem: item), section: section)
    }

    /// The resting frame of a section's header.
    func headerFrame(_ section: Int) -> Rect? { sections[section].header.map { placed($0, section: section) } }

    /// The resting frame of a section's footer.
    func footerFrame(_ section: Int) -> Rect? { sections[section].footer.map { placed($0, section: section) } }

    /// A section's bounds.
    func sectionBounds(_ section: Int) -> Rect { placed(sections[section].bounds, section: section) }

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

    /// The sections whose searched S ranges may meet `rect`.
    ///
    /// - Complexity: O(log *s* + *r*) for *r* sections returned.
    func sections(meeting rect: Rect) -> Range<Int> {
        let low = Self.widened(direction.minS(rect), down: true)
        let high = Self.widened(direction.maxS(rect), down: false)
        let first = Self.firstIndex(in: sectionMaxS, from: 0, to: numberOfSections, above: low)
        var end = first
        while end < numberOfSections && searchMinS[end] < high { end += 1 }
        return first..<end
    }

    /// The first index in `lower..<upper` whose running maximum exceeds
    /// `value`.
    static func firstIndex(in maxima: [Double], from lower: Int, to upper: Int, above value: Double) -> Int {
        var low = lower
        var high = upper
        while low < high {
            let mid = (low + high) / 2
            if maxima[mid] > value { high = mid } else { low = mid + 1 }
        }
        return low
    }

    /// Calls `sectionBody` for every section whose searched range may meet
    /// `rect` on S, in order, then `itemBody` for every item of it whose
    /// frame intersects `rect`, with the frame where it is.
    ///
    /// - Complexity: O(log *s* + Σ log *m* + *k*) for *s* sections, the
    ///   items or bands *m* of each section met, and *k* visited bands and
    ///   items.
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
            let origin = sectionOrigin[section]
            if let list = sizedLists[section] {
                list.forEachItem(fromS: low - origin, toS: high - origin) { item, local in
                    let frame = placed(local, section: section)
                    if frame.intersects(rect) { itemBody(section, item, frame) }
                }
                continue
            }
            sections[section].forEachItem(direction: direction, fromS: low - origin, toS: high - origin) { item, local in
                let frame = placed(local, section: section)
                if frame.intersects(rect) { itemBody(section, item, frame) }
            }
        }
    }

    /// Checks that the per-section arrays are in step and that running
    /// maxima never fall. Compiled in with `TESSERA_INTERNAL_CHECKS`.
    ///
    /// - Complexity: O(*s*), and O(*b*) over every band with
    ///   `TESSERA_INTERNAL_CHECKS`.
    func checkInvariants() {
        #if TESSERA_INTERNAL_CHECKS
        let count = numberOfSections
        precondition(sectionOrigin.count == count + 1, "section origins out of step")
        precondition(searchMinS.count == count && sectionMaxS.count == count, "section search arrays out of step")
        precondition(sectionReachX.count == count && sectionReachY.count == count, "section reaches out of step")
        precondition(sizedLists.count == count, "self-sizing lists out of step")
        for section in 0..<count {
            precondition(sections[section] !== _SectionFrames.placeholder, "section \(section) was never laid out")
            if section > 0 {
                precondition(sectionReachX[section] >= sectionReachX[section - 1] && sectionReachY[section] >= sectionReachY[section - 1], "section reaches fall at \(section)")
                precondition(sectionMaxS[section] >= sectionMaxS[section - 1], "section maxima fall at \(section)")
            }
        }
        #endif
    }
}

extension ScrollDirection {
    /// The F-axis end of a rectangle.
    @inlinable func maxF(_ rect: Rect) -> Double { self == .vertical ? rect.maxX : rect.maxY }
}
