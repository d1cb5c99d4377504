/// The row state that runs across the sections of a ``ListStackLayout``.
struct _ListStackCursor: Equatable {
    /// The S of the current row (before the section's leading inset).
    var itemS = 0.0
    /// The F of the next item.
    var itemF = 0.0
    /// The S of the next row (before the section's leading inset).
    var nextRowS = 0.0
}

/// What a ``ListStackLayout`` keeps per section: the union of its elements
/// (the section's bounds), where it ends, where the content ends so far on the scroll axis
/// (the furthest S end, trailing inset included, of this section and those
/// before it), and the row state after it, from which a later section can
/// be laid out again alone.
struct _ListStackSectionState {
    var bounds: Rect
    /// Where the section ends on S, trailing inset included.
    var sectionEnd: Double
    var contentEnd: Double
    var end: _ListStackCursor
}

/// One row of a section's items while it is being filled; it becomes a band
/// of the frame store.
struct _ListStackRow {
    var start: Int
    var minS: Double
    var maxS: Double

    mutating func add(minS itemMinS: Double, maxS itemMaxS: Double) {
        minS = Swift.min(minS, itemMinS)
        maxS = Swift.max(maxS, itemMaxS)
    }

    /// Records the row as a band. Bands must start in S order within a
    /// section; a row that starts before the band before it (possible only
    /// through sub-pixel rounding) is merged with it.
    func close(in store: inout _FrameStore, firstBand: Int) {
        var start = start
        var maxS = maxS
        while store.bandStart.count > firstBand, let previous = store.bandMinS.last, previous > minS {
            start = Int(store.bandStart.removeLast())
            store.bandMinS.removeLast()
            maxS = Swift.max(maxS, store.bandMaxS.removeLast())
        }
        store.addBand(start: start, minS: minS, maxS: maxS)
    }
}
