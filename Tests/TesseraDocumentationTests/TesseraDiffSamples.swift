import Testing
import TesseraDiff

/// The TesseraDiff samples of README.md and the "Getting started with
/// TesseraDiff" article, compiled with the import they state and run.
@Suite("TesseraDiff samples")
struct TesseraDiffSamples: PrintingSamples {
    let transcript = Transcript()

    @Test("The README's flat and sectioned samples report what their comments say")
    func readme() throws {
        // sample: README.md
        struct Photo: Identifiable, Equatable {
            var id: Int
            var title: String
        }

        let before = [Photo(id: 1, title: "Beach"), Photo(id: 2, title: "Sunset"), Photo(id: 3, title: "Dunes")]
        let after = [Photo(id: 3, title: "Dunes"), Photo(id: 1, title: "Beach!"), Photo(id: 4, title: "Pier")]

        let changes = try diff(from: before, to: after)
        // changes.deletes == [1]                      Sunset (old offset)
        // changes.inserts == [2]                      Pier (new offset)
        // changes.moves   == [Move(from: 2, to: 0)]   Dunes; Beach only slid, which is not a move
        // changes.updates == [Move(from: 0, to: 1)]   Beach's title changed
        // end of sample
        #expect(changes.deletes == [1])
        #expect(changes.inserts == [2])
        #expect(changes.moves == [Move(from: 2, to: 0)])
        #expect(changes.updates == [Move(from: 0, to: 1)])

        // sample: README.md
        // Continues the flat list above (Photo, before).
        struct Album: Identifiable, Equatable { var id: String }

        var old = Snapshot<Album, Photo>()
        old.appendSection(Album(id: "Holidays"), items: before)
        old.appendSection(Album(id: "Family"), items: [])

        var new = old
        let dunes = new.removeItem(at: IndexPath(item: 2, section: 0))
        new.insertItem(dunes, at: IndexPath(item: 0, section: 1))

        let changeset = try diff(from: old, to: new)
        // changeset.itemMoves == [Move(from: [0, 2], to: [1, 0])]: a move across sections

        let batch = BatchUpdate(changeset, policy: .moveThenReload)
        try BatchValidator.validate(batch.items,
                                    itemCountsBefore: old.itemCounts,
                                    itemCountsAfter: new.itemCounts)
        for items in batch.batches {
            print(items)   // perform `items` as one batch update, then the next
        }
        // end of sample
        #expect(changeset == Changeset(itemMoves: [Move(from: [0, 2], to: [1, 0])]))
        #expect(batch.batches == [[.moveItem(from: [0, 2], to: [1, 0])]])
        #expect(transcript.lines == ["\(batch.batches[0])"])
        #expect(try old.applying(changeset, takingValuesFrom: new) == new)
    }

    @Test("The getting-started article's samples report what it says, and its batch validates")
    func gettingStarted() throws {
        // sample: Sources/TesseraDiff/TesseraDiff.docc/GettingStarted.md
        struct Photo: Identifiable, Equatable {
            var id: Int
            var title: String
        }

        let before = [Photo(id: 1, title: "Beach"), Photo(id: 2, title: "Sunset"), Photo(id: 3, title: "Dunes")]
        let after = [Photo(id: 3, title: "Dunes"), Photo(id: 1, title: "Beach!"), Photo(id: 4, title: "Pier")]

        let changes = try diff(from: before, to: after)
        // changes.deletes == [1]              Sunset, at its old offset
        // changes.inserts == [2]              Pier, at its new offset
        // changes.moves   == [Move(from: 2, to: 0)]   Dunes
        // changes.updates == [Move(from: 0, to: 1)]   Beach changed its title
        // end of sample
        #expect(changes == ListChangeset(deletes: [1], inserts: [2], moves: [Move(from: 2, to: 0)], updates: [Move(from: 0, to: 1)]))

        // sample: Sources/TesseraDiff/TesseraDiff.docc/GettingStarted.md
        struct Album: Identifiable, Equatable { var id: String }

        var old = Snapshot<Album, Photo>()
        old.appendSection(Album(id: "Holidays"), items: before)
        old.appendSection(Album(id: "Family"), items: [])

        var new = old
        let dunes = new.removeItem(at: IndexPath(item: 2, section: 0))
        new.insertItem(dunes, at: IndexPath(item: 0, section: 1))

        let changeset = try diff(from: old, to: new)
        // changeset.itemMoves == [Move(from: [0, 2], to: [1, 0])]
        // end of sample
        #expect(changeset.itemMoves == [Move(from: [0, 2], to: [1, 0])])

        // sample: Sources/TesseraDiff/TesseraDiff.docc/GettingStarted.md
        let batch = BatchUpdate(changeset, policy: .moveThenReload)
        for items in batch.batches {
            print(items)   // hand `items` to the collection view, one batch after the other
        }
        // end of sample
        #expect(transcript.lines == ["[\(UpdateItem.moveItem(from: [0, 2], to: [1, 0]))]"])

        // sample: Sources/TesseraDiff/TesseraDiff.docc/GettingStarted.md
        do {
            try BatchValidator.validate(batch.items,
                                        itemCountsBefore: old.itemCounts,
                                        itemCountsAfter: new.itemCounts)
        } catch {
            print(error)
            // Invalid update: invalid number of items in section 0. The number of
            // items contained in an existing section after the update (3) must be …
        }
        // end of sample
        #expect(transcript.lines.count == 1, "the batch is valid: nothing more is printed")
        // An empty batch for the same change is invalid, with the message the
        // sample's comment shows.
        let error = try #require(throws: BatchValidationError.self) {
            try BatchValidator.validate([], itemCountsBefore: old.itemCounts, itemCountsAfter: new.itemCounts)
        }
        #expect("\(error)".hasPrefix("Invalid update: invalid number of items in section 0. The number of items contained in an existing section after the update (2) must be"))
    }
}
