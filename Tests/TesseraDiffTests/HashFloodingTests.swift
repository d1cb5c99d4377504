#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Testing
import TesseraDiff
import TesseraTestSupport
import TesseraTestTraits

/// Ids chosen to collide in the diff's id table cost it no more than random
/// ids do, and what the diff reports does not depend on its hashing.
///
/// Work is counted, not timed: `_Matching.probes` is the number of table
/// slots read to pair two lists.
@Suite("Hash flooding", .cpuBound)
struct HashFloodingTests {
    static let count = 100_000

    @Test(
        "Ids that all shared one slot under the unkeyed hashing read at most 3× the slots random ids read",
        arguments: [IDKind.int, .uuid]
    )
    func collidingUnderTheUnkeyedHashing(kind: IDKind) throws {
        switch kind {
        case .int: try checkCollidingUnderTheUnkeyedHashing(Int.self)
        case .uuid: try checkCollidingUnderTheUnkeyedHashing(UUID.self)
        }
    }

    func checkCollidingUnderTheUnkeyedHashing<ID: TestableID>(_: ID.Type) throws {
        let seed = testSeed(default: 0xF100_D001)
        var generator = SplitMix64(seed: seed)
        let key = _IDHashKey(using: &generator)
        let random = ID.randomIDs(Self.count, using: &generator)
        let colliding = (1...UInt64(Self.count)).map(ID.collidingUnderUnkeyedHashing)

        let randomWork = try pairingWork(ids: random, key: key)
        let collidingWork = try pairingWork(ids: colliding, key: key)
        let context = "seed \(seed) (replay with TESSERA_SEED=\(seed)): \(ID.self) ids, "
            + "\(collidingWork.probes) probes for colliding ids against \(randomWork.probes) for random ids"
        #expect(collidingWork.probes <= 3 * randomWork.probes, "\(context)")
        #expect(randomWork.hashing == ID.keyedHashing && collidingWork.hashing == ID.keyedHashing, "\(context)")
    }

    @Test(
        "Ids that all go to 1/16 of the table under the keyed hashing, for a key that got out, make the pairing start again with Hasher and read at most 3× the slots random ids read",
        arguments: [IDKind.int, .uuid]
    )
    func collidingUnderAKnownKey(kind: IDKind) throws {
        switch kind {
        case .int: try checkCollidingUnderAKnownKey(Int.self)
        case .uuid: try checkCollidingUnderAKnownKey(UUID.self)
        }
    }

    func checkCollidingUnderAKnownKey<ID: TestableID>(_: ID.Type) throws {
        let seed = testSeed(default: 0xF100_D002)
        var generator = SplitMix64(seed: seed)
        let key = _IDHashKey(using: &generator)
        let random = ID.randomIDs(Self.count, using: &generator)
        let colliding = ID.collidingUnderKeyedHashing(Self.count, key: key, using: &generator)

        let randomWork = try pairingWork(ids: random, key: key)
        let collidingWork = try pairingWork(ids: colliding, key: key)
        let context = "seed \(seed) (replay with TESSERA_SEED=\(seed)): \(ID.self) ids, "
            + "\(collidingWork.probes) probes for colliding ids against \(randomWork.probes) for random ids"
        #expect(collidingWork.hashing == .hashValue, "\(context)")
        #expect(randomWork.hashing == ID.keyedHashing, "\(context)")
        #expect(collidingWork.probes <= 3 * randomWork.probes, "\(context)")

        // Under another key the same ids spread as random ids do.
        let otherKeyWork = try pairingWork(ids: colliding, key: _IDHashKey(using: &generator))
        #expect(otherKeyWork.hashing == ID.keyedHashing, "\(context)")
    }

    @Test("Random ids never make the table count as flooded, from 0 to 20,000 elements, with every new id unknown")
    func randomIDsDoNotFallBack() throws {
        let seed = testSeed(default: 0xF100_D003)
        var generator = SplitMix64(seed: seed)
        var count = 0
        while count <= 20_000 {
            let key = _IDHashKey(using: &generator)
            let old = Int.randomIDs(count, using: &generator).map { Element(id: $0, content: 0) }
            // New ids unknown to the old list fill the table up to its
            // growth limit again and again: the most probes per lookup.
            let new = Int.randomIDs(count * 4 + 1, using: &generator).map { Element(id: $0, content: 0) }
            let matching = try old.withUnsafeBufferPointer { old in
                try new.withUnsafeBufferPointer { new in try _Matching(old: old, new: new, key: key) }
            }
            let context = "seed \(seed) (replay with TESSERA_SEED=\(seed)): \(count) elements, \(matching.probes) probes"
            #expect(matching.hashing == .word, "\(context)")
            count = count < 100 ? count + 1 : count * 3 / 2
        }
    }

