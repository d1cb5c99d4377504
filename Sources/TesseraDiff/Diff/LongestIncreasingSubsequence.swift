/// Scratch space for finding longest increasing subsequences (shared with
/// TesseraResults, whose incremental reports must pick the same moves as
/// ``diff(from:to:)``), allocated once
/// per diff and reused for every section. Its owner calls ``deallocate()``
/// exactly once (with `defer`) and never copies it.
@usableFromInline
package struct _LISWorkspace {
    /// `predecessor[k]`: the position before `k` on the best chain ending at `k`.
    @usableFromInline package var predecessor: UnsafeMutablePointer<Int32>
    /// Position of the smallest tail of an increasing run of each length.
    @usableFromInline package var tail: UnsafeMutablePointer<Int32>
    @usableFromInline package var capacity: Int

    @inlinable
    package init(capacity: Int) {
        self.capacity = capacity
        predecessor = .allocate(capacity: Swift.max(capacity, 1))
        tail = .allocate(capacity: Swift.max(capacity, 1))
    }

    /// Frees the scratch space. The workspace must not be used afterwards.
    @inlinable
    package func deallocate() {
        predecessor.deallocate()
        tail.deallocate()
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
    package func markLongestIncreasing(
        values: UnsafeBufferPointer<Int32>,
        keep: UnsafeMutableBufferPointer<Bool>
    ) {
        precondition(values.count <= capacity && keep.count == values.count, "LIS workspace too small")
        var length = 0
        var last: Int32 = -1
        for k in values.indices {
            let v = values[k]
            keep[k] = false
            if v < 0 { continue }
            if v > last {
                predecessor[k] = length == 0 ? -1 : tail[length - 1]
                tail[length] = Int32(truncatingIfNeeded: k)
                length += 1
                last = v
            } else {
                // First run whose tail value is greater than v (the last one is).
                var low = 0
                var high = length - 1
                while low < high {
                    let mid = (low + high) / 2
                    if values[Int(tail[mid])] < v { low = mid + 1 } else { high = mid }
                }
                predecessor[k] = low == 0 ? -1 : tail[low - 1]
                tail[low] = Int32(truncatingIfNeeded: k)
                if low == length - 1 { last = v }
            }
        }
        guard length > 0 else { return }
        var k = Int(tail[length - 1])
        while k >= 0 {
            keep[k] = true
            k = Int(predecessor[k])
        }
    }
}
