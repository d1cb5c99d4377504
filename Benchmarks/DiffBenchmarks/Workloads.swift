// Deterministic inputs for the diff benchmarks, and the checks that Tessera's
// answer on them is right before it is measured.

import BenchmarkSupport
import Foundation
import TesseraDiff

// MARK: Random numbers

extension SplitMix64 {
    /// `count` distinct offsets drawn from `0..<upperBound`, in random order
    /// (a partial Fisher–Yates shuffle).
    mutating func sample(_ count: Int, from upperBound: Int) -> [Int] {
        precondition(count <= upperBound, "cannot draw \(count) distinct offsets from 0..<\(upperBound)")
        var pool = Array(0..<upperBound)
        for i in 0..<count {
            pool.swapAt(i, Int.random(in: i..<upperBound, using: &self))
        }
        return Array(pool[..<count])
    }
}

// MARK: Elements

/// An id type the workloads can draw at random.
protocol RandomID: Hashable, Sendable {
    static func random(using generator: inout SplitMix64) -> Self
}

extension Int: RandomID {
    /// Any 64-bit pattern, so that ids hash like real ones rather than like
    /// `0..<n`.
    static func random(using generator: inout SplitMix64) -> Int {
        Int(truncatingIfNeeded: generator.next())
    }
}

extension UUID: RandomID {
    /// A version 4 (random) UUID built from two draws.
    static func random(using generator: inout SplitMix64) -> UUID {
        let words = (generator.next(), generator.next())
        var bytes: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        withUnsafeMutableBytes(of: &bytes) { raw in
            raw.storeBytes(of: words.0.littleEndian, toByteOffset: 0, as: UInt64.self)
            raw.storeBytes(of: words.1.littleEndian, toByteOffset: 8, as: UInt64.self)
        }
        bytes.6 = (bytes.6 & 0x0F) | 0x40 // version 4
        bytes.8 = (bytes.8 & 0x3F) | 0x80 // RFC 4122 variant
        return UUID(uuid: bytes)
    }
}

/// An id that goes through the diff's `hashValue` path (`Hasher`), for
/// comparison with the same `Int`s hashed by the diff's keyed mix.
struct HasherInt: RandomID {
    var value: Int

    static func random(using generator: inout SplitMix64) -> HasherInt {
        HasherInt(value: Int.random(using: &generator))
    }
}

// MARK: Colliding ids

/// An id type for which a family of distinct ids all landed in one slot of
/// the diff's id table when its hashing was a fixed, public function, as
/// anyone who chooses ids could make them; the diff now keys its hashing
/// with a per-process secret, so they spread like random ids.
protocol CollidingID: RandomID {
    /// The `index`-th id of the family (distinct for distinct indices).
    static func colliding(_ index: UInt64) -> Self
}

/// The hash that the table's own step, a multiplication by the 64-bit golden
/// ratio whose top bits pick the home slot and low 32 bits are the tag,
/// turns into `product`: `product` times the ratio's inverse.
private func tableHash(givingProduct product: UInt64) -> UInt64 {
    product &* 0xF1DE_83E1_9937_733D // 0x9E37_79B9_7F4A_7C15⁻¹ mod 2⁶⁴
}

extension Int: CollidingID {
    /// The old hashing of integer ids was `bits ^ (bits >> 29)`; the id
    /// whose hash makes the table's product `index` (top bits 0: slot 0 at
    /// any table size below 2³² slots; tag `index`) is that xor-shift undone.
    static func colliding(_ index: UInt64) -> Int {
        let hash = tableHash(givingProduct: index)
        return Int(truncatingIfNeeded: hash ^ (hash >> 29) ^ (hash >> 58))
    }
}

extension UUID: CollidingID {
    /// The old hashing of UUID ids was `low ^ (high * c) ^ (high >> 31)`
    /// over the two 64-bit halves; with a zero high half it is the low half.
    static func colliding(_ index: UInt64) -> UUID {
        let low = tableHash(givingProduct: index)
        var bytes: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        withUnsafeMutableBytes(of: &bytes) { raw in
            raw.storeBytes(of: low.littleEndian, toByteOffset: 0, as: UInt64.self)
        }
        return UUID(uuid: bytes)
    }
}

