import Testing
import Tessera

/// The TesseraView samples of README.md and the "From a changeset to an
/// animation plan" article, compiled with `import Tessera` and run.
@Suite("TesseraView samples")
struct TesseraViewSamples: PrintingSamples {
    let transcript = Transcript()

    struct Album: Identifiable, Equatable {
        var id: String
    }

    struct Photo: Identifiable, Equatable {
        var id: Int
        var title: String
    }

    static let photos = [Photo(id: 1, title: "Beach"), Photo(id: 2, title: "Sunset"), Photo(id: 3, title: "Dunes")]

    @Test("The article's samples show a snapshot, then plan the insert of a photo")
    func fromAChangesetToAnAnimationPlan() throws {
        let holidays = Album(id: "Holidays")
        let photos = Self.photos
        let newPhoto = Photo(id: 4, title: "Pier")

        // sample: Sources/TesseraView/TesseraView.docc/FromAChangesetToAnAnimationPlan.md
        let view = CollectionView(layout: FlowLayout(), size: Size(width: 390, height: 844))
        let source = DiffableDataSource<Album, Photo>(collectionView: view)   // keep `source`
        var snapshot = Snapshot<Album, Photo>()
        snapshot.appendSection(holidays, items: photos)
        try source.apply(snapshot, animated: false)
        // end of sample
        #expect(view.numberOfItems(inSection: 0) == 3)

        // sample: Sources/TesseraView/TesseraView.docc/FromAChangesetToAnAnimationPlan.md
        var next = snapshot
        next.insertItem(newPhoto, at: IndexPath(item: 0, section: 0))
        let plan = try source.apply(next)
        // end of sample
        let inserted = try #require(plan.elements.first { $0.itemID == "4" })
        #expect(inserted.disposition == .insert && inserted.indexPathAfter == IndexPath(item: 0, section: 0))
        #expect(inserted.from.alpha == 0 && inserted.to.alpha == 1)
        #expect(view.numberOfItems(inSection: 0) == 4)
        #expect(source.snapshot == next)
    }
}

/// The README's view sample, complete, and its interaction sample, which
/// continues it: compiled as one, in a type that declares nothing they
/// use, and run.
@Suite("README view samples")
struct ReadmeViewSamples: PrintingSamples {
    let transcript = Transcript()

    @Test("The README's view sample plans an insert; its interaction sample selects, drags, mirrors and times changes")
    func readme() throws {
        // sample: README.md
        struct Album: Identifiable, Equatable { var id: String }
        struct Photo: Identifiable, Equatable { var id: Int; var title: String }

        var snapshot = Snapshot<Album, Photo>()
        snapshot.appendSection(Album(id: "Holidays"),
                               items: [Photo(id: 1, title: "Beach"), Photo(id: 2, title: "Sunset"), Photo(id: 3, title: "Dunes")])
        var changedSnapshot = snapshot
        changedSnapshot.insertItem(Photo(id: 4, title: "Pier"), at: IndexPath(item: 0, section: 0))

        let view = CollectionView(layout: FlowLayout(), size: Size(width: 390, height: 844))
        let source = DiffableDataSource<Album, Photo>(collectionView: view)   // keep `source`
        try source.apply(snapshot, animated: false)

        let plan = try source.apply(changedSnapshot)        // diff → one batch → plan
        for element in plan.elements {
            print(element.itemID ?? "-", element.disposition, element.from.frame, "→", element.to.frame, element.view)
        }
        let midway = plan.attributes(at: 0.5)                // interpolated, along plan.timing
        // end of sample
        #expect(transcript.lines.count == plan.elements.count)
        #expect(plan.elements.first { $0.itemID == "4" }?.disposition == .insert)
        #expect(transcript.lines.contains { $0.hasPrefix("4 insert ") })
        #expect(plan.elements.filter { $0.itemID != "4" }.allSatisfy { $0.disposition == .shift })
        #expect(midway.count == plan.elements.count)
        #expect(plan.elements.firstIndex { $0.itemID == "1" }.map { midway[$0].frame.minX > plan.elements[$0].from.frame.minX } == true)
        #expect(plan.elements.firstIndex { $0.itemID == "1" }.map { midway[$0].frame.minX < plan.elements[$0].to.frame.minX } == true)

        // sample: README.md
        // Continues the sample above (view, source, snapshot, changedSnapshot).
        view.allowsMultipleSelection = true
        try source.selectItem(withID: 2)                        // by id: it follows the photo
        try view.tapItem(at: IndexPath(item: 0, section: 0))    // highlight, then select, as UIKit

        source.reorderingHandlers.canReorderItem = { _ in true }
        let target = view.collectionViewLayout.layoutAttributesForItem(at: IndexPath(item: 2, section: 0))!.center
        try view.beginInteractiveMovementForItem(at: IndexPath(item: 0, section: 0))
        let step = try view.updateInteractiveMovementTargetPosition(target)  // the others make room
        let drop = try view.endInteractiveMovement()            // the data source moves the item

        let mirrored = view.setLayoutDirection(.rightToLeft)    // every frame mirrored
        let next = try source.apply(changedSnapshot, at: 10.0)  // a change at a time on your clock
        let soon = try source.apply(snapshot, at: 10.1)         // starts where `next` has each element
        // end of sample
        // The view showed Pier, Beach, Sunset, Dunes: the tap selected Pier,
        // which the last change deletes, and so leaves the selection.
        #expect(source.selectedItemIDs.sorted() == [2])
        #expect(step.elements.first { $0.itemID == "4" }?.isSelected == true)
        #expect(source.snapshot.allItems.map(\.id) == [1, 2, 3])
        // The drag: Pier follows the pointer to Sunset's place, and is dropped there.
        let dragged = try #require(step.elements.first { $0.itemID == "4" })
        #expect(dragged.to.center == target)
        #expect(drop.elements.first { $0.itemID == "4" }?.indexPathAfter == IndexPath(item: 2, section: 0))
        // Right to left, every frame is mirrored across the 390-point-wide content.
        #expect(!mirrored.elements.isEmpty)
        for element in mirrored.elements where element.category == .cell {
            #expect(element.to.frame.minX == 390 - element.from.frame.maxX)
        }
        // `soon` starts photo 2 where `next` has it 0.1 s in.
        let index = try #require(next.elements.firstIndex { $0.itemID == "2" })
        let onScreen = next.attributes(at: (10.1 - 10.0) / next.duration)[index]
        #expect(soon.elements.first { $0.itemID == "2" }?.from.frame == onScreen.frame)
    }
}
