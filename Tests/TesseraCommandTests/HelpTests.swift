import Foundation
import Testing
import TesseraTestTraits

/// What `tessera <subcommand> --help` promises.
@Suite("tessera help", .tags(.process), .ownThreads)
struct HelpTests {
    /// The help of a subcommand, its lines joined and spaces collapsed.
    func help(_ subcommand: [String]) throws -> String {
        let result = try Tool.run(subcommand + ["--help"])
        #expect(result.status == 0, "\(result.stderr)")
        return result.stdout.split(whereSeparator: \.isWhitespace).joined(separator: " ")
    }

    @Test("every enum-valued option lists its values, and a default it shows is one of them",
          arguments: [
            (["diff"], "--policy", ["delete-insert", "move-then-reload"], "move-then-reload"),
            (["diff"], "--layout", ["flow", "list", "column"], nil),
            (["watch"], "--layout", ["flow", "list", "column"], nil),
            (["bench", "diff"], "--ids", ["int", "uuid"], "int"),
          ] as [([String], String, [String], String?)])
    func enumValues(subcommand: [String], option: String, values: [String], defaultValue: String?) throws {
        let text = try help(subcommand)
        let listed = "(values: " + values.joined(separator: ", ") + (defaultValue.map { "; default: \($0))" } ?? ")")
        let entry = try #require(text.range(of: "\(option) <"), "\(option) missing from the help")
        #expect(text[entry.lowerBound...].contains(listed), "\(option): expected \(listed) in \(text[entry.lowerBound...].prefix(300))")
    }

    @Test("the policy's spellings in the output are accepted too")
    func policyNamesFromTheOutput() throws {
        let folder = Tool.fixtures.appendingPathComponent("diff")
        let kebab = try Tool.run(["diff", "photos-old.json", "photos-new.json", "--policy", "delete-insert"], in: folder)
        let camel = try Tool.run(["diff", "photos-old.json", "photos-new.json", "--policy", "deleteAndInsert"], in: folder)
        #expect(kebab.status == 0 && camel.status == 0)
        #expect(camel.stdout == kebab.stdout)
    }

    @Test("demo's help states how many photos it seeds at most")
    func demoBounds() throws {
        #expect(try help(["demo"]).contains("How many photos to seed, from 2000 to 1000000."))
    }

    @Test("the command's help states the exit statuses")
    func exitStatuses() throws {
        let text = try help([])
        for status in ["1 a bad input file", "2 a database that does not exist", "3 a database another process keeps locked", "64 bad usage"] {
            #expect(text.contains(status), "help lacks \(status)")
        }
    }
}
