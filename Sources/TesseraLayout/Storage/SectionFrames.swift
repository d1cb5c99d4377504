/// The frames of one section, relative to the section's origin on the
/// scroll axis (S): an item at local S `y` of a vertical layout sits at
/// `origin + y`. The fixed axis (F) is absolute.
///
/// A section's frames never change once laid out: a later pass that keeps
/// the section shares this object and only moves its origin, and the state
/// before a batch update keeps the objects of the sections the batch lays
/// out again. So keeping that state costs one array of references, and a
/// batch allocates only for the sections it lays out.
///
/// Items are grouped into *bands* along S: a line of a flow layout, or a
/// row. A band records the first item it holds and the S range its items
/// cover; bands start in S order, and a running maximum of their S ends
/// lets a binary search find the first band a range meets. When every item
/// is a band of its own (`itemsAreBands`: a list), the section keeps no bands
/// and a query searches its frames.
///
/// A section whose items all have one size and sit in lines of equal
/// length keeps no frame at all: its ``lines`` give each item's frame from
/// its index, and a query finds the lines it meets by division.
///
/// Per item 32 bytes (one `Rect`), or none with ``lines``; per band 20
/// bytes; per section about 300 bytes (this object, its arrays' headers and
/// the store's per-section arrays).
final class _SectionFrames: Sendable {
    /// The number of items.
    let itemCount: Int
    /// The items' frames, local on S; empty when ``lines`` gives them.
    let itemFrames: [Rect]
    /// The items' frames as lines of one item size, when the section keeps
    /// no frames.
    let lines: _UniformLines?
    /// The first item of each band.
    let bandStart: [Int32]
    /// The smallest local S start of each band's items.
    let bandMinS: [Double]
    /// The running maximum of the local S ends up to each band (monotone).
    let bandMaxS: [Double]
    /// Whether every item is a band of its own, with S starts and ends both
    /// ascending: then `bandStart` is empty and queries search the frames.
    let itemsAreBands: Bool
    /// The header's and footer's resting frames, local on S.
    let header: Rect?
    let footer: Rect?
    /// Everything the section holds, insets included, local on S.
    let bounds: Rect
    /// Where the next section starts, relative to this one's origin (the
    /// exact S the pass computed: bounds give it back only up to a rounding).
    let extent: Double
    /// The largest F end and local S end of every item, header and footer
    /// (−∞ when there is none).
    let reachF: Double
    let reachS: Double
    /// Bad values met while laying the section out, reported again by every
    /// pass that keeps it.
    let errors: [LayoutError]
    /// A ``ColumnLayout`` section's items grouped by column.
    let columns: _ColumnSection?

    init(
        itemFrames: [Rect], bandStart: [Int32], bandMinS: [Double], bandMaxS: [Double], itemsAreBands: Bool,
        header: Rect?, footer: Rect?, bounds: Rect, extent: Double, reachF: Double, reachS: Double, columns: _ColumnSection?,
        lines: _UniformLines? = nil, errors: [LayoutError] = [], itemCount: Int? = nil
    ) {
        self.errors = errors
        self.itemCount = itemCount ?? lines?.count ?? itemFrames.count
        self.itemFrames = itemFrames
        self.lines = lines
        self.bandStart = bandStart
        self.bandMinS = bandMinS
        self.bandMaxS = bandMaxS
        self.itemsAreBands = itemsAreBands
        self.header = header
        self.footer = footer
        self.bounds = bounds
        self.extent = extent
        self.reachF = reachF
        self.reachS = reachS
        self.columns = columns
    }

    /// A section with nothing in it, standing for one a pass has yet to lay
    /// out.
    static let placeholder = _SectionFrames(
        itemFrames: [], bandStart: [], bandMinS: [], bandMaxS: [], itemsAreBands: true,
        header: nil, footer: nil, bounds: .zero, extent: 0, reachF: -.infinity, reachS: -.infinity, columns: nil
    )

