import Foundation
import Testing
import Tessera
import TesseraTestTraits

/// Each ```swift block of README.md and of the DocC articles
/// (`Sources/*/*.docc/*.md`) is written once, in its document. The tests
/// of this target are templates (`*.swift.in`) with a marker in the place
/// of each sample, `// sample: <document> #<number>`, and the
/// DocumentationSamples plugin writes their sources with the samples in
/// those places (Plugins/DocumentationSampleGenerator/main.swift), so the
/// samples are compiled, and run where they can be, from the documents
/// themselves. The generator stops the build when a block has no marker;
/// these tests check the same from the source tree, and the front door's
/// shape.
@Suite("Document samples", .cpuBound)
struct DocumentSamplesTests {
    /// The repository's root: this file is Tests/TesseraDocumentationTests/
    /// in it.
    static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let templatesFolder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()

    static func read(_ url: URL) throws -> String {
        try String(contentsOf: url, encoding: .utf8)
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

    /// The number of ```swift blocks of a Markdown text (a block inside a
    /// list item is indented).
    static func blockCount(in markdown: String) -> Int {
        markdown.split(separator: "\n", omittingEmptySubsequences: false)
            .filter { $0.drop { $0 == " " } == "```swift" }.count
    }

    /// The markers of every template: (document, number, where).
    static func markers() throws -> [(document: String, number: Int, place: String)] {
        let templates = try FileManager.default.contentsOfDirectory(atPath: templatesFolder.path)
            .filter { $0.hasSuffix(".swift.in") }.sorted()
        var markers: [(document: String, number: Int, place: String)] = []
        for template in templates {
            let lines = try read(templatesFolder.appendingPathComponent(template)).split(separator: "\n", omittingEmptySubsequences: false)
            for (offset, line) in lines.enumerated() {
                let text = line.drop { $0 == " " }
                for prefix in ["// sample: ", "// sample not compiled: "] where text.hasPrefix(prefix) {
                    let rest = text.dropFirst(prefix.count)
                    guard let hash = rest.range(of: " #"), let number = Int(rest[hash.upperBound...].prefix { $0.isNumber }) else {
                        Issue.record("\(template):\(offset + 1): a marker without a block number: \(text)")
                        continue
                    }
                    markers.append((String(rest[..<hash.lowerBound]), number, "\(template):\(offset + 1)"))
                }
            }
        }
        return markers
    }

    @Test("Every sample of README.md and the articles is named by one marker of a template, and every marker by a sample")
    func everySampleHasOneMarker() throws {
        let documents = try Self.documents()
        #expect(documents.contains("Sources/TesseraResults/TesseraResults.docc/BackingAListWithSQLite.md"))
        let markers = try Self.markers()
        var total = 0
        for document in documents {
            let count = Self.blockCount(in: try Self.read(Self.root.appendingPathComponent(document)))
            total += count
            let named = markers.filter { $0.document == document }
            #expect(named.map(\.number).sorted() == Array(1...max(count, 1)).prefix(count).map { $0 },
                    "\(document) has \(count) ```swift blocks; the templates name \(named.map { "#\($0.number) at \($0.place)" })")
        }
        for marker in markers where !documents.contains(marker.document) {
            Issue.record("\(marker.place): a marker of \(marker.document), which is not a document")
        }
        #expect(markers.count == total)
        #expect(total > 50, "the documents hold the samples")
    }

    @Test("No test source of this target holds a copy of a sample: only templates have markers")
    func noCopies() throws {
        let this = URL(fileURLWithPath: #filePath).lastPathComponent
        let sources = try FileManager.default.contentsOfDirectory(atPath: Self.templatesFolder.path)
            .filter { $0.hasSuffix(".swift") && $0 != this }
        let marker = "// sample: "
        for source in sources {
            #expect(!(try Self.read(Self.templatesFolder.appendingPathComponent(source))).contains(marker), "\(source)")
        }
    }

    @Test("The README is a front door: at most 300 lines, its first Swift sample above line 60")
    func readmeShape() throws {
        let lines = try Self.read(Self.root.appendingPathComponent("README.md")).split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.count <= 301)   // a final newline ends the last line
        let first = try #require(lines.firstIndex { $0 == "```swift" })
        #expect(first + 1 < 60)
    }

    @Test("Tessera.version is the newest release of CHANGELOG.md")
    func versionMatchesTheChangelog() throws {
        let changelog = try Self.read(Self.root.appendingPathComponent("CHANGELOG.md"))
        let release = try #require(changelog.split(separator: "\n").first { $0.hasPrefix("## [") && !$0.hasPrefix("## [Unreleased]") })
        #expect(release.hasPrefix("## [\(Tessera.version)] - "))
        #expect(Tessera.version.split(separator: ".").count == 3)
    }
}