/// A list element: identity in `id`, content in `content`.
struct Row<ID: RandomID>: Identifiable, Hashable, Sendable {
    var id: ID
    var content: Int
}

/// A section of a sectioned workload.
struct Section: Identifiable, Hashable, Sendable {
    var id: Int
    var title: Int
}

/// Draws ids that are distinct from every id drawn before.
private struct FreshIDs<ID: RandomID> {
    private var used: Set<ID>

    init(expectedCount: Int) {
        used = Set(minimumCapacity: expectedCount)
    }

    mutating func next(using generator: inout SplitMix64) -> ID {
        while true {
            let id = ID.random(using: &generator)
            if used.insert(id).inserted { return id }
        }
    }
}

// MARK: Flat lists

/// Two flat lists: `new` is `old` with elements deleted at random offsets,
/// fresh elements inserted at random offsets, and some surviving elements
/// taken out and put back at random offsets. No content changes.
struct FlatWorkload<ID: RandomID>: Sendable {
    let old: [Row<ID>]
    let new: [Row<ID>]
    /// Old offsets of the deleted elements, ascending.
    let deletedOffsets: [Int]
    /// New offsets of the inserted elements, ascending.
    let insertedOffsets: [Int]
    /// The number of surviving elements that were taken out and put back.
    let shuffledCount: Int

    /// Random ids, distinct from one another.
    init(count: Int, deletes: Int, inserts: Int, shuffles: Int, seed: UInt64) {
        var ids = FreshIDs<ID>(expectedCount: count + inserts)
        self.init(count: count, deletes: deletes, inserts: inserts, shuffles: shuffles, seed: seed) { generator in
            ids.next(using: &generator)
        }
    }

    /// Ids from `makeID`, which must never repeat one.
    init(
        count: Int,
        deletes: Int,
        inserts: Int,
        shuffles: Int,
        seed: UInt64,
        makeID: (inout SplitMix64) -> ID
    ) {
        var generator = SplitMix64(seed: seed)
        func makeRow() -> Row<ID> {
            Row(id: makeID(&generator), content: Int(truncatingIfNeeded: generator.next()))
        }
        let old = (0..<count).map { _ in makeRow() }

        // Old offsets: deleted, then shuffled among the survivors.
        var isTakenOut = [Bool](repeating: false, count: count)
        let deleted = generator.sample(deletes, from: count)
        for offset in deleted { isTakenOut[offset] = true }
        let survivors = (0..<count).filter { !isTakenOut[$0] }
        let shuffled = generator.sample(shuffles, from: survivors.count).map { survivors[$0] }
        for offset in shuffled { isTakenOut[offset] = true }

        // The elements that stay in place keep their order; the shuffled and
        // the inserted ones go, in random order, to random offsets. This is
        // the same distribution as inserting them one at a time.
        var placed = shuffled.map { (row: old[$0], isInserted: false) }
        placed += (0..<inserts).map { _ in (row: makeRow(), isInserted: true) }
        placed.shuffle(using: &generator)
        let newCount = count - deletes + inserts
        let placedOffsets = generator.sample(placed.count, from: newCount).sorted()

        var new: [Row<ID>] = []
        new.reserveCapacity(newCount)
        var insertedOffsets: [Int] = []
        var nextPlaced = 0
        var nextOld = 0
        for offset in 0..<newCount {
            if nextPlaced < placedOffsets.count && placedOffsets[nextPlaced] == offset {
                new.append(placed[nextPlaced].row)
                if placed[nextPlaced].isInserted { insertedOffsets.append(offset) }
                nextPlaced += 1
            } else {
                while isTakenOut[nextOld] { nextOld += 1 }
                new.append(old[nextOld])
                nextOld += 1
            }
        }

        self.old = old
        self.new = new
        self.deletedOffsets = deleted.sorted()
        self.insertedOffsets = insertedOffsets
        self.shuffledCount = shuffles
    }

