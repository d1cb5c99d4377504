import Foundation
import Testing

/// Every ```swift block of README.md and of the DocC articles
/// (`Sources/*/*.docc/*.md`) is copied, verbatim, into this target, where
/// it is compiled and, where it can be, run. These tests check that the
/// copies still equal the documents, so neither can change alone.
///
/// A copy sits between a `// sample: <document>` line and a
/// `// end of sample` line, indented as its surroundings need. A block that
/// begins with `import` lines is copied without them: they are instead the
/// imports of the file that holds the copy (besides Testing), so the file
/// proves that the stated imports are enough.
///
/// A README sample is complete, or its first line says which earlier
/// sample it continues (`// Continues the flat list above (Photo, before).`).
/// The copy of a complete one comes first in its function, with nothing
/// set up before it; a sample that continues another is copied after the
/// copy of that one, or after code that stands in for it.
@Suite("Sample copies")
struct SampleCopiesTests {
    /// The repository's root: this file is Tests/TesseraDocumentationTests/
    /// in it.
    static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let samplesFolder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()

    /// Blocks that are not Swift a test can compile, each with the reason.
    static let notCompiled: [(document: String, block: String, reason: String)] = [
        ("README.md", """
            .package(path: "../Tessera"),
            // …
            .target(name: "MyApp", dependencies: [.product(name: "TesseraDiff", package: "Tessera")]),
            """, "lines of a Package.swift manifest, which only SwiftPM compiles"),
    ]

    /// A block of a document: its imports and the rest.
    struct Block: Hashable, CustomStringConvertible {
        var imports: [String]
        var body: String

        var description: String {
            (imports.map { "import \($0)\n" }.joined() + body).split(separator: "\n", omittingEmptySubsequences: false)
                .prefix(4).map { "    \($0)" }.joined(separator: "\n")
        }
    }

    /// A copy in this target: its document, its text, and the imports of
    /// the file that holds it.
    struct Copy: Hashable {
        var document: String
        var body: String
        var fileImports: [String]
        var place: String
        /// The statements before it in its scope, back to the scope's
        /// opening or the end of the copy before it (blank lines, comments
        /// and `#expect` lines left out).
        var setup: [String] = []
    }

    /// The documents, relative to the root: README.md, then every article.
    static func documents() throws -> [String] {
        let sources = root.appendingPathComponent("Sources")
        var articles: [String] = []
        for module in try FileManager.default.contentsOfDirectory(atPath: sources.path).sorted() {
            let moduleFolder = sources.appendingPathComponent(module)
            guard let entries = try? FileManager.default.contentsOfDirectory(atPath: moduleFolder.path) else { continue }
            for catalog in entries.sorted() where catalog.hasSuffix(".docc") {
                let files = try FileManager.default.contentsOfDirectory(atPath: moduleFolder.appendingPathComponent(catalog).path)
                for file in files.sorted() where file.hasSuffix(".md") {
                    articles.append("Sources/\(module)/\(catalog)/\(file)")
                }
            }
        }
        return ["README.md"] + articles
    }

    static func read(_ url: URL) throws -> String {
        try String(contentsOf: url, encoding: .utf8)
    }

    /// The ```swift blocks of a Markdown text, each without the fence's
    /// indentation (a block inside a list item is indented).
    static func blocks(in markdown: String) -> [Block] {
        var blocks: [Block] = []
        var lines = markdown.split(separator: "\n", omittingEmptySubsequences: false)[...]
        while let line = lines.popFirst() {
            let indentation = line.prefix { $0 == " " }
            guard line.dropFirst(indentation.count) == "```swift" else { continue }
            var body: [Substring] = []
            while let inner = lines.popFirst(), inner != indentation + "```" {
                body.append(inner.hasPrefix(indentation) ? inner.dropFirst(indentation.count) : inner)
            }
            var imports: [String] = []
            while let first = body.first, first.hasPrefix("import ") || (first.isEmpty && !imports.isEmpty) {
                if first.hasPrefix("import ") { imports.append(String(first.dropFirst("import ".count))) }
                body.removeFirst()
            }
            blocks.append(Block(imports: imports, body: body.joined(separator: "\n")))
        }
        return blocks
    }

