/// An array kept in chunks of at most ``maxChunk`` elements, so that a copy
/// shares every chunk and a change copies only the chunks it touches: what
/// lets a results controller keep the result before a change (in a report)
/// and patch the result after it without copying a million records.
struct _ChunkedArray<Element> {
    /// Chunks grow to this size, then split in two.
    let maxChunk: Int

    private(set) var chunks: [[Element]] = []
    /// `ends[c]`: the number of elements in chunks `0...c`.
    private(set) var ends: [Int] = []

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
        var start = 0
        while start < elements.count {
            let end = Swift.min(start + self.maxChunk / 2, elements.count)
            chunks.append(Array(elements[start..<end]))
            ends.append(end)
            start = end
        }
    }

    var count: Int { ends.last ?? 0 }
    var isEmpty: Bool { count == 0 }

    /// The chunk holding position `index`, and the position in it.
    ///
    /// - Complexity: O(log *c*) for *c* chunks.
    func locate(_ index: Int) -> (chunk: Int, offset: Int) {
        var low = 0
        var high = ends.count - 1
        while low < high {
            let mid = (low + high) / 2
            if ends[mid] > index { high = mid } else { low = mid + 1 }
        }
        return (low, index - (low == 0 ? 0 : ends[low - 1]))
    }

    subscript(index: Int) -> Element {
        let (c, k) = locate(index)
        return chunks[c][k]
    }

    /// The element at a located position.
    subscript(chunk c: Int, offset k: Int) -> Element {
        chunks[c][k]
    }

    /// Appends an element.
    ///
    /// - Complexity: amortized O(1).
    mutating func append(_ element: Element) {
        if let last = chunks.indices.last, chunks[last].count < maxChunk / 2 {
            chunks[last].append(element)
            ends[last] += 1
        } else {
            var chunk: [Element] = []
            chunk.reserveCapacity(maxChunk / 2)
            chunk.append(element)
            chunks.append(chunk)
            ends.append(count + 1)
        }
    }

    /// Removes the elements at `offsets` (sorted ascending, distinct).
    ///
    /// - Complexity: O(*k* log *c* + *t* · *m* + *c*) for *k* offsets in *t*
    ///   chunks of at most *m* elements; the O(*c*) part is a pass over
    ///   plain integers.
    mutating func remove(atSortedOffsets offsets: [Int]) {
        guard !offsets.isEmpty else { return }
        // Located against the counts from before the removal: removing from
        // the last keeps the earlier places.
        let places = offsets.map(locate)
        for (c, k) in places.reversed() { chunks[c].remove(at: k) }
        recount(places.map(\.chunk), by: -1)
    }

    /// Inserts elements so that they end at `offsets` (sorted ascending,
    /// distinct, in the array after the insertion), in order.
    ///
    /// - Complexity: O(*k* log *c* + *t* · *m* + *c*).
    mutating func insert(_ elements: [Element], atSortedOffsets offsets: [Int]) {
        guard !elements.isEmpty else { return }
        if chunks.isEmpty {
            chunks.append([])
            ends.append(0)
        }
        // The i-th element lands at offsets[i] - i among the elements
        // already here, located against the counts from before the
        // insertion; inserting from the last keeps the others' places. One
        // past the end goes to the end of the last chunk.
        let total = count
        let places = elements.indices.map { i -> (chunk: Int, offset: Int) in
            let position = offsets[i] - i
            return position >= total
                ? (chunks.count - 1, total - (chunks.count > 1 ? ends[chunks.count - 2] : 0))
                : locate(position)
        }
        for i in elements.indices.reversed() { chunks[places[i].chunk].insert(elements[i], at: places[i].offset) }
        recount(places.map(\.chunk), by: 1)
    }

    /// Brings `ends` up to date after `changed` (ascending chunk indexes,
    /// one per element) each gained or lost an element, then splits chunks
    /// that grew too long and drops empty ones.
    private mutating func recount(_ changed: [Int], by step: Int) {
        var j = 0
        var shift = 0
        var touched: [Int] = []
        for c in ends.indices {
            if j < changed.count && changed[j] == c {
                touched.append(c)
                while j < changed.count && changed[j] == c {
                    shift += step
                    j += 1
                }
            }
            ends[c] += shift
        }
        for c in touched.reversed() {
            if chunks[c].isEmpty {
                chunks.remove(at: c)
                ends.remove(at: c)
            } else if chunks[c].count > maxChunk {
                let start = ends[c] - chunks[c].count
                var pieces: [[Element]] = []
                var from = 0
                while from < chunks[c].count {
                    let to = Swift.min(from + maxChunk / 2, chunks[c].count)
                    pieces.append(Array(chunks[c][from..<to]))
                    from = to
                }
                var end = start
                let pieceEnds = pieces.map { piece -> Int in
                    end += piece.count
                    return end
                }
                chunks.replaceSubrange(c...c, with: pieces)
                ends.replaceSubrange(c...c, with: pieceEnds)
            }
        }
    }

    /// The same chunks, each element transformed.
    ///
    /// - Complexity: O(*n*).
    func map<T>(_ transform: (Element) -> T) -> _ChunkedArray<T> {
        var result = _ChunkedArray<T>(maxChunk: maxChunk)
        result.chunks = chunks.map { $0.map(transform) }
        result.ends = ends
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
