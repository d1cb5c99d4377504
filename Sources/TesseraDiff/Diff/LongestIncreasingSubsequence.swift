/// Scratch space for finding longest increasing subsequences, allocated once
/// per diff and reused for every section.
@usableFromInline
struct _LISWorkspace: ~Copyable {
    /// `predecessor[k]`: the position before `k` on the best chain ending at `k`.
    @usableFromInline var predecessor: UnsafeMutablePointer<Int>
    /// Position of the smallest tail of an increasing run of each length.
    @usableFromInline var tailPosition: UnsafeMutablePointer<Int>
    /// The value at `tailPosition`, kept beside it for the binary search.
    @usableFromInline var tailValue: UnsafeMutablePointer<Int>
    @usableFromInline var capacity: Int

    @inlinable
    init(capacity: Int) {
        self.capacity = capacity
        predecessor = .allocate(capacity: Swift.max(capacity, 1))
        tailPosition = .allocate(capacity: Swift.max(capacity, 1))
        tailValue = .allocate(capacity: Swift.max(capacity, 1))
    }

    deinit {
        predecessor.deallocate()
        tailPosition.deallocate()
        tailValue.deallocate()
    }

    /// Marks one longest strictly increasing subsequence of `values`.
    ///
    /// Negative values are not part of the sequence and are skipped; the
    /// others must be distinct. On return `keep[k]` is `true` exactly for the
    /// positions on the chosen subsequence (and `false` elsewhere in range).
    ///
    /// Patience sorting: a value larger than the current longest run's tail
    /// extends it in O(1), which is every value of an in-order run; only the
    /// others pay a binary search over the run tails.
    ///
    /// - Complexity: O(*n* + *m* log *n*), where *m* is the number of values
    ///   that do not extend the longest run when they are read.
    @inlinable
    func markLongestIncreasing(
        values: UnsafeBufferPointer<Int>,
        keep: UnsafeMutableBufferPointer<Bool>
    ) {
        precondition(values.count <= capacity && keep.count == values.count, "LIS workspace too small")
        var length = 0
        for k in values.indices {
            let v = values[k]
            keep[k] = false
            if v < 0 { continue }
            if length == 0 || tailValue[length - 1] < v {
                predecessor[k] = length == 0 ? -1 : tailPosition[length - 1]
                tailPosition[length] = k
                tailValue[length] = v
                length += 1
            } else {
                // First run whose tail is greater than v (one exists: the last).
                var low = 0
                var high = length - 1
                while low < high {
                    let mid = (low + high) / 2
                    if tailValue[mid] < v { low = mid + 1 } else { high = mid }
                }
                predecessor[k] = low == 0 ? -1 : tailPosition[low - 1]
                tailPosition[low] = k
                tailValue[low] = v
            }
        }
        guard length > 0 else { return }
        var k = tailPosition[length - 1]
        while k >= 0 {
            keep[k] = true
            k = predecessor[k]
        }
    }
}
