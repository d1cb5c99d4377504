import Testing
import Tessera

/// The samples of the "Selecting and highlighting items" article, compiled
/// with `import Tessera` and run in order, as one story.
@Suite("Selection samples")
struct SelectionSamples: PrintingSamples {
    let transcript = Transcript()

    struct Album: Identifiable, Equatable {
        var id: String
    }

    struct Photo: Identifiable, Equatable {
        var id: Int
        var title: String
    }

    @Test("The article's samples select in code, tap with a delegate, follow a move and a delete, select by id and catch an error")
    func article() throws {
        let holidays = Album(id: "Holidays")
        let photos = [Photo(id: 1, title: "Beach"), Photo(id: 2, title: "Sunset"), Photo(id: 3, title: "Dunes")]

        // sample: Sources/TesseraView/TesseraView.docc/Selection.md
        let view = CollectionView(layout: FlowLayout(), size: Size(width: 390, height: 844))
        let source = DiffableDataSource<Album, Photo>(collectionView: view)   // keep `source`
        var snapshot = Snapshot<Album, Photo>()
        snapshot.appendSection(holidays, items: photos)
        try source.apply(snapshot, animated: false)

        view.allowsMultipleSelection = true
        try view.selectItem(at: IndexPath(item: 0, section: 0))
        try view.selectItem(at: IndexPath(item: 2, section: 0))
        // view.indexPathsForSelectedItems == [[0, 0], [0, 2]]
        // end of sample
        #expect(view.indexPathsForSelectedItems == [IndexPath(item: 0, section: 0), IndexPath(item: 2, section: 0)])

        // sample: Sources/TesseraView/TesseraView.docc/Selection.md
        final class Taps: CollectionViewDelegate {
            var selected: [IndexPath] = []
            func collectionView(_ collectionView: CollectionView, shouldSelectItemAt indexPath: IndexPath) -> Bool {
                indexPath.item != 1                       // the second photo cannot be selected
            }
            func collectionView(_ collectionView: CollectionView, didSelectItemAt indexPath: IndexPath) {
                selected.append(indexPath)
            }
        }
        let taps = Taps()
        view.delegate = taps                              // held weakly: keep `taps`
        try view.tapItem(at: IndexPath(item: 1, section: 0))   // refused: nothing selected
        try view.beginTouch(at: IndexPath(item: 1, section: 0))
        // view.indexPathsForHighlightedItems == [[0, 1]] while the touch lasts
        try view.endTouch(selecting: false)               // the touch slid away
        // end of sample
        #expect(taps.selected.isEmpty)
        #expect(view.indexPathsForHighlightedItems.isEmpty)
        #expect(view.indexPathsForSelectedItems == [IndexPath(item: 0, section: 0), IndexPath(item: 2, section: 0)])
        try view.beginTouch(at: IndexPath(item: 1, section: 0))
        #expect(view.indexPathsForHighlightedItems == [IndexPath(item: 1, section: 0)])
        try view.endTouch(selecting: false)

        // sample: Sources/TesseraView/TesseraView.docc/Selection.md
        var moved = snapshot
        let first = moved.removeItem(at: IndexPath(item: 0, section: 0))
        moved.insertItem(first, at: IndexPath(item: 1, section: 0))
        let plan = try source.apply(moved)
        let selectedCells = plan.elements.filter { $0.isSelected }.compactMap(\.indexPathAfter)
        // selectedCells == [[0, 1], [0, 2]]: the first photo moved, and stayed selected
        // end of sample
        #expect(selectedCells == [IndexPath(item: 1, section: 0), IndexPath(item: 2, section: 0)])

        // sample: Sources/TesseraView/TesseraView.docc/Selection.md
        try source.selectItem(withID: photos[1].id)
        var fewer = moved
        fewer.removeItem(at: IndexPath(item: 2, section: 0))   // the third photo goes
        try source.apply(fewer)
        // source.selectedItemIDs == [photos[1].id, photos[0].id], in index path order
        // end of sample
        #expect(source.selectedItemIDs == [photos[1].id, photos[0].id])

        // sample: Sources/TesseraView/TesseraView.docc/Selection.md
        do {
            try view.selectItem(at: IndexPath(item: 9, section: 0))
        } catch {
            print(error)   // a SelectionError: the index path [0, 9] names no item: section 0 has 2 items
        }
        // end of sample
        #expect(transcript.lines == ["the index path [0, 9] names no item: section 0 has 2 items"])
    }
}
