/// The items of a self-sizing list section: full-width rows whose heights
/// change one at a time as their fitted sizes arrive. Frames are not kept:
/// the heights (plus the spacing after each) sit in a Fenwick tree, so an
/// item's top is a prefix sum, a change of one height costs O(log *m*), and
/// a query finds the first item it meets by descending the tree.
///
/// Item `i` starts at local S `firstS + Σ_{j<i}(height_j + spacing)`: the
/// same sum a pass that stacks the rows one by one makes, in another order,
/// so the frames are the same for whole and half points (and within a
/// rounding otherwise).
///
/// The section's header, footer and insets are kept too, so the section's
/// bounds and extent can be made again after a change (``sectionFrames()``).
///
/// Per item 16 bytes (a height and a tree node).
struct _SizedList: Sendable {
    /// The items' left edge and width (F).
    let x: Double
    let width: Double
    /// The local S where the first item starts.
    let firstS: Double
    /// The spacing between items.
    let spacing: Double
    /// The header's frame, local on S.
    let header: Rect?
    /// The footer's left edge, width and height (0: none).
    let footerX: Double
    let footerWidth: Double
    let footerHeight: Double
    /// The bottom inset.
    let bottomInset: Double
    /// The section's width.
    let boundsWidth: Double
    /// Each item's height.
    private(set) var heights: [Double]
    /// The Fenwick tree of `height + spacing`, one-based (`tree[0]` unused).
    private var tree: [Double]

    init(
        heights: [Double], x: Double, width: Double, firstS: Double, spacing: Double, header: Rect?,
        footerX: Double, footerWidth: Double, footerHeight: Double, bottomInset: Double, boundsWidth: Double
    ) {
        self.heights = heights
        self.x = x
        self.width = width
        self.firstS = firstS
        self.spacing = spacing
        self.header = header
        self.footerX = footerX
        self.footerWidth = footerWidth
        self.footerHeight = footerHeight
        self.bottomInset = bottomInset
        self.boundsWidth = boundsWidth
        let count = heights.count
        var tree = [Double](repeating: 0, count: count + 1)
        for index in 0..<count { tree[index + 1] = heights[index] + spacing }
        if count > 0 {
            for node in 1...count {
                let parent = node + (node & -node)
                if parent <= count { tree[parent] += tree[node] }
            }
        }
        self.tree = tree
    }

    /// The number of items.
    var count: Int { heights.count }

    /// The sum of `height + spacing` over the first `items` items.
    ///
    /// - Complexity: O(log *m*).
    @inline(__always)
    func prefix(_ items: Int) -> Double {
        var sum = 0.0
        var node = items
        while node > 0 {
            sum += tree[node]
            node -= node & -node
        }
        return sum
    }

    /// An item's frame, local on S.
    ///
    /// - Complexity: O(log *m*).
    func frame(ofItem item: Int) -> Rect {
        Rect(x: x, y: firstS + prefix(item), width: width, height: heights[item])
    }

    /// Where the last item ends (local S), or `firstS` when there is none.
    ///
    /// - Complexity: O(log *m*).
    var itemsEnd: Double {
        count == 0 ? firstS : firstS + prefix(count) - spacing
    }

    /// Sets an item's height and returns the change.
    ///
    /// - Complexity: O(log *m*).
    @discardableResult
    mutating func setHeight(_ height: Double, ofItem item: Int) -> Double {
        let delta = height - heights[item]
        guard delta != 0 else { return 0 }
        heights[item] = height
        var node = item + 1
        while node < tree.count {
            tree[node] += delta
            node += node & -node
        }
        return delta
    }

    /// Calls `body` with the index and local frame of every item that may
    /// meet the local S range `low..<high` (the caller tests the exact
    /// frame).
    ///
    /// - Complexity: O(log *m* + *k* log *m*) for *k* items visited.
    func forEachItem(fromS low: Double, toS high: Double, _ body: (Int, Rect) -> Void) {
        let count = count
        guard count > 0 else { return }
        // The largest number of items whose `height + spacing` sum stays at
        // or below `low - firstS + spacing`: the first item ending past
        // `low`, then settled by the exact frames.
        let target = low - firstS + spacing
        var position = 0
        var remaining = target
        var step = 1
        while step * 2 <= count { step *= 2 }
        while step > 0 {
            let next = position + step
            if next <= count && tree[next] <= remaining {
                position = next
                remaining -= tree[next]
            }
            step /= 2
        }
        var item = Swift.min(position, count)
        while item > 0 && frame(ofItem: item - 1).maxY > low { item -= 1 }
        while item < count && frame(ofItem: item).maxY <= low { item += 1 }
        while item < count {
            let frame = frame(ofItem: item)
            guard frame.minY < high else { break }
            body(item, frame)
            item += 1
        }
    }

    /// The section these items make: header, items, footer and insets,
    /// with its bounds, extent and reaches.
    ///
    /// - Complexity: O(log *m*).
    func sectionFrames(errors: [LayoutError]) -> _SectionFrames {
        var top = itemsEnd
        var reachF = -Double.infinity
        var reachS = -Double.infinity
        if count > 0 {
            reachF = x + width
            reachS = top
        }
        if let header {
            reachF = Swift.max(reachF, header.maxX)
            reachS = Swift.max(reachS, header.maxY)
        }
        var footer: Rect?
        if footerHeight > 0 {
            let frame = Rect(x: footerX, y: top, width: footerWidth, height: footerHeight)
            footer = frame
            top += footerHeight
            reachF = Swift.max(reachF, frame.maxX)
            reachS = Swift.max(reachS, frame.maxY)
        }
        top += bottomInset
        return _SectionFrames(
            itemFrames: [], bandStart: [], bandMinS: [], bandMaxS: [], itemsAreBands: true,
            header: header, footer: footer, bounds: Rect(x: 0, y: 0, width: boundsWidth, height: top), extent: top,
            reachF: reachF, reachS: reachS, columns: nil, errors: errors, itemCount: count
        )
    }

    /// The bytes the heights and the tree reserve.
    var byteCount: Int { (heights.capacity + tree.capacity) * MemoryLayout<Double>.stride }
}
