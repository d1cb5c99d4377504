/// An array kept in chunks of at most ``maxChunk`` elements, so that a copy
/// shares every chunk and a change copies only the chunks it touches: what
/// lets a results controller keep the result before a change (in a report)
/// and patch the result after it without copying a million records.
///
/// The chunks' counts are kept in a Fenwick (binary indexed) tree, so that
/// finding the chunk that holds a position, the position where a chunk
/// starts, and counting an element in or out of a chunk each take
/// O(log *c*) for *c* chunks: an edit never recounts the other chunks.
/// Only a change of the chunks themselves (a chunk that splits, or one
/// left empty) rebuilds the tree, once per edit, in O(*c*): an insertion
/// splits a chunk only after adding half a chunk to it.
///
/// The chunks are kept in pages of ``chunksPerPage``: an edit of an array
/// whose storage a copy shares copies the list of pages and the pages it
/// touches (O(*c* / 64 + 64) references), not the list of every chunk (a
/// million records are about 7,000 chunks).
struct _ChunkedArray<Element> {
    /// Chunks grow to this size, then split in two.
    let maxChunk: Int

    /// The most edits an edit makes in place in one chunk; a chunk with
    /// more is made again in one pass.
    static var editsInPlace: Int { 4 }

    /// The chunks, ``chunksPerPage`` to a page (the last page may hold
    /// fewer; no page is empty).
    private(set) var pages: [[[Element]]] = []
    /// The chunks per page (a power of two).
    static var chunksPerPage: Int { 1 << pageShift }
    private static var pageShift: Int { 6 }
    /// The chunks' counts as a Fenwick tree: `tree[i - 1]` holds the
    /// number of elements in chunks `i - (i & -i) ..< i` (for `i` from 1).
    private(set) var tree: [Int] = []
    /// The number of elements.
    private(set) var count = 0

    /// About 16 KiB of elements a chunk, so that copying the chunks a
    /// change touches stays cheap (2,048 integers, 292 records of 56 bytes).
    static var defaultMaxChunk: Int { Swift.max(64, Swift.min(2048, 16_384 / Swift.max(1, MemoryLayout<Element>.stride))) }

    init(maxChunk: Int = Self.defaultMaxChunk) {
        self.maxChunk = Swift.max(2, maxChunk)
    }

    /// Takes an array's elements.
    ///
    /// - Complexity: O(*n*).
    init(_ elements: [Element], maxChunk: Int = Self.defaultMaxChunk) {
        self.init(maxChunk: maxChunk)
        var made: [[Element]] = []
        var start = 0
        while start < elements.count {
            let end = Swift.min(start + self.maxChunk / 2, elements.count)
            made.append(Array(elements[start..<end]))
            start = end
        }
        setChunks(made)
    }

    // MARK: The chunks

    /// One chunk's elements.
    typealias Chunk = [Element]

    /// The chunks in order, read through their pages.
    struct Chunks: RandomAccessCollection {
        fileprivate let pages: [[Chunk]]
        let count: Int
        var startIndex: Int { 0 }
        var endIndex: Int { count }

        subscript(c: Int) -> Chunk {
            pages[c >> _ChunkedArray.pageShift][c & (_ChunkedArray.chunksPerPage - 1)]
        }
    }

    /// The chunks, in order.
    var chunks: Chunks { Chunks(pages: pages, count: tree.count) }

    /// Chunk `c`, read or edited in place (an edit copies only the list of
    /// pages, the page and the chunk when a copy shares them).
    private subscript(chunk c: Int) -> [Element] {
        get { pages[c >> Self.pageShift][c & (Self.chunksPerPage - 1)] }
        _modify { yield &pages[c >> Self.pageShift][c & (Self.chunksPerPage - 1)] }
    }

    /// Appends a chunk (its count is not added to the tree).
    private mutating func appendChunk(_ chunk: [Element]) {
        if let last = pages.indices.last, pages[last].count < Self.chunksPerPage {
            pages[last].append(chunk)
        } else {
            pages.append([chunk])
        }
    }

    /// Takes `list` as the chunks, and makes the tree again.
    ///
    /// - Complexity: O(*c*).
    private mutating func setChunks(_ list: [[Element]]) {
        pages = []
        pages.reserveCapacity((list.count + Self.chunksPerPage - 1) / Self.chunksPerPage)
        var start = 0
        while start < list.count {
            let end = Swift.min(start + Self.chunksPerPage, list.count)
            pages.append(Array(list[start..<end]))
            start = end
        }
        tree = list.map { $0.count }
        rebuildTree()
    }

    var isEmpty: Bool { count == 0 }

    // MARK: The tree of counts

