import Foundation
import Testing
@testable import TesseraDiff
import TesseraTestSupport
import TesseraTestTraits

/// Large batches take the packed, radix-sorted path of the validator and the
/// mapping (hundreds of item operations); these oracles compare it with
/// brute-force answers and with the comparison sort it replaces.
@Suite("Large batches: validation and mapping", .cpuBound)
struct LargeBatchTests {
    @Test("Large random batches map every item like identity, in one merge too, and name the sections they change")
    func largeBatchesMapLikeIdentity() throws {
        var pairs = RandomSnapshotPairs(seed: testSeed(default: 0x1A76_E5), maxSections: 6, maxItems: 3_000)
        var largest = 0
        try pairs.forEachRound(40) { _, old, new, round in
            let changeset = try diff(from: old, to: new)
            let items = changeset.structuralUpdateItems
            largest = max(largest, items.count)
            let comment = Comment(rawValue: round)
            let mapping = try BatchIndexMapping(items, itemCountsBefore: old.itemCounts, itemCountsAfter: new.itemCounts)
            let newPath = new.indexPathsByID
            let oldPath = old.indexPathsByID
            let deletedSections = Set(changeset.sectionDeletes)
            let insertedSections = Set(changeset.sectionInserts)
            var positions: [(section: Int, item: Int)] = []
            var expected: [IndexPath?] = []
            for s in 0..<old.numberOfSections {
                for (i, element) in old.items(inSection: s).enumerated() {
                    let path = IndexPath(item: i, section: s)
                    let survives = !deletedSections.contains(s) && newPath[element.id].map { !insertedSections.contains($0[0]) } == true
                    let target = survives ? newPath[element.id] : nil
                    #expect(mapping.indexPathAfter(path) == target, comment)
                    positions.append((s, i))
                    expected.append(target)
                }
            }
            let merged = mapping.itemPositionsAfter(sorted: positions).map { $0.map { IndexPath(item: $0.item, section: $0.section) } }
            #expect(merged == expected, comment)
            for (id, path) in newPath {
                let survives = !insertedSections.contains(path[0]) && oldPath[id].map { !deletedSections.contains($0[0]) } == true
                #expect(mapping.indexPathBefore(path) == (survives ? oldPath[id] : nil), comment)
            }
            // Inserted and deleted items, and the sections changed, by brute force over the items.
            let inserted = Set(items.filter { $0.updateAction == .insert && $0.indexPathAfterUpdate?.count == 2 }.compactMap(\.indexPathAfterUpdate))
            let deleted = Set(items.filter { $0.updateAction == .delete && $0.indexPathBeforeUpdate?.count == 2 }.compactMap(\.indexPathBeforeUpdate))
            for t in 0..<new.numberOfSections {
                for j in 0..<new.items(inSection: t).count {
                    let path = IndexPath(item: j, section: t)
                    #expect(mapping.isInsertedItem(path) == inserted.contains(path), comment)
                }
            }
            for path in oldPath.values { #expect(mapping.isDeletedItem(path) == deleted.contains(path), comment) }
            #expect(mapping.deletesItems == !deleted.isEmpty, comment)
            var changed = Set<Int>()
            for item in items {
                let before = item.indexPathBeforeUpdate
                let after = item.indexPathAfterUpdate
                if (before ?? after)?.count == 1 {
                    if item.updateAction == .insert, let after { changed.insert(after[0]) }
                    if item.updateAction == .reload, let before, let t = mapping.sectionAfter(before[0]) { changed.insert(t) }
                    continue
                }
                if let before, let t = mapping.sectionAfter(before[0]) { changed.insert(t) }
                if let after { changed.insert(after[0]) }
            }
            #expect(mapping.sectionsChangedAfter == changed.sorted(), comment)
        }
        #expect(largest >= 256, "seed \(pairs.seed): no batch was large enough for the radix path")
    }

    @Test("An item named twice in a large batch throws the repeat that checking the operations one by one finds first")
    func repeatsInLargeBatches() {
        var thrown = 0
        let seed = testSeed(default: 0xD0_0B1E)
        forEachSeededRound("LargeBatchTests.repeatsInLargeBatches", seed: seed, rounds: 60) { round, seed, generator in
            let counts = (0..<Int.random(in: 1...5, using: &generator)).map { _ in Int.random(in: 1...400, using: &generator) }
            func randomPath() -> IndexPath {
                let s = Int.random(in: 0..<counts.count, using: &generator)
                return IndexPath(item: Int.random(in: 0..<counts[s], using: &generator), section: s)
            }
            var items: [UpdateItem] = []
            for _ in 0..<Int.random(in: 200...700, using: &generator) {
                switch Int.random(in: 0..<5, using: &generator) {
                case 0: items.append(.deleteItem(at: randomPath()))
                case 1: items.append(.insertItem(at: randomPath()))
                case 2: items.append(.moveItem(from: randomPath(), to: randomPath()))
                case 3: items.append(.reloadItem(at: randomPath()))
                default: items.append(.reloadItem(at: randomPath(), landing: randomPath()))
                }
            }
            // Checking one by one: deletes, reloads, moves (old space), then
            // inserts, moves, reload landings (new space), each in batch order.
            func firstRepeat(_ claims: [(IndexPath, UpdateItem.Action)]) -> (IndexPath, UpdateItem.Action, UpdateItem.Action)? {
                var seen: [IndexPath: UpdateItem.Action] = [:]
                for (path, action) in claims {
                    if let first = seen[path] { return (path, first, action) }
                    seen[path] = action
                }
                return nil
            }
            let before = items.filter { $0.updateAction == .delete }.map { ($0.indexPathBeforeUpdate!, UpdateItem.Action.delete) }
                + items.filter { $0.updateAction == .reload }.map { ($0.indexPathBeforeUpdate!, UpdateItem.Action.reload) }
                + items.filter { $0.updateAction == .move }.map { ($0.indexPathBeforeUpdate!, UpdateItem.Action.move) }
            let after = items.filter { $0.updateAction == .insert }.map { ($0.indexPathAfterUpdate!, UpdateItem.Action.insert) }
                + items.filter { $0.updateAction == .move }.map { ($0.indexPathAfterUpdate!, UpdateItem.Action.move) }
                + items.filter { $0.updateAction == .reload && $0.indexPathAfterUpdate != nil }.map { ($0.indexPathAfterUpdate!, UpdateItem.Action.reload) }
            let expected: BatchValidationError? = firstRepeat(before).map { .itemNamedTwice(indexPath: $0.0, space: .before, first: $0.1, second: $0.2) }
                ?? firstRepeat(after).map { .itemNamedTwice(indexPath: $0.0, space: .after, first: $0.1, second: $0.2) }
            guard let expected else { return }
            thrown += 1
            #expect(throws: expected, "seed \(seed), round \(round)") {
                try BatchValidator.validate(items, itemCountsBefore: counts, itemCountsAfter: counts, rules: .tessera)
            }
        }
        #expect(thrown >= 50, "seed \(seed): too few batches named an item twice")
    }

