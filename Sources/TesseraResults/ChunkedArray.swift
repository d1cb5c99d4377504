/// An array kept in chunks of at most ``maxChunk`` elements, so that a copy
/// shares every chunk and a change copies only the chunk it touches: what
/// lets a results controller keep the result before a change (in a report)
/// and patch the result after it without copying a million records.
struct _ChunkedArray<Element> {
    /// Chunks grow to this size, then split in two.
    static var maxChunk: Int { 2048 }

    private(set) var chunks: [[Element]] = []
    /// `ends[c]`: the number of elements in chunks `0...c`.
    private(set) var ends: [Int] = []

    init() {}

    /// Takes an array's elements.
    ///
    /// - Complexity: O(*n*).
    init(_ elements: [Element]) {
        var start = 0
        while start < elements.count {
            let end = Swift.min(start + Self.maxChunk / 2, elements.count)
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

    /// Appends an element.
    ///
    /// - Complexity: amortized O(1), O(*c*) when a chunk is started.
    mutating func append(_ element: Element) {
        if let last = chunks.indices.last, chunks[last].count < Self.maxChunk / 2 {
            chunks[last].append(element)
            ends[last] += 1
        } else {
            chunks.append([element])
            ends.append(count + 1)
        }
    }

    /// Inserts an element at `index` (`0...count`).
    ///
    /// - Complexity: O(log *c* + *m* + *c*) for chunks of *m* elements.
    mutating func insert(_ element: Element, at index: Int) {
        if index == count { append(element); return }
        let (c, k) = locate(index)
        chunks[c].insert(element, at: k)
        for d in c..<ends.count { ends[d] += 1 }
        if chunks[c].count > Self.maxChunk {
            let half = chunks[c].count / 2
            let tail = Array(chunks[c][half...])
            chunks[c].removeSubrange(half...)
            chunks.insert(tail, at: c + 1)
            ends.insert(ends[c], at: c + 1)
            ends[c] -= tail.count
        }
    }

    /// Removes the element at `index` and returns it.
    ///
    /// - Complexity: O(log *c* + *m* + *c*).
    @discardableResult
    mutating func remove(at index: Int) -> Element {
        let (c, k) = locate(index)
        let element = chunks[c].remove(at: k)
        for d in c..<ends.count { ends[d] -= 1 }
        if chunks[c].isEmpty {
            chunks.remove(at: c)
            ends.remove(at: c)
        }
        return element
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
