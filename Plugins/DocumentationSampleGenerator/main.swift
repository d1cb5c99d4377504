// Writes the Swift sources of the documentation tests from their templates
// and the documents, so that each sample of README.md and of the DocC
// articles is written once, in its document, and compiled from there.
//
// A template (`Name.swift.in` in Tests/TesseraDocumentationTests) is Swift
// with markers in the places of samples:
//
//     // sample: README.md #1
//
// names the first ```swift block of README.md; the generated `Name.swift`
// has that block there, indented as the marker, without its `import`
// lines (they must be the template's own imports, besides Testing and the
// test traits, so the file proves that the imports the sample states are
// enough). Line
// directives point the compiler at the document for the sample's lines and
// at the template for the rest, so an error names the line to fix.
//
//     // sample not compiled: README.md #2 (why)
//
// names a block that is no Swift a test can compile (manifest lines).
//
// Every block of every document must be named exactly once; a README
// sample must be complete (nothing set up before it in its scope) unless
// its first line says which earlier sample it continues
// (`// Continues the … above (…)`). Any other case is an error naming the
// template or document line, and the build stops.
//
// Usage: DocumentationSampleGenerator <package root> <output folder> <template>...
import Foundation

struct Failure: Error {
    var messages: [String]
}

/// A ```swift block of a document.
struct Block {
    var imports: [String]
    var body: [String]
    /// The document line (1-based) of the first line of `body`.
    var firstLine: Int
}

/// The ```swift blocks of a Markdown text, each without the fence's
/// indentation (a block inside a list item is indented).
func blocks(in markdown: String) -> [Block] {
    var blocks: [Block] = []
    let lines = markdown.split(separator: "\n", omittingEmptySubsequences: false)
    var index = 0
    while index < lines.count {
        let line = lines[index]
        index += 1
        let indentation = line.prefix { $0 == " " }
        guard line.dropFirst(indentation.count) == "```swift" else { continue }
        var body: [String] = []
        var first = index + 1
        while index < lines.count, lines[index] != indentation + "```" {
            let inner = lines[index]
            body.append(String(inner.hasPrefix(indentation) ? inner.dropFirst(indentation.count) : inner))
            index += 1
        }
        index += 1
        var imports: [String] = []
        while let head = body.first, head.hasPrefix("import ") || (head.isEmpty && !imports.isEmpty) {
            if head.hasPrefix("import ") { imports.append(String(head.dropFirst("import ".count))) }
            body.removeFirst()
            first += 1
        }
        blocks.append(Block(imports: imports, body: body, firstLine: first))
    }
    return blocks
}

/// A marker of a template: the document and block it names.
struct Marker {
    var document: String
    var number: Int
    var compiled: Bool
}

/// Reads `// sample: <document> #<n>` or `// sample not compiled: <document> #<n> (…)`.
func marker(_ text: Substring) -> Marker? {
    for (prefix, compiled) in [("// sample: ", true), ("// sample not compiled: ", false)] where text.hasPrefix(prefix) {
        let rest = text.dropFirst(prefix.count)
        guard let hash = rest.range(of: " #") else { return nil }
        let digits = rest[hash.upperBound...].prefix { $0.isNumber }
        guard let number = Int(digits) else { return nil }
        return Marker(document: String(rest[..<hash.lowerBound]), number: number, compiled: compiled)
    }
    return nil
}

/// Modules a template may import besides the ones its samples state: they
/// serve the tests (Swift Testing, the suites' traits), never a sample.
let testModules: Set<String> = ["Testing", "TesseraTestTraits"]

/// A Swift string literal of a path, for a line directive.
func literal(_ path: String) -> String {
    "\"" + path.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
}

