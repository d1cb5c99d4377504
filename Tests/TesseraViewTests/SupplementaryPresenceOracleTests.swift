import Foundation
import Testing
import TesseraTestTraits
import TesseraDiff
import TesseraLayout
import TesseraTestSupport
import TesseraView

/// A flow layout that notes, at the end of each batch, which headers and
/// footers it says appear and disappear in sections that stay and are not
/// reloaded (a reloaded section's views are replaced anyway), beside what a
/// walk over every such section finds (from each section's presence before
/// the batch, which the test sets, and after it).
private final class PresenceRecordingFlowLayout: FlowLayout {
    /// Per section before the batch: whether it has a header, a footer.
    var presenceBefore: [(header: Bool, footer: Bool)] = []
    /// Per kind: (said, walked) for the sections that stay, gained then lost.
    var recorded: [String: (said: [[IndexPath]], walked: [[IndexPath]])] = [:]

    override func finalizeCollectionViewUpdates() {
        recorded = [:]
        if let mapping = updateIndexMapping {
            let sectionsAfter = collectionView?.numberOfSections ?? 0
            for kind in [ElementKind.sectionHeader, ElementKind.sectionFooter] {
                func has(_ section: Int) -> Bool { layoutAttributesForSupplementaryView(ofKind: kind, at: IndexPath(item: 0, section: section)) != nil }
                func had(_ section: Int) -> Bool { kind == ElementKind.sectionHeader ? presenceBefore[section].header : presenceBefore[section].footer }
                var gained: [IndexPath] = []
                var lost: [IndexPath] = []
                for section in 0..<sectionsAfter {
                    guard let old = mapping.sectionBefore(section), !mapping.isSectionReloaded(old) else { continue }
                    if has(section) && !had(old) { gained.append(IndexPath(item: 0, section: section)) }
                    if had(old) && !has(section) { lost.append(IndexPath(item: 0, section: old)) }
                }
                let saidGained = indexPathsToInsertForSupplementaryView(ofKind: kind).filter { path in
                    mapping.sectionBefore(path[0]).map { !mapping.isSectionReloaded($0) } ?? false
                }
                let saidLost = indexPathsToDeleteForSupplementaryView(ofKind: kind).filter { path in
                    mapping.sectionAfter(path[0]) != nil && !mapping.isSectionReloaded(path[0])
                }
                recorded[kind] = ([saidGained, saidLost], [gained, lost.sorted()])
            }
        }
        super.finalizeCollectionViewUpdates()
    }
}

@Suite("Headers and footers that a batch adds to or takes from sections that stay", .tags(.oracle), .cpuBound)
struct SupplementaryPresenceOracleTests {
    @Test("After every random batch, the headers and footers a layout says sections that stay gain and lose equal a walk over every section")
    func presenceChangesEqualAWalkOverEverySection() throws {
        var changesSeen = 0
        try forEachSeededRound("SupplementaryPresenceOracleTests.presenceChangesEqualAWalkOverEverySection", seed: 0x9E5E_1CE5, rounds: 20) { round, seed, generator in
            var nextID = 0
            func fresh() -> Int {
                nextID += 1
                return nextID
            }
            // A section's content says whether it has a header (odd) and a
            // footer (content / 2 odd): reloading a section flips them.
            var sections: [(section: TestSection, items: [TestItem])] = (0..<Int.random(in: 1...40, using: &generator)).map { _ in
                (TestSection(id: fresh(), content: Int.random(in: 0..<4, using: &generator)), (0..<Int.random(in: 0...12, using: &generator)).map { _ in TestItem(id: fresh()) })
            }
            let delegate = AnyLayoutDelegate()
            let layout = PresenceRecordingFlowLayout()
            layout.itemSize = Size(width: 40, height: 40)
            layout.delegate = delegate
            func rekey() {
                delegate.headerSizes = [:]
                delegate.footerSizes = [:]
                for (index, entry) in sections.enumerated() {
                    delegate.headerSizes[index] = Size(width: 0, height: entry.section.content % 2 == 1 ? 30 : 0)
                    delegate.footerSizes[index] = Size(width: 0, height: entry.section.content / 2 % 2 == 1 ? 20 : 0)
                }
            }
            func snapshot() -> TestSnapshot {
                var snapshot = TestSnapshot()
                for (section, items) in sections { snapshot.appendSection(section, items: items) }
                return snapshot
            }
            let view = CollectionView(layout: layout, size: Size(width: 200, height: 300))
            let source = DiffableDataSource<TestSection, TestItem>(collectionView: view)
            rekey()
            try source.apply(snapshot(), animated: false)
            for step in 0..<15 {
                layout.presenceBefore = (0..<sections.count).map { section in
                    let path = IndexPath(item: 0, section: section)
                    return (layout.layoutAttributesForSupplementaryView(ofKind: ElementKind.sectionHeader, at: path) != nil,
                            layout.layoutAttributesForSupplementaryView(ofKind: ElementKind.sectionFooter, at: path) != nil)
                }
                var edits: [String] = []
                for _ in 0..<Int.random(in: 1...3, using: &generator) {
                    let s = Int.random(in: 0..<sections.count, using: &generator)
                    switch Int.random(in: 0..<6, using: &generator) {
                    case 0:
                        sections[s].section.content += 1
                        edits.append("reload section \(s)")
                    case 1:
                        sections[s].items.insert(TestItem(id: fresh()), at: Int.random(in: 0...sections[s].items.count, using: &generator))
                        sections[s].section.content += Int.random(in: 0...1, using: &generator)
                        edits.append("insert an item in section \(s), maybe reload it")
                    case 2 where !sections[s].items.isEmpty:
                        sections[s].items.remove(at: Int.random(in: 0..<sections[s].items.count, using: &generator))
                        edits.append("delete an item of section \(s)")
                    case 3 where sections.count > 1:
                        let moved = sections.remove(at: s)
                        sections.insert(moved, at: Int.random(in: 0...sections.count, using: &generator))
                        edits.append("move section \(s)")
                    case 4 where sections.count < 48:
                        sections.insert((TestSection(id: fresh(), content: Int.random(in: 0..<4, using: &generator)), [TestItem(id: fresh())]), at: s)
                        edits.append("insert section \(s)")
                    case 5 where sections.count > 1:
                        sections.remove(at: s)
                        edits.append("delete section \(s)")
                    default:
                        continue
                    }
                }
                rekey()
                try source.apply(snapshot())
                for kind in [ElementKind.sectionHeader, ElementKind.sectionFooter] {
                    let entry = try #require(layout.recorded[kind], "seed \(seed), round \(round), step \(step): no batch recorded")
                    #expect(entry.said == entry.walked, "seed \(seed), round \(round), step \(step), \(edits), \(kind)")
                    changesSeen += entry.walked.map(\.count).reduce(0, +)
                }
            }
        }
        // The batches did add and take headers and footers.
        #expect(changesSeen > 50)
    }
}