    /// Adds `delta` to chunk `c`'s count.
    ///
    /// - Complexity: O(log *c*).
    private mutating func add(_ delta: Int, toChunk c: Int) {
        var i = c + 1
        while i <= tree.count {
            tree[i - 1] += delta
            i += i & -i
        }
        count += delta
    }

    /// Makes the tree again from the chunks' counts, which `tree` holds.
    ///
    /// - Complexity: O(*c*).
    private mutating func rebuildTree() {
        count = tree.reduce(0, +)
        for i in 1..<(tree.count + 1) {
            let parent = i + (i & -i)
            if parent <= tree.count { tree[parent - 1] += tree[i - 1] }
        }
    }

    /// The number of elements in the chunks before chunk `c`: where it
    /// starts.
    ///
    /// - Complexity: O(log *c*).
    func start(ofChunk c: Int) -> Int {
        var sum = 0
        var i = c
        while i > 0 {
            sum += tree[i - 1]
            i -= i & -i
        }
        return sum
    }

    /// The chunk holding position `index`, and the position in it: the
    /// first chunk whose end is past `index`, found by descending the tree.
    ///
    /// - Precondition: `0 <= index < count`.
    /// - Complexity: O(log *c*) for *c* chunks.
    func locate(_ index: Int) -> (chunk: Int, offset: Int) {
        var position = 0
        var remaining = index
        var step = tree.isEmpty ? 0 : 1 << (Int.bitWidth - 1 - tree.count.leadingZeroBitCount)
        while step > 0 {
            let next = position + step
            if next <= tree.count && tree[next - 1] <= remaining {
                position = next
                remaining -= tree[next - 1]
            }
            step >>= 1
        }
        return (position, remaining)
    }

    // MARK: Reading

    subscript(index: Int) -> Element {
        let (c, k) = locate(index)
        return self[chunk: c][k]
    }

    /// The element at a located position.
    subscript(chunk c: Int, offset k: Int) -> Element {
        self[chunk: c][k]
    }

    // MARK: Editing

    /// Appends an element.
    ///
    /// - Complexity: amortized O(log *c*).
    mutating func append(_ element: Element) {
        if !tree.isEmpty, self[chunk: tree.count - 1].count < maxChunk / 2 {
            self[chunk: tree.count - 1].append(element)
            add(1, toChunk: tree.count - 1)
        } else {
            var chunk: [Element] = []
            chunk.reserveCapacity(maxChunk / 2)
            chunk.append(element)
            appendChunk(chunk)
            // The new last node of a Fenwick tree covers the chunks its
            // low bit spans: its own count plus the nodes below it.
            let i = tree.count + 1
            var covered = 1
            var j = i - 1
            let low = i - (i & -i)
            while j > low {
                covered += tree[j - 1]
                j -= j & -j
            }
            tree.append(covered)
            count += 1
        }
    }

    /// Removes the elements at `offsets` (sorted ascending, distinct).
    ///
    /// - Complexity: as ``replace(removing:inserting:atSortedOffsets:)``.
    mutating func remove(atSortedOffsets offsets: [Int]) {
        replace(removing: offsets, inserting: [], atSortedOffsets: [])
    }

    /// Inserts elements so that they end at `offsets` (sorted ascending,
    /// distinct, in the array after the insertion), in order.
    ///
    /// - Complexity: as ``replace(removing:inserting:atSortedOffsets:)``.
    mutating func insert(_ elements: [Element], atSortedOffsets offsets: [Int]) {
        replace(removing: [], inserting: elements, atSortedOffsets: offsets)
    }

