import TesseraResults
import TesseraSQLite

// Records that the controller tests (TesseraResultsTests) and the SQLite
// tests (TesseraSQLiteTests) both read.

/// A row of `photo(id, album, date, title, …)` whose album is text.
public struct Photo: FetchableRecord {
    public var id: Int64
    public var album: String?
    public var date: Int64
    public var title: String

    public init(row: Row) throws {
        id = row["id"].int64 ?? -1
        album = row["album"].string
        date = row["date"].int64 ?? 0
        title = row["title"].string ?? ""
    }
}

/// A row of `album(id, name, …)`.
public struct Album: FetchableRecord {
    public var id: Int64
    public var name: String

    public init(row: Row) throws {
        id = row["id"].int64 ?? -1
        name = row["name"].string ?? ""
    }

    public init(id: Int64, name: String) {
        self.id = id
        self.name = name
    }
}

/// A row of `photo(id, album_id, date, title, …)`, the child of an
/// ``Album``.
public struct AlbumPhoto: FetchableRecord {
    public var id: Int64
    public var albumID: Int64?
    public var date: Int64
    public var title: String

    public init(row: Row) throws {
        id = row["id"].int64 ?? -1
        albumID = row["album_id"].int64
        date = row["date"].int64 ?? 0
        title = row["title"].string ?? ""
    }

    /// A record from the values of `SELECT id, album_id, date, title`.
    public init(values: [DatabaseValue]) {
        id = values[0].int64 ?? -1
        albumID = values[1].int64
        date = values[2].int64 ?? 0
        title = values[3].string ?? ""
    }
}

/// A row of `photo(id, album, date, title)` whose album is a number.
public struct Shot: FetchableRecord, Hashable {
    public var id: Int64
    public var album: Int64
    public var date: Int64

    public init(row: Row) throws {
        id = row["id"].int64 ?? -1
        album = row["album"].int64 ?? -1
        date = row["date"].int64 ?? -1
    }
}

/// A row keeping every column it was read with, names and values: a record
/// read before a column was added or dropped (or one of another name added
/// in its place) differs from a fresh one. The schema-change oracles of
/// both stores read with it.
public struct ReshapedRow: FetchableRecord, Hashable, CustomStringConvertible {
    public var id: Int64
    public var columns: [String]
    public var values: [DatabaseValue]

    public init(row: Row) throws {
        id = row["id"].int64 ?? -1
        columns = row.columnNames
        values = row.values
    }

    public init(columns: [String], values: [DatabaseValue]) {
        self.columns = columns
        self.values = values
        id = columns.firstIndex(of: "id").flatMap { values[$0].int64 } ?? -1
    }

    public var description: String {
        "{" + zip(columns, values).map { "\($0)=\($1)" }.joined(separator: " ") + "}"
    }

    public subscript(_ column: String) -> DatabaseValue {
        columns.firstIndex(of: column).map { values[$0] } ?? .null
    }
}

/// A row of `photo(id, title, taken)`, its title and date as stored: the
/// merged-commit oracles of both stores read with it.
public struct TitledPhoto: FetchableRecord, Hashable {
    public var id: Int64
    public var title: DatabaseValue
    public var taken: DatabaseValue

    public init(row: Row) throws {
        id = row["id"].int64 ?? -1
        title = row["title"]
        taken = row["taken"]
    }

    /// A record from the values of `SELECT id, title, taken`.
    public init(values: [DatabaseValue]) {
        id = values[0].int64 ?? -1
        title = values[1]
        taken = values[2]
    }
}
