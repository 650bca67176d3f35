import Foundation
import PackagePlugin

/// Compiles the repository's `openapi.yaml` and `Migrations/*.sql` into the target it is applied
/// to, so the binary runs from any folder. The files stay the single source: every build reads
/// them again, and a new migration file becomes an input on the next build.
@main
struct EmbedResources: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: any Target) throws -> [Command] {
        let root = context.package.directoryURL
        let migrations = root.appendingPathComponent("Migrations")
        let sqlFiles = try FileManager.default.contentsOfDirectory(atPath: migrations.path)
            .filter { $0.hasSuffix(".sql") }
            .sorted()
            .map { migrations.appendingPathComponent($0) }
        let openAPI = root.appendingPathComponent("openapi.yaml")
        let output = context.pluginWorkDirectoryURL.appendingPathComponent("GeneratedResources.swift")
        return [
            .buildCommand(
                displayName: "Embedding openapi.yaml and \(sqlFiles.count) migrations",
                executable: try context.tool(named: "ResourceEmbedder").url,
                arguments: [output.path, openAPI.path] + sqlFiles.map(\.path),
                inputFiles: [openAPI] + sqlFiles,
                outputFiles: [output])
        ]
    }
}