    /// An item's frame, local on S.
    ///
    /// - Complexity: O(1).
    @inline(__always)
    func frame(ofItem item: Int) -> Rect {
        if let lines { return lines.frame(ofItem: item) }
        return itemFrames[item]
    }

    /// The same section with `errors` recorded: its arrays are shared, not
    /// copied.
    func recording(_ errors: [LayoutError]) -> _SectionFrames {
        _SectionFrames(
            itemFrames: itemFrames, bandStart: bandStart, bandMinS: bandMinS, bandMaxS: bandMaxS, itemsAreBands: itemsAreBands,
            header: header, footer: footer, bounds: bounds, extent: extent, reachF: reachF, reachS: reachS, columns: columns,
            lines: lines, errors: self.errors + errors, itemCount: itemCount
        )
    }

    /// The bytes the object and its arrays reserve.
    var byteCount: Int {
        let arrays = itemFrames.capacity * MemoryLayout<Rect>.stride
            + bandStart.capacity * MemoryLayout<Int32>.stride
            + (bandMinS.capacity + bandMaxS.capacity) * MemoryLayout<Double>.stride
            + errors.capacity * MemoryLayout<LayoutError>.stride
            + (columns?.byteCount ?? 0)
            + (lines?.byteCount ?? 0)
        // The object (header and fields) and the headers of its non-empty
        // arrays (32 bytes each).
        let headers = [itemFrames.isEmpty, bandStart.isEmpty, bandMinS.isEmpty, bandMaxS.isEmpty].filter { !$0 }.count * 32
        return 176 + headers + arrays
    }

    /// Calls `body` with the local index and local frame of every item whose
    /// frame may meet the local S range `low..<high` (widened bounds: the
    /// caller tests the exact frame).
    ///
    /// - Complexity: O(log *m* + *k*) for *m* items or bands and *k* items
    ///   visited.
    @inline(__always)
    func forEachItem(direction: ScrollDirection, fromS low: Double, toS high: Double, _ body: (Int, Rect) -> Void) {
        if let lines {
            lines.forEachItem(fromS: low, toS: high, body)
            return
        }
        if itemsAreBands {
            var lower = 0
            var upper = itemFrames.count
            while lower < upper {
                let mid = (lower + upper) / 2
                if direction.maxS(itemFrames[mid]) > low { upper = mid } else { lower = mid + 1 }
            }
            var item = lower
            while item < itemFrames.count && direction.minS(itemFrames[item]) < high {
                body(item, itemFrames[item])
                item += 1
            }
            return
        }
        var band = _FrameStore.firstIndex(in: bandMaxS, from: 0, to: bandMaxS.count, above: low)
        while band < bandStart.count && bandMinS[band] < high {
            let start = Int(bandStart[band])
            let end = band + 1 < bandStart.count ? Int(bandStart[band + 1]) : itemFrames.count
            for item in start..<end { body(item, itemFrames[item]) }
            band += 1
        }
    }

    /// Checks that bands start in order and their running maxima never fall.
    /// Compiled in with `TESSERA_INTERNAL_CHECKS`.
    func checkInvariants() {
        #if TESSERA_INTERNAL_CHECKS
        precondition(bandStart.count == bandMinS.count && bandStart.count == bandMaxS.count, "band arrays out of step")
        precondition(!itemsAreBands || bandStart.isEmpty, "a section whose items are bands keeps bands")
        precondition(lines == nil || (itemFrames.isEmpty && bandStart.isEmpty), "a section of uniform lines keeps frames")
        lines?.checkInvariants()
        for band in bandStart.indices.dropFirst() {
            precondition(bandMaxS[band] >= bandMaxS[band - 1], "band maxima fall at \(band)")
            precondition(bandStart[band] >= bandStart[band - 1], "bands out of order at \(band)")
        }
        #endif
    }
}
