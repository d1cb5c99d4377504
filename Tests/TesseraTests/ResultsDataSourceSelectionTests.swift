import Foundation
import Testing
import Tessera
import TesseraResultsTestSupport
import TesseraTestSupport
import TesseraTestTraits

@Suite("ResultsDataSource selection", .cpuBound)
struct ResultsDataSourceSelectionTests {
    @Test("Random transactions: the selected record keys are those selected that are still fetched, as a diffing data source given the same reports says, and the plans match")
    func selectionFollowsRecordKeys() throws {
        let seed = testSeed(default: 0x5E1_EC7)
        print("ResultsDataSource selection: seed \(seed); replay with TESSERA_SEED=\(seed)")
        var generator = SplitMix64(seed: seed)
        let database = try ResultsDataSourceTests.makePhotos(.sqliteInMemory)
        let controller = try database.fetchedResultsController(ResultsDataSourceTests.request, of: Photo.self)
        let log = ReportLog<Photo>()
        controller.delegate = log
        try controller.performFetch()

        let view = ResultsDataSourceTests.makeView()
        view.allowsMultipleSelection = true
        let source = ResultsDataSource(collectionView: view, result: controller.result)
        let twinView = ResultsDataSourceTests.makeView()
        twinView.allowsMultipleSelection = true
        let twin = DiffableDataSource<ResultSection, Photo>(collectionView: twinView)
        try twin.apply(controller.snapshot, animated: false)

        var selected = Set<Photo.ID>()
        var kept = 0
        for round in 0..<600 {
            let comment = Comment(rawValue: "seed \(seed), round \(round)")
            let photos = controller.snapshot.allItems
            for photo in photos where Int.random(in: 0..<6, using: &generator) == 0 {
                if selected.contains(photo.id) {
                    try source.deselectItem(withID: photo.id)
                    try twin.deselectItem(withID: photo.id)
                    selected.remove(photo.id)
                } else {
                    try source.selectItem(withID: photo.id)
                    try twin.selectItem(withID: photo.id)
                    selected.insert(photo.id)
                }
            }
            let reportsBefore = log.reports.count
            ResultsDataSourceTests.randomTransaction(database, using: &generator)
            if log.reports.count > reportsBefore, let report = log.reports.last {
                let plan = try source.apply(report)
                let expected = try twin.apply(report.newSnapshot)
                #expect(plan == expected, comment)
                let present = Set(controller.snapshot.allItems.map(\.id))
                selected.formIntersection(present)
                kept += selected.count
                #expect(Set(source.selectedItemIDs) == selected, comment)
                #expect(source.selectedItemIDs == twin.selectedItemIDs, comment)
                #expect(view.indexPathsForSelectedItems == twinView.indexPathsForSelectedItems, comment)
            }
        }
        #expect(kept > 100, "seed \(seed): too little selection kept to mean anything")
    }

    @Test("Selecting an unknown record key is an error that names it, and changes nothing")
    func unknownKey() throws {
        let database = try ResultsDataSourceTests.makePhotos(.sqliteInMemory)
        try database.write { db in
            try db.execute("INSERT INTO photo VALUES (1, 'a', 1, 't', 1)")
        }
        let controller = try database.fetchedResultsController(ResultsDataSourceTests.request, of: Photo.self)
        try controller.performFetch()
        let view = ResultsDataSourceTests.makeView()
        let source = ResultsDataSource(collectionView: view, result: controller.result)
        try source.selectItem(withID: 1)
        #expect(source.selectedItemIDs == [1])
        #expect(throws: SelectionError.unknownItemID("99")) { try source.selectItem(withID: 99) }
        #expect(throws: SelectionError.unknownItemID("99")) { try source.deselectItem(withID: 99) }
        #expect(source.selectedItemIDs == [1])
        try source.deselectItem(withID: 1)
        #expect(source.selectedItemIDs.isEmpty)
    }

    @Test("A selected record that leaves a deleted section for an inserted one stays selected, though the changeset deletes and inserts it")
    func recordCrossingSections() throws {
        let database = try ResultsDataSourceTests.makePhotos(.sqliteInMemory)
        try database.write { db in
            try db.execute("INSERT INTO photo VALUES (1, 'a', 1, 't', 1)")
            try db.execute("INSERT INTO photo VALUES (2, 'c', 1, 't', 1)")
        }
        let controller = try database.fetchedResultsController(ResultsDataSourceTests.request, of: Photo.self)
        let log = ReportLog<Photo>()
        controller.delegate = log
        try controller.performFetch()
        let view = ResultsDataSourceTests.makeView()
        let delegate = DeselectionLog()
        view.delegate = delegate
        let source = ResultsDataSource(collectionView: view, result: controller.result)
        try source.selectItem(withID: 1)
        try database.write { db in
            try db.execute("UPDATE photo SET album = 'b' WHERE id = 1")
        }
        let report = try #require(log.reports.last)
        #expect(report.changeset.sectionDeletes == [0] && report.changeset.sectionInserts == [0])
        let plan = try source.apply(report)
        #expect(source.selectedItemIDs == [1])
        #expect(view.indexPathsForSelectedItems == [IndexPath(item: 0, section: 0)])
        #expect(delegate.deselected.isEmpty)
        #expect(plan.elements.filter { $0.category == .cell && $0.isSelected }.count == 2, "the cell leaving and the cell arriving")
    }
}

private final class DeselectionLog: CollectionViewDelegate {
    var deselected: [IndexPath] = []
    func collectionView(_ collectionView: CollectionView, didDeselectItemAt indexPath: IndexPath) { deselected.append(indexPath) }
}
