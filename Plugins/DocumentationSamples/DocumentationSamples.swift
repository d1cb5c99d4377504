import Foundation
import PackagePlugin

/// Writes the documentation tests' Swift sources from their templates
/// (`*.swift.in`) and the documents whose samples they compile: README.md
/// and every DocC article. Each sample is written once, in its document;
/// the generated sources hold it where the template's marker stands (see
/// Plugins/DocumentationSampleGenerator/main.swift).
@main
struct DocumentationSamples: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        guard let target = target as? SourceModuleTarget else { return [] }
        let root = context.package.directoryURL
        let templates = target.sourceFiles.map(\.url).filter { $0.lastPathComponent.hasSuffix(".swift.in") }
            .sorted { $0.path < $1.path }
        let output = context.pluginWorkDirectoryURL.appending(path: "Samples")
        var documents = [root.appending(path: "README.md")]
        let sources = root.appending(path: "Sources")
        let files = FileManager.default
        for module in (try? files.contentsOfDirectory(atPath: sources.path()))?.sorted() ?? [] {
            let folder = sources.appending(path: module)
            for catalog in (try? files.contentsOfDirectory(atPath: folder.path()))?.sorted() ?? [] where catalog.hasSuffix(".docc") {
                let catalogFolder = folder.appending(path: catalog)
                for file in (try? files.contentsOfDirectory(atPath: catalogFolder.path()))?.sorted() ?? [] where file.hasSuffix(".md") {
                    documents.append(catalogFolder.appending(path: file))
                }
            }
        }
        return [
            .buildCommand(
                displayName: "Writing the documentation samples of \(target.name)",
                executable: try context.tool(named: "DocumentationSampleGenerator").url,
                arguments: [root.path(), output.path()] + templates.map { $0.path() },
                inputFiles: templates + documents,
                outputFiles: templates.map { output.appending(path: String($0.lastPathComponent.dropLast(".in".count))) }
            ),
        ]
    }
}
