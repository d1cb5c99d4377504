import Testing
import TesseraPostgres

/// The "Following PostgreSQL" article's sample, compiled; it connects when
/// a server is given (`TESSERA_POSTGRES_URL`, which `.ci/run` sets).
enum FollowingPostgreSQLSample {
    // sample: Sources/TesseraPostgres/TesseraPostgres.docc/FollowingPostgreSQL.md
    struct Photo: FetchableRecord {
        var id: Int64, album: Int64, title: String
        init(row: Row) throws {
            id = row["id"].int64 ?? -1
            album = row["album"].int64 ?? -1
            title = row["title"].string ?? ""
        }
    }

    actor PhotoList {
        let store: PostgresStore
        private(set) var reportCount = 0

        init(url: String) throws {
            store = try PostgresStore(url: url)
        }

        /// Fetches here, in an actor method: the reports come to this actor,
        /// whoever commits and wherever.
        func follow() async throws {
            let controller = try FetchedResultsController<Photo>(
                store: store,
                request: FetchRequest(table: "photo", sortKeys: [SortKey("album"), SortKey("title", collation: .binary)], sectionKey: "album")
            )
            try controller.performFetch()
            for await _ in controller.reports { reportCount += 1 }
        }
    }
    // end of sample
}

@Suite("Following PostgreSQL: the article's sample")
struct FollowingPostgreSQLSampleTests {
    @Test("The sample's store connects to the server the tests are given")
    func connects() async throws {
        guard let url = PostgresServerVariable.url else { return }
        let list = try FollowingPostgreSQLSample.PhotoList(url: url)
        #expect(list.store.source.contains("@"))
        #expect(await list.reportCount == 0)
        list.store.close()
    }
}

/// The README's sample, compiled (it names a server of its own).
enum ReadmePostgresSample {
    typealias Photo = FollowingPostgreSQLSample.Photo

    static func open() throws -> FetchedResultsController<Photo> {
        // sample: README.md
        // Continues the results sample above (Photo).
        let store = try PostgresStore(url: "postgres://app@127.0.0.1:5432/photos")
        let controller = try FetchedResultsController<Photo>(
            store: store,
            request: FetchRequest(table: "photo", sortKeys: [SortKey("album"), SortKey("title", collation: .binary)], sectionKey: "album")
        )
        try controller.performFetch()
        // end of sample
        return controller
    }
}
