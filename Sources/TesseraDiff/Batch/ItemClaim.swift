#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// An item's index path as two integers: cheaper to read and compare than an
/// `IndexPath`.
typealias _ItemPair = (section: Int, item: Int)

/// One operation naming an item in one space, in the order the operations
/// are checked.
struct _ItemClaim {
    var section: Int
    var item: Int
    var order: Int
    var action: UpdateItem.Action

    init(_ pair: _ItemPair, _ action: UpdateItem.Action, order: Int) {
        section = pair.section
        item = pair.item
        self.order = order
        self.action = action
    }

    /// Sorts claims in check order (`order` counting from 0, no repeats) by
    /// section, then item, then order.
    ///
    /// When the three fit in 64 bits together (they do unless indexes run
    /// into the billions), each claim is sorted as one packed integer, by
    /// radix for many claims: several times cheaper than comparing
    /// records.
    ///
    /// - Complexity: O(*k*) for *k* claims when packed and many, O(*k* log
    ///   *k*) otherwise.
    static func sorted(_ claims: [_ItemClaim]) -> [_ItemClaim] {
        var maxSection = 0
        var maxItem = 0
        var negative = false
        for claim in claims {
            maxSection = Swift.max(maxSection, claim.section)
            maxItem = Swift.max(maxItem, claim.item)
            negative = negative || claim.section < 0 || claim.item < 0
        }
        let sectionBits = Int.bitWidth - maxSection.leadingZeroBitCount
        let itemBits = Int.bitWidth - maxItem.leadingZeroBitCount
        let orderBits = Int.bitWidth - claims.count.leadingZeroBitCount
        guard !negative, sectionBits + itemBits + orderBits <= UInt64.bitWidth else {
            return claims.sorted { ($0.section, $0.item, $0.order) < ($1.section, $1.item, $1.order) }
        }
        var keys: [UInt64] = []
        keys.reserveCapacity(claims.count)
        let itemShift = UInt64(orderBits)
        let sectionShift = UInt64(orderBits + itemBits)
        for claim in claims {
            keys.append(UInt64(claim.section) << sectionShift | UInt64(claim.item) << itemShift | UInt64(claim.order))
        }
        _PackedKeys.sort(&keys, bits: sectionBits + itemBits + orderBits)
        let orderMask = (UInt64(1) << itemShift) &- 1
        return keys.map { claims[Int($0 & orderMask)] }
    }

    /// In claims sorted by ``sorted(_:)``: of the items
    /// named twice, the one whose second naming comes first in check order,
    /// with its first naming: what checking the operations one by one
    /// against the earlier ones would report.
    ///
    /// - Complexity: O(*k*).
    static func firstRepeat(inSorted claims: [_ItemClaim]) -> (first: _ItemClaim, second: _ItemClaim)? {
        var found: (first: _ItemClaim, second: _ItemClaim)?
        var index = 1
        while index < claims.count {
            let previous = claims[index - 1]
            let current = claims[index]
            if previous.section == current.section && previous.item == current.item {
                // The earliest claim of this item and its second one.
                var start = index - 1
                while start > 0 && claims[start - 1].section == current.section && claims[start - 1].item == current.item { start -= 1 }
                if current.order < (found?.second.order ?? Int.max) { found = (claims[start], current) }
            }
            index += 1
        }
        return found
    }
}

/// Sorting of integers that pack several small non-negative fields, most
/// significant first: what sorting records by those fields in turn gives,
/// at a fraction of the cost.
package enum _PackedKeys {
    /// Sorts keys that use only their lowest `bits` bits: by least
    /// significant digit first radix passes for many keys, by comparison
    /// for few.
    ///
    /// - Complexity: O(*k* ⌈`bits` / 11⌉) for *k* keys from 256 keys, O(*k*
    ///   log *k*) below.
    package static func sort(_ keys: inout [UInt64], bits: Int) {
        guard keys.count >= 256 else {
            keys.sort()
            return
        }
        let passes = (bits + 10) / 11
        guard passes > 0 else { return }
        // Digits as even as the passes allow: fewer buckets to clear.
        let digitBits = (bits + passes - 1) / passes
        let digitMask = (UInt64(1) << UInt64(digitBits)) &- 1
        var buffer = [UInt64](repeating: 0, count: keys.count)
        var starts = [Int](repeating: 0, count: 1 << digitBits)
        for pass in 0..<passes {
            let shift = UInt64(pass * digitBits)
            keys.withUnsafeBufferPointer { source in
                buffer.withUnsafeMutableBufferPointer { target in
                    starts.withUnsafeMutableBufferPointer { starts in
                        for index in starts.indices { starts[index] = 0 }
                        for key in source { starts[Int((key &>> shift) & digitMask)] &+= 1 }
                        var total = 0
                        for index in starts.indices {
                            let count = starts[index]
                            starts[index] = total
                            total &+= count
                        }
                        for key in source {
                            let digit = Int((key &>> shift) & digitMask)
                            target[starts[digit]] = key
                            starts[digit] &+= 1
                        }
                    }
                }
            }
            swap(&keys, &buffer)
        }
    }
}
