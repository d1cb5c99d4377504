extension _ChunkedArray {
    /// Traps unless every page but the last holds ``chunksPerPage`` chunks
    /// (none is empty), every chunk holds 1 to ``maxChunk`` elements, the tree
    /// of counts holds the chunks' counts (each node the sum of the chunks
    /// it covers), and ``count`` is their sum. Compiled in with
    /// `TESSERA_INTERNAL_CHECKS`.
    ///
    /// - Complexity: O(*c* log *c*) for *c* chunks when compiled in, else
    ///   O(1).
    func _checkInvariants() {
        #if TESSERA_INTERNAL_CHECKS
        precondition(pages.reduce(0) { $0 + $1.count } == tree.count, "\(tree.count) counts in the tree for \(pages.reduce(0) { $0 + $1.count }) chunks")
        for (p, page) in pages.enumerated() {
            precondition(!page.isEmpty && (page.count == Self.chunksPerPage || p == pages.count - 1), "page \(p) of \(pages.count) holds \(page.count) chunks")
        }
        var total = 0
        for (c, chunk) in chunks.enumerated() {
            precondition(!chunk.isEmpty && chunk.count <= maxChunk, "chunk \(c) holds \(chunk.count) elements (at most \(maxChunk))")
            let i = c + 1
            let covered = chunks[(i - (i & -i))..<i].reduce(0) { $0 + $1.count }
            precondition(tree[c] == covered, "the tree counts \(tree[c]) elements for chunks \(i - (i & -i))..<\(i), which hold \(covered)")
            total += chunk.count
        }
        precondition(count == total, "the count is \(count), the chunks hold \(total)")
        #endif
    }
}