    /// The copies in one Swift source of this target.
    static func copies(in source: String, file: String) -> [Copy] {
        let lines = source.split(separator: "\n", omittingEmptySubsequences: false)
        let fileImports = lines.filter { $0.hasPrefix("import ") && $0 != "import Testing" }
            .map { String($0.dropFirst("import ".count)) }
        var copies: [Copy] = []
        var index = 0
        while index < lines.count {
            let line = lines[index]
            index += 1
            let indentation = line.prefix { $0 == " " }
            let marker = line.dropFirst(indentation.count)
            guard marker.hasPrefix("// sample: ") else { continue }
            let start = index
            var setup: [String] = []
            for earlier in lines[..<(index - 1)].reversed() {
                let text = earlier.trimmingCharacters(in: .whitespaces)
                if text.isEmpty { continue }
                if earlier == indentation + "// end of sample" || earlier.prefix(while: { $0 == " " }).count < indentation.count { break }
                if !text.hasPrefix("//") && !text.hasPrefix("#expect") { setup.insert(text, at: 0) }
            }
            var body: [Substring] = []
            while index < lines.count, lines[index] != indentation + "// end of sample" {
                let inner = lines[index]
                body.append(inner.hasPrefix(indentation) ? inner.dropFirst(indentation.count) : inner)
                index += 1
            }
            copies.append(Copy(document: String(marker.dropFirst("// sample: ".count)), body: body.joined(separator: "\n"),
                               fileImports: fileImports, place: "\(file):\(start)", setup: setup))
        }
        return copies
    }

    /// Every copy in this target's sources.
    static func allCopies() throws -> [Copy] {
        let files = try FileManager.default.contentsOfDirectory(atPath: samplesFolder.path).filter { $0.hasSuffix(".swift") }.sorted()
        return try files.flatMap { try copies(in: read(samplesFolder.appendingPathComponent($0)), file: $0) }
    }

    /// What is wrong between a document's blocks and the copies naming it:
    /// a block with no copy (or a changed one), a copy of no block, or a
    /// copy in a file that does not import what its block states.
    static func problems(document: String, blocks: [Block], copies: [Copy]) -> [String] {
        var problems: [String] = []
        var unmatched = copies.filter { $0.document == document }
        let excluded = notCompiled.filter { $0.document == document }.map(\.block)
        for block in blocks {
            if block.imports.isEmpty, excluded.contains(block.body) { continue }
            guard let match = unmatched.firstIndex(where: { $0.body == block.body }) else {
                problems.append("\(document): this sample has no copy in Tests/TesseraDocumentationTests (new or changed? copy it there and compile it):\n\(block)")
                continue
            }
            let copy = unmatched.remove(at: match)
            if document == "README.md", !block.body.hasPrefix("// Continues "), !copy.setup.isEmpty {
                problems.append("\(copy.place): README.md's sample is complete (its first line does not say which sample it continues), "
                    + "so its copy must come first in its function, but it follows: \(copy.setup.joined(separator: " "))")
            }
            if !block.imports.isEmpty, copy.fileImports.sorted() != block.imports.sorted() {
                problems.append("\(copy.place): the sample imports \(block.imports), but the file that holds its copy imports \(copy.fileImports)")
            }
        }
        for copy in unmatched {
            problems.append("\(copy.place): a copy of a sample that \(document) no longer has")
        }
        return problems
    }