    @Test("Claims sort as packed integers (radix or not) exactly as by comparing section, item and order")
    func packedClaimsSortLikeComparison() {
        forEachSeededRound("LargeBatchTests.packedClaimsSortLikeComparison", seed: 0xC1A1_4, rounds: 200) { round, seed, generator in
            let maxSection = [0, 3, 1_000, Int.max / 4][Int.random(in: 0..<4, using: &generator)]
            let maxItem = [0, 7, 70_000, 1 << 40][Int.random(in: 0..<4, using: &generator)]
            let count = [0, 1, 255, 256, 257, Int.random(in: 0...3_000, using: &generator)][Int.random(in: 0..<6, using: &generator)]
            let actions: [UpdateItem.Action] = [.delete, .reload, .move, .insert]
            let claims = (0..<count).map { order in
                _ItemClaim(
                    (Int.random(in: 0...maxSection, using: &generator), Int.random(in: 0...maxItem, using: &generator)),
                    actions[Int.random(in: 0..<4, using: &generator)],
                    order: order
                )
            }
            let packed = _ItemClaim.sorted(claims)
            let compared = claims.sorted { ($0.section, $0.item, $0.order) < ($1.section, $1.item, $1.order) }
            let comment = Comment(rawValue: "seed \(seed), round \(round): \(count) claims, sections to \(maxSection), items to \(maxItem)")
            #expect(packed.map(\.order) == compared.map(\.order), comment)
            #expect(packed.map(\.action) == compared.map(\.action), comment)
        }
    }

