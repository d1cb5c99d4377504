#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import TesseraDiff

/// The name of a list as a client shows it: 128 bits that every process
/// serving the same table computes alike for the same list, whatever
/// commits its rounds grouped, so that a client that reconnects to another
/// process can name the state it has (`hello`'s `resume.state`).
///
/// It covers what a client holds: the sections by name and in order, and
/// in each, the items' ids in order. It is a sum of one term per item
/// (its section's name, its id and the id before it in its section) and
/// one per section (its name and the name before it), over a base term of
/// the served table and columns, so that a change updates it in time
/// proportional to the change (``updated(from:to:changeset:)``).
///
/// Titles are not part of it: a plan's `settled` elements carry the titles
/// of the state it brings, and a client asks for the titles of anything
/// else it shows (`viewport`). The hash is not a secret: a client that
/// names a state it never had gets a plan of a list it may read anyway.
///
/// Written as 32 lowercase hexadecimal digits.
package struct ServeStateFingerprint: Hashable, Sendable, CustomStringConvertible {
    /// The high 64 bits.
    package var high: UInt64
    /// The low 64 bits.
    package var low: UInt64

    /// A fingerprint from its two halves.
    package init(high: UInt64, low: UInt64) {
        self.high = high
        self.low = low
    }

    /// Reads 32 hexadecimal digits (either case); `nil` for anything else.
    package init?(text: String) {
        let utf8 = Array(text.utf8)
        guard utf8.count == 32 else { return nil }
        var halves: [UInt64] = [0, 0]
        for (index, byte) in utf8.enumerated() {
            let digit: UInt64
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt64(byte - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt64(byte - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt64(byte - UInt8(ascii: "A") + 10)
            default: return nil
            }
            halves[index / 16] = halves[index / 16] << 4 | digit
        }
        high = halves[0]
        low = halves[1]
    }

    /// The 32 lowercase hexadecimal digits.
    package var description: String {
        func hex(_ value: UInt64) -> String {
            let digits = String(value, radix: 16)
            return String(repeating: "0", count: 16 - digits.count) + digits
        }
        return hex(high) + hex(low)
    }

    /// The sum of two fingerprints, bit lanes wrapping.
    package static func + (lhs: Self, rhs: Self) -> Self {
        Self(high: lhs.high &+ rhs.high, low: lhs.low &+ rhs.low)
    }

    /// The difference of two fingerprints, bit lanes wrapping.
    package static func - (lhs: Self, rhs: Self) -> Self {
        Self(high: lhs.high &- rhs.high, low: lhs.low &- rhs.low)
    }

    /// Adds a term.
    package static func += (lhs: inout Self, rhs: Self) { lhs = lhs + rhs }

    /// Takes a term away.
    package static func -= (lhs: inout Self, rhs: Self) { lhs = lhs - rhs }

    // MARK: Terms

    /// The term of a sequence of strings: two independent 64-bit hashes of
    /// their UTF-8 bytes, each string followed by 0xFF (a byte UTF-8 never
    /// holds, so that no two sequences write the same bytes), a missing one
    /// written as 0xFE alone.
    ///
    /// - Complexity: O(*b*) for *b* bytes.
    package static func term(_ kind: UInt8, _ parts: String?...) -> Self {
        var a: UInt64 = 0xcbf2_9ce4_8422_2325 ^ UInt64(kind)
        var b: UInt64 = 0x9e37_79b9_7f4a_7c15 &+ UInt64(kind)
        func take(_ byte: UInt8) {
            a = (a ^ UInt64(byte)) &* 0x0000_0100_0000_01b3
            b = (b &+ UInt64(byte) &+ 1) &* 0xd6e8_feb8_6659_fd93
            b ^= b >> 29
        }
        for part in parts {
            if let part {
                for byte in part.utf8 { take(byte) }
                take(0xFF)
            } else {
                take(0xFE)
            }
        }
        return Self(high: mix(a), low: mix(b &+ a))
    }

    /// A 64-bit finalizer (every input bit flips each output bit with
    /// probability about ½), so that sums of terms do not cancel by
    /// structure.
    private static func mix(_ value: UInt64) -> UInt64 {
        var x = value
        x ^= x >> 33
        x &*= 0xff51_afd7_ed55_8ccd
        x ^= x >> 33
        x &*= 0xc4ce_b9fe_1a85_ec53
        x ^= x >> 33
        return x
    }

    /// The base term of a served table: every process serving the same
    /// table, columns and order starts from it.
    package static func base(of schema: ServeSchema) -> Self {
        term(
            0, schema.table, schema.keyColumn, schema.sectionColumn, schema.sortColumn, schema.sortDescending ? "desc" : "asc",
            schema.titleColumn, schema.orderColumn
        )
    }

    /// The term of an item.
    static func itemTerm(_ list: Listing, _ path: IndexPath) -> Self {
        let previous = path.item > 0 ? list.id(IndexPath(item: path.item - 1, section: path.section)) : nil
        return term(1, list.sectionName(path.section), list.id(path), previous)
    }

    /// The sum of the sections' terms.
    static func sectionTerms(_ list: Listing) -> Self {
        var sum = Self(high: 0, low: 0)
        var previous: String?
        for section in 0..<list.sectionCount {
            let name = list.sectionName(section)
            sum += term(2, name, previous)
            previous = name
        }
        return sum
    }

    // MARK: Lists

    /// What the fingerprint reads of a list.
    package struct Listing {
        /// The number of sections.
        package var sectionCount: Int
        /// The number of items in a section.
        package var itemCount: (Int) -> Int
        /// A section's name, as clients are shown it.
        package var sectionName: (Int) -> String
        /// The id of the item at an index path.
        package var id: (IndexPath) -> String

        /// A listing of its parts.
        package init(sectionCount: Int, itemCount: @escaping (Int) -> Int, sectionName: @escaping (Int) -> String, id: @escaping (IndexPath) -> String) {
            self.sectionCount = sectionCount
            self.itemCount = itemCount
            self.sectionName = sectionName
            self.id = id
        }
    }

    /// The fingerprint of a list, from a table's base term.
    ///
    /// - Complexity: O(*n* + *s*) for *n* items and *s* sections.
    package static func of(_ list: Listing, base: Self) -> Self {
        var sum = base + sectionTerms(list)
        for section in 0..<list.sectionCount {
            let name = list.sectionName(section)
            var previous: String?
            for item in 0..<list.itemCount(section) {
                let id = list.id(IndexPath(item: item, section: section))
                sum += term(1, name, id, previous)
                previous = id
            }
        }
        return sum
    }

    /// The fingerprint of `new`, from this one of `old` and the changeset
    /// between them (whose content updates it ignores); `nil` when the
    /// changeset does not fit the lists (then compute it with ``of(_:base:)``).
    ///
    /// It takes away the terms of the items that leave their place and of
    /// the items after them, and adds those of the items placed and of the
    /// items after them: every other item keeps the same item before it.
    /// With a section inserted, deleted or moved, the sections' terms are
    /// counted again.
    ///
    /// - Complexity: O(*k* log² *k* + *s*) for *k* item operations (an
    ///   inserted or deleted section counting its items) and *s* sections.
    package func updated(from old: Listing, to new: Listing, changeset: Changeset) -> Self? {
        let countsBefore = (0..<old.sectionCount).map(old.itemCount)
        let countsAfter = (0..<new.sectionCount).map(new.itemCount)
        let mapping: BatchIndexMapping
        do {
            mapping = try BatchIndexMapping(changeset.structuralUpdateItems, itemCountsBefore: countsBefore, itemCountsAfter: countsAfter)
        } catch {
            return nil
        }
        var sum = self
        if !changeset.sectionDeletes.isEmpty || !changeset.sectionInserts.isEmpty || !changeset.sectionMoves.isEmpty {
            sum -= Self.sectionTerms(old)
            sum += Self.sectionTerms(new)
        }
        var removed = Set<IndexPath>(changeset.itemDeletes)
        var placed = Set<IndexPath>(changeset.itemInserts)
        for move in changeset.itemMoves {
            removed.insert(move.from)
            placed.insert(move.to)
        }
        for section in changeset.sectionDeletes where section < countsBefore.count {
            for item in 0..<countsBefore[section] { removed.insert(IndexPath(item: item, section: section)) }
        }
        for section in changeset.sectionInserts where section < countsAfter.count {
            for item in 0..<countsAfter[section] { placed.insert(IndexPath(item: item, section: section)) }
        }
        var oldTouched = removed
        var newTouched = placed
        // The item after one that left has a new item before it; so has
        // the item after one placed. Each keeps its place otherwise, and
        // is counted on both sides.
        for path in removed {
            let next = IndexPath(item: path.item + 1, section: path.section)
            guard path.section < countsBefore.count, next.item < countsBefore[path.section], !removed.contains(next) else { continue }
            guard let after = mapping.indexPathAfter(next) else { return nil }
            oldTouched.insert(next)
            newTouched.insert(after)
        }
        for path in placed {
            let next = IndexPath(item: path.item + 1, section: path.section)
            guard path.section < countsAfter.count, next.item < countsAfter[path.section], !placed.contains(next) else { continue }
            guard let before = mapping.indexPathBefore(next) else { return nil }
            newTouched.insert(next)
            oldTouched.insert(before)
        }
        for path in oldTouched {
            guard path.section < countsBefore.count, path.item < countsBefore[path.section] else { return nil }
            sum -= Self.itemTerm(old, path)
        }
        for path in newTouched {
            guard path.section < countsAfter.count, path.item < countsAfter[path.section] else { return nil }
            sum += Self.itemTerm(new, path)
        }
        return sum
    }
}