    @Test(
        "Flat diffs are the same bit for bit under two keys, with random ids, colliding ids and duplicates",
        arguments: [IDKind.int, .uuid]
    )
    func flatDiffDoesNotDependOnTheKey(kind: IDKind) throws {
        switch kind {
        case .int: try checkFlatDiffDoesNotDependOnTheKey(Int.self)
        case .uuid: try checkFlatDiffDoesNotDependOnTheKey(UUID.self)
        }
    }

    func checkFlatDiffDoesNotDependOnTheKey<ID: TestableID>(_: ID.Type) throws {
        let seed = testSeed(default: 0xF100_D004)
        var generator = SplitMix64(seed: seed)
        let keys = (_IDHashKey(using: &generator), _IDHashKey(using: &generator))
        var pairs = RandomListPairs(seed: seed)
        // Test items' integer ids stand for ids of the type under test:
        // from 1,000,001 on, ids that collide under the first key, so that
        // the first diff falls back to Hasher and the second does not;
        // below, random ids.
        let colliding = ID.collidingUnderKeyedHashing(2_000, key: keys.0, using: &generator)
        let random = ID.randomIDs(10_000, using: &generator)
        func element(_ item: TestItem) -> Element<ID> {
            let id = item.id > 1_000_000 ? colliding[item.id - 1_000_001] : random[item.id % random.count]
            return Element(id: id, content: item.content)
        }
        try pairs.forEachRound(500) { index, pairOld, pairNew, round in
            var (old, new) = (pairOld, pairNew)
            if index % 5 == 0 {
                old = (0..<Int.random(in: 0...2_000, using: &generator)).map { TestItem(id: 1_000_001 + $0, content: $0 % 3) }
                new = old.filter { _ in Bool.random(using: &generator) }.map { TestItem(id: $0.id, content: $0.content + Int.random(in: 0...1, using: &generator)) }
                new.shuffle(using: &generator)
            }
            if index % 7 == 0, let first = new.first {
                new.insert(first, at: Int.random(in: 0...new.count, using: &generator))
            }
            if index % 11 == 0, let last = old.last {
                old.insert(last, at: Int.random(in: 0...old.count, using: &generator))
            }
            let oldElements = old.map(element)
            let newElements = new.map(element)
            let first = Result { try diff(from: oldElements, to: newElements, hashKey: keys.0) }
            let second = Result { try diff(from: oldElements, to: newElements, hashKey: keys.1) }
            try expectSame(first, second, context: round)
        }
    }

    @Test("Snapshot diffs are the same bit for bit under two keys")
    func snapshotDiffDoesNotDependOnTheKey() throws {
        let seed = testSeed(default: 0xF100_D005)
        var generator = SplitMix64(seed: seed)
        var pairs = RandomSnapshotPairs(seed: seed, maxSections: 12, maxItems: 400)
        try pairs.forEachRound(500) { _, old, new, round in
            let keys = (_IDHashKey(using: &generator), _IDHashKey(using: &generator))
            let first = Result { try diff(from: old, to: new, hashKey: keys.0) }
            let second = Result { try diff(from: old, to: new, hashKey: keys.1) }
            try expectSame(first, second, context: round)
        }
    }

    // MARK: Helpers

    /// The work of pairing `ids` with themselves in reverse order, so that
    /// every new id is looked up in the table (none follows its predecessor).
    func pairingWork<ID: TestableID>(ids: [ID], key: _IDHashKey) throws -> (probes: Int, hashing: _HashingChoice) {
        let old = ids.map { Element(id: $0, content: 0) }
        let new = Array(old.reversed())
        let matching = try old.withUnsafeBufferPointer { old in
            try new.withUnsafeBufferPointer { new in try _Matching(old: old, new: new, key: key) }
        }
        #expect(matching.newToOld.indices.allSatisfy { Int(matching.newToOld[$0]) == ids.count - 1 - $0 })
        return (matching.probes, matching.hashing)
    }

    func expectSame<Value: Equatable & Encodable>(
        _ first: Result<Value, any Error>,
        _ second: Result<Value, any Error>,
        context: String
    ) throws {
        switch (first, second) {
        case let (.success(a), .success(b)):
            let encoder = JSONEncoder()
            encoder.outputFormatting = .sortedKeys
            #expect(a == b, "\(context)")
            #expect(try encoder.encode(a) == encoder.encode(b), "\(context)")
        case let (.failure(a), .failure(b)):
            #expect(a as? DiffError == b as? DiffError, "\(context): \(a) and \(b)")
        default:
            Issue.record("\(context): \(first) and \(second)")
        }
    }
}

// MARK: Ids

/// The id types the diff hashes with its key.
enum IDKind: Sendable {
    case int, uuid
}