    /// Stops the benchmark when `changeset` cannot be the diff from `old` to
    /// `new`: the deletes and inserts must be exactly the ones made, there
    /// must be no updates, and at most one move per shuffled element (fewer
    /// when one landed back in order).
    func validate(_ changeset: ListChangeset, benchmark name: String) {
        func check(_ condition: Bool, _ message: String) {
            if !condition { fatalError("\(name): wrong changeset: \(message)") }
        }
        check(changeset.deletes == deletedOffsets, "\(changeset.deletes.count) deletes, expected the \(deletedOffsets.count) made")
        check(changeset.inserts == insertedOffsets, "\(changeset.inserts.count) inserts, expected the \(insertedOffsets.count) made")
        check(changeset.updates.isEmpty, "\(changeset.updates.count) updates, expected none")
        check(changeset.moves.count <= shuffledCount, "\(changeset.moves.count) moves, expected at most \(shuffledCount)")
    }
}

// MARK: Sectioned snapshots

/// Two sectioned snapshots: in `new`, 1% of the items have moved to another
/// section (at a random position) and two sections have swapped places.
struct SectionedWorkload: Sendable {
    let old: Snapshot<Section, Row<Int>>
    let new: Snapshot<Section, Row<Int>>
    /// The number of items that changed section.
    let movedItemCount: Int

    init(sections sectionCount: Int, itemsPerSection: Int, seed: UInt64) {
        precondition(sectionCount >= 2, "two sections must swap places")
        var generator = SplitMix64(seed: seed)
        let itemCount = sectionCount * itemsPerSection
        var sectionIDs = FreshIDs<Int>(expectedCount: sectionCount)
        var itemIDs = FreshIDs<Int>(expectedCount: itemCount)
        var sections = (0..<sectionCount).map { _ in
            Section(id: sectionIDs.next(using: &generator), title: Int(truncatingIfNeeded: generator.next()))
        }
        var items = (0..<sectionCount).map { _ in
            (0..<itemsPerSection).map { _ in
                Row(id: itemIDs.next(using: &generator), content: Int(truncatingIfNeeded: generator.next()))
            }
        }
        var old = Snapshot<Section, Row<Int>>()
        for (section, sectionItems) in zip(sections, items) {
            old.appendSection(section, items: sectionItems)
        }

        // Take the moving items out of their sections, then put each into
        // another section at a random position.
        let moving = generator.sample(itemCount / 100, from: itemCount).map {
            (section: $0 / itemsPerSection, item: $0 % itemsPerSection)
        }
        var isMoving = items.map { [Bool](repeating: false, count: $0.count) }
        for origin in moving { isMoving[origin.section][origin.item] = true }
        let movingRows = moving.map { items[$0.section][$0.item] }
        for s in items.indices {
            items[s] = items[s].indices.filter { !isMoving[s][$0] }.map { items[s][$0] }
        }
        for (origin, row) in zip(moving, movingRows) {
            var target = Int.random(in: 0..<(sectionCount - 1), using: &generator)
            if target >= origin.section { target += 1 }
            items[target].insert(row, at: Int.random(in: 0...items[target].count, using: &generator))
        }

        // Two sections swap places, each with its items.
        let swapped = generator.sample(2, from: sectionCount)
        sections.swapAt(swapped[0], swapped[1])
        items.swapAt(swapped[0], swapped[1])

        var new = Snapshot<Section, Row<Int>>()
        for (section, sectionItems) in zip(sections, items) {
            new.appendSection(section, items: sectionItems)
        }
        self.old = old
        self.new = new
        self.movedItemCount = moving.count
    }

    /// Stops the benchmark when `changeset` cannot be the diff from `old` to
    /// `new`: nothing is deleted, inserted or updated; every item that changed
    /// section is a move, and no other item moves; the swap of two sections
    /// is one or two section moves (one when they were adjacent).
    func validate(_ changeset: Changeset, benchmark name: String) {
        func check(_ condition: Bool, _ message: String) {
            if !condition { fatalError("\(name): wrong changeset: \(message)") }
        }
        check(
            changeset.sectionDeletes.isEmpty && changeset.sectionInserts.isEmpty && changeset.sectionUpdates.isEmpty,
            "section deletes, inserts or updates, expected none"
        )
        check((1...2).contains(changeset.sectionMoves.count), "\(changeset.sectionMoves.count) section moves, expected 1 or 2")
        check(
            changeset.itemDeletes.isEmpty && changeset.itemInserts.isEmpty && changeset.itemUpdates.isEmpty,
            "item deletes, inserts or updates, expected none"
        )
        check(changeset.itemMoves.count == movedItemCount, "\(changeset.itemMoves.count) item moves, expected \(movedItemCount)")
    }
}
