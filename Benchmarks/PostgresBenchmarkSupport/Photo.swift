import TesseraResults

/// A row of the benchmarks' `photo(id, album, rank, title)` table.
public struct Photo: FetchableRecord, Hashable {
    public var id: Int64
    public var album: Int64
    public var rank: Int64
    public var title: String

    public init(row: Row) throws {
        id = row["id"].int64 ?? -1
        album = row["album"].int64 ?? -1
        rank = row["rank"].int64 ?? -1
        title = row["title"].string ?? ""
    }
}

/// The list both PostgreSQL benchmarks follow: by album, then rank, in
/// sections by album.
public let photoRequest = FetchRequest(table: "photo", sortKeys: [SortKey("album"), SortKey("rank")], sectionKey: "album")
