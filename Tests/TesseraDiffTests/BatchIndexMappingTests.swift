import Foundation
import Testing
import TesseraDiff
import TesseraTestSupport
import TesseraTestTraits

@Suite("Batch index mapping", .cpuBound)
struct BatchIndexMappingTests {
    @Test("Every surviving item maps to where its id is after the update, and back, for random snapshot pairs")
    func mapsLikeIdentity() throws {
        try RandomSnapshotPairs.forEachRound(2_000, seed: 0x3A9) { _, old, new, round in
            let changeset = try diff(from: old, to: new)
            let newPath = new.indexPathsByID
            let oldPath = old.indexPathsByID
            let deletedSections = Set(changeset.sectionDeletes)
            let insertedSections = Set(changeset.sectionInserts)
            let mapping = try BatchIndexMapping(changeset.structuralUpdateItems, itemCountsBefore: old.itemCounts, itemCountsAfter: new.itemCounts)
            let comment = Comment(rawValue: "\(round): \(old) → \(new)")
            for (id, path) in oldPath {
                let survives = !deletedSections.contains(path[0]) && newPath[id].map { !insertedSections.contains($0[0]) } == true
                #expect(mapping.indexPathAfter(path) == (survives ? newPath[id] : nil), comment)
            }
            for (id, path) in newPath {
                let survives = !insertedSections.contains(path[0]) && oldPath[id].map { !deletedSections.contains($0[0]) } == true
                #expect(mapping.indexPathBefore(path) == (survives ? oldPath[id] : nil), comment)
            }
            for s in 0..<old.numberOfSections {
                let target = mapping.sectionAfter(s)
                #expect(target.map { new.sections[$0].id } == (deletedSections.contains(s) ? nil : old.sections[s].id), comment)
                if let target { #expect(mapping.sectionBefore(target) == s, comment) }
            }
        }
    }

    @Test("A reloaded item maps to its landing; items of a reloaded section map to nothing")
    func reloads() throws {
        let mapping = try BatchIndexMapping(
            [.deleteItem(at: IndexPath(item: 0, section: 0)), .reloadItem(at: IndexPath(item: 2, section: 0)), .reloadSection(1)],
            itemCountsBefore: [3, 2], itemCountsAfter: [2, 5]
        )
        #expect(mapping.indexPathAfter(IndexPath(item: 2, section: 0)) == IndexPath(item: 1, section: 0))
        #expect(mapping.indexPathAfter(IndexPath(item: 0, section: 1)) == nil)
        #expect(mapping.indexPathBefore(IndexPath(item: 4, section: 1)) == nil)
        #expect(mapping.isSectionReloaded(1) && mapping.sectionAfter(1) == 1)
    }
}
