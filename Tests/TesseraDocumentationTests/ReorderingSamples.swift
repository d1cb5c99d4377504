import Testing
import Tessera

// sample: Sources/TesseraView/TesseraView.docc/Reordering.md
final class Tasks: CollectionViewDataSource {
    var titles = ["Write", "Test", "Document", "Ship"]

    func numberOfSections(in collectionView: CollectionView) -> Int { 1 }
    func collectionView(_ collectionView: CollectionView, numberOfItemsInSection section: Int) -> Int { titles.count }
    func collectionView(_ collectionView: CollectionView, itemIdentifierAt indexPath: IndexPath) -> String? { titles[indexPath.item] }

    func collectionView(_ collectionView: CollectionView, canMoveItemAt indexPath: IndexPath) -> Bool { true }
    func collectionView(_ collectionView: CollectionView, moveItemAt sourceIndexPath: IndexPath, to destinationIndexPath: IndexPath) {
        let title = titles.remove(at: sourceIndexPath.item)
        titles.insert(title, at: destinationIndexPath.item)
    }
}
// end of sample

// sample: Sources/TesseraView/TesseraView.docc/Reordering.md
final class CardLayout: FlowLayout {
    // The card being dragged grows a little and turns translucent.
    override func layoutAttributesForInteractivelyMovingItem(at indexPath: IndexPath, withTargetPosition position: Point) -> LayoutAttributes? {
        guard var attributes = super.layoutAttributesForInteractivelyMovingItem(at: indexPath, withTargetPosition: position) else { return nil }
        attributes.transform = .scale(1.1, 1.1)
        attributes.alpha = 0.8
        return attributes
    }

    // Cards stay in their section.
    override func targetIndexPath(forInteractivelyMovingItem previousIndexPath: IndexPath, withPosition position: Point) -> IndexPath {
        let proposed = super.targetIndexPath(forInteractivelyMovingItem: previousIndexPath, withPosition: position)
        return proposed.section == previousIndexPath.section ? proposed : previousIndexPath
    }
}
// end of sample

/// The samples of the "Reordering by drag" article, compiled with
/// `import Tessera` and run.
@Suite("Reordering samples")
struct ReorderingSamples: PrintingSamples {
    let transcript = Transcript()

    struct Album: Identifiable, Equatable {
        var id: String
    }

    struct Photo: Identifiable, Equatable {
        var id: Int
        var title: String
    }

    @Test("A drag over the third task presents it there, and ending moves it in the data source")
    func dragStepByStep() throws {
        // sample: Sources/TesseraView/TesseraView.docc/Reordering.md
        let layout = ListLayout()
        let view = CollectionView(layout: layout, size: Size(width: 390, height: 844))
        let tasks = Tasks()
        view.dataSource = tasks
        view.reloadData()

        try view.beginInteractiveMovementForItem(at: IndexPath(item: 0, section: 0))
        // The user drags "Write" down over "Document".
        let over = layout.layoutAttributesForItem(at: IndexPath(item: 2, section: 0))!.center
        let step = try view.updateInteractiveMovementTargetPosition(over)
        print(view.indexPathForInteractivelyMovingItem!)          // [0, 2]: the others made room
        for element in step.elements {
            print(element.itemID ?? "-", element.from.frame, "→", element.to.frame)
        }
        let settle = try view.endInteractiveMovement()           // tasks moves "Write" from [0, 0] to [0, 2]
        print(tasks.titles)                                      // ["Test", "Document", "Write", "Ship"]
        // end of sample
        #expect(transcript.lines.first == "[0, 2]")
        #expect(transcript.lines.last == #"["Test", "Document", "Write", "Ship"]"#)
        let write = try #require(step.elements.first { $0.itemID == "Write" })
        #expect(write.to.center == over)
        #expect(step.elements.first { $0.itemID == "Document" }?.to.frame == layout.layoutAttributesForItem(at: IndexPath(item: 1, section: 0))?.frame)
        #expect(settle.elements.first { $0.itemID == "Write" }?.to.frame == layout.layoutAttributesForItem(at: IndexPath(item: 2, section: 0))?.frame)
    }

    @Test("The card layout scales the dragged card and keeps it in its section")
    func customLayout() throws {
        let layout = CardLayout()
        let view = CollectionView(layout: layout, size: Size(width: 390, height: 844))
        let tasks = Tasks()
        view.dataSource = tasks
        view.reloadData()
        try view.beginInteractiveMovementForItem(at: IndexPath(item: 0, section: 0))
        let step = try view.updateInteractiveMovementTargetPosition(Point(x: 200, y: 600))
        let card = try #require(step.elements.first { $0.itemID == "Write" })
        #expect(card.to.transform == .scale(1.1, 1.1))
        #expect(card.to.alpha == 0.8)
        #expect(card.to.center == Point(x: 200, y: 600))
        // The nearest card to (200, 600) is the last one, in the same section.
        #expect(view.indexPathForInteractivelyMovingItem == IndexPath(item: 3, section: 0))
        #expect(layout.targetIndexPath(forInteractivelyMovingItem: IndexPath(item: 0, section: 1), withPosition: Point(x: 10, y: 10)) == IndexPath(item: 0, section: 1))
        try view.cancelInteractiveMovement()
        #expect(tasks.titles == ["Write", "Test", "Document", "Ship"])
    }

    @Test("A diffable data source reorders items its handler allows, and reports the new snapshot")
    func diffableReordering() throws {
        let view = CollectionView(layout: ListLayout(), size: Size(width: 390, height: 844))
        let source = DiffableDataSource<Album, Photo>(collectionView: view)
        var snapshot = Snapshot<Album, Photo>()
        snapshot.appendSection(Album(id: "Holidays"), items: [Photo(id: 1, title: "Cover"), Photo(id: 2, title: "Beach"), Photo(id: 3, title: "Dunes")])
        try source.apply(snapshot, animated: false)
        var saved: Snapshot<Album, Photo>?

        // sample: Sources/TesseraView/TesseraView.docc/Reordering.md
        source.reorderingHandlers.canReorderItem = { photo in photo.title != "Cover" }
        source.reorderingHandlers.didReorder = { snapshot in saved = snapshot }
        // end of sample

        #expect(throws: InteractiveMovementError.itemCannotMove(IndexPath(item: 0, section: 0))) { try view.beginInteractiveMovementForItem(at: IndexPath(item: 0, section: 0)) }
        try view.beginInteractiveMovementForItem(at: IndexPath(item: 2, section: 0))
        try view.updateInteractiveMovementTargetPosition(Point(x: 100, y: 40))
        try view.endInteractiveMovement()
        #expect(source.snapshot.allItems.map(\.title) == ["Cover", "Dunes", "Beach"])
        #expect(saved == source.snapshot)
    }

    @Test("Updating with no drag in progress is caught by its case")
    func errors() {
        let view = CollectionView(layout: ListLayout(), size: Size(width: 390, height: 844))
        // sample: Sources/TesseraView/TesseraView.docc/Reordering.md
        do {
            try view.updateInteractiveMovementTargetPosition(Point(x: 10, y: 10))
        } catch .noMovementInProgress(let operation) {
            print("Nothing is being dragged:", operation)
        } catch {
            print(error)
        }
        // end of sample
        #expect(transcript.lines == ["Nothing is being dragged: updateInteractiveMovementTargetPosition(_:)"])
    }
}
