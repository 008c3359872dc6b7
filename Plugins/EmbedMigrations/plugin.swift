import Foundation
import PackagePlugin

/// Generates `EmbeddedMigrations.swift` from the package's `migrations/*.sql`, so the
/// `pushrelay` binary applies its schema without any file beside it.
@main
struct EmbedMigrations: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        let directory = context.package.directoryURL.appending(path: "migrations")
        let files = (try? FileManager.default.contentsOfDirectory(at: directory, includingPropertiesForKeys: nil)) ?? []
        let sqlFiles = files.filter { $0.pathExtension == "sql" }.sorted { $0.lastPathComponent < $1.lastPathComponent }
        let output = context.pluginWorkDirectoryURL.appending(path: "EmbeddedMigrations.swift")
        return [
            .buildCommand(
                displayName: "Embedding \(sqlFiles.count) migrations",
                executable: try context.tool(named: "EmbedMigrationsTool").url,
                arguments: [output.path] + sqlFiles.map(\.path),
                inputFiles: sqlFiles,
                outputFiles: [output]
            ),
        ]
    }
}
