#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import TesseraDiff

/// An item's place as two integers: cheaper to sort and compare than an
/// `IndexPath`.
struct _ItemPosition: Hashable, Comparable {
    var section: Int
    var item: Int

    init(section: Int, item: Int) {
        self.section = section
        self.item = item
    }

    /// The position of a two-index index path, or `nil` for another shape.
    init?(_ indexPath: IndexPath) {
        guard indexPath.count == 2 else { return nil }
        self.init(section: indexPath[0], item: indexPath[1])
    }

    var indexPath: IndexPath { IndexPath(item: item, section: section) }

    static func < (lhs: _ItemPosition, rhs: _ItemPosition) -> Bool {
        lhs.section != rhs.section ? lhs.section < rhs.section : lhs.item < rhs.item
    }
}

/// What a collection view has selected and highlighted, and the touch in
/// progress.
struct _SelectionState {
    /// A touch between ``CollectionView/beginTouch(at:)`` and
    /// ``CollectionView/endTouch(selecting:)``.
    struct Touch {
        /// The touched item, or `nil` once the touch is cancelled (the item
        /// was deleted, the data reloaded or selection turned off).
        var item: _ItemPosition?
    }

    var allowsSelection = true
    var allowsMultipleSelection = false
    /// The selected items, sorted, without repeats.
    private(set) var selected: [_ItemPosition] = []
    /// The highlighted item, at most one (only a touch highlights).
    var highlighted: _ItemPosition?
    var touch: Touch?
    /// Where an item that a batch deletes is inserted again, when a data
    /// source knows it is the same item (by id): the diff says delete and
    /// insert for an item that leaves a deleted section or enters an
    /// inserted one. Set only while a data source performs a batch.
    var carry: ((_ItemPosition) -> _ItemPosition?)?

    /// Whether an item is selected.
    ///
    /// - Complexity: O(log *s*).
    func isSelected(_ position: _ItemPosition) -> Bool {
        let index = insertionIndex(of: position)
        return index < selected.count && selected[index] == position
    }

    /// Adds an item; `false` when it was already selected.
    ///
    /// - Complexity: O(*s*) at worst (the sorted array shifts).
    @discardableResult
    mutating func insert(_ position: _ItemPosition) -> Bool {
        let index = insertionIndex(of: position)
        guard index == selected.count || selected[index] != position else { return false }
        selected.insert(position, at: index)
        return true
    }

    /// Removes an item; `false` when it was not selected.
    ///
    /// - Complexity: O(*s*) at worst.
    @discardableResult
    mutating func remove(_ position: _ItemPosition) -> Bool {
        let index = insertionIndex(of: position)
        guard index < selected.count, selected[index] == position else { return false }
        selected.remove(at: index)
        return true
    }

    mutating func removeAllSelected() { selected.removeAll() }

    /// Ends the highlight and cancels the touch, if any.
    mutating func cancelTouch() {
        highlighted = nil
        if touch != nil { touch = Touch(item: nil) }
    }

    /// Drops the selected items that no longer name an item of `counts`,
    /// and cancels the touch (``CollectionView/reloadData()``).
    ///
    /// - Complexity: O(*s*).
    mutating func keepInRange(of counts: [Int]) {
        selected.removeAll { $0.section >= counts.count || $0.item >= counts[$0.section] }
        cancelTouch()
    }

    private func insertionIndex(of position: _ItemPosition) -> Int {
        var low = 0
        var high = selected.count
        while low < high {
            let mid = (low + high) / 2
            if selected[mid] < position { low = mid + 1 } else { high = mid }
        }
        return low
    }

    /// Moves the selection, the highlight and the touch through a batch
    /// update, and returns the selected and the highlighted items it
    /// deletes (their positions before, ascending).
    ///
    /// An item moves to where the mapping sends it (moved, or in a moved
    /// section; a reloaded item stays itself). An item of a reloaded
    /// section keeps its item index in the section's new place when the
    /// section still has that many items. Any other item is deleted.
    ///
    /// - Complexity: O(*s* log *s* + *k*) for *s* selected items and *k*
    ///   item operations in their sections.
    mutating func remap(through mapping: BatchIndexMapping, itemCountsAfter: [Int]) -> (deselected: [_ItemPosition], unhighlighted: [_ItemPosition]) {
        let (kept, lost) = carried(Self.remap(selected, through: mapping, itemCountsAfter: itemCountsAfter))
        selected = kept
        var unhighlighted: [_ItemPosition] = []
        if let highlighted {
            let (kept, lost) = carried(Self.remap([highlighted], through: mapping, itemCountsAfter: itemCountsAfter))
            self.highlighted = kept.first
            unhighlighted = lost
        }
        if let item = touch?.item {
            let moved = carried(Self.remap([item], through: mapping, itemCountsAfter: itemCountsAfter)).kept.first
            touch = Touch(item: moved)
        }
        return (lost, unhighlighted)
    }