func run(root: URL, output: URL, templates: [URL]) throws {
    var problems: [String] = []
    var documents: [String: [Block]] = [:]
    var used: [String: [Int: String]] = [:]   // document → block number → where

    func documentBlocks(_ document: String) -> [Block]? {
        if let known = documents[document] { return known }
        guard !document.contains(".."),
              let text = try? String(contentsOf: root.appendingPathComponent(document), encoding: .utf8) else { return nil }
        let found = blocks(in: text)
        documents[document] = found
        return found
    }

    for template in templates {
        let name = template.lastPathComponent
        let text = try String(contentsOf: template, encoding: .utf8)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        let fileImports = lines.filter { $0.hasPrefix("import ") }.map { String($0.dropFirst("import ".count)) }
            .filter { !testModules.contains($0) }
        var generated = ["// Generated by the DocumentationSamples plugin from \(name): edit that file, or the documents.",
                         "#sourceLocation(file: \(literal(template.path)), line: 1)"]
        for (offset, line) in lines.enumerated() {
            let indentation = String(line.prefix { $0 == " " })
            let content = line.dropFirst(indentation.count)
            guard content.hasPrefix("// sample: ") || content.hasPrefix("// sample not compiled: ") else {
                generated.append(String(line))
                continue
            }
            let place = "\(template.path):\(offset + 1)"
            guard let marker = marker(content) else {
                problems.append("\(place): error: a sample marker reads `// sample: <document> #<number>`, as `// sample: README.md #1`")
                generated.append(String(line))
                continue
            }
            guard let documentBlocks = documentBlocks(marker.document) else {
                problems.append("\(place): error: \(marker.document) is not a document of this package")
                generated.append(String(line))
                continue
            }
            guard marker.number >= 1, marker.number <= documentBlocks.count else {
                problems.append("\(place): error: \(marker.document) has \(documentBlocks.count) ```swift blocks, not a #\(marker.number)")
                generated.append(String(line))
                continue
            }
            if let earlier = used[marker.document]?[marker.number] {
                problems.append("\(place): error: \(marker.document) #\(marker.number) is named here and at \(earlier)")
            }
            used[marker.document, default: [:]][marker.number] = place
            generated.append(String(line))
            guard marker.compiled else { continue }
            let block = documentBlocks[marker.number - 1]
            let documentPlace = "\(root.appendingPathComponent(marker.document).path):\(block.firstLine)"
            if !block.imports.isEmpty, block.imports.sorted() != fileImports.sorted() {
                problems.append("\(place): error: \(marker.document) #\(marker.number) (\(documentPlace)) imports \(block.imports), but \(name) imports \(fileImports)")
            }
            if marker.document == "README.md", !(block.body.first ?? "").hasPrefix("// Continues ") {
                let setup = setupBefore(offset, in: lines, indentation: indentation)
                if !setup.isEmpty {
                    problems.append("\(place): error: README.md #\(marker.number) is complete (its first line does not say which sample it continues), "
                        + "so it must come first in its scope, but it follows: \(setup.joined(separator: " "))")
                }
            }
            generated.append("#sourceLocation(file: \(literal(root.appendingPathComponent(marker.document).path)), line: \(block.firstLine))")
            generated += block.body.map { $0.isEmpty ? "" : indentation + $0 }
            generated.append("#sourceLocation(file: \(literal(template.path)), line: \(offset + 2))")
        }
        let target = output.appendingPathComponent(String(name.dropLast(".in".count)))
        let contents = generated.joined(separator: "\n")
        if (try? String(contentsOf: target, encoding: .utf8)) != contents {
            try contents.write(to: target, atomically: true, encoding: .utf8)
        }
    }

    // Every block of every document is named once.
    let sources = root.appendingPathComponent("Sources")
    var all = ["README.md"]
    for module in (try? FileManager.default.contentsOfDirectory(atPath: sources.path).sorted()) ?? [] {
        let folder = sources.appendingPathComponent(module)
        for catalog in ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).sorted() where catalog.hasSuffix(".docc") {
            for file in ((try? FileManager.default.contentsOfDirectory(atPath: folder.appendingPathComponent(catalog).path)) ?? []).sorted() where file.hasSuffix(".md") {
                all.append("Sources/\(module)/\(catalog)/\(file)")
            }
        }
    }
    for document in all {
        for (index, block) in (documentBlocks(document) ?? []).enumerated() where used[document]?[index + 1] == nil {
            problems.append("\(root.appendingPathComponent(document).path):\(block.firstLine): error: this sample (\(document) #\(index + 1)) "
                + "is named by no `// sample: \(document) #\(index + 1)` marker in Tests/TesseraDocumentationTests/*.swift.in: put one where it compiles and runs")
        }
    }
    if !problems.isEmpty { throw Failure(messages: problems) }
}

/// The statements before a marker in its scope, back to the scope's
/// opening or the sample before it (blank lines, comments and `#expect`
/// lines left out).
func setupBefore(_ offset: Int, in lines: [Substring], indentation: String) -> [String] {
    var setup: [String] = []
    for earlier in lines[..<offset].reversed() {
        let text = earlier.trimmingCharacters(in: .whitespaces)
        if text.isEmpty { continue }
        if earlier.prefix(while: { $0 == " " }).count < indentation.count { break }
        if text.hasPrefix("// sample") && earlier.prefix(while: { $0 == " " }).count == indentation.count { break }
        if !text.hasPrefix("//") && !text.hasPrefix("#expect") { setup.insert(text, at: 0) }
    }
    return setup
}

let arguments = CommandLine.arguments.dropFirst()
guard arguments.count >= 2 else {
    FileHandle.standardError.write(Data("usage: DocumentationSampleGenerator <package root> <output folder> <template>...\n".utf8))
    exit(64)
}
let root = URL(fileURLWithPath: arguments[arguments.startIndex])
let output = URL(fileURLWithPath: arguments[arguments.startIndex + 1])
do {
    try FileManager.default.createDirectory(at: output, withIntermediateDirectories: true)
    try run(root: root, output: output, templates: arguments.dropFirst(2).map { URL(fileURLWithPath: $0) })
} catch let failure as Failure {
    FileHandle.standardError.write(Data((failure.messages.joined(separator: "\n") + "\n").utf8))
    exit(1)
} catch {
    FileHandle.standardError.write(Data("DocumentationSampleGenerator: error: \(error)\n".utf8))
    exit(1)
}