    @Test("Packed keys sort by radix exactly as by comparison, for every width")
    func packedKeysSortLikeComparison() {
        forEachSeededRound("LargeBatchTests.packedKeysSortLikeComparison", seed: 0x4AD1_C5, rounds: 200) { round, seed, generator in
            let bits = Int.random(in: 0...64, using: &generator)
            let mask = bits == 64 ? UInt64.max : (UInt64(1) << UInt64(bits)) - 1
            let count = [0, 255, 256, Int.random(in: 0...5_000, using: &generator)][Int.random(in: 0..<4, using: &generator)]
            var keys = (0..<count).map { _ in generator.next() & mask }
            let expected = keys.sorted()
            _PackedKeys.sort(&keys, bits: bits)
            #expect(keys == expected, "seed \(seed), round \(round): \(count) keys of \(bits) bits")
        }
    }

    @Test("Counts too large to pack give the same mapping as small ones")
    func hugeCountsMapLikeSmallOnes() throws {
        try forEachSeededRound("LargeBatchTests.hugeCountsMapLikeSmallOnes", seed: 0x6_1A47, rounds: 20) { round, seed, generator in
            // A valid batch on two sections of 600 items: deletes, inserts
            // and moves on distinct items; each section keeps its count.
            var items: [UpdateItem] = []
            var oldFree = [Array(0..<600).shuffled(using: &generator), Array(0..<600).shuffled(using: &generator)]
            var newFree = [Array(0..<600).shuffled(using: &generator), Array(0..<600).shuffled(using: &generator)]
            for s in 0..<2 {
                for _ in 0..<100 {
                    items.append(.deleteItem(at: IndexPath(item: oldFree[s].removeLast(), section: s)))
                    items.append(.insertItem(at: IndexPath(item: newFree[s].removeLast(), section: s)))
                }
                for _ in 0..<80 {
                    items.append(.moveItem(from: IndexPath(item: oldFree[s].removeLast(), section: s), to: IndexPath(item: newFree[1 - s].removeLast(), section: 1 - s)))
                }
            }
            let small = try BatchIndexMapping(items, itemCountsBefore: [600, 600], itemCountsAfter: [600, 600])
            // 2^60 more items after each section's first 600, and one of
            // them moved far past the first 600 of the other section: the
            // first 600 map alike, though the claims no longer fit in 64 bits.
            let hugeCount = 600 + (1 << 60)
            let far = items + [.moveItem(from: IndexPath(item: hugeCount - 1, section: 0), to: IndexPath(item: hugeCount - 7, section: 1))]
            let huge = try BatchIndexMapping(far, itemCountsBefore: [hugeCount, hugeCount], itemCountsAfter: [hugeCount - 1, hugeCount + 1])
            let comment = Comment(rawValue: "seed \(seed), round \(round)")
            for s in 0..<2 {
                for i in 0..<600 {
                    let path = IndexPath(item: i, section: s)
                    #expect(huge.indexPathAfter(path) == small.indexPathAfter(path), comment)
                    #expect(huge.indexPathBefore(path) == small.indexPathBefore(path), comment)
                }
            }
            #expect(huge.sectionsChangedAfter == small.sectionsChangedAfter, comment)
        }
    }
}