    /// A remap with the deleted items that ``carry`` finds again moved to
    /// the kept ones.
    ///
    /// - Complexity: O(*d*) calls of ``carry`` for *d* deleted items, plus
    ///   O(*s* log *s*) when it finds any.
    private func carried(_ remapped: (kept: [_ItemPosition], lost: [_ItemPosition])) -> (kept: [_ItemPosition], lost: [_ItemPosition]) {
        guard let carry, !remapped.lost.isEmpty else { return remapped }
        var (kept, lost) = remapped
        let found = lost.map(carry)
        guard found.contains(where: { $0 != nil }) else { return remapped }
        kept.append(contentsOf: found.compactMap { $0 })
        kept.sort()
        lost = zip(lost, found).filter { $0.1 == nil }.map(\.0)
        return (kept, lost)
    }

    /// Sorted positions through a batch: those that survive (sorted, at
    /// their new positions) and those deleted (sorted, at their old ones).
    static func remap(
        _ positions: [_ItemPosition],
        through mapping: BatchIndexMapping,
        itemCountsAfter: [Int]
    ) -> (kept: [_ItemPosition], lost: [_ItemPosition]) {
        guard !positions.isEmpty else { return ([], []) }
        var kept: [_ItemPosition] = []
        kept.reserveCapacity(positions.count)
        var lost: [_ItemPosition] = []
        var mapped: [(section: Int, item: Int)] = []
        mapped.reserveCapacity(positions.count)
        var reloadedSection: (before: Int, isReloaded: Bool) = (-1, false)
        for position in positions {
            if reloadedSection.before != position.section {
                reloadedSection = (position.section, mapping.isSectionReloaded(position.section))
            }
            if reloadedSection.isReloaded {
                if let t = mapping.sectionAfter(position.section), position.item < itemCountsAfter[t] {
                    kept.append(_ItemPosition(section: t, item: position.item))
                } else {
                    lost.append(position)
                }
            } else {
                mapped.append((position.section, position.item))
            }
        }
        let answers = mapping.itemPositionsAfter(sorted: mapped)
        for (old, new) in zip(mapped, answers) {
            if let new {
                kept.append(_ItemPosition(section: new.section, item: new.item))
            } else {
                lost.append(_ItemPosition(section: old.section, item: old.item))
            }
        }
        sortPositions(&kept)
        lost.sort()
        return (kept, lost)
    }

    /// Sorts positions; many of them as packed integers, by radix, rather
    /// than by comparing pairs.
    ///
    /// - Complexity: O(*p*) for *p* positions from 256 positions (indexes
    ///   under 2³² or so); O(*p* log *p*) otherwise.
    static func sortPositions(_ positions: inout [_ItemPosition]) {
        guard positions.count >= 256 else {
            positions.sort()
            return
        }
        var maxSection = 0
        var maxItem = 0
        var negative = false
        for position in positions {
            maxSection = max(maxSection, position.section)
            maxItem = max(maxItem, position.item)
            negative = negative || position.section < 0 || position.item < 0
        }
        let sectionBits = Int.bitWidth - maxSection.leadingZeroBitCount
        let itemBits = Int.bitWidth - maxItem.leadingZeroBitCount
        guard !negative, sectionBits + itemBits <= UInt64.bitWidth else {
            positions.sort()
            return
        }
        var keys: [UInt64] = []
        keys.reserveCapacity(positions.count)
        for position in positions {
            keys.append(UInt64(position.section) << UInt64(itemBits) | UInt64(position.item))
        }
        _PackedKeys.sort(&keys, bits: sectionBits + itemBits)
        let itemMask = (UInt64(1) << UInt64(itemBits)) &- 1
        positions = keys.map { _ItemPosition(section: Int($0 >> UInt64(itemBits)), item: Int($0 & itemMask)) }
    }
}