    @Test("Every sample of README.md and the articles has an equal, compiled copy here")
    func copiesEqualTheDocuments() throws {
        let documents = try Self.documents()
        #expect(documents.contains("Sources/TesseraResults/TesseraResults.docc/BackingAListWithSQLite.md"))
        let copies = try Self.allCopies()
        var count = 0
        for document in documents {
            let blocks = Self.blocks(in: try Self.read(Self.root.appendingPathComponent(document)))
            count += blocks.count
            for problem in Self.problems(document: document, blocks: blocks, copies: copies) {
                Issue.record(Comment(rawValue: problem))
            }
        }
        for copy in copies where !documents.contains(copy.document) {
            Issue.record("\(copy.place): a copy of a sample of \(copy.document), which is not a document")
        }
        #expect(copies.count + Self.notCompiled.count == count)
    }

    /// The problems a changed README has that the README itself has not.
    static func newProblems(_ change: (String) -> String) throws -> [String] {
        let readme = try read(root.appendingPathComponent("README.md"))
        let changed = change(readme)
        #expect(changed != readme, "the change applies")
        let copies = try allCopies()
        let before = problems(document: "README.md", blocks: blocks(in: readme), copies: copies)
        return problems(document: "README.md", blocks: blocks(in: changed), copies: copies).filter { !before.contains($0) }
    }

    @Test("A sample changed in the README is reported, as is its stale copy")
    func changedSampleIsReported() throws {
        let problems = try Self.newProblems {
            $0.replacingOccurrences(of: "let changes = try diff(from: before, to: after)", with: "let changes = try diff(from: after, to: before)")
        }
        #expect(problems.count == 2)
        #expect(problems.first?.hasPrefix("README.md: this sample has no copy") == true)
        #expect(problems.last?.hasSuffix("a copy of a sample that README.md no longer has") == true)
    }

    @Test("A sample whose stated import differs from its copy's file is reported")
    func changedImportIsReported() throws {
        let problems = try Self.newProblems {
            $0.replacingOccurrences(of: "```swift\nimport TesseraLayout\n", with: "```swift\nimport TesseraView\n")
        }
        #expect(problems.count == 1)
        #expect(problems.first?.contains("the sample imports [\"TesseraView\"], but the file that holds its copy imports [\"TesseraLayout\"]") == true)
    }

    @Test("A README sample copied after code that sets it up must say which sample it continues")
    func setupNeedsContinues() {
        let complete = Block(imports: [], body: "try source.apply(snapshot)")
        let continuing = Block(imports: [], body: "// Continues the sample above (source, snapshot).\ntry source.apply(snapshot)")
        func copy(_ block: Block, setup: [String]) -> Copy {
            Copy(document: "README.md", body: block.body, fileImports: [], place: "Samples.swift:3", setup: setup)
        }
        let setup = ["let snapshot = Snapshot<Int, Int>()"]
        #expect(Self.problems(document: "README.md", blocks: [complete], copies: [copy(complete, setup: [])]).isEmpty)
        #expect(Self.problems(document: "README.md", blocks: [complete], copies: [copy(complete, setup: setup)]) == [
            "Samples.swift:3: README.md's sample is complete (its first line does not say which sample it continues), "
                + "so its copy must come first in its function, but it follows: let snapshot = Snapshot<Int, Int>()",
        ])
        #expect(Self.problems(document: "README.md", blocks: [continuing], copies: [copy(continuing, setup: setup)]).isEmpty)
        // Built from parts, so that this file holds no marker itself.
        let open = "// sample" + ": README.md", close = "// end of sample"
        let source = [
            "import Tessera", "", "func sample() throws {",
            "    let snapshot = Snapshot<Int, Int>()", "    #expect(snapshot.numberOfItems == 0)",
            "    " + open, "    try source.apply(snapshot)", "    " + close,
            "    " + open, "    let more = 1", "    " + close, "}",
        ].joined(separator: "\n")
        #expect(Self.copies(in: source, file: "Samples.swift").map(\.setup) == [["let snapshot = Snapshot<Int, Int>()"], []])
    }
}
