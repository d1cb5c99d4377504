import TesseraSQLite

/// The table the "Mounting a live list" sample serves, made in a file of
/// its own (the sample's template imports only what the sample does).
enum LiveListSampleTable {
    /// Creates `photo` with one row at `path`.
    static func create(at path: String) throws {
        let connection = try Connection(path: path)
        try connection.write { db in
            try db.execute("CREATE TABLE photo (id INTEGER PRIMARY KEY, album TEXT, title TEXT, position INTEGER)")
            try db.execute("INSERT INTO photo (album, title, position) VALUES ('Alps', 'Peak', 0)")
        }
    }

    /// Renames the sort column, so that the sample's columns no longer fit.
    static func renamePosition(at path: String) throws {
        try Connection(path: path).write { db in try db.execute("ALTER TABLE photo RENAME COLUMN position TO rank") }
    }
}
