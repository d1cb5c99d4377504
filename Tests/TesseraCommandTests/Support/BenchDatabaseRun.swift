import Foundation
import Testing
import TesseraRender

/// `tessera bench diff --database photos.sqlite --table photo --script
/// change.sql --runs 1 --json` in `folder`, sorted by `sort` (and sectioned
/// by `section`): its report, and Tessera's row of it. It requires status 0
/// and a list of results.
func runBenchDiffOnDatabase(in folder: URL, sort: String, section: String? = nil,
                            sourceLocation: SourceLocation = #_sourceLocation) throws -> (json: JSON, tessera: JSON) {
    let result = try Tool.run(["bench", "diff", "--database", "photos.sqlite", "--table", "photo", "--sort", sort]
                              + (section.map { ["--section", $0] } ?? [])
                              + ["--script", "change.sql", "--runs", "1", "--json"], in: folder)
    try #require(result.status == 0, "stderr: \(result.stderr)", sourceLocation: sourceLocation)
    let json = try JSON.parse(result.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
    let rows: [JSON]? = if case let .array(rows)? = json["results"] { rows } else { nil }
    let tessera = try #require(rows?.first { if case let .string(name)? = $0["name"] { name.hasPrefix("Tessera") } else { false } },
                               "no Tessera result: \(result.stdout)", sourceLocation: sourceLocation)
    return (json, tessera)
}
