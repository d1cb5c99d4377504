import Foundation
import Testing
import TesseraFuzzChecks
import TesseraTestTraits

/// Every committed fuzz input (the seed corpora and the inputs that once
/// found a bug, under Fuzz/Corpus) passes its target's oracle: what the
/// fuzzers found stays fixed, without libFuzzer.
@Suite("Fuzz corpora", .cpuBound)
struct FuzzCorpusTests {
    static let corpus = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fuzz/Corpus")

    static func inputs(_ target: String) throws -> [(name: String, bytes: [UInt8])] {
        let folder = corpus.appendingPathComponent(target)
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
        return try names.map { ($0, Array(try Data(contentsOf: folder.appendingPathComponent($0)))) }
    }

    @Test("Every committed input passes its oracle", arguments: ["diff", "batch", "layout", "collation", "document"])
    func corpus(target: String) throws {
        let inputs = try Self.inputs(target)
        #expect(inputs.count >= 3, "Fuzz/Corpus/\(target) holds \(inputs.count) inputs")
        let collation = try CollationFuzzCheck()
        for (name, bytes) in inputs {
            var input = FuzzInput(bytes)
            let problems: [String]
            switch target {
            case "diff": problems = DiffFuzzCheck.problems(&input)
            case "batch": problems = BatchFuzzCheck.problems(&input)
            case "layout": problems = LayoutFuzzCheck.problems(&input)
            case "collation": problems = collation.problems(&input)
            default: problems = DocumentFuzzCheck.problems(&input)
            }
            #expect(problems.isEmpty, "Fuzz/Corpus/\(target)/\(name): \(problems.prefix(3))")
        }
    }
}
