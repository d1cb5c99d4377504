import Foundation
import Testing
import TesseraDiff

/// The examples of README.md and the DocC articles, run as written, so the
/// documentation stays true.
@Suite("Documentation examples")
struct DocumentationExampleTests {
    struct Photo: Identifiable, Equatable {
        var id: Int
        var title: String
    }

    struct Album: Identifiable, Equatable {
        var id: String
    }

    static let before = [Photo(id: 1, title: "Beach"), Photo(id: 2, title: "Sunset"), Photo(id: 3, title: "Dunes")]
    static let after = [Photo(id: 3, title: "Dunes"), Photo(id: 1, title: "Beach!"), Photo(id: 4, title: "Pier")]

    @Test("The flat example reports one delete, one insert, one move and one update")
    func flatExample() throws {
        let changes = try diff(from: Self.before, to: Self.after)
        #expect(changes.deletes == [1])
        #expect(changes.inserts == [2])
        #expect(changes.moves == [Move(from: 2, to: 0)])
        #expect(changes.updates == [Move(from: 0, to: 1)])
    }

    @Test("The sectioned example reports a move across sections, and its batch validates")
    func sectionedExample() throws {
        var old = Snapshot<Album, Photo>()
        old.appendSection(Album(id: "Holidays"), items: Self.before)
        old.appendSection(Album(id: "Family"), items: [])
        var new = old
        let dunes = new.removeItem(at: IndexPath(item: 2, section: 0))
        new.insertItem(dunes, at: IndexPath(item: 0, section: 1))

        let changeset = try diff(from: old, to: new)
        #expect(changeset == Changeset(itemMoves: [Move(from: IndexPath(item: 2, section: 0), to: IndexPath(item: 0, section: 1))]))

        let batch = BatchUpdate(changeset, policy: .moveThenReload)
        #expect(batch.batches == [[.moveItem(from: IndexPath(item: 2, section: 0), to: IndexPath(item: 0, section: 1))]])
        try BatchValidator.validate(batch.items, itemCountsBefore: old.itemCounts, itemCountsAfter: new.itemCounts)
        #expect(try old.applying(changeset, takingValuesFrom: new) == new)
    }
}