    /// Removes the elements at `removals` (sorted ascending, distinct, in
    /// the array before the edit) and inserts `elements` so that they end
    /// at `offsets` (sorted ascending, distinct, in the array after the
    /// edit), in order.
    ///
    /// A chunk with a few edits (at most ``editsInPlace``) is edited in
    /// place, so that one no copy shares is only shifted (one shared is
    /// copied by its first edit); a chunk with more is made again once, in
    /// one pass over its elements, however many of them go and come.
    ///
    /// - Complexity: O((*r* + *k*) log *c* + *t* · *m*) for *r* removals
    ///   and *k* insertions in *t* chunks of at most *m* elements; plus
    ///   O(*c*) for *c* chunks when a chunk is left empty or grows past
    ///   ``maxChunk``; plus O(*c* / 64 + 64 · *t*) when the storage is
    ///   shared with a copy (the list of pages and the pages touched are
    ///   copied).
    mutating func replace(removing removals: [Int], inserting elements: [Element], atSortedOffsets offsets: [Int]) {
        guard !removals.isEmpty || !elements.isEmpty else { return }
        if tree.isEmpty {
            appendChunk([])
            tree.append(0)
        }
        let total = count
        let last = tree.count - 1
        // Each inserted element goes before the element the removals leave
        // at its place: the untouched element of rank offsets[i] - i, which
        // is at that rank plus the removals before it (those with
        // removals[j] - j <= rank) in the array before the edit; or at the
        // end. An anchor is never a removed element.
        var anchors: [Int] = []
        anchors.reserveCapacity(offsets.count)
        var j = 0
        for (i, offset) in offsets.enumerated() {
            let rank = offset - i
            while j < removals.count && removals[j] - j <= rank { j += 1 }
            anchors.append(rank + j)
        }
        // The chunks in order, each edited with its removals and
        // insertions together; `shift` is what the chunks before gained,
        // so that a position before the edit is located in the tree as it
        // is now.
        var r = 0
        var a = 0
        var shift = 0
        var restructuring = false
        while r < removals.count || a < anchors.count {
            let next = Swift.min(r < removals.count ? removals[r] : Int.max, a < anchors.count ? anchors[a] : Int.max)
            let (c, offset) = next < total ? locate(next + shift) : (last, self[chunk: last].count)
            // The chunk's elements are base..<end before the edit; an
            // anchor at the end belongs to the last chunk.
            let base = next - offset
            let end = base + self[chunk: c].count
            var rEnd = r
            while rEnd < removals.count && removals[rEnd] < end { rEnd += 1 }
            var aEnd = a
            while aEnd < anchors.count && (anchors[aEnd] < end || c == last) { aEnd += 1 }
            if (rEnd - r) + (aEnd - a) <= Self.editsInPlace {
                // A few edits are made in place: a chunk no copy shares is
                // shifted, not made again; one shared is copied by the
                // first edit.
                let before = self[chunk: c].count
                for k in (r..<rEnd).reversed() { self[chunk: c].remove(at: removals[k] - base) }
                var removedBelow = 0
                var k = r
                for (i, anchor) in anchors[a..<aEnd].enumerated() {
                    while k < rEnd && removals[k] < anchor {
                        removedBelow += 1
                        k += 1
                    }
                    self[chunk: c].insert(elements[a + i], at: anchor - base - removedBelow + i)
                }
                let delta = self[chunk: c].count - before
                add(delta, toChunk: c)
                shift += delta
                if self[chunk: c].isEmpty || self[chunk: c].count > maxChunk { restructuring = true }
                r = rEnd
                a = aEnd
                continue
            }
            let old = self[chunk: c]
            var made: [Element] = []
            made.reserveCapacity(old.count - (rEnd - r) + (aEnd - a))
            var from = 0
            while r < rEnd || a < aEnd {
                if a < aEnd && (r == rEnd || anchors[a] < removals[r]) {
                    let k = anchors[a] - base
                    made.append(contentsOf: old[from..<k])
                    made.append(elements[a])
                    from = k
                    a += 1
                } else {
                    let k = removals[r] - base
                    made.append(contentsOf: old[from..<k])
                    from = k + 1
                    r += 1
                }
            }
            made.append(contentsOf: old[from...])
            let delta = made.count - old.count
            self[chunk: c] = made
            add(delta, toChunk: c)
            shift += delta
            if made.isEmpty || made.count > maxChunk { restructuring = true }
        }
        if restructuring { restructure() }
        _checkInvariants()
    }

    /// Drops empty chunks, splits those that grew past ``maxChunk`` into
    /// chunks of half that, and rebuilds the tree: one pass, however many
    /// chunks changed.
    ///
    /// - Complexity: O(*c*) and the elements of the chunks that split.
    private mutating func restructure() {
        var made: [[Element]] = []
        made.reserveCapacity(tree.count + 1)
        for chunk in chunks where !chunk.isEmpty {
            guard chunk.count > maxChunk else {
                made.append(chunk)
                continue
            }
            var from = 0
            while from < chunk.count {
                let to = Swift.min(from + maxChunk / 2, chunk.count)
                made.append(Array(chunk[from..<to]))
                from = to
            }
        }
        setChunks(made)
    }

    /// The same chunks, each element transformed.
    ///
    /// - Complexity: O(*n*).
    func map<T>(_ transform: (Element) -> T) -> _ChunkedArray<T> {
        var result = _ChunkedArray<T>(maxChunk: maxChunk)
        result.pages = pages.map { page in page.map { $0.map(transform) } }
        result.tree = tree
        result.count = count
        return result
    }

    /// The elements, in one array.
    ///
    /// - Complexity: O(*n*).
    func joined() -> [Element] {
        var result: [Element] = []
        result.reserveCapacity(count)
        for chunk in chunks { result.append(contentsOf: chunk) }
        return result
    }
}

extension _ChunkedArray: Sendable where Element: Sendable {}
