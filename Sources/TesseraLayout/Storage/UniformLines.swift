/// The items of a section whose items all have one size, laid out in lines
/// of equal length: their frames follow from the item's index, so none is
/// stored. A ``FlowLayout`` without a delegate lays its sections out this
/// way, in O(*p*) for *p* items a line instead of O(*m*) for *m* items.
///
/// Line `k` starts at local S `firstS + k × pitch`; an item's place across
/// its line comes from one of two small tables, one for full lines and one
/// for the section's last line (aligned on its own, as UIKit does). The
/// tables are made by the same arithmetic that places a line's items one by
/// one, so an item's F position is exactly the one that pass would give; its
/// S position is one multiplication away instead of a running sum, which is
/// the same for whole and half points (and within a rounding otherwise).
struct _UniformLines: Sendable {
    let direction: ScrollDirection
    /// The number of items.
    let count: Int
    /// The number of items on each line but the last (at least 1).
    let perLine: Int
    /// The local S where the first line starts.
    let firstS: Double
    /// From one line's start to the next: the line's length and the spacing.
    let pitch: Double
    /// Every item's length along S (a line's length) and across it.
    let sLength: Double
    let fLength: Double
    /// Where each item of a full line starts across it.
    let fullLineF: [Double]
    /// Where each item of the last line starts across it.
    let lastLineF: [Double]

    /// The number of lines.
    var lineCount: Int { count == 0 ? 0 : (count - 1) / perLine + 1 }

    /// The local S where line `k` starts.
    @inline(__always)
    func lineS(_ line: Int) -> Double { firstS + Double(line) * pitch }

    /// Where the last line ends on S (local), or `nil` when there is no item.
    var endS: Double? { count == 0 ? nil : lineS(lineCount - 1) + sLength }

    /// The largest F end of any item, or −∞ when there is none.
    var reachF: Double {
        var reach = -Double.infinity
        for f in fullLineF { reach = Swift.max(reach, f + fLength) }
        for f in lastLineF { reach = Swift.max(reach, f + fLength) }
        return reach
    }

    /// An item's frame, local on S.
    ///
    /// - Complexity: O(1).
    @inline(__always)
    func frame(ofItem item: Int) -> Rect {
        let line = item / perLine
        let column = item - line * perLine
        let f = line == lineCount - 1 ? lastLineF[column] : fullLineF[column]
        return direction.rect(s: lineS(line), f: f, sLength: sLength, fLength: fLength)
    }

    /// Calls `body` with the index and local frame of every item on a line
    /// that may meet the local S range `low..<high` (the caller tests the
    /// exact frame).
    ///
    /// - Complexity: O(1 + *k*) for *k* items visited.
    @inline(__always)
    func forEachItem(fromS low: Double, toS high: Double, _ body: (Int, Rect) -> Void) {
        let lines = lineCount
        guard lines > 0 else { return }
        // The first line whose end passes `low`: estimated by division,
        // then settled by the exact test the other way round.
        var line = 0
        if pitch > 0 {
            let estimate = ((low - firstS - sLength) / pitch).rounded(.down)
            line = estimate.isNaN ? 0 : Int(Swift.min(Swift.max(estimate, 0), Double(lines)))
        }
        while line > 0 && lineS(line - 1) + sLength > low { line -= 1 }
        while line < lines && lineS(line) + sLength <= low { line += 1 }
        while line < lines && lineS(line) < high {
            let start = line * perLine
            let end = Swift.min(start + perLine, count)
            for item in start..<end { body(item, frame(ofItem: item)) }
            line += 1
        }
    }

    /// The bytes the tables reserve.
    var byteCount: Int { (fullLineF.capacity + lastLineF.capacity) * MemoryLayout<Double>.stride }

    /// Checks the tables' sizes. Compiled in with `TESSERA_INTERNAL_CHECKS`.
    func checkInvariants() {
        #if TESSERA_INTERNAL_CHECKS
        precondition(perLine >= 1, "a line holds no item")
        precondition(count == 0 || lastLineF.count == count - (lineCount - 1) * perLine, "the last line's table is out of step")
        precondition(lineCount <= 1 || fullLineF.count == perLine, "the full lines' table is out of step")
        #endif
    }
}
