import Foundation
import Testing
import TesseraResults
import TesseraResultsCore
import TesseraResultsTestSupport
import TesseraSQLite
import TesseraTestSupport
import TesseraTestTraits

/// Names that SQLite keeps apart and Swift's `String` takes as one: a
/// letter and its capital outside ASCII (`é`, `É`), and the two spellings
/// of an accented letter (precomposed `é`, or `e` and a combining accent).
@Suite("Names SQLite keeps apart: non-ASCII capitals and the two spellings of an accented letter", .cpuBound)
struct SQLiteNameTests {
    /// `café` spelt with the combining accent (U+0301).
    static let decomposed = "cafe\u{301}"
    /// `café` spelt with the precomposed letter (U+00E9).
    static let precomposed = "caf\u{E9}"

    @Test("sqliteNamesEqual folds ASCII's capitals only, and compares bytes")
    func namesEqual() {
        #expect(sqliteNamesEqual("Title", "tITLE"))
        #expect(sqliteNamesEqual("_x9", "_X9"))
        #expect(!sqliteNamesEqual("\u{C9}", "\u{E9}"))   // É, é
        #expect(!sqliteNamesEqual(Self.decomposed, Self.precomposed))
        #expect(Self.decomposed == Self.precomposed)    // what Swift says
        #expect(!sqliteNamesEqual("a", "ab") && !sqliteNamesEqual("@", "`"))   // 0x40 | 0x20 is 0x60: no letters
        #expect(sqliteName("SQLite_master", hasPrefix: "sqlite_"))
        #expect(!sqliteName("sqlite\u{301}_x", hasPrefix: "sqlite_"))
        #expect(!sqliteName("sql", hasPrefix: "sqlite_"))
        // A row's column by name: the one of those very bytes.
        let row = Row(columnNames: [Self.decomposed, Self.precomposed, "\u{C9}"], values: [.integer(1), .integer(2), .integer(3)])
        #expect(row[Self.precomposed] == .integer(2) && row[Self.decomposed] == .integer(1))
        #expect(row["\u{E9}"] == .null && row["\u{C9}"] == .integer(3))
    }

    /// Every record the controller holds, in order, with all its columns.
    static func rendered(_ controller: FetchedResultsController<ReshapedRow>) -> [String] {
        (0..<controller.numberOfSections).flatMap { section in
            (0..<controller.numberOfObjects(inSection: section)).map { row in
                controller.object(at: IndexPath(item: row, section: section)).description
            }
        }
    }

    enum Writer: String, CaseIterable, CustomTestStringConvertible {
        /// Another connection, followed through the change log.
        case otherConnection
        /// The controller's own connection, followed through its hooks.
        case ownConnection
        var testDescription: String { rawValue }
    }

    @Test("A table with columns é and É, and café spelt both ways: a controller keyed by é, sorted by the precomposed café, patches each commit from the right columns and equals a fresh fetch", arguments: Writer.allCases)
    func columnsSwiftTakesAsOne(writer: Writer) throws {
        let seed = testSeed(default: 0xCAFE)
        print("SQLiteNameTests.columnsSwiftTakesAsOne(\(writer)) seed \(seed) (TESSERA_SEED to replay)")
        var generator = SplitMix64(seed: seed)
        // Each twin column comes first, where a search by Swift's names
        // finds it before the one the request names.
        let made = try makeSharedDatabase([
            "CREATE TABLE photo (\"\(Self.decomposed)\" INTEGER, \"\u{C9}\" INTEGER, \"\u{E9}\" INTEGER PRIMARY KEY, \"\(Self.precomposed)\" INTEGER, title TEXT)",
            "WITH RECURSIVE n(value) AS (SELECT 1 UNION ALL SELECT value + 1 FROM n WHERE value < 40) INSERT INTO photo SELECT -value, 1000 - value, value, value % 7, 'photo ' || value FROM n",
        ])
        try made.other.installChangeLog(on: "photo", columns: [Self.precomposed])
        let request = FetchRequest(table: "photo", keyColumn: "\u{E9}", sortKeys: [SortKey("\"\(Self.precomposed)\"")])
        let controller = try FetchedResultsController<ReshapedRow>(connection: made.connection, request: request)
        controller.incrementalThreshold = .infinity
        try controller.performFetch()
        let patches = controller.supportsIncrementalUpdates
        #expect(patches, "the request got no patch plan")
        let connection = writer == .otherConnection ? made.other : made.connection
        var next: Int64 = 41
        for round in 0..<30 {
            let id = Int64.random(in: 1..<next, using: &generator)
            let statement: String
            switch Int.random(in: 0..<4, using: &generator) {
            case 0:
                statement = "INSERT INTO photo VALUES (\(-next), \(1000 - next), \(next), \(Int.random(in: 0..<7, using: &generator)), 'new \(next)')"
                next += 1
            case 1:
                statement = "DELETE FROM photo WHERE \"\u{E9}\" = \(id)"
            default:
                // The twins change too, to values that sort elsewhere.
                let value = Int.random(in: 0..<7, using: &generator)
                statement = "UPDATE photo SET \"\(Self.precomposed)\" = \(value), \"\(Self.decomposed)\" = \(Int.random(in: -99...99, using: &generator)), \"\u{C9}\" = \(Int.random(in: 0...2000, using: &generator)) WHERE \"\u{E9}\" = \(id)"
            }
            try connection.write { db in try db.execute(statement) }
            try controller.checkForExternalChanges()
            let fresh = try FetchedResultsController<ReshapedRow>(connection: made.other, request: request)
            try fresh.performFetch()
            let held = Self.rendered(controller)
            let expected = Self.rendered(fresh)
            #expect(held == expected, "round \(round): \(statement)")
            let method = controller.lastUpdateMethod
            #expect(method == .incremental, "round \(round): \(statement)")
        }
    }
}
