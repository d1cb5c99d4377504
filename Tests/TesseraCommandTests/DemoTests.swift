import Foundation
import TesseraSQLite
import TesseraTestTraits
import Testing

@Suite("tessera demo, end to end", .tags(.process), .ownThreads)
struct DemoTests {
    /// The transactions of the demo's script, with the changeset each must
    /// report (nil: rolled back, no report).
    static let script: [(title: String, counts: String?)] = [
        ("add 6 new photos to Amsterdam",
         "sections: 0 deleted, 0 inserted, 0 moved, 0 updated; items: 0 deleted, 6 inserted, 0 moved, 0 updated"),
        ("delete 3 photos of Amsterdam",
         "sections: 0 deleted, 0 inserted, 0 moved, 0 updated; items: 3 deleted, 0 inserted, 0 moved, 0 updated"),
        ("retitle 2 photos (same place, new content)",
         "sections: 0 deleted, 0 inserted, 0 moved, 0 updated; items: 0 deleted, 0 inserted, 0 moved, 2 updated"),
        ("re-date 3 photos so they re-sort within Amsterdam",
         "sections: 0 deleted, 0 inserted, 0 moved, 0 updated; items: 0 deleted, 0 inserted, 3 moved, 3 updated"),
        ("rename the album Zanzibar to Aachen, so it re-sorts to the top",
         "sections: 1 deleted, 1 inserted, 0 moved, 0 updated; items: 0 deleted, 0 inserted, 0 moved, 0 updated"),
        ("move 4 photos from Aachen to Amsterdam",
         "sections: 0 deleted, 0 inserted, 0 moved, 0 updated; items: 0 deleted, 0 inserted, 4 moved, 4 updated"),
        ("add the album \"A weekend away\" with 5 photos, sorted first",
         "sections: 0 deleted, 1 inserted, 0 moved, 0 updated; items: 0 deleted, 0 inserted, 0 moved, 0 updated"),
        ("delete every photo of Amsterdam, then roll back", nil),
        ("delete the album \"A weekend away\"",
         "sections: 1 deleted, 0 inserted, 0 moved, 0 updated; items: 0 deleted, 0 inserted, 0 moved, 0 updated"),
    ]

    /// The output's blocks, one per transaction, keyed by title line.
    static func blocks(of output: String) -> [(title: String, body: String)] {
        var blocks: [(title: String, body: String)] = []
        for line in output.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
            if line.hasPrefix("Transaction ") {
                blocks.append((line, ""))
            } else if !blocks.isEmpty, !line.isEmpty, line.hasPrefix("  ") {
                blocks[blocks.count - 1].body += line + "\n"
            }
        }
        return blocks
    }

    @Test("`tessera` with no arguments runs the demo: one report per commit, none for the rollback, and the page")
    func demoRunsByDefault() throws {
        let folder = try Tool.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let result = try Tool.run([], in: folder)
        #expect(result.status == 0, "stderr: \(result.stderr)")
        #expect(result.stderr.isEmpty)
        #expect(result.stdout.contains("seeded with 10000 photos in 40 albums"))
        #expect(result.stdout.contains("40 sections, 10000 photos"))

        let blocks = Self.blocks(of: result.stdout)
        try #require(blocks.count == Self.script.count, "blocks: \(blocks.map(\.title))")
        for (n, (block, expected)) in zip(blocks, Self.script).enumerated() {
            #expect(block.title == "Transaction \(n + 1): \(expected.title)")
            if let counts = expected.counts {
                #expect(block.body.contains("  changeset: \(counts)\n"), "\(block.title):\n\(block.body)")
                #expect(block.body.contains("  update items"), "\(block.title)")
                #expect(block.body.contains("  animation plan: "), "\(block.title)")
            } else {
                #expect(!block.body.contains("changeset:"), "the rolled-back transaction printed a report:\n\(block.body)")
                #expect(!block.body.contains("animation plan"))
                #expect(block.body.contains("rolled back: the controller reported nothing"))
            }
        }
        #expect(result.stdout.contains("8 commits, 8 reports; the rolled-back transaction reported nothing"))

        // The first report: 6 insert update items, and 6 inserted photos
        // among the plan's visible elements.
        let first = blocks[0].body
        #expect(first.components(separatedBy: "\n    insert → [section 0, item ").count - 1 == 6)
        #expect(first.components(separatedBy: "\n    insert    ").count - 1 == 6)
        #expect(first.contains("(6 insert, "))

        let page = folder.appendingPathComponent("tessera-demo.html")
        let expectedPath = page.standardizedFileURL.path
        #expect(result.stdout.contains("wrote \(expectedPath)") || result.stdout.contains("wrote /private\(expectedPath)"))
        let html = try String(contentsOf: page, encoding: .utf8)
        for (n, step) in Self.script.enumerated() where step.counts != nil {
            #expect(html.contains("Transaction \(n + 1): "), "page lacks transaction \(n + 1)")
        }
        // The rolled-back transaction has no plan, and the page says so.
        let plans = html.components(separatedBy: "const PLANS = ").dropFirst().first?.prefix { $0 != "\n" } ?? ""
        #expect(plans.contains("Transaction 7: ") && !plans.contains("Transaction 8: "), "the page has a plan for the rolled-back transaction")
        #expect(html.contains("<li>Transaction 8: delete every photo of Amsterdam, then roll back: rolled back, so the controller reported nothing and the list has no plan for it</li>"))
        #expect(!html.contains("http://") && !html.contains("https://") && !html.contains("<link") && !html.contains("src="),
                "the page must be self-contained")
    }

    @Test("the demo's options work without naming it: `tessera --database path --photos N` seeds that file")
    func demoOptionsWithoutTheSubcommand() throws {
        let folder = try Tool.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let database = folder.appendingPathComponent("elsewhere.sqlite").path
        let result = try Tool.run(["--database", database, "--photos", "2000"], in: folder)
        #expect(result.status == 0, "stderr: \(result.stderr)")
        #expect(result.stdout.contains("database: \(database) (created, seeded with 2000 photos"))
        #expect(FileManager.default.fileExists(atPath: database))
    }

    @Test("on a terminal, seeding shows its progress on standard error; the report is unchanged")
    func seedingProgressOnATerminal() throws {
        let folder = try Tool.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let result = try Tool.runOnTerminal(
            ["demo", "--photos", "2000", "--database", folder.appendingPathComponent("photos.sqlite").path,
             "--html", folder.appendingPathComponent("page.html").path],
            in: folder
        )
        #expect(result.status == 0)
        let output = result.stdout
        #expect(output.hasPrefix("Tessera demo\n"))
        #expect(output.contains("seeded with 2000 photos"))
        let progress = result.stderr
        #expect(progress.contains("seeding photos"), "standard error: \(progress.debugDescription)")
        #expect(progress.contains("100%"), "standard error: \(progress.debugDescription)")
    }
}
