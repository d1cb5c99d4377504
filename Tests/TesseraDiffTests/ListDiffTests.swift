import Testing
import TesseraDiff
import TesseraTestSupport

@Suite("Flat diff")
struct ListDiffTests {
    @Test("ABCD → BCDA is one move")
    func rotationIsOneMove() throws {
        let old = [1, 2, 3, 4].map { TestItem(id: $0) }
        let new = [2, 3, 4, 1].map { TestItem(id: $0) }
        let changes = try diff(from: old, to: new)
        #expect(changes == ListChangeset(moves: [Move(from: 0, to: 3)]))
    }
}
