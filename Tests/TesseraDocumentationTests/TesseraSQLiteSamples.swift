import TesseraSQLite

/// The TesseraSQLite overview's sample, compiled with the import it states.
/// It is not run: it opens photos.sqlite in the current folder, which tests
/// must not write.
enum TesseraSQLiteSamples {
    static func overview() throws -> [DatabaseValue] {
        // sample: Sources/TesseraSQLite/TesseraSQLite.docc/TesseraSQLite.md
        let connection = try Connection(path: "photos.sqlite")
        try connection.write { db in
            try db.execute("CREATE TABLE IF NOT EXISTS photo (id INTEGER PRIMARY KEY, title TEXT)")
            try db.execute("INSERT INTO photo (title) VALUES (?)", ["Beach"])
        }
        let titles = try connection.read { db in
            try db.rows("SELECT title FROM photo ORDER BY id").map { $0[0] }
        }
        // end of sample
        return titles
    }
}
