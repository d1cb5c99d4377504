import Foundation
import Testing
import TesseraTestTraits
import TesseraDiff
import TesseraResults
import TesseraResultsTestSupport
import TesseraSQLite

// The order of a relational controller's parents: what it follows (its own
// connection's commits, each of which re-fetches both requests) and what
// it does not (another connection's, until a refresh or its own next
// commit). The nothing-left-open oracle once took another connection's
// rename, made after the controller's refresh in the same round, for one
// the controller had seen, and reported its parents out of order.

/// A row of `item` that throws as it decodes when its title is `BOOM`.
private struct Titled: FetchableRecord, Hashable {
    var read: ReshapedRow
    var id: Int64 { read.id }

    init(row: Row) throws {
        read = try ReshapedRow(row: row)
        if row["title"].string == "BOOM" { throw RefusedTitle(id: read.id) }
    }
}

private struct RefusedTitle: Error {
    var id: Int64
}

@Suite("Relational results: the parents' order, own and other connections' renames", .ownThreads)
struct RelationalOrderTests {
    private static let parents = ParentRequest(table: "family", sortKeys: [SortKey("name")])
    private static let children = ChildRequest(table: "item", foreignKeyColumn: "fam", sortKeys: [SortKey("rank")])

    /// A WAL file with four families and eight items, and two connections
    /// on it.
    private static func makeFamilies() throws -> (Connection, Connection, URL) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tessera-order-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let path = directory.appendingPathComponent("order.sqlite").path
        let connection = try Connection(path: path)
        try connection.write { db in
            try db.execute("CREATE TABLE family (id INTEGER PRIMARY KEY, name TEXT); CREATE TABLE item (id INTEGER PRIMARY KEY, fam INTEGER, rank REAL, title TEXT)")
            for id in 0..<4 { try db.execute("INSERT INTO family VALUES (?, ?)", [.integer(Int64(id)), .text("family \(id)")]) }
            for id in 1...8 {
                try db.execute("INSERT INTO item VALUES (?, ?, ?, ?)", [.integer(Int64(id)), .integer(Int64(id % 4)), .real(Double(id)), .text("t\(id)")])
            }
        }
        return (connection, try Connection(path: path), directory)
    }

    private static func fresh(path: String) throws -> Snapshot<ReshapedRow, Titled> {
        let controller = RelationalResultsController<ReshapedRow, Titled>(connection: try Connection(path: path), parents: parents, children: children)
        try controller.performFetch()
        return controller.snapshot
    }

    @Test("Another connection's rename after a refresh is not followed until the controller's own next commit, which re-fetches both requests into a fresh fetch's order")
    func otherConnectionsRenameThenOwnCommit() throws {
        let (connection, other, directory) = try Self.makeFamilies()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("order.sqlite").path
        let relational = RelationalResultsController<ReshapedRow, Titled>(connection: connection, parents: Self.parents, children: Self.children)
        try relational.performFetch()
        try relational.refresh()
        // The oracle's round: a refresh, then the other connection renames
        // family 3 ahead of the others.
        try other.write { db in try db.execute("UPDATE family SET name = 'family ' WHERE id = 3") }
        #expect(relational.sections.map(\.id) == [0, 1, 2, 3], "another connection's commit is seen by a refresh only")
        #expect(try Self.fresh(path: path).sections.map(\.id) == [3, 0, 1, 2])
        // The controller's own commit to the child table re-fetches both.
        try connection.write { db in try db.execute("UPDATE item SET rank = 0 WHERE id = 8") }
        #expect(relational.lastError == nil)
        #expect(relational.snapshot == (try Self.fresh(path: path)))
        #expect(relational.sections.map(\.id) == [3, 0, 1, 2])
    }

    @Test("Own renames to tied names while a child fails to decode: the failure keeps the last good result, the fixing commit gives a fresh fetch's order (ties by key)")
    func renamesWhileAChildFails() throws {
        let (connection, _, directory) = try Self.makeFamilies()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("order.sqlite").path
        let relational = RelationalResultsController<ReshapedRow, Titled>(connection: connection, parents: Self.parents, children: Self.children)
        try relational.performFetch()
        try connection.write { db in try db.execute("UPDATE item SET title = 'BOOM' WHERE id = 5") }
        #expect(relational.lastError != nil)
        try connection.write { db in
            try db.execute("UPDATE family SET name = 'family 9' WHERE id = 0")
            try db.execute("UPDATE family SET name = 'family 9' WHERE id = 2")
        }
        #expect(relational.lastError != nil)
        #expect(relational.sections.map(\.id) == [0, 1, 2, 3], "a failed re-fetch keeps the last good result")
        try connection.write { db in try db.execute("UPDATE family SET name = 'family 0' WHERE id = 3") }
        try connection.write { db in try db.execute("UPDATE item SET title = 'fixed' WHERE title = 'BOOM'") }
        #expect(relational.lastError == nil)
        #expect(relational.snapshot == (try Self.fresh(path: path)))
        #expect(relational.sections.map(\.id) == [3, 1, 0, 2])
    }
}
