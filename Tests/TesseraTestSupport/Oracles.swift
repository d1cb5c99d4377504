import TesseraDiff

/// The length of a longest strictly increasing subsequence, by the textbook
/// O(n²) dynamic programme: an oracle independent of the library's patience
/// sorting.
public func longestIncreasingSubsequenceLength(_ values: [Int]) -> Int {
    var best = [Int](repeating: 1, count: values.count)
    var result = 0
    for i in values.indices {
        for j in 0..<i where values[j] < values[i] {
            best[i] = max(best[i], best[j] + 1)
        }
        result = max(result, best[i])
    }
    return result
}

/// Whether a sequence is strictly increasing.
public func isStrictlyIncreasing(_ values: [Int]) -> Bool {
    zip(values, values.dropFirst()).allSatisfy { $0 < $1 }
}

/// Whether the elements are sorted ascending by a key (ties allowed).
public func isSorted<T, K: Comparable>(_ values: [T], by key: (T) -> K) -> Bool {
    zip(values, values.dropFirst()).allSatisfy { key($0) <= key($1) }
}