/// An element whose id is hashed the way `ID` is.
struct Element<ID: Hashable>: Identifiable, Equatable {
    var id: ID
    var content: Int
}

protocol TestableID: Hashable {
    /// The hashing the diff uses for this type.
    static var keyedHashing: _HashingChoice { get }
    /// The diff's keyed hash of an id of this type.
    static func keyedHash(_ id: Self, key: _IDHashKey) -> UInt64
    static func random(using generator: inout SplitMix64) -> Self
    /// The `index`-th of a family of ids (distinct for distinct indices from
    /// 1 on) that all went to slot 0 of the id table, at any size below 2³²
    /// slots, when integer ids were hashed by `bits ^ (bits >> 29)` and
    /// UUIDs by `low ^ (high * c) ^ (high >> 31)`. The table multiplies a
    /// hash by the 64-bit golden ratio and takes the home slot from the top
    /// bits of the product (the tag from its low 32 bits), so the hash
    /// `index` times the ratio's inverse makes the product `index`: slot 0,
    /// tag `index`. What remains is to undo the hashing.
    static func collidingUnderUnkeyedHashing(_ index: UInt64) -> Self
}

extension TestableID {
    /// `count` distinct random ids.
    static func randomIDs(_ count: Int, using generator: inout SplitMix64) -> [Self] {
        var seen = Set<Self>(minimumCapacity: count)
        var ids: [Self] = []
        ids.reserveCapacity(count)
        while ids.count < count {
            let id = random(using: &generator)
            if seen.insert(id).inserted { ids.append(id) }
        }
        return ids
    }

    /// `count` distinct ids whose home slots, under `key`, are all in the
    /// first sixteenth of the table whatever its size, found as one who
    /// knows the key would: by trying random ids (16 per id kept). In a
    /// table sized for them, at most 3/4 full, they fill that sixteenth
    /// several times over: one cluster, which every insert walks.
    static func collidingUnderKeyedHashing(_ count: Int, key: _IDHashKey, using generator: inout SplitMix64) -> [Self] {
        var seen = Set<Self>(minimumCapacity: count)
        var ids: [Self] = []
        ids.reserveCapacity(count)
        while ids.count < count {
            let id = random(using: &generator)
            if (keyedHash(id, key: key) &* 0x9E37_79B9_7F4A_7C15) >> 60 == 0 && seen.insert(id).inserted {
                ids.append(id)
            }
        }
        return ids
    }
}

extension Int: TestableID {
    static var keyedHashing: _HashingChoice { .word }

    static func keyedHash(_ id: Int, key: _IDHashKey) -> UInt64 {
        foldedMultiply(UInt64(bitPattern: Int64(id)) ^ key.k0, key.k1)
    }

    static func random(using generator: inout SplitMix64) -> Int {
        Int(truncatingIfNeeded: generator.next())
    }

    static func collidingUnderUnkeyedHashing(_ index: UInt64) -> Int {
        let hash = index &* goldenRatioInverse
        return Int(truncatingIfNeeded: hash ^ (hash >> 29) ^ (hash >> 58))
    }
}

extension UUID: TestableID {
    static var keyedHashing: _HashingChoice { .uuid }

    static func keyedHash(_ id: UUID, key: _IDHashKey) -> UInt64 {
        let halves = withUnsafeBytes(of: id.uuid) { raw in
            (raw.loadUnaligned(fromByteOffset: 0, as: UInt64.self), raw.loadUnaligned(fromByteOffset: 8, as: UInt64.self))
        }
        return foldedMultiply(halves.0 ^ key.k0, halves.1 ^ key.k2)
    }

    static func random(using generator: inout SplitMix64) -> UUID {
        UUID(low: generator.next(), high: generator.next())
    }

    /// With a zero high half, the unkeyed hash is the low half.
    static func collidingUnderUnkeyedHashing(_ index: UInt64) -> UUID {
        UUID(low: index &* goldenRatioInverse, high: 0)
    }
}

private func foldedMultiply(_ a: UInt64, _ b: UInt64) -> UInt64 {
    let product = a.multipliedFullWidth(by: b)
    return product.high ^ product.low
}

private let goldenRatioInverse: UInt64 = 0xF1DE_83E1_9937_733D // 0x9E37_79B9_7F4A_7C15⁻¹ mod 2⁶⁴

extension UUID {
    /// The UUID whose first and second 64 bits in memory are `low` and `high`.
    fileprivate init(low: UInt64, high: UInt64) {
        var bytes: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        withUnsafeMutableBytes(of: &bytes) { raw in
            raw.storeBytes(of: low.littleEndian, toByteOffset: 0, as: UInt64.self)
            raw.storeBytes(of: high.littleEndian, toByteOffset: 8, as: UInt64.self)
        }
        self.init(uuid: bytes)
    }
}
