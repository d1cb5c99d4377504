import Testing
import TesseraSQLite
import TesseraTestTraits

@Suite("SQLite: a script run statement by statement", .cpuBound)
struct DatabaseStatementsTests {
    /// The text of each place in the script.
    func texts(_ places: [Range<Int>], in script: String) -> [String] {
        let bytes = Array(script.utf8)
        return places.map { String(decoding: bytes[$0], as: UTF8.self) }
    }

    @Test("each statement runs before the next is prepared, and is reported with its place, the white space, comments and empty statements before it included")
    func statementsRunInOrderWithTheirPlaces() throws {
        let connection = try Connection(path: ":memory:")
        let script = "CREATE TABLE t (x);\n-- fill it\nINSERT INTO t VALUES (1); ;  INSERT INTO t SELECT x + 1 FROM t;\n/* last */ SELECT * FROM t"
        var places: [Range<Int>] = []
        try connection.withDatabase { db throws(ScriptStatementError) in
            try db.executeStatements(of: script) { place in
                places.append(place)
                return true
            }
        }
        #expect(texts(places, in: script) == [
            "CREATE TABLE t (x);", "\n-- fill it\nINSERT INTO t VALUES (1);", " ;  INSERT INTO t SELECT x + 1 FROM t;", "\n/* last */ SELECT * FROM t",
        ])
        #expect(try connection.withDatabase { db throws(SQLiteError) in try db.rows("SELECT x FROM t ORDER BY x") } == [[.integer(1)], [.integer(2)]])
    }

    @Test("a statement that fails names its place and SQLite's message; the ones before it ran, the ones after it did not; false from didRun stops the script")
    func failuresAndStops() throws {
        let connection = try Connection(path: ":memory:")
        let script = "CREATE TABLE t (x UNIQUE); INSERT INTO t VALUES (1);\nINSERT INTO t VALUES (1);\nINSERT INTO t VALUES (2);"
        var count = 0
        let error = #expect(throws: ScriptStatementError.self) {
            try connection.withDatabase { db throws(ScriptStatementError) in
                try db.executeStatements(of: script) { _ in
                    count += 1
                    return true
                }
            }
        }
        #expect(count == 2)
        #expect(error?.error.message == "UNIQUE constraint failed: t.x")
        #expect(error.map { texts([$0.bytes], in: script) } == ["\nINSERT INTO t VALUES (1);"])
        #expect(try connection.withDatabase { db throws(SQLiteError) in try db.rows("SELECT x FROM t") } == [[.integer(1)]])

        let syntax = "DELETE FROM t; UPDATE t SETT x = 1; DELETE FROM t"
        let refused = #expect(throws: ScriptStatementError.self) {
            try connection.withDatabase { db throws(ScriptStatementError) in try db.executeStatements(of: syntax) { _ in true } }
        }
        #expect(refused?.error.message == "near \"SETT\": syntax error")
        #expect(refused.map { texts([$0.bytes], in: syntax) } == [" UPDATE t SETT x = 1; DELETE FROM t"])

        try connection.withDatabase { db throws(SQLiteError) in try db.execute("INSERT INTO t VALUES (5)") }
        var ran = 0
        try connection.withDatabase { db throws(ScriptStatementError) in
            try db.executeStatements(of: "DELETE FROM t WHERE x = 5; DELETE FROM t") { _ in
                ran += 1
                return false
            }
        }
        #expect(ran == 1)
        #expect(try connection.withDatabase { db throws(SQLiteError) in try db.rows("SELECT count(*) FROM t") } == [[.integer(0)]])
    }
}
