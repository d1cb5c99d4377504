import Foundation
import Testing
import TesseraCommandKit
import TesseraDiff
import TesseraRender
import TesseraTestTraits

/// `tessera diff` on checked-in snapshots against checked-in expected
/// output. Set `TESSERA_RECORD=1` to re-record the expected files (then
/// review the change with `git diff`).
@Suite("tessera diff, snapshot tests", .tags(.process), .ownThreads)
struct DiffSnapshotTests {
    static let folder = Tool.fixtures.appendingPathComponent("diff")

    static let cases: [(name: String, arguments: [String])] = [
        ("photos", ["photos-old.json", "photos-new.json"]),
        ("photos-staged", ["photos-old.json", "photos-new.json", "--staged"]),
        ("photos-delete-insert", ["photos-old.json", "photos-new.json", "--policy", "delete-insert"]),
        ("photos-list-layout", ["photos-old.json", "photos-new.json", "--layout", "list", "--width", "320", "--height", "400"]),
        ("photos-flow-json", ["photos-old.json", "photos-new.json", "--layout", "flow", "--json"]),
        ("flat-staged-column", ["flat-old.json", "flat-new.json", "--staged", "--layout", "column"]),
        ("flat-json", ["flat-old.json", "flat-new.json", "--json"]),
    ]

    @Test("diff output matches the recorded output", arguments: cases.map(\.name))
    func matchesRecordedOutput(name: String) throws {
        let arguments = try #require(Self.cases.first { $0.name == name }).arguments
        let result = try Tool.run(["diff"] + arguments, in: Self.folder)
        #expect(result.status == 0, "stderr: \(result.stderr)")
        #expect(result.stderr.isEmpty)
        let expectedFile = Self.folder.appendingPathComponent("expected/\(name).txt")
        if ProcessInfo.processInfo.environment["TESSERA_RECORD"] == "1" {
            try FileManager.default.createDirectory(at: expectedFile.deletingLastPathComponent(), withIntermediateDirectories: true)
            try result.stdout.write(to: expectedFile, atomically: true, encoding: .utf8)
            return
        }
        let expected = try String(contentsOf: expectedFile, encoding: .utf8)
        #expect(result.stdout == expected, "tessera diff \(arguments.joined(separator: " ")) changed; re-record with TESSERA_RECORD=1 if intended")
    }

    @Test("the changeset diff prints replays the old snapshot into the new one")
    func changesetReplays() throws {
        for (old, new) in [("photos-old.json", "photos-new.json"), ("flat-old.json", "flat-new.json")] {
            let result = try Tool.run(["diff", old, new, "--json"], in: Self.folder)
            try #require(result.status == 0, "stderr: \(result.stderr)")
            let json = try JSON.parse(result.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
            let changeset = try JSONDecoder().decode(Changeset.self, from: Data(try #require(json["changeset"]).compactText.utf8))
            let batch = try JSONDecoder().decode(BatchUpdate.self, from: Data(try #require(json["batch"]).compactText.utf8))
            let before = try SnapshotDocument.load(path: Self.folder.appendingPathComponent(old).path)
            let after = try SnapshotDocument.load(path: Self.folder.appendingPathComponent(new).path)
            #expect(changeset == (try diff(from: before, to: after)))
            let replayed = try before.applying(batch, takingValuesFrom: after)
            #expect(replayed.sections == after.sections)
            #expect(replayed.allItems == after.allItems)
            #expect(replayed.itemCounts == after.itemCounts)
        }
    }
}
